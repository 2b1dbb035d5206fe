"""The bridge's table logic without a network: table commands, who may play, what goes where, identities,
claims, votes, and tables that survive a restart through the store."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from schemas.envelopes import ViewRecord
from schemas.gateway import abandon_agreed, abandon_waiting_for
from services.chat.irc.bridge import BridgeSettings, IrcBridge
from services.chat.irc.outbox import Line
from services.chat.irc.protocol import parse
from services.chat.irc.seats import RECONNECT_S, Sender
from services.chat.irc.store import TableStore
from services.chat.irc.tables import Tables
from services.pipeline.direct import DirectClient
from services.pipeline.inprocess import InProcess

ANN = Sender("ann", "ann@10.0.0.1")
BOB = Sender("bob", "bob@10.0.0.2")
EVE_AS_BOB = Sender("bob", "bob@10.0.0.2")  # the same nick and user@host, after bob left IRC


class PumpedClient(DirectClient):
    """The in-process service, run to quiescence before every look at a view: deterministic tables."""

    def view(self, match_id: str, key: str | int = "public", token: str | None = None) -> ViewRecord | None:
        if self._pump is not None:
            self._pump()
        return super().view(match_id, key, token)


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def tables(store: TableStore | None = None, embedded: InProcess | None = None, clock: Clock | None = None,
           idle_remind_s: float = 0, colour: bool = False) -> Tables:
    """Tables on a pumped in-process service (idle reminders off unless asked for: the tests move the clock)."""
    embedded = embedded or InProcess(partitions=2)
    return Tables(PumpedClient(embedded.backend, pump=embedded.pump), timeout_s=5, store=store,
                  clock=clock or Clock(), abandon_idle_s=300, idle_remind_s=idle_remind_s, colour=colour)


def texts(replies: list[Line], target: str | None = None) -> list[str]:
    return [line.text for line in replies if target is None or line.target == target]


def seated_nim(t: Tables | None = None, channel: str = "#t") -> Tables:
    t = t or tables()
    t.on_channel(channel, ANN, "!new nim 2 max_take=2 seed=3")
    t.on_channel(channel, ANN, "!join")
    t.on_channel(channel, BOB, "!join")
    return t


def claim_code(replies: list[Line], nick: str) -> str:
    line = next(x for x in texts(replies, nick) if "claim code is" in x)
    return line.split("claim code is ")[1].split(":")[0]


def test_table_commands_answer_in_the_channel() -> None:
    t = tables()
    assert "!new <game> <players>" in texts(t.on_channel("#t", "ann", "!help"))[0]
    assert len(t.on_channel("#t", "ann", "!help")) == 4 and all(x.endswith(".") for x in texts(t.on_channel(
        "#t", "ann", "!help")))  # whole sentences, never cut
    assert "nim (2-4 players)" in texts(t.on_channel("#t", "ann", "!games"))[0]
    assert "I do not know '!dance'" in texts(t.on_channel("#t", "ann", "!dance"))[0]
    assert "Did you mean !join?" in texts(t.on_channel("#t", "ann", "!jion"))[0]
    assert "write '!new <game> <players>" in texts(t.on_channel("#t", "ann", "!new nim"))[0]
    assert "do not know the game 'chess'" in texts(t.on_channel("#t", "ann", "!new chess 2"))[0]
    assert "nim needs 2 to 4 players" in texts(t.on_channel("#t", "ann", "!new nim 9"))[0]
    assert "options look like name=value" in texts(t.on_channel("#t", "ann", "!new nim 2 fast"))[0]
    assert "no match is open here" in texts(t.on_channel("#t", "ann", "!join"))[0]
    assert texts(t.on_channel("#t", "ann", "!seats"))[0].startswith("No match here.")


def test_joining_gives_a_private_claim_code_and_starts_the_match() -> None:
    t = tables()
    assert texts(t.on_channel("#t", ANN, "!new nim 2"))[0].endswith("Write '!join' to take a seat (0/2).")
    assert "a match is on here" in texts(t.on_channel("#t", BOB, "!new nim 2"))[0]
    joined = t.on_channel("#t", ANN, "!join 1")
    assert texts(joined, "#t") == ["ann takes seat 1 (1/2)."]
    code = claim_code(joined, "ann")
    assert code not in " ".join(texts(joined, "#t")), "the claim code is private"
    assert texts(t.on_channel("#t", ANN, "!join")) == ["ann: you already sit here (seat 1)."]
    assert "seat 1 of match" in texts(t.on_channel("#t", BOB, "!join 1"))[0]
    assert texts(t.on_channel("#t", BOB, "!join 7")) == ["bob: there are seats 0 to 1."]
    assert t.on_channel("#t", ANN, "take 1") == []  # before the start nothing is legal: talk
    assert "has not begun" in texts(t.on_private(ANN, "take 1"))[0]
    assert t.poll() == []  # nothing is told before the match begins
    assert "seat 0 free" in texts(t.on_channel("#t", ANN, "!seats"))[0]
    started = texts(t.on_channel("#t", BOB, "!join"), "#t")
    assert started[0] == "bob takes seat 0 (2/2)." and started[1].startswith("All seats taken: bob, ann.")
    assert any(line.startswith("pile: ") for line in started)  # the public board, once


def test_the_player_to_act_is_prompted_first_and_the_others_hear_only_what_changed() -> None:
    t = seated_nim()
    first = t.poll()
    assert first[0].target == "ann" and first[0].urgent  # the prompt leads
    assert texts(first, "ann")[-1].startswith("Your move. Legal now: 1) take n=1 | 2) take n=2")
    assert not any("Your move" in line for line in texts(first, "bob"))
    assert not any(line.startswith("pile:") for line in texts(first, "bob")), "no board privately"
    assert texts(first, "#t") == []  # nothing public happened since the start
    assert t.on_channel("#t", ANN, "good luck bob!") == []  # talk is not a command
    assert t.on_channel("#t", "carl", "take 1") == []  # nor is anything from someone without a seat
    assert texts(t.on_channel("#t", BOB, "take 1")) == ["It is not your turn; waiting for ann."]
    assert t.on_channel("#t", ANN, "take 2") == []  # accepted: the channel shows it, no private "OK"
    news = t.poll()
    assert news[0].target == "bob" and texts(news, "bob")[-1].startswith("Your move.")
    assert texts(news, "#t") == ["ann: Taken seat=0 n=2", "bob: your move."]
    assert news.index(next(x for x in news if x.target == "bob")) < news.index(next(x for x in news
                                                                                 if x.target == "#t"))
    assert texts(t.on_private(BOB, "take 9"))[0].startswith("Refused 'take n=9'")
    assert "You have no seat" in texts(t.on_private("carl", "take 1"))[0]
    assert "work in a channel" in texts(t.on_private(BOB, "!join"))[0]
    assert texts(t.on_nick(BOB, "robert"), "#t") == ["bob is now robert, still seated."]
    assert texts(t.on_private(Sender("robert", BOB.userhost), "take 1")) == ["OK: take n=1"]


def test_the_small_courtesies_of_a_table() -> None:
    """#33's small ones: a game's name with spaces is read as written in the README, a near miss is named, a long
    input is not echoed whole, a joiner is greeted once (privately), and the turn line starts with the nick."""
    t = tables()
    assert "Did you mean nim" in texts(t.on_channel("#t", ANN, "!new nmi 2"))[0]
    long = "x" * 300
    assert long not in texts(t.on_channel("#t", ANN, f"!{long}"))[0]
    assert "!" + "x" * 29 + "…" in texts(t.on_channel("#t", ANN, f"!{long}"))[0]
    assert "New match of nim" in texts(t.on_channel("#t", ANN, "!new nim 2 seed=3"))[0]
    greeting = t.on_join("#t", Sender("carl", "c@h"))
    assert [x.target for x in greeting] == ["carl"] and "Welcome to #t: a match of nim" in greeting[0].text
    assert t.on_join("#t", Sender("carl", "c@h")) == []  # once a period, however often he joins
    t.on_channel("#t", ANN, "!join 0")
    t.on_channel("#t", BOB, "!join 1")
    t.poll()
    t.on_private(ANN, "take 1")
    lines = t.poll()
    turn = [x for x in lines if x.target == "#t" and x.text.endswith(": your move.")]
    assert turn and turn[0].whole and turn[0].text.split(":")[0] in ("ann", "bob")


def test_a_game_name_may_be_written_with_spaces() -> None:
    from services.games import GAMES

    spaced = next(name for name in GAMES if "-" in name)
    t = tables()
    answer = texts(t.on_channel("#t", ANN, f"!new {spaced.replace('-', ' ').title()} 2"))[0]
    assert f"New match of {spaced}" in answer, answer


def test_a_player_cut_off_by_the_network_keeps_the_seat() -> None:
    """#33: an IRC server restart or a netsplit cost players their seats. A QUIT the network caused keeps the seat
    as it is; any other QUIT lets the same nick from the same user@host sit again for a while, no code needed."""
    t = seated_nim()
    t.poll()
    for reason in ("hub.example.net leaf.example.net", "*.net *.split", "Server shutting down", "Server going down"):
        assert texts(t.on_quit(BOB, reason), "#t") == ["bob was cut off by the network; the seat is kept."]
        assert not t.tables["#t"].players[1].record.away
        assert texts(t.on_join("#t", BOB), "#t") == ["bob is back."]
    assert texts(t.on_quit(BOB, "Ping timeout: 240 seconds"), "#t") == ["bob left IRC; the seat waits for bob to "
                                                                       "come back."]
    elsewhere = t.on_channel("#t", Sender("bob", "bob@elsewhere"), "take 1")  # another host: not him, told how
    assert texts(elsewhere, "#t") == [] and "claim <code>" in texts(elsewhere, "bob")[0]
    assert texts(t.on_join("#t", BOB), "#t") == ["bob is back."]  # the same nick and user@host, soon: his seat
    assert not t.tables["#t"].players[1].record.away
    t.on_private(ANN, "take 1")
    t.poll()
    assert texts(t.on_private(BOB, "take 1")) == ["OK: take n=1"]


def test_a_typo_from_a_seated_player_gets_the_closest_legal_forms_privately() -> None:
    t = seated_nim()
    t.poll()
    reply = t.on_channel("#t", ANN, "tkae 2")
    assert [x.target for x in reply] == ["ann"]
    assert "did you mean 'take'" in reply[0].text.lower() and "Legal now: " in reply[0].text
    assert t.on_channel("#t", ANN, "that was a nice take on it, really") == []  # long talk stays talk


def test_a_seat_belongs_to_its_player_not_to_the_nick() -> None:
    t = tables()
    t.on_channel("#t", ANN, "!new nim 2 seed=3")
    t.on_channel("#t", ANN, "!join 0")
    code = claim_code(t.on_channel("#t", BOB, "!join 1"), "bob")
    t.poll()
    other_host = Sender("bob", "bob@evil.example")
    assert t.on_channel("#t", other_host, "take 1") == []  # another user@host: not bob
    assert "You have no seat" in texts(t.on_private(other_host, "board"))[0]
    left = t.on_quit(BOB)
    assert texts(left, "#t") == ["bob left IRC; the seat waits for bob to come back."]
    t.tables["#t"].players[1].record.away_since -= RECONNECT_S + 1  # long gone: the nick is anybody's now
    # Somebody takes the nick, even from the same user@host: no hand, no moves, no prompt.
    assert "waits for the player who left" in texts(t.on_private(EVE_AS_BOB, "board"))[0]
    assert "waits for the player who left" in texts(t.on_channel("#t", EVE_AS_BOB, "take 1"))[0]
    assert "waits for its player" in texts(t.on_join("#t", EVE_AS_BOB))[0]
    assert "no claim code" in texts(t.on_private(EVE_AS_BOB, "claim aaaa-bbbb-cccc"))[0]
    t.on_private("ann", "take 1")
    assert not texts(t.poll(), "bob"), "nothing private goes to the nick while its player is away"
    # bob comes back (any nick, any host) with his code: announced, and prompted as it is his move.
    back = t.on_private(Sender("bobby", "bob@home"), f"claim {code}")
    assert "Welcome back" in texts(back, "bobby")[0]
    assert texts(back, "#t") == ["bobby (was bob) is back in the seat."]
    news = t.poll()
    assert texts(news, "bobby")[-1].startswith("Your move.")
    assert texts(t.on_private(Sender("bobby", "bob@home"), "take 1")) == ["OK: take n=1"]


def test_leaving_the_channel_and_coming_back_is_announced() -> None:
    t = seated_nim()
    t.poll()
    assert texts(t.on_part("#t", BOB), "#t")[0].startswith("bob left #t; the seat is kept")
    assert texts(t.on_join("#t", BOB), "#t") == ["bob is back."]
    t.on_reconnect()  # the bridge's own connection is new: nobody is told anything until seen again
    t.on_private(ANN, "take 1")
    assert t.poll() == [] or not texts(t.poll(), "bob")
    t.on_seen("#t", BOB)
    assert texts(t.poll(), "bob")[-1].startswith("Your move.")


def test_two_tables_tag_private_lines_and_a_private_command_needs_the_table_when_unclear() -> None:
    t = seated_nim(channel="#a")
    seated_nim(t, channel="#b")
    first = t.poll()
    assert all(x.text.startswith(("[#a] ", "[#b] ")) for x in first if x.target in ("ann", "bob"))
    assert any(x.text.startswith("[#a] Your move.") for x in first if x.target == "ann")
    assert "start with the table, like '#a" in texts(t.on_private(ANN, "take 1"))[0]  # ann moves at both
    assert texts(t.on_private(ANN, "#b take 1")) == ["[#b] OK: take n=1"]
    news = t.poll()
    assert texts(news, "#b")[0].startswith("ann: Taken") and not texts(news, "#a")
    assert texts(t.on_private(ANN, "take 1")) == ["[#a] OK: take n=1"]  # now only #a waits for ann
    assert texts(t.on_private(ANN, "#b help"))[-1].startswith("[#b] You sit at more than one table: start a "
                                                             "private command with the table")


def test_board_requests_are_limited_per_player_and_channel() -> None:
    clock = Clock()
    t = seated_nim(tables(clock=clock))
    t.poll()
    assert any(x.startswith("pile: ") for x in texts(t.on_channel("#t", "zed", "!board"), "#t"))
    refused = t.on_channel("#t", "kim", "!board")
    assert [x.target for x in refused] == ["kim"] and "ask again in" in refused[0].text
    assert t.on_channel("#t", "kim", "!board") == []  # a flood gets one notice, then silence
    assert texts(t.on_private(ANN, "board"))  # the player's own board: his own limit
    assert "ask again in" in texts(t.on_private(ANN, "board"))[0]
    clock.now += 31
    assert any(x.startswith("pile: ") for x in texts(t.on_channel("#t", "kim", "!board"), "#t"))


def test_the_end_is_announced_once_and_ending_early_needs_the_others() -> None:
    clock = Clock()
    t = seated_nim(tables(clock=clock))
    t.poll()
    match_id = t.tables["#t"].match_id
    seats = {0: ANN, 1: BOB}
    heard: list[Line] = []
    for _ in range(40):
        record = t.client.view(match_id, "public")
        assert record is not None
        if record.view["finished"]:
            break
        heard += t.on_private(seats[record.view["to_act"][0]], "1")
        heard += t.poll()
    channel = texts(heard, "#t")
    assert channel[-1].startswith("The match is over. Won by ")
    assert sum("over" in x.lower() for x in channel) == 1, "one game-over line"
    assert any(line.startswith("The match is over.") for line in texts(heard, "ann"))
    assert t.poll() == []
    assert texts(t.on_channel("#t", ANN, "!new nim 2"))[0].startswith("New match")  # the old one is over
    t.on_channel("#t", ANN, "!join")
    t.on_channel("#t", BOB, "!join")
    t.poll()
    assert texts(t.on_channel("#t", "zed", "!abandon")) == ["zed: only a seated player may vote to end the match."]
    record = t.client.view(t.tables["#t"].match_id, "public")
    assert record is not None
    to_act = record.to_act[0]
    waiting, other = (ANN, BOB) if to_act == 0 else (BOB, ANN)
    vote = texts(t.on_channel("#t", waiting, "!abandon"))[0]  # the player to move alone: not enough
    assert vote.startswith(f"{waiting.nick} votes to end the match early") and f"when {other.nick} agrees" in vote
    assert not t.tables["#t"].finished
    clock.now += 301
    assert not t.tables["#t"].finished and t.poll() == []  # the silent one is the voter: no timeout rule
    ended = texts(t.on_channel("#t", other, "!abandon"), "#t")
    assert ended == ["The match is abandoned by its players' agreement: it ends without a winner. '!new' starts "
                     "another."]
    assert t.tables["#t"].finished


def test_the_timeout_rule_lets_the_others_end_a_match_whose_player_to_move_is_gone() -> None:
    clock = Clock()
    t = seated_nim(tables(clock=clock))
    t.poll()
    record = t.client.view(t.tables["#t"].match_id, "public")
    assert record is not None
    other = BOB if record.to_act == [0] else ANN
    assert not texts(t.on_channel("#t", other, "!abandon"), "#t")[0].startswith("The match is abandoned")
    clock.now += 200
    assert t.poll() == [] and not t.tables["#t"].finished
    clock.now += 120  # 320 s since the vote, nobody moved: the vote is judged again, and passes
    assert texts(t.poll(), "#t")[0].startswith("The match is abandoned")


def test_tables_survive_a_restart_of_the_bridge(tmp_path: Path) -> None:
    embedded = InProcess(partitions=2)
    path = tmp_path / "state" / "tables.json"
    t = seated_nim(tables(TableStore(path), embedded))
    t.poll()
    t.on_private(ANN, "take 1")
    t.poll()
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600 and stat.S_IMODE(os.stat(path.parent).st_mode) == 0o700
    assert not [p for p in path.parent.iterdir() if p != path], "no temporary file left behind"
    again = tables(TableStore(path), embedded)  # a new bridge on the same store (and the same service)
    assert texts(again.on_channel("#t", "zed", "!seats"))[0].startswith("nim (match ")
    assert "ann (seat 0), bob (seat 1)" in texts(again.on_channel("#t", "zed", "!seats"))[0]
    back = again.poll()  # nobody seen yet: nothing private goes out; the channel hears the bridge was away, once
    assert [(x.target, x.text) for x in back] == [("#t", "bob: I was away for a moment and heard nothing meanwhile; if "
                                                          "you wrote your move then, write it again.")]
    again.on_seen("#t", BOB)
    again.on_seen("#t", ANN)
    news = again.poll()
    assert texts(news, "bob")[-2].startswith("I was away for a moment (restarted"), "a move written then is lost"
    assert texts(news, "bob")[-1].startswith("Your move."), "the player to move is prompted again"
    assert not [x for x in texts(news, "ann") if "away" in x], "the player not to move is not bothered"
    assert not texts(news, "#t"), "the channel was told already"
    assert texts(again.on_private(BOB, "take 1")) == ["OK: take n=1"]
    assert texts(again.poll(), "#t")[0].startswith("bob: Taken")


MZ_TABLE: list[Tables] = []


def mz_table() -> Tables:
    """One Moderne Zeiten table (made once): ann, bob and cid seated."""
    if not MZ_TABLE:
        t = tables()
        t.on_channel("#mz", "ann", "!new moderne-zeiten 3 seed=4")
        for nick in ("ann", "bob", "cid"):
            t.on_channel("#mz", nick, "!join")
        t.poll()
        MZ_TABLE.append(t)
    return MZ_TABLE[0]


@settings(max_examples=150, deadline=None)
@given(st.sampled_from(["ann", "bob", "cid", "dan"]), st.booleans(),
       st.one_of(st.text(max_size=30), st.lists(st.sampled_from(
           ["play", "bid", "2", "avi", "pass", "draw", "!join", "!new", "finish", "help", "board", "x", "!seats",
            "claim", "#mz", "pas", "!abandon"]), max_size=4).map(" ".join)))
def test_anything_anyone_writes_gets_a_reply_or_silence_never_an_error(nick: str, private: bool, text: str) -> None:
    t = mz_table()
    replies = t.on_private(nick, text) if private else t.on_channel("#mz", nick, text)
    for line in replies:
        assert line.text and "\n" not in line.text
        assert line.target in (nick, "#mz")
        assert "Sorry, that went wrong" not in line.text
    t.poll()


def test_a_wrong_move_in_the_channel_is_answered_privately_with_what_is_legal() -> None:
    t = tables()
    t.on_channel("#mz", "ann", "!new moderne-zeiten 3 seed=4")
    for nick in ("ann", "bob", "cid"):
        t.on_channel("#mz", nick, "!join")
    t.poll()
    record = t.client.view(t.tables["#mz"].match_id, "public")
    assert record is not None
    nick = t.tables["#mz"].players[record.view["to_act"][0]].nick
    replies = t.on_channel("#mz", nick, "play 2 zeppelins")
    assert replies and all(x.target == nick for x in replies)
    assert "Legal now: " in replies[0].text


def test_seated_players_may_be_named_by_nick_in_commands() -> None:
    t = seated_nim()
    table = next(iter(t.tables.values()))
    nicks = {p.seat: p.nick for p in table.players.values()}
    text = f"offer {nicks[1]}: mining for 2 labor, {nicks[0].upper()}x {nicks[0]}"
    assert table.seats_for_nicks(text) == f"offer seat 1: mining for 2 labor, {nicks[0].upper()}x seat 0"
    assert table.seats_for_nicks(f"{nicks[0]} says hi") == f"{nicks[0]} says hi"


def test_the_abandon_rule_needs_everyone_or_after_a_silence_everyone_not_to_move() -> None:
    assert abandon_agreed(3, [0], {0, 1, 2}, idle_s=0)
    assert not abandon_agreed(3, [0], {1, 2}, idle_s=10)  # the others agree, but too soon
    assert abandon_agreed(3, [0], {1, 2}, idle_s=300)
    assert not abandon_agreed(3, [0], {0}, idle_s=10_000)  # the player to move alone: never
    assert not abandon_agreed(3, [0], {1}, idle_s=10_000)  # one of the others alone: never
    assert abandon_agreed(2, [1], {0}, idle_s=300) and not abandon_agreed(2, [1], {0}, idle_s=299)
    assert abandon_waiting_for(3, [0], {1}, idle_s=0) == [0, 2]
    assert abandon_waiting_for(3, [0], {1}, idle_s=400) == [2]


def test_with_services_accounts_the_account_holds_the_seat_whatever_the_nick() -> None:
    t = tables()
    alice = Sender("alice", "a@home", account="alice")
    t.on_channel("#t", alice, "!new nim 2 seed=3")
    t.on_channel("#t", alice, "!join 0")
    t.on_channel("#t", BOB, "!join 1")
    t.poll()
    assert t.on_channel("#t", Sender("alice", "a@home"), "take 1") == []  # the nick and host, but logged out
    assert t.on_quit(alice) and not t.tables["#t"].players[0].record.away  # the account still decides
    assert texts(t.on_private(Sender("al2", "x@elsewhere", account="alice"), "take 1")) == ["OK: take n=1"]


def test_the_bridge_reads_accounts_from_tags_extended_join_and_account_notify() -> None:
    embedded = InProcess(partitions=2)
    bridge = IrcBridge(PumpedClient(embedded.backend, pump=embedded.pump), BridgeSettings())
    said = bridge._sender(parse("@account=alice :al!a@h PRIVMSG #t :hi"))
    assert said == Sender("al", "a@h", "alice")
    bridge._on_message(parse(":bo!b@h JOIN #t bobacct :Bob"))  # extended-join
    assert bridge._sender(parse(":bo!b@h PRIVMSG #t :hi")).account == "bobacct"
    bridge._on_message(parse(":bo!b@h ACCOUNT *"))  # account-notify: logged out
    assert bridge._sender(parse(":bo!b@h PRIVMSG #t :hi")).account is None
    bridge._on_message(parse(":airship 352 airship #t ann h srv ann H :0 Ann"))  # a WHO reply: seen, quietly
    assert bridge.outbox.queued() == 0

"""The bridge's table logic without a network: table commands, who may play, what goes where."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from schemas.envelopes import ViewRecord
from services.chat.irc.tables import Tables
from services.pipeline.client import Client
from services.pipeline.inprocess import InProcess


class PumpedClient(Client):
    """The in-process service, run to quiescence before every look at a view: deterministic tables."""

    def view(self, match_id: str, key: str | int = "public", token: str | None = None) -> ViewRecord | None:
        if self._pump is not None:
            self._pump()
        return super().view(match_id, key, token)


def tables() -> Tables:
    embedded = InProcess(partitions=2)
    return Tables(PumpedClient(embedded.backend, pump=embedded.pump), timeout_s=5)


def texts(replies: list[tuple[str, str]], target: str | None = None) -> list[str]:
    return [text for to, text in replies if target is None or to == target]


def seated_nim() -> tuple[Tables, str]:
    t = tables()
    new = texts(t.on_channel("#t", "ann", "!new nim 2 max_take=2 seed=3"))
    match_id = new[0].split()[2].rstrip(":")
    t.on_channel("#t", "ann", "!join")
    t.on_channel("#t", "bob", "!join")
    return t, match_id


def test_table_commands_answer_in_the_channel() -> None:
    t = tables()
    assert "!new <game> <players>" in texts(t.on_channel("#t", "ann", "!help"))[0]
    assert "nim (2-4 players)" in texts(t.on_channel("#t", "ann", "!games"))[0]
    assert "I do not know '!dance'" in texts(t.on_channel("#t", "ann", "!dance"))[0]
    assert "write '!new <game> <players>" in texts(t.on_channel("#t", "ann", "!new nim"))[0]
    assert "unknown game 'chess'" in texts(t.on_channel("#t", "ann", "!new chess 2"))[0]
    assert "nim needs 2 to 4 players" in texts(t.on_channel("#t", "ann", "!new nim 9"))[0]
    assert "options look like name=value" in texts(t.on_channel("#t", "ann", "!new nim 2 fast"))[0]
    assert "no match is open here" in texts(t.on_channel("#t", "ann", "!join"))[0]
    assert texts(t.on_channel("#t", "ann", "!seats")) == ["No match here."]


def test_joining_seats_and_starting() -> None:
    t = tables()
    assert texts(t.on_channel("#t", "ann", "!new nim 2"))[0].endswith("Write '!join' to take a seat (0/2).")
    assert "a match is on here" in texts(t.on_channel("#t", "bob", "!new nim 2"))[0]
    assert texts(t.on_channel("#t", "ann", "!join 1")) == ["ann takes seat 1 (1/2)."]
    assert texts(t.on_channel("#t", "ann", "!join")) == ["ann: you already sit in seat 1."]
    assert "seat 1 of match" in texts(t.on_channel("#t", "bob", "!join 1"))[0]
    assert texts(t.on_channel("#t", "bob", "!join 7")) == ["bob: there are seats 0 to 1."]
    assert texts(t.on_channel("#t", "ann", "take 1")) == []  # a command in the channel before the start: ignored
    assert "has not begun" in texts(t.on_private("ann", "take 1"))[0]
    assert t.poll() == []  # nothing is told before the match begins
    assert "seat 0 free" in texts(t.on_channel("#t", "ann", "!seats"))[0]
    started = texts(t.on_channel("#t", "bob", "!join"))
    assert started[0] == "bob takes seat 0 (2/2)." and started[1].startswith("All seats taken: bob (seat 0), ann")
    assert any(line.startswith("pile: ") for line in started)  # the public board


def test_commands_private_replies_and_talk() -> None:
    t, match_id = seated_nim()
    first = t.poll()
    assert texts(first, "ann")[0] == f"Match {match_id} (nim), you are seat 0. Write 'help' for help."
    assert texts(first, "ann")[-1].startswith("Your move. Legal now: 1) take n=1 | 2) take n=2")
    assert not any("Your move" in line for line in texts(first, "bob"))
    assert texts(first, "#t") == []  # nothing public happened since the start
    assert t.on_channel("#t", "ann", "good luck bob!") == []  # talk is not a command
    assert t.on_channel("#t", "carl", "take 1") == []  # nor is anything from someone without a seat
    assert texts(t.on_channel("#t", "bob", "take 1")) == ["It is not your turn; waiting for seat 0."]
    reply = t.on_channel("#t", "ann", "take 2")
    assert reply[0] == ("ann", "OK: take n=2")
    assert all(to == "ann" for to, _ in reply)
    news = t.poll()
    assert "ann (seat 0): Taken seat=0 n=2" in texts(news, "#t")[0]
    assert texts(news, "#t")[-1] == "Next: bob (seat 1)."
    assert texts(news, "bob")[-1].startswith("Your move.")
    assert texts(t.on_private("bob", "take 9"))[0].startswith("Refused 'take n=9'")
    assert "You have no seat" in texts(t.on_private("carl", "take 1"))[0]
    assert "work in a channel" in texts(t.on_private("bob", "!join"))[0]
    assert texts(t.on_nick("bob", "robert")) == ["bob is now robert, still in seat 1."]
    assert texts(t.on_private("robert", "take 1"))[0] == "OK: take n=1"


def test_the_end_is_announced_and_the_table_can_be_abandoned() -> None:
    t, match_id = seated_nim()
    t.poll()
    seats = {0: "ann", 1: "bob"}
    heard: list[tuple[str, str]] = []
    for _ in range(40):
        record = t.client.view(match_id, "public")
        assert record is not None
        if record.view["finished"]:
            break
        seat = record.view["to_act"][0]
        heard += t.on_private(seats[seat], "1")
        heard += t.poll()
    assert texts(heard, "#t")[-1].startswith("The match is over. Won by ")
    assert any(line.startswith("The match is over.") for line in texts(heard, "ann"))
    assert t.poll() == []
    assert texts(t.on_channel("#t", "ann", "!new nim 3"))[0].startswith("New match")  # the old one is over
    t.on_channel("#t", "ann", "!join")
    assert texts(t.on_channel("#t", "zed", "!abandon")) == ["zed: only a seated player may abandon the match."]
    assert "is no longer played here" in texts(t.on_channel("#t", "ann", "!abandon"))[0]
    assert texts(t.on_channel("#t", "ann", "!board")) == ["No board to show here yet."]


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
           ["play", "bid", "2", "avi", "pass", "draw", "!join", "!new", "finish", "help", "board", "x", "!seats"]),
           max_size=4).map(" ".join)))
def test_anything_anyone_writes_gets_a_reply_or_silence_never_an_error(nick: str, private: bool, text: str) -> None:
    t = mz_table()
    replies = t.on_private(nick, text) if private else t.on_channel("#mz", nick, text)
    for target, line in replies:
        assert line and "\n" not in line
        assert target in (nick, "#mz")
        assert "Sorry, that went wrong" not in line
    t.poll()


def test_a_wrong_move_in_the_channel_is_answered_privately_with_what_is_legal() -> None:
    t = mz_table()
    record = t.client.view(t.tables["#mz"].match_id, "public")
    assert record is not None
    if record.view["finished"]:
        return
    nick = t.tables["#mz"].players[record.view["to_act"][0]].nick
    replies = t.on_channel("#mz", nick, "play 2 zeppelins")
    assert replies and all(to == nick for to, _ in replies)
    assert "Legal now: " in replies[0][1]


def test_seated_players_may_be_named_by_nick_in_commands() -> None:
    t, _ = seated_nim()
    table = next(iter(t.tables.values()))
    nicks = {p.seat: p.nick for p in table.players.values()}
    text = f"offer {nicks[1]}: mining for 2 labor, {nicks[0].upper()}x {nicks[0]}"
    assert table.seats_for_nicks(text) == f"offer seat 1: mining for 2 labor, {nicks[0].upper()}x seat 0"
    assert table.seats_for_nicks(f"{nicks[0]} says hi") == f"{nicks[0]} says hi"

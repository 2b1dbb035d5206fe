"""Tables that hold (#33), end to end: a real IRC server (miniircd), the bridge, and the gateway with a worker and a
projector as processes (and the service's bots process). A secret choice typed in a channel is refused there and
never repeated; '!bots' gives a table's free seats to the service's bots, the match plays to the end, '!abandon'
ends it in the service (the bots agree), and bots that never come are said and the table clears."""

from __future__ import annotations

import random
import re
import statistics
import threading
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import redis

from schemas.codec import pack_obj
from services.bots.server import BotHost, HostSettings
from services.chat.adapter import get_adapter
from services.chat.irc import table_bots
from services.chat.irc.bridge import BridgeSettings
from services.chat.irc.seats import Sender
from services.chat.irc.tables import Tables
from services.client import GatewayClient
from services.games.mad_zeppelin.data import NAME_OF
from tests.chat.ircd import SEAT_RE, IrcPlayer, IrcServer, choose
from tests.chat.test_irc_live import start_bridge, stop_bridge
from tests.gateway.stack import GatewayStack, gateway_stack
from tests.pipeline.redis_fixtures import redis_url

__all__ = ["gateway_stack", "redis_url"]  # fixtures of the gateway tests

pytestmark = [pytest.mark.redis, pytest.mark.gateway]

BRIDGE = "airship"


@pytest.fixture
def irc_server() -> Iterator[IrcServer]:
    with IrcServer() as server:
        yield server


def settings(port: int, channels: tuple[str, ...], store: Path | None = None, **changes: object) -> BridgeSettings:
    return BridgeSettings(port=port, nick=BRIDGE, channels=channels, poll_s=0.05, timeout_s=10,  # type: ignore[arg-type]
                          store_path=str(store) if store else None, reconnect_min_s=0.2, reconnect_max_s=2.0,
                          **changes)


def seat(port: int, channel: str, game: str, nicks: list[str], watcher: IrcPlayer, extra: str = "") -> list[IrcPlayer]:
    players = [IrcPlayer(port, nick) for nick in nicks]
    for player in players:
        player.join(channel)
    players[0].say(channel, f"!new {game} {len(nicks)} {extra}".strip())
    watcher.wait_for(rf"^New match of {game}", sender=BRIDGE, keep_others=True)
    for number, player in enumerate(players):
        player.say(channel, f"!join {number}")
        watcher.wait_for(rf"^{player.nick} takes seat {number} ", sender=BRIDGE, keep_others=True)
    return players


def wait_private(players: list[IrcPlayer], pattern: str, timeout_s: float = 15.0) -> tuple[IrcPlayer, str]:
    """The first of ``players`` told ``pattern`` privately by the bridge, and the line."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        for player in players:
            for said in list(player.received):
                if said.sender == BRIDGE and said.target == player.nick and re.search(pattern, said.text):
                    return player, said.text
        time.sleep(0.05)
    raise AssertionError(f"nobody was told /{pattern}/")


def heard_in(person: IrcPlayer, channel: str, pattern: str, timeout_s: float = 15.0, since: float = 0.0) -> str:
    """A line of the bridge in ``channel`` (or to ``person`` privately: his nick) that ``person`` received (now or
    within ``timeout_s``) matching ``pattern`` (lines may be joined: searched anywhere in a line)."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        found = [line for line in channel_lines(person, channel.lower(), since) if re.search(pattern, line)]
        if found:
            return found[0]
        time.sleep(0.05)
    raise AssertionError(f"{person.nick} never heard /{pattern}/ in {channel}")


def channel_lines(person: IrcPlayer, channel: str, since: float = 0.0) -> list[str]:
    return [s.text for s in list(person.received) if s.sender == BRIDGE and s.target.lower() == channel
            and s.at >= since]


def test_a_secret_typed_in_the_channel_is_refused_there_and_never_repeated(
        irc_server: IrcServer, gateway_stack: GatewayStack) -> None:
    port = irc_server.port
    bridge, thread = start_bridge(settings(port, ("#mz",)), gateway_stack.url)
    spectator = IrcPlayer(port, "spec")
    spectator.join("#mz")
    people = [spectator]
    try:
        players = seat(port, "#mz", "mad-zeppelin", ["ann", "bob"], spectator)
        people += players
        drafter, _ = wait_private(players, r"Secret: answer me privately \(/msg airship draft \.\.\.\)")
        prompt = heard_in(drafter, drafter.nick, r"Legal now: ")
        traitor = re.search(r"\bdraft (\w+)", prompt.split("Legal now:")[1])
        assert traitor, prompt
        key = traitor[1]
        typed_at = time.monotonic()
        drafter.say("#mz", f"draft {key}")
        spectator.wait_for(rf"^{drafter.nick}: Not here: everyone can read it\. Write it to me privately: /msg "
                           rf"airship draft \.\.\.$", sender=BRIDGE, keep_others=True)
        match_id = next(iter(bridge.tables.tables.values())).match_id
        with GatewayClient(gateway_stack.url) as client:
            version = client.match(match_id).version
            time.sleep(0.5)
            assert client.match(match_id).version == version, "the refused command was not sent"
        drafter.say(BRIDGE, f"draft {key}")
        drafter.wait_for(r"^OK: draft", sender=BRIDGE, keep_others=True)
        spectator.wait_for(rf"{drafter.nick} drafts a Traitor\.", sender=BRIDGE, keep_others=True)
        time.sleep(0.3)
        said = channel_lines(spectator, "#mz", typed_at)
        names = {key, NAME_OF[key]} | set(NAME_OF[key].split(" — "))  # type: ignore[index]
        assert not [line for line in said if any(n.lower() in line.lower() for n in names)], said
        other = next(p for p in players if p is not drafter)
        heard = [s.text for s in other.received if s.sender == BRIDGE and s.at >= typed_at]
        assert not [line for line in heard if "drafts the" in line or key in line.split("Legal now:")[0]], heard
    finally:
        stop_bridge(bridge, thread)
        for person in people:
            person.close()



@pytest.fixture
def service_bots(gateway_stack: GatewayStack) -> Iterator[BotHost]:
    """The service's bots process (``airship bots``), on a thread beside the stack."""
    host = BotHost(HostSettings(url=gateway_stack.url, poll_s=0.2))
    thread = threading.Thread(target=host.run, daemon=True, name="bots")
    thread.start()
    yield host
    host.stop()
    thread.join(15)
    host.close()


def play_along(player: IrcPlayer, channel: str, until: str, seed: int, timeout_s: float = 60.0) -> list[str]:
    """Answer every 'Legal now' the bridge tells ``player`` privately with a pick from it (in the channel), until a
    line of the channel matches ``until``; the channel's lines."""
    rng = random.Random(seed)
    deadline = time.monotonic() + timeout_s
    heard: list[str] = []
    while time.monotonic() < deadline:
        said = player.next_said(0.1)
        if said is None or said.sender != BRIDGE:
            continue
        if said.target.lower() == channel:
            heard.append(said.text)
            if re.search(until, said.text):
                return heard
        elif "Legal now: " in said.text:
            player.say(channel, choose(said.text, rng))
    raise AssertionError(f"{player.nick} never heard /{until}/ in {channel}; heard {heard[-5:]}")


def test_bots_fill_a_tables_free_seats_and_it_plays_to_the_end(
        irc_server: IrcServer, gateway_stack: GatewayStack, service_bots: BotHost) -> None:
    port = irc_server.port
    bridge, thread = start_bridge(settings(port, ("#bots",)), gateway_stack.url)
    ann = IrcPlayer(port, "ann")
    ann.join("#bots")
    try:
        ann.say("#bots", "!new nim 3")
        ann.wait_for(r"^New match of nim", sender=BRIDGE)
        ann.say("#bots", "!bots")
        ann.wait_for(r"^ann: only a seated player may give the free seats to bots", sender=BRIDGE)
        ann.say("#bots", "!join 1")
        ann.wait_for(r"^ann takes seat 1 ", sender=BRIDGE, keep_others=True)
        ann.say("#bots", "!bots clever")
        ann.wait_for(r"^ann: write '!bots' or '!bots <strength>' with one of random, heuristic, ismcts", sender=BRIDGE,
                     keep_others=True)
        ann.say("#bots", "!bots random")
        ann.wait_for(r"^The service's random bots take the free seats: bot0 \(seat 0\), bot2 \(seat 2\)\.",
                     sender=BRIDGE, keep_others=True)
        heard_in(ann, "#bots", r"All seats taken: bot0, ann, bot2\. The match begins when the bots sit down")
        ann.say("#bots", "!join")
        ann.wait_for(r"^ann: you already sit here", sender=BRIDGE, keep_others=True)
        heard = play_along(ann, "#bots", r"(^|\. )The match is over\. ", seed=7)
        assert any(re.match(r"bot[02]\b", line) for line in heard), "the channel tells the bots' moves by name"
        match_id = next(iter(bridge.tables.tables.values())).match_id
        with GatewayClient(gateway_stack.url) as client:
            summary = client.match(match_id)
            assert summary.status == "finished" and not summary.abandoned
        assert {held.seat for held in service_bots.held.values()} <= {0, 2}
    finally:
        stop_bridge(bridge, thread)
        ann.close()


def test_abandon_at_a_table_with_bots_ends_the_services_match(
        irc_server: IrcServer, gateway_stack: GatewayStack, service_bots: BotHost) -> None:
    port = irc_server.port
    bridge, thread = start_bridge(settings(port, ("#quit",)), gateway_stack.url)
    ann, bob = IrcPlayer(port, "ann"), IrcPlayer(port, "bob")
    try:
        for p in (ann, bob):
            p.join("#quit")
        ann.say("#quit", "!new nim 3")
        ann.wait_for(r"^New match of nim", sender=BRIDGE)
        ann.say("#quit", "!join 0")
        bob.say("#quit", "!join 1")
        ann.wait_for(r"^bob takes seat 1 ", sender=BRIDGE, keep_others=True)
        bob.say("#quit", "!bots heuristic")
        ann.wait_for(r"^The service's heuristic bots take the free seats: bot2 \(seat 2\)", sender=BRIDGE,
                     keep_others=True)
        table = next(iter(bridge.tables.tables.values()))
        with GatewayClient(gateway_stack.url) as client:
            deadline = time.monotonic() + 20
            while client.match(table.match_id).status != "running":
                assert time.monotonic() < deadline, "the bot sat down"
                time.sleep(0.1)
            ann.say("#quit", "!abandon")
            ann.wait_for(r"^ann votes to end the match early \(ann agree\)\. It ends when bob agrees", sender=BRIDGE,
                         keep_others=True)
            bob.say("#quit", "!abandon")
            ann.wait_for(r"^The match is abandoned by its players' agreement", sender=BRIDGE, keep_others=True)
            summary = client.match(table.match_id)
            assert summary.status == "finished" and summary.abandoned
            assert client.log(table.match_id).events[-1].body["votes"] == [0, 1, 2]
    finally:
        stop_bridge(bridge, thread)
        ann.close()
        bob.close()


def test_bots_that_never_come_are_said_and_the_table_clears(gateway_stack: GatewayStack) -> None:
    """No bots process runs: the channel hears it after a while, and '!abandon' clears the table."""
    ann = Sender("ann", "ann@h1")
    clock = [1000.0]
    with GatewayClient(gateway_stack.url) as client:
        tables = Tables(client, timeout_s=10, clock=lambda: clock[0])
        tables.on_channel("#b", ann, "!new nim 2")
        tables.on_channel("#b", ann, "!join 0")
        said = [x.text for x in tables.on_channel("#b", ann, "!bots random")]
        assert said[0] == "The service's random bots take the free seats: bot1 (seat 1)."
        assert "(seat 1, random)" in tables.on_channel("#b", ann, "!seats")[0].text
        assert not any("have not sat down" in x.text for x in tables.poll())
        clock[0] += table_bots.BOTS_LATE_S + 1
        late = [x.text for x in tables.poll() if x.target == "#b"]
        assert late == ["The service's bots have not sat down after 60 s (is 'airship bots' running?). '!abandon' "
                        "clears the table."]
        assert not any("have not sat down" in x.text for x in tables.poll())  # once
        assert [x.text for x in tables.on_channel("#b", ann, "!abandon")] == [
            "The table is cleared. '!new' starts another match."]
        assert "#b" not in tables.tables


def test_a_move_written_while_the_bridge_restarts_is_answered(
        irc_server: IrcServer, gateway_stack: GatewayStack, tmp_path: Path) -> None:
    """The bridge process stops, the player to move writes his move meanwhile (nobody hears it: IRC keeps no history),
    a new bridge starts from the store: the channel and the player hear, nick first, that it was missed; written
    again it plays, once."""
    port = irc_server.port
    config = settings(port, ("#back",), tmp_path / "tables.json")
    bridge, thread = start_bridge(config, gateway_stack.url)
    watcher = IrcPlayer(port, "spec")
    watcher.join("#back")
    players: list[IrcPlayer] = []
    try:
        players = seat(port, "#back", "nim", ["ann", "bob"], watcher)
        mover, _ = wait_private(players, r"Your move\. Legal now: ")
        match_id = next(iter(bridge.tables.tables.values())).match_id
        stop_bridge(bridge, thread)
        with GatewayClient(gateway_stack.url) as client:
            version = client.match(match_id).version
            mover.say("#back", "take 1")  # the bridge is away: lost
            restarted_at = time.monotonic()
            bridge, thread = start_bridge(config, gateway_stack.url)
            heard_in(watcher, "#back", rf"(^|\. ){mover.nick}: I was away for a moment and heard nothing meanwhile; "
                                       rf"if you wrote your move then, write it again\.")
            heard_in(mover, mover.nick, r"I was away for a moment \(restarted, or cut off from the server\): "
                                        r"anything you wrote to me meanwhile was lost\. If you wrote your move, write "
                                        r"it again\. (\[#back\] )?Your move\. ", timeout_s=20)
            assert client.match(match_id).version == version, "the lost line played nothing"
            mover.say(BRIDGE, "take 1")
            heard_in(mover, mover.nick, r"OK: take", since=restarted_at)
            heard_in(watcher, "#back", rf"(^|\. ){mover.nick}: Taken", since=restarted_at)
            assert client.match(match_id).version == version + 1
        other = next(p for p in players if p is not mover)
        assert not [s for s in other.received if s.at >= restarted_at and "I was away" in s.text
                    and s.target == other.nick], "the player not to move is not bothered"
    finally:
        stop_bridge(bridge, thread)
        for person in [watcher, *players]:
            person.close()


class Player(threading.Thread):
    """A seated player answering each 'Legal now' it is told privately after ``think_s``, in the channel and
    privately by turns, until its channel hears the end."""

    def __init__(self, irc: IrcPlayer, channel: str, seed: int, think_s: float) -> None:
        super().__init__(daemon=True, name=f"player-{irc.nick}")
        self.irc, self.channel, self.think_s = irc, channel, think_s
        self.rng = random.Random(seed)
        self.done = threading.Event()
        self.errors: list[BaseException] = []
        self.echoes: list[float] = []  # seconds from a move written to the bridge's next line in the channel
        self.sent_at: float | None = None

    def run(self) -> None:
        moves = 0
        deadline = time.monotonic() + 120
        try:
            while not self.done.is_set() and time.monotonic() < deadline:
                said = self.irc.next_said(0.1)
                if said is None or said.sender != BRIDGE:
                    continue
                if said.target.lower() == self.channel:
                    if self.sent_at is not None:
                        self.echoes.append(time.monotonic() - self.sent_at)
                        self.sent_at = None
                    if re.search(r"(^|\. )The match is over\. ", said.text):
                        self.done.set()
                elif "Legal now: " in said.text:
                    time.sleep(self.think_s)
                    moves += 1
                    self.irc.say(self.channel if moves % 2 else BRIDGE, choose(said.text, self.rng))
                    self.sent_at = time.monotonic()
        except BaseException as e:
            self.errors.append(e)


def told(events: list[Any], game: str, nicks: list[str]) -> Counter[str]:
    """The event lines a channel must hear, as the bridge writes them (nicks for seats), with their counts."""
    adapter = get_adapter(game)
    lines = (adapter.render_event(e.for_seat(None)) for e in events)
    return Counter(SEAT_RE.sub(lambda m: nicks[int(m[1])], line) for line in lines if line)


def heard_count(line: str, texts: list[str]) -> int:
    pattern = re.compile(rf"(?<!\w){re.escape(line)}(?!\w)")
    return sum(len(pattern.findall(text)) for text in texts)


def test_a_flood_at_one_table_loses_no_event_line_at_either(
        irc_server: IrcServer, gateway_stack: GatewayStack) -> None:
    """20 lines a second for 10 s at one table (help, seats, boards, unknown commands, talk: many answers each) while
    both tables play nim to the end: every event line of both matches reaches its channel, and in time; the other
    table's players hear their moves echoed in the channel within 2 s (p90)."""
    port = irc_server.port
    tables_ = {"#one": ["ann", "bob"], "#two": ["cid", "dan"]}
    bridge, thread = start_bridge(settings(port, tuple(tables_), line_interval_s=0.25, burst=5, bytes_per_s=2000,
                                           max_queued=40),
                                  gateway_stack.url)
    watcher, flooder = IrcPlayer(port, "spec"), IrcPlayer(port, "flood")
    for channel in tables_:
        watcher.join(channel)
    flooder.join("#one")
    people = [watcher, flooder]
    try:
        seated = {c: seat(port, c, "nim", nicks, watcher, "max_take=1") for c, nicks in tables_.items()}
        people += [p for ps in seated.values() for p in ps]
        shown = {t.channel: t.shown for t in bridge.tables.tables.values()}  # the set-up: not told (no move yet)
        players = [Player(p, c, i, think_s=0.4) for c, ps in seated.items() for i, p in enumerate(ps)]
        for player in players:
            player.start()
        flood = ["!help", "!seats", "!board", "!games", "!dance", "hello all", "!who", "!jion"]
        started = time.monotonic()
        backlog = 0
        for i in range(200):  # 20 a second for 10 s
            flooder.say("#one", flood[i % len(flood)])
            backlog = max(backlog, bridge.outbox.queued("#one"))
            time.sleep(max(0.0, started + (i + 1) / 20 - time.monotonic()))
        for player in players:
            player.join(60)
        assert all(p.done.is_set() for p in players), "both matches over"
        assert not [e for p in players for e in p.errors]
        time.sleep(0.5)
        ids = {t.channel: t.match_id for t in bridge.tables.tables.values()}
        with GatewayClient(gateway_stack.url) as client:
            for channel, nicks in tables_.items():
                events = [e for e in client.log(ids[channel]).events if e.version > shown[channel]]
                expected = told(events, "nim", nicks)
                assert sum(expected.values()) >= 7, "the match told something"
                said = channel_lines(watcher, channel)
                missing = {line: n for line, n in expected.items() if heard_count(line, said) < n}
                assert not missing, f"{channel} lost event lines: {missing}"
        assert backlog >= 30 and bridge.outbox.dropped > 0, \
            f"the flood piled answers up at #one ({backlog} lines, {bridge.outbox.dropped} dropped): the check above " \
            f"means something"
        assert bridge.acks.waiting <= bridge.acks.window
        echoes = sorted(e for p in players if p.channel == "#two" for e in p.echoes)
        assert len(echoes) >= 5, echoes
        p90 = echoes[int(0.9 * (len(echoes) - 1))]
        print(f"\n#two during the flood at #one: echo p50 {statistics.median(echoes):.2f} s, p90 {p90:.2f} s")
        assert p90 <= 2.0, echoes
    finally:
        stop_bridge(bridge, thread)
        for person in people:
            person.close()


def test_top_reads_the_services_ladder(gateway_stack: GatewayStack, redis_url: str) -> None:
    keys = gateway_stack.settings.keys
    rows = [{"player": name, "rating": rating, "mu": rating + 6, "sigma": 2.0, "games": games, "wins": wins,
             "last_match": "m1"} for name, rating, games, wins in [("alice", 20.54, 12, 7), ("bert", 11.0, 9, 3),
                                                                   ("carl", 3.2, 4, 0)]]
    r = redis.Redis.from_url(redis_url)
    r.set(keys.ratings("nim:standings"), pack_obj(rows))
    zed = Sender("zed", "zed@h")
    try:
        with GatewayClient(gateway_stack.url) as client:
            tables = Tables(client, timeout_s=10)
            assert [x.text for x in tables.on_channel("#t", zed, "!top nim 2")] == [
                "Best of nim: 1. alice 20.5 (12 games, 7 won), 2. bert 11.0 (9 games, 3 won)."]
            tables.on_channel("#t", zed, "!new nim 2")
            assert "3. carl 3.2 (4 games, 0 won)." in tables.on_channel("#t", zed, "!top")[0].text  # the table's game
            assert [x.text for x in tables.on_channel("#t", zed, "!top mad zeppelin")] == [
                "No rated players of mad-zeppelin yet: rated matches are made on the service's ladder."]
    finally:
        r.delete(keys.ratings("nim:standings"))
        r.close()

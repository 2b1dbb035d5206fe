"""Whole matches played over a real IRC server (miniircd on loopback) by scripted IRC players through the
bridge, with the service (worker and projector) running on threads. Each player only ever hears its own
private view: every line it received is checked against what each seat could see at every version."""

from __future__ import annotations

import random
import threading
from collections.abc import Iterator
from typing import Any

import pytest

from services.chat.irc.bridge import BridgeSettings, IrcBridge
from services.pipeline.direct import DirectClient
from services.pipeline.memory import MemoryBackend
from tests.chat.ircd import IrcPlayer, choose, contained, lines_by_reader, miniircd
from tests.pipeline.threaded import running_service

BRIDGE = "airship"


@pytest.fixture(scope="module")
def irc_port() -> Iterator[int]:
    with miniircd() as port:
        yield port


@pytest.fixture
def service() -> Iterator[MemoryBackend]:
    with running_service() as backend:
        yield backend


@pytest.fixture
def bridge(irc_port: int, service: MemoryBackend) -> Iterator[IrcBridge]:
    settings = BridgeSettings(port=irc_port, nick=BRIDGE, channels=("#nim", "#zeiten"), poll_s=0.05, timeout_s=10)
    bot = IrcBridge(DirectClient(service, poll_ms=20), settings)
    thread = threading.Thread(target=bot.run, daemon=True)
    thread.start()
    assert bot.ready.wait(10), "the bridge did not join its channels"
    yield bot
    bot.stop()
    thread.join(5)


def seat_up(channel: str, game: str, nicks: list[str], port: int, extra: str = "") -> tuple[str, list[IrcPlayer]]:
    """The players join the channel, the first sets a match up, all take seats; returns the match id."""
    players = [IrcPlayer(port, nick) for nick in nicks]
    for player in players:
        player.join(channel)
    players[0].say(channel, f"!new {game} {len(nicks)} {extra}".strip())
    players[0].wait_for(r"New match of ", sender=BRIDGE)
    players[0].say(channel, "!seats")
    match_id = players[0].wait_for(r"\(match (\w+), waiting for players\)", sender=BRIDGE)[1]
    for seat, player in enumerate(players):
        player.say(channel, f"!join {seat}")
        players[0].wait_for(rf"{player.nick} takes seat {seat} ", sender=BRIDGE, keep_others=True)
    players[0].wait_for("All seats taken", sender=BRIDGE, keep_others=True)
    return match_id, players


def play(player: IrcPlayer, channel: str, seed: int, via_private: bool, moves: list[str]) -> None:
    """Answer every 'Legal now' the bridge sends privately with a pick from it, until the match is over."""
    rng = random.Random(seed)
    while True:
        try:
            found = player.wait_for(r"(The match is over|Legal now: .*)", timeout_s=20, sender=BRIDGE)
        except AssertionError as e:
            heard = [(s.sender, s.target, s.text[:60]) for s in player.received]
            raise AssertionError(f"{e}; heard: {heard}") from None
        if found[1] == "The match is over":
            return
        move = choose(found[0], rng)
        moves.append(move)
        player.say(BRIDGE if via_private else channel, move)


def play_out(players: list[IrcPlayer], channel: str) -> list[list[str]]:
    moves: list[list[str]] = [[] for _ in players]
    errors: list[BaseException] = []

    def run(i: int) -> None:
        try:
            play(players[i], channel, seed=i, via_private=i % 2 == 1, moves=moves[i])
        except BaseException as e:
            errors.append(e)

    threads = [threading.Thread(target=run, args=(i,), daemon=True) for i in range(len(players))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert not errors, errors
    assert not any(t.is_alive() for t in threads), "a player did not finish"
    return moves


def readable_lines(store: Any, match_id: str, game_name: str, seats: int,
                   nicks: list[str] | None = None) -> dict[int | None, set[str]]:
    """Every line the bridge may render for each reader (None: the public) at any version of the match."""
    return lines_by_reader(store.read_log(match_id), game_name, seats, nicks)


def assert_private_views_stay_private(players: list[IrcPlayer], lines: dict[int | None, set[str]],
                                      spectator: IrcPlayer | None = None) -> None:
    """Each player heard lines only he may see, and none only another may see (the bridge joins a move's lines,
    so each line is looked for inside what was heard)."""
    public = lines[None]
    for seat, player in enumerate(players):
        heard = set(player.texts(BRIDGE))
        own = contained(lines[seat] - public, set(player.texts(BRIDGE, private=True)))
        assert own, f"{player.nick} never got its private view"
        for other, _ in enumerate(players):
            if other != seat:
                secret = lines[other] - lines[seat] - public
                assert secret, "the seats' views never differed: the check would prove nothing"
                leaked = contained(secret, heard)
                assert not leaked, f"{player.nick} (seat {seat}) heard seat {other}'s secrets: {sorted(leaked)[:3]}"
    if spectator is not None:
        private = set().union(*(lines[s] for s in range(len(players)))) - public
        assert not contained(private, set(spectator.texts(BRIDGE)))


def test_a_nim_match_over_irc(bridge: IrcBridge, irc_port: int, service: MemoryBackend) -> None:
    watcher = IrcPlayer(irc_port, "watcher")
    watcher.join("#nim")
    match_id, players = seat_up("#nim", "nim", ["alice", "bob"], irc_port)
    try:
        moves = play_out(players, "#nim")
        record = DirectClient(service).view(match_id, "public")
        assert record is not None and record.view["finished"]
        assert all(moves), "each player moved"
        watcher.wait_for("The match is over. Won by (alice|bob)", sender=BRIDGE)
        channel = watcher.texts(BRIDGE)
        assert any(t in ("alice: your move.", "bob: your move.") for t in channel)  # nick first, a line of its own
        assert not watcher.texts(BRIDGE, private=True), "a spectator is told nothing privately"
        assert_private_views_stay_private(players, readable_lines(service.store, match_id, "nim", 2,
                                                                  ["alice", "bob"]), watcher)
        private = players[0].texts(BRIDGE, private=True)
        assert private[0].startswith("You sit in seat 0 at #nim (nim). Your claim code is ")
        assert any(t.startswith("OK: take n=") for t in players[1].texts(BRIDGE, private=True))  # sent privately
    finally:
        for p in [*players, watcher]:
            p.close()


def test_a_moderne_zeiten_match_over_irc(bridge: IrcBridge, irc_port: int, service: MemoryBackend) -> None:
    match_id, players = seat_up("#zeiten", "moderne-zeiten", ["ann", "ben", "cid"], irc_port, "seed=11")
    try:
        play_out(players, "#zeiten")
        record = DirectClient(service).view(match_id, "public")
        assert record is not None and record.view["finished"]
        lines = readable_lines(service.store, match_id, "moderne-zeiten", 3, ["ann", "ben", "cid"])
        assert_private_views_stay_private(players, lines)
        for seat, player in enumerate(players):
            private = set(player.texts(BRIDGE, private=True))
            assert contained({x for x in lines[seat] if x.startswith("Your hand:")}, private)
            assert not any("Your hand:" in t for t in player.texts(BRIDGE, private=False))
        channel = players[0].texts(BRIDGE, private=False)
        assert any(" bids " in t for t in channel) and any(" plays " in t for t in channel)
        assert "The match is over. Won by " in channel[-1]
        assert not any("seat " in t for t in channel[channel.index(next(t for t in channel if "begins!" in t)):]), \
            "nicks, not seat numbers, once everyone sits"
    finally:
        for p in players:
            p.close()

"""Whole Mad Zeppelin and Modern World matches played over a real IRC server (miniircd on loopback) by scripted
IRC players through the bridge, as in :mod:`tests.chat.test_irc_bridge`: each player answers every 'Legal now'
with one of the listed commands (Modern World players name their trade partners by nick), and every line a
player heard is checked against what each seat could see at every version of the match."""

from __future__ import annotations

import random
import re
import threading
from collections.abc import Callable, Iterator

import pytest

from services.chat.irc.bridge import BridgeSettings, IrcBridge
from services.pipeline.direct import DirectClient
from services.pipeline.memory import MemoryBackend
from tests.chat.ircd import IrcPlayer, choose, contained, miniircd
from tests.chat.test_irc_bridge import BRIDGE, assert_private_views_stay_private, readable_lines, seat_up, service

__all__ = ["service"]  # the fixture, shared with the other IRC tests

Chooser = Callable[[str, random.Random], str]


@pytest.fixture(scope="module")
def irc_port() -> Iterator[int]:
    with miniircd() as port:
        yield port


@pytest.fixture
def bridge(irc_port: int, service: MemoryBackend) -> Iterator[IrcBridge]:
    settings = BridgeSettings(port=irc_port, nick=BRIDGE, channels=("#mad", "#world"), poll_s=0.05, timeout_s=10)
    bot = IrcBridge(DirectClient(service, poll_ms=20), settings)
    thread = threading.Thread(target=bot.run, daemon=True)
    thread.start()
    assert bot.ready.wait(10), "the bridge did not join its channels"
    yield bot
    bot.stop()
    thread.join(5)


def play_out(players: list[IrcPlayer], channel: str, chooser: Chooser) -> list[list[str]]:
    """Every player answers each 'Legal now' it is sent with ``chooser``'s pick, until the match is over."""
    moves: list[list[str]] = [[] for _ in players]
    errors: list[BaseException] = []

    def run(i: int) -> None:
        rng = random.Random(i)
        secret = False  # the prompt said the choice is secret: answered privately, never in the channel
        try:
            while True:
                found = players[i].wait_for(r"(The match is over|Secret: answer me privately|Legal now: .*)",
                                            timeout_s=60, sender=BRIDGE)
                if found[1] == "The match is over":
                    return
                if found[1].startswith("Secret"):
                    secret = True
                    legal = re.search(r"Legal now: .*", found.string)  # the same line, or the next
                    if legal is None:
                        continue
                    found = legal
                move = chooser(found[0], rng)
                moves[i].append(move)
                players[i].say(BRIDGE if i % 2 or secret else channel, move)
                secret = False
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


def test_a_mad_zeppelin_match_over_irc(bridge: IrcBridge, irc_port: int, service: MemoryBackend) -> None:
    match_id, players = seat_up("#mad", "mad-zeppelin", ["ann", "ben"], irc_port, "seed=5")
    try:
        moves = play_out(players, "#mad", choose)
        record = DirectClient(service).view(match_id, "public")
        assert record is not None and record.view["finished"]
        assert all(moves)
        lines = readable_lines(service.store, match_id, "mad-zeppelin", 2, ["ann", "ben"])
        assert_private_views_stay_private(players, lines)
        for seat, player in enumerate(players):
            private = set(player.texts(BRIDGE, private=True))
            assert contained({x for x in lines[seat] if x.startswith("Your hand:")}, private)
            assert any(re.search(rf"\b{player.nick} is dealt the \w+", t) for t in private), "its own Traitor"
            assert not any("Your hand:" in t for t in player.texts(BRIDGE, private=False))
        channel = players[0].texts(BRIDGE, private=False)
        assert any(" plays the " in t for t in channel) and any(t.startswith("Dice: ") for t in channel)
        assert any("is dealt a Traitor." in t for t in channel) and not any(" is dealt the " in t for t in channel)
        assert "The match is over. " in channel[-1]
        assert not any(re.search(r"\b(use_ability|choose_colour|end_sequence)\b", t) for p in players
                       for t in p.texts(BRIDGE)), "the words players type, not the command types"
    finally:
        for p in players:
            p.close()


def world_chooser(nicks: list[str]) -> Chooser:
    """Picks like :func:`choose`, but grabs cheap cards (the match ends sooner) and names partners by nick."""

    def pick(help_: str, rng: random.Random) -> str:
        cheap = re.findall(r"\bbuy [12]\b", help_)
        move = rng.choice(cheap) if cheap and rng.random() < 0.8 else choose(help_, rng)
        return re.sub(r"^offer seat (\d+):", lambda m: f"offer {nicks[int(m[1])]}:", move)

    return pick


def test_a_modern_world_match_over_irc(bridge: IrcBridge, irc_port: int, service: MemoryBackend) -> None:
    nicks = ["cid", "dee"]
    match_id, players = seat_up("#world", "modern-world", nicks, irc_port, "seed=3")
    try:
        moves = play_out(players, "#world", world_chooser(nicks))
        record = DirectClient(service).view(match_id, "public")
        assert record is not None and record.view["finished"]
        lines = readable_lines(service.store, match_id, "modern-world", 2, nicks)
        assert_private_views_stay_private(players, lines)
        for seat, player in enumerate(players):
            private = set(player.texts(BRIDGE, private=True))
            assert contained({x for x in lines[seat] if x.startswith("Your hand:")}, private)
        offers = [m for ms in moves for m in ms if m.startswith("offer ")]
        assert offers and all(not m.startswith("offer seat") for m in offers), "partners named by nick"
        channel = players[0].texts(BRIDGE, private=False)
        assert any(" bids " in t for t in channel) and any(" buys " in t for t in channel)
        assert any(re.search(r"\b(cid|dee) offers (cid|dee) trade #\d+\.", t) for t in channel)
        assert "The match is over. " in channel[-1]
    finally:
        for p in players:
            p.close()

"""Tables that hold (#33), end to end: a real IRC server (miniircd), the bridge, and the gateway with a worker and a
projector as processes. A secret choice typed in a channel is refused there and never repeated."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from services.chat.irc.bridge import BridgeSettings
from services.client import GatewayClient
from services.games.mad_zeppelin.data import NAME_OF
from tests.chat.ircd import IrcPlayer, IrcServer
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
        drafter, prompt = wait_private(players, r"Secret: answer me privately \(/msg airship draft \.\.\.\)")
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


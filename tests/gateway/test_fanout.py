"""Live delivery at scale against a real gateway process: its Redis connections stay the same however many
matches its sockets watch (more than its pool holds), and every watcher of every match gets every view."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from urllib.parse import urlsplit

import httpx
import pytest
import websockets

from services.bench.fanout import make_matches, redis_connections
from tests.gateway.stack import GatewayStack, running_stack, stack_settings

pytestmark = [pytest.mark.redis, pytest.mark.gateway]
POOL = 4  # the gateway's request connections: far fewer than the matches watched
SOCKETS = 10
COMMAND = {"idempotency_key": "k1", "type": "add", "body": {"n": 1}}


@pytest.fixture(scope="module")
def fan_stack(redis_url: str) -> Iterator[GatewayStack]:
    settings = stack_settings(redis_url, "fan")
    with running_stack(settings, AIRSHIP_GATEWAY_REDIS_CONNECTIONS=str(POOL), AIRSHIP_GATEWAY_SOCKET_RPS="100000",
                       AIRSHIP_GATEWAY_ADDR_RPS="100000", AIRSHIP_GATEWAY_TOKEN_RPS="100000") as stack:
        yield stack


async def watch_and_move(stack: GatewayStack, matches: list[tuple[str, str]]) -> tuple[int, int]:
    """Spread ``matches`` over :data:`SOCKETS` spectator sockets, count the gateway's Redis connections while all
    are watched, move every match once over HTTP and wait until every socket saw each of its matches' new view.
    Returns (Redis connections while watched, at most during the moves)."""
    pid = stack.procs[-1].pid
    shares = [matches[i::SOCKETS] for i in range(SOCKETS)]
    sockets = [await websockets.connect(stack.ws_url, max_size=None, ping_interval=None) for _ in range(SOCKETS)]
    try:
        for ws, share in zip(sockets, shares, strict=True):
            for match_id, _ in share:
                await ws.send(json.dumps({"kind": "subscribe", "match_id": match_id, "cid": match_id}))
        seen: list[dict[str, int]] = [{} for _ in sockets]

        async def drain(i: int, until: int) -> None:
            """Read socket ``i`` until each of its matches showed a view at version ``until`` or newer."""
            while sum(v >= until for v in seen[i].values()) < len(shares[i]):
                msg = json.loads(await sockets[i].recv())
                if msg["kind"] == "view":
                    seen[i][msg["match_id"]] = max(seen[i].get(msg["match_id"], 0), msg["version"])
                elif msg["kind"] == "error":
                    raise AssertionError(msg)

        versions = {m: 0 for m, _ in matches}
        await asyncio.wait_for(asyncio.gather(*(drain(i, 1) for i in range(SOCKETS))), 120)
        for i, share in enumerate(shares):
            for match_id, _ in share:
                versions[match_id] = seen[i][match_id]
        assert set(versions.values()) == {1}, "a new match's view is at its first version"
        watched = redis_connections(pid, urlsplit(stack.settings.redis_url).port or 6379)
        peak = watched

        async with httpx.AsyncClient(base_url=stack.url, timeout=30) as http:
            sem = asyncio.Semaphore(32)

            async def move(match_id: str, token: str) -> None:
                async with sem:
                    answer = await http.post(f"/matches/{match_id}/commands", json=COMMAND,
                                             headers={"Authorization": f"Bearer {token}"})
                    assert answer.status_code == 200 and answer.json()["status"] == "accepted", answer.text

            async def sample() -> None:
                nonlocal peak
                while True:
                    peak = max(peak, redis_connections(pid, urlsplit(stack.settings.redis_url).port or 6379))
                    await asyncio.sleep(0.2)

            sampler = asyncio.create_task(sample())
            readers = asyncio.gather(*(drain(i, 2) for i in range(SOCKETS)))  # read while the moves go
            try:
                await asyncio.gather(*(move(m, t) for m, t in matches))
                await asyncio.wait_for(readers, 120)
            finally:
                sampler.cancel()
                readers.cancel()
        for i, share in enumerate(shares):
            for match_id, _ in share:
                assert seen[i][match_id] > versions[match_id], f"socket {i} missed the new view of {match_id}"
        return watched, peak
    finally:
        for ws in sockets:
            await ws.close()


def bound(stack: GatewayStack) -> int:
    """The gateway's connections at most: its request pool, and one live reader on one server."""
    return POOL + 1


def test_few_watched_matches(fan_stack: GatewayStack) -> None:
    matches = asyncio.run(make_matches(fan_stack.settings, SOCKETS))
    watched, peak = asyncio.run(watch_and_move(fan_stack, matches))
    assert 1 <= watched <= peak <= bound(fan_stack)


def test_more_watched_matches_than_the_pool_holds_every_watcher_gets_every_view(fan_stack: GatewayStack) -> None:
    matches = asyncio.run(make_matches(fan_stack.settings, 1000))
    _, peak = asyncio.run(watch_and_move(fan_stack, matches))
    assert peak <= bound(fan_stack), f"{peak} Redis connections for 1,000 watched matches"


@pytest.mark.slow
def test_five_thousand_watched_matches_keep_the_connections_flat(fan_stack: GatewayStack) -> None:
    matches = asyncio.run(make_matches(fan_stack.settings, 5000))
    _, peak = asyncio.run(watch_and_move(fan_stack, matches))
    assert peak <= bound(fan_stack), f"{peak} Redis connections for 5,000 watched matches"

"""The asynchronous gateway client against a real stack: HTTP calls and WebSocket subscriptions."""

from __future__ import annotations

import asyncio
import uuid

import pytest

from services.client import AsyncGatewayClient, NotFound, Timeout, Unauthorized, Unavailable
from tests.client.helpers import dead_url
from tests.gateway.stack import GatewayStack

pytestmark = [pytest.mark.redis, pytest.mark.gateway]


async def _nim(client: AsyncGatewayClient) -> tuple[str, list[str]]:
    match = await client.create_match("nim", 2, {"max_take": 3})
    tokens = [(await client.join(match.match_id, seat))[1] for seat in range(2)]
    return match.match_id, tokens


async def _play_out(client: AsyncGatewayClient, match_id: str, tokens: list[str]) -> None:
    """Both seats take as much as they may until the pile is gone (over HTTP)."""
    version = 0
    while True:
        public = await client.wait_view(match_id, "public", version, 10)
        if public.view["finished"]:
            return
        seat = public.view["to_act"][0]
        record = await client.wait_view(match_id, seat, public.version, 10, token=tokens[seat])
        result = await client.call(match_id, seat, tokens[seat], "take", record.legal[-1]["body"], 10)
        version = result.version


def test_create_join_call_and_duplicate_key(gateway_stack: GatewayStack) -> None:
    async def run() -> None:
        async with AsyncGatewayClient(gateway_stack.url) as client:
            assert "nim" in {g.name for g in await client.games()}
            match_id, tokens = await _nim(client)
            assert (await client.match(match_id)).status == "running"
            key = f"a-{uuid.uuid4().hex[:8]}"
            first = await client.call(match_id, 0, tokens[0], "take", {"n": 1}, command_id=key)
            assert first.status == "accepted", first
            assert await client.call(match_id, 0, tokens[0], "take", {"n": 1}, command_id=key) == first
            assert await client.wait_result(match_id, key, 5) == first
            mine = await client.wait_view(match_id, 0, first.version, 10, token=tokens[0])  # (the projector's)
            assert mine is not None and mine.version >= first.version
            log = await client.log(match_id, tokens[1])
            assert log.perspective == "seat:1" and len([e for e in log.events if e.type == "Taken"]) == 1
            assert [m.match_id for m in await client.matches(game="nim") if m.match_id == match_id]

    asyncio.run(run())


def test_subscribe_over_websocket_sees_every_version_once(gateway_stack: GatewayStack) -> None:
    async def run() -> None:
        async with AsyncGatewayClient(gateway_stack.url) as client:
            match_id, tokens = await _nim(client)
            start = (await client.wait_view(match_id, "public", 1, 10)).version

            async def watch(key: str | int) -> list[int]:
                return [r.version async for r in client.subscribe(match_id, key, start, timeout_s=20)]

            public, seat0, _ = await asyncio.gather(watch("public"), watch(0), _play_out(client, match_id, tokens))
            assert public == sorted(set(public)) and public[0] > start
            final = await client.view(match_id, "public")
            assert final is not None and final.view["finished"] and public[-1] == final.version
            assert seat0 == sorted(set(seat0)) and seat0[-1] == final.version

    asyncio.run(run())


def test_subscribe_resumes_after_a_version(gateway_stack: GatewayStack) -> None:
    async def run() -> None:
        async with AsyncGatewayClient(gateway_stack.url) as client:
            match_id, tokens = await _nim(client)
            await _play_out(client, match_id, tokens)
            final = await client.wait_view(match_id, "public", 1, 10)
            seen = [r.version async for r in client.subscribe(match_id, "public", final.version - 1, timeout_s=10)]
            assert seen == [final.version]
            with pytest.raises(Timeout):
                running, _ = await _nim(client)
                async for _record in client.subscribe(running, "public", 10_000, timeout_s=0.5):
                    pass

    asyncio.run(run())


def test_errors_over_http_and_websocket(gateway_stack: GatewayStack) -> None:
    async def run() -> None:
        async with AsyncGatewayClient(gateway_stack.url) as client:
            with pytest.raises(NotFound):
                await client.match("no-such-match")
            with pytest.raises(NotFound):
                async for _record in client.subscribe("no-such-match", "public", timeout_s=5):
                    pass
            match_id, _ = await _nim(client)
            wrong = "1." + "0" * 48
            with pytest.raises(Unauthorized):
                await client.call(match_id, 1, wrong, "take", {"n": 1})
            with pytest.raises(Unauthorized):
                async for _record in client.subscribe(match_id, 1, token=wrong, timeout_s=5):
                    pass
        async with AsyncGatewayClient(dead_url(), timeout_s=2, reconnects=1) as dead:
            with pytest.raises(Unavailable):
                await dead.games()
            with pytest.raises(Unavailable):
                async for _record in dead.subscribe("m", "public", timeout_s=5):
                    pass

    asyncio.run(run())

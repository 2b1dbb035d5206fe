"""The gateway's group commit (services.gateway.batch) against the test Redis: the calls of one event-loop turn
go in one pipeline and each gets its own reply or error; a pipeline that fails fails each call in it; a script
the server does not know is loaded and its call made again; a reused idempotency key with another command is
refused by the publish script, the same command (its body's keys in any order) is not."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
import redis.asyncio as aioredis
import redis.exceptions

from schemas.envelopes import CommandEnvelope
from services.gateway import batch as batch_module
from services.gateway.batch import Batcher
from services.gateway.store import GatewayStore, command_digest, connect_async
from services.gateway.wire import Refused
from services.pipeline.redis_backend import connect, delete_prefix
from services.settings import Settings

pytestmark = pytest.mark.redis


@pytest.fixture
def settings(redis_url: str) -> Iterator[Settings]:
    s = Settings(redis_url=redis_url, key_prefix=f"airship-batch-{uuid.uuid4().hex[:8]}")
    yield s
    delete_prefix(connect(redis_url), s.key_prefix)


class Counting:
    """A client whose pipelines are counted (how many were executed, with how many commands)."""

    def __init__(self, r: aioredis.Redis) -> None:
        self.r = r
        self.sizes: list[int] = []

    def pipeline(self, transaction: bool = False) -> Any:
        pipe = self.r.pipeline(transaction=transaction)
        execute = pipe.execute

        async def counted(raise_on_error: bool = True) -> Any:
            self.sizes.append(len(pipe.command_stack))
            return await execute(raise_on_error=raise_on_error)

        pipe.execute = counted  # type: ignore[method-assign]
        return pipe


def test_one_turn_is_one_pipeline_and_each_call_gets_its_own_reply(settings: Settings) -> None:
    async def run() -> None:
        r = connect_async(settings.redis_url)
        counting = Counting(r)
        b = Batcher(counting)
        key = f"{settings.key_prefix}:h"
        await r.hset(key, mapping={"a": "1", "b": "2"})
        replies = await asyncio.gather(b.call("HGET", key, "a"), b.call("HGET", key, "b"),
                                       b.call("HGET", key, "zz"), b.call("HGETALL", key),
                                       b.call("INCR", key), return_exceptions=True)
        assert replies[:4] == [b"1", b"2", None, {b"a": b"1", b"b": b"2"}]
        assert isinstance(replies[4], redis.exceptions.ResponseError)  # WRONGTYPE: that call's alone
        assert counting.sizes == [5]
        # calls made in later turns go in later pipelines
        assert await b.call("HGET", key, "a") == b"1"
        assert await b.call("HGET", key, "b") == b"2"
        assert counting.sizes == [5, 1, 1]
        await r.aclose()

    asyncio.run(run())


def test_a_failed_pipeline_fails_each_call_and_a_cancelled_caller_is_skipped(settings: Settings) -> None:
    class Broken:
        def pipeline(self, transaction: bool = False) -> Any:
            class Pipe:
                def execute_command(self, *args: Any) -> None:
                    pass

                async def execute(self, raise_on_error: bool = True) -> Any:
                    raise redis.exceptions.ConnectionError("gone")
            return Pipe()

    async def run() -> None:
        b = Batcher(Broken())
        first, second = b.call("GET", "x"), b.call("GET", "y")
        second.cancel()
        with pytest.raises(redis.exceptions.ConnectionError):
            await first
        assert second.cancelled()

    asyncio.run(run())


def test_a_script_the_server_does_not_know_is_loaded_and_called_again(settings: Settings) -> None:
    async def run() -> None:
        r = connect_async(settings.redis_url)
        script = r.register_script("return 'x' .. ARGV[1]")
        await r.script_flush()  # as after a Redis restart: no script is known
        b = Batcher(r)
        assert await asyncio.gather(*(b.script(script, [], [i]) for i in range(3))) == [b"x0", b"x1", b"x2"]
        assert await b.script(script, [], [7]) == b"x7"  # known now: in the pipeline itself
        await b.close()
        await r.aclose()

    asyncio.run(run())


def test_at_most_max_batch_calls_a_pipeline(settings: Settings, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(batch_module, "MAX_BATCH", 4)

    async def run() -> None:
        r = connect_async(settings.redis_url)
        counting = Counting(r)
        b = Batcher(counting)
        assert await asyncio.gather(*(b.call("PING") for _ in range(10))) == [True] * 10
        assert counting.sizes == [4, 4, 2]
        await r.aclose()

    asyncio.run(run())


def envelope(match_id: str, body: dict[str, Any], expected: int | None = None) -> CommandEnvelope:
    return CommandEnvelope(command_id="0.k", match_id=match_id, seat=0, type="add", body=body,
                           expected_version=expected)


def test_the_digest_ignores_key_order_and_sees_every_difference() -> None:
    same = command_digest(envelope("m", {"a": 1, "b": [1, 2]}))
    assert command_digest(envelope("m", {"b": [1, 2], "a": 1})) == same
    for other in (envelope("m", {"a": 1, "b": [2, 1]}), envelope("m", {"a": 1, "b": [1, 2]}, 3),
                  envelope("m", {"a": 1}), envelope("m", {"a": "1", "b": [1, 2]})):
        assert command_digest(other) != same, other


def test_the_publish_script_refuses_a_reused_key_and_publishes_nothing(settings: Settings) -> None:
    async def run() -> None:
        r = connect_async(settings.redis_url)
        store = GatewayStore(r, settings)
        k = settings.keys
        mid = uuid.uuid4().hex[:16]
        await r.hset(k.meta(mid), "version", 0)
        stream = k.commands(k.partition(mid))
        assert await store.publish(envelope(mid, {"a": 1, "b": 2})) is None
        assert await store.publish(envelope(mid, {"b": 2, "a": 1})) is None  # the same command, sent again
        assert await r.xlen(stream) == 2
        with pytest.raises(Refused) as refused:
            await store.publish(envelope(mid, {"a": 2, "b": 2}))
        assert (refused.value.status, refused.value.code) == (409, "idempotency_key_reused")
        assert await r.xlen(stream) == 2
        assert await r.hget(k.sent(mid), "0.k") == command_digest(envelope(mid, {"a": 1, "b": 2})).encode()
        await r.aclose()

    asyncio.run(run())

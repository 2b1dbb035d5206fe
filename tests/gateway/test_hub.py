"""The match hubs and their live readers against the test Redis, in process: an idle reader's blocking reads end
normally (no failure logged), a read that really fails is logged with growing pauses, a reader that comes back
resyncs its hubs, idle hubs are dropped, and stopping the hubs wakes everyone waiting."""

from __future__ import annotations

import asyncio
import contextlib
import time
import uuid
from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest
from structlog.testing import CapturingLogger

import services.gateway.hub as hub_module
from services.gateway.app import State, create_app, hub_block_ms
from services.gateway.hub import CLOSING, RESYNC, Hubs
from services.gateway.store import GatewayStore, connect_async
from services.pipeline.redis_backend import connect, delete_prefix
from services.settings import Settings

pytestmark = pytest.mark.redis
FAILED = "live read failed"


@pytest.fixture
def hub_log(monkeypatch: pytest.MonkeyPatch) -> CapturingLogger:
    """What the hubs log, whatever logging was configured before."""
    capture = CapturingLogger()
    monkeypatch.setattr(hub_module, "log", capture)
    return capture


def failures(capture: CapturingLogger) -> list[dict[str, Any]]:
    return [call.kwargs for call in capture.calls if call.args and call.args[0] == FAILED]


@pytest.fixture
def gateway_settings(redis_url: str) -> Iterator[Settings]:
    """The gateway's own defaults (a hub blocks 5 s), on a fresh prefix."""
    settings = Settings(redis_url=redis_url, key_prefix=f"airship-hub-{uuid.uuid4().hex[:8]}")
    yield settings
    delete_prefix(connect(redis_url), settings.key_prefix)


@contextlib.asynccontextmanager
async def running(settings: Settings) -> AsyncIterator[State]:
    """The gateway application as ``airship gateway`` builds it, between its start-up and its shutdown."""
    app = create_app(settings)
    async with app.router.lifespan_context(app):
        yield app.state.airship


def test_the_hub_reader_waits_longer_than_a_block(gateway_settings: Settings) -> None:
    async def run() -> None:
        async with running(gateway_settings) as st:
            timeout_s = st.store.reader.connection_pool.connection_kwargs.get("socket_timeout")
            assert st.hubs.block_ms == hub_block_ms(gateway_settings) == 5000
            assert timeout_s is not None and timeout_s * 1000 > st.hubs.block_ms + 1000

    asyncio.run(run())


@pytest.mark.slow
def test_an_idle_reader_logs_no_failure(gateway_settings: Settings, hub_log: CapturingLogger,
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """A watched match with no events for two block periods: each XREAD ends with nothing, none fails."""
    idle_reads: list[float] = []

    async def run() -> None:
        async with running(gateway_settings) as st:
            read = st.store.read_live

            async def counted(*args: Any) -> Any:
                reply = await read(*args)
                idle_reads.append(time.monotonic())
                return reply

            monkeypatch.setattr(st.store, "read_live", counted)
            hub = await st.hubs.get("idle-match")
            async with hub.listen():  # somebody watches
                deadline = time.monotonic() + 2 * st.hubs.block_ms / 1000 + 3
                while len(idle_reads) < 2 and time.monotonic() < deadline and not failures(hub_log):
                    await asyncio.sleep(0.1)
                assert hub.alive and not st.hubs.failing

    asyncio.run(run())
    assert failures(hub_log) == [], "an idle blocking read is no failure"
    assert len(idle_reads) >= 2, "the reader read through two block periods"


def test_a_failing_read_is_logged_with_growing_pauses(gateway_settings: Settings, hub_log: CapturingLogger) -> None:
    async def run() -> None:
        good = connect_async(gateway_settings.redis_url)
        gone = connect_async("redis://127.0.0.1:1/0", socket_timeout_s=1.0)  # nothing listens there
        hubs = Hubs(GatewayStore(good, gateway_settings, reader=gone), block_ms=100)
        try:
            hubs.start()
            hub = await hubs.get("m")
            future = hub.expect("0.k")
            await hubs.get("m")
            deadline = time.monotonic() + 10
            while len(failures(hub_log)) < 3 and time.monotonic() < deadline:
                await asyncio.sleep(0.05)
            assert hubs.failing and not future.done()
        finally:
            await hubs.close()
            await good.aclose()
            await gone.aclose()

    asyncio.run(run())
    logged = failures(hub_log)
    assert len(logged) >= 3 and all("Error" in f["error"] for f in logged)
    assert [f["retry_in_s"] for f in logged[:3]] == [0.25, 0.5, 1.0]


def test_a_reader_back_from_failing_resyncs_its_hubs(gateway_settings: Settings) -> None:
    """What was recorded while the reader could not read reaches its waiters, and every listener reads again."""
    async def run() -> None:
        async with running(gateway_settings) as st:
            hub = await st.hubs.get("m")
            future = hub.expect("0.k")
            listener = hub.add_listener()
            st.hubs.failing = True
            seen = st.store.keys.seen("m")  # recorded as a worker records it, but never announced
            from schemas.codec import pack_result
            from schemas.envelopes import CommandResult

            result = CommandResult(command_id="0.k", match_id="m", seat=0, status="accepted", version=3, events=1)
            await st.redis.hset(seen, "0.k", pack_result(result, with_id=False))
            await st.hubs._resync()
            assert (await asyncio.wait_for(future, 1)).version == 3
            assert await asyncio.wait_for(listener.queue.get(), 1) is RESYNC

    asyncio.run(run())


def test_idle_hubs_are_dropped_with_their_views(gateway_settings: Settings) -> None:
    async def run() -> None:
        async with running(gateway_settings) as st:
            watched, waited, idle = [await st.hubs.get(m) for m in ("w", "c", "i")]
            async with watched.listen():
                future = waited.expect("0.k")
                assert st.hubs.sweep(time.monotonic() + st.hubs.idle_s + 1) == 1, "only the unused hub goes"
                waited.forget("0.k", future)
            assert len(st.hubs) == 2
            assert st.hubs.sweep(time.monotonic() + st.hubs.idle_s + 1) == 2
            assert len(st.hubs) == 0 and idle is not await st.hubs.get("i")

    asyncio.run(run())


def test_stopping_wakes_waiters_and_listeners(gateway_settings: Settings) -> None:
    async def run() -> None:
        async with running(gateway_settings) as st:
            hub = await st.hubs.get("m")
            future = hub.expect("0.k")
            listener = hub.add_listener()
            st.hubs.stop()
            assert future.done() and future.result() is None, "a command's waiter: no result"
            assert await asyncio.wait_for(listener.queue.get(), 1) is CLOSING
            await asyncio.sleep(0)
            assert not hub.alive and all(t.done() or t.cancelled() for t in st.hubs._readers)
            later = await st.hubs.get("m2")  # asked for while stopping: nothing waits on it
            assert not later.alive and (await later.expect("0.k")) is None
            assert later.add_listener().queue.get_nowait() is CLOSING

    asyncio.run(run())

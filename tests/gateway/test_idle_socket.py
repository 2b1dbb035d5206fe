"""What an idle subscribed WebSocket holds in the gateway, checked by structure (not by measuring memory, which
would be flaky): no writer task, no outbox, no idle timer, no task or queue of its subscription; the read loop
is its one task. And the sockets watching one view share one feed, which encodes each view once: every
watcher is handed the same text. The /ws endpoint is driven in process with ASGI messages against the test
Redis (docs/performance.md, "Live delivery at scale")."""

from __future__ import annotations

import asyncio
import json
import uuid
from collections.abc import Iterator
from typing import Any

import pytest

from schemas.codec import pack_view
from schemas.envelopes import ViewRecord
from services.bench.fanout import make_matches
from services.gateway.app import create_app
from services.gateway.hub import Update
from services.gateway.ws import Session, websocket
from services.pipeline.redis_backend import connect, delete_prefix
from services.settings import Settings

pytestmark = pytest.mark.redis


@pytest.fixture
def settings(redis_url: str) -> Iterator[Settings]:
    settings = Settings(redis_url=redis_url, key_prefix=f"airship-idle-{uuid.uuid4().hex[:8]}", partitions=2)
    yield settings
    delete_prefix(connect(redis_url), settings.key_prefix)


class Client:
    """One WebSocket as ASGI messages: what the endpoint receives, and what it sent."""

    def __init__(self, app: Any, port: int) -> None:
        self.inbox: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self.sent: list[dict[str, Any]] = []
        scope = {"type": "websocket", "path": "/ws", "headers": [], "client": ("127.0.0.1", port), "app": app}
        self.inbox.put_nowait({"type": "websocket.connect"})
        self.task = asyncio.create_task(websocket(scope, self.inbox.get, self._send))

    async def _send(self, message: dict[str, Any]) -> None:
        self.sent.append(message)

    def say(self, message: dict[str, Any]) -> None:
        self.inbox.put_nowait({"type": "websocket.receive", "text": json.dumps(message)})

    def kinds(self) -> list[str]:
        return [json.loads(m["text"])["kind"] for m in self.sent if m["type"] == "websocket.send"]

    async def until(self, check: Any, timeout_s: float = 5.0) -> None:
        async with asyncio.timeout(timeout_s):
            while not check():
                await asyncio.sleep(0.01)

    async def close(self) -> None:
        self.inbox.put_nowait({"type": "websocket.disconnect", "code": 1000})
        await asyncio.wait_for(self.task, 5)


def test_an_idle_subscribed_socket_holds_no_task_queue_or_timer_and_watchers_share_each_encoded_view(
        settings: Settings) -> None:
    async def run() -> None:
        (match_id, _), = await make_matches(settings, 1)
        app = create_app(settings)
        async with app.router.lifespan_context(app):
            st = app.state.airship
            clients = [Client(app, 40000 + i) for i in range(2)]
            for client in clients:
                client.say({"kind": "subscribe", "match_id": match_id, "cid": "s"})
            for client in clients:
                await client.until(lambda c=client: c.kinds() == ["subscribed"])
            hub = await st.hubs.get(match_id)
            feed = hub.feeds["public"]
            await clients[0].until(lambda: feed.task is None)
            sessions: list[Session] = list(st.sessions)
            assert len(sessions) == 2 and feed in hub.listeners and len(hub.listeners) == 1
            await clients[0].until(lambda: all(s.writer is None for s in sessions))  # after its linger (LINGER_S)
            for session in sessions:  # idle: nothing but the read loop
                assert session.writer is None and session.backlog is None and session.tasks is None
                assert session.idle_timer is None  # subscribed: no idle clock
                watch = session.subs[match_id]
                assert watch.feed is feed and watch.task is None and watch.own is None and watch.held is None
            tasks = {task for task in asyncio.all_tasks() if task.get_coro().__qualname__ == "websocket"}  # type: ignore[union-attr]
            assert tasks == {client.task for client in clients}

            # a new view: read once, encoded once, the same text to both
            record = ViewRecord(match_id=match_id, key="public", version=7, view={"n": 7})
            await st.store.r.hset(st.store.keys.view(match_id, "public"), "d", pack_view(record))
            hub.on_update(Update("public", 7))
            for client in clients:
                await client.until(lambda c=client: c.kinds() == ["subscribed", "view"])
            texts = [client.sent[-1]["text"] for client in clients]
            assert texts[0] is texts[1] and json.loads(texts[0])["version"] == 7
            await clients[0].until(lambda: all(s.writer is None and s.backlog is None for s in sessions))

            for client in clients:
                await client.close()
            assert not st.sessions and "public" not in hub.feeds and not hub.listeners

    asyncio.run(run())

"""The gateway through a Redis crash, with the shipped files (infra/redis/redis.conf + users.acl, AOF on): a
worker, a projector and a gateway as real processes, each logged in as its own user; a client keeps sending
commands over HTTP and a spectator watches over a WebSocket while Redis is killed with SIGKILL and started
again from the same directory. Within 5 s of Redis answering again the gateway is ready, accepts commands and
delivers views; while Redis is down ``/readyz`` says so; every command acknowledged before, during or after is
in the log with the version it was acknowledged at."""

from __future__ import annotations

import asyncio
import json
import time

import httpx
import pytest
import websockets

from services.gateway.launch import wait_ready
from services.settings import Settings
from tests.gateway.stack import spawn_gateway
from tests.ops.conftest import free_port
from tests.ops.test_redis_durability import KP, RedisServer, server  # noqa: F401  (the fixture)
from tests.pipeline.redis_fixtures import spawn, stop

pytestmark = [pytest.mark.redis, pytest.mark.gateway]
RECOVER_S = 5.0


def test_the_gateway_serves_again_within_5_s_of_a_redis_kill(server: RedisServer) -> None:  # noqa: F811
    def settings(user: str) -> Settings:
        return Settings(redis_url=server.url(user), key_prefix=KP.prefix, partitions=KP.partitions, block_ms=50,
                        claim_every_s=0.2)

    off = {"AIRSHIP_HEALTH_PORT": "0", "AIRSHIP_METRICS_PORT": "0"}
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    procs = [spawn(settings("worker"), "worker", **off), spawn(settings("projector"), "projector", **off),
             spawn_gateway(settings("gateway"), port, AIRSHIP_GATEWAY_TOKEN_RPS="1000",
                           AIRSHIP_GATEWAY_ADDR_RPS="1000")]
    try:
        wait_ready(url, procs[-1])
        acked, marks = asyncio.run(_play_through_a_kill(server, url))
        assert all(p.poll() is None for p in procs), "a process stopped when Redis restarted"
    finally:
        for proc in procs:
            stop(proc)
    print({k: round(v - marks["up"], 2) for k, v in marks.items() if k in ("ready", "accepted", "viewed")})
    assert marks["ready"] - marks["up"] <= RECOVER_S, f"ready {marks['ready'] - marks['up']:.1f} s after Redis"
    assert marks["accepted"] - marks["up"] <= RECOVER_S, f"a command {marks['accepted'] - marks['up']:.1f} s after"
    assert marks["viewed"] - marks["up"] <= RECOVER_S, f"a view {marks['viewed'] - marks['up']:.1f} s after"
    assert marks["unready_seen"], "/readyz said ready while Redis was down"
    assert len(acked) >= 20


async def _play_through_a_kill(redis_server: RedisServer, url: str) -> tuple[dict[str, int], dict[str, float]]:
    marks: dict[str, float] = {"unready_seen": 0.0}
    acked: dict[str, int] = {}  # idempotency key -> version it was accepted at
    async with httpx.AsyncClient(base_url=url, timeout=15) as http:
        match_id = (await http.post("/matches", json={"game": "tally", "seats": 1})).json()["match_id"]
        token = (await http.post(f"/matches/{match_id}/seats", json={"seat": 0})).json()["token"]
        auth = {"Authorization": f"Bearer {token}"}
        views: list[tuple[float, int]] = []
        ws = await websockets.connect(url.replace("http", "ws") + "/ws", ping_interval=None)
        await ws.send(json.dumps({"kind": "subscribe", "match_id": match_id}))

        async def watch() -> None:
            async for raw in ws:
                msg = json.loads(raw)
                if msg["kind"] == "view":
                    views.append((time.monotonic(), msg["version"]))

        async def send(key: str) -> bool:
            try:
                answer = await http.post(f"/matches/{match_id}/commands?wait_s=3", headers=auth,
                                         json={"idempotency_key": key, "type": "add", "body": {"n": 1}})
            except httpx.HTTPError:
                return False
            if answer.status_code == 200 and answer.json()["status"] == "accepted":
                acked[key] = answer.json()["version"]
                return True
            return False

        watcher = asyncio.create_task(watch())
        n = 0
        for _ in range(15):  # before
            n += 1
            assert await send(f"k{n}")
        redis_server.kill()
        killed = time.monotonic()
        while time.monotonic() - killed < 1.0:  # down: commands fail (and are sent again later), not ready
            if (await http.get("/readyz")).status_code == 503:
                marks["unready_seen"] = 1.0
            await asyncio.sleep(0.1)
        await asyncio.to_thread(redis_server.start)
        marks["up"] = time.monotonic()
        pending = [f"k{i}" for i in range(1, n + 1) if f"k{i}" not in acked]
        first: int | None = None  # the version of the first command accepted after Redis came back
        # (a view of the *latest* acknowledged version is a race with the next command, which the loop sends first)
        while "ready" not in marks or "accepted" not in marks or "viewed" not in marks:
            now = time.monotonic()
            assert now - marks["up"] < 30, f"not serving 30 s after Redis came back: {marks}"
            if "ready" not in marks and (await http.get("/readyz")).status_code == 200:
                marks["ready"] = time.monotonic()
            if first is not None and "viewed" not in marks and any(v >= first for _, v in views):
                marks["viewed"] = time.monotonic()  # a view of the first command accepted after the restart
            key = pending.pop(0) if pending else f"k{(n := n + 1)}"
            if await send(key):
                marks.setdefault("accepted", time.monotonic())
                first = acked[key] if first is None else first
            else:
                pending.append(key)
            await asyncio.sleep(0.05)
        for _ in range(10):  # after
            n += 1
            assert await send(f"k{n}")
        watcher.cancel()
        await ws.close()
        log = (await http.get(f"/matches/{match_id}/log", headers=auth)).json()["events"]
        for key, version in acked.items():  # acknowledged: still there, at the version it was acknowledged at
            answer = (await http.get(f"/matches/{match_id}/commands/{key}", headers=auth)).json()
            assert answer["status"] == "accepted" and answer["version"] == version, (key, answer)
        assert [e["version"] for e in log] == list(range(1, len(log) + 1)), "versions without gap"
        assert len(log) >= len(acked)
    return acked, marks


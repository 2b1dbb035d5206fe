"""Fair share and nothing stored for ever (issue #35), against real processes (worker, projector, gateway,
archiver) on a real Redis, with small quotas so the bounds show in seconds:

- an address past its match-creation quota is refused (429 ``quota_exceeded``, Retry-After) while another
  address, and a registered player from the same address, still create;
- a flood of rejected commands leaves a match's ``seen`` (and ``sent``, no larger) at most version + the kept
  rejections, while an accepted command resent still gets its first result; a command to a finished match is
  stored nowhere;
- a running match nobody moves in is ended by the archiver (rule ``expired``) and archived, its log carrying the
  reason;
- one address driven at its limits for a while leaves Redis memory bounded.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import redis

from services.pipeline.redis_backend import connect, delete_prefix
from tests.gateway.attack_kit import auth, from_address, wait_until
from tests.gateway.stack import GatewayStack, free_port, spawn_gateway, stack_settings, wait_ready
from tests.pipeline.redis_fixtures import GAME_MODULES, ROOT, spawn, stop

pytestmark = pytest.mark.redis

CREATES = 5  # matches an address may create at once without an API key (then one a minute)
KEPT = 20  # rejections kept per match beyond its version
QUOTAS = {"AIRSHIP_GATEWAY_ADDR_CREATES": str(CREATES), "AIRSHIP_GATEWAY_ADDR_CREATES_PER_H": "60",
          "AIRSHIP_GATEWAY_PLAYER_CREATES": str(CREATES), "AIRSHIP_GATEWAY_PLAYER_CREATES_PER_H": "60"}



@pytest.fixture(scope="module")
def archive_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("archive")


@pytest.fixture(scope="module")
def stack(redis_url: str, archive_dir: Path) -> Iterator[GatewayStack]:
    settings = stack_settings(redis_url, "fair", archive_dir=str(archive_dir))
    port = free_port()
    stack = GatewayStack(settings, f"http://127.0.0.1:{port}")
    env = {"AIRSHIP_REJECTED_KEPT": str(KEPT), "AIRSHIP_LIVE_MAXLEN": "100", "AIRSHIP_ARCHIVE_DIR": str(archive_dir)}
    stack.procs = [spawn(settings, "worker", **env), spawn(settings, "projector", **env),
                   spawn_gateway(settings, port, **env, **QUOTAS, AIRSHIP_GATEWAY_ADDR_RPS="100")]
    try:
        wait_ready(stack.url, stack.procs[-1])
        yield stack
    finally:
        for proc in stack.procs:
            stop(proc)
        delete_prefix(connect(settings.redis_url), settings.key_prefix)


@pytest.fixture(scope="module")
def r(stack: GatewayStack) -> Iterator[redis.Redis]:
    conn = connect(stack.settings.redis_url)
    yield conn
    conn.close()


def create(c: httpx.Client, seats: int = 2, **headers: str) -> httpx.Response:
    return c.post("/matches", json={"game": "nim", "seats": seats}, headers=headers)


def running(c: httpx.Client) -> tuple[str, list[str]]:
    answer = create(c)
    assert answer.status_code == 201, answer.text
    match_id = answer.json()["match_id"]
    tokens = [c.post(f"/matches/{match_id}/seats", json={"seat": s}).json()["token"] for s in range(2)]
    wait_until(lambda: all(c.get(f"/matches/{match_id}/views/me", headers=auth(t)).status_code == 200
                           for t in tokens))
    return match_id, tokens


def command(c: httpx.Client, match_id: str, token: str, key: str, n: int = 1, wait_s: float = 10.0) -> httpx.Response:
    """Send a command as a polite client does: a 429 is waited out (Retry-After) and the same key sent again."""
    while True:
        answer = c.post(f"/matches/{match_id}/commands", params={"wait_s": wait_s}, headers=auth(token),
                        json={"idempotency_key": key, "type": "take", "body": {"n": n}})
        if answer.status_code != 429 or answer.json().get("code") != "rate_limited":
            return answer
        time.sleep(float(answer.headers.get("Retry-After", "1")))


def to_act(c: httpx.Client, match_id: str) -> int:
    return int(c.get(f"/matches/{match_id}/views/public").json()["to_act"][0])


def test_an_address_past_its_creation_quota_is_refused_while_others_still_create(stack: GatewayStack) -> None:
    with from_address(stack.url, "127.0.0.2") as a, from_address(stack.url, "127.0.0.3") as b:
        answers = [create(a) for _ in range(CREATES + 3)]
        assert [x.status_code for x in answers[:CREATES]] == [201] * CREATES
        refused = answers[CREATES:]
        assert all(x.status_code == 429 for x in refused), [x.text for x in refused]
        problem = refused[0].json()
        assert problem["code"] == "quota_exceeded" and "quota of matches" in problem["detail"], problem
        assert refused[0].headers["content-type"].startswith("application/problem+json")
        assert 1 <= int(refused[0].headers["Retry-After"]) <= 60
        # another address still creates, and so does a registered player from the first one (its own quota)
        assert create(b).status_code == 201
        registered = a.post("/players", json={"name": f"fair{uuid.uuid4().hex[:8]}"})
        assert registered.status_code == 201, registered.text
        key = registered.json()["api_key"]
        assert create(a, **{"X-Airship-Key": key}).status_code == 201
        assert create(a).status_code == 429  # the anonymous quota of the address is still spent


def test_sent_and_seen_stay_bounded_under_a_flood_of_rejected_commands(stack: GatewayStack, r: redis.Redis) -> None:
    k = stack.settings.keys
    with from_address(stack.url, "127.0.0.4") as c:
        match_id, tokens = running(c)
        mover = to_act(c, match_id)
        good = command(c, match_id, tokens[mover], "good")
        assert good.json()["status"] == "accepted", good.text
        moved = good.json()["version"]  # the view after that move (the projector writes it a moment later)
        wait_until(lambda: c.get(f"/matches/{match_id}/views/public").json()["version"] >= moved)
        idle = to_act(c, match_id)
        waiting = 1 - idle  # the seat not to act: every take it sends is rejected
        flood = 120
        for i in range(flood):
            answer = command(c, match_id, tokens[waiting], f"no-{i}")
            assert answer.status_code == 200 and answer.json()["status"] == "rejected", answer.text
        version = int(r.hget(k.meta(match_id), "version") or 0)
        seen, sent = r.hlen(k.seen(match_id)), r.hlen(k.sent(match_id))
        print(f"\nafter {flood} rejected commands: seen {seen} entries (version {version}, kept {KEPT}), "
              f"sent {sent}, MEMORY USAGE seen {r.memory_usage(k.seen(match_id))} B")
        assert sent <= seen  # a command's digest stays only as long as its result (lua/append.lua)
        assert seen <= version + KEPT
        # at-most-once holds: the accepted command resent gets its first result and changes nothing
        again = command(c, match_id, tokens[mover], "good").json()
        assert again["status"] == "accepted" and again["version"] == good.json()["version"]
        assert int(r.hget(k.meta(match_id), "version") or 0) == version
        # the first rejections are kept; a late one is not, and resent it is decided again (rejected again: it
        # changed nothing); asked for, it is unknown
        assert c.get(f"/matches/{match_id}/commands/no-0", headers=auth(tokens[waiting])).json()["status"] \
            == "rejected"
        assert c.get(f"/matches/{match_id}/commands/no-{flood - 1}",
                     headers=auth(tokens[waiting])).status_code == 404
        assert command(c, match_id, tokens[waiting], f"no-{flood - 1}").json()["status"] == "rejected"
        assert r.hlen(k.sent(match_id)) <= r.hlen(k.seen(match_id)) <= version + KEPT

        # a finished match: commands to it are answered by the gateway and stored nowhere
        for token in tokens:  # (this address just flooded: a vote may wait for its share, 429 Retry-After)
            deadline = time.monotonic() + 20
            while (vote := c.post(f"/matches/{match_id}/abandon", headers=auth(token))).status_code == 429:
                assert time.monotonic() < deadline, vote.text
                time.sleep(float(vote.headers.get("Retry-After", "0.5")))
            assert vote.status_code < 300, vote.text
        wait_until(lambda: c.get(f"/matches/{match_id}").json()["status"] == "finished")
        time.sleep(1.1)  # the gateway's cached meta says finished
        stream = k.commands(k.partition(match_id))
        before = (r.hlen(k.seen(match_id)), r.exists(k.sent(match_id)), r.xinfo_stream(stream)["last-generated-id"])
        late = [command(c, match_id, tokens[0], f"late-{i}").json() for i in range(20)]
        assert all(x["status"] == "rejected" and x["code"] == "game_over" for x in late), late[0]
        after = (r.hlen(k.seen(match_id)), r.exists(k.sent(match_id)), r.xinfo_stream(stream)["last-generated-id"])
        assert after == before
        assert command(c, match_id, tokens[mover], "good").json()["status"] == "accepted"  # its first result


@contextlib.contextmanager
def archiver(stack: GatewayStack, archive_dir: Path, idle_s: float) -> Iterator[subprocess.Popen[bytes]]:
    s = stack.settings
    env = {**os.environ, "AIRSHIP_GAME_MODULES": GAME_MODULES, "AIRSHIP_IDLE_MATCH_S": str(idle_s),
           "AIRSHIP_ARCHIVE_EVERY_S": "0.3", "AIRSHIP_ARCHIVE_GRACE_S": "0", "AIRSHIP_HEALTH_PORT": "0",
           "AIRSHIP_METRICS_PORT": "0"}
    cmd = [sys.executable, "-m", "services.cli", "--log-level", "error", "archiver", "--redis", s.redis_url,
           "--prefix", s.key_prefix, "--partitions", str(s.partitions), "--dir", str(archive_dir)]
    proc = subprocess.Popen(cmd, env=env, cwd=ROOT)
    try:
        yield proc
    finally:
        stop(proc)


def test_an_idle_running_match_is_ended_and_archived_with_its_reason(stack: GatewayStack, r: redis.Redis,
                                                                    archive_dir: Path) -> None:
    k = stack.settings.keys
    with from_address(stack.url, "127.0.0.5") as c:
        idle, tokens = running(c)
        version = c.get(f"/matches/{idle}").json()["version"]
        with archiver(stack, archive_dir, idle_s=1.5):
            ended = c.get(f"/matches/{idle}/views/me", headers=auth(tokens[0]),
                          params={"after_version": version, "wait_s": 20}).json()
            assert ended["finished"] and ended["abandoned"] and ended["to_act"] == [] and ended["legal"] == []
            assert ended["outcome"]["detail"] == {"abandoned": True, "rule": "expired"}
            wait_until(lambda: not r.exists(k.meta(idle)), timeout_s=20)  # archived: out of Redis
        summary = c.get(f"/matches/{idle}").json()  # from the archive now
        assert summary["status"] == "finished" and summary["abandoned"]
        events = c.get(f"/matches/{idle}/log").json()["events"]
        assert events[-1]["type"] == "MatchAbandoned" and events[-1]["body"] == {"votes": [], "rule": "expired"}
        assert (archive_dir / str(k.partition(idle)) / f"{idle}.jsonl.gz").exists()
        # once archived, no token of it authenticates (401) and nothing about it is in Redis any more
        assert command(c, idle, tokens[0], "after").status_code == 401
        assert not [key for key in r.scan_iter(match=f"{k.tag(k.partition(idle))}:match:{idle}:*")]


def prefix_memory(r: redis.Redis, prefix: str) -> tuple[int, int, int]:
    """(keys, the sum of their MEMORY USAGE, that of the matches' ``seen`` and ``sent`` hashes) under ``prefix``."""
    keys = list(r.scan_iter(match=f"{prefix}:*", count=1000))
    pipe = r.pipeline(transaction=False)
    for key in keys:
        pipe.memory_usage(key, samples=0)
    used = [int(x or 0) for x in pipe.execute()]
    records = sum(u for key, u in zip(keys, used, strict=True) if key.endswith((b":seen", b":sent")))
    return len(keys), sum(used), records


async def _drive(url: str, address: str, seconds: float, samples: list[tuple[float, int, int, int]],
                 r: redis.Redis, prefix: str) -> dict[str, int]:
    """One address at its limits for ``seconds``: creating matches all the time (joining every seat of those it
    gets) and flooding its matches with rejected commands; Redis's memory under the prefix sampled each second."""
    counts: dict[str, int] = {}
    matches: list[tuple[str, str]] = []  # (match, token of the seat not to act)
    transport = httpx.AsyncHTTPTransport(local_address=address)
    async with httpx.AsyncClient(base_url=url, timeout=30.0, trust_env=False, transport=transport) as c:
        end = time.monotonic() + seconds

        def count(what: str) -> None:
            counts[what] = counts.get(what, 0) + 1

        async def creator() -> None:
            while time.monotonic() < end:
                answer = await c.post("/matches", json={"game": "nim", "seats": 2})
                count(f"create {answer.status_code}")
                if answer.status_code == 201:
                    match_id = answer.json()["match_id"]
                    tokens = [(await c.post(f"/matches/{match_id}/seats", json={"seat": s})).json()["token"]
                              for s in range(2)]
                    matches.append((match_id, tokens[1]))  # nim: seat 0 acts first
                else:
                    await asyncio.sleep(0.05)

        async def flooder(i: int) -> None:
            n = 0
            while time.monotonic() < end:
                if not matches:
                    await asyncio.sleep(0.05)
                    continue
                match_id, token = matches[(i + n) % len(matches)]
                n += 1
                answer = await c.post(f"/matches/{match_id}/commands", params={"wait_s": 5}, headers=auth(token),
                                      json={"idempotency_key": f"f{i}-{n}", "type": "take", "body": {"n": 1}})
                count(f"command {answer.status_code}")
                if answer.status_code == 429:
                    await asyncio.sleep(0.02)

        async def sampler() -> None:
            started = time.monotonic()
            while time.monotonic() < end:
                samples.append((time.monotonic() - started, *await asyncio.to_thread(prefix_memory, r, prefix)))
                await asyncio.sleep(1.0)

        await asyncio.gather(creator(), sampler(), *(flooder(i) for i in range(8)))
    return counts


def test_one_address_at_its_limits_keeps_redis_memory_bounded(stack: GatewayStack, r: redis.Redis) -> None:
    samples: list[tuple[float, int, int, int]] = []
    counts = asyncio.run(_drive(stack.url, "127.0.0.6", 16.0, samples, r, stack.settings.key_prefix))
    info: dict[str, Any] = r.info("memory")
    print(f"\nrequests: {counts}")
    print("t (s): keys, MEMORY USAGE sum, of it seen+sent (B): "
          + "; ".join(f"{t:.0f}: {n}, {m}, {h}" for t, n, m, h in samples))
    print(f"redis used_memory {info['used_memory']} (the whole server, shared with other tests)")
    assert counts.get("create 429", 0) > 0 and counts.get("create 201", 0) <= CREATES + 1
    assert counts.get("command 200", 0) > 300, counts  # the flood went on, at the address's limits
    late = [(m, h) for t, _, m, h in samples if t >= 6.0]
    assert len(late) >= 5, samples
    # once the quota is spent and the per-match records and streams are at their caps, nothing grows: the
    # matches' seen/sent hashes stay as they are (each rejection kept would add 50-600 B), and everything under
    # the prefix (streams trimmed to their lengths: live to ~100 entries here) stays within 100 KB of its level
    records = [h for _, h in late]
    assert max(records) - min(records) < 2_000, samples
    assert max(records) < 6 * (CREATES + 1) * (8 + KEPT) * 100, samples  # ~100 B an entry at most (nim's are ~55)
    totals = [m for m, _ in late]
    assert max(totals) - totals[0] < 100_000 and max(totals) < 1_000_000, samples

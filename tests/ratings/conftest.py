"""Fixtures of the ratings tests: the test Redis (its own prefix), the gateway in process, players."""

from __future__ import annotations

import contextlib
import os
import random
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
import redis
from fastapi.testclient import TestClient

import tests.pipeline.nim  # noqa: F401  (registers nim)
from services.gateway.app import create_app
from services.pipeline.redis_backend import connect
from services.pipeline.redis_local import LocalServices
from services.ratings.players import API_KEY_HEADER
from services.settings import Settings
from tests.gateway.stack import GatewayStack, running_stack, stack_settings
from tests.pipeline.redis_fixtures import GAME_MODULES, ROOT, procs, redis_settings, redis_url, stop

__all__ = ["procs", "redis_settings", "redis_url"]


@pytest.fixture
def settings(redis_settings: Settings) -> Settings:
    return redis_settings.with_(claim_idle_ms=300, claim_every_s=0.2)


@pytest.fixture
def r(settings: Settings) -> Iterator[redis.Redis]:
    conn = connect(settings.redis_url)
    yield conn
    conn.close()


@pytest.fixture
def gateway(settings: Settings) -> Iterator[TestClient]:
    """The gateway's app in this process (its own Redis clients, on the test prefix), with a worker thread to decide
    the matches' creations and joins (``match.create``, ``match.join``) and, where a test plays, its commands."""
    worker = LocalServices(settings, workers=1, projectors=0).start()
    try:
        with TestClient(create_app(settings)) as client:
            yield client
    finally:
        worker.stop(keep_s=3600)


def spawn_ratings(settings: Settings, **env: str) -> subprocess.Popen[bytes]:
    """``airship ratings projector`` as a real process on the test's prefix (sweeping every second); ``env``:
    more environment (e.g. its health and metrics ports)."""
    cmd = [sys.executable, "-m", "services.cli", "--log-level", "error", "ratings", "projector", "--redis",
           settings.redis_url, "--prefix", settings.key_prefix, "--partitions", str(settings.partitions),
           "--sweep-every-s", "1"]
    return subprocess.Popen(cmd, env={**proc_env(settings), **env}, cwd=ROOT)


@contextlib.contextmanager
def stack_with_ratings(redis_url: str, name: str) -> Iterator[GatewayStack]:
    """A gateway stack (``tests.gateway.stack``) on its own prefix with the ratings projector beside it."""
    settings = stack_settings(redis_url, name)
    with running_stack(settings) as stack:
        ratings = spawn_ratings(settings)
        try:
            yield stack
        finally:
            stop(ratings)


def proc_env(settings: Settings) -> dict[str, str]:
    return {**{k: v for k, v in os.environ.items() if k != "AIRSHIP_FAULT"}, "AIRSHIP_GAME_MODULES": GAME_MODULES,
            "AIRSHIP_BLOCK_MS": str(settings.block_ms), "AIRSHIP_CLAIM_IDLE_MS": str(settings.claim_idle_ms),
            "AIRSHIP_CLAIM_EVERY_S": str(settings.claim_every_s)}


def register(http: TestClient | httpx.Client, name: str) -> str:
    answer = http.post("/players", json={"name": name})
    assert answer.status_code == 201, answer.text
    return str(answer.json()["api_key"])


def rated_match(http: TestClient, game: str, players: list[str], key: str) -> str:
    answer = http.post(f"/ladder/{game}/matches", json={"players": players}, headers={API_KEY_HEADER: key})
    assert answer.status_code == 201, answer.text
    return str(answer.json()["match_id"])


def join(http: TestClient, match_id: str, seat: int | None = None, key: str | None = None) -> httpx.Response:
    headers = {API_KEY_HEADER: key} if key else {}
    answer: httpx.Response = http.post(f"/matches/{match_id}/seats", json={} if seat is None else {"seat": seat},
                                       headers=headers)
    return answer


def play_nim(http: TestClient, match_id: str, tokens: dict[int, str], strong: set[int], rng: random.Random) -> None:
    """Play a nim match to its end: ``strong`` seats take the pile down to a multiple of 4 when they can, the
    others take at random."""
    version = 0
    for _ in range(200):
        answer = http.get(f"/matches/{match_id}/views/public", params={"after_version": version, "wait_s": 10})
        if answer.status_code == 204:
            continue
        view: dict[str, Any] = answer.json()
        version = view["version"]
        if view["finished"]:
            return
        seat = view["to_act"][0]
        pile = view["view"]["pile"]
        n = pile % 4 if seat in strong and pile % 4 else rng.randint(1, min(3, pile))
        sent = http.post(f"/matches/{match_id}/commands", params={"wait_s": 10},
                         json={"type": "take", "body": {"n": n}, "idempotency_key": f"v{version}",
                               "expected_version": version},
                         headers={"Authorization": f"Bearer {tokens[seat]}"})
        assert sent.status_code in (200, 202), sent.text
    raise AssertionError(f"match {match_id} did not finish")

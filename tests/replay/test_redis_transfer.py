"""`airship export` / `import` / `replay --verify` against real Redis: a match moves to a file and back
under a new id without loss, and both copies replay and verify identically."""

from __future__ import annotations

from pathlib import Path

import pytest

from services.bots.base import RandomBot
from services.bots.runner import play_match
from services.cli import main
from services.pipeline.direct import DirectClient
from services.pipeline.redis_backend import RedisBackend
from services.pipeline.redis_local import LocalServices
from services.settings import Settings
from tests.pipeline.redis_fixtures import redis_backend, redis_settings, redis_url

__all__ = ["redis_backend", "redis_settings", "redis_url"]
pytestmark = pytest.mark.redis


def test_export_import_and_verify_through_redis(redis_settings: Settings, redis_backend: RedisBackend,
                                                tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("AIRSHIP_KEY_PREFIX", redis_settings.key_prefix)
    monkeypatch.setenv("AIRSHIP_PARTITIONS", str(redis_settings.partitions))
    services = LocalServices(redis_settings)
    services.start()
    try:
        report = play_match(DirectClient(redis_backend, poll_ms=20), "moderne-zeiten", 3,
                            [RandomBot(s) for s in range(3)], seed=21, timeout_s=20)
    finally:
        services.stop()
    match_id, url = report.meta.match_id, redis_settings.redis_url
    exported = tmp_path / "match.jsonl"
    assert main(["export", "--redis", url, "--match", match_id, "--out", str(exported)]) == 0
    assert main(["import", "--redis", url, "--in", str(exported), "--as", "copy-1"]) == 0
    original = [e.model_dump(exclude={"match_id"}) for e in redis_backend.store.read_log(match_id)]
    copied = [e.model_dump(exclude={"match_id"}) for e in redis_backend.store.read_log("copy-1")]
    assert copied == original and len(original) == report.version
    assert main(["replay", "--redis", url, "--match", "copy-1", "--verify"]) == 0
    assert main(["replay", str(exported), "--verify"]) == 0
    assert main(["replay", "--redis", url, "--match", "copy-1", "--at", "5", "--seat", "1"]) == 0
    assert "version 5" in capsys.readouterr().out.lower()

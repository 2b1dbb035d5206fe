"""Shared fixtures. Redis tests use their own key prefix per run and clean up after themselves."""

from __future__ import annotations

import os

import pytest

import tests.bots.nim_plugin  # (registers the test game's bot plug-in)
import tests.pipeline.nim  # noqa: F401  (registers the test game)
from services import redis_binary
from services.games import register
from tests.games.liars_dice.game import REGISTRATION as LIARS_DICE

register(LIARS_DICE)  # the test game built the way a game is added: the shared suites run over it (tests/registered.py)


# The redis-server every test starts (durability, ACL, chaos, cluster, `airship stack`) is the line the image
# ships, 7.4 (docs/operations.md, "Versions"): infra/dev/install-redis.sh's install goes first on PATH.
_redis_bin = redis_binary.home() / "bin"
if (_redis_bin / "redis-server").exists() and str(_redis_bin) not in os.environ.get("PATH", "").split(os.pathsep):
    os.environ["PATH"] = f"{_redis_bin}{os.pathsep}{os.environ.get('PATH', '')}"


def pytest_configure(config: pytest.Config) -> None:
    exe = redis_binary.find()
    if exe is not None and redis_binary.version_of(exe) < redis_binary.MIN_VERSION:
        raise pytest.UsageError(f"the tests start Redis >= 7.4, what the image ships; {exe} is "
                                f"{'.'.join(map(str, redis_binary.version_of(exe)))}: {redis_binary.INSTALL_HINT}")

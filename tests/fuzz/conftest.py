"""Fuzz tests: Redis fixtures, and the count of inputs tried, reported at the end of the session.

``AIRSHIP_FUZZ_EXAMPLES`` sets hypothesis' ``max_examples`` per test (default: a CI-sized run); e.g.
``AIRSHIP_FUZZ_EXAMPLES=5000 pytest tests/fuzz`` for a long run."""

from __future__ import annotations

import pytest

from tests.fuzz.counts import COUNTS
from tests.pipeline.redis_fixtures import redis_backend, redis_settings, redis_url

__all__ = ["redis_backend", "redis_settings", "redis_url"]


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    if COUNTS:
        total = sum(COUNTS.values())
        detail = ", ".join(f"{k}: {v}" for k, v in sorted(COUNTS.items()))
        terminalreporter.write_line(f"fuzz: {total} inputs through the worker against Redis ({detail})")

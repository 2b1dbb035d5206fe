"""The backend contract against the in-process backend."""

from __future__ import annotations

import pytest

from services.pipeline.memory import MemoryBackend
from tests.pipeline.contract import BackendContract


class TestMemoryBackend(BackendContract):
    @pytest.fixture
    def backend(self) -> MemoryBackend:
        return MemoryBackend(partitions=4)

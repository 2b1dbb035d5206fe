"""The backend contract against the in-process backend."""

from __future__ import annotations

import pytest

from services.pipeline.memory import MemoryBackend
from tests.pipeline.contract import BackendContract
from tests.pipeline.lobby_contract import LobbyContract


class TestMemoryBackend(BackendContract, LobbyContract):
    @pytest.fixture
    def backend(self) -> MemoryBackend:
        return MemoryBackend(partitions=4)

    def add_raw(self, backend: MemoryBackend, stream: str, match_id: str, data: bytes | None) -> None:
        problem = None if data is not None else "no 'e' field"
        if stream == "commands":
            if data is None:
                backend.bus.publish_malformed(match_id)
            else:
                backend.bus.publish(match_id, data)
        else:
            backend.store.add_to_feed(match_id, data or b"", problem)

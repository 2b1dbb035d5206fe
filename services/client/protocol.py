"""What the bot SDK, the match runner and the chat frontends need from a client, so they run over either
the embedded trusted :class:`services.pipeline.direct.DirectClient` or a gateway client
(:class:`services.client.http.GatewayClient`). The seat token of the gateway plays the part of the
embedded client's seat credential (the ``credential`` argument)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

from schemas.envelopes import CommandResult, MatchMeta, ViewRecord
from schemas.gateway import LogAnswer, MatchSummary


class GameClient(Protocol):
    def create_match(self, game: str, seats: int, options: Mapping[str, Any] | None = None, *,
                     seed: int | None = None, match_id: str | None = None,
                     clock: Mapping[str, Any] | None = None) -> MatchMeta | MatchSummary:
        """Set a match up. ``seed`` and ``match_id`` only on clients that may choose them (embedded). ``clock``: its
        time control (``schemas.clock.TimeControl``: kind none/move/bank, seconds, increment, timeouts)."""
        ...

    def join(self, match_id: str, seat: int | None = None) -> tuple[int, str]:
        """Take a seat (the first free one if None): ``(seat, credential or token)``."""
        ...

    def match(self, match_id: str) -> MatchSummary:
        """One match's summary (status, free seats, version)."""
        ...

    def call(self, match_id: str, seat: int, credential: str | None, type: str, body: Mapping[str, Any],
             timeout_s: float = 30.0, command_id: str | None = None,
             expected_version: int | None = None) -> CommandResult:
        """Send a command for ``seat`` and wait for its result; ``command_id`` makes re-sending safe;
        ``expected_version`` pins it to the view it answers (refused, ``conflict``, once the match moved on)."""
        ...

    def view(self, match_id: str, key: str | int = "public", token: str | None = None) -> ViewRecord | None:
        """The current view record (``"public"`` or a seat), None if there is none yet."""
        ...

    def wait_view(self, match_id: str, key: str | int = "public", min_version: int = 0,
                  timeout_s: float = 30.0, token: str | None = None) -> ViewRecord:
        """The view once it reflects at least ``min_version``; raises ``Timeout`` after ``timeout_s``."""
        ...

    def log(self, match_id: str, token: str | None = None, after_version: int = 0) -> LogAnswer:
        """The events after ``after_version`` that the token's seat (or anyone, without one) may see."""
        ...

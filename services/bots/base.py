"""What a bot is: one method from (its seat's view, its legal commands) to a command."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any, Protocol

CommandDict = dict[str, Any]


class Bot(Protocol):
    def choose(self, view: Mapping[str, Any], legal: Sequence[CommandDict]) -> CommandDict:
        """Pick the command to send: {'type': ..., 'body': {...}}. ``view`` is this seat's view only."""
        ...


class RandomBot:
    """Chooses uniformly among the legal commands, from its own seeded generator."""

    def __init__(self, seed: int) -> None:
        self._rng = random.Random(seed)

    def choose(self, view: Mapping[str, Any], legal: Sequence[CommandDict]) -> CommandDict:
        return self._rng.choice(list(legal))


BOTS = {"random": RandomBot}

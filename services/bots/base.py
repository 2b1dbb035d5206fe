"""What a bot is: one method from (its seat's view, its legal commands) to a command."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from schemas.legal import Choice

CommandDict = dict[str, Any]


class Bot(Protocol):
    def choose(self, view: Mapping[str, Any], legal: Sequence[CommandDict]) -> CommandDict:
        """Pick the command to send: {'type': ..., 'body': {...}}. ``view`` is this seat's view only."""
        ...


class ValueBot:
    """A bot that scores every legal command (``values``) and sends the best, ties broken at random."""

    def __init__(self, seed: int = 0) -> None:
        self._rng = random.Random(seed)

    def choose(self, view: Mapping[str, Any], legal: Sequence[CommandDict]) -> CommandDict:
        values = self.values(view, legal)
        return legal[self.best(values)]

    def best(self, values: Sequence[float]) -> int:
        return max(range(len(values)), key=lambda i: (values[i], self._rng.random()))

    def values(self, view: Mapping[str, Any], legal: Sequence[CommandDict]) -> list[float]:
        raise NotImplementedError


class RandomBot:
    """Chooses uniformly among the legal commands, from its own seeded generator. Given a record's raw
    choices (with free fields) instead of concrete commands, it draws a command of the chosen one."""

    def __init__(self, seed: int) -> None:
        self._rng = random.Random(seed)

    def choose(self, view: Mapping[str, Any], legal: Sequence[CommandDict]) -> CommandDict:
        picked = self._rng.choice(list(legal))
        if picked.get("free"):
            choice = Choice.model_validate(picked)
            return {"type": choice.type, "body": choice.sample(self._rng)}
        return picked

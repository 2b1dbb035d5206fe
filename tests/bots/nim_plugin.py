"""The bot plug-in of the nim test game: resample, a perfect-play heuristic; added to its registration on import."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

from services.bots.base import CommandDict
from services.bots.plugins import GamePlugin
from services.games.registry import extend
from tests.pipeline.nim import NimState


def resample(view: Mapping[str, Any], seat: int, rng: random.Random) -> NimState:
    """The pile and turn are public; the other seats' secrets are drawn afresh."""
    seats = view["seats"]
    secrets = tuple(view["secret"] if s == seat else rng.randint(1, 100) for s in range(seats))
    outcome = view["outcome"]
    return NimState(seats=seats, pile=view["pile"], turn=view["to_act"][0] if view["to_act"] else 0,
                    max_take=3, secrets=secrets,  # the view does not show max_take; the tests use 3
                    winner=outcome["winners"][0] if outcome else None)


class NimHeuristic:
    """Leave the opponent a multiple of four (perfect play with two seats and max_take 3)."""

    def __init__(self, seed: int = 0) -> None:
        self._rng = random.Random(seed)

    def choose(self, view: Mapping[str, Any], legal: Sequence[CommandDict]) -> CommandDict:
        want = view["pile"] % 4
        for command in legal:
            if command["body"]["n"] == want:
                return command
        return self._rng.choice(list(legal))


PLUGIN = GamePlugin(game="nim", resample=resample, heuristic=NimHeuristic, max_actions=4)
extend("nim", bot=PLUGIN)

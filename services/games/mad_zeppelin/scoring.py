"""The match result, as the contract's Outcome."""

from __future__ import annotations

from services.games.base import Outcome
from services.games.mad_zeppelin.rules import scores
from services.games.mad_zeppelin.state import Phase, State


def outcome(state: State) -> Outcome | None:
    if state.phase != Phase.OVER:
        return None
    return Outcome(
        scores=state.final_scores or scores(state),
        winners=state.winners,
        detail={
            "reason": state.end_reason,
            "draw": state.draw,
            "target": state.target,
            "gold": [p.gold for p in state.players],
            "journeys": state.journeys,
        },
    )

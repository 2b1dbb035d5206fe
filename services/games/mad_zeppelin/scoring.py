"""The match result, as the contract's Outcome."""

from __future__ import annotations

from services.games.abandon import abandoned_outcome
from services.games.base import Outcome
from services.games.mad_zeppelin.rules import scores
from services.games.mad_zeppelin.state import ABANDONED, Phase, State


def outcome(state: State) -> Outcome | None:
    if state.phase != Phase.OVER:
        return None
    if state.end_reason == ABANDONED:
        return abandoned_outcome(state.seats)
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

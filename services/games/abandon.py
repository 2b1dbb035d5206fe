"""Ending a match early: the system command the gateway publishes once the players agree
(``schemas.gateway.abandon_agreed``), and the one event every game accepts whatever its rules.

The command goes through the pipeline like any other (a worker decides it, the append writes its event to the
log, the projector's views and the archive carry it), so an abandoned match is finished everywhere, replays to
the same state and is rated by nobody. Each game's ``evolve`` handles ``MatchAbandoned`` by ending the match
with :func:`abandoned_outcome`: no winner, every score 0, ``detail.abandoned``. A game that does not is refused
the command (``BadCommand``), never a failing worker.
"""

from __future__ import annotations

import random
from typing import Any

from pydantic import ValidationError

from schemas.game_schemas import ABANDON_COMMAND, MATCH_ABANDONED, MatchAbandonedEvent
from services.games.base import Body, Command, Event, Game, Outcome
from services.games.errors import GAME_OVER, BadCommand, GameOver
from services.games.kit import first_error

__all__ = ["ABANDON_COMMAND", "EXPIRED", "MATCH_ABANDONED", "abandon_rule", "abandoned_outcome", "decide_any",
           "ended_text", "is_abandoned", "with_rule"]

EXPIRED = "expired"
"""The rule of the ``MatchAbandoned`` event an idle expiry writes: nobody moved in the match for the service's idle
time (``AIRSHIP_IDLE_MATCH_S``), so the service ended it (published by the archiver, decided by a worker)."""


def abandoned_outcome(seats: int) -> Outcome:
    """The outcome of a match its players ended early: nobody won, nobody scored."""
    return Outcome(scores=(0,) * seats, winners=(), detail={"abandoned": True})


def is_abandoned(outcome: Outcome | dict[str, Any] | None) -> bool:
    """Whether an outcome (or its ``as_dict`` form, as views and results carry it) is an abandoned match's."""
    if outcome is None:
        return False
    detail = outcome.detail if isinstance(outcome, Outcome) else outcome.get("detail")
    return isinstance(detail, dict) and detail.get("abandoned") is True


def abandon_rule(event_type: str, body: dict[str, Any] | None) -> str | None:
    """The rule of a ``MatchAbandoned`` event ('all', 'idle' or 'expired'); None for any other event."""
    if event_type != MATCH_ABANDONED or not isinstance(body, dict):
        return None
    rule = body.get("rule")
    return rule if isinstance(rule, str) else None


def with_rule(outcome: dict[str, Any] | None, rule: str | None) -> dict[str, Any] | None:
    """An abandoned match's outcome (``Outcome.as_dict``) with how it ended in ``detail.rule`` (the games'
    states keep only that it was abandoned; the projector knows the event and adds the rule for every game)."""
    if outcome is None or rule is None or not is_abandoned(outcome):
        return outcome
    return {**outcome, "detail": {**outcome.get("detail", {}), "rule": rule}}


def ended_text(outcome: dict[str, Any]) -> str:
    """How an abandoned match ended, in words, for chat and text clients."""
    detail = outcome.get("detail") if isinstance(outcome, dict) else None
    if isinstance(detail, dict) and detail.get("rule") == EXPIRED:
        return "The match was ended by the service: nobody moved in it for too long. Nobody won."
    return "The match was abandoned by its players' agreement: nobody won."


def abandon(game: Game[Any], state: Any, body: Body) -> list[Event]:
    """The events of the abandon command: ``MatchAbandoned``, unless the match is already over."""
    if game.outcome(state) is not None:
        raise GameOver(GAME_OVER)
    try:
        checked = MatchAbandonedEvent.model_validate(body)
    except ValidationError as e:
        raise BadCommand(first_error(e)) from None
    event = Event(MATCH_ABANDONED, {"votes": sorted(set(checked.votes)), "rule": checked.rule})
    try:  # a game that does not know the event cannot be ended early: a clear rejection, not a failing worker
        ended = game.evolve(state, event)
    except Exception:
        raise BadCommand(f"{game.title} cannot be ended early (its rules do not handle {MATCH_ABANDONED})") from None
    if game.outcome(ended) is None:
        raise BadCommand(f"{game.title} cannot be ended early (its rules ignore {MATCH_ABANDONED})")
    return [event]


def decide_any(game: Game[Any], state: Any, command: Command, rng: random.Random) -> list[Event]:
    """``game.decide``, or the service's own command: what a worker (and a replay's check of a log) decides."""
    if command.type == ABANDON_COMMAND:
        return abandon(game, state, command.body)
    return game.decide(state, command, rng)

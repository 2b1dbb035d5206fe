"""Every game accepts ``MatchAbandoned`` at any point of play (the players' agreement to end early, published by
the gateway as the system command ``match.abandon``): the match is over, nobody acts, nothing is accepted, the
outcome names no winner, and the views and the event still match the game's published schemas."""

from __future__ import annotations

import random
from typing import Any

import pytest

from schemas.game_schemas import ABANDON_COMMAND, MATCH_ABANDONED
from services.games import get_game
from services.games.abandon import abandoned_outcome, decide_any, is_abandoned
from services.games.base import Command, Game
from services.games.errors import BadCommand, GameOver
from services.games.registry import default_seats
from tests.games.harness import schemas_of
from tests.registered import SUITE_GAMES

VOTE = {"votes": [2, 0, 1, 0], "rule": "all"}


def playing(game: Game[Any], seats: int, steps: int, seed: int) -> Any:
    """A state ``steps`` random legal commands into a match (fewer if it ends first)."""
    rng = random.Random(seed)
    state = game.initial()
    for event in game.setup({}, seats, rng):
        state = game.evolve(state, event)
    for _ in range(steps):
        acting = sorted(game.to_act(state))
        if game.outcome(state) is not None or not acting:
            break
        seat = rng.choice(acting)
        for event in game.decide(state, rng.choice(game.legal_commands(state, seat)), rng):
            state = game.evolve(state, event)
    return state


@pytest.mark.parametrize("name", SUITE_GAMES)
@pytest.mark.parametrize("steps", [0, 7, 40, 150])
def test_abandoning_ends_the_match_at_any_point(name: str, steps: int) -> None:
    game = get_game(name)
    seats = default_seats(game)
    state = playing(game, seats, steps, seed=steps)
    if game.outcome(state) is not None:
        pytest.skip("the random match ended first")
    before = {seat: game.legal_commands(state, seat) for seat in game.to_act(state)}
    events = decide_any(game, state, Command(0, ABANDON_COMMAND, VOTE), random.Random(0))
    assert [(e.type, e.body, e.visible_to) for e in events] == [(MATCH_ABANDONED, {"votes": [0, 1, 2],
                                                                                   "rule": "all"}, None)]
    schemas_of(name).events[MATCH_ABANDONED].model_validate(events[0].body)
    for event in events:
        state = game.evolve(state, event)
    outcome = game.outcome(state)
    assert outcome == abandoned_outcome(seats) and is_abandoned(outcome) and is_abandoned(outcome.as_dict())
    assert outcome.winners == () and outcome.scores == (0,) * seats
    assert game.to_act(state) == frozenset()
    for seat in range(seats):
        assert game.legal(state, seat) == [] and game.legal_commands(state, seat) == []
    for commands in before.values():  # what was legal a moment ago is refused now
        for command in commands[:5]:
            with pytest.raises(GameOver):
                game.decide(state, command, random.Random(1))
    with pytest.raises(GameOver):  # and it cannot be abandoned twice
        decide_any(game, state, Command(1, ABANDON_COMMAND, VOTE), random.Random(0))
    for seat in (None, *range(seats)):
        view = schemas_of(name).view.model_validate(game.view(state, seat))
        assert view.finished and view.outcome is not None  # type: ignore[attr-defined]


@pytest.mark.parametrize("body", [{}, {"votes": [0]}, {"votes": "all", "rule": "all"},
                                  {"votes": [0], "rule": "because"}, {"votes": [0], "rule": "all", "x": 1}])
def test_a_malformed_abandon_command_is_refused(body: dict[str, Any]) -> None:
    game = get_game("moderne-zeiten")
    state = playing(game, 3, 3, seed=1)
    with pytest.raises(BadCommand):
        decide_any(game, state, Command(0, ABANDON_COMMAND, body), random.Random(0))


def test_a_game_never_sees_the_system_command() -> None:
    """``decide_any`` passes every other command to the game untouched: the game's own refusal stands."""
    game = get_game("mad-zeppelin")
    state = playing(game, 3, 2, seed=2)
    with pytest.raises(BadCommand):
        decide_any(game, state, Command(0, "abandon", VOTE), random.Random(0))


def test_a_game_that_does_not_know_the_event_refuses_to_end_early() -> None:
    """A game without a MatchAbandoned handler (a third party's, an older one) gets a clear rejection."""
    from services.games.base import Event, Outcome

    class Plain:
        title = "Plain"

        def evolve(self, state: int, event: Event) -> int:
            return {"Moved": state + 1}[event.type]

        def outcome(self, state: int) -> Outcome | None:
            return None

    with pytest.raises(BadCommand, match="cannot be ended early"):
        decide_any(Plain(), 0, Command(0, ABANDON_COMMAND, VOTE), random.Random(0))  # type: ignore[arg-type]

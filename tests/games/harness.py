"""Shared checks for every game: random playouts that verify the contract at every step.

Each game's tests call :func:`random_playout` over many seeds, seat counts and option sets, adding
their own conservation checks through ``invariant``.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from typing import Any

from schemas.game_schemas import GameSchemas
from services.games.base import Event, Game, Outcome, replay
from services.games.errors import Rejected
from services.games.registry import registration_of
from services.games.rng import derive_rng

Invariant = Callable[[Any], None]


def start(game: Game[Any], seats: int, options: Mapping[str, Any], seed: int) -> tuple[Any, list[Event]]:
    events = game.setup(options, seats, derive_rng(seed, 0))
    state = game.initial()
    for event in events:
        state = game.evolve(state, event)
    return state, events


def schemas_of(name: str) -> GameSchemas:
    """The wire shapes in the game's registration (every built-in game has them: the conformance suite)."""
    schemas = registration_of(name).schemas
    assert schemas is not None, f"{name}: the registration declares no schemas"
    return schemas


def check_schemas(game: Game[Any], events: list[Event], state: Any, seats: int) -> None:
    schemas = schemas_of(game.name)
    for event in events:
        model = schemas.events[event.type]
        model.model_validate(event.body)
        if event.visible_to is not None:
            model.model_validate(event.redacted or {})
    for seat in [None, *range(seats)]:
        schemas.view.model_validate(game.view(state, seat))


def random_playout(
    game: Game[Any],
    seats: int,
    options: Mapping[str, Any],
    seed: int,
    *,
    invariant: Invariant | None = None,
    max_steps: int = 20_000,
    check_every_legal: bool = False,
    schema_every: int = 0,
) -> tuple[Any, list[Event], Outcome]:
    """Play a full match choosing uniformly among legal commands; check the contract as it goes.

    - every chosen legal command is accepted by ``decide`` (and ``check_every_legal``: all of them);
    - ``decide`` never mutates the state it is given (compared by equality);
    - the state built step by step equals ``replay`` of the whole log at the end;
    - events and views validate against the game's schemas (every ``schema_every`` steps; 0: at the end).
    """
    pick = random.Random(seed * 7919 + 17)
    state, log = start(game, seats, options, seed)
    if invariant:
        invariant(state)
    steps = 0
    while game.outcome(state) is None:
        steps += 1
        assert steps <= max_steps, f"{game.name}: no end after {max_steps} steps"
        acting = sorted(game.to_act(state))
        assert acting, f"{game.name}: nobody to act in a running match"
        seat = pick.choice(acting)
        legal = game.legal_commands(state, seat)
        assert legal, f"{game.name}: seat {seat} must act but has no legal command"
        rng = derive_rng(seed, len(log))
        if check_every_legal:
            for command in legal:
                try:
                    game.decide(state, command, derive_rng(seed, len(log)))
                except Rejected as e:  # pragma: no cover - reported as failure
                    raise AssertionError(f"legal command {command} rejected: {e.reason}") from e
        command = pick.choice(legal)
        before = state
        try:
            events = game.decide(state, command, rng)
        except Rejected as e:
            raise AssertionError(f"legal command {command} rejected: {e.reason}") from e
        assert state == before, "decide mutated the state"
        assert events, f"accepted command {command} produced no events"
        for event in events:
            state = game.evolve(state, event)
        log.extend(events)
        if invariant:
            invariant(state)
        if schema_every and steps % schema_every == 0:
            check_schemas(game, events, state, seats)
    assert replay(game, log) == state, "replay of the log differs from the state built step by step"
    check_schemas(game, log, state, seats)
    outcome = game.outcome(state)
    assert outcome is not None
    return state, log, outcome


def assert_resample_plays_on(game: Game[Any], sampled: Any, state: Any, seat: int) -> None:
    """A state resampled from ``seat``'s view plays on like the true one: the same seats act, each has
    legal commands and ``decide`` accepts every one, and ``seat``'s own choices are exactly the true ones
    (what a seat may do depends only on what it sees)."""
    assert game.to_act(sampled) == game.to_act(state)
    for acting in game.to_act(sampled):
        legal = game.legal_commands(sampled, acting)
        assert legal
        if acting == seat:
            assert legal == game.legal_commands(state, seat)
        for command in legal:
            game.decide(sampled, command, random.Random(0))  # accepted: no Rejected

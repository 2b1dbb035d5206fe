"""One conformance suite for every registered built-in game: the same checks, parametrised by game.

- **contract**: the game object declares what the registry expects; its options model is the schema's;
  every event of random matches (full and redacted body) and every view validate against the game's
  schema models (the ``schemas`` of its registration, the one definition of its wire shapes);
- **determinism**: the same seed and the same commands give the same events, byte for byte;
- **hidden information**: a seat's view never changes when only what is hidden from it changes
  (``tests/games/test_hidden_generic.py`` runs that check for every built-in game);
- **legal completeness**: in random reachable states, every command ``decide`` accepts (from a broad
  per-game superset of candidates, the ``candidates`` of its registration) is covered by ``legal``, and commands
  sampled from every choice ``legal`` lists are accepted; a seat not to act has no choice;
- **replay**: folding the log gives the state built step by step, and the views of both agree.

A new game passes this suite by its registration: its ``schemas`` and its ``candidates`` (a game without
either fails here).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from typing import Any

import msgpack
import pytest

from schemas.legal import Choice, covered
from services.games import get_game
from services.games.base import Command, Event, Game, replay
from services.games.errors import Rejected
from services.games.registration import Candidates
from services.games.registry import registration_of
from services.games.rng import derive_rng
from tests.games.harness import check_schemas, schemas_of, start
from tests.registered import SUITE_GAMES

GAMES = SUITE_GAMES


def candidates_for(game: Game[Any]) -> Candidates:
    candidates = registration_of(game.name).candidates
    assert candidates is not None, f"{game.name}: its registration declares no conformance candidates"
    return candidates


def seat_counts(game: Game[Any]) -> list[int]:
    return list(range(game.min_seats, game.max_seats + 1))


def playout(game: Game[Any], seats: int, seed: int,
            visit: Callable[[Any, list[Event]], None] | None = None) -> tuple[Any, list[Event]]:
    """A random match choosing among commands sampled from ``legal``; ``visit(state, log)`` at each step."""
    pick = random.Random(seed)
    state, log = start(game, seats, {}, seed)
    for _ in range(20_000):
        if game.outcome(state) is not None:
            return state, log
        if visit:
            visit(state, log)
        seat = pick.choice(sorted(game.to_act(state)))
        choice = pick.choice(game.legal(state, seat))
        command = Command(seat, choice.type, choice.sample(pick))
        events = game.decide(state, command, derive_rng(seed, len(log)))
        for event in events:
            state = game.evolve(state, event)
        log.extend(events)
    raise AssertionError(f"{game.name}: no end after 20,000 steps")


@pytest.mark.parametrize("name", GAMES)
def test_contract(name: str) -> None:
    game = get_game(name)
    schemas = schemas_of(name)
    assert schemas.game == name and game.Options is schemas.options
    assert 1 <= game.min_seats <= game.max_seats
    assert set(schemas.commands), "a game declares its commands"
    for seed in range(3):
        seats = seat_counts(game)[seed % len(seat_counts(game))]
        state, log = playout(game, seats, seed)
        check_schemas(game, log, state, seats)
        assert {e.type for e in log} <= set(schemas.events)
        outcome = game.outcome(state)
        assert outcome is not None and len(outcome.scores) == seats
        assert set(outcome.winners) <= set(range(seats))
        assert game.to_act(state) == frozenset()


@pytest.mark.parametrize("name", GAMES)
def test_determinism(name: str) -> None:
    game = get_game(name)
    seats = game.max_seats
    first = playout(game, seats, 11)[1]
    second = playout(game, seats, 11)[1]
    as_bytes = [msgpack.packb([e.type, e.body, e.visible_to, e.redacted]) for e in first]
    assert as_bytes == [msgpack.packb([e.type, e.body, e.visible_to, e.redacted]) for e in second]


@pytest.mark.parametrize("name", GAMES)
def test_legal_is_complete(name: str) -> None:
    game = get_game(name)
    candidates = candidates_for(game)
    checked = {"states": 0, "accepted": 0, "sampled": 0}
    seats = 0

    def visit(state: Any, log: list[Event]) -> None:
        if len(log) % 3:
            return  # every third version: enough states, a bounded run time
        checked["states"] += 1
        acting = game.to_act(state)
        sampler = random.Random(len(log))
        for seat in range(seats):
            choices = game.legal(state, seat)
            if seat not in acting:
                assert choices == [], f"seat {seat} does not act but has choices {choices}"
            for kind, body in candidates(state, seat):
                if _accepts(game, state, Command(seat, kind, body), len(log)):
                    checked["accepted"] += 1
                    assert covered(choices, kind, body), f"accepted but not in legal: seat {seat} {kind} {body}"
            for choice in choices:
                assert isinstance(choice, Choice)
                for _ in range(min(choice.count, 4)):
                    body = choice.sample(sampler)
                    checked["sampled"] += 1
                    command = Command(seat, choice.type, body)
                    assert _accepts(game, state, command, len(log)), f"legal but refused: seat {seat} {command}"

    for seed in range(4):
        seats = seat_counts(game)[seed % len(seat_counts(game))]
        playout(game, seats, 100 + seed, visit)
    assert checked["states"] > 20 and checked["accepted"] > 20 and checked["sampled"] > 20, checked


@pytest.mark.parametrize("name", GAMES)
def test_replay_equals_play(name: str) -> None:
    game = get_game(name)
    seats = game.min_seats
    state, log = playout(game, seats, 5)
    folded = replay(game, log)
    assert folded == state
    for seat in [None, *range(seats)]:
        assert game.view(folded, seat) == game.view(state, seat)


def _accepts(game: Game[Any], state: Any, command: Command, version: int) -> bool:
    try:
        game.decide(state, command, derive_rng(0, version))
    except Rejected:
        return False
    return True


WRONG_TYPES_PER_SEAT = 24  # candidates of the wrong type checked per acting seat and state (a body of 8 choices)


def wrong_types(value: Any) -> list[Any]:
    """Values of other JSON types standing for ``value`` (bool, float, str variants): Python finds several
    equal to it (``True == 1``, ``1.0 == 1``), the games' strict reading refuses them all."""
    if isinstance(value, bool):
        return [int(value), float(value), str(value).lower()]
    if isinstance(value, int):
        return [bool(value), float(value), str(value)]
    if isinstance(value, float):
        return [bool(value), str(value)] + ([int(value)] if value.is_integer() else [])
    if isinstance(value, str):
        return [True, 1.0, 0]
    if value is None:
        return [False, 0.0, "", "null"]
    return []


def mutations(value: Any) -> Iterator[Any]:
    """``value`` with one of its leaves (a number, string, bool or null, at any depth) of another type."""
    if isinstance(value, dict):
        for key, inner in value.items():
            for changed in mutations(inner):
                yield {**value, key: changed}
    elif isinstance(value, list | tuple):
        for i, inner in enumerate(value):
            for changed in mutations(inner):
                yield [*value[:i], changed, *value[i + 1 :]]
    else:
        yield from wrong_types(value)


@pytest.mark.parametrize("name", GAMES)
def test_covers_is_exact_about_types(name: str) -> None:
    """In random reachable states: commands of the choices with one fixed or free value (at any depth) turned
    into a bool, float or str are covered by no choice, and ``decide`` refuses them (a client that checks a
    command with ``covers`` before sending it is told what ``decide`` will say)."""
    game = get_game(name)
    checked = {"states": 0, "candidates": 0, "loosely_equal": 0}

    def visit(state: Any, log: list[Event]) -> None:
        if len(log) % 3:
            return
        checked["states"] += 1
        sampler = random.Random(len(log))
        for seat in sorted(game.to_act(state)):
            choices = game.legal(state, seat)
            candidates = []
            for choice in sampler.sample(choices, min(len(choices), WRONG_TYPES_PER_SEAT // 3)):
                body = sampler.choice(choice.spread(6))  # (its extremes and a few between: worked out once)
                candidates += [(choice.type, {**body, field: changed}, changed == body[field])
                               for field in body for changed in mutations(body[field])]
            for kind, body, loose in sampler.sample(candidates, min(len(candidates), WRONG_TYPES_PER_SEAT)):
                checked["candidates"] += 1
                checked["loosely_equal"] += loose  # equal in Python to a legal body: what a loose covers took
                assert not covered(choices, kind, body), f"covered: seat {seat} {kind} {body}"
                command = Command(seat, kind, body)
                assert not _accepts(game, state, command, len(log)), f"accepted: {command}"

    for seed in range(4):
        playout(game, seat_counts(game)[seed % len(seat_counts(game))], 200 + seed, visit)
    assert checked["states"] > 20 and checked["loosely_equal"] > 20, checked

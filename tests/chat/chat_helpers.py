"""What the per-game chat tests share: random reachable states, legal commands as the chat layer gets
them, and asserting a parse went one way or the other."""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from typing import Any

from services.chat.adapter import ChatAdapter, ChatError
from services.games.base import Command, Event, Game, replay
from services.games.rng import derive_rng

Chooser = Callable[[Game[Any], Any, list[int], random.Random], Command]


def first_seat_random_command(game: Game[Any], state: Any, acting: list[int], pick: random.Random) -> Command:
    return pick.choice(game.legal_commands(state, acting[0]))


def playout(game: Game[Any], seed: int, seats: int, options: Mapping[str, Any], steps: int,
            choose: Chooser = first_seat_random_command) -> list[tuple[Any, list[Event]]]:
    """States of a random match (each with the events that led to it), up to ``steps`` commands."""
    events = game.setup(options, seats, derive_rng(seed, 0))
    state = replay(game, events)
    out = [(state, events)]
    pick = random.Random(seed)
    for step in range(steps):
        acting = sorted(game.to_act(state))
        if not acting:
            break
        events = game.decide(state, choose(game, state, acting, pick), derive_rng(seed, step + 1))
        for event in events:
            state = game.evolve(state, event)
        out.append((state, events))
    return out


def legal_of(game: Game[Any], state: Any, seat: int) -> list[dict[str, Any]]:
    return [{"type": c.type, "body": c.body} for c in game.legal_commands(state, seat)]


def parsed_ok(adapter: ChatAdapter, text: str, legal: list[dict[str, Any]]) -> Any:
    parsed = adapter.parse(text, legal)
    assert not isinstance(parsed, ChatError), parsed
    return parsed


def parsed_reply(adapter: ChatAdapter, text: str, legal: list[dict[str, Any]]) -> str:
    parsed = adapter.parse(text, legal)
    assert isinstance(parsed, ChatError), parsed
    return parsed.message

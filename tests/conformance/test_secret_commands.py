"""Secret commands are part of a game's contract (``Registration.secret_commands``, #33): a client must send them
privately (a chat table refuses them in its channel). Checked for every game of the suites:

- each names a command of the game's schemas (the registration refuses another at import; checked again here);
- each hides something: in random matches, an accepted one causes an event its sender sees and another seat not;
- none is missing: a command whose own choice (a string, a list, a map of its body) lands in the hidden part of
  an event it caused that its sender sees (the part the redacted body lacks) is named secret. Typing such a
  command in a shared channel would tell everybody what the rules keep from them.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator, Mapping
from typing import Any

import pytest

from services.games import get_game
from services.games.base import Command, Event
from services.games.errors import Rejected
from services.games.registry import registration_of
from services.games.rng import derive_rng
from tests.games.harness import start
from tests.registered import SUITE_GAMES

STEPS = 4_000  # per match: enough to reach every phase of every game
MATCHES = 6


def choices(value: Any) -> Iterator[str]:
    """The choices a command body makes, canonically: every string, and every non-empty list or map (not the bare
    numbers: seats, counts and indices are in every event)."""
    if isinstance(value, str) and value:
        yield value
    elif isinstance(value, list | tuple) and value:
        yield json.dumps(list(value), sort_keys=True)
        for item in value:
            yield from choices(item)
    elif isinstance(value, Mapping) and value:
        yield json.dumps(dict(value), sort_keys=True)
        for item in value.values():
            yield from choices(item)


def hidden_part(event: Event, seats: int, sender: int) -> set[str]:
    """What the sender sees of an event and some other seat may not: its fields whose redacted value differs from the
    full one (nothing for an event the sender may not see: a deal, a shuffle his command happened to cause)."""
    if event.visible_to is None or sender not in event.visible_to or set(event.visible_to) >= set(range(seats)):
        return set()
    redacted = event.redacted or {}
    return {c for key, value in event.body.items() if redacted.get(key) != value for c in choices(value)}


def hiding_commands(name: str) -> tuple[dict[str, int], dict[str, str]]:
    """Over random matches: how often each command type caused an event hidden from some seat, and the commands whose
    own choice landed in a hidden part (type -> an example)."""
    game = get_game(name)
    hid: dict[str, int] = {}
    leaked: dict[str, str] = {}
    for seed in range(MATCHES):
        seats = range(game.min_seats, game.max_seats + 1)[seed % (game.max_seats - game.min_seats + 1)]
        pick = random.Random(seed)
        state, log = start(game, seats, {}, seed)
        for _ in range(STEPS):
            if game.outcome(state) is not None:
                break
            seat = pick.choice(sorted(game.to_act(state)))
            choice = pick.choice(game.legal(state, seat))
            command = Command(seat, choice.type, choice.sample(pick))
            try:
                events = game.decide(state, command, derive_rng(seed, len(log)))
            except Rejected:
                continue
            hidden = [h for e in events if (h := hidden_part(e, seats, seat))]
            if hidden:
                hid[command.type] = hid.get(command.type, 0) + 1
            mine = set(choices(dict(command.body)))
            if mine & set().union(*hidden):
                leaked.setdefault(command.type, f"{command.type} {dict(command.body)}")
            for event in events:
                state = game.evolve(state, event)
            log.extend(events)
    return hid, leaked


@pytest.mark.parametrize("name", SUITE_GAMES)
def test_secret_commands_are_the_games_hidden_choices(name: str) -> None:
    registration = registration_of(name)
    secret = registration.secret_commands
    assert registration.schemas is not None
    assert secret <= set(registration.schemas.commands), f"{name}: secret_commands names no command of the game"
    hid, leaked = hiding_commands(name)
    assert not set(leaked) - secret, (f"{name}: commands whose choice the rules hide are not declared secret "
                                      f"(Registration.secret_commands): {sorted(set(leaked) - secret)}; e.g. "
                                      f"{[leaked[t] for t in sorted(set(leaked) - secret)]}")
    assert not secret - set(hid), f"{name}: secret commands that hid nothing in {MATCHES} matches: " \
                                  f"{sorted(secret - set(hid))}"


def test_a_registration_refuses_a_secret_command_the_game_lacks() -> None:
    from dataclasses import replace

    registration = registration_of("mad-zeppelin")
    with pytest.raises(ValueError, match="no command of the game"):
        replace(registration, secret_commands=frozenset({"draft", "whisper"}))

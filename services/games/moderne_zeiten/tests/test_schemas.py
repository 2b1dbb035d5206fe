"""The wire contract: commands, events and views of Moderne Zeiten validate against schemas."""

from __future__ import annotations

import random

import pytest
from pydantic import ValidationError

from services.games.moderne_zeiten import GAME
from services.games.moderne_zeiten.schemas import SCHEMAS
from services.games.moderne_zeiten.tests.helpers import act
from tests.games.harness import schemas_of, start


def test_schemas_are_registered_under_the_game_name() -> None:
    assert schemas_of("moderne-zeiten") is SCHEMAS
    assert SCHEMAS.options is GAME.Options


def test_every_legal_command_and_every_view_validates() -> None:
    for seats in (3, 4, 5):
        state, _ = start(GAME, seats, {"forced_move": False, "move_needs_play": False}, seed=seats)
        pick = random.Random(seats)
        seen = set()
        while GAME.outcome(state) is None:
            seat = min(GAME.to_act(state))
            legal = GAME.legal_commands(state, seat)
            for command in legal:
                SCHEMAS.commands[command.type].model_validate(command.body)
                seen.add(command.type)
            for viewer in [None, *range(seats)]:
                SCHEMAS.view.model_validate(GAME.view(state, viewer))
            command = pick.choice(legal)
            state, _ = act(state, seat, command.type, command.body, seed=seats)
        assert seen == set(SCHEMAS.commands)


def test_view_of_the_empty_state_validates() -> None:
    SCHEMAS.view.model_validate(GAME.view(GAME.initial(), None))


def test_command_schema_rejects_unknown_industries_and_fields() -> None:
    with pytest.raises(ValidationError):
        SCHEMAS.commands["play"].model_validate({"cards": {"zeppelins": 1}})
    with pytest.raises(ValidationError):
        SCHEMAS.commands["bid"].model_validate({"amount": 3, "extra": 1})

"""Contract tests over every game and every bot plug-in: a new game's plug-in is checked by registering it."""

from __future__ import annotations

import random
from dataclasses import replace
from typing import Any

import pytest
from pettingzoo.test import api_test

from services.bots.pettingzoo_env import make_env
from services.bots.plugins import GamePlugin, encoder_for, flatten_numbers, make_bot, plugins
from services.games import GAMES, get_game
from services.games.errors import BadOptions
from services.games.registry import REGISTRATIONS
from services.games.rng import derive_rng


def _states(game_name: str, seats: int, seed: int) -> list[Any]:
    game = get_game(game_name)
    state = game.initial()
    for event in game.setup({}, seats, derive_rng(seed, 0)):
        state = game.evolve(state, event)
    pick = random.Random(seed)
    out = [state]
    while game.outcome(state) is None and len(out) < 400:
        seat = min(game.to_act(state))
        for event in game.decide(state, pick.choice(game.legal_commands(state, seat)), pick):
            state = game.evolve(state, event)
        out.append(state)
    return out


@pytest.mark.parametrize("name", sorted(n for n, p in plugins().items() if p.resample is not None))
def test_every_resample_keeps_the_seats_view_and_plays_on(name: str) -> None:
    game, plugin = get_game(name), plugins()[name]
    assert plugin.resample is not None
    rng = random.Random(1)
    for seats in sorted({game.min_seats, game.max_seats}):
        for state in _states(name, seats, seed=seats)[::5]:
            for seat in range(seats):
                view = game.view(state, seat)
                sampled = plugin.resample(view, seat, rng)
                assert game.view(sampled, seat) == view
                for acting in game.to_act(sampled):
                    for command in game.legal_commands(sampled, acting):
                        game.decide(sampled, command, random.Random(0))


@pytest.mark.parametrize("name", sorted(plugins()))
def test_every_plugin_bounds_the_legal_commands_and_encodes_to_its_size(name: str) -> None:
    game = get_game(name)
    encode, size = encoder_for(name)
    for state in _states(name, game.min_seats, seed=2):
        for seat in range(game.min_seats):
            assert len(encode(game.view(state, seat))) == size
            assert len(game.legal_commands(state, seat)) <= plugins()[name].max_actions


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("name", sorted(GAMES))
def test_every_game_passes_the_pettingzoo_api_test(name: str) -> None:
    api_test(make_env(name, get_game(name).min_seats, seed=2), num_cycles=200)


def test_bots_are_made_by_name_with_clear_errors(monkeypatch: pytest.MonkeyPatch) -> None:
    assert type(make_bot("heuristic", "moderne-zeiten", 1)).__name__ == "Heuristic"
    assert make_bot("ismcts:50", "moderne-zeiten", 1).iterations == 50  # type: ignore[attr-defined]
    with pytest.raises(BadOptions, match="unknown bot"):
        make_bot("clever", "moderne-zeiten", 1)
    with pytest.raises(BadOptions, match="number of iterations"):
        make_bot("ismcts:many", "moderne-zeiten", 1)
    with pytest.raises(BadOptions, match="unknown game"):
        make_bot("random", "chess", 1)
    monkeypatch.setitem(REGISTRATIONS, "nim", replace(REGISTRATIONS["nim"], bot=GamePlugin("nim")))
    with pytest.raises(BadOptions, match="no heuristic"):
        make_bot("heuristic", "nim", 1)
    with pytest.raises(BadOptions, match="resample"):
        make_bot("ismcts", "nim", 1)


def test_the_generic_encoder_flattens_numbers_in_key_order() -> None:
    view = {"b": [1, 2, {"z": True}], "a": 0.5, "c": "text", "d": None}
    assert flatten_numbers(view, 6) == [0.5, 1.0, 2.0, 1.0, 0.0, 0.0]
    assert flatten_numbers(view, 2) == [0.5, 1.0]

"""The three dice: white (the leader chooses), black (out), three black dice."""

from __future__ import annotations

import random

import pytest

from services.games.errors import IllegalMove, NotYourTurn
from services.games.mad_zeppelin import GAME
from services.games.mad_zeppelin.state import State
from services.games.mad_zeppelin.tests.helpers import Rigged, act, apply, first, table, types
from services.games.rng import derive_rng


def _drafted(seats: int, roll: random.Random, seed: int = 4) -> State:
    """Set up and draft; the last pick's rng (which rolls the dice) is ``roll``."""
    state = apply(GAME.initial(), GAME.setup({}, seats, derive_rng(seed, 0)))
    while state.phase == "draft":
        last = (state.seat + 1) % seats == state.leader
        state, _ = act(state, state.seat, "draft", roll if last else None, traitor=state.pool[0])
    return state


def test_the_leader_rolls_three_dice_after_the_draft() -> None:
    state = _drafted(3, Rigged("green"))
    assert state.dice == ("green", "green", "green") and state.phase == "play" and state.seat == state.leader


def test_white_die_the_leader_chooses_a_colour_before_anyone_plays() -> None:
    state = _drafted(3, Rigged("white"))
    leader = state.leader
    assert state.phase == "colours" and GAME.to_act(state) == {leader}
    with pytest.raises(NotYourTurn, match="choose a colour"):
        act(state, (leader + 1) % 3, "choose_colour", die=0, colour="red")
    with pytest.raises(IllegalMove, match="not possible now"):
        act(state, leader, "play_traitor", traitor=state.players[leader].traitors[0])
    assert len(GAME.legal_commands(state, leader)) == 12  # 3 white dice x 4 colours
    for die, colour in enumerate(("red", "blue", "red")):
        state, _events = act(state, leader, "choose_colour", die=die, colour=colour)
    assert state.dice == ("red", "blue", "red") and state.phase == "play" and state.round == 1
    with pytest.raises(IllegalMove, match="only a white die"):
        act(state._replace(phase="colours"), leader, "choose_colour", die=0, colour="green")


def test_white_die_cannot_be_given_black_or_white() -> None:
    state = _drafted(3, Rigged("white"))
    with pytest.raises(Exception, match="'colour': Input should be 'yellow', 'green', 'blue' or 'red'"):
        act(state, state.leader, "choose_colour", die=0, colour="black")


def test_three_black_dice_no_cargo_goes_overboard_but_traitors_are_played() -> None:
    assert _drafted(2, Rigged("black")).dice == ("black", "black", "black")
    state = table(2, traitors={0: ["guard", "doctor"], 1: ["anarchist", "lookout"]},
                  hands={0: ["wood", "alcohol"]},
                  dice=("black", "black", "black"))
    state, events = act(state, 0, "play_traitor", traitor="guard")
    assert first(events, "TraitorPlayed").body["traitor"] == "guard"
    with pytest.raises(IllegalMove, match="no die shows yellow"):
        act(state, 0, "throw", card="wood")
    assert [c.body for c in GAME.legal_commands(state, 0) if c.type == "throw"] == [{"card": "alcohol"}]
    state, events = act(state, 0, "throw", card="alcohol")  # Alcohol needs no colour
    assert "AlcoholPlaced" in types(events)


def test_a_black_die_is_out_its_colour_does_not_count() -> None:
    state = table(2, traitors={0: ["guard", "doctor"], 1: ["anarchist", "lookout"]}, hands={0: ["wood"]},
                  dice=("black", "black", "red"))
    state, _ = act(state, 0, "play_traitor", traitor="guard")
    with pytest.raises(IllegalMove, match="no die shows yellow"):
        act(state, 0, "throw", card="wood")
    other, _ = act(state._replace(dice=("black", "yellow", "red")), 0, "throw", card="wood")
    assert other.players[0].front == ("wood",)

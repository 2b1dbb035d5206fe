"""Cargo: Gold costs and discounts, Alcohol, mysterious crates as payment, points and the bonus."""

from __future__ import annotations

import pytest

from services.games.errors import BadCommand, IllegalMove
from services.games.mad_zeppelin import GAME
from services.games.mad_zeppelin.rules import score, throw_cost
from services.games.mad_zeppelin.state import State
from services.games.mad_zeppelin.tests.helpers import act, first, table, types

COSTS = {"wood": 1, "lead": 1, "coal": 2, "ore": 2, "steel": 3, "diamonds": 3, "gold_cargo": 4,
         "strange_materials": 2}


def _captain(hand: list[str], gold: int = 10, front: tuple[str, ...] = (), guard: bool = False) -> State:
    """Seat 0 plays the Captain (blue, no discount) or the Guard with a matching die."""
    traitor = "guard" if guard else "captain"
    state = table(2, traitors={0: [traitor, "doctor"], 1: ["anarchist", "lookout"]}, hands={0: hand},
                  gold={0: gold - 1}, fronts={0: front}, dice=("blue", "yellow", "red"))
    state, _ = act(state, 0, "play_traitor", traitor=traitor)
    return state


@pytest.mark.parametrize(("card", "cost"), COSTS.items())
def test_cargo_gold_to_throw(card: str, cost: int) -> None:
    state = _captain([card])
    assert throw_cost(state, 0, card) == cost
    after, events = act(state, 0, "throw", card=card)
    assert first(events, "CargoThrown").body["gold"] == cost
    assert after.players[0].gold == state.players[0].gold - cost and after.safe == state.safe + cost
    assert after.players[0].front == (card,)


def test_discounts_add_up_guard_and_each_alcohol_in_front_never_below_zero() -> None:
    assert throw_cost(_captain(["steel"], front=("alcohol",)), 0, "steel") == 2
    assert throw_cost(_captain(["steel"], front=("alcohol", "alcohol")), 0, "steel") == 1
    assert throw_cost(_captain(["steel"], front=("alcohol",), guard=True), 0, "steel") == 1
    assert throw_cost(_captain(["wood"], front=("alcohol", "alcohol"), guard=True), 0, "wood") == 0


def test_alcohol_is_put_in_front_instead_of_a_throw_no_colour_no_cost() -> None:
    state = table(2, traitors={0: ["captain", "doctor"], 1: ["anarchist", "lookout"]},
                  hands={0: ["alcohol", "wood"]},
                  dice=("red", "red", "yellow"))
    state, _ = act(state, 0, "play_traitor", traitor="captain")  # blue: no blue die
    gold = state.players[0].gold
    state, events = act(state, 0, "throw", card="alcohol")
    assert types(events) == ["AlcoholPlaced"] and state.players[0].front == ("alcohol",)
    assert state.players[0].gold == gold
    with pytest.raises(IllegalMove, match="already taken your throw"):
        act(state, 0, "throw", card="wood")


def test_mysterious_crates_stand_in_for_1_or_2_gold_and_are_discarded() -> None:
    state = _captain(["gold_cargo", "small_crate", "big_crate"], gold=1)
    after, events = act(state, 0, "throw", card="gold_cargo", crates=["small_crate", "big_crate"])
    assert first(events, "CargoThrown").body == {"seat": 0, "card": "gold_cargo", "cost": 4,
                                                 "crates": ["big_crate", "small_crate"], "gold": 1}
    assert after.players[0].hand == ("wood",)  # from the Search
    assert after.discard == ("big_crate", "small_crate")
    assert after.players[0].gold == 0


def test_mysterious_crate_gives_no_change() -> None:
    state = _captain(["wood", "big_crate"], gold=0)
    after, events = act(state, 0, "throw", card="wood", crates=["big_crate"])
    assert first(events, "CargoThrown").body["gold"] == 0 and after.players[0].gold == 0


def test_mysterious_crates_not_needed_are_refused() -> None:
    state = _captain(["wood", "small_crate", "small_crate"])
    with pytest.raises(IllegalMove, match="not all those crates are needed"):
        act(state, 0, "throw", card="wood", crates=["small_crate", "small_crate"])


def test_mysterious_crates_must_be_in_hand() -> None:
    state = _captain(["coal", "small_crate"])
    with pytest.raises(IllegalMove, match="only 0 big_crate"):
        act(state, 0, "throw", card="coal", crates=["big_crate"])
    with pytest.raises(BadCommand, match=r"'crates\.0': Input should be 'small_crate' or 'big_crate'"):
        act(state, 0, "throw", card="coal", crates=["wood"])


def test_mysterious_crates_never_go_overboard() -> None:
    state = _captain(["small_crate"])
    with pytest.raises(IllegalMove, match="never go overboard"):
        act(state, 0, "throw", card="small_crate")


def test_throwing_more_than_you_can_pay_is_refused() -> None:
    state = _captain(["gold_cargo"], gold=3)
    with pytest.raises(IllegalMove, match="costs you 4 Gold but you have 3"):
        act(state, 0, "throw", card="gold_cargo")
    assert not [c for c in GAME.legal_commands(state, 0) if c.body.get("card") == "gold_cargo"]


def test_legal_payments_list_gold_and_crate_combinations() -> None:
    state = _captain(["steel", "small_crate", "big_crate"], gold=2)
    bodies = [c.body for c in GAME.legal_commands(state, 0) if c.type == "throw"]
    assert {"card": "steel", "crates": ["small_crate"]} in bodies
    assert {"card": "steel", "crates": ["big_crate"]} in bodies
    assert {"card": "steel", "crates": ["big_crate", "small_crate"]} in bodies
    assert {"card": "steel"} not in bodies  # 3 Gold, he has 2


@pytest.mark.parametrize(("front", "points"), [
    (("wood",), 1), (("lead",), 2), (("coal",), 3), (("ore",), 4), (("steel",), 5), (("diamonds",), 6),
    (("gold_cargo",), 7), (("alcohol",), 0),
])
def test_cargo_points(front: tuple[str, ...], points: int) -> None:
    assert score(front) == points


def test_strange_materials_are_worth_the_first_level_cargo_thrown() -> None:
    assert score(("strange_materials",)) == 0
    assert score(("lead", "strange_materials", "wood", "wood")) == 1 + 1 + 2 + 3
    assert score(("lead", "strange_materials", "strange_materials", "wood")) == 3 + 2 * 2


def test_four_level_bonus_needs_a_card_of_each_level() -> None:
    assert score(("wood", "coal", "diamonds")) == 1 + 3 + 6
    assert score(("wood", "coal", "diamonds", "strange_materials")) == 1 + 3 + 6 + 1 + 1


def test_alcohol_counts_as_level_4_for_the_bonus() -> None:
    assert score(("wood", "coal", "diamonds", "alcohol")) == 1 + 3 + 6 + 1

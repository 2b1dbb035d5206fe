"""The Traitors' abilities and Search texts (the Captain, Councillor, Taster and Negotiator are in
test_mad_zeppelin_protection; the Stowaway and the Shadow in test_mad_zeppelin_copying)."""

from __future__ import annotations

import pytest

from services.games.errors import IllegalMove
from services.games.mad_zeppelin import GAME
from services.games.mad_zeppelin.state import State
from services.games.mad_zeppelin.tests.helpers import Rigged, act, first, table, types

THREE = {0: ["guard", "doctor"], 1: ["machinist", "anarchist"], 2: ["lookout", "geologist"]}


def _played(traitor: str, seat0: list[str] | None = None, **kw: object) -> State:
    traitors = {0: seat0 or [traitor, "captain"], 1: ["clairvoyant", "negotiator"], 2: ["shadow", "stowaway"]}
    state = table(3, traitors=traitors, **kw)  # type: ignore[arg-type]
    state, _ = act(state, 0, "play_traitor", traitor=traitor)
    return state


def test_default_search_takes_1_gold_and_draws_1_card() -> None:
    state = table(3, traitors=THREE, hold_top=["steel", "ore"])
    after, events = act(state, 0, "play_traitor", traitor="guard")
    assert types(events) == ["TraitorPlayed", "GoldTaken", "CargoDrawn"]
    assert after.players[0].gold == 4 and after.players[0].hand == ("steel",) and after.hold[0] == "ore"


def test_guard_throwing_costs_one_gold_less() -> None:
    state = _played("guard", hands={0: ["coal", "wood"]}, gold={0: 1})
    state, events = act(state, 0, "throw", card="coal")
    assert first(events, "CargoThrown").body == {"seat": 0, "card": "coal", "cost": 1, "crates": [],
                                                 "gold": 1}
    state = _played("guard", hands={0: ["wood"]}, gold={0: 0})
    state, events = act(state, 0, "throw", card="wood")
    assert first(events, "CargoThrown").body["gold"] == 0


def test_machinist_level_1_cargo_costs_nothing_other_levels_full_price() -> None:
    state = _played("machinist", hands={0: ["lead", "steel"]}, gold={0: 0})
    after, events = act(state, 0, "throw", card="lead")
    assert first(events, "CargoThrown").body["gold"] == 0 and after.players[0].front == ("lead",)
    with pytest.raises(IllegalMove, match="costs you 3 Gold but you have 1"):
        act(state, 0, "throw", card="steel")  # 1 Gold from the Search


def test_guard_is_yellow_and_cannot_throw_without_a_yellow_die() -> None:
    state = _played("guard", hands={0: ["coal"]}, dice=("blue", "red", "black"))
    with pytest.raises(IllegalMove, match="no die shows yellow"):
        act(state, 0, "throw", card="coal")
    assert not [c for c in GAME.legal_commands(state, 0) if c.type == "throw"]


# --- Lookout ---

def test_lookout_rerolls_a_die_then_once_more_before_throwing() -> None:
    state = _played("lookout", dice=("blue", "yellow", "red"))
    state, events = act(state, 0, "use_ability", Rigged("green"), die=0)
    assert types(events) == ["AbilityUsed", "DieRerolled"] and state.dice[0] == "green"
    state, _ = act(state, 0, "reroll", Rigged("blue"), die=2)
    assert state.dice == ("green", "yellow", "blue") and state.players[0].rerolls == 2
    with pytest.raises(IllegalMove, match="2 times this game turn"):
        act(state, 0, "reroll", die=1)


def test_lookout_rerolls_come_before_the_throw() -> None:
    state = _played("lookout", hands={0: ["wood"]})
    thrown, _ = act(state, 0, "throw", card="wood")
    with pytest.raises(IllegalMove, match="re-rolls come before your throw"):
        act(thrown, 0, "use_ability", die=0)
    assert not [c for c in GAME.legal_commands(thrown, 0) if c.type in ("use_ability", "reroll")]
    state, _ = act(state, 0, "use_ability", Rigged("yellow"), die=0)
    state, events = act(state, 0, "throw", card="wood")
    assert types(events)[-1] == "SequenceEnded" and GAME.to_act(state) == {1}


def test_lookout_reroll_needs_the_ability_used_first() -> None:
    state = _played("lookout")
    with pytest.raises(IllegalMove, match="only the Lookout's ability"):
        act(state, 0, "reroll", die=0)


def test_lookout_reroll_to_white_lets_the_rerolling_player_choose_the_colour() -> None:
    state = _played("lookout")
    state, _ = act(state, 0, "use_ability", Rigged("white"), die=1)
    assert GAME.to_act(state) == {0} and {c.type for c in GAME.legal_commands(state, 0)} == {"choose_colour"}
    state, events = act(state, 0, "choose_colour", die=1, colour="green")
    assert state.dice[1] == "green" and first(events, "DieColourChosen").body["seat"] == 0


def test_lookout_reroll_to_black_puts_the_die_out_and_an_out_die_cannot_be_rerolled() -> None:
    state = _played("lookout")
    state, _ = act(state, 0, "use_ability", Rigged("black"), die=1)
    assert state.dice[1] == "black"
    with pytest.raises(IllegalMove, match="die 1 is out"):
        act(state, 0, "reroll", die=1)


# --- Doctor ---

def _doctor_named(named: str) -> State:
    state = table(3, traitors={0: ["doctor", "guard"], 1: ["machinist", "anarchist"],
                               2: ["lookout", "geologist"]})
    state, _ = act(state, 0, "play_traitor", traitor="doctor")
    state, _events = act(state, 0, "use_ability", traitor=named)
    state, _ = act(state, 0, "end_sequence")
    return state


def test_doctor_named_traitor_cannot_be_played_the_holder_plays_his_other() -> None:
    state = _doctor_named("machinist")
    with pytest.raises(IllegalMove, match="cannot be played this turn"):
        act(state, 1, "play_traitor", traitor="machinist")
    assert [c.body["traitor"] for c in GAME.legal_commands(state, 1)] == ["anarchist"]
    assert GAME.view(state, 2)["named_unplayable"] == ["machinist"]


def test_doctor_player_whose_only_traitor_is_blocked_shows_it_and_skips_no_search_no_actions() -> None:
    state = _doctor_named("machinist")
    state, _ = act(state, 1, "play_traitor", traitor="anarchist")
    state, _ = act(state, 1, "end_sequence")
    state, _ = act(state, 2, "play_traitor", traitor="lookout")
    state, _ = act(state, 2, "end_sequence")
    state, _ = act(state, 0, "play_traitor", traitor="guard")
    before = state
    state, events = act(state, 0, "end_sequence")
    skipped = first(events, "SequenceSkipped")
    assert skipped.body == {"seat": 1, "traitors": ["machinist"]} and skipped.is_public
    assert state.players[1] == before.players[1]._replace(current=-1)  # no Gold, no card
    assert state.hold == before.hold and state.seat == 2 and GAME.to_act(state) == {2}


def test_doctor_player_with_both_traitors_blocked_is_skipped_in_round_1() -> None:
    state = table(3, traitors={0: ["doctor", "guard"], 1: ["machinist", "anarchist"],
                               2: ["stowaway", "geologist"]})
    state, _ = act(state, 0, "play_traitor", traitor="doctor")
    state, _ = act(state, 0, "use_ability", traitor="machinist")
    state, _ = act(state, 0, "end_sequence")
    state, _ = act(state, 1, "play_traitor", traitor="anarchist")
    state, _ = act(state, 1, "end_sequence")
    state, _ = act(state, 2, "play_traitor", traitor="stowaway")
    state, _ = act(state, 2, "use_ability", traitor="guard")  # the Stowaway bans the Guard
    state, events = act(state, 2, "end_sequence")
    assert first(events, "SequenceSkipped").body == {"seat": 0, "traitors": ["guard"]}


def test_doctor_ban_ends_with_the_turn() -> None:
    state = _doctor_named("machinist")
    assert state.bans
    state, _ = act(state, 1, "play_traitor", traitor="anarchist")
    for seat, traitor in ((1, None), (2, "lookout"), (0, "guard"), (1, None), (2, "geologist")):
        if traitor:
            state, _ = act(state, seat, "play_traitor", traitor=traitor)
        if state.phase == "actions":
            state, events = act(state, seat, "end_sequence")
    assert "TurnStarted" in types(events) and state.bans == () and state.turn == 2


# --- Geologist ---

def test_geologist_search_draws_two_cards() -> None:
    state = _played("geologist", hold_top=["diamonds", "journey", "coal"])
    assert state.players[0].hand == ("diamonds",) and state.journeys == 1
    assert state.players[0].gold == 3 + 1 + 1 and state.hold[0] == "coal"


def test_geologist_looks_at_the_top_three_alone_and_puts_them_back_in_any_order() -> None:
    state = _played("geologist", hold_top=["wood", "lead", "coal", "ore", "steel"])
    views = {s: GAME.view(state, s) for s in (1, 2, None)}
    state, events = act(state, 0, "use_ability")
    seen = first(events, "HoldTopSeen")
    assert seen.body == {"seat": 0, "cards": ["coal", "ore", "steel"], "count": 3}
    assert seen.visible_to == (0,) and seen.redacted == {"seat": 0, "count": 3}
    assert len(GAME.legal_commands(state, 0)) == 6 and GAME.to_act(state) == {0}
    state, events = act(state, 0, "arrange_hold", order=[2, 0, 1])
    arranged = first(events, "HoldRearranged")
    assert arranged.visible_to == (0,) and "order" not in (arranged.redacted or {})
    assert state.hold[:3] == ("steel", "coal", "ore")
    knowledge = GAME.view(state, 0)["knowledge"]
    assert knowledge == [{"kind": "hold_top", "of": None, "cards": ["steel", "coal", "ore"]}]
    for seat, before in views.items():  # only the public "ability used" flag differs
        assert {**GAME.view(state, seat), "sequence": None} == {**before, "sequence": None}
    state, _ = act(state, 0, "end_sequence")
    state, _ = act(state, 1, "play_traitor", traitor="clairvoyant")  # draws the steel
    assert GAME.view(state, 0)["knowledge"] == [{"kind": "hold_top", "of": None, "cards": ["coal", "ore"]}]


def test_geologist_arrange_order_must_be_a_permutation() -> None:
    state = _played("geologist")
    state, _ = act(state, 0, "use_ability")
    with pytest.raises(Exception, match="each of the positions"):
        act(state, 0, "arrange_hold", order=[0, 0, 1])


# --- Anarchist ---

def test_anarchist_turns_a_die_black_for_the_rest_of_the_turn() -> None:
    state = _played("anarchist", dice=("red", "yellow", "black"))
    with pytest.raises(IllegalMove, match="die 2 is out"):
        act(state, 0, "use_ability", die=2)
    assert [c.body for c in GAME.legal_commands(state, 0) if c.type == "use_ability"] == [{"die": 0},
                                                                                          {"die": 1}]
    state, _ = act(state, 0, "use_ability", die=0)
    assert state.dice == ("black", "yellow", "black")


# --- Clairvoyant ---

def test_clairvoyant_sees_the_unused_traitors_alone() -> None:
    state = table(3, traitors={0: ["clairvoyant", "guard"], 1: ["machinist", "anarchist"],
                               2: ["lookout", "doctor"]})
    state, _ = act(state, 0, "play_traitor", traitor="clairvoyant")
    state, events = act(state, 0, "use_ability", look="unused")
    seen = first(events, "TraitorsRevealed")
    assert sorted(seen.body["traitors"]) == sorted(state.airsick + state.pool)
    assert seen.visible_to == (0,) and seen.redacted == {"seat": 0, "source": "clairvoyant", "of": None}


def test_clairvoyant_sees_one_players_unplayed_traitors_alone() -> None:
    state = table(3, traitors={0: ["clairvoyant", "guard"], 1: ["machinist", "anarchist"],
                               2: ["lookout", "doctor"]})
    state, _ = act(state, 0, "play_traitor", traitor="clairvoyant")
    before = GAME.view(state, 2)
    spectator = GAME.view(state, None)
    with pytest.raises(IllegalMove, match="not yourself"):
        act(state, 0, "use_ability", look="player", seat=0)
    state, events = act(state, 0, "use_ability", look="player", seat=2)
    seen = first(events, "TraitorsRevealed")
    assert seen.body["traitors"] == ["doctor", "lookout"] and seen.visible_to == (0,)
    assert GAME.view(state, 0)["knowledge"] == [{"kind": "traitors", "of": 2, "cards": ["doctor", "lookout"]}]
    assert {**GAME.view(state, 2), "sequence": None} == {**before, "sequence": None}
    assert {**GAME.view(state, None), "sequence": None} == {**spectator, "sequence": None}


# --- Opportunist ---

def test_opportunist_throws_two_cargo_cards_paying_for_each() -> None:
    state = _played("opportunist", hands={0: ["coal", "wood", "alcohol"]}, dice=("green", "red", "red"))
    state, events = act(state, 0, "throw", card="coal")
    assert GAME.to_act(state) == {0} and first(events, "CargoThrown").body["gold"] == 2
    state, events = act(state, 0, "throw", card="wood")
    assert first(events, "CargoThrown").body["gold"] == 1
    assert state.players[0].front == ("coal", "wood") and types(events)[-1] == "SequenceEnded"


def test_without_the_opportunist_the_throw_action_is_one_card() -> None:
    state = _played("anarchist", hands={0: ["coal", "wood"]}, dice=("yellow", "red", "red"))
    state, _ = act(state, 0, "throw", card="coal")
    with pytest.raises(IllegalMove, match="already taken your throw"):
        act(state, 0, "throw", card="wood")
    assert {c.type for c in GAME.legal_commands(state, 0)} == {"use_ability", "end_sequence"}


def test_opportunist_may_place_an_alcohol_as_one_of_the_two() -> None:
    state = _played("opportunist", hands={0: ["steel", "alcohol"]}, dice=("green", "red", "red"), gold={0: 1})
    state, _ = act(state, 0, "throw", card="alcohol")
    state, events = act(state, 0, "throw", card="steel")  # 3 - 1 (Alcohol) = 2 Gold, he has 2
    assert first(events, "CargoThrown").body["gold"] == 2

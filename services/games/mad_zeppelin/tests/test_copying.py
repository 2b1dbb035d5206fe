"""The Stowaway and the Shadow take on another Traitor's colour and Ability."""

from __future__ import annotations

import pytest

from services.games.errors import IllegalMove
from services.games.mad_zeppelin import GAME
from services.games.mad_zeppelin.rules import throw_cost
from services.games.mad_zeppelin.state import State
from services.games.mad_zeppelin.tests.helpers import act, first, table, types


def _tim_first(**kw: object) -> State:
    state = table(3,
                  traitors={0: ["stowaway", "captain"], 1: ["guard", "anarchist"], 2: ["shadow", "doctor"]},
                  **kw)  # type: ignore[arg-type]
    state, _ = act(state, 0, "play_traitor", traitor="stowaway")
    return state


def test_stowaway_search_is_the_ordinary_one() -> None:
    state = table(2, traitors={0: ["stowaway", "captain"], 1: ["guard", "anarchist"]}, hold_top=["ore"])
    state, events = act(state, 0, "play_traitor", traitor="stowaway")
    assert types(events) == ["TraitorPlayed", "GoldTaken", "CargoDrawn"] and state.players[0].hand == ("ore",)


def test_stowaway_without_a_taken_colour_cannot_throw() -> None:
    state = _tim_first(hands={0: ["wood"]})
    with pytest.raises(IllegalMove, match="Li'l Tim Sly - The Stowaway has no colour"):
        act(state, 0, "throw", card="wood")


def test_stowaway_takes_colour_and_ability_and_the_named_traitor_cannot_be_played() -> None:
    state = _tim_first(hands={0: ["coal"]}, dice=("yellow", "red", "red"), gold={0: 0})
    state, events = act(state, 0, "use_ability", traitor="guard")
    assert first(events, "AbilityUsed").body == {"seat": 0, "ability": "stowaway", "traitor": "guard"}
    assert state.plays[0].identity == "guard" and state.plays[0].colour == "yellow"
    assert throw_cost(state, 0, "coal") == 1  # the Guard's ability, taken on
    state, events = act(state, 0, "throw", card="coal")  # 1 Gold from the Search pays it
    assert types(events)[-1] == "SequenceEnded"
    assert [c.body["traitor"] for c in GAME.legal_commands(state, 1)] == ["anarchist"]
    assert GAME.view(state, None)["named_unplayable"] == ["guard"]


def test_stowaway_cannot_name_a_traitor_already_played_this_turn() -> None:
    state = table(2, traitors={0: ["guard", "captain"], 1: ["stowaway", "anarchist"]})
    state, _ = act(state, 0, "play_traitor", traitor="guard")
    state, _ = act(state, 0, "end_sequence")
    state, _ = act(state, 1, "play_traitor", traitor="stowaway")
    with pytest.raises(IllegalMove, match="already been played"):
        act(state, 1, "use_ability", traitor="guard")
    named = [c.body["traitor"] for c in GAME.legal_commands(state, 1) if c.type == "use_ability"]
    assert "guard" not in named and "stowaway" not in named and len(named) == 12


def test_stowaway_may_then_use_the_ability_it_took_on_captain() -> None:
    state = _tim_first()
    state, _ = act(state, 0, "use_ability", traitor="captain")
    assert state.seq is not None and state.seq.copied == "captain"
    assert {c.type for c in GAME.legal_commands(state, 0)} >= {"use_ability", "end_sequence"}
    state, _events = act(state, 0, "use_ability", traitor="anarchist")
    assert state.watches == ((0, "anarchist"),) and state.seq is not None and state.seq.copied is None
    with pytest.raises(IllegalMove, match="already used"):
        act(state, 0, "use_ability", traitor="guard")


def test_stowaway_taking_on_the_doctor_bans_a_second_traitor() -> None:
    state = _tim_first()
    state, _ = act(state, 0, "use_ability", traitor="doctor")
    state, _ = act(state, 0, "use_ability", traitor="anarchist")
    assert [t for t, _ in state.bans] == ["doctor", "anarchist"]
    state, _ = act(state, 0, "end_sequence")
    assert [c.body["traitor"] for c in GAME.legal_commands(state, 1)] == ["guard"]


def test_stowaway_gives_up_the_taken_ability_when_he_throws_or_ends() -> None:
    state = _tim_first(hands={0: ["wood"]}, dice=("blue", "red", "red"))
    state, _ = act(state, 0, "use_ability", traitor="captain")  # blue, ability pending
    state, _ = act(state, 0, "throw", card="wood")
    assert state.seq is None and state.watches == ()


def test_shadow_search_takes_two_gold_and_no_cargo() -> None:
    state = table(2, traitors={0: ["shadow", "captain"], 1: ["guard", "anarchist"]})
    state, events = act(state, 0, "play_traitor", traitor="shadow")
    assert first(events, "GoldTaken").body["gold"] == 2 and "CargoDrawn" not in types(events)


def test_shadow_played_first_has_nothing_to_copy_no_colour_no_throw() -> None:
    state = table(2, traitors={0: ["shadow", "captain"], 1: ["guard", "anarchist"]}, hands={0: ["wood"]})
    state, _ = act(state, 0, "play_traitor", traitor="shadow")
    with pytest.raises(IllegalMove, match="nothing to copy"):
        act(state, 0, "use_ability")
    with pytest.raises(IllegalMove, match="has no colour"):
        act(state, 0, "throw", card="wood")
    assert [c.type for c in GAME.legal_commands(state, 0)] == ["end_sequence"]


def test_shadow_takes_the_colour_and_ability_of_the_traitor_played_just_before() -> None:
    state = table(2, traitors={0: ["guard", "captain"], 1: ["shadow", "anarchist"]}, hands={1: ["ore"]},
                  dice=("yellow", "red", "red"), gold={1: 0})
    state, _ = act(state, 0, "play_traitor", traitor="guard")
    state, _ = act(state, 0, "end_sequence")
    state, _ = act(state, 1, "play_traitor", traitor="shadow")  # 2 Gold
    state, events = act(state, 1, "use_ability")
    assert first(events, "AbilityUsed").body == {"seat": 1, "ability": "shadow", "source": "guard",
                                                 "copied": "guard"}
    state, events = act(state, 1, "throw", card="ore")
    assert first(events, "CargoThrown").body["gold"] == 1


def test_shadow_copying_an_ability_to_use_then_uses_it() -> None:
    state = table(2, traitors={0: ["anarchist", "captain"], 1: ["shadow", "guard"]})
    state, _ = act(state, 0, "play_traitor", traitor="anarchist")
    state, _ = act(state, 0, "end_sequence")
    state, _ = act(state, 1, "play_traitor", traitor="shadow")
    state, _ = act(state, 1, "use_ability")
    assert state.seq is not None and state.seq.copied == "anarchist"
    state, _ = act(state, 1, "use_ability", die=2)
    assert state.dice[2] == "black"


def test_shadow_after_a_stowaway_takes_what_the_stowaway_took() -> None:
    state = table(2, traitors={0: ["stowaway", "captain"], 1: ["shadow", "anarchist"]})
    state, _ = act(state, 0, "play_traitor", traitor="stowaway")
    state, _ = act(state, 0, "use_ability", traitor="machinist")
    state, _ = act(state, 0, "end_sequence")
    state, _ = act(state, 1, "play_traitor", traitor="shadow")
    state, events = act(state, 1, "use_ability")
    assert first(events, "AbilityUsed").body["copied"] == "machinist"
    assert state.plays[1].colour == "yellow"


def test_shadow_after_a_stowaway_who_took_nothing_takes_the_stowaways_ability() -> None:
    state = table(2, traitors={0: ["stowaway", "captain"], 1: ["shadow", "anarchist"]})
    state, _ = act(state, 0, "play_traitor", traitor="stowaway")
    state, _ = act(state, 0, "end_sequence")
    state, _ = act(state, 1, "play_traitor", traitor="shadow")
    state, _ = act(state, 1, "use_ability")
    assert state.seq is not None and state.seq.copied == "stowaway"
    state, _ = act(state, 1, "use_ability", traitor="captain")  # names a Traitor not yet played
    assert state.plays[1].identity == "captain" and ("captain", -1) in state.bans


def test_stowaway_taking_on_the_shadow_copies_the_traitor_played_before_the_stowaway() -> None:
    state = table(2, traitors={0: ["lookout", "captain"], 1: ["stowaway", "anarchist"]})
    state, _ = act(state, 0, "play_traitor", traitor="lookout")
    state, _ = act(state, 0, "end_sequence")
    state, _ = act(state, 1, "play_traitor", traitor="stowaway")
    state, _ = act(state, 1, "use_ability", traitor="shadow")
    state, events = act(state, 1, "use_ability")
    assert first(events, "AbilityUsed").body["source"] == "lookout"
    assert state.plays[1].identity == "lookout" and state.seq is not None and state.seq.copied == "lookout"

"""How the Traitors meet: protection taken on by copies, what protection does not cover, durations,
and the seed's worked example."""

from __future__ import annotations

import pytest

from services.games.errors import IllegalMove
from services.games.mad_zeppelin import GAME
from services.games.mad_zeppelin.tests.helpers import Rigged, act, first, table, types


def test_karl_steeling_is_blue_he_throws_only_when_a_die_shows_blue() -> None:
    """The seed's example: Karl Steeling has the colour Blue; on a blue die his player may throw."""
    state = table(2, traitors={0: ["captain", "guard"], 1: ["doctor", "lookout"]}, hands={0: ["wood"]},
                  dice=("red", "blue", "black"))
    after, _ = act(state, 0, "play_traitor", traitor="captain")
    after, _ = act(after, 0, "throw", card="wood")
    assert after.players[0].front == ("wood",)
    state = state._replace(dice=("red", "yellow", "green"))
    state, _ = act(state, 0, "play_traitor", traitor="captain")
    with pytest.raises(IllegalMove, match="no die shows blue"):
        act(state, 0, "throw", card="wood")


def test_councillor_does_not_stop_the_clairvoyant_or_the_doctor() -> None:
    state = table(3, traitors={0: ["councillor", "guard"], 1: ["clairvoyant", "lookout"], 2: ["doctor",
                                                                                              "anarchist"]})
    state, _ = act(state, 0, "play_traitor", traitor="councillor")
    state, _ = act(state, 0, "end_sequence")
    state, _ = act(state, 1, "play_traitor", traitor="clairvoyant")
    state, events = act(state, 1, "use_ability", look="player", seat=0)
    assert first(events, "TraitorsRevealed").body["traitors"] == ["guard"]
    state, _ = act(state, 1, "end_sequence")
    state, _ = act(state, 2, "play_traitor", traitor="doctor")
    state, _ = act(state, 2, "use_ability", traitor="guard")
    state, events = act(state, 2, "end_sequence")
    assert first(events, "SequenceSkipped").body == {"seat": 0, "traitors": ["guard"]}


def test_abilities_on_the_dice_touch_everyone_even_the_taster() -> None:
    state = table(2, traitors={0: ["taster", "guard"], 1: ["anarchist", "lookout"]}, hands={0: ["wood"]},
                  dice=("blue", "red", "red"))
    state, _ = act(state, 0, "play_traitor", traitor="taster")
    state, _ = act(state, 0, "end_sequence")
    state, _ = act(state, 1, "play_traitor", traitor="anarchist")
    state, _ = act(state, 1, "use_ability", die=0)
    assert state.dice[0] == "black"


@pytest.mark.parametrize("protector", ["councillor", "taster"])
def test_stowaway_taking_on_a_protector_protects_its_player(protector: str) -> None:
    state = table(2, traitors={0: ["stowaway", "guard"], 1: ["negotiator", "lookout"]}, hands={0: ["wood"]})
    state, _ = act(state, 0, "play_traitor", traitor="stowaway")
    state, _ = act(state, 0, "use_ability", traitor=protector)
    state, _ = act(state, 0, "end_sequence")
    state, _ = act(state, 1, "play_traitor", traitor="negotiator")
    with pytest.raises(IllegalMove, match="protected by"):
        act(state, 1, "use_ability", seat=0)


def test_shadow_taking_on_the_councillor_protects_its_player() -> None:
    state = table(3, traitors={0: ["councillor", "guard"], 1: ["shadow", "lookout"], 2: ["negotiator",
                                                                                         "doctor"]})
    state, _ = act(state, 0, "play_traitor", traitor="councillor")
    state, _ = act(state, 0, "end_sequence")
    state, _ = act(state, 1, "play_traitor", traitor="shadow")
    state, _ = act(state, 1, "use_ability")
    state, _ = act(state, 1, "end_sequence")
    state, _ = act(state, 2, "play_traitor", traitor="negotiator")
    assert [c for c in GAME.legal_commands(state, 2) if c.type == "use_ability"] == []


def test_two_captains_watching_one_traitor_each_steal_in_the_order_named() -> None:
    state = table(3, traitors={0: ["captain", "guard"], 1: ["shadow", "lookout"], 2: ["machinist", "doctor"]},
                  gold={2: 5})
    state, _ = act(state, 0, "play_traitor", traitor="captain")
    state, _ = act(state, 0, "use_ability", traitor="machinist")
    state, _ = act(state, 0, "end_sequence")
    state, _ = act(state, 1, "play_traitor", traitor="shadow")
    state, _ = act(state, 1, "use_ability")  # takes on the Captain
    state, _ = act(state, 1, "use_ability", traitor="machinist")
    state, _ = act(state, 1, "end_sequence")
    state, events = act(state, 2, "play_traitor", traitor="machinist")  # only Gold: taken at once
    assert [e.body["thief"] for e in events if e.type == "GoldStolen"] == [0, 1]
    assert state.players[2].gold == 5 - 2 + 1


def test_stowaway_ban_lasts_until_the_turn_ends() -> None:
    state = table(2, traitors={0: ["stowaway", "guard"], 1: ["lookout", "anarchist"]})
    state, _ = act(state, 0, "play_traitor", traitor="stowaway")
    state, _ = act(state, 0, "use_ability", traitor="anarchist")
    state, _ = act(state, 0, "end_sequence")
    state, _ = act(state, 1, "play_traitor", traitor="lookout")
    state, _ = act(state, 1, "end_sequence")
    state, _ = act(state, 0, "play_traitor", traitor="guard")
    state, events = act(state, 0, "end_sequence")
    assert first(events, "SequenceSkipped").body == {"seat": 1, "traitors": ["anarchist"]}
    assert "TurnStarted" in types(events)


def test_anarchist_black_die_stays_out_for_the_rest_of_the_turn_only() -> None:
    state = table(2, traitors={0: ["anarchist", "guard"], 1: ["lookout", "machinist"]})
    state, _ = act(state, 0, "play_traitor", traitor="anarchist")
    state, _ = act(state, 0, "use_ability", die=1)
    state, _ = act(state, 0, "end_sequence")
    state, _ = act(state, 1, "play_traitor", traitor="lookout")
    with pytest.raises(IllegalMove, match="die 1 is out"):
        act(state, 1, "use_ability", die=1)
    state, _ = act(state, 1, "end_sequence")
    state, _ = act(state, 0, "play_traitor", traitor="guard")
    assert state.dice[1] == "black" and state.round == 2
    state, _ = act(state, 0, "end_sequence")
    state, events = act(state, 1, "play_traitor", traitor="machinist")
    state, events = act(state, 1, "end_sequence", Rigged("green"))
    assert "TurnStarted" in types(events) and state.dice == ()  # a fresh roll comes after the draft


def test_lookout_rerolls_count_across_the_game_turn() -> None:
    state = table(2, traitors={0: ["lookout", "guard"], 1: ["shadow", "machinist"]})
    state, _ = act(state, 0, "play_traitor", traitor="lookout")
    state, _ = act(state, 0, "use_ability", Rigged("red"), die=0)
    state, _ = act(state, 0, "reroll", Rigged("red"), die=1)
    state, _ = act(state, 0, "end_sequence")
    state, _ = act(state, 1, "play_traitor", traitor="machinist")
    state, _ = act(state, 1, "end_sequence")
    assert state.players[0].rerolls == 2
    state, _ = act(state, 0, "play_traitor", traitor="guard")
    state, _ = act(state, 0, "end_sequence")
    state, _ = act(state, 1, "play_traitor", traitor="shadow")  # copies the Guard, not the Lookout
    state, events = act(state, 1, "use_ability")
    assert first(events, "AbilityUsed").body["copied"] == "guard"

"""The Captain and the Negotiator take Gold and Cargo; the Councillor and the Taster protect."""

from __future__ import annotations

import pytest

from services.games.errors import IllegalMove, NotYourTurn
from services.games.mad_zeppelin import GAME
from services.games.mad_zeppelin.state import State
from services.games.mad_zeppelin.tests.helpers import Rigged, act, first, table, types


def _captain_named(named: str, hands1: tuple[str, ...] = ("coal", "ore"), gold1: int = 3) -> State:
    """Seat 0 plays the Captain and names ``named``; seat 1 holds it and the Opportunist."""
    state = table(3,
                  traitors={0: ["captain", "anarchist"], 1: [named, "opportunist"], 2: ["lookout", "doctor"]},
                  hands={1: hands1}, gold={1: gold1})
    state, _ = act(state, 0, "play_traitor", traitor="captain")
    state, events = act(state, 0, "use_ability", traitor=named)
    assert first(events, "AbilityUsed").body == {"seat": 0, "ability": "captain", "traitor": named}
    state, _ = act(state, 0, "end_sequence")
    return state


def test_captain_steals_gold_or_cargo_after_the_named_traitor_is_played_before_the_search() -> None:
    state = _captain_named("guard")
    state, events = act(state, 1, "play_traitor", traitor="guard")
    assert types(events) == ["TraitorPlayed"]
    assert GAME.to_act(state) == {0} and [c.type for c in GAME.legal_commands(state, 0)] == ["steal", "steal"]
    gold0, gold1 = state.players[0].gold, state.players[1].gold
    state, events = act(state, 0, "steal", take="gold")
    assert types(events)[:2] == ["GoldStolen", "GoldTaken"]  # the Search comes after the steal
    assert state.players[0].gold == gold0 + 1 and state.players[1].gold == gold1 - 1 + 1


def test_captain_cargo_steal_is_a_random_card_seen_only_by_thief_and_victim() -> None:
    state = _captain_named("guard")
    state, _ = act(state, 1, "play_traitor", traitor="guard")
    state, events = act(state, 0, "steal", Rigged("ore"), take="cargo")
    stolen = first(events, "CargoStolen")
    assert stolen.body == {"thief": 0, "victim": 1, "card": "ore"}
    assert stolen.visible_to == (0, 1) and stolen.redacted == {"thief": 0, "victim": 1}
    assert "ore" in state.players[0].hand and "ore" not in state.players[1].hand


def test_captain_takes_what_there_is_when_the_victim_has_only_gold_or_nothing() -> None:
    state = _captain_named("guard", hands1=())
    state, events = act(state, 1, "play_traitor", traitor="guard")
    assert types(events)[1] == "GoldStolen"
    state = _captain_named("guard", hands1=(), gold1=0)
    state, events = act(state, 1, "play_traitor", traitor="guard")
    assert first(events, "StealMissed").body["reason"] == "nothing"


def test_captain_watch_lasts_until_the_turn_ends() -> None:
    state = _captain_named("machinist")
    state, _ = act(state, 1, "play_traitor", traitor="opportunist")
    state, _ = act(state, 1, "end_sequence")
    state, _ = act(state, 2, "play_traitor", traitor="lookout")
    state, _ = act(state, 2, "end_sequence")
    state, _ = act(state, 0, "play_traitor", traitor="anarchist")  # round 2
    state, _ = act(state, 0, "end_sequence")
    state, events = act(state, 1, "play_traitor", traitor="machinist")
    assert GAME.to_act(state) == {0}
    state, events = act(state, 0, "steal", take="gold")
    assert first(events, "GoldStolen").body == {"thief": 0, "victim": 1}


def test_captain_never_steals_from_his_own_player() -> None:
    state = table(3,
                  traitors={0: ["captain", "anarchist"], 1: ["guard", "machinist"], 2: ["lookout", "doctor"]})
    state, _ = act(state, 0, "play_traitor", traitor="captain")
    state, _ = act(state, 0, "use_ability", traitor="anarchist")
    for seat, traitor in ((0, None), (1, "guard"), (2, "lookout")):
        if traitor:
            state, _ = act(state, seat, "play_traitor", traitor=traitor)
        state, _ = act(state, seat, "end_sequence")
    state, events = act(state, 0, "play_traitor", traitor="anarchist")
    assert "GoldStolen" not in types(events) and "StealMissed" not in types(events)


@pytest.mark.parametrize("protector", ["councillor", "taster"])
def test_captain_steals_nothing_when_he_named_the_councillor_or_the_taster(protector: str) -> None:
    state = _captain_named(protector)
    gold = [p.gold for p in state.players]
    state, events = act(state, 1, "play_traitor", traitor=protector)
    assert first(events, "StealMissed").body == {"thief": 0, "victim": 1, "reason": protector}
    assert state.players[0].gold == gold[0]


def test_councillor_search_takes_two_gold_and_no_cargo() -> None:
    state = table(2, traitors={0: ["councillor", "guard"], 1: ["doctor", "lookout"]})
    state, events = act(state, 0, "play_traitor", traitor="councillor")
    assert first(events, "GoldTaken").body == {"seat": 0, "gold": 2, "reason": "search"}
    assert "CargoDrawn" not in types(events) and state.players[0].hand == ()


def test_councillor_ability_is_always_in_force_and_cannot_be_activated() -> None:
    state = table(2, traitors={0: ["councillor", "guard"], 1: ["doctor", "lookout"]})
    state, _ = act(state, 0, "play_traitor", traitor="councillor")
    with pytest.raises(IllegalMove, match="always in force"):
        act(state, 0, "use_ability")


def _negotiator_after(first_play: str, seats: int = 3) -> State:
    state = table(seats, traitors={0: [first_play, "doctor"], 1: ["negotiator", "lookout"],
                                   2: ["guard", "anarchist"]},
                  hands={0: ("coal", "wood")})
    state, _ = act(state, 0, "play_traitor", traitor=first_play)
    state, _ = act(state, 0, "end_sequence")
    state, _ = act(state, 1, "play_traitor", traitor="negotiator")
    return state


@pytest.mark.parametrize("protector", ["councillor", "taster"])
def test_councillor_and_taster_keep_the_negotiator_away(protector: str) -> None:
    state = _negotiator_after(protector)
    with pytest.raises(IllegalMove, match=f"seat 0 is protected by .*{protector.title()}"):
        act(state, 1, "use_ability", seat=0)
    targets = [c.body["seat"] for c in GAME.legal_commands(state, 1) if c.type == "use_ability"]
    assert targets == [2]


def test_negotiator_target_chooses_gold_or_a_cargo_card() -> None:
    state = _negotiator_after("machinist")
    state, events = act(state, 1, "use_ability", seat=0)
    assert GAME.to_act(state) == {0}
    assert sorted(str(c.body) for c in GAME.legal_commands(state, 0)) == sorted(
        str(b) for b in ({"what": "gold"}, {"what": "cargo", "card": "coal"},
                         {"what": "cargo", "card": "wood"})
    )
    with pytest.raises(NotYourTurn):
        act(state, 1, "end_sequence")
    after, events = act(state, 0, "give", what="cargo", card="coal")
    given = first(events, "CargoGiven")
    assert given.visible_to == (0, 1) and given.redacted == {"giver": 0, "receiver": 1}
    assert "coal" in after.players[1].hand and "coal" not in after.players[0].hand
    after, events = act(state, 0, "give", what="gold")
    assert after.players[1].gold == state.players[1].gold + 1 and GAME.to_act(after) == {1}


def test_negotiator_is_given_the_only_thing_there_is_or_nothing() -> None:
    state = _negotiator_after("machinist")
    state, events = act(state, 1, "use_ability", seat=2)  # seat 2: 3 Gold, no Cargo
    assert types(events)[-1] == "GoldGiven" and GAME.to_act(state) == {1}
    broke = table(3, traitors={0: ["machinist", "doctor"], 1: ["negotiator", "lookout"],
                               2: ["guard", "anarchist"]},
                  gold={2: 0})
    broke, _ = act(broke, 0, "play_traitor", traitor="machinist")
    broke, _ = act(broke, 0, "end_sequence")
    broke, _ = act(broke, 1, "play_traitor", traitor="negotiator")
    broke, events = act(broke, 1, "use_ability", seat=2)
    assert types(events)[-1] == "NothingGiven"


def test_negotiator_cannot_choose_himself() -> None:
    state = _negotiator_after("machinist")
    with pytest.raises(IllegalMove, match="not yourself"):
        act(state, 1, "use_ability", seat=1)


def test_protection_lasts_until_the_players_next_chance_to_play_a_traitor() -> None:
    state = table(2, traitors={0: ["councillor", "guard"], 1: ["negotiator", "clairvoyant"]},
                  hands={0: ("coal",)})
    state, _ = act(state, 0, "play_traitor", traitor="councillor")
    state, _ = act(state, 0, "end_sequence")
    state, _ = act(state, 1, "play_traitor", traitor="clairvoyant")
    state, _ = act(state, 1, "end_sequence")
    state, _ = act(state, 0, "play_traitor", traitor="guard")  # the Councillor's effect ends here
    state, _ = act(state, 0, "end_sequence")
    state, _ = act(state, 1, "play_traitor", traitor="negotiator")
    state, events = act(state, 1, "use_ability", seat=0)
    assert first(events, "AbilityUsed").body["target"] == 0


def test_taster_player_cannot_be_looked_at_by_the_clairvoyant() -> None:
    state = table(2, traitors={0: ["taster", "guard"], 1: ["clairvoyant", "doctor"]})
    state, _ = act(state, 0, "play_traitor", traitor="taster")
    state, _ = act(state, 0, "end_sequence")
    state, _ = act(state, 1, "play_traitor", traitor="clairvoyant")
    with pytest.raises(IllegalMove, match="Taster"):
        act(state, 1, "use_ability", look="player", seat=0)
    assert [c.body for c in GAME.legal_commands(state, 1) if c.type == "use_ability"] == [{"look": "unused"}]


@pytest.mark.parametrize("banner", ["doctor", "stowaway"])
def test_taster_holder_is_not_affected_by_a_ban_named_while_he_is_protected(banner: str) -> None:
    state = table(3, traitors={0: ["taster", "guard"], 1: [banner, "lookout"], 2: ["anarchist", "machinist"]})
    state, _ = act(state, 0, "play_traitor", traitor="taster")
    state, _ = act(state, 0, "end_sequence")
    state, _ = act(state, 1, "play_traitor", traitor=banner)
    state, _ = act(state, 1, "use_ability", traitor="guard")
    state, _ = act(state, 1, "end_sequence")
    state, _ = act(state, 2, "play_traitor", traitor="anarchist")
    state, _ = act(state, 2, "end_sequence")
    assert [c.body["traitor"] for c in GAME.legal_commands(state, 0)] == ["guard"]
    state, events = act(state, 0, "play_traitor", traitor="guard")
    assert first(events, "TraitorPlayed").body["traitor"] == "guard"

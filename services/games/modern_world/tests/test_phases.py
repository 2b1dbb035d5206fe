"""Modern World: production, resource, investment, build and end phases, money conversion, game end."""

from __future__ import annotations

import pytest

from services.games.errors import IllegalMove, NotYourTurn
from services.games.modern_world import flow
from services.games.modern_world.codec import res_ids, res_names
from services.games.modern_world.data import (
    ACTION,
    INFLUENCE,
    LABOR,
    MATERIALS,
    MONEY,
    RESEARCH,
    RESOURCE_INDEX,
    TOKENS,
    VICTORY,
)
from services.games.modern_world.flow import new_tape
from services.games.modern_world.state import Phase, State
from services.games.modern_world.tests.helpers import Dice, of_type, play, player, state, types

TEN = ["Government", "Science", "Agriculture", "Mining", "Finance",
       "Military", "Culture", "Media", "Oil", "Energy"]


# ---------------------------------------------------------------------------------------- production


def test_production_gives_baseline_plus_cards_in_play_plus_permanent_events() -> None:
    p = player(in_play=["Finance", "Military", "Media"], permanents=["Poverty", "Fast Growth"])
    s = state([p, player()], Phase.END, event_deck=["Trade War", "Pandemic"])
    f = new_tape(s, Dice())
    flow.start_turn(f)
    gains = of_type(f.events, "TokensProduced")[0].body["gains"]
    assert gains[0] == {"victory": 2, "influence": 13, "money": 7, "materials": 3, "labor": 4,
                        "research": 3, "action": 3}
    assert gains[1] == {"victory": 1, "influence": 10, "money": 4, "materials": 3, "labor": 3,
                        "research": 3, "action": 3}
    assert f.state.players[0].tokens[MONEY] == 7


def test_capacity_never_drops_below_zero() -> None:
    p = player(permanents=["Human Rights Abuses", "Minority Oppression"])
    assert p.capacity()[VICTORY] == 0
    s = state([p, player()], Phase.END, event_deck=["Trade War"])
    f = new_tape(s, Dice())
    flow.start_turn(f)
    assert "victory" not in of_type(f.events, "TokensProduced")[0].body["gains"][0]
    assert f.state.players[0].tokens[VICTORY] == 0


def test_permanent_event_changes_capacity_from_the_next_production_on() -> None:
    s = state([player(), player()], Phase.END, event_deck=["Entrepreneurship", "Trade War"])
    f = new_tape(s, Dice(picks=[1]))
    flow.start_turn(f)
    assert f.state.players[1].tokens[MONEY] == 4  # this turn's production came first
    assert f.state.players[1].capacity()[MONEY] == 5


# ---------------------------------------------------------------------------------------- game end


def test_game_ends_at_the_start_of_a_turn_when_the_resource_deck_is_empty() -> None:
    s = state([player(victory=4), player(victory=9)], Phase.END, deck=[], tableau=TEN)
    f = new_tape(s, Dice())
    flow.start_turn(f)
    assert types(f.events) == ["GameEnded"]
    assert f.state.phase == Phase.OVER and f.state.outcome is not None
    assert f.state.outcome.winners == (1,) and f.state.outcome.scores == (4, 9)
    assert f.state.outcome.detail["reason"] == "resource deck empty"


def test_game_ends_at_the_start_of_a_turn_when_the_event_deck_is_empty() -> None:
    s = state([player(victory=4), player(victory=2)], Phase.END, event_deck=[])
    f = new_tape(s, Dice())
    flow.start_turn(f)
    assert f.state.outcome is not None and f.state.outcome.detail["reason"] == "event deck empty"


def test_tied_most_victory_tokens_share_the_win() -> None:
    s = state([player(victory=7), player(victory=3), player(victory=7)], Phase.END, deck=[])
    f = new_tape(s, Dice())
    flow.start_turn(f)
    assert f.state.outcome is not None and f.state.outcome.winners == (0, 2)


# ---------------------------------------------------------------------------------------- resource


def resource_phase(*players: State | object, tableau: list[str] = TEN, deck: list[str] | None = None,
                   queue: tuple[int, ...] = (0, 1)) -> State:
    return state(list(players), Phase.RESOURCE, tableau=tableau, queue=queue,  # type: ignore[arg-type]
                 deck=["Law", "Water", "Cities"] if deck is None else deck)


def test_tableau_card_price_is_its_position_farthest_from_the_deck_costs_one() -> None:
    s = resource_phase(player(action=5, research=5), player())
    with pytest.raises(IllegalMove, match="position 4 costs 4"):
        play(s, 0, "buy", position=4, action=2, research=1)
    s, _ = play(s, 0, "buy", position=4, action=2, research=2)
    assert res_names(s.players[0].hand) == ["Mining"]


@pytest.mark.parametrize(("action", "research"), [(6, 0), (0, 6), (2, 4), (5, 1)])
def test_price_is_paid_in_any_mix_of_action_and_research(action: int, research: int) -> None:
    s = resource_phase(player(action=6, research=6), player())
    s, _ = play(s, 0, "buy", position=6, action=action, research=research)
    assert s.players[0].tokens[ACTION] == 6 - action and s.players[0].tokens[RESEARCH] == 6 - research


def test_cannot_buy_without_the_tokens() -> None:
    s = resource_phase(player(action=2, research=1), player())
    with pytest.raises(IllegalMove, match="cannot pay 2 action and 2 research"):
        play(s, 0, "buy", position=4, action=2, research=2)


def test_after_a_purchase_cards_slide_down_and_the_deck_refills_the_expensive_end() -> None:
    s = resource_phase(player(action=9, research=9), player())
    s, events = play(s, 0, "buy", position=3, action=3)
    assert res_names(s.tableau) == [*TEN[:2], *TEN[3:], "Law"]
    assert of_type(events, "CardBought")[0].body["refill"] == "Law"
    assert res_names(s.resource_deck) == ["Water", "Cities"]


def test_a_player_may_buy_several_cards_one_at_a_time_then_the_next_in_order_buys() -> None:
    s = resource_phase(player(action=9, research=9), player(action=1), queue=(1, 0))
    with pytest.raises(NotYourTurn):
        play(s, 0, "buy", position=1, action=1)
    s, _ = play(s, 1, "buy", position=1, action=1)
    s, _ = play(s, 1, "done")
    s, _ = play(s, 0, "buy", position=1, action=1)
    s, _ = play(s, 0, "buy", position=10, action=5, research=5)
    assert res_names(s.players[1].hand) == ["Government"]
    assert sorted(res_names(s.players[0].hand)) == ["Science", "Water"]  # Law was refilled, then Water


def test_empty_deck_leaves_gaps_at_the_expensive_end() -> None:
    s = resource_phase(player(action=9), player(), deck=[])
    s, events = play(s, 0, "buy", position=1, action=1)
    assert len(s.tableau) == 9 and of_type(events, "CardBought")[0].body["refill"] is None
    with pytest.raises(Exception, match="at most 9"):
        play(s, 0, "buy", position=10, action=10)


def test_resource_phase_ends_into_investment_in_turn_order() -> None:
    s = resource_phase(player(hand=["Finance"]), player(), queue=(0,))
    s, _ = play(s, 0, "done")
    assert s.phase == Phase.INVESTMENT and s.queue == (0,)  # seat 1 has no cards to invest


# ---------------------------------------------------------------------------------------- investment


def invest_one(card: str) -> dict[str, int]:
    s = state([player(hand=[card]), player()], Phase.INVESTMENT, queue=(0,))
    s, _ = play(s, 0, "invest", cards=[card])
    assert not s.players[0].hand and s.resource_discard == res_ids([card])
    return {TOKENS[i]: n for i, n in enumerate(s.players[0].tokens) if n}


def test_investing_military_gives_6_influence() -> None:
    assert invest_one("Military") == {"influence": 6}


def test_investing_finance_gives_12_money() -> None:
    assert invest_one("Finance") == {"money": 12}


def test_investing_industry_gives_3_materials_and_3_research() -> None:
    assert invest_one("Industry") == {"materials": 3, "research": 3}


def test_investing_several_cards_at_once_gives_three_times_each() -> None:
    s = state([player(hand=["Media", "Media", "Oil"]), player()], Phase.INVESTMENT, queue=(0,))
    s, events = play(s, 0, "invest", cards=["Media", "Oil"])
    assert of_type(events, "CardsInvested")[0].body["gains"] == {"victory": 3, "influence": 6, "money": 6}
    assert res_names(s.players[0].hand) == ["Media"]
    s, _ = play(s, 0, "invest", cards=["Media"])
    assert s.players[0].tokens[INFLUENCE] == 9


def test_investment_skipped_goes_to_trade() -> None:
    s = state([player(hand=["Media"]), player()], Phase.RESOURCE, queue=(0,), skipped=("investment",))
    s, events = play(s, 0, "done")
    assert s.phase == Phase.TRADE and {"phase": "investment", "seat": None} in [e.body for e in events]


# ---------------------------------------------------------------------------------------- build


def build_phase(*players: object, queue: tuple[int, ...] = (0,)) -> State:
    return state(list(players), Phase.BUILD, queue=queue)  # type: ignore[arg-type]


def test_first_build_costs_5_materials_and_5_labor() -> None:
    s = build_phase(player(hand=["Finance"], materials=5, labor=5), player())
    s, _ = play(s, 0, "build", card="Finance")
    assert res_names(s.players[0].in_play) == ["Finance"] and not s.players[0].hand
    assert s.players[0].tokens[MATERIALS] == 0 and s.players[0].tokens[LABOR] == 0


def test_build_costs_7_and_7_with_a_copy_already_in_play() -> None:
    s = build_phase(player(hand=["Finance"], in_play=["Finance"], materials=6, labor=9), player())
    with pytest.raises(IllegalMove, match="costs 7 materials and 7 labor"):
        play(s, 0, "build", card="Finance")
    s = build_phase(player(hand=["Finance"], in_play=["Finance"], materials=7, labor=9), player())
    s, _ = play(s, 0, "build", card="Finance")
    assert s.players[0].tokens[MATERIALS] == 0 and s.players[0].tokens[LABOR] == 2


def test_each_further_build_in_the_phase_costs_one_more_cumulative() -> None:
    s = build_phase(player(hand=["Finance", "Mining", "Finance"], materials=30, labor=30), player())
    costs = []
    for card in ["Mining", "Finance", "Finance"]:
        s, events = play(s, 0, "build", card=card)
        costs.append(of_type(events, "CardBuilt")[0].body["materials"])
    assert costs == [5, 6, 7 + 2]  # the third is a duplicate: 7 plus two earlier builds


def test_build_surcharge_is_per_player() -> None:
    first = player(hand=["Mining"], materials=9, labor=9)
    s = build_phase(first, player(hand=["Media"], materials=5, labor=5), queue=(0, 1))
    s, _ = play(s, 0, "build", card="Mining")
    s, _ = play(s, 0, "done")
    s, events = play(s, 1, "build", card="Media")
    assert of_type(events, "CardBuilt")[0].body["materials"] == 5


def test_cannot_build_a_card_not_in_hand() -> None:
    s = build_phase(player(hand=["Mining"], materials=9, labor=9), player())
    with pytest.raises(IllegalMove, match="you do not hold Finance"):
        play(s, 0, "build", card="Finance")


def test_civil_war_victim_skips_the_build_phase() -> None:
    s = state([player(hand=["Media"]), player(hand=["Media"])], Phase.TRADE, done=(1,), skip_build=(0,))
    s, events = play(s, 0, "done")
    assert s.phase == Phase.BUILD and s.queue == (1,)
    assert {"phase": "build", "seat": 0} in [e.body for e in of_type(events, "PhaseSkipped")]


# ---------------------------------------------------------------------------------------- end


def test_end_phase_discards_down_to_seven_choosing_which() -> None:
    hand = ["Media"] * 4 + ["Oil"] * 4 + ["Law"]
    s = state([player(hand=hand), player(hand=["Oil"])], Phase.END, queue=(0,))
    with pytest.raises(IllegalMove, match="discard exactly 2"):
        play(s, 0, "discard", cards=["Oil"])
    s, events = play(s, 0, "discard", cards=["Oil", "Law"])
    assert sorted(res_names(s.players[0].hand)) == sorted(["Media"] * 4 + ["Oil"] * 3)
    assert "TurnStarted" in types(events) and s.phase == Phase.LEADER


def test_end_phase_players_over_the_limit_discard_at_the_same_time() -> None:
    s = state([player(hand=["Oil"] * 8), player(hand=["Law"] * 9)], Phase.BUILD, queue=(1,))
    s, _ = play(s, 1, "done")
    assert s.phase == Phase.END and set(s.queue) == {0, 1}
    s, _ = play(s, 1, "discard", cards=["Law", "Law"])
    assert s.phase == Phase.END
    s, _ = play(s, 0, "discard", cards=["Oil"])
    assert s.phase == Phase.LEADER and s.turn == 2


def test_no_one_over_the_limit_goes_straight_to_the_next_turn() -> None:
    s = state([player(hand=["Oil"] * 7), player()], Phase.BUILD, queue=(0,))
    s, events = play(s, 0, "done")
    assert "TurnStarted" in types(events) and s.phase == Phase.LEADER


# ---------------------------------------------------------------------------------------- conversion


@pytest.mark.parametrize("into", ["victory", "influence", "materials", "labor", "research", "action"])
def test_three_money_convert_into_one_token_of_any_other_type(into: str) -> None:
    s = build_phase(player(money=7), player())
    s, events = play(s, 0, "convert", into=into, count=2)
    assert s.players[0].tokens[MONEY] == 1 and s.players[0].tokens[TOKENS.index(into)] == 2
    assert types(events) == ["MoneyConverted"]


def test_conversion_needs_three_money_per_token() -> None:
    s = build_phase(player(money=5), player())
    with pytest.raises(IllegalMove, match="needs 6 money; you have 5"):
        play(s, 0, "convert", into="victory", count=2)


def test_conversion_only_at_ones_own_decision() -> None:
    s = build_phase(player(), player(money=9))
    with pytest.raises(NotYourTurn):
        play(s, 1, "convert", into="victory")


def test_conversion_works_in_every_decision_phase() -> None:
    s = state([player(money=3), player()], Phase.LEADER, auction=None)
    from services.games.modern_world.tests.helpers import auction

    s = s._replace(auction=auction(None, 0))
    s, _ = play(s, 0, "convert", into="influence")
    assert s.players[0].tokens[INFLUENCE] == 1 and s.phase == Phase.LEADER
    assert RESOURCE_INDEX["Oil"] >= 0

"""Modern World: the event phase, one test (or more) per family of event cards."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from services.games.modern_world import flow
from services.games.modern_world.codec import event_names
from services.games.modern_world.data import (
    ACTION,
    EVENTS,
    INFLUENCE,
    LABOR,
    MATERIALS,
    MONEY,
    PERMANENT,
    RESEARCH,
    TOKEN_INDEX,
    VICTORY,
    EventCard,
)
from services.games.modern_world.flow import Flow, new_tape
from services.games.modern_world.happenings import resolve_event
from services.games.modern_world.state import Phase, Player
from services.games.modern_world.tests.helpers import Dice, of_type, player, state, types

FULL = {name: 12 for name in TOKEN_INDEX}


def resolve(card: str, players: list[Player], rolls: Sequence[int] = (), picks: Sequence[int] = ()) -> Flow:
    s = state(players, Phase.END, event_deck=[card, "Trade War"])
    f = new_tape(s, Dice(rolls, picks))
    resolve_event(f)
    return f


def rich() -> Player:
    return player(**FULL)


LOSE_ALL_BY_CAPACITY = [
    # card, highest?, capacity compared, token lost, card that raises that capacity
    ("Political Crisis", False, INFLUENCE, ACTION, "Military"),
    ("Foreign Insurgency", True, INFLUENCE, ACTION, "Military"),
    ("Food Crisis", False, LABOR, LABOR, "Agriculture"),
    ("Depression", False, MONEY, INFLUENCE, "Finance"),
    ("Social Revolution", False, RESEARCH, LABOR, "Science"),
    ("Territorial Dispute", False, MATERIALS, ACTION, "Mining"),
]


@pytest.mark.parametrize(("card", "highest", "capacity", "token", "booster"), LOSE_ALL_BY_CAPACITY)
def test_player_with_highest_or_lowest_capacity_loses_all_of_a_token(
    card: str, highest: bool, capacity: int, token: int, booster: str
) -> None:
    boosted = player(in_play=[booster], **FULL)
    plain = [player(in_play=[booster, booster], **FULL), boosted, player(**FULL)]
    hit = 1 if highest else 2
    if highest:
        plain = [player(**FULL), player(in_play=[booster, booster], **FULL), boosted]
    f = resolve(card, plain)
    assert [p.tokens[token] for p in f.state.players] == [12 if i != hit else 0 for i in range(3)]
    assert types(f.events) == ["EventFlipped", "TokensChanged", "EventDiscarded"]
    assert f.state.event_discard == (EVENTS.index(next(e for e in EVENTS if e.name == card)),)
    caps = [p.capacity()[capacity] for p in plain]
    assert caps[hit] == (max(caps) if highest else min(caps)) and caps.count(caps[hit]) == 1


def test_capacity_ties_are_broken_by_rolling_low_and_rerolling_ties() -> None:
    players = [player(**FULL), player(in_play=["Military"], **FULL), player(**FULL), player(**FULL)]
    # seats 0, 2, 3 tie for lowest influence capacity; 0 and 3 roll 2, then 0 rolls 5 and 3 rolls 4
    f = resolve("Political Crisis", players, rolls=[2, 6, 2, 5, 4])
    tie = of_type(f.events, "TieBroken")[0].body
    assert tie["tied"] == [0, 2, 3] and tie["seat"] == 3
    assert tie["rounds"] == [[[0, 2], [2, 6], [3, 2]], [[0, 5], [3, 4]]]
    assert [p.tokens[ACTION] for p in f.state.players] == [12, 12, 12, 0]


@pytest.mark.parametrize(("card", "booster"), [("Overpopulation", "Agriculture"), ("Pollution", "Mining")])
def test_player_with_highest_capacity_loses_10_victory_tokens_down_to_zero(card: str, booster: str) -> None:
    f = resolve(card, [player(victory=15), player(victory=4, in_play=[booster])])
    assert [p.tokens[VICTORY] for p in f.state.players] == [15, 0]
    assert of_type(f.events, "TokensChanged")[0].body["delta"] == -4
    f = resolve(card, [player(victory=15, in_play=[booster]), player(victory=4)])
    assert [p.tokens[VICTORY] for p in f.state.players] == [5, 4]


@pytest.mark.parametrize(
    ("card", "phase"),
    [("Trade War", "trade"), ("Stock Market Crash", "investment"), ("Global Economic Crisis", "market")],
)
def test_skip_phase_events_skip_that_phase_this_turn_only(card: str, phase: str) -> None:
    s = state([player(), player()], Phase.END, event_deck=[card, "Peace Talks", "Trade War"])
    f = new_tape(s, Dice(rolls=[1, 1]))
    flow.start_turn(f)
    assert f.state.skipped == (phase,)
    assert {"phase": phase, "seat": None} in [e.body for e in of_type(f.events, "SkipOrdered")]
    f = new_tape(f.state._replace(phase=Phase.END), f.rng)
    flow.start_turn(f)
    assert f.state.skipped == ()


def test_civil_war_lowest_research_capacity_skips_the_build_phase() -> None:
    f = resolve("Civil War", [player(in_play=["Science"]), player(), player(in_play=["Science"])])
    assert f.state.skip_build == (1,)
    assert of_type(f.events, "SkipOrdered")[0].body == {"phase": "build", "seat": 1}


@pytest.mark.parametrize(("card", "token"), [("Corruption", MONEY), ("Rebellion", ACTION)])
def test_random_player_loses_all_of_a_token(card: str, token: int) -> None:
    f = resolve(card, [player(**FULL), player(**FULL), player(**FULL)], picks=[2])
    assert of_type(f.events, "RandomPlayerChosen")[0].body == {"seat": 2}
    assert [p.tokens[token] for p in f.state.players] == [12, 12, 0]


PERMANENTS = [e for e in EVENTS if e.effect == PERMANENT]


@pytest.mark.parametrize("ev", PERMANENTS, ids=[e.name for e in PERMANENTS])
def test_random_player_is_saddled_with_a_permanent_capacity_change(ev: EventCard) -> None:
    f = resolve(ev.name, [player(), player()], picks=[1])
    p = f.state.players[1]
    assert event_names(p.permanents) == [ev.name]
    base = player().capacity()
    diff = [a - b for a, b in zip(p.capacity(), base, strict=True)]
    want = [0] * 7
    assert ev.token is not None
    want[ev.token] = ev.amount
    assert diff == want
    assert f.state.event_discard == () and f.state.current_event is None


def test_there_are_twenty_permanent_events_twelve_down_eight_up() -> None:
    assert len(PERMANENTS) == 20
    assert sorted(e.amount for e in PERMANENTS) == [-1] * 12 + [1] * 8


@pytest.mark.parametrize(
    ("card", "token"), [("Cyber Warfare", "action"), ("Pandemic", "labor"), ("Energy Crisis", "materials")]
)
def test_all_players_lose_1d6_rolled_for_each_never_below_zero(card: str, token: str) -> None:
    t = TOKEN_INDEX[token]
    players = [player(**{token: 5}), player(**{token: 2}), player(**{token: 6})]
    f = resolve(card, players, rolls=[3, 6, 1])
    assert [p.tokens[t] for p in f.state.players] == [2, 0, 5]
    assert [e.body["roll"] for e in of_type(f.events, "TokensChanged")] == [3, 6, 1]


def test_peace_talks_all_players_gain_1d6_victory() -> None:
    f = resolve("Peace Talks", [player(), player(victory=1)], rolls=[4, 2])
    assert [p.tokens[VICTORY] for p in f.state.players] == [4, 3]


@pytest.mark.parametrize(
    ("card", "token", "sign"),
    [
        ("Epidemic", "labor", -1),
        ("Natural Disaster", "action", -1),
        ("Man Made Disaster", "action", -1),
        ("Host Olympics", "victory", 1),
        ("Think Tank", "research", 1),
    ],
)
def test_random_player_gains_or_loses_1d6(card: str, token: str, sign: int) -> None:
    t = TOKEN_INDEX[token]
    f = resolve(card, [player(**FULL), player(**FULL)], rolls=[5], picks=[0])
    assert [p.tokens[t] for p in f.state.players] == [12 + sign * 5, 12]


def test_emerging_markets_adds_two_market_cards_this_turn() -> None:
    s = state([player(), player(), player()], Phase.END, event_deck=["Emerging Markets", "Trade War"])
    f = new_tape(s, Dice())
    flow.start_turn(f)
    assert f.state.extra_markets == 2
    f = new_tape(f.state._replace(auction=None), f.rng)
    flow.begin(f, Phase.MARKET)
    assert len(f.state.market_row) == 2 + 2


def test_every_event_card_resolves_and_is_discarded_unless_permanent() -> None:
    for card in EVENTS:
        f = resolve(card.name, [rich(), rich(), rich()], rolls=[3, 4, 5, 6, 1, 2] * 3, picks=[1])
        held = [c for p in f.state.players for c in p.permanents]
        assert len(f.state.event_discard) + len(held) == 1, card.name
        assert f.state.current_event is None
        assert all(n >= 0 for p in f.state.players for n in p.tokens)


def test_skip_build_is_cleared_next_turn() -> None:
    s = state([player(), player()], Phase.END, event_deck=["Trade War"], skip_build=(0,))
    f = new_tape(s, Dice())
    flow.start_turn(f)
    assert f.state.skip_build == ()

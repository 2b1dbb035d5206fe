"""Set-up: the Hold, the Safe, the opening draw and its Journey redraw, the first leader, the draft."""

from __future__ import annotations

import pytest

from services.games.base import Event
from services.games.errors import BadOptions, IllegalMove
from services.games.mad_zeppelin import GAME
from services.games.mad_zeppelin.data import AIRSICK_BY_SEATS, JOURNEY
from services.games.mad_zeppelin.state import State
from services.games.mad_zeppelin.tests.helpers import act, apply, check_conservation, first, types
from services.games.rng import derive_rng


def _start(seats: int, seed: int = 1, mode: str = "run") -> tuple[State, list[Event]]:
    events = GAME.setup({"mode": mode}, seats, derive_rng(seed, 0))
    return apply(GAME.initial(), events), events


def test_first_event_is_public_match_started_with_validated_options() -> None:
    events = GAME.setup({}, 4, derive_rng(3, 0))
    assert events[0].type == "MatchStarted" and events[0].is_public
    assert events[0].body == {"game": "mad-zeppelin", "seats": 4, "options": {"mode": "run"}}


@pytest.mark.parametrize(("mode", "target"), [("run", 20), ("long_haul", 30)])
def test_run_mode_is_20_points_and_long_haul_30(mode: str, target: int) -> None:
    state, _ = _start(3, mode=mode)
    assert state.target == target


@pytest.mark.parametrize(("seats", "removed"), [(2, 30), (3, 30), (4, 20), (5, 20), (6, 0)])
def test_cargo_removed_by_player_count(seats: int, removed: int) -> None:
    state, events = _start(seats)
    prepared = first(events, "HoldPrepared")
    assert prepared.visible_to == () and prepared.redacted == {"removed_count": removed,
                                                               "hold_count": 110 - removed}
    assert len(prepared.body["removed"]) == removed and JOURNEY not in prepared.body["removed"]
    assert prepared.body["hold"].count(JOURNEY) == 10
    assert len(state.removed) == removed
    check_conservation(state)


@pytest.mark.parametrize("seats", [2, 3, 4, 5, 6])
def test_safe_holds_30_gold_and_each_player_takes_3_and_one_cargo(seats: int) -> None:
    for seed in range(20):
        state, events = _start(seats, seed)
        returned = [e for e in events if e.type == "JourneyReturned"]
        for seat, p in enumerate(state.players):
            extra = sum(1 for e in returned if e.body["seat"] == seat)
            assert p.gold == 3 + extra and len(p.hand) == 1 and p.hand[0] != JOURNEY
        assert state.safe == 30 - sum(p.gold for p in state.players)


def test_journey_drawn_at_setup_goes_back_into_the_hold_pays_1_gold_and_the_player_draws_again() -> None:
    for seed in range(300):
        state, events = _start(2, seed)
        returned = [e for e in events if e.type == "JourneyReturned"]
        if returned:
            break
    else:  # pragma: no cover
        pytest.fail("no seed drew a Journey card at set-up")
    e = returned[0]
    assert e.visible_to == () and set(e.redacted or {}) == {"seat", "gold"} and e.body["gold"] == 1
    i = events.index(e)
    assert events[i + 1].type in ("JourneyReturned", "CargoDrawn")
    assert events[i + 1].body["seat"] == e.body["seat"]
    assert state.journeys == 0 and state.hold.count(JOURNEY) == 10


def test_opening_draw_is_private_to_the_drawer() -> None:
    _, events = _start(3)
    for e in events:
        if e.type == "CargoDrawn":
            assert e.visible_to == (e.body["seat"],) and e.redacted == {"seat": e.body["seat"]}


def test_first_leader_is_chosen_at_random_and_recorded() -> None:
    leaders = {first(_start(4, seed)[1], "TurnStarted").body["leader"] for seed in range(40)}
    assert leaders == {0, 1, 2, 3}


@pytest.mark.parametrize(("seats", "sick"), [(2, 4), (3, 4), (4, 2), (5, 2), (6, 1)])
def test_airsick_counts_by_player_count(seats: int, sick: int) -> None:
    _state, events = _start(seats)
    shuffled = first(events, "TraitorsShuffled")
    assert AIRSICK_BY_SEATS[seats] == sick and len(shuffled.body["airsick"]) == sick
    assert shuffled.visible_to == () and shuffled.redacted == {"airsick_count": sick,
                                                               "pool_count": 14 - sick - seats}


def test_one_traitor_dealt_to_each_player_from_the_leader_face_down() -> None:
    state, events = _start(4, seed=5)
    dealt = [e for e in events if e.type == "TraitorDealt"]
    leader = state.leader
    assert [e.body["seat"] for e in dealt] == [(leader + i) % 4 for i in range(4)]
    assert all(e.visible_to == (e.body["seat"],) and e.redacted == {"seat": e.body["seat"]} for e in dealt)


def test_draft_goes_from_the_leader_round_the_table_then_leader_sees_unused_traitors_and_rolls() -> None:
    state, _ = _start(3, seed=7)
    leader = state.leader
    drafters = []
    events: list[Event] = []
    while state.phase == "draft":
        seat = state.seat
        drafters.append(seat)
        state, events = act(state, seat, "draft", traitor=state.pool[0])
    assert drafters == [leader, (leader + 1) % 3, (leader + 2) % 3]
    assert all(len(p.traitors) == 2 for p in state.players)
    assert len(state.pool) == 14 - 4 - 6
    revealed = first(events, "TraitorsRevealed")
    assert revealed.visible_to == (leader,) and revealed.body["source"] == "leader"
    assert sorted(revealed.body["traitors"]) == sorted(state.airsick + state.pool)
    assert "DiceRolled" in types(events)


def test_draft_pick_must_come_from_the_pool() -> None:
    state, _ = _start(3, seed=7)
    held = state.players[state.seat].traitors[0]
    with pytest.raises(IllegalMove, match="not among the Traitors passed to you"):
        act(state, state.seat, "draft", traitor=held)


@pytest.mark.parametrize("options", [{"mode": "sprint"}, {"mode": "run", "extra": 1}, {"mode": 20}])
def test_bad_options_are_rejected(options: dict[str, object]) -> None:
    with pytest.raises(BadOptions, match="bad options"):
        GAME.setup(options, 3, derive_rng(1, 0))


@pytest.mark.parametrize("seats", [0, 1, 7])
def test_two_to_six_players(seats: int) -> None:
    with pytest.raises(BadOptions, match="2 to 6 players"):
        GAME.setup({}, seats, derive_rng(1, 0))

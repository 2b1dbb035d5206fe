"""Hidden information: a seat's view does not change when what it may not see changes.

States are sampled from random matches; each is varied in its hidden parts only - the Hold order,
the removed Cargo, another player's hand, another player's unplayed Traitors, the airsick and unchosen
Traitors - and the views of every seat that may not see the change are compared.
"""

from __future__ import annotations

import random

import pytest

from services.games.base import Event
from services.games.mad_zeppelin import GAME
from services.games.mad_zeppelin.state import State
from services.games.mad_zeppelin.tests.helpers import apply, sampled_states
from services.games.rng import derive_rng

STATES = sampled_states(25)


def _views(state: State, seats: list[int | None]) -> list[dict[str, object]]:
    return [GAME.view(state, seat) for seat in seats]


def _everyone(state: State) -> list[int | None]:
    return [None, *range(state.seats)]


def test_hold_order_and_removed_cargo_are_hidden_from_everyone() -> None:
    rng = random.Random(1)
    for state in STATES:
        hold = list(state.hold)
        rng.shuffle(hold)
        pile = hold + list(state.removed)
        varied = state._replace(hold=tuple(pile[: len(hold)]), removed=tuple(sorted(pile[len(hold):])))
        if "journey" in varied.removed:
            varied = state._replace(hold=tuple(hold))
        assert _views(varied, _everyone(state)) == _views(state, _everyone(state))


def test_another_players_hand_is_hidden() -> None:
    rng = random.Random(2)
    checked = 0
    for state in STATES:
        owners = [s for s, p in enumerate(state.players) if p.hand]
        cargo_in_hold = [i for i, c in enumerate(state.hold) if c != "journey"]
        if not owners or not cargo_in_hold:
            continue
        owner, i = rng.choice(owners), rng.choice(cargo_in_hold)
        p = state.players[owner]
        j = rng.randrange(len(p.hand))
        hand = tuple(sorted((*p.hand[:j], state.hold[i], *p.hand[j + 1:])))
        hold = (*state.hold[:i], p.hand[j], *state.hold[i + 1:])
        players = tuple(q._replace(hand=hand) if s == owner else q for s, q in enumerate(state.players))
        varied = state._replace(players=players, hold=hold)
        others = [s for s in _everyone(state) if s != owner]
        assert _views(varied, others) == _views(state, others)
        checked += 1
    assert checked > 100


def test_another_players_unplayed_traitors_and_the_unused_traitors_are_hidden() -> None:
    rng = random.Random(3)
    checked = 0
    for state in STATES:
        owners = [s for s, p in enumerate(state.players) if p.traitors]
        if not owners or not state.airsick:
            continue
        owner = rng.choice(owners)
        p = state.players[owner]
        j, k = rng.randrange(len(p.traitors)), rng.randrange(len(state.airsick))
        traitors = tuple(sorted((*p.traitors[:j], state.airsick[k], *p.traitors[j + 1:])))
        airsick = tuple(sorted((*state.airsick[:k], p.traitors[j], *state.airsick[k + 1:])))
        players = tuple(q._replace(traitors=traitors) if s == owner else q
                        for s, q in enumerate(state.players))
        varied = state._replace(players=players, airsick=airsick)
        if state.phase != "draft" and state.pool:  # after the draft the unchosen are as hidden as the airsick
            varied = varied._replace(pool=(varied.airsick[0], *varied.pool[1:]),
                                     airsick=(varied.pool[0], *varied.airsick[1:]))
        others = [s for s in _everyone(state) if s != owner]
        assert _views(varied, others) == _views(state, others)
        checked += 1
    assert checked > 100


def test_own_hand_and_traitors_are_visible_others_only_as_counts() -> None:
    for state in STATES[::10]:
        for seat in range(state.seats):
            view = GAME.view(state, seat)
            assert view["hand"] == list(state.players[seat].hand)
            assert [t["traitor"] for t in view["traitors"]] == list(state.players[seat].traitors)
            for other in view["players"]:
                assert set(other) >= {"hand_count", "unplayed_traitors"} and "hand" not in other
        spectator = GAME.view(state, None)
        assert spectator["hand"] is None and spectator["traitors"] is None and spectator["knowledge"] is None


def _secret_keys(event: Event) -> set[str]:
    return set(event.body) - set(event.redacted or {})


@pytest.mark.parametrize("seats", [2, 4, 6])
def test_secret_events_name_who_may_see_them_and_redact_the_rest(seats: int) -> None:
    expected = {
        "HoldPrepared": {"removed", "hold"}, "CargoDrawn": {"card"}, "JourneyReturned": {"position"},
        "TraitorsShuffled": {"airsick", "pool"}, "TraitorDealt": {"traitor"}, "TraitorDrafted": {"traitor"},
        "TraitorsRevealed": {"traitors"}, "CargoStolen": {"card"}, "CargoGiven": {"card"},
        "HoldTopSeen": {"cards"}, "HoldRearranged": {"order"},
    }
    seen: set[str] = set()
    for seed in range(30):
        pick = random.Random(seed)
        log = GAME.setup({}, seats, derive_rng(seed, 0))
        state = apply(GAME.initial(), log)
        while GAME.outcome(state) is None:
            command = pick.choice(GAME.legal_commands(state, min(GAME.to_act(state))))
            events = GAME.decide(state, command, derive_rng(seed, len(log)))
            state = apply(state, events)
            log += events
        for event in log:
            if event.visible_to is None:
                assert event.type not in expected, f"{event.type} should not be public"
                continue
            seen.add(event.type)
            assert _secret_keys(event) == expected[event.type], event
            if event.type in ("HoldPrepared", "TraitorsShuffled", "JourneyReturned"):
                assert event.visible_to == ()
    assert seen >= {"HoldPrepared", "CargoDrawn", "TraitorsShuffled", "TraitorDealt", "TraitorDrafted",
                    "TraitorsRevealed"}

"""Builders for Mad Zeppelin rule tests: a table set up directly, commands applied through decide."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from services.games.base import Command, Event
from services.games.mad_zeppelin import GAME
from services.games.mad_zeppelin.data import (
    AIRSICK_BY_SEATS,
    ALL_CARDS,
    CARGO_KINDS,
    JOURNEY,
    SAFE_GOLD,
    TARGETS,
    TRAITOR_KEYS,
)
from services.games.mad_zeppelin.state import Phase, Player, State
from services.games.rng import derive_rng

DECK = Counter(ALL_CARDS)
TRAITORS_SORTED = sorted(TRAITOR_KEYS)


class Rigged(random.Random):
    """An rng whose ``choice`` returns ``pick`` whenever it is among the options (die faces, cards)."""

    def __init__(self, pick: str) -> None:
        super().__init__(0)
        self.pick = pick

    def choice(self, seq: Sequence[Any]) -> Any:  # type: ignore[override]
        return self.pick if self.pick in seq else seq[0]


def table(
    seats: int = 3,
    *,
    traitors: Mapping[int, Sequence[str]],
    hands: Mapping[int, Sequence[str]] | None = None,
    gold: Mapping[int, int] | None = None,
    fronts: Mapping[int, Sequence[str]] | None = None,
    dice: Sequence[str] = ("blue", "yellow", "red"),
    hold_top: Sequence[str] = (),
    leader: int = 0,
    mode: str = "run",
    journeys: int = 0,
) -> State:
    """A table at the start of round 1 (the leader must play), every card and coin accounted for."""
    hands, gold, fronts = hands or {}, gold or {}, fronts or {}
    players = tuple(
        Player(gold=gold.get(s, 3), hand=tuple(sorted(hands.get(s, ()))),
               front=tuple(sorted(fronts.get(s, ()))), traitors=tuple(sorted(traitors.get(s, ()))))
        for s in range(seats)
    )
    held = {t for p in players for t in p.traitors}
    rest = [t for t in TRAITOR_KEYS if t not in held]
    sick = AIRSICK_BY_SEATS[seats]
    left = Counter(ALL_CARDS)
    left[JOURNEY] -= journeys
    for cards in (*[p.hand for p in players], *[p.front for p in players], hold_top):
        left.subtract(cards)
    assert all(n >= 0 for n in left.values()), "more cards than the game has"
    hold = tuple(hold_top) + tuple(k for k in (*CARGO_KINDS, JOURNEY) for _ in range(left[k]))
    return State(
        seats=seats, mode=mode, target=TARGETS[mode], phase=Phase.PLAY,
        safe=SAFE_GOLD - sum(p.gold for p in players),
        hold=hold, journeys=journeys, players=players, turn=1, leader=leader, round=1, seat=leader,
        airsick=tuple(rest[:sick]), pool=tuple(rest[sick:]), dice=tuple(dice), notes=((),) * seats,
    )


def act(
    state: State, who: int, kind: str, rng: random.Random | None = None, /, **body: Any
) -> tuple[State, list[Event]]:
    """Send one command through decide and apply its events."""
    events = GAME.decide(state, Command(who, kind, body), rng or random.Random(0))
    for event in events:
        state = GAME.evolve(state, event)
    return state, events


def apply(state: State, events: Sequence[Event]) -> State:
    for event in events:
        state = GAME.evolve(state, event)
    return state


def types(events: Sequence[Event]) -> list[str]:
    return [e.type for e in events]


def first(events: Sequence[Event], kind: str) -> Event:
    return next(e for e in events if e.type == kind)


def card_counts(state: State) -> Counter[str]:
    cards = [*state.hold, *state.removed, *state.discard]
    for p in state.players:
        cards += p.hand
        cards += p.front
    counts = Counter(cards)
    counts[JOURNEY] += state.journeys
    return counts


def check_conservation(state: State) -> None:
    """Gold: Safe + players = 30. Cards: every Cargo and Journey card somewhere. Traitors: all 14."""
    if state.seats == 0 or (state.phase == Phase.SETUP and not state.hold):
        return  # before the Hold is prepared
    assert state.safe + sum(p.gold for p in state.players) == SAFE_GOLD, "Gold not conserved"
    assert state.safe >= 0 and min(p.gold for p in state.players) >= 0, "negative Gold"
    assert dict.__eq__(card_counts(state), DECK), "cards not conserved"
    if state.phase in (Phase.ROLL, Phase.COLOURS, Phase.PLAY, Phase.ACTIONS, Phase.TURN_END):
        traitors = [*state.airsick, *state.pool, *(p.traitor for p in state.plays)]
        for p in state.players:
            traitors.extend(p.traitors)
        assert sorted(traitors) == TRAITORS_SORTED, "Traitors not conserved"


def sampled_states(matches: int, every: int = 7) -> list[State]:
    """States met every ``every`` steps of random matches (2-6 players)."""
    states = []
    for match in range(matches):
        seats = 2 + match % 5
        pick = random.Random(match)
        state = apply(GAME.initial(), GAME.setup({"mode": "run"}, seats, derive_rng(match, 0)))
        step = 0
        while GAME.outcome(state) is None:
            if step % every == 0:
                states.append(state)
            seat = min(GAME.to_act(state))
            command = pick.choice(GAME.legal_commands(state, seat))
            state = apply(state, GAME.decide(state, command, derive_rng(match, step + 1)))
            step += 1
    return states

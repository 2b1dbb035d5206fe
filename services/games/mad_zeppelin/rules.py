"""Pure helpers over the state: current Traitors, protection, bans, costs and scores."""

from __future__ import annotations

from collections.abc import Sequence

from services.games.mad_zeppelin.data import (
    ALCOHOL,
    BLACK,
    COST,
    CRATE_VALUE,
    LEVEL,
    POINTS,
    STRANGE,
    WHITE,
)
from services.games.mad_zeppelin.state import Play, State


def current_play(state: State, seat: int) -> Play | None:
    index = state.players[seat].current
    return state.plays[index] if index >= 0 else None


def identity(state: State, seat: int) -> str | None:
    play = current_play(state, seat)
    return play.identity if play is not None else None


def taster_protected(state: State, seat: int) -> bool:
    """Igor in force: other players' abilities do not affect this seat."""
    return identity(state, seat) == "taster"


def steal_protection(state: State, seat: int) -> str | None:
    """The Traitor that keeps this seat's Gold and Cargo from being stolen, if any."""
    who = identity(state, seat)
    return who if who in ("councillor", "taster") else None


def is_banned(state: State, seat: int, traitor: str) -> bool:
    return any(t == traitor and exempt != seat for t, exempt in state.bans)


def playable(state: State, seat: int) -> list[str]:
    traitors = state.players[seat].traitors
    if not state.bans:
        return list(traitors)
    return [t for t in traitors if not is_banned(state, seat, t)]


def can_play(state: State, seat: int) -> bool:
    """Whether ``seat`` holds a Traitor it may play (or must be skipped)."""
    traitors = state.players[seat].traitors
    if not state.bans:
        return bool(traitors)
    return any(not is_banned(state, seat, t) for t in traitors)


def played_traitors(state: State) -> set[str]:
    return {p.traitor for p in state.plays}


def dice_colours(state: State) -> set[str]:
    return {d for d in state.dice if d not in (BLACK, WHITE)}


def throw_cost(state: State, seat: int, card: str) -> int:
    """Gold owed to throw ``card``: printed cost less the Guard, each Alcohol in front, the Machinist."""
    who = identity(state, seat)
    if who == "machinist" and LEVEL[card] == 1:
        return 0
    discount = state.players[seat].front.count(ALCOHOL) + (1 if who == "guard" else 0)
    return max(0, COST[card] - discount)


def crates_redundant(crates: Sequence[str], cost: int) -> bool:
    """True when some crate is not needed: the others already cover ``cost`` (no change is given)."""
    if not crates:
        return False
    total = sum(CRATE_VALUE[c] for c in crates)
    return total - min(CRATE_VALUE[c] for c in crates) >= cost


def score(front: tuple[str, ...]) -> int:
    """Points of the cards in front of a player, with the four-level bonus."""
    level1 = sum(1 for c in front if LEVEL[c] == 1)
    points = sum(POINTS[c] for c in front) + front.count(STRANGE) * level1
    levels = {LEVEL[c] for c in front}
    return points + (1 if len(levels) == 4 else 0)


def scores(state: State) -> tuple[int, ...]:
    return tuple(score(p.front) for p in state.players)


def ranking(state: State, points: tuple[int, ...]) -> tuple[tuple[int, ...], bool]:
    """Winners and whether it is a draw: most points, then fewest Gold; still equal, a draw.

    Nobody wins when nobody has reached the target."""
    best = max(points)
    if best < state.target:
        return (), False
    top = [s for s in range(state.seats) if points[s] == best]
    least = min(state.players[s].gold for s in top)
    winners = tuple(s for s in top if state.players[s].gold == least)
    return winners, len(winners) > 1

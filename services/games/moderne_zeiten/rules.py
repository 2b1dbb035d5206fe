"""Pure rule helpers shared by decide, legal commands and views."""

from __future__ import annotations

from services.games.moderne_zeiten.data import N_INDUSTRIES, crash_limit
from services.games.moderne_zeiten.state import FINISH, STAY, UNCLAIMED, State


def payments(seats: int, payer: int, amount: int) -> list[int]:
    """What each seat receives: one bill at a time, from the payer's left neighbour round the table."""
    received = [0] * seats
    for bill in range(amount):
        received[(payer + 1 + bill % (seats - 1)) % seats] += 1
    return received


def takes_control(played: tuple[tuple[int, ...], ...], seat: int, industry: int, count: int) -> bool:
    """Whether ``count`` cards of ``industry`` in front of ``seat`` beat every other player's count."""
    return count > 0 and all(
        count > row[industry] for other, row in enumerate(played) if other != seat
    )


def next_space(s: State, seat: int, industry: int) -> int:
    """The first unclaimed space of ``industry`` ahead of the seat's Zeppelin; 0 if none."""
    here = s.position[seat]
    claims = s.claims
    for space in s.board.spaces_of[industry]:
        if space > here and claims[space - 1] == UNCLAIMED:
            return space
    return 0


def controlled(s: State, seat: int) -> list[int]:
    return [i for i in range(N_INDUSTRIES) if s.controller[i] == seat]


def move_choices(s: State, seat: int) -> tuple[int, ...]:
    """Where the seat's Zeppelin may go now, given what was played this turn.

    Industries (each to its next unclaimed space), FINISH, and STAY when staying is allowed.
    Empty when no move is possible. After a play of no cards (``move_needs_play`` off) the point
    of the turn was to move, so STAY is never offered then.
    """
    if s.move_needs_play and s.played_now == 0:
        return ()
    mine = controlled(s, seat)
    if not mine:
        return ()
    ahead = [i for i in mine if next_space(s, seat, i)]
    cities = ahead if s.big_left[seat] > 0 else []
    choices = list(cities)
    if not ahead:
        choices.append(FINISH)
    if not choices:
        return ()
    if s.played_now and (not s.forced_move or not cities):
        choices.append(STAY)
    return tuple(choices)


def without_finish(choices: tuple[int, ...]) -> tuple[int, ...]:
    """``choices`` after a crash checked before the move (``crash_after_move`` off): Finish is taken
    out, since a crash on the turn that ends the game is ignored, and without that crash he could not
    finish (a controlled space was ahead). Staying alone is no choice: then there is nothing to ask."""
    if FINISH not in choices:
        return choices
    rest = tuple(c for c in choices if c != FINISH)
    return () if rest == (STAY,) else rest


def crash_industries(s: State) -> list[int]:
    """The industries a market crash removes now, or [] when the counter is not above the limit."""
    totals = [sum(column) for column in zip(*s.played, strict=True)]
    if sum(totals) <= crash_limit(s.seats):
        return []
    top = max(totals)
    return [i for i in range(N_INDUSTRIES) if totals[i] == top]


def auto_move(choices: tuple[int, ...]) -> bool:
    """One compulsory city space: the move happens without asking."""
    return len(choices) == 1 and choices[0] < FINISH

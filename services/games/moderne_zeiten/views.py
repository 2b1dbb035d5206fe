"""What a seat (or a spectator) sees: everything public, plus the seat's own hand."""

from __future__ import annotations

from typing import Any

from services.games.moderne_zeiten.data import INDUSTRIES, N_INDUSTRIES, cards_of, crash_limit, tally
from services.games.moderne_zeiten.state import NOBODY, UNCLAIMED, Phase, State, choice_name


def _seat(value: int) -> int | None:
    return None if value == NOBODY else value


def _all(counts: tuple[int, ...]) -> dict[str, int]:
    return {INDUSTRIES[i]: counts[i] for i in range(N_INDUSTRIES)}


def view(s: State, seat: int | None) -> dict[str, Any]:
    board = s.board
    phase = s.phase
    own = seat is not None and 0 <= seat < s.seats
    players = [
        {
            "seat": p,
            "money": s.money[p],
            "hand_count": sum(s.hands[p]),
            "played": _all(s.played[p]),
            "position": s.position[p],
            "big_markers": s.big_left[p],
            "small_markers": s.big_left[p],
            "controls": [INDUSTRIES[i] for i in range(N_INDUSTRIES) if s.controller[i] == p],
        }
        for p in range(s.seats)
    ]
    auction = None
    if phase == Phase.AUCTION:
        auction = {
            "cards": cards_of(tally(s.lot)),
            "high_bid": s.high_bid,
            "high_bidder": _seat(s.high_bidder),
            "passed": [p for p in range(s.seats) if s.passed[p]],
            "bidder": _seat(s.bidder),
        }
    return {
        "phase": phase.value,  # the plain string: views are JSON and msgpack
        "options": {
            "forced_move": s.forced_move,
            "move_needs_play": s.move_needs_play,
            "crash_after_move": s.crash_after_move,
        },
        "round": s.round,
        "start_player": _seat(s.start_player),
        "current": _seat(s.current),
        "stack_count": len(s.stack),
        "counter": s.counter,
        "crash_limit": crash_limit(s.seats) if s.seats else 0,
        "controller": {INDUSTRIES[i]: _seat(s.controller[i]) for i in range(N_INDUSTRIES)},
        "players": players,
        "hand": _all(s.hands[seat]) if own and seat is not None else None,
        "auction": auction,
        "move_choices": [choice_name(c) for c in s.choices] if phase == Phase.MOVING else None,
        "track": [
            {
                "space": n,
                "city": board.cities[city],
                "industry": INDUSTRIES[industry],
                "claimed_by": None if claim == UNCLAIMED else claim,
            }
            for n, ((city, industry), claim) in enumerate(zip(board.track, s.claims, strict=False), start=1)
        ],
        "finish": board.finish,
        "city_points": dict(zip(board.cities, board.city_points, strict=True)),
        "industry_points": dict(zip(INDUSTRIES, board.industry_points, strict=True)),
        "ended_by": _seat(s.ender),
    }

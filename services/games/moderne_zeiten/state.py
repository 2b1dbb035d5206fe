"""The immutable state of a Moderne Zeiten match.

A NamedTuple of tuples: cheap to copy with ``_replace`` (made fast by
:func:`~services.games.kit.fast_replace`) and compared by value. Industries are indices into
:data:`~services.games.moderne_zeiten.data.INDUSTRIES`; cards are industry indices; seats are
0..seats-1 and "left" is the next seat up (wrapping round). :class:`Phase` says where the match is.
"""

from __future__ import annotations

import enum
from typing import NamedTuple

from services.games.kit import fast_replace
from services.games.moderne_zeiten.data import INDUSTRIES, INDUSTRY_INDEX, N_INDUSTRIES, PRINTED_BOARD, Board
from services.games.moderne_zeiten.schemas import PHASES

NOBODY = -1
UNCLAIMED = -1


class Phase(enum.StrEnum):
    """Where the match is. A ``str``: the view shows the value (``"auction"``)."""

    NEW = "new"  # before MatchStarted
    SETUP = "setup"  # cards being dealt
    AUCTION = "auction"  # bidding on the face-up cards
    TURN = "turn"  # the current player draws or plays
    MOVING = "moving"  # the current player chooses where his Zeppelin goes
    OVER = "over"


assert tuple(Phase) == PHASES, "Phase must list the wire contract's phases (schemas.py)"

# Move choices (besides an industry index 0..4).
FINISH = N_INDUSTRIES
STAY = N_INDUSTRIES + 1

NO_CARDS: tuple[int, ...] = (0,) * N_INDUSTRIES


@fast_replace
class State(NamedTuple):
    board: Board = PRINTED_BOARD
    phase: Phase = Phase.NEW
    seats: int = 0
    forced_move: bool = True
    move_needs_play: bool = True
    crash_after_move: bool = True
    stack: tuple[int, ...] = ()  # the share stack, top card first; hidden from everyone
    hands: tuple[tuple[int, ...], ...] = ()  # per seat, per industry: cards in hand
    played: tuple[tuple[int, ...], ...] = ()  # per seat, per industry: cards in front of him
    money: tuple[int, ...] = ()  # per seat, in millions
    big_left: tuple[int, ...] = ()  # per seat; small markers left always equal big markers left
    position: tuple[int, ...] = ()  # per seat: 0 Start, 1..30 a track space, board.finish Finish
    claims: tuple[int, ...] = ()  # per track space (space-1): the claiming seat or UNCLAIMED
    controller: tuple[int, ...] = (NOBODY,) * N_INDUSTRIES  # per industry
    start_player: int = NOBODY  # holder of the Business Initiative card
    round: int = 0
    lot: tuple[int, ...] = ()  # the face-up auction cards, in the order laid out
    high_bid: int = 0
    high_bidder: int = NOBODY
    passed: tuple[bool, ...] = ()  # per seat: out of the current auction
    bidder: int = NOBODY  # whose bid it is
    current: int = NOBODY  # whose turn it is
    turns_taken: int = 0  # turns finished in this round
    played_now: int = 0  # cards the current player played this turn
    choices: tuple[int, ...] = ()  # while MOVING: industries, FINISH and/or STAY
    ender: int = NOBODY  # who moved to Finish
    abandoned: bool = False  # ended early by the players (MatchAbandoned): no winner

    @property
    def counter(self) -> int:
        """The share counter: cards in front of all players."""
        return sum(map(sum, self.played))

    def left_of(self, seat: int) -> int:
        return (seat + 1) % self.seats

    @property
    def last_turn(self) -> bool:
        """Whether the turn being played is the round's last (every seat has one turn a round)."""
        return self.turns_taken + 1 >= self.seats


def choice_name(code: int) -> str | None:
    """A move choice on the wire: an industry key, "finish", or None (stay)."""
    if code == FINISH:
        return "finish"
    if code == STAY:
        return None
    return INDUSTRIES[code]


def choice_code(name: str | None) -> int:
    if name is None:
        return STAY
    if name == "finish":
        return FINISH
    return INDUSTRY_INDEX[name]

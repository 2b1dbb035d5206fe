"""The immutable state of a Mad Zeppelin match: named tuples and tuples only, and the phase.

Named tuples rather than frozen dataclasses: they are as immutable and compare by value, and
``_replace`` is several times faster than ``dataclasses.replace`` (evolve runs it on every event);
:func:`services.games.kit.fast_replace` makes it faster still. On the hottest paths (a card drawn, a
Traitor played, the Search, the ability and the throw) evolve builds a ``Player`` or a ``Sequence`` by
position, which costs about half a ``_replace``: a new field goes at the end, and those calls are
reviewed (``services/games/mad_zeppelin/tests/test_legal.py`` pins the field order)."""

from __future__ import annotations

import enum
from typing import NamedTuple

from services.games.kit import fast_replace
from services.games.mad_zeppelin.data import COLOUR_OF, SAFE_GOLD


class Phase(enum.StrEnum):
    """Where the match is. Views show the value (a plain string)."""

    SETUP = "setup"  # before MatchStarted and during the set-up
    TURN_START = "turn_start"  # a game turn ended without a winner: the next one starts
    DEAL = "deal"  # the Traitors are to be shuffled and dealt
    DRAFT = "draft"
    ROLL = "roll"  # the leader looks at the unused Traitors and rolls the dice
    COLOURS = "colours"  # the leader chooses colours for the white dice
    PLAY = "play"  # state.seat plays a Traitor (or is skipped)
    ACTIONS = "actions"  # state.seat's sequence (state.seq)
    TURN_END = "turn_end"
    OVER = "over"


# A piece of private knowledge a seat gained this turn: (kind, about seat or -1, cards or traitors).
# kinds: "unused" (airsick and unchosen Traitors), "traitors" (a player's unplayed Traitors),
# "hold_top" (the top of the Hold as seen / as put back by the Geologist).
Note = tuple[str, int, tuple[str, ...]]


@fast_replace
class Player(NamedTuple):
    gold: int = 0
    hand: tuple[str, ...] = ()  # Cargo cards in hand, sorted
    front: tuple[str, ...] = ()  # thrown Cargo and placed Alcohol, sorted
    traitors: tuple[str, ...] = ()  # unplayed Traitors held this turn, sorted
    current: int = -1  # index into State.plays of the current Traitor, -1 for none
    rerolls: int = 0  # Lookout re-rolls used this game turn


@fast_replace
class Play(NamedTuple):
    """A Traitor played this turn. ``identity``: whose colour and Ability it has now (its own at first;
    the Stowaway and the Shadow take on others')."""

    seat: int
    traitor: str
    identity: str

    @property
    def colour(self) -> str | None:
        return COLOUR_OF[self.identity]


@fast_replace
class Sequence(NamedTuple):
    """The current player's sequence (play, Search, two actions) and what interrupts it."""

    seat: int
    searched: bool = False
    ability_used: bool = False
    copied: str | None = None  # an ability taken on by the Stowaway/Shadow, awaiting use
    throw: int = 0  # 0: throw action not taken; 1: a second Opportunist throw may follow; 2: done
    arrange: int = 0  # cards the Geologist saw and must put back
    give: int = -1  # the seat that must give the Negotiator something, -1 for none
    steals: tuple[int, ...] = ()  # Captains' seats waiting to steal from this player, in order


ABANDONED = "abandoned"  # the end reason of a match its players ended early (MatchAbandoned)


@fast_replace
class State(NamedTuple):
    seats: int = 0
    mode: str = "run"
    target: int = 20
    phase: Phase = Phase.SETUP
    safe: int = SAFE_GOLD
    hold: tuple[str, ...] = ()  # top first
    removed: tuple[str, ...] = ()
    discard: tuple[str, ...] = ()  # mysterious crates given up as payment
    journeys: int = 0
    players: tuple[Player, ...] = ()
    turn: int = 0
    leader: int = 0
    round: int = 0
    seat: int = 0  # drafter in the draft; current player in play/actions
    airsick: tuple[str, ...] = ()
    pool: tuple[str, ...] = ()  # draft pool, then the unchosen Traitors
    dice: tuple[str, ...] = ()
    plays: tuple[Play, ...] = ()
    bans: tuple[tuple[str, int], ...] = ()  # (Traitor, seat exempted by the Taster or -1)
    watches: tuple[tuple[int, str], ...] = ()  # (Captain's seat, named Traitor)
    seq: Sequence | None = None
    notes: tuple[tuple[Note, ...], ...] = ()
    end_reason: str = ""
    final_scores: tuple[int, ...] = ()
    winners: tuple[int, ...] = ()
    draw: bool = False

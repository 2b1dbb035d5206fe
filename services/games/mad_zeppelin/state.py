"""The immutable state of a Mad Zeppelin match: named tuples and tuples only.

Named tuples rather than frozen dataclasses: they are as immutable and compare by value, and
``_replace`` is several times faster than ``dataclasses.replace`` (evolve runs it on every event).
The generic ``NamedTuple._replace`` is swapped for a hand-written one, about twice as fast."""

from __future__ import annotations

from typing import Any, NamedTuple, TypeVar

from services.games.mad_zeppelin.data import COLOUR_OF, SAFE_GOLD

# A piece of private knowledge a seat gained this turn: (kind, about seat or -1, cards or traitors).
# kinds: "unused" (airsick and unchosen Traitors), "traitors" (a player's unplayed Traitors),
# "hold_top" (the top of the Hold as seen / as put back by the Geologist).
Note = tuple[str, int, tuple[str, ...]]


class Player(NamedTuple):
    gold: int = 0
    hand: tuple[str, ...] = ()  # Cargo cards in hand, sorted
    front: tuple[str, ...] = ()  # thrown Cargo and placed Alcohol, sorted
    traitors: tuple[str, ...] = ()  # unplayed Traitors held this turn, sorted
    current: int = -1  # index into State.plays of the current Traitor, -1 for none
    rerolls: int = 0  # Lookout re-rolls used this game turn


class Play(NamedTuple):
    """A Traitor played this turn. ``identity``: whose colour and Ability it has now (its own at first;
    the Stowaway and the Shadow take on others')."""

    seat: int
    traitor: str
    identity: str

    @property
    def colour(self) -> str | None:
        return COLOUR_OF[self.identity]


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


class State(NamedTuple):
    seats: int = 0
    mode: str = "run"
    target: int = 20
    phase: str = "setup"  # setup, turn_start, deal, draft, roll, colours, play, actions, turn_end, over
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


T = TypeVar("T", bound=tuple[Any, ...])
_new_tuple = tuple.__new__


def _fast_replace(cls: type[T]) -> None:
    """Give the named tuple class ``cls`` a ``_replace`` about twice as fast as the generic one
    (``_make`` and its length check dominate the generic one; the fields are known here)."""
    index = {name: i for i, name in enumerate(cls._fields)}  # type: ignore[attr-defined]

    def _replace(self: T, **changes: Any) -> T:
        values = list(self)
        try:
            for name, value in changes.items():
                values[index[name]] = value
        except KeyError as e:
            raise ValueError(f"Got unexpected field names: {[n for n in changes if n not in index]!r}") from e
        return _new_tuple(cls, values)

    setattr(cls, "_replace", _replace)  # noqa: B010  (NamedTuple forbids defining _replace in the body)


for _cls in (Player, Play, Sequence, State):
    _fast_replace(_cls)

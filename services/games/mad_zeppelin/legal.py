"""Who must act now, and every command ``decide`` accepts from them (ability targets and payments included).

:func:`legal` is complete both ways: every command ``decide`` accepts is covered by one of its choices, and
every command a choice describes is accepted. Free fields are used where they describe exactly what is
accepted: the colour of a white die (``one_of``), the Traitor a Captain, Doctor or Stowaway names
(``one_of``), the Geologist's new order of the Hold (``order``), the crates that pay for a throw (``one_of``
the lists accepted, in every order they are accepted in). The rest are listed one by one.

A throw's ``crates`` has aliases: ``[]`` is the same as leaving it out, and the crates may come in any
order. :func:`legal` covers them all; :func:`canonical` lists each throw once (crates left out when
none are used, else sorted, as the view's sorted hands), which is what ``legal_commands`` expands for
search bots and action spaces (the commands of the old ``legal_commands``, in the same order).
"""

from __future__ import annotations

from itertools import permutations
from typing import Any, Final, NamedTuple

from schemas.legal import Choice, OneOf, Order
from services.games.base import Command
from services.games.errors import IllegalMove
from services.games.mad_zeppelin.abilities import ability_now, may_reroll
from services.games.mad_zeppelin.data import (
    ALCOHOL,
    BLACK,
    COLOURS,
    THROWABLE,
    TRAITOR_KEYS,
    WHITE,
)
from services.games.mad_zeppelin.flow import give_options
from services.games.mad_zeppelin.rules import (
    crates_redundant,
    current_play,
    dice_colours,
    playable,
    played_traitors,
    steal_protection,
    taster_protected,
    throw_cost,
)
from services.games.mad_zeppelin.state import Phase, Sequence, State

_DRAFT, _COLOURS, _PLAY, _ACTIONS = Phase.DRAFT, Phase.COLOURS, Phase.PLAY, Phase.ACTIONS

ACTIONS: Final = frozenset({"use_ability", "reroll", "throw", "end_sequence"})
_DRAFT_T: Final = frozenset({"draft"})
_COLOUR_T: Final = frozenset({"choose_colour"})
_PLAY_T: Final = frozenset({"play_traitor"})
_STEAL_T: Final = frozenset({"steal"})
_GIVE_T: Final = frozenset({"give"})
_ARRANGE_T: Final = frozenset({"arrange_hold"})
_NONE: Final[frozenset[str]] = frozenset()


def expected(state: State) -> tuple[int, frozenset[str], str]:
    """(seat that must act or -1, command types it may send, what it must do in words)."""
    phase = state.phase
    if phase == _DRAFT:
        return state.seat, _DRAFT_T, "draft a Traitor"
    if phase == _COLOURS:
        return state.leader, _COLOUR_T, "choose a colour for each white die"
    if phase == _PLAY:
        return state.seat, _PLAY_T, "play a Traitor"
    seq = state.seq
    if phase != _ACTIONS or seq is None:
        return -1, _NONE, "wait"
    if seq.steals:
        return seq.steals[0], _STEAL_T, f"choose to steal Gold or Cargo from seat {seq.seat}"
    if seq.give >= 0:
        return seq.give, _GIVE_T, f"give seat {seq.seat} 1 Gold or 1 Cargo card"
    if WHITE in state.dice:
        return seq.seat, _COLOUR_T, "choose a colour for the re-rolled white die"
    if seq.arrange:
        return seq.seat, _ARRANGE_T, "put the cards you looked at back on the Hold"
    return seq.seat, ACTIONS, "take your actions (use_ability, reroll, throw) or end_sequence"


def to_act(state: State) -> frozenset[int]:
    seat = expected(state)[0]
    return frozenset({seat}) if seat >= 0 else frozenset()


def legal(state: State, seat: int) -> list[Choice]:
    """Every command ``seat`` may send now, aliases of a throw's crates included."""
    return [option.choice() for option in _options(state, seat, every=True)]


def canonical(state: State, seat: int) -> list[Choice]:
    """The commands of :func:`legal`, each once in one form (no aliases of a throw's crates)."""
    return [option.choice() for option in _options(state, seat, every=False)]


def canonical_commands(state: State, seat: int) -> list[Command]:
    """``commands_of(canonical(state, seat), seat)``, built without the choice models: every choice here
    has at most 14 commands (``commands_of`` lists all of a choice up to 48), and this runs at every step
    of a search bot's playouts. ``services/games/mad_zeppelin/tests/test_legal.py`` checks the two agree."""
    return [Command(seat, option.type, body) for option in _options(state, seat, every=False)
            for body in option.bodies()]


class _Option(NamedTuple):
    """A choice as the rules build it: a command, or one free field (``one_of`` its values, or an
    ``order`` of its items). Turned into a :class:`Choice` for ``legal``, expanded for ``legal_commands``."""

    type: str
    body: dict[str, Any]
    name: str = ""  # the free field, "" for none
    values: list[Any] = []  # one_of: the values; order: the items (unused without a free field)
    order: bool = False

    def choice(self) -> Choice:
        # model_construct: the values are the game's own, valid by construction (validating them would
        # cost more than building them)
        if not self.name:
            return Choice.model_construct(type=self.type, body=self.body, free={})
        spec = (Order.model_construct(kind="order", items=self.values) if self.order
                else OneOf.model_construct(kind="one_of", values=self.values))
        return Choice.model_construct(type=self.type, body=self.body, free={self.name: spec})

    def bodies(self) -> list[dict[str, Any]]:
        if not self.name:
            return [dict(self.body)]
        values = [list(p) for p in permutations(self.values)] if self.order else self.values
        return [{**self.body, self.name: value} for value in values]


def _options(state: State, seat: int, every: bool) -> list[_Option]:
    who, types, _ = expected(state)
    if seat != who:
        return []
    if types is _DRAFT_T:
        return [_Option("draft", {"traitor": t}) for t in state.pool]
    if types is _COLOUR_T:
        return [_Option("choose_colour", {"die": d}, "colour", list(COLOURS))
                for d, face in enumerate(state.dice) if face == WHITE]
    if types is _PLAY_T:
        return [_Option("play_traitor", {"traitor": t}) for t in playable(state, seat)]
    seq = state.seq
    if seq is None:
        return []
    if types is _STEAL_T:
        return [_Option("steal", {"take": "gold"}), _Option("steal", {"take": "cargo"})]
    if types is _GIVE_T:
        return [_Option("give", {"what": "gold"} if o == "gold" else {"what": "cargo", "card": o})
                for o in give_options(state, seat)]
    if types is _ARRANGE_T:
        return [_Option("arrange_hold", {}, "order", list(range(seq.arrange)), order=True)]
    return [*_abilities(state, seat), *_rerolls(state, seat, seq), *_throws(state, seat, seq, every),
            _Option("end_sequence", {})]


def _dice_in(state: State) -> list[int]:
    return [d for d, face in enumerate(state.dice) if face != BLACK]


def _abilities(state: State, seat: int) -> list[_Option]:
    try:
        ability = ability_now(state, seat)
    except IllegalMove:
        return []
    if ability in ("captain", "doctor"):
        return [_Option("use_ability", {}, "traitor", list(TRAITOR_KEYS))]
    if ability == "stowaway":
        played = played_traitors(state)
        names = [t for t in TRAITOR_KEYS if t not in played]
        return [_Option("use_ability", {}, "traitor", names)] if names else []
    bodies: list[dict[str, Any]] = []
    others = [s for s in range(state.seats) if s != seat]
    if ability == "shadow":
        index = state.players[seat].current
        if index > 0 and state.plays[index - 1].identity != "shadow":
            bodies = [{}]
    elif ability == "lookout":
        if state.seq is not None and may_reroll(state, seat, state.seq, True) is None:
            bodies = [{"die": d} for d in _dice_in(state)]
    elif ability == "anarchist":
        bodies = [{"die": d} for d in _dice_in(state)]
    elif ability == "clairvoyant":
        bodies = [{"look": "unused"}]
        bodies += [{"look": "player", "seat": s} for s in others if not taster_protected(state, s)]
    elif ability == "negotiator":
        bodies = [{"seat": s} for s in others if steal_protection(state, s) is None]
    elif ability == "geologist":
        bodies = [{}]
    return [_Option("use_ability", body) for body in bodies]


def _rerolls(state: State, seat: int, seq: Sequence) -> list[_Option]:
    if may_reroll(state, seat, seq, False) is not None:
        return []
    return [_Option("reroll", {"die": d}) for d in _dice_in(state)]


def _throws(state: State, seat: int, seq: Sequence, every: bool) -> list[_Option]:
    """Alcohol, then each throwable kind in hand: paid in Gold alone (crates left out), then with crates."""
    if seq.throw == 2:
        return []
    player = state.players[seat]
    hand = player.hand
    out: list[_Option] = []
    if ALCOHOL in hand:
        out.append(_Option("throw", {"card": ALCOHOL}))
        if every:
            out.append(_Option("throw", {"card": ALCOHOL, "crates": []}))
    play = current_play(state, seat)
    if play is None or play.colour not in dice_colours(state):
        return out
    smalls, bigs = hand.count("small_crate"), hand.count("big_crate")
    for card in sorted(set(hand) & THROWABLE):
        cost = throw_cost(state, seat, card)
        by_gold = cost <= player.gold
        if by_gold:
            out.append(_Option("throw", {"card": card}))
        paid = _crate_payments(cost, player.gold, bigs, smalls)
        if every:
            orders = [list(p) for crates in paid for p in _orderings(crates)]
            if by_gold:
                orders.insert(0, [])
            if len(orders) == 1:
                out.append(_Option("throw", {"card": card, "crates": orders[0]}))
            elif orders:
                out.append(_Option("throw", {"card": card}, "crates", orders))
        elif paid:
            out.append(_Option("throw", {"card": card}, "crates", paid))
    return out


def _crate_payments(cost: int, gold: int, bigs: int, smalls: int) -> list[list[str]]:
    """Every way to pay part of ``cost`` with crates (sorted, the big first) that ``decide`` accepts: the
    crates are in hand, none is needed by the others alone (no change is given), the Gold left is there.
    Two big or four small crates pay the dearest throw (4 Gold), so no more are ever accepted."""
    out: list[list[str]] = []
    for b in range(min(bigs, 2) + 1):
        for s in range(min(smalls, 4) + 1):
            crates = ["big_crate"] * b + ["small_crate"] * s
            if crates and not crates_redundant(crates, cost) and cost - 2 * b - s <= gold:
                out.append(crates)
    return out


def _orderings(crates: list[str]) -> list[tuple[str, ...]]:
    """Every distinct order of a list of crates (it is sorted; at most four crates)."""
    return sorted(set(permutations(crates))) if len(set(crates)) > 1 else [tuple(crates)]


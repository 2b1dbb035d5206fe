"""The ability action: which ability a player may use now, and the events each one causes."""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from typing import Any

from services.games.base import Event
from services.games.errors import BadCommand, IllegalMove
from services.games.fields import int_field, str_field
from services.games.mad_zeppelin.data import (
    ABILITY_FIELDS,
    BLACK,
    FACES,
    GEOLOGIST_LOOK,
    NAME_OF,
    REROLLS_PER_TURN,
    STANDING,
    TRAITOR_KEYS,
)
from services.games.mad_zeppelin.rules import (
    current_play,
    played_traitors,
    steal_protection,
    taster_protected,
)
from services.games.mad_zeppelin.state import Play, Sequence, State

Body = Mapping[str, Any]


def ability_now(state: State, seat: int) -> str:
    """The ability ``seat`` may use with use_ability now, or IllegalMove saying why none."""
    seq, play = state.seq, current_play(state, seat)
    if seq is None or play is None:
        raise IllegalMove("you have no current Traitor")
    if seq.copied is not None:
        return seq.copied
    if play.traitor in STANDING:
        name = NAME_OF[play.traitor]
        raise IllegalMove(f"{name}'s ability is always in force: there is nothing to activate")
    if seq.ability_used:
        raise IllegalMove("you have already used your Traitor's ability in this sequence")
    return play.identity


def use_ability(state: State, seat: int, body: Body, rng: random.Random) -> list[Event]:
    ability = ability_now(state, seat)
    allowed = ABILITY_FIELDS[ability]
    extra = sorted(str(k) for k in body if k not in allowed)
    if extra:
        takes = ", ".join(sorted(allowed)) or "no fields"
        raise BadCommand(f"the {ability}'s ability takes {takes}; unexpected: {', '.join(extra)}")
    return USES[ability](state, seat, body, rng)


def _used(seat: int, ability: str, **details: Any) -> Event:
    return Event("AbilityUsed", {"seat": seat, "ability": ability, **details})


def _named(body: Body) -> str:
    return str_field(body, "traitor", TRAITOR_KEYS)


def _die(state: State, body: Body) -> int:
    die = int_field(body, "die", 0, len(state.dice) - 1)
    if state.dice[die] == BLACK:
        raise IllegalMove(f"die {die} is out for this turn")
    return die


def _other_seat(state: State, seat: int, body: Body) -> int:
    target = int_field(body, "seat", 0, state.seats - 1)
    if target == seat:
        raise IllegalMove("choose another player, not yourself")
    return target


def _captain(state: State, seat: int, body: Body, rng: random.Random) -> list[Event]:
    return [_used(seat, "captain", traitor=_named(body))]


def _doctor(state: State, seat: int, body: Body, rng: random.Random) -> list[Event]:
    return [_used(seat, "doctor", traitor=_named(body))]


def _stowaway(state: State, seat: int, body: Body, rng: random.Random) -> list[Event]:
    traitor = _named(body)
    if traitor in played_traitors(state):
        raise IllegalMove(f"{NAME_OF[traitor]} has already been played this turn")
    return [_used(seat, "stowaway", traitor=traitor)]


def _shadow(state: State, seat: int, body: Body, rng: random.Random) -> list[Event]:
    index = state.players[seat].current
    if index == 0:
        raise IllegalMove("no Traitor was played before him this turn: there is nothing to copy")
    source: Play = state.plays[index - 1]
    if source.identity == "shadow":
        raise IllegalMove(f"{NAME_OF[source.traitor]} has no colour or Ability to copy")
    return [_used(seat, "shadow", source=source.traitor, copied=source.identity)]


def _lookout(state: State, seat: int, body: Body, rng: random.Random) -> list[Event]:
    return [_used(seat, "lookout", die=_die(state, body)), reroll_event(state, seat, body, rng)]


def may_reroll(state: State, seat: int, seq: Sequence, in_ability: bool) -> str | None:
    """Why ``seat`` may not re-roll now, or None when it may."""
    if not in_ability:
        play = current_play(state, seat)
        if play is None or play.identity != "lookout" or not seq.ability_used or seq.copied is not None:
            return "only the Lookout's ability, once used, lets you re-roll"
    if seq.throw:
        return "re-rolls come before your throw, and you have thrown already"
    if state.players[seat].rerolls >= REROLLS_PER_TURN:
        return f"you have re-rolled {REROLLS_PER_TURN} times this game turn already"
    return None


def reroll_event(state: State, seat: int, body: Body, rng: random.Random, in_ability: bool = True) -> Event:
    int_field(body, "die", 0, len(state.dice) - 1)  # a malformed die is a bad command first
    if state.seq is None:
        raise IllegalMove("you are not in your sequence")
    reason = may_reroll(state, seat, state.seq, in_ability)
    if reason:
        raise IllegalMove(reason)
    return Event("DieRerolled", {"seat": seat, "die": _die(state, body), "face": rng.choice(FACES)})


def _anarchist(state: State, seat: int, body: Body, rng: random.Random) -> list[Event]:
    return [_used(seat, "anarchist", die=_die(state, body))]


def _clairvoyant(state: State, seat: int, body: Body, rng: random.Random) -> list[Event]:
    look = str_field(body, "look", ("unused", "player"))
    if look == "unused":
        if "seat" in body:
            raise BadCommand("'seat' only goes with look 'player'")
        target, traitors = None, sorted(state.airsick + state.pool)
    else:
        target = _other_seat(state, seat, body)
        if taster_protected(state, target):
            raise IllegalMove(f"seat {target} is under the Taster's protection: abilities do not affect them")
        traitors = list(state.players[target].traitors)
    seen = {"seat": seat, "source": "clairvoyant", "of": target}
    return [
        _used(seat, "clairvoyant", look=look, target=target),
        Event("TraitorsRevealed", {**seen, "traitors": traitors}, visible_to=(seat,), redacted=seen),
    ]


def _negotiator(state: State, seat: int, body: Body, rng: random.Random) -> list[Event]:
    target = _other_seat(state, seat, body)
    guard = steal_protection(state, target)
    if guard is not None:
        name = NAME_OF[guard]
        raise IllegalMove(f"seat {target} is protected by {name}: you cannot take their Gold or Cargo")
    return [_used(seat, "negotiator", target=target)]


def _geologist(state: State, seat: int, body: Body, rng: random.Random) -> list[Event]:
    cards = list(state.hold[:GEOLOGIST_LOOK])
    return [
        _used(seat, "geologist"),
        Event("HoldTopSeen", {"seat": seat, "cards": cards, "count": len(cards)}, visible_to=(seat,),
              redacted={"seat": seat, "count": len(cards)}),
    ]


USES: dict[str, Callable[[State, int, Body, random.Random], list[Event]]] = {
    "captain": _captain,
    "doctor": _doctor,
    "stowaway": _stowaway,
    "shadow": _shadow,
    "lookout": _lookout,
    "anarchist": _anarchist,
    "clairvoyant": _clairvoyant,
    "negotiator": _negotiator,
    "geologist": _geologist,
}

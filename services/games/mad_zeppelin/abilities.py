"""The ability action: which ability a player may use now, and the events each one causes."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from services.games.base import Event
from services.games.errors import BadCommand, IllegalMove
from services.games.mad_zeppelin.data import (
    ABILITY_FIELDS,
    BLACK,
    FACES,
    GEOLOGIST_LOOK,
    NAME_OF,
    REROLLS_PER_TURN,
    STANDING,
)
from services.games.mad_zeppelin.rules import (
    current_play,
    played_traitors,
    steal_protection,
    taster_protected,
)
from services.games.mad_zeppelin.schemas import UseAbilityCommand
from services.games.mad_zeppelin.state import Play, Sequence, State
from services.games.tape import Tape


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


def use_ability(tape: Tape[State], seat: int, cmd: UseAbilityCommand) -> None:
    state = tape.state
    ability = ability_now(state, seat)
    allowed = ABILITY_FIELDS[ability]
    sent = cmd.model_fields_set
    if not sent <= allowed:
        takes = ", ".join(sorted(allowed)) or "no fields"
        raise BadCommand(f"the {ability}'s ability takes {takes}; unexpected: {', '.join(sorted(sent - allowed))}")
    USES[ability](tape, state, seat, cmd)


def _used(tape: Tape[State], seat: int, ability: str, **details: Any) -> None:
    tape.emit("AbilityUsed", {"seat": seat, "ability": ability, **details})


def _named(cmd: UseAbilityCommand) -> str:
    if cmd.traitor is None:
        raise BadCommand("'traitor': name a Traitor")
    return cmd.traitor


def _die(state: State, die: int | None) -> int:
    if die is None:
        raise BadCommand("'die': say which die (0, 1 or 2)")
    if state.dice[die] == BLACK:
        raise IllegalMove(f"die {die} is out for this turn")
    return die


def _other_seat(state: State, seat: int, cmd: UseAbilityCommand) -> int:
    target = cmd.seat
    if target is None:
        raise BadCommand("'seat': say which player")
    if target >= state.seats:
        raise BadCommand(f"'seat': there is no seat {target} in this match (0 to {state.seats - 1})")
    if target == seat:
        raise IllegalMove("choose another player, not yourself")
    return target


def _captain(tape: Tape[State], state: State, seat: int, cmd: UseAbilityCommand) -> None:
    _used(tape, seat, "captain", traitor=_named(cmd))


def _doctor(tape: Tape[State], state: State, seat: int, cmd: UseAbilityCommand) -> None:
    _used(tape, seat, "doctor", traitor=_named(cmd))


def _stowaway(tape: Tape[State], state: State, seat: int, cmd: UseAbilityCommand) -> None:
    traitor = _named(cmd)
    if traitor in played_traitors(state):
        raise IllegalMove(f"{NAME_OF[traitor]} has already been played this turn")
    _used(tape, seat, "stowaway", traitor=traitor)


def _shadow(tape: Tape[State], state: State, seat: int, cmd: UseAbilityCommand) -> None:
    index = state.players[seat].current
    if index == 0:
        raise IllegalMove("no Traitor was played before him this turn: there is nothing to copy")
    source: Play = state.plays[index - 1]
    if source.identity == "shadow":
        raise IllegalMove(f"{NAME_OF[source.traitor]} has no colour or Ability to copy")
    _used(tape, seat, "shadow", source=source.traitor, copied=source.identity)


def _lookout(tape: Tape[State], state: State, seat: int, cmd: UseAbilityCommand) -> None:
    die = _die(state, cmd.die)
    reroll = reroll_event(state, seat, die, tape.rng)
    _used(tape, seat, "lookout", die=die)
    tape.extend([reroll])


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


def reroll_event(state: State, seat: int, die: int, rng: random.Random, in_ability: bool = True) -> Event:
    """The DieRerolled event of a re-roll of ``die`` (the Lookout's ability or the ``reroll`` command)."""
    if state.seq is None:
        raise IllegalMove("you are not in your sequence")
    reason = may_reroll(state, seat, state.seq, in_ability)
    if reason:
        raise IllegalMove(reason)
    return Event("DieRerolled", {"seat": seat, "die": _die(state, die), "face": rng.choice(FACES)})


def _anarchist(tape: Tape[State], state: State, seat: int, cmd: UseAbilityCommand) -> None:
    _used(tape, seat, "anarchist", die=_die(state, cmd.die))


def _clairvoyant(tape: Tape[State], state: State, seat: int, cmd: UseAbilityCommand) -> None:
    look = cmd.look
    if look is None:
        raise BadCommand("'look': say 'unused' (the airsick and unchosen Traitors) or 'player' (with seat)")
    if look == "unused":
        if "seat" in cmd.model_fields_set:
            raise BadCommand("'seat' only goes with look 'player'")
        target, traitors = None, sorted(state.airsick + state.pool)
    else:
        target = _other_seat(state, seat, cmd)
        if taster_protected(state, target):
            raise IllegalMove(f"seat {target} is under the Taster's protection: abilities do not affect them")
        traitors = list(state.players[target].traitors)
    seen = {"seat": seat, "source": "clairvoyant", "of": target}
    _used(tape, seat, "clairvoyant", look=look, target=target)
    tape.emit("TraitorsRevealed", {**seen, "traitors": traitors}, visible_to=(seat,), redacted=seen)


def _negotiator(tape: Tape[State], state: State, seat: int, cmd: UseAbilityCommand) -> None:
    target = _other_seat(state, seat, cmd)
    guard = steal_protection(state, target)
    if guard is not None:
        name = NAME_OF[guard]
        raise IllegalMove(f"seat {target} is protected by {name}: you cannot take their Gold or Cargo")
    _used(tape, seat, "negotiator", target=target)


def _geologist(tape: Tape[State], state: State, seat: int, cmd: UseAbilityCommand) -> None:
    cards = list(state.hold[:GEOLOGIST_LOOK])
    _used(tape, seat, "geologist")
    tape.emit("HoldTopSeen", {"seat": seat, "cards": cards, "count": len(cards)}, visible_to=(seat,),
              redacted={"seat": seat, "count": len(cards)})


USES: dict[str, Callable[[Tape[State], State, int, UseAbilityCommand], None]] = {
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

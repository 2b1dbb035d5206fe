"""Deciding commands: parse the body, check the turn, apply the rules; the events go onto a Tape, then
the automatic steps that follow (:func:`~services.games.mad_zeppelin.flow.advance`)."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from services.games.base import Command, Event
from services.games.errors import BadCommand, IllegalMove
from services.games.mad_zeppelin.abilities import reroll_event, use_ability
from services.games.mad_zeppelin.data import (
    ALCOHOL,
    CRATE_VALUE,
    NAME_OF,
    THROWABLE,
    WHITE,
)
from services.games.mad_zeppelin.evolve import evolve
from services.games.mad_zeppelin.flow import advance, cargo_stolen, gift, give_options
from services.games.mad_zeppelin.legal import expected
from services.games.mad_zeppelin.rules import (
    crates_redundant,
    current_play,
    dice_colours,
    is_banned,
    throw_cost,
)
from services.games.mad_zeppelin.schemas import (
    COMMANDS,
    ArrangeHoldCommand,
    ChooseColourCommand,
    DraftCommand,
    GiveCommand,
    PlayTraitorCommand,
    RerollCommand,
    StealCommand,
    ThrowCommand,
)
from services.games.mad_zeppelin.state import Phase, Sequence, State
from services.games.skeleton import not_your_turn, prologue
from services.games.tape import Tape

_OVER = Phase.OVER


def decide(state: State, command: Command, rng: random.Random) -> list[Event]:
    seat, cmd = prologue(COMMANDS, command, state.seats, over=state.phase == _OVER, started=state.seats > 0)
    who, types, what = expected(state)
    if seat != who:
        raise not_your_turn((who,) if who >= 0 else (), what)
    if command.type not in types:
        raise IllegalMove(f"'{command.type}' is not possible now: you must {what}")
    tape = Tape(state, evolve, rng)
    HANDLERS[command.type](tape, seat, cmd)
    advance(tape)
    return tape.events


def _sequence(state: State) -> Sequence:
    if state.seq is None:
        raise IllegalMove("no player's sequence is under way")
    return state.seq


def _draft(tape: Tape[State], seat: int, cmd: DraftCommand) -> None:
    if cmd.traitor not in tape.state.pool:
        raise IllegalMove(f"{NAME_OF[cmd.traitor]} is not among the Traitors passed to you")
    tape.emit("TraitorDrafted", {"seat": seat, "traitor": cmd.traitor}, visible_to=(seat,), redacted={"seat": seat})


def _choose_colour(tape: Tape[State], seat: int, cmd: ChooseColourCommand) -> None:
    face = tape.state.dice[cmd.die]
    if face != WHITE:
        raise IllegalMove(f"die {cmd.die} shows {face}; only a white die needs a colour")
    tape.emit("DieColourChosen", {"seat": seat, "die": cmd.die, "colour": cmd.colour})


def _play(tape: Tape[State], seat: int, cmd: PlayTraitorCommand) -> None:
    state, traitor = tape.state, cmd.traitor
    if traitor not in state.players[seat].traitors:
        raise IllegalMove(f"you do not hold {NAME_OF[traitor]}")
    if is_banned(state, seat, traitor):
        raise IllegalMove(f"{NAME_OF[traitor]} cannot be played this turn")
    tape.emit("TraitorPlayed", {"seat": seat, "traitor": traitor})


def _steal(tape: Tape[State], seat: int, cmd: StealCommand) -> None:
    state = tape.state
    victim = _sequence(state).seat
    if cmd.take == "gold":
        tape.emit("GoldStolen", {"thief": seat, "victim": victim})
    else:
        tape.extend([cargo_stolen(state, seat, victim, tape.rng)])


def _give(tape: Tape[State], seat: int, cmd: GiveCommand) -> None:
    state = tape.state
    options = give_options(state, seat)
    if cmd.what == "gold":
        if "card" in cmd.model_fields_set:
            raise BadCommand("'card' only goes with what 'cargo'")
        if "gold" not in options:
            raise IllegalMove("you have no Gold to give")
        tape.extend([gift(state, seat, _sequence(state).seat, "gold")])
        return
    card = cmd.card
    if card is None:
        raise BadCommand("'card': with what 'cargo', name the card kind to give")
    if card not in options:
        raise IllegalMove(f"you have no {card} in hand")
    tape.extend([gift(state, seat, _sequence(state).seat, card)])


def _arrange(tape: Tape[State], seat: int, cmd: ArrangeHoldCommand) -> None:
    n = _sequence(tape.state).arrange
    order = cmd.order
    if sorted(order) != list(range(n)):
        raise BadCommand(f"'order' must list each of the positions 0 to {n - 1} once")
    tape.emit("HoldRearranged", {"seat": seat, "order": order, "count": n}, visible_to=(seat,),
              redacted={"seat": seat, "count": n})


def _reroll(tape: Tape[State], seat: int, cmd: RerollCommand) -> None:
    tape.extend([reroll_event(tape.state, seat, cmd.die, tape.rng, in_ability=False)])


def _throw(tape: Tape[State], seat: int, cmd: ThrowCommand) -> None:
    state = tape.state
    seq = _sequence(state)
    if seq.throw == 2:
        raise IllegalMove("you have already taken your throw action this sequence")
    card, crates = cmd.card, cmd.crates
    player = state.players[seat]
    if card not in player.hand:
        raise IllegalMove(f"you have no {card} in hand")
    if card == ALCOHOL:
        if crates:
            raise IllegalMove("placing Alcohol costs nothing: keep your mysterious crates")
        tape.emit("AlcoholPlaced", {"seat": seat})
        return
    if card not in THROWABLE:
        raise IllegalMove("mysterious crates never go overboard: use them to pay when you throw Cargo")
    play = current_play(state, seat)
    if play is None or play.colour is None:
        name = NAME_OF[play.traitor] if play else "nobody"
        raise IllegalMove(f"{name} has no colour: your current Traitor cannot throw Cargo")
    if play.colour not in dice_colours(state):
        raise IllegalMove(f"no die shows {play.colour}: your current Traitor cannot throw Cargo")
    for crate in set(crates):
        if crates.count(crate) > player.hand.count(crate):
            raise IllegalMove(f"you have only {player.hand.count(crate)} {crate} in hand")
    cost = throw_cost(state, seat, card)
    if crates_redundant(crates, cost):
        raise IllegalMove(f"throwing {card} costs {cost} Gold: not all those crates are needed (no change)")
    owed = max(0, cost - sum(CRATE_VALUE[c] for c in crates))
    if owed > player.gold:
        raise IllegalMove(f"throwing {card} costs you {owed} Gold but you have {player.gold}")
    tape.emit("CargoThrown", {"seat": seat, "card": card, "cost": cost, "crates": sorted(crates), "gold": owed})


def _end(tape: Tape[State], seat: int, cmd: Any) -> None:
    tape.emit("SequenceEnded", {"seat": seat})


HANDLERS: dict[str, Callable[[Tape[State], int, Any], None]] = {
    "draft": _draft,
    "choose_colour": _choose_colour,
    "play_traitor": _play,
    "steal": _steal,
    "give": _give,
    "arrange_hold": _arrange,
    "use_ability": use_ability,
    "reroll": _reroll,
    "throw": _throw,
    "end_sequence": _end,
}
assert set(HANDLERS) == set(COMMANDS), "a handler for every command of the contract"

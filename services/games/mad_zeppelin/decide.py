"""Deciding commands: validate against the rules, return the events (then the automatic ones)."""

from __future__ import annotations

import random
from collections.abc import Callable, Collection, Mapping
from typing import Any

from services.games.base import Command, Event
from services.games.errors import BadCommand, GameOver, IllegalMove, NotYourTurn
from services.games.fields import int_field, int_list_field, str_field, str_list_field
from services.games.mad_zeppelin.abilities import reroll_event, use_ability
from services.games.mad_zeppelin.acting import COMMAND_TYPES, expected
from services.games.mad_zeppelin.data import (
    ALCOHOL,
    CARGO_KINDS,
    COLOURS,
    CRATE_VALUE,
    NAME_OF,
    THROWABLE,
    TRAITOR_KEYS,
    WHITE,
)
from services.games.mad_zeppelin.evolve import evolve
from services.games.mad_zeppelin.flow import advance, cargo_stolen, gift, give_options
from services.games.mad_zeppelin.rules import (
    crates_redundant,
    current_play,
    dice_colours,
    is_banned,
    throw_cost,
)
from services.games.mad_zeppelin.state import Sequence, State

Body = Mapping[str, Any]

FIELDS: dict[str, frozenset[str]] = {
    "draft": frozenset({"traitor"}),
    "choose_colour": frozenset({"die", "colour"}),
    "play_traitor": frozenset({"traitor"}),
    "steal": frozenset({"take"}),
    "give": frozenset({"what", "card"}),
    "arrange_hold": frozenset({"order"}),
    "reroll": frozenset({"die"}),
    "throw": frozenset({"card", "crates"}),
    "end_sequence": frozenset(),
}


def decide(state: State, command: Command, rng: random.Random) -> list[Event]:
    if state.phase == "over":
        raise GameOver("the match is over")
    if state.seats == 0:
        raise IllegalMove("the match has not started")
    if command.type not in COMMAND_TYPES:
        raise BadCommand(f"unknown command '{command.type}'; known: {', '.join(sorted(COMMAND_TYPES))}")
    if not isinstance(command.body, Mapping):
        raise BadCommand("the command body must be a mapping")
    seat = command.seat
    if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < state.seats:
        raise NotYourTurn(f"seat {seat} is not in this match")
    who, types, what = expected(state)
    if seat != who:
        raise NotYourTurn(f"it is seat {who}'s turn to {what}")
    if command.type not in types:
        raise IllegalMove(f"'{command.type}' is not possible now: you must {what}")
    allowed = FIELDS.get(command.type)
    if allowed is not None:
        _only(command.body, allowed)
    events = HANDLERS[command.type](state, seat, command.body, rng)
    after = state
    for event in events:
        after = evolve(after, event)
    events += advance(after, rng)[1]
    return events


def _only(body: Body, allowed: Collection[str]) -> None:
    if all(k in allowed for k in body):
        return
    extra = sorted(str(k) for k in body if k not in allowed)
    if extra:
        raise BadCommand(f"unexpected field(s) {', '.join(extra)}")


def _sequence(state: State) -> Sequence:
    if state.seq is None:
        raise IllegalMove("no player's sequence is under way")
    return state.seq


def _draft(state: State, seat: int, body: Body, rng: random.Random) -> list[Event]:
    traitor = str_field(body, "traitor", TRAITOR_KEYS)
    if traitor not in state.pool:
        raise IllegalMove(f"{NAME_OF[traitor]} is not among the Traitors passed to you")
    return [Event("TraitorDrafted", {"seat": seat, "traitor": traitor}, visible_to=(seat,),
                  redacted={"seat": seat})]


def _choose_colour(state: State, seat: int, body: Body, rng: random.Random) -> list[Event]:
    die = int_field(body, "die", 0, len(state.dice) - 1)
    colour = str_field(body, "colour", COLOURS)
    if state.dice[die] != WHITE:
        raise IllegalMove(f"die {die} shows {state.dice[die]}; only a white die needs a colour")
    return [Event("DieColourChosen", {"seat": seat, "die": die, "colour": colour})]


def _play(state: State, seat: int, body: Body, rng: random.Random) -> list[Event]:
    traitor = str_field(body, "traitor", TRAITOR_KEYS)
    if traitor not in state.players[seat].traitors:
        raise IllegalMove(f"you do not hold {NAME_OF[traitor]}")
    if is_banned(state, seat, traitor):
        raise IllegalMove(f"{NAME_OF[traitor]} cannot be played this turn")
    return [Event("TraitorPlayed", {"seat": seat, "traitor": traitor})]


def _steal(state: State, seat: int, body: Body, rng: random.Random) -> list[Event]:
    take = str_field(body, "take", ("gold", "cargo"))
    victim = _sequence(state).seat
    if take == "gold":
        return [Event("GoldStolen", {"thief": seat, "victim": victim})]
    return [cargo_stolen(state, seat, victim, rng)]


def _give(state: State, seat: int, body: Body, rng: random.Random) -> list[Event]:
    what = str_field(body, "what", ("gold", "cargo"))
    options = give_options(state, seat)
    if what == "gold":
        if "card" in body:
            raise BadCommand("'card' only goes with what 'cargo'")
        if "gold" not in options:
            raise IllegalMove("you have no Gold to give")
        return [gift(state, seat, _sequence(state).seat, "gold")]
    card = str_field(body, "card", CARGO_KINDS)
    if card not in options:
        raise IllegalMove(f"you have no {card} in hand")
    return [gift(state, seat, _sequence(state).seat, card)]


def _arrange(state: State, seat: int, body: Body, rng: random.Random) -> list[Event]:
    n = _sequence(state).arrange
    order = int_list_field(body, "order", 0, n - 1, max_len=n)
    if sorted(order) != list(range(n)):
        raise BadCommand(f"'order' must list each of the positions 0 to {n - 1} once")
    return [Event("HoldRearranged", {"seat": seat, "order": order, "count": n}, visible_to=(seat,),
                  redacted={"seat": seat, "count": n})]


def _reroll(state: State, seat: int, body: Body, rng: random.Random) -> list[Event]:
    return [reroll_event(state, seat, body, rng, in_ability=False)]


def _throw(state: State, seat: int, body: Body, rng: random.Random) -> list[Event]:
    seq = _sequence(state)
    if seq.throw == 2:
        raise IllegalMove("you have already taken your throw action this sequence")
    card = str_field(body, "card", CARGO_KINDS)
    crates = str_list_field(body, "crates", CRATE_VALUE, max_len=20) if "crates" in body else []
    player = state.players[seat]
    if card not in player.hand:
        raise IllegalMove(f"you have no {card} in hand")
    if card == ALCOHOL:
        if crates:
            raise IllegalMove("placing Alcohol costs nothing: keep your mysterious crates")
        return [Event("AlcoholPlaced", {"seat": seat})]
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
    return [Event("CargoThrown", {"seat": seat, "card": card, "cost": cost, "crates": sorted(crates),
                                  "gold": owed})]


def _end(state: State, seat: int, body: Body, rng: random.Random) -> list[Event]:
    return [Event("SequenceEnded", {"seat": seat})]


HANDLERS: dict[str, Callable[[State, int, Body, random.Random], list[Event]]] = {
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

"""Deciding commands: checks a command against the rules and returns the events it causes.

Each decision writes its events onto a :class:`Tape`, which applies them to a working copy of the
state as it goes, so later steps of one decision (a crash after a move, the next round's auction)
see exactly the state ``evolve`` will build.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from services.games.base import Command, Event
from services.games.errors import BadCommand, GameOver, IllegalMove, NotYourTurn
from services.games.fields import count_map_field, int_field
from services.games.moderne_zeiten.data import (
    DIE_SIDES,
    DRAW_COUNT,
    INDUSTRIES,
    INDUSTRY_INDEX,
    N_INDUSTRIES,
    cards_of,
    counts_of,
    tally,
)
from services.games.moderne_zeiten.evolve import HANDLERS
from services.games.moderne_zeiten.rules import (
    auto_move,
    crash_industries,
    move_choices,
    next_space,
    payments,
    takes_control,
    without_finish,
)
from services.games.moderne_zeiten.scoring import score
from services.games.moderne_zeiten.state import (
    AUCTION,
    FINISH,
    MOVING,
    NEW,
    NOBODY,
    OVER,
    SETUP,
    STAY,
    TURN,
    State,
    choice_name,
)

COMMANDS: dict[str, frozenset[str]] = {
    "bid": frozenset({"amount"}),
    "pass": frozenset(),
    "draw": frozenset(),
    "play": frozenset({"cards"}),
    "move": frozenset({"to"}),
}
PHASE_OF = {"bid": AUCTION, "pass": AUCTION, "draw": TURN, "play": TURN, "move": MOVING}
DOING = {AUCTION: "bid or pass in the auction", TURN: "draw or play cards", MOVING: "move your Zeppelin"}


class Tape:
    """Events of one decision, applied to a working state as they are written."""

    __slots__ = ("events", "state")

    def __init__(self, state: State) -> None:
        self.state = state
        self.events: list[Event] = []

    def emit(
        self,
        type_: str,
        body: dict[str, Any],
        visible_to: tuple[int, ...] | None = None,
        redacted: dict[str, Any] | None = None,
    ) -> None:
        event = Event(type_, body, visible_to, redacted)
        self.events.append(event)
        self.state = HANDLERS[type_](self.state, body)


def _check_shape(command: Command) -> None:
    allowed = COMMANDS.get(command.type)
    if allowed is None:
        raise BadCommand(f"unknown command '{command.type}'; expected one of {', '.join(COMMANDS)}")
    if not isinstance(command.body, Mapping):
        raise BadCommand("the command body must be a mapping")
    extra = set(command.body) - allowed
    if extra:
        raise BadCommand(f"'{command.type}' does not take {', '.join(sorted(map(str, extra)))}")


def decide(s: State, command: Command, rng: random.Random) -> list[Event]:
    _check_shape(command)
    if s.phase in (NEW, SETUP):
        raise NotYourTurn("the match has not started")
    if s.phase == OVER:
        raise GameOver("the game is over")
    seat = command.seat
    if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < s.seats:
        raise BadCommand(f"there is no seat {seat!r} in this match of {s.seats}")
    acting = s.bidder if s.phase == AUCTION else s.current
    if seat != acting:
        raise NotYourTurn(f"it is seat {acting}'s turn to {DOING[s.phase]}")
    if PHASE_OF[command.type] != s.phase:
        raise IllegalMove(f"you cannot {command.type} now: {DOING[s.phase]}")
    tape = Tape(s)
    if command.type == "bid":
        _bid(tape, seat, int_field(command.body, "amount"))
    elif command.type == "pass":
        tape.emit("Passed", {"seat": seat})
        _close_auction(tape)
    elif command.type == "draw":
        _draw(tape, seat, rng)
    elif command.type == "play":
        _play(tape, seat, rng, count_map_field(command.body, "cards", INDUSTRY_INDEX))
    else:
        if "to" not in command.body:
            raise BadCommand("'to' is required: an industry, 'finish', or null to stay")
        _move(tape, seat, rng, command.body["to"])
    return tape.events


# --- rounds and the auction ---


def start_round(tape: Tape, rng: random.Random) -> None:
    s = tape.state
    tape.emit("RoundStarted", {"round": s.round + 1, "start_player": s.start_player})
    roll = rng.randint(1, DIE_SIDES)
    tape.emit("DieRolled", {"seat": s.start_player, "roll": roll})
    count = min(roll, len(tape.state.stack))
    if count:
        cards = [INDUSTRIES[c] for c in tape.state.stack[:count]]
        tape.emit("CardsLaidOut", {"cards": cards, "count": count})
    else:
        tape.emit("AuctionSkipped", {"reason": "the stack is empty"})


def _bid(tape: Tape, seat: int, amount: int) -> None:
    s = tape.state
    if amount <= s.high_bid:
        raise IllegalMove(f"bid {amount} must be higher than the current bid of {s.high_bid}")
    if amount > s.money[seat]:
        raise IllegalMove(f"bid {amount} exceeds your {s.money[seat]} million")
    tape.emit("BidMade", {"seat": seat, "amount": amount})
    _close_auction(tape)


def _close_auction(tape: Tape) -> None:
    s = tape.state
    left = [p for p in range(s.seats) if not s.passed[p]]
    if s.high_bidder != NOBODY and left == [s.high_bidder]:
        received = payments(s.seats, s.high_bidder, s.high_bid)
        tape.emit("AuctionWon", {
            "seat": s.high_bidder, "amount": s.high_bid, "cards": cards_of(tally(s.lot)),
            "received": received,
        })
    elif not left:
        tape.emit("AuctionUnsold", {"cards": cards_of(tally(s.lot)), "count": len(s.lot)})


# --- turns ---


def _draw(tape: Tape, seat: int, rng: random.Random) -> None:
    s = tape.state
    drawn = s.stack[:DRAW_COUNT]
    tape.emit(
        "CardsDrawn",
        {"seat": seat, "cards": cards_of(tally(drawn)), "count": len(drawn)},
        visible_to=(seat,),
        redacted={"seat": seat, "count": len(drawn)},
    )
    _end_turn(tape, seat, rng)


def check_play(s: State, seat: int, counts: tuple[int, ...]) -> None:
    hand = s.hands[seat]
    for i in range(N_INDUSTRIES):
        if counts[i] > hand[i]:
            raise IllegalMove(f"you have {hand[i]} {INDUSTRIES[i]} in hand, not {counts[i]}")
    if not any(counts):
        if s.move_needs_play:
            raise IllegalMove("play at least one card (or draw)")
        if not move_choices(s, seat):
            raise IllegalMove("playing no cards only serves to move, and you cannot move now")


def _play(tape: Tape, seat: int, rng: random.Random, cards: dict[str, int]) -> None:
    counts = counts_of(cards)
    check_play(tape.state, seat, counts)
    total = sum(counts)
    tape.emit("CardsPlayed", {
        "seat": seat, "cards": cards_of(counts), "count": total, "counter": tape.state.counter + total,
    })
    played = tape.state.played
    for i in range(N_INDUSTRIES):
        if counts[i] and tape.state.controller[i] != seat and takes_control(played, seat, i, played[seat][i]):
            previous = tape.state.controller[i]
            tape.emit("ControlTaken", {
                "seat": seat, "industry": INDUSTRIES[i], "count": played[seat][i],
                "previous": None if previous == NOBODY else previous,
            })
    choices = move_choices(tape.state, seat)
    if not tape.state.crash_after_move and crash_industries(tape.state):
        # The crash comes now, before the move, unless he may end the game this turn: a crash on the
        # turn that ends the game is ignored whatever the option, so it waits for his answer (_move).
        if FINISH in choices:
            tape.emit("MoveAwaited", {"seat": seat, "choices": [choice_name(c) for c in choices]})
            return
        _crash_check(tape, rng)
        choices = without_finish(move_choices(tape.state, seat))
    if not choices:
        _after_move(tape, seat, rng)
    elif auto_move(choices):
        _move_to(tape, seat, choices[0])
        _after_move(tape, seat, rng)
    else:
        tape.emit("MoveAwaited", {"seat": seat, "choices": [choice_name(c) for c in choices]})


def _move(tape: Tape, seat: int, rng: random.Random, to: Any) -> None:
    s = tape.state
    if to is not None and not (isinstance(to, str) and (to == "finish" or to in INDUSTRY_INDEX)):
        raise BadCommand(f"'to' must be an industry ({', '.join(INDUSTRIES)}), 'finish' or null; got {to!r}")
    code = STAY if to is None else FINISH if to == "finish" else INDUSTRY_INDEX[to]
    if code not in s.choices:
        options = ", ".join(str(choice_name(c)) for c in s.choices)
        what = "stay" if to is None else f"move to {to}"
        raise IllegalMove(f"you cannot {what} now; choose one of: {options}")
    if code == FINISH:
        _finish(tape, seat)
        return
    if not s.crash_after_move:
        _crash_check(tape, rng)  # a crash held back while he might end the game (none otherwise)
    if code == STAY:
        tape.emit("MoveDeclined", {"seat": seat})
    else:
        _move_to(tape, seat, code)
    _after_move(tape, seat, rng)


def _move_to(tape: Tape, seat: int, industry: int) -> None:
    s = tape.state
    space = next_space(s, seat, industry)
    city = s.board.cities[s.board.track[space - 1][0]]
    tape.emit("ZeppelinMoved", {
        "seat": seat, "industry": INDUSTRIES[industry], "city": city, "space": space,
        "from": s.position[seat],
    })


def _finish(tape: Tape, seat: int) -> None:
    tape.emit("ZeppelinFinished", {"seat": seat})
    outcome = score(tape.state)
    tape.emit("GameEnded", outcome.as_dict())


def _after_move(tape: Tape, seat: int, rng: random.Random) -> None:
    if tape.state.crash_after_move:
        _crash_check(tape, rng)
    _end_turn(tape, seat, rng)


def _crash_check(tape: Tape, rng: random.Random) -> None:
    gone = crash_industries(tape.state)
    if not gone:
        return
    s = tape.state
    removed = sum(row[i] for row in s.played for i in gone)
    tape.emit("MarketCrashed", {
        "industries": [INDUSTRIES[i] for i in gone], "removed": removed, "counter": s.counter - removed,
    })
    order = list(tape.state.stack)
    rng.shuffle(order)
    tape.emit(
        "StackShuffled",
        {"order": [INDUSTRIES[c] for c in order], "count": len(order)},
        visible_to=(),
        redacted={"count": len(order)},
    )


def _end_turn(tape: Tape, seat: int, rng: random.Random) -> None:
    tape.emit("TurnEnded", {"seat": seat})
    if tape.state.current == NOBODY:
        start_round(tape, rng)

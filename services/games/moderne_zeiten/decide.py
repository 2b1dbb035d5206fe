"""Deciding commands: checks a command against the rules and returns the events it causes.

:func:`decide` reads the body with its schema model (:data:`services.games.moderne_zeiten.schemas.COMMANDS`: strict,
unknown fields refused), checks the match is running, the seat, the turn and the phase, then hands the
typed command to its handler in :data:`HANDLERS`; the handlers check the rules (money, cards in hand,
where the Zeppelin may go). Each decision writes its events onto a :class:`~services.games.tape.Tape`,
which applies them to a working copy of the state as it goes, so later steps of one decision (a crash
after a move, the next round's auction) see exactly the state ``evolve`` will build.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from services.games.base import Command, Event
from services.games.errors import IllegalMove
from services.games.moderne_zeiten.data import (
    DIE_SIDES,
    DRAW_COUNT,
    INDUSTRIES,
    N_INDUSTRIES,
    cards_of,
    counts_of,
    tally,
)
from services.games.moderne_zeiten.evolve import evolve
from services.games.moderne_zeiten.rules import (
    auto_move,
    crash_industries,
    move_choices,
    next_space,
    payments,
    takes_control,
    without_finish,
)
from services.games.moderne_zeiten.schemas import (
    COMMANDS,
    BidCommand,
    DrawCommand,
    MoveCommand,
    PassCommand,
    PlayCommand,
)
from services.games.moderne_zeiten.scoring import score
from services.games.moderne_zeiten.state import FINISH, NOBODY, STAY, Phase, State, choice_code, choice_name
from services.games.skeleton import not_your_turn, prologue
from services.games.tape import Tape

AUCTION, TURN, MOVING, OVER = Phase.AUCTION, Phase.TURN, Phase.MOVING, Phase.OVER  # bound once (see evolve)
PHASE_OF: dict[str, Phase] = {"bid": AUCTION, "pass": AUCTION, "draw": TURN, "play": TURN, "move": MOVING}
DOING: dict[Phase, str] = {
    AUCTION: "bid or pass in the auction", TURN: "draw or play cards", MOVING: "move your Zeppelin",
}
NOT_STARTED = frozenset({Phase.NEW, Phase.SETUP})


def decide(s: State, command: Command, rng: random.Random) -> list[Event]:
    phase = s.phase
    seat, cmd = prologue(COMMANDS, command, s.seats, over=phase == OVER, started=phase not in NOT_STARTED)
    acting = s.bidder if phase == AUCTION else s.current
    if seat != acting:
        raise not_your_turn((acting,), DOING[phase])
    if PHASE_OF[command.type] != phase:
        raise IllegalMove(f"you cannot {command.type} now: {DOING[phase]}")
    tape: Tape[State] = Tape(s, evolve, rng)
    HANDLERS[command.type](tape, seat, cmd)
    return tape.events


# --- rounds and the auction ---


def start_round(tape: Tape[State]) -> None:
    """The start player rolls the die and lays out that many cards from the stack (fewer if it is short)."""
    s = tape.state
    tape.emit("RoundStarted", {"round": s.round + 1, "start_player": s.start_player})
    roll = tape.rng.randint(1, DIE_SIDES)
    tape.emit("DieRolled", {"seat": s.start_player, "roll": roll})
    stack = s.stack  # neither event touches the stack: no need to apply them to read it
    count = min(roll, len(stack))
    if count:
        tape.emit("CardsLaidOut", {"cards": [INDUSTRIES[c] for c in stack[:count]], "count": count})
    else:
        tape.emit("AuctionSkipped", {"reason": "the stack is empty"})


def _bid(tape: Tape[State], seat: int, cmd: BidCommand) -> None:
    s = tape.state
    amount = cmd.amount
    if amount <= s.high_bid:
        raise IllegalMove(f"bid {amount} must be higher than the current bid of {s.high_bid}")
    if amount > s.money[seat]:
        raise IllegalMove(f"bid {amount} exceeds your {s.money[seat]} million")
    tape.emit("BidMade", {"seat": seat, "amount": amount})
    if s.passed.count(False) == 1:  # all the others have passed (nobody had bid): the lot is his at once
        _close_auction(tape)


def _pass(tape: Tape[State], seat: int, cmd: PassCommand) -> None:
    still_in = tape.state.passed.count(False)  # he among them
    tape.emit("Passed", {"seat": seat})
    if still_in <= 2:  # at most one other seat is left in: the auction may be over
        _close_auction(tape)


def _close_auction(tape: Tape[State]) -> None:
    s = tape.state
    left = s.passed.count(False)
    if left == 1 and s.high_bidder != NOBODY and not s.passed[s.high_bidder]:
        received = payments(s.seats, s.high_bidder, s.high_bid)
        tape.emit("AuctionWon", {
            "seat": s.high_bidder, "amount": s.high_bid, "cards": cards_of(tally(s.lot)),
            "received": received,
        })
    elif left == 0:
        tape.emit("AuctionUnsold", {"cards": cards_of(tally(s.lot)), "count": len(s.lot)})


# --- turns ---


def _draw(tape: Tape[State], seat: int, cmd: DrawCommand) -> None:
    s = tape.state
    drawn = s.stack[:DRAW_COUNT]
    tape.emit(
        "CardsDrawn",
        {"seat": seat, "cards": cards_of(tally(drawn)), "count": len(drawn)},
        visible_to=(seat,),
        redacted={"seat": seat, "count": len(drawn)},
    )
    _end_turn(tape, seat, s.last_turn)


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


def _play(tape: Tape[State], seat: int, cmd: PlayCommand) -> None:
    counts = counts_of(cmd.cards)
    s = tape.state
    check_play(s, seat, counts)
    total = sum(counts)
    tape.emit("CardsPlayed", {
        "seat": seat, "cards": cards_of(counts), "count": total, "counter": s.counter + total,
    })
    s = tape.state
    played, controller = s.played, s.controller  # each ControlTaken below changes its own industry only
    for i in range(N_INDUSTRIES):
        if counts[i] and controller[i] != seat and takes_control(played, seat, i, played[seat][i]):
            previous = controller[i]
            tape.emit("ControlTaken", {
                "seat": seat, "industry": INDUSTRIES[i], "count": played[seat][i],
                "previous": None if previous == NOBODY else previous,
            })
    s = tape.state
    choices = move_choices(s, seat)
    if not s.crash_after_move and crash_industries(s):
        # The crash comes now, before the move, unless he may end the game this turn: a crash on the
        # turn that ends the game is ignored whatever the option, so it waits for his answer (_move).
        if FINISH in choices:
            tape.emit("MoveAwaited", {"seat": seat, "choices": [choice_name(c) for c in choices]})
            return
        _crash_check(tape)
        choices = without_finish(move_choices(tape.state, seat))
    if not choices:
        _after_move(tape, seat)
    elif auto_move(choices):
        _move_to(tape, seat, choices[0])
        _after_move(tape, seat)
    else:
        tape.emit("MoveAwaited", {"seat": seat, "choices": [choice_name(c) for c in choices]})


def _move(tape: Tape[State], seat: int, cmd: MoveCommand) -> None:
    s = tape.state
    to = cmd.to
    code = choice_code(to)
    if code not in s.choices:
        options = ", ".join(str(choice_name(c)) for c in s.choices)
        what = "stay" if to is None else f"move to {to}"
        raise IllegalMove(f"you cannot {what} now; choose one of: {options}")
    if code == FINISH:
        _finish(tape, seat)
        return
    if not s.crash_after_move and FINISH in s.choices:
        # The turn's one crash check, held back at the play while he might end the game (_play): he did not.
        # Finish is on offer with the option off only when the play's check was held back or found nothing
        # due (after a crash at the play it is taken out: without_finish), so a crash at the play is never
        # checked again here; and with Finish on offer the only other choice is staying (no city space of a
        # controlled industry is ahead), so no move follows a crash made here.
        _crash_check(tape)
    if code == STAY:
        tape.emit("MoveDeclined", {"seat": seat})
    else:
        _move_to(tape, seat, code)
    _after_move(tape, seat)


def _move_to(tape: Tape[State], seat: int, industry: int) -> None:
    s = tape.state
    space = next_space(s, seat, industry)
    city = s.board.cities[s.board.track[space - 1][0]]
    tape.emit("ZeppelinMoved", {
        "seat": seat, "industry": INDUSTRIES[industry], "city": city, "space": space,
        "from": s.position[seat],
    })


def _finish(tape: Tape[State], seat: int) -> None:
    tape.emit("ZeppelinFinished", {"seat": seat})
    outcome = score(tape.state)
    tape.emit("GameEnded", outcome.as_dict())


def _after_move(tape: Tape[State], seat: int) -> None:
    s = tape.state
    if s.crash_after_move:
        _crash_check(tape)
    _end_turn(tape, seat, s.last_turn)


def _crash_check(tape: Tape[State]) -> None:
    s = tape.state
    gone = crash_industries(s)
    if not gone:
        return
    removed = sum(row[i] for row in s.played for i in gone)
    tape.emit("MarketCrashed", {
        "industries": [INDUSTRIES[i] for i in gone], "removed": removed, "counter": s.counter - removed,
    })
    order = list(tape.state.stack)
    tape.rng.shuffle(order)
    tape.emit(
        "StackShuffled",
        {"order": list(map(INDUSTRIES.__getitem__, order)), "count": len(order)},
        visible_to=(),
        redacted={"count": len(order)},
    )


def _end_turn(tape: Tape[State], seat: int, last_turn: bool) -> None:
    """``last_turn``: the turn ending is the round's last (``State.last_turn`` of any state of this turn)."""
    tape.emit("TurnEnded", {"seat": seat})
    if last_turn:
        start_round(tape)


HANDLERS: dict[str, Callable[[Tape[State], int, Any], None]] = {
    "bid": _bid,
    "pass": _pass,
    "draw": _draw,
    "play": _play,
    "move": _move,
}

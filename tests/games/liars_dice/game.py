"""Liar's Dice: the rules (pure functions over a NamedTuple state) and the registration."""

from __future__ import annotations

import random
from collections.abc import Mapping
from pathlib import Path
from typing import Any, NamedTuple

from schemas.game_schemas import MATCH_ABANDONED
from schemas.legal import Choice, IntRange, Text
from services.bots.plugins import GamePlugin
from services.games.abandon import abandoned_outcome
from services.games.base import Body, Command, Event, Outcome
from services.games.errors import IllegalMove
from services.games.kit import check_options
from services.games.registration import Registration, TestParameters
from services.games.skeleton import evolver, make_game, not_your_turn, prologue
from services.games.tape import Tape
from tests.games.liars_dice.schemas import (
    COMMANDS,
    FACES,
    GAME_NAME,
    SAY_MAX,
    SCHEMAS,
    BidCommand,
    CallCommand,
    Options,
)

TITLE, MIN_SEATS, MAX_SEATS = "Liar's Dice", 2, 4
Bid = tuple[int, int, int]  # seat, count, face


class State(NamedTuple):
    seats: int = 0
    dice: tuple[tuple[int, ...], ...] = ()  # each seat's faces; () is out
    bid: Bid | None = None
    turn: int = 0
    shown: tuple[tuple[int, ...], ...] | None = None
    ended: Outcome | None = None


# -- set-up and decide -------------------------------------------------------------------------------------
def setup(options: Mapping[str, Any], seats: int, rng: random.Random) -> list[Event]:
    opts = check_options(Options, TITLE, MIN_SEATS, MAX_SEATS, options, seats)
    return [Event("MatchStarted", {"game": GAME_NAME, "seats": seats, "options": opts.model_dump()}),
            *_rolls([opts.dice] * seats, rng)]


def _rolls(counts: list[int], rng: random.Random) -> list[Event]:
    return [Event("DiceRolled", {"seat": s, "count": n, "dice": [rng.randint(1, FACES) for _ in range(n)]},
                  visible_to=(s,), redacted={"seat": s, "count": n}) for s, n in enumerate(counts) if n]


def decide(state: State, command: Command, rng: random.Random) -> list[Event]:
    seat, cmd = prologue(COMMANDS, command, state.seats, over=state.ended is not None, started=state.seats > 0)
    if seat != state.turn:
        raise not_your_turn(to_act(state), "bid or call")
    tape: Tape[State] = Tape(state, evolve, rng)
    if isinstance(cmd, BidCommand):
        if not _higher(state, cmd.count, cmd.face):
            raise IllegalMove(f"a bid of {cmd.count} x {cmd.face} does not raise the last one")
        tape.emit("BidMade", {"seat": seat, "count": cmd.count, "face": cmd.face})
        return tape.events
    if state.bid is None:
        raise IllegalMove("there is no bid to call yet")
    bidder, count, face = state.bid
    loser = seat if sum(d.count(face) for d in state.dice) >= count else bidder
    said = {"say": cmd.say} if isinstance(cmd, CallCommand) and cmd.say else {}  # (a field added: old logs lack it)
    tape.emit("Called", {"seat": seat, "dice": [list(d) for d in state.dice], "loser": loser, **said})
    if tape.state.ended is None:
        tape.extend(_rolls([len(d) for d in tape.state.dice], rng))
    return tape.events


def _higher(state: State, count: int, face: int) -> bool:
    if count > sum(map(len, state.dice)):
        return False
    return state.bid is None or (count, face) > state.bid[1:]


# -- evolve: one handler per event type ----------------------------------------------------------------------
def _started(state: State, body: Body) -> State:
    return State(seats=body["seats"], dice=((),) * body["seats"])


def _rolled(state: State, body: Body) -> State:
    dice = list(state.dice)
    dice[body["seat"]] = tuple(body.get("dice") or (0,) * body["count"])  # (0: a face this reader may not see)
    return state._replace(dice=tuple(dice))


def _bid(state: State, body: Body) -> State:
    return state._replace(bid=(body["seat"], body["count"], body["face"]), turn=_next(state, body["seat"]), shown=None)


def _called(state: State, body: Body) -> State:
    loser = body["loser"]
    left = [len(d) - (s == loser) for s, d in enumerate(state.dice)]
    alive = [s for s, n in enumerate(left) if n]
    ended = Outcome(tuple(left), (alive[0],)) if len(alive) == 1 else None
    turn = loser if left[loser] else _next(state, loser)
    shown = tuple(tuple(d) for d in body["dice"])
    return state._replace(dice=tuple(d[:n] for d, n in zip(shown, left, strict=True)), bid=None, turn=turn,
                          ended=ended, shown=shown)  # (the dice kept until the next roll)


def _abandoned(state: State, body: Body) -> State:
    return state._replace(ended=abandoned_outcome(state.seats))


EVENTS = {"MatchStarted": _started, "DiceRolled": _rolled, "BidMade": _bid, "Called": _called,
          MATCH_ABANDONED: _abandoned}
evolve = evolver(EVENTS)


def _next(state: State, seat: int) -> int:
    for step in range(1, state.seats + 1):
        if state.dice[(seat + step) % state.seats]:
            return (seat + step) % state.seats
    return seat


# -- what a seat sees and may do -----------------------------------------------------------------------------
def view(state: State, seat: int | None) -> Body:
    own = seat is not None and 0 <= seat < state.seats
    bid = state.bid
    return {"dice": list(state.dice[seat]) if own and seat is not None else None,
            "dice_counts": [len(d) for d in state.dice],
            "bid": {"seat": bid[0], "count": bid[1], "face": bid[2]} if bid else None,
            "shown": [list(d) for d in state.shown] if state.shown is not None else None}


def to_act(state: State) -> frozenset[int]:
    return frozenset() if state.ended is not None or not state.seats else frozenset({state.turn})


def legal(state: State, seat: int) -> list[Choice]:
    if seat not in to_act(state):
        return []
    total = sum(map(len, state.dice))
    low_count, low_face = state.bid[1:] if state.bid else (1, 0)
    choices = [Choice(type="bid", body={"face": face}, free={"count": IntRange(min=least, max=total)})
               for face in range(1, FACES + 1)
               if (least := low_count if face > low_face else low_count + 1) <= total]
    call = Choice(type="call", free={"say": Text(max_length=SAY_MAX, optional=True)})
    return [*choices, call] if state.bid else choices


def outcome(state: State) -> Outcome | None:
    return state.ended


GAME = make_game(name=GAME_NAME, title=TITLE, seats=(MIN_SEATS, MAX_SEATS), options=Options, initial=State,
                 setup=setup, decide=decide, evolve=evolve, view=view, legal=legal, to_act=to_act, outcome=outcome)


# -- the registration: a bot that resamples the hidden dice (ISMCTS; the secrecy tests' perturber) -------------
def resample(view: Mapping[str, Any], seat: int, rng: random.Random) -> State:
    dice = tuple(tuple(view["dice"]) if s == seat else tuple(rng.randint(1, FACES) for _ in range(n))
                 for s, n in enumerate(view["dice_counts"]))
    bid = view["bid"]
    ended = Outcome(tuple(view["outcome"]["scores"]), tuple(view["outcome"]["winners"]),
                    view["outcome"]["detail"]) if view["outcome"] else None
    shown = tuple(map(tuple, view["shown"])) if view["shown"] is not None else None
    return State(seats=len(dice), dice=dice, bid=(bid["seat"], bid["count"], bid["face"]) if bid else None,
                 turn=view["to_act"][0] if view["to_act"] else 0, shown=shown, ended=ended)


def candidates(state: State, seat: int) -> list[tuple[str, dict[str, Any]]]:
    """For the conformance suite: every bid of 0 to one past the dice on the table of faces 0 to 7, a call,
    and malformed ones."""
    total = sum(map(len, state.dice))
    bids: list[tuple[str, dict[str, Any]]] = [("bid", {"count": c, "face": f})
                                              for c in range(total + 2) for f in range(FACES + 2)]
    says = [("call", {"say": s}) for s in ("", "liar!", "é😀", "x" * SAY_MAX, "x" * (SAY_MAX + 1), None, 7, ["a"])]
    return [*bids, ("call", {}), *says, ("call", {"now": True}), ("bid", {"count": "2", "face": 3}), ("bid", {}),
            ("bid", {"count": 1, "face": True}), ("raise", {})]


REGISTRATION = Registration(game=GAME, schemas=SCHEMAS, bot=GamePlugin(GAME_NAME, resample=resample),
                            candidates=candidates, tests=TestParameters(seats=3), logs=Path(__file__).with_name("logs"))

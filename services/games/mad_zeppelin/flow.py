"""The steps nobody decides: dealing, rolling, skipping, searching, forced steals, scoring.

:func:`advance` writes them onto the decision's :class:`~services.games.tape.Tape` one after the other
until a seat has a decision to make (or the match ends). Every random outcome is drawn here from the
tape's ``rng`` (the one of the command that led to it) and written into an event.
"""

from __future__ import annotations

import random

from services.games.base import Event
from services.games.mad_zeppelin.data import (
    AIRSICK_BY_SEATS,
    DEFAULT_SEARCH,
    DICE,
    FACES,
    JOURNEY,
    JOURNEYS,
    SEARCH,
    TRAITOR_KEYS,
    WHITE,
)
from services.games.mad_zeppelin.rules import can_play, ranking, scores, steal_protection
from services.games.mad_zeppelin.state import Phase, Sequence, State
from services.games.tape import Tape

_TURN_START, _DEAL, _ROLL, _PLAY = Phase.TURN_START, Phase.DEAL, Phase.ROLL, Phase.PLAY
_ACTIONS, _TURN_END, _OVER = Phase.ACTIONS, Phase.TURN_END, Phase.OVER


def advance(tape: Tape[State]) -> None:
    """Write the automatic events from the tape's state on, until a seat must decide or the match ends."""
    while _step(tape, tape.state):
        pass


def _step(tape: Tape[State], state: State) -> bool:
    """Write the next automatic step's events; False when there is none."""
    phase = state.phase
    if phase == _OVER:
        return False
    if state.journeys >= JOURNEYS:
        tape.extend([match_ended(state, "journeys")])
        return True
    if phase == _ACTIONS:
        seq = state.seq
        return seq is not None and _in_sequence(tape, state, seq)
    if phase == _PLAY:
        if can_play(state, state.seat):
            return False
        tape.emit("SequenceSkipped", {"seat": state.seat, "traitors": list(state.players[state.seat].traitors)})
        return True
    if phase == _TURN_START:
        tape.emit("TurnStarted", {"turn": state.turn + 1, "leader": (state.leader + 1) % state.seats})
        return True
    if phase == _DEAL:
        _deal(tape, state, tape.rng)
        return True
    if phase == _ROLL:
        _roll(tape, state, tape.rng)
        return True
    if phase == _TURN_END:
        points = scores(state)
        tape.emit("TurnEnded", {"turn": state.turn, "scores": list(points)})
        if max(points) >= state.target:
            tape.extend([match_ended(state, "target")])
        return True
    return False


def match_ended(state: State, reason: str) -> Event:
    points = scores(state)
    winners, draw = ranking(state, points)
    return Event("MatchEnded", {
        "reason": reason, "scores": list(points), "gold": [p.gold for p in state.players],
        "winners": list(winners), "draw": draw,
    })


def _deal(tape: Tape[State], state: State, rng: random.Random) -> None:
    order = list(TRAITOR_KEYS)
    rng.shuffle(order)
    n, sick = state.seats, AIRSICK_BY_SEATS[state.seats]
    airsick, dealt, pool = order[:sick], order[sick : sick + n], order[sick + n :]
    counts = {"airsick_count": sick, "pool_count": len(pool)}
    tape.emit("TraitorsShuffled", {"airsick": sorted(airsick), "pool": sorted(pool), **counts},
              visible_to=(), redacted=counts)
    for i, traitor in enumerate(dealt):
        seat = (state.leader + i) % n
        tape.emit("TraitorDealt", {"seat": seat, "traitor": traitor}, visible_to=(seat,), redacted={"seat": seat})


def _roll(tape: Tape[State], state: State, rng: random.Random) -> None:
    leader = state.leader
    unused = sorted(state.airsick + state.pool)
    seen = {"seat": leader, "source": "leader", "of": None}
    tape.emit("TraitorsRevealed", {**seen, "traitors": unused}, visible_to=(leader,), redacted=seen)
    tape.emit("DiceRolled", {"faces": [rng.choice(FACES) for _ in range(DICE)]})


def _in_sequence(tape: Tape[State], state: State, seq: Sequence) -> bool:
    if seq.steals:
        return _steal(tape, state, seq.steals[0], seq.seat)
    if not seq.searched:
        _search(tape, state, seq.seat)
        return True
    if seq.give >= 0:
        return _give(tape, state, seq.give, seq.seat)
    if seq.arrange or WHITE in state.dice:
        return False
    if seq.ability_used and seq.throw == 2 and seq.copied is None:
        tape.emit("SequenceEnded", {"seat": seq.seat})
        return True
    return False


def _steal(tape: Tape[State], state: State, thief: int, victim: int) -> bool:
    """A Captain's steal; the thief only chooses when the victim has both Gold and Cargo."""
    who = {"thief": thief, "victim": victim}
    guard = steal_protection(state, victim)
    if guard is not None:
        tape.emit("StealMissed", {**who, "reason": guard})
        return True
    p = state.players[victim]
    if p.gold and p.hand:
        return False
    if p.gold:
        tape.emit("GoldStolen", who)
    elif p.hand:
        tape.extend([cargo_stolen(state, thief, victim, tape.rng)])
    else:
        tape.emit("StealMissed", {**who, "reason": "nothing"})
    return True


def cargo_stolen(state: State, thief: int, victim: int, rng: random.Random) -> Event:
    card = rng.choice(state.players[victim].hand)
    who = {"thief": thief, "victim": victim}
    seen = tuple(sorted((thief, victim)))
    return Event("CargoStolen", {**who, "card": card}, visible_to=seen, redacted=who)


def give_options(state: State, giver: int) -> list[str]:
    """What the Negotiator's target may give: "gold" and each kind of card in hand."""
    p = state.players[giver]
    return (["gold"] if p.gold else []) + sorted(set(p.hand))


def gift(state: State, giver: int, receiver: int, what: str) -> Event:
    who = {"giver": giver, "receiver": receiver}
    if what == "gold":
        return Event("GoldGiven", who)
    seen = tuple(sorted((giver, receiver)))
    return Event("CargoGiven", {**who, "card": what}, visible_to=seen, redacted=who)


def _give(tape: Tape[State], state: State, giver: int, receiver: int) -> bool:
    options = give_options(state, giver)
    if not options:
        tape.emit("NothingGiven", {"giver": giver, "receiver": receiver})
        return True
    if len(options) == 1:
        tape.extend([gift(state, giver, receiver, options[0])])
        return True
    return False


def _search(tape: Tape[State], state: State, seat: int) -> None:
    traitor = state.plays[state.players[seat].current].traitor
    gold, draws = SEARCH.get(traitor, DEFAULT_SEARCH)
    safe = state.safe
    taken = min(gold, safe)
    safe -= taken
    tape.emit("GoldTaken", {"seat": seat, "gold": taken, "reason": "search"})
    for card in state.hold[:draws]:
        if card == JOURNEY:
            pay = min(1, safe)
            safe -= pay
            tape.emit("JourneyPlaced", {"seat": seat, "gold": pay})
        else:
            tape.emit("CargoDrawn", {"seat": seat, "card": card}, visible_to=(seat,), redacted={"seat": seat})

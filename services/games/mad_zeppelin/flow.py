"""The steps nobody decides: dealing, rolling, skipping, searching, forced steals, scoring.

``advance`` applies them one after the other until a seat has a decision to make (or the match ends).
Every random outcome is drawn here from the ``rng`` of the command that led to it and written into
an event.
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
from services.games.mad_zeppelin.evolve import evolve
from services.games.mad_zeppelin.rules import playable, ranking, scores, steal_protection
from services.games.mad_zeppelin.state import Sequence, State


def advance(state: State, rng: random.Random) -> tuple[State, list[Event]]:
    """The automatic events from ``state`` on, and the state after them."""
    out: list[Event] = []
    while True:
        events = _auto(state, rng)
        if not events:
            return state, out
        for event in events:
            state = evolve(state, event)
            out.append(event)


def _auto(state: State, rng: random.Random) -> list[Event]:
    phase = state.phase
    if phase == "over":
        return []
    if state.journeys >= JOURNEYS:
        return [match_ended(state, "journeys")]
    if phase == "turn_start":
        return [Event("TurnStarted", {"turn": state.turn + 1, "leader": (state.leader + 1) % state.seats})]
    if phase == "deal":
        return _deal(state, rng)
    if phase == "roll":
        return _roll(state, rng)
    if phase == "play" and not playable(state, state.seat):
        shown = list(state.players[state.seat].traitors)
        return [Event("SequenceSkipped", {"seat": state.seat, "traitors": shown})]
    if phase == "actions" and state.seq is not None:
        return _in_sequence(state, state.seq, rng)
    if phase == "turn_end":
        points = scores(state)
        events = [Event("TurnEnded", {"turn": state.turn, "scores": list(points)})]
        if max(points) >= state.target:
            events.append(match_ended(state, "target"))
        return events
    return []


def match_ended(state: State, reason: str) -> Event:
    points = scores(state)
    winners, draw = ranking(state, points)
    return Event("MatchEnded", {
        "reason": reason, "scores": list(points), "gold": [p.gold for p in state.players],
        "winners": list(winners), "draw": draw,
    })


def _deal(state: State, rng: random.Random) -> list[Event]:
    order = list(TRAITOR_KEYS)
    rng.shuffle(order)
    n, sick = state.seats, AIRSICK_BY_SEATS[state.seats]
    airsick, dealt, pool = order[:sick], order[sick : sick + n], order[sick + n :]
    counts = {"airsick_count": sick, "pool_count": len(pool)}
    events = [Event("TraitorsShuffled", {"airsick": sorted(airsick), "pool": sorted(pool), **counts},
                    visible_to=(), redacted=counts)]
    for i, traitor in enumerate(dealt):
        seat = (state.leader + i) % n
        events.append(Event("TraitorDealt", {"seat": seat, "traitor": traitor}, visible_to=(seat,),
                            redacted={"seat": seat}))
    return events


def _roll(state: State, rng: random.Random) -> list[Event]:
    leader = state.leader
    unused = sorted(state.airsick + state.pool)
    seen = {"seat": leader, "source": "leader", "of": None}
    return [
        Event("TraitorsRevealed", {**seen, "traitors": unused}, visible_to=(leader,), redacted=seen),
        Event("DiceRolled", {"faces": [rng.choice(FACES) for _ in range(DICE)]}),
    ]


def _in_sequence(state: State, seq: Sequence, rng: random.Random) -> list[Event]:
    if seq.steals:
        return _steal(state, seq.steals[0], seq.seat, rng)
    if not seq.searched:
        return _search(state, seq.seat)
    if seq.give >= 0:
        return _give(state, seq.give, seq.seat)
    if seq.arrange or WHITE in state.dice:
        return []
    if seq.ability_used and seq.throw == 2 and seq.copied is None:
        return [Event("SequenceEnded", {"seat": seq.seat})]
    return []


def _steal(state: State, thief: int, victim: int, rng: random.Random) -> list[Event]:
    """A Captain's steal; the thief only chooses when the victim has both Gold and Cargo."""
    who = {"thief": thief, "victim": victim}
    guard = steal_protection(state, victim)
    if guard is not None:
        return [Event("StealMissed", {**who, "reason": guard})]
    p = state.players[victim]
    if p.gold and p.hand:
        return []
    if p.gold:
        return [Event("GoldStolen", who)]
    if p.hand:
        return [cargo_stolen(state, thief, victim, rng)]
    return [Event("StealMissed", {**who, "reason": "nothing"})]


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


def _give(state: State, giver: int, receiver: int) -> list[Event]:
    options = give_options(state, giver)
    if not options:
        return [Event("NothingGiven", {"giver": giver, "receiver": receiver})]
    if len(options) == 1:
        return [gift(state, giver, receiver, options[0])]
    return []


def _search(state: State, seat: int) -> list[Event]:
    traitor = state.plays[state.players[seat].current].traitor
    gold, draws = SEARCH.get(traitor, DEFAULT_SEARCH)
    safe = state.safe
    taken = min(gold, safe)
    safe -= taken
    events = [Event("GoldTaken", {"seat": seat, "gold": taken, "reason": "search"})]
    for card in state.hold[:draws]:
        if card == JOURNEY:
            pay = min(1, safe)
            safe -= pay
            events.append(Event("JourneyPlaced", {"seat": seat, "gold": pay}))
        else:
            events.append(Event("CargoDrawn", {"seat": seat, "card": card}, visible_to=(seat,),
                                redacted={"seat": seat}))
    return events

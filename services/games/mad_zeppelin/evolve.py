"""Applying events: one small function per event type. No randomness, no validation."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

from services.games.base import Event
from services.games.mad_zeppelin.data import ACTIVATED, BLACK, STANDING, TARGETS, WHITE
from services.games.mad_zeppelin.rules import taster_protected
from services.games.mad_zeppelin.state import Note, Play, Player, Sequence, State

Body = dict[str, Any]


def _add(cards: tuple[str, ...], *new: str) -> tuple[str, ...]:
    return tuple(sorted(cards + new))


def _take(cards: tuple[str, ...], card: str) -> tuple[str, ...]:
    i = cards.index(card)
    return cards[:i] + cards[i + 1 :]


def _player(state: State, seat: int, player: Player) -> tuple[Player, ...]:
    players = list(state.players)
    players[seat] = player
    return tuple(players)


def _gold(state: State, seat: int, delta: int) -> tuple[Player, ...]:
    p = state.players[seat]
    return _player(state, seat, replace(p, gold=p.gold + delta))


def _now(state: State) -> Sequence:
    if state.seq is None:
        raise ValueError("a sequence event arrived outside a player's sequence")
    return state.seq


def _seq(state: State, **changes: Any) -> Sequence:
    return replace(_now(state), **changes)


def _note(state: State, seat: int, note: Note) -> tuple[tuple[Note, ...], ...]:
    notes = list(state.notes)
    notes[seat] = (*[n for n in notes[seat] if n[0] != note[0] or n[1] != note[1]], note)
    return tuple(notes)


def _start_round(state: State, number: int) -> State:
    return replace(state, phase="play", round=number, seat=state.leader, seq=None)


def match_started(state: State, b: Body) -> State:
    n = b["seats"]
    mode = b["options"]["mode"]
    return State(seats=n, mode=mode, target=TARGETS[mode], players=(Player(),) * n,
                 notes=((),) * n)


def hold_prepared(state: State, b: Body) -> State:
    return replace(state, removed=tuple(b["removed"]), hold=tuple(b["hold"]))


def gold_taken(state: State, b: Body) -> State:
    state = replace(state, safe=state.safe - b["gold"], players=_gold(state, b["seat"], b["gold"]))
    if b["reason"] == "search":
        state = replace(state, seq=_seq(state, searched=True))
    return state


def cargo_drawn(state: State, b: Body) -> State:
    p = state.players[b["seat"]]
    return replace(state, hold=state.hold[1:],
                   players=_player(state, b["seat"], replace(p, hand=_add(p.hand, state.hold[0]))))


def journey_returned(state: State, b: Body) -> State:
    rest = state.hold[1:]
    at = b["position"]
    hold = rest[:at] + state.hold[:1] + rest[at:]
    return replace(state, hold=hold, safe=state.safe - b["gold"], players=_gold(state, b["seat"], b["gold"]))


def journey_placed(state: State, b: Body) -> State:
    return replace(state, hold=state.hold[1:], journeys=state.journeys + 1, safe=state.safe - b["gold"],
                   players=_gold(state, b["seat"], b["gold"]))


def turn_started(state: State, b: Body) -> State:
    players = tuple(replace(p, traitors=(), current=-1, rerolls=0) for p in state.players)
    return replace(state, phase="deal", turn=b["turn"], leader=b["leader"], round=0, seat=b["leader"],
                   players=players, airsick=(), pool=(), dice=(), plays=(), bans=(), watches=(), seq=None,
                   notes=((),) * state.seats)


def traitors_shuffled(state: State, b: Body) -> State:
    return replace(state, phase="draft", seat=state.leader, airsick=tuple(b["airsick"]),
                   pool=tuple(b["pool"]))


def traitor_dealt(state: State, b: Body) -> State:
    p = state.players[b["seat"]]
    player = replace(p, traitors=_add(p.traitors, b["traitor"]))
    return replace(state, players=_player(state, b["seat"], player))


def traitor_drafted(state: State, b: Body) -> State:
    state = traitor_dealt(state, b)
    nxt = (b["seat"] + 1) % state.seats
    phase = "roll" if nxt == state.leader else "draft"
    return replace(state, pool=_take(state.pool, b["traitor"]), seat=nxt, phase=phase)


def traitors_revealed(state: State, b: Body) -> State:
    kind = "unused" if b["source"] == "leader" or b["of"] is None else "traitors"
    of = -1 if b["of"] is None else b["of"]
    return replace(state, notes=_note(state, b["seat"], (kind, of, tuple(b["traitors"]))))


def dice_rolled(state: State, b: Body) -> State:
    state = replace(state, dice=tuple(b["faces"]))
    return replace(state, phase="colours") if WHITE in state.dice else _start_round(state, 1)


def die_colour_chosen(state: State, b: Body) -> State:
    dice = list(state.dice)
    dice[b["die"]] = b["colour"]
    state = replace(state, dice=tuple(dice))
    if state.phase == "colours" and WHITE not in state.dice:
        return _start_round(state, 1)
    return state


def traitor_played(state: State, b: Body) -> State:
    seat, traitor = b["seat"], b["traitor"]
    p = state.players[seat]
    plays = (*state.plays, Play(seat, traitor, traitor))
    player = replace(p, traitors=_take(p.traitors, traitor), current=len(plays) - 1)
    thieves = tuple(thief for thief, named in state.watches if named == traitor and thief != seat)
    seq = Sequence(seat=seat, ability_used=traitor in STANDING, steals=thieves)
    return replace(state, phase="actions", seat=seat, plays=plays, players=_player(state, seat, player),
                   seq=seq)


def _next_seat(state: State) -> State:
    nxt = (state.seat + 1) % state.seats
    if nxt != state.leader:
        return replace(state, phase="play", seat=nxt, seq=None)
    if state.round == 1:
        return _start_round(state, 2)
    return replace(state, phase="turn_end", seq=None)


def sequence_skipped(state: State, b: Body) -> State:
    p = state.players[b["seat"]]
    return _next_seat(replace(state, players=_player(state, b["seat"], replace(p, current=-1))))


def sequence_ended(state: State, b: Body) -> State:
    return _next_seat(state)


def _steal_done(state: State) -> Sequence:
    seq = _now(state)
    return replace(seq, steals=seq.steals[1:])


def gold_stolen(state: State, b: Body) -> State:
    players = _gold(state, b["victim"], -1)
    state = replace(state, players=players)
    return replace(state, players=_gold(state, b["thief"], 1), seq=_steal_done(state))


def _move_card(state: State, giver: int, receiver: int, card: str) -> tuple[Player, ...]:
    g = state.players[giver]
    state = replace(state, players=_player(state, giver, replace(g, hand=_take(g.hand, card))))
    r = state.players[receiver]
    return _player(state, receiver, replace(r, hand=_add(r.hand, card)))


def cargo_stolen(state: State, b: Body) -> State:
    players = _move_card(state, b["victim"], b["thief"], b["card"])
    return replace(state, players=players, seq=_steal_done(state))


def steal_missed(state: State, b: Body) -> State:
    return replace(state, seq=_steal_done(state))


def _ban(state: State, user: int, traitor: str) -> tuple[tuple[str, int], ...]:
    """A ban does not touch a holder who is under the Taster's protection when it is named."""
    exempt = -1
    for seat, p in enumerate(state.players):
        if seat != user and traitor in p.traitors and taster_protected(state, seat):
            exempt = seat
    return (*state.bans, (traitor, exempt))


def _take_on(state: State, seat: int, new_identity: str) -> State:
    """The current Traitor (Stowaway/Shadow) takes another's colour and Ability."""
    index = state.players[seat].current
    plays = list(state.plays)
    plays[index] = replace(plays[index], identity=new_identity)
    copied = new_identity if new_identity in ACTIVATED else None
    return replace(state, plays=tuple(plays), seq=_seq(state, copied=copied))


def ability_used(state: State, b: Body) -> State:
    seat, ability = b["seat"], b["ability"]
    state = replace(state, seq=_seq(state, ability_used=True, copied=None))
    if ability == "captain":
        return replace(state, watches=(*state.watches, (seat, b["traitor"])))
    if ability == "doctor":
        return replace(state, bans=_ban(state, seat, b["traitor"]))
    if ability == "stowaway":
        state = replace(state, bans=_ban(state, seat, b["traitor"]))
        return _take_on(state, seat, b["traitor"])
    if ability == "shadow":
        return _take_on(state, seat, b["copied"])
    if ability == "anarchist":
        dice = list(state.dice)
        dice[b["die"]] = BLACK
        return replace(state, dice=tuple(dice))
    if ability == "negotiator":
        return replace(state, seq=_seq(state, give=b["target"]))
    return state


def die_rerolled(state: State, b: Body) -> State:
    dice = list(state.dice)
    dice[b["die"]] = b["face"]
    p = state.players[b["seat"]]
    players = _player(state, b["seat"], replace(p, rerolls=p.rerolls + 1))
    return replace(state, dice=tuple(dice), players=players)


def hold_top_seen(state: State, b: Body) -> State:
    cards = tuple(b["cards"])
    arrange = len(cards) if len(cards) > 1 else 0
    return replace(state, seq=_seq(state, arrange=arrange),
                   notes=_note(state, b["seat"], ("hold_top", -1, cards)))


def hold_rearranged(state: State, b: Body) -> State:
    n = len(b["order"])
    top = tuple(state.hold[i] for i in b["order"])
    return replace(state, hold=top + state.hold[n:], seq=_seq(state, arrange=0),
                   notes=_note(state, b["seat"], ("hold_top", -1, top)))


def gold_given(state: State, b: Body) -> State:
    state = replace(state, players=_gold(state, b["giver"], -1))
    return replace(state, players=_gold(state, b["receiver"], 1), seq=_seq(state, give=-1))


def cargo_given(state: State, b: Body) -> State:
    return replace(state, players=_move_card(state, b["giver"], b["receiver"], b["card"]),
                   seq=_seq(state, give=-1))


def nothing_given(state: State, b: Body) -> State:
    return replace(state, seq=_seq(state, give=-1))


def _thrown(state: State) -> Sequence:
    seq = _now(state)
    after = 2 if seq.throw or state.plays[state.players[seq.seat].current].identity != "opportunist" else 1
    return replace(seq, throw=after, copied=None)


def cargo_thrown(state: State, b: Body) -> State:
    seat = b["seat"]
    p = state.players[seat]
    hand = _take(p.hand, b["card"])
    for crate in b["crates"]:
        hand = _take(hand, crate)
    player = replace(p, hand=hand, front=_add(p.front, b["card"]), gold=p.gold - b["gold"])
    return replace(state, players=_player(state, seat, player), safe=state.safe + b["gold"],
                   discard=_add(state.discard, *b["crates"]), seq=_thrown(state))


def alcohol_placed(state: State, b: Body) -> State:
    p = state.players[b["seat"]]
    player = replace(p, hand=_take(p.hand, "alcohol"), front=_add(p.front, "alcohol"))
    return replace(state, players=_player(state, b["seat"], player), seq=_thrown(state))


def turn_ended(state: State, b: Body) -> State:
    return replace(state, phase="turn_start")


def match_ended(state: State, b: Body) -> State:
    return replace(state, phase="over", seq=None, end_reason=b["reason"], final_scores=tuple(b["scores"]),
                   winners=tuple(b["winners"]), draw=b["draw"])


HANDLERS: dict[str, Callable[[State, Body], State]] = {
    "MatchStarted": match_started,
    "HoldPrepared": hold_prepared,
    "GoldTaken": gold_taken,
    "CargoDrawn": cargo_drawn,
    "JourneyReturned": journey_returned,
    "JourneyPlaced": journey_placed,
    "TurnStarted": turn_started,
    "TraitorsShuffled": traitors_shuffled,
    "TraitorDealt": traitor_dealt,
    "TraitorDrafted": traitor_drafted,
    "TraitorsRevealed": traitors_revealed,
    "DiceRolled": dice_rolled,
    "DieColourChosen": die_colour_chosen,
    "TraitorPlayed": traitor_played,
    "SequenceSkipped": sequence_skipped,
    "GoldStolen": gold_stolen,
    "CargoStolen": cargo_stolen,
    "StealMissed": steal_missed,
    "AbilityUsed": ability_used,
    "DieRerolled": die_rerolled,
    "HoldTopSeen": hold_top_seen,
    "HoldRearranged": hold_rearranged,
    "GoldGiven": gold_given,
    "CargoGiven": cargo_given,
    "NothingGiven": nothing_given,
    "CargoThrown": cargo_thrown,
    "AlcoholPlaced": alcohol_placed,
    "SequenceEnded": sequence_ended,
    "TurnEnded": turn_ended,
    "MatchEnded": match_ended,
}


def evolve(state: State, event: Event) -> State:
    return HANDLERS[event.type](state, event.body)

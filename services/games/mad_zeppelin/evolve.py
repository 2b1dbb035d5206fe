"""Applying events: one small function per event type. No randomness, no validation.

Reducers run on every event of every playout and replay: the hottest build a ``Player`` or ``Sequence`` by
position rather than with ``_replace`` (see :mod:`~services.games.mad_zeppelin.state`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from schemas.game_schemas import MATCH_ABANDONED
from services.games.mad_zeppelin.data import ACTIVATED, BLACK, STANDING, TARGETS, WHITE
from services.games.mad_zeppelin.rules import taster_protected
from services.games.mad_zeppelin.state import ABANDONED, Note, Phase, Play, Player, Sequence, State
from services.games.skeleton import evolver

# the phases as module globals: reading a global is several times faster than an enum class attribute
_DEAL, _DRAFT, _ROLL, _COLOURS, _PLAY = Phase.DEAL, Phase.DRAFT, Phase.ROLL, Phase.COLOURS, Phase.PLAY
_ACTIONS, _TURN_START, _TURN_END, _OVER = Phase.ACTIONS, Phase.TURN_START, Phase.TURN_END, Phase.OVER

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
    return _player(state, seat, Player(p.gold + delta, p.hand, p.front, p.traitors, p.current, p.rerolls))


def _now(state: State) -> Sequence:
    if state.seq is None:
        raise ValueError("a sequence event arrived outside a player's sequence")
    return state.seq


def _seq(state: State, **changes: Any) -> Sequence:
    return _now(state)._replace(**changes)


def _note(state: State, seat: int, note: Note) -> tuple[tuple[Note, ...], ...]:
    notes = list(state.notes)
    notes[seat] = (*[n for n in notes[seat] if n[0] != note[0] or n[1] != note[1]], note)
    return tuple(notes)


def _start_round(state: State, number: int, **changes: Any) -> State:
    return state._replace(phase=_PLAY, round=number, seat=state.leader, seq=None, **changes)


def match_started(state: State, b: Body) -> State:
    n = b["seats"]
    mode = b["options"]["mode"]
    return State(seats=n, mode=mode, target=TARGETS[mode], players=(Player(),) * n,
                 notes=((),) * n)


def hold_prepared(state: State, b: Body) -> State:
    return state._replace(removed=tuple(b["removed"]), hold=tuple(b["hold"]))


def gold_taken(state: State, b: Body) -> State:
    gold = b["gold"]
    players = _gold(state, b["seat"], gold)
    if b["reason"] == "search":
        q = _now(state)
        seq = Sequence(q.seat, True, q.ability_used, q.copied, q.throw, q.arrange, q.give, q.steals)  # searched
        return state._replace(safe=state.safe - gold, players=players, seq=seq)
    return state._replace(safe=state.safe - gold, players=players)


def _top_taken(state: State) -> tuple[tuple[Note, ...], ...]:
    """A card left the top of the Hold: what the Geologist knows of the top moves up by one."""
    for notes in state.notes:  # plain loops: this runs on every card drawn
        for note in notes:
            if note[0] == "hold_top":
                return tuple(tuple((k, of, cards[1:]) if k == "hold_top" else (k, of, cards)
                                   for k, of, cards in seat_notes) for seat_notes in state.notes)
    return state.notes  # nothing to move (the same value a rebuild would give)


def cargo_drawn(state: State, b: Body) -> State:
    p = state.players[b["seat"]]
    return state._replace(hold=state.hold[1:], notes=_top_taken(state),
                          players=_player(state, b["seat"], Player(p.gold, _add(p.hand, state.hold[0]), p.front,
                                                                   p.traitors, p.current, p.rerolls)))


def journey_returned(state: State, b: Body) -> State:
    rest = state.hold[1:]
    at = b["position"]
    hold = rest[:at] + state.hold[:1] + rest[at:]
    return state._replace(hold=hold, safe=state.safe - b["gold"], players=_gold(state, b["seat"], b["gold"]))


def journey_placed(state: State, b: Body) -> State:
    return state._replace(hold=state.hold[1:], notes=_top_taken(state), journeys=state.journeys + 1,
                          safe=state.safe - b["gold"],
                          players=_gold(state, b["seat"], b["gold"]))


def turn_started(state: State, b: Body) -> State:
    players = tuple(p._replace(traitors=(), current=-1, rerolls=0) for p in state.players)
    return state._replace(phase=_DEAL, turn=b["turn"], leader=b["leader"], round=0, seat=b["leader"],
                          players=players, airsick=(), pool=(), dice=(), plays=(), bans=(), watches=(),
                          seq=None, notes=((),) * state.seats)


def traitors_shuffled(state: State, b: Body) -> State:
    return state._replace(phase=_DRAFT, seat=state.leader, airsick=tuple(b["airsick"]),
                          pool=tuple(b["pool"]))


def _dealt(state: State, b: Body) -> tuple[Player, ...]:
    p = state.players[b["seat"]]
    return _player(state, b["seat"], Player(p.gold, p.hand, p.front, _add(p.traitors, b["traitor"]), p.current,
                                            p.rerolls))


def traitor_dealt(state: State, b: Body) -> State:
    return state._replace(players=_dealt(state, b))


def traitor_drafted(state: State, b: Body) -> State:
    nxt = (b["seat"] + 1) % state.seats
    phase = _ROLL if nxt == state.leader else _DRAFT
    return state._replace(players=_dealt(state, b), pool=_take(state.pool, b["traitor"]), seat=nxt,
                          phase=phase)


def traitors_revealed(state: State, b: Body) -> State:
    kind = "unused" if b["source"] == "leader" or b["of"] is None else "traitors"
    of = -1 if b["of"] is None else b["of"]
    return state._replace(notes=_note(state, b["seat"], (kind, of, tuple(b["traitors"]))))


def dice_rolled(state: State, b: Body) -> State:
    dice = tuple(b["faces"])
    return state._replace(dice=dice, phase=_COLOURS) if WHITE in dice else _start_round(state, 1, dice=dice)


def die_colour_chosen(state: State, b: Body) -> State:
    dice = list(state.dice)
    dice[b["die"]] = b["colour"]
    if state.phase == _COLOURS and WHITE not in dice:
        return _start_round(state, 1, dice=tuple(dice))
    return state._replace(dice=tuple(dice))


def traitor_played(state: State, b: Body) -> State:
    seat, traitor = b["seat"], b["traitor"]
    p = state.players[seat]
    plays = (*state.plays, Play(seat, traitor, traitor))
    player = Player(p.gold, p.hand, p.front, _take(p.traitors, traitor), len(plays) - 1, p.rerolls)
    watches = state.watches
    thieves = tuple(thief for thief, named in watches if named == traitor and thief != seat) if watches else ()
    seq = Sequence(seat, False, traitor in STANDING, None, 0, 0, -1, thieves)  # by position: the hot path
    return state._replace(phase=_ACTIONS, seat=seat, plays=plays, players=_player(state, seat, player),
                          seq=seq)


def _next_seat(state: State, **changes: Any) -> State:
    nxt = (state.seat + 1) % state.seats
    if nxt != state.leader:
        return state._replace(phase=_PLAY, seat=nxt, seq=None, **changes)
    if state.round == 1:
        return _start_round(state, 2, **changes)
    return state._replace(phase=_TURN_END, seq=None, **changes)


def sequence_skipped(state: State, b: Body) -> State:
    p = state.players[b["seat"]]
    return _next_seat(state, players=_player(state, b["seat"], p._replace(current=-1)))


def sequence_ended(state: State, b: Body) -> State:
    return _next_seat(state)


def _steal_done(state: State) -> Sequence:
    seq = _now(state)
    return seq._replace(steals=seq.steals[1:])


def _transfer(state: State, giver: int, receiver: int) -> tuple[Player, ...]:
    players = list(state.players)
    players[giver] = players[giver]._replace(gold=players[giver].gold - 1)
    players[receiver] = players[receiver]._replace(gold=players[receiver].gold + 1)
    return tuple(players)


def gold_stolen(state: State, b: Body) -> State:
    return state._replace(players=_transfer(state, b["victim"], b["thief"]), seq=_steal_done(state))


def _move_card(state: State, giver: int, receiver: int, card: str) -> tuple[Player, ...]:
    players = list(state.players)
    players[giver] = players[giver]._replace(hand=_take(players[giver].hand, card))
    players[receiver] = players[receiver]._replace(hand=_add(players[receiver].hand, card))
    return tuple(players)


def cargo_stolen(state: State, b: Body) -> State:
    players = _move_card(state, b["victim"], b["thief"], b["card"])
    return state._replace(players=players, seq=_steal_done(state))


def steal_missed(state: State, b: Body) -> State:
    return state._replace(seq=_steal_done(state))


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
    plays[index] = plays[index]._replace(identity=new_identity)
    copied = new_identity if new_identity in ACTIVATED else None
    return state._replace(plays=tuple(plays), seq=_seq(state, copied=copied))


def ability_used(state: State, b: Body) -> State:
    seat, ability = b["seat"], b["ability"]
    q = _now(state)
    seq = Sequence(q.seat, q.searched, True, None, q.throw, q.arrange, q.give, q.steals)  # used, nothing copied
    if ability == "captain":
        return state._replace(seq=seq, watches=(*state.watches, (seat, b["traitor"])))
    if ability == "doctor":
        return state._replace(seq=seq, bans=_ban(state, seat, b["traitor"]))
    if ability == "stowaway":
        state = state._replace(seq=seq, bans=_ban(state, seat, b["traitor"]))
        return _take_on(state, seat, b["traitor"])
    if ability == "shadow":
        return _take_on(state._replace(seq=seq), seat, b["copied"])
    if ability == "anarchist":
        dice = list(state.dice)
        dice[b["die"]] = BLACK
        return state._replace(seq=seq, dice=tuple(dice))
    if ability == "negotiator":
        return state._replace(seq=seq._replace(give=b["target"]))
    return state._replace(seq=seq)


def die_rerolled(state: State, b: Body) -> State:
    dice = list(state.dice)
    dice[b["die"]] = b["face"]
    p = state.players[b["seat"]]
    players = _player(state, b["seat"], p._replace(rerolls=p.rerolls + 1))
    return state._replace(dice=tuple(dice), players=players)


def hold_top_seen(state: State, b: Body) -> State:
    cards = tuple(b["cards"])
    arrange = len(cards) if len(cards) > 1 else 0
    return state._replace(seq=_seq(state, arrange=arrange),
                          notes=_note(state, b["seat"], ("hold_top", -1, cards)))


def hold_rearranged(state: State, b: Body) -> State:
    n = len(b["order"])
    top = tuple(state.hold[i] for i in b["order"])
    return state._replace(hold=top + state.hold[n:], seq=_seq(state, arrange=0),
                          notes=_note(state, b["seat"], ("hold_top", -1, top)))


def gold_given(state: State, b: Body) -> State:
    return state._replace(players=_transfer(state, b["giver"], b["receiver"]), seq=_seq(state, give=-1))


def cargo_given(state: State, b: Body) -> State:
    return state._replace(players=_move_card(state, b["giver"], b["receiver"], b["card"]),
                          seq=_seq(state, give=-1))


def nothing_given(state: State, b: Body) -> State:
    return state._replace(seq=_seq(state, give=-1))


def _thrown(state: State) -> Sequence:
    q = _now(state)
    after = 2 if q.throw or state.plays[state.players[q.seat].current].identity != "opportunist" else 1
    return Sequence(q.seat, q.searched, q.ability_used, None, after, q.arrange, q.give, q.steals)  # nothing copied


def cargo_thrown(state: State, b: Body) -> State:
    seat = b["seat"]
    p = state.players[seat]
    hand = _take(p.hand, b["card"])
    for crate in b["crates"]:
        hand = _take(hand, crate)
    player = p._replace(hand=hand, front=_add(p.front, b["card"]), gold=p.gold - b["gold"])
    return state._replace(players=_player(state, seat, player), safe=state.safe + b["gold"],
                          discard=_add(state.discard, *b["crates"]), seq=_thrown(state))


def alcohol_placed(state: State, b: Body) -> State:
    p = state.players[b["seat"]]
    player = p._replace(hand=_take(p.hand, "alcohol"), front=_add(p.front, "alcohol"))
    return state._replace(players=_player(state, b["seat"], player), seq=_thrown(state))


def turn_ended(state: State, b: Body) -> State:
    return state._replace(phase=_TURN_START)


def match_ended(state: State, b: Body) -> State:
    return state._replace(phase=_OVER, seq=None, end_reason=b["reason"], final_scores=tuple(b["scores"]),
                          winners=tuple(b["winners"]), draw=b["draw"])


def match_abandoned(state: State, b: Body) -> State:
    return state._replace(phase=_OVER, seq=None, end_reason=ABANDONED, final_scores=(0,) * state.seats, winners=(),
                          draw=False)


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
    MATCH_ABANDONED: match_abandoned,
}


evolve = evolver(HANDLERS)
"""``evolve(state, event)``: the handler of the event's type (``services.games.skeleton.evolver``)."""

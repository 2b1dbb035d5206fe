"""Applying events: one small function per event type, dispatched by a dict. No randomness, no checks.

This is the replay fold (every state a worker, projector or ``airship replay`` rebuilds goes through
it), so handlers replace the state once where they can, change token tuples in place on a list copy,
and read event bodies straight into indices rather than through intermediate tuples.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from schemas.game_schemas import MATCH_ABANDONED
from services.games.abandon import abandoned_outcome
from services.games.base import Outcome
from services.games.modern_world.codec import event_ids, market_ids, res_ids, token_tuple
from services.games.modern_world.data import (
    ACTION,
    EVENT_INDEX,
    INFLUENCE,
    LABOR,
    MARKET_INDEX,
    MARKETS,
    MATERIALS,
    MONEY,
    MONEY_PER_TOKEN,
    NATION_NAMES,
    RESEARCH,
    RESOURCE_INDEX,
    START_TOKENS,
    TABLEAU_SIZE,
    TOKEN_INDEX,
)
from services.games.modern_world.state import (
    PHASE_OF,
    Auction,
    Phase,
    Player,
    State,
    Trade,
    add_tokens,
    remove_cards,
    sorted_add,
)
from services.games.skeleton import evolver

Body = dict[str, Any]
T = TypeVar("T", bound=tuple[Any, ...])
_new = tuple.__new__  # builds a NamedTuple from its values without the generated __new__'s keyword handling
_TRADE = Phase.TRADE  # hoisted: an enum member lookup costs ~0.1 us on the hot path


def _field_setter(cls: type[T], name: str) -> Callable[[T, Any], T]:
    """``lambda x, v: x._replace(name=v)`` without the keyword handling: the hottest replacements."""
    i = cls._fields.index(name)  # type: ignore[attr-defined]

    def set_(x: T, value: Any) -> T:
        values = list(x)
        values[i] = value
        return _new(cls, values)

    return set_


def _fields_setter(cls: type[T], *names: str) -> Callable[..., T]:
    """``lambda x, *v: x._replace(**dict(zip(names, v)))`` without the keyword handling."""
    where = tuple(cls._fields.index(name) for name in names)  # type: ignore[attr-defined]

    def set_(x: T, *changed: Any) -> T:
        values = list(x)
        for i, value in zip(where, changed, strict=True):
            values[i] = value
        return _new(cls, values)

    return set_


_set_auction = _field_setter(State, "auction")
_set_players = _field_setter(State, "players")
_set_trades = _field_setter(State, "trades")
_set_tokens = _field_setter(Player, "tokens")
_set_tokens_hand = _fields_setter(Player, "tokens", "hand")
_set_bought = _fields_setter(State, "players", "tableau", "resource_deck")
_set_queue_builds = _fields_setter(State, "queue", "builds")
_set_done_trades = _fields_setter(State, "done", "trades")
_set_proposed = _fields_setter(State, "trades", "next_trade_id", "proposals")
_set_players_discard = _fields_setter(State, "players", "resource_discard")


def _with(players: tuple[Player, ...], seat: int, player: Player) -> tuple[Player, ...]:
    """``players`` with ``seat``'s replaced (a list copy beats slicing and concatenating)."""
    out = list(players)
    out[seat] = player
    return tuple(out)


def _player(state: State, seat: int, player: Player) -> State:
    return _set_players(state, _with(state.players, seat, player))


def _gain(tokens: tuple[int, ...], counts: dict[str, int]) -> tuple[int, ...]:
    """``tokens`` plus a wire {name: count} map (as ``add_tokens(tokens, token_tuple(counts))``)."""
    if not counts:
        return tokens
    out = list(tokens)
    for name, n in counts.items():
        out[TOKEN_INDEX[name]] += n
    return tuple(out)


def _tokens(state: State, seat: int, index: int, delta: int) -> State:
    p = state.players[seat]
    tokens = list(p.tokens)
    tokens[index] += delta
    return _player(state, seat, _set_tokens(p, tuple(tokens)))


def match_started(state: State, b: Body) -> State:
    n = b["seats"]
    return State(
        seats=n,
        national_identity=bool(b["options"].get("national_identity", False)),
        phase=Phase.SETUP,
        players=tuple(Player(tokens=START_TOKENS) for _ in range(n)),
        proposals=(0,) * n,
    )


def decks_shuffled(state: State, b: Body) -> State:
    return state._replace(
        resource_deck=res_ids(b["resource"]),
        market_deck=market_ids(b["market"]),
        event_deck=event_ids(b["events"]),
    )


def leader_chosen(state: State, b: Body) -> State:
    return state._replace(leader=b["seat"])


def nation_picked(state: State, b: Body) -> State:
    seat, card = b["seat"], RESOURCE_INDEX[b["card"]]
    deck = list(state.resource_deck)
    deck.remove(card)
    p = state.players[seat]
    p = p._replace(nation=b["nation"], in_play=sorted_add(p.in_play, (card,)))
    left = tuple(n for n in state.nations_left if n != b["nation"])
    return state._replace(
        players=_with(state.players, seat, p), resource_deck=tuple(deck), nations_left=left, queue=state.queue[1:]
    )


def tableau_dealt(state: State, b: Body) -> State:
    k = len(b["cards"])
    return state._replace(tableau=state.resource_deck[:k], resource_deck=state.resource_deck[k:])


def turn_started(state: State, b: Body) -> State:
    return state._replace(turn=b["turn"], skipped=(), skip_build=(), extra_markets=0)


def tokens_produced(state: State, b: Body) -> State:
    players = tuple(p._replace(tokens=_gain(p.tokens, g)) for p, g in zip(state.players, b["gains"], strict=True))
    return state._replace(players=players)


def event_flipped(state: State, b: Body) -> State:
    return state._replace(event_deck=state.event_deck[1:], current_event=EVENT_INDEX[b["card"]])


def no_change(state: State, b: Body) -> State:
    return state


def tokens_changed(state: State, b: Body) -> State:
    return _tokens(state, b["seat"], TOKEN_INDEX[b["token"]], b["delta"])


def permanent_event_taken(state: State, b: Body) -> State:
    seat = b["seat"]
    p = state.players[seat]
    p = p._replace(permanents=(*p.permanents, EVENT_INDEX[b["card"]]))
    return state._replace(players=_with(state.players, seat, p), current_event=None)


def event_discarded(state: State, b: Body) -> State:
    return state._replace(current_event=None, event_discard=(*state.event_discard, EVENT_INDEX[b["card"]]))


def skip_ordered(state: State, b: Body) -> State:
    if b["seat"] is None:
        return state._replace(skipped=(*state.skipped, b["phase"]))
    return state._replace(skip_build=(*state.skip_build, b["seat"]))


def markets_added(state: State, b: Body) -> State:
    return state._replace(extra_markets=state.extra_markets + b["count"])


def phase_started(state: State, b: Body) -> State:
    phase = PHASE_OF[b["phase"]]
    if phase == Phase.TRADE:
        return state._replace(
            phase=phase, queue=tuple(b["order"]), builds=0, auction=None,
            done=(), trades=(), proposals=(0,) * state.seats,
        )
    if phase == Phase.NATIONS:
        return state._replace(
            phase=phase, queue=tuple(b["order"]), builds=0, auction=None, nations_left=NATION_NAMES
        )
    return state._replace(phase=phase, queue=tuple(b["order"]), builds=0, auction=None)


def market_cards_drawn(state: State, b: Body) -> State:
    k = len(b["cards"])
    return state._replace(
        market_row=state.market_row + state.market_deck[:k], market_deck=state.market_deck[k:]
    )


def market_deck_reshuffled(state: State, b: Body) -> State:
    return state._replace(market_deck=market_ids(b["cards"]), market_discard=())


def auction_started(state: State, b: Body) -> State:
    card = b["card"]
    return state._replace(auction=Auction(None if card is None else MARKET_INDEX[card], b["first"]))


def bid_placed(state: State, b: Body) -> State:
    a = state.auction
    assert a is not None
    seat = b["seat"]
    return _set_auction(state, _new(Auction, (a.card, (seat + 1) % state.seats, b["amount"], seat, 0)))


def bid_passed(state: State, b: Body) -> State:
    a = state.auction
    assert a is not None
    turn = (b["seat"] + 1) % state.seats
    return _set_auction(state, _new(Auction, (a.card, turn, a.high_bid, a.high_bidder, a.passes + 1)))


def auction_won(state: State, b: Body) -> State:
    seat = b["seat"]
    p = state.players[seat]
    tokens = list(p.tokens)
    tokens[INFLUENCE] -= b["bid"]
    if b["card"] is None:
        p = p._replace(tokens=tuple(tokens))
        return state._replace(players=_with(state.players, seat, p), leader=seat, auction=None)
    card = MARKET_INDEX[b["card"]]
    m = MARKETS[card]
    tokens[m.token] += m.amount
    return state._replace(
        players=_with(state.players, seat, p._replace(tokens=tuple(tokens))),
        auction=None,
        market_row=state.market_row[1:],
        market_discard=(*state.market_discard, card),
    )


def auction_unsold(state: State, b: Body) -> State:
    if b["card"] is None:
        return state._replace(auction=None)
    card = MARKET_INDEX[b["card"]]
    return state._replace(
        auction=None, market_row=state.market_row[1:], market_discard=(*state.market_discard, card)
    )


def card_bought(state: State, b: Body) -> State:
    seat, pos = b["seat"], b["position"] - 1
    p = state.players[seat]
    tokens = list(p.tokens)
    tokens[ACTION] -= b["action"]
    tokens[RESEARCH] -= b["research"]
    tableau = list(state.tableau)
    card = tableau.pop(pos)
    p = _set_tokens_hand(p, tuple(tokens), sorted_add(p.hand, (card,)))
    deck = state.resource_deck
    if deck and len(tableau) < TABLEAU_SIZE:
        tableau.append(deck[0])
        deck = deck[1:]
    return _set_bought(state, _with(state.players, seat, p), tuple(tableau), deck)


def player_done(state: State, b: Body) -> State:
    seat = b["seat"]
    if state.phase == _TRADE:
        trades = tuple(t for t in state.trades if t.frm != seat and t.to != seat)
        return _set_done_trades(state, (*state.done, seat), trades)
    return _set_queue_builds(state, state.queue[1:], 0)


def cards_invested(state: State, b: Body) -> State:
    seat = b["seat"]
    cards = res_ids(b["cards"])
    p = state.players[seat]
    p = _set_tokens_hand(p, _gain(p.tokens, b["gains"]), remove_cards(p.hand, cards))
    return _set_players_discard(state, _with(state.players, seat, p), state.resource_discard + cards)


def trade_proposed(state: State, b: Body) -> State:
    frm = b["proposer"]
    give, get = b["give"], b["get"]
    trade = _new(Trade, (
        b["id"], frm, b["partner"],
        res_ids(give["cards"]), token_tuple(give["tokens"]),
        res_ids(get["cards"]), token_tuple(get["tokens"]),
    ))
    proposals = list(state.proposals)
    proposals[frm] += 1
    return _set_proposed(state, (*state.trades, trade), b["id"] + 1, tuple(proposals))


def _close(state: State, trade_id: int) -> State:
    return _set_trades(state, tuple(t for t in state.trades if t.id != trade_id))


def trade_accepted(state: State, b: Body) -> State:
    t = next(t for t in state.trades if t.id == b["id"])
    a, c = state.players[t.frm], state.players[t.to]
    a = a._replace(
        hand=sorted_add(remove_cards(a.hand, t.give_cards), t.get_cards),
        tokens=add_tokens(add_tokens(a.tokens, t.give_tokens, -1), t.get_tokens),
    )
    c = c._replace(
        hand=sorted_add(remove_cards(c.hand, t.get_cards), t.give_cards),
        tokens=add_tokens(add_tokens(c.tokens, t.get_tokens, -1), t.give_tokens),
    )
    players = list(state.players)
    players[t.frm] = a
    players[t.to] = c
    return state._replace(players=tuple(players), trades=tuple(x for x in state.trades if x.id != t.id))


def trade_closed(state: State, b: Body) -> State:
    return _close(state, b["id"])


def card_built(state: State, b: Body) -> State:
    seat = b["seat"]
    card = RESOURCE_INDEX[b["card"]]
    p = state.players[seat]
    tokens = list(p.tokens)
    tokens[MATERIALS] -= b["materials"]
    tokens[LABOR] -= b["labor"]
    hand, in_play = remove_cards(p.hand, (card,)), sorted_add(p.in_play, (card,))
    p = p._replace(tokens=tuple(tokens), hand=hand, in_play=in_play)
    return state._replace(players=_with(state.players, seat, p), builds=state.builds + 1)


def cards_discarded(state: State, b: Body) -> State:
    seat = b["seat"]
    cards = res_ids(b["cards"])
    p = state.players[seat]
    return state._replace(
        players=_with(state.players, seat, p._replace(hand=remove_cards(p.hand, cards))),
        resource_discard=state.resource_discard + cards,
        queue=tuple(s for s in state.queue if s != seat),
    )


def money_converted(state: State, b: Body) -> State:
    seat, count = b["seat"], b["count"]
    p = state.players[seat]
    tokens = list(p.tokens)
    tokens[MONEY] -= MONEY_PER_TOKEN * count
    tokens[TOKEN_INDEX[b["into"]]] += count
    return _player(state, seat, _set_tokens(p, tuple(tokens)))


def game_ended(state: State, b: Body) -> State:
    detail = {"reason": b["reason"], "turns": state.turn}
    outcome = Outcome(scores=tuple(b["scores"]), winners=tuple(b["winners"]), detail=detail)
    return state._replace(phase=Phase.OVER, outcome=outcome, queue=(), auction=None, trades=())


def match_abandoned(state: State, b: Body) -> State:
    return state._replace(phase=Phase.OVER, outcome=abandoned_outcome(state.seats), queue=(), auction=None,
                          trades=())


HANDLERS: dict[str, Callable[[State, Body], State]] = {
    "MatchStarted": match_started,
    "DecksShuffled": decks_shuffled,
    "LeaderChosen": leader_chosen,
    "NationPicked": nation_picked,
    "TableauDealt": tableau_dealt,
    "TurnStarted": turn_started,
    "TokensProduced": tokens_produced,
    "EventFlipped": event_flipped,
    "TieBroken": no_change,
    "RandomPlayerChosen": no_change,
    "TokensChanged": tokens_changed,
    "PermanentEventTaken": permanent_event_taken,
    "EventDiscarded": event_discarded,
    "SkipOrdered": skip_ordered,
    "PhaseSkipped": no_change,
    "MarketsAdded": markets_added,
    "PhaseStarted": phase_started,
    "MarketCardsDrawn": market_cards_drawn,
    "MarketDeckReshuffled": market_deck_reshuffled,
    "AuctionStarted": auction_started,
    "BidPlaced": bid_placed,
    "BidPassed": bid_passed,
    "AuctionWon": auction_won,
    "AuctionUnsold": auction_unsold,
    "CardBought": card_bought,
    "PlayerDone": player_done,
    "CardsInvested": cards_invested,
    "TradeProposed": trade_proposed,
    "TradeAccepted": trade_accepted,
    "TradeDeclined": trade_closed,
    "TradeRefused": trade_closed,
    "CardBuilt": card_built,
    "CardsDiscarded": cards_discarded,
    "MoneyConverted": money_converted,
    "GameEnded": game_ended,
    MATCH_ABANDONED: match_abandoned,
}


evolve = evolver(HANDLERS)
"""``evolve(state, event)``: the handler of the event's type (``services.games.skeleton.evolver``)."""


__all__ = ["HANDLERS", "evolve"]

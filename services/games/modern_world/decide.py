"""Deciding commands: check a command against the rules and return the events it causes.

Checks run in a fixed order: the match is running, the command type exists, the seat may act now,
the command fits the phase, the body is well formed, the rules allow it. Any failure raises a
``Rejected`` with a reason a player understands; the state is never touched.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from services.games.base import Command, Event
from services.games.errors import BadCommand, GameOver, IllegalMove, NotYourTurn
from services.games.fields import count_map_field, int_field, str_field, str_list_field
from services.games.modern_world.codec import res_names, token_map, token_tuple
from services.games.modern_world.data import (
    ACTION,
    BUILD_COST,
    BUILD_COST_DUPLICATE,
    HAND_LIMIT,
    INFLUENCE,
    INVEST_FACTOR,
    LABOR,
    MATERIALS,
    MAX_OPEN_PROPOSALS,
    MONEY,
    MONEY_PER_TOKEN,
    NATIONS,
    RESEARCH,
    RESOURCE_INDEX,
    RESOURCES,
    TOKEN_INDEX,
    TOKENS,
)
from services.games.modern_world.flow import Flow
from services.games.modern_world.state import (
    BUILD,
    END,
    INVESTMENT,
    LEADER,
    MARKET,
    OVER,
    RESOURCE,
    SETUP,
    TRADE,
    State,
    Trade,
    covers,
    has_cards,
)
from services.games.modern_world.state import (
    NATIONS as NATIONS_PHASE,
)

Body = dict[str, Any]
CONVERTIBLE = tuple(t for t in TOKENS if t != "money")
AUCTIONS = (LEADER, MARKET)
MAX_TRADE_CARDS = 20


def to_act(state: State) -> frozenset[int]:
    phase = state.phase
    if phase in AUCTIONS:
        return frozenset() if state.auction is None else frozenset((state.auction.turn,))
    if phase == TRADE:
        return frozenset(i for i in range(state.seats) if i not in state.done)
    if phase == END:
        return frozenset(state.queue)
    if phase in (RESOURCE, INVESTMENT, BUILD, NATIONS_PHASE):
        return frozenset(state.queue[:1])
    return frozenset()


def decide(state: State, command: Command, rng: random.Random) -> list[Event]:
    if state.phase == OVER:
        raise GameOver("the match is over")
    if state.phase == SETUP:
        raise IllegalMove("the match has not started")
    handler = HANDLERS.get(command.type)
    if handler is None:
        raise BadCommand(f"unknown command '{command.type}'; known: {', '.join(sorted(HANDLERS))}")
    seat = command.seat
    if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < state.seats:
        raise BadCommand(f"there is no seat {seat} in this {state.seats}-player match")
    acting = to_act(state)
    if seat not in acting:
        who = ", ".join(str(s) for s in sorted(acting))
        seats = "seat" if len(acting) == 1 else "seats"
        raise NotYourTurn(f"it is not your turn: waiting for {seats} {who} in the {state.phase} phase")
    phases, fields, fn = handler
    if state.phase not in phases:
        raise IllegalMove(f"'{command.type}' is not allowed in the {state.phase} phase")
    if not isinstance(command.body, dict):
        raise BadCommand("the command body must be a mapping")
    if not fields.issuperset(command.body):
        unknown = ", ".join(sorted(str(k) for k in command.body if k not in fields))
        raise BadCommand(f"unknown field(s) {unknown} for '{command.type}'")
    flow = Flow(state, rng)
    fn(flow, seat, command.body)
    return flow.events


# ---------------------------------------------------------------------------- any phase


def convert(flow: Flow, seat: int, body: Body) -> None:
    into = str_field(body, "into", CONVERTIBLE)
    count = int_field(body, "count", lo=1, hi=1000) if "count" in body else 1
    money = flow.state.players[seat].tokens[MONEY]
    if count * MONEY_PER_TOKEN > money:
        raise IllegalMove(
            f"converting into {count} {into} needs {count * MONEY_PER_TOKEN} money; you have {money}"
        )
    flow.emit("MoneyConverted", {"seat": seat, "into": into, "count": count})


# ---------------------------------------------------------------------------- set-up


def pick_nation(flow: Flow, seat: int, body: Body) -> None:
    nation = str_field(body, "nation", NATIONS)
    s = flow.state
    if nation not in s.nations_left:
        raise IllegalMove(f"{nation} is already taken; left: {', '.join(s.nations_left)}")
    flow.emit("NationPicked", {"seat": seat, "nation": nation, "card": NATIONS[nation]})
    if not flow.state.queue:
        flow.deal_tableau()
        flow.start_turn()


# ---------------------------------------------------------------------------- auctions


def bid(flow: Flow, seat: int, body: Body) -> None:
    amount = int_field(body, "amount")
    a = flow.state.auction
    if a is None:  # pragma: no cover - to_act is empty without an auction
        raise IllegalMove("there is no auction running")
    least = a.high_bid + 1
    if amount < least:
        raise IllegalMove(f"bid {amount} is too low: the least you may bid is {least}")
    have = flow.state.players[seat].tokens[INFLUENCE]
    if amount > have:
        raise IllegalMove(f"bid {amount} exceeds your {have} influence")
    flow.emit("BidPlaced", {"seat": seat, "amount": amount})


def pass_(flow: Flow, seat: int, body: Body) -> None:
    flow.emit("BidPassed", {"seat": seat})
    a = flow.state.auction
    if a is None:  # pragma: no cover
        return
    needed = flow.state.seats if a.high_bidder is None else flow.state.seats - 1
    if a.passes >= needed:
        flow.auction_over()


# ---------------------------------------------------------------------------- resource phase


def buy(flow: Flow, seat: int, body: Body) -> None:
    s = flow.state
    if not s.tableau:
        raise IllegalMove("the tableau is empty")
    position = int_field(body, "position", lo=1, hi=len(s.tableau))
    action = int_field(body, "action", lo=0) if "action" in body else 0
    research = int_field(body, "research", lo=0) if "research" in body else 0
    if action + research != position:
        raise IllegalMove(
            f"the card at position {position} costs {position}; you offered {action} action "
            f"+ {research} research = {action + research}"
        )
    tokens = s.players[seat].tokens
    if action > tokens[ACTION] or research > tokens[RESEARCH]:
        raise IllegalMove(
            f"you cannot pay {action} action and {research} research: you have "
            f"{tokens[ACTION]} action and {tokens[RESEARCH]} research"
        )
    refill = res_names(s.resource_deck[:1])
    flow.emit(
        "CardBought",
        {
            "seat": seat,
            "position": position,
            "card": RESOURCES[s.tableau[position - 1]].name,
            "action": action,
            "research": research,
            "refill": refill[0] if refill else None,
        },
    )


def done(flow: Flow, seat: int, body: Body) -> None:
    s = flow.state
    if s.phase == TRADE:
        lapsed = [t.id for t in s.trades if seat in (t.frm, t.to)]
        flow.emit("PlayerDone", {"seat": seat, "phase": TRADE, "lapsed": lapsed})
        if len(flow.state.done) == s.seats:
            flow.phase_over()
        return
    flow.emit("PlayerDone", {"seat": seat, "phase": s.phase, "lapsed": []})
    if not flow.state.queue:
        flow.phase_over()


# ---------------------------------------------------------------------------- investment, end


def _cards_in_hand(flow: Flow, seat: int, body: Body) -> tuple[int, ...]:
    names = str_list_field(body, "cards", RESOURCE_INDEX, max_len=200)
    if not names:
        raise BadCommand("'cards' must name at least one card")
    cards = tuple(RESOURCE_INDEX[n] for n in names)
    if not has_cards(flow.state.players[seat].hand, cards):
        raise IllegalMove(f"you do not hold all of {', '.join(names)}")
    return cards


def invest(flow: Flow, seat: int, body: Body) -> None:
    cards = _cards_in_hand(flow, seat, body)
    gains = [0] * 7
    for c in cards:
        for i, n in enumerate(RESOURCES[c].production):
            gains[i] += INVEST_FACTOR * n
    flow.emit("CardsInvested", {"seat": seat, "cards": res_names(cards), "gains": token_map(gains)})


def discard(flow: Flow, seat: int, body: Body) -> None:
    cards = _cards_in_hand(flow, seat, body)
    excess = len(flow.state.players[seat].hand) - HAND_LIMIT
    if len(cards) != excess:
        raise IllegalMove(f"you hold {excess + HAND_LIMIT} cards: discard exactly {excess}, not {len(cards)}")
    flow.emit("CardsDiscarded", {"seat": seat, "cards": res_names(cards)})
    if not flow.state.queue:
        flow.phase_over()


# ---------------------------------------------------------------------------- build


def build_cost(state: State, seat: int, card: int) -> int:
    base = BUILD_COST_DUPLICATE if card in state.players[seat].in_play else BUILD_COST
    return base + state.builds


def build(flow: Flow, seat: int, body: Body) -> None:
    name = str_field(body, "card", RESOURCE_INDEX)
    card = RESOURCE_INDEX[name]
    s = flow.state
    p = s.players[seat]
    if card not in p.hand:
        raise IllegalMove(f"you do not hold {name}")
    cost = build_cost(s, seat, card)
    if p.tokens[MATERIALS] < cost or p.tokens[LABOR] < cost:
        raise IllegalMove(
            f"building {name} costs {cost} materials and {cost} labor; you have "
            f"{p.tokens[MATERIALS]} materials and {p.tokens[LABOR]} labor"
        )
    flow.emit("CardBuilt", {"seat": seat, "card": name, "materials": cost, "labor": cost})


# ---------------------------------------------------------------------------- trade


def _side(body: Body, cards_key: str, tokens_key: str) -> tuple[tuple[int, ...], tuple[int, ...]]:
    names = str_list_field(body, cards_key, RESOURCE_INDEX, MAX_TRADE_CARDS) if cards_key in body else []
    tokens = count_map_field(body, tokens_key, TOKEN_INDEX) if tokens_key in body else {}
    return tuple(RESOURCE_INDEX[n] for n in names), token_tuple(tokens)


def side_body(cards: tuple[int, ...], tokens: tuple[int, ...]) -> Body:
    return {"cards": res_names(cards), "card_count": len(cards), "tokens": token_map(tokens)}


def open_proposals(state: State, seat: int) -> int:
    """Proposals by ``seat`` not yet accepted, declined, refused or lapsed."""
    return sum(1 for t in state.trades if t.frm == seat)


def propose_trade(flow: Flow, seat: int, body: Body) -> None:
    s = flow.state
    to = int_field(body, "to", lo=0, hi=s.seats - 1)
    give_cards, give_tokens = _side(body, "give_cards", "give_tokens")
    get_cards, get_tokens = _side(body, "get_cards", "get_tokens")
    if to == seat:
        raise IllegalMove("you cannot trade with yourself")
    if to in s.done:
        raise IllegalMove(f"seat {to} has finished trading")
    if open_proposals(s, seat) >= MAX_OPEN_PROPOSALS:
        raise IllegalMove(
            f"you already have {MAX_OPEN_PROPOSALS} proposals open; wait for an answer before proposing again"
        )
    if not (give_cards or get_cards or any(give_tokens) or any(get_tokens)):
        raise IllegalMove("a trade must move at least one card or token")
    p = s.players[seat]
    if not has_cards(p.hand, give_cards):
        raise IllegalMove(f"you do not hold all of {', '.join(res_names(give_cards))}")
    if not covers(p.tokens, give_tokens):
        raise IllegalMove(f"you do not have {_tokens_text(give_tokens)}")
    tid = s.next_trade_id
    give, get = side_body(give_cards, give_tokens), side_body(get_cards, get_tokens)
    flow.emit(
        "TradeProposed",
        {"id": tid, "proposer": seat, "partner": to, "give": give, "get": get},
        visible_to=(seat, to),
        redacted={"id": tid, "proposer": seat, "partner": to, "give": None, "get": None},
    )


def _tokens_text(tokens: tuple[int, ...]) -> str:
    return ", ".join(f"{n} {TOKENS[i]}" for i, n in enumerate(tokens) if n) or "nothing"


def _offer_to(flow: Flow, seat: int, body: Body) -> Trade:
    tid = int_field(body, "id", lo=1)
    for t in flow.state.trades:
        if t.id == tid:
            if t.to != seat:
                raise IllegalMove(f"trade {tid} was not offered to you")
            return t
    raise IllegalMove(f"there is no open trade {tid}")


def accept_trade(flow: Flow, seat: int, body: Body) -> None:
    t = _offer_to(flow, seat, body)
    me, them = flow.state.players[seat], flow.state.players[t.frm]
    if not has_cards(me.hand, t.get_cards):
        raise IllegalMove(f"you do not hold all of {', '.join(res_names(t.get_cards))}")
    if not covers(me.tokens, t.get_tokens):
        raise IllegalMove(f"you do not have {_tokens_text(t.get_tokens)}")
    if not has_cards(them.hand, t.give_cards) or not covers(them.tokens, t.give_tokens):
        flow.emit("TradeRefused", {"id": t.id, "reason": f"seat {t.frm} can no longer pay"})
        return
    give, get = side_body(t.give_cards, t.give_tokens), side_body(t.get_cards, t.get_tokens)
    hidden = {**give, "cards": None}, {**get, "cards": None}
    flow.emit(
        "TradeAccepted",
        {"id": t.id, "proposer": t.frm, "partner": seat, "give": give, "get": get},
        visible_to=(t.frm, seat),
        redacted={"id": t.id, "proposer": t.frm, "partner": seat, "give": hidden[0], "get": hidden[1]},
    )


def decline_trade(flow: Flow, seat: int, body: Body) -> None:
    t = _offer_to(flow, seat, body)
    flow.emit("TradeDeclined", {"id": t.id, "seat": seat})


Handler = Callable[[Flow, int, Body], None]
ANY = (NATIONS_PHASE, LEADER, MARKET, RESOURCE, INVESTMENT, TRADE, BUILD, END)
TRADE_FIELDS = frozenset(("to", "give_cards", "give_tokens", "get_cards", "get_tokens"))
NONE: frozenset[str] = frozenset()
# command type -> (phases it is allowed in, body fields, handler)
HANDLERS: dict[str, tuple[tuple[str, ...], frozenset[str], Handler]] = {
    "convert": (ANY, frozenset(("into", "count")), convert),
    "pick_nation": ((NATIONS_PHASE,), frozenset(("nation",)), pick_nation),
    "bid": (AUCTIONS, frozenset(("amount",)), bid),
    "pass": (AUCTIONS, NONE, pass_),
    "buy": ((RESOURCE,), frozenset(("position", "action", "research")), buy),
    "invest": ((INVESTMENT,), frozenset(("cards",)), invest),
    "propose_trade": ((TRADE,), TRADE_FIELDS, propose_trade),
    "accept_trade": ((TRADE,), frozenset(("id",)), accept_trade),
    "decline_trade": ((TRADE,), frozenset(("id",)), decline_trade),
    "build": ((BUILD,), frozenset(("card",)), build),
    "discard": ((END,), frozenset(("cards",)), discard),
    "done": ((RESOURCE, INVESTMENT, TRADE, BUILD), NONE, done),
}

"""Deciding commands: check a command against the rules and return the events it causes.

Checks run in a fixed order: the match is running, the body is well formed for its command type
(:func:`services.games.kit.parse_body` against ``services.games.modern_world.schemas.COMMANDS``: strict, unknown
fields refused), the seat may act now, the command fits the phase, the rules allow it. Any failure
raises a ``Rejected`` with a reason a player understands; the state is never touched. Events are
written onto a :class:`~services.games.tape.Tape`, so a later step of the same decision (the
automatic phases after the last pass) sees the state they lead to.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Any

import services.games.modern_world.flow as flow
from services.games.base import Command, Event
from services.games.errors import BadCommand, IllegalMove
from services.games.modern_world.codec import res_ids, res_names, token_map, token_tuple
from services.games.modern_world.data import (
    ACTION,
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
    TOKENS,
)
from services.games.modern_world.evolve import evolve
from services.games.modern_world.flow import Flow
from services.games.modern_world.legal import AUCTIONS, may_act, to_act
from services.games.modern_world.schemas import (
    COMMANDS,
    BidCommand,
    BuildCommand,
    BuyCommand,
    CardsCommand,
    ConvertCommand,
    EmptyCommand,
    PickNationCommand,
    ProposeTradeCommand,
    TradeIdCommand,
)
from services.games.modern_world.state import (
    Phase,
    State,
    Trade,
    build_cost,
    covers,
    has_cards,
    open_proposals,
)
from services.games.skeleton import not_your_turn, prologue
from services.games.tape import Tape

Body = dict[str, Any]


def decide(state: State, command: Command, rng: random.Random) -> list[Event]:
    phase = state.phase
    seat, cmd = prologue(COMMANDS, command, state.seats, over=phase == Phase.OVER, started=phase != Phase.SETUP)
    if not may_act(state, seat):
        raise not_your_turn(to_act(state), f"act in the {phase} phase")
    phases, rule = HANDLERS[command.type]
    if phase not in phases:
        raise IllegalMove(f"'{command.type}' is not allowed in the {phase} phase")
    tape = Tape(state, evolve, rng)
    rule(tape, seat, cmd)
    return tape.events


# ---------------------------------------------------------------------------- any phase


def convert(tape: Flow, seat: int, cmd: ConvertCommand) -> None:
    money = tape.state.players[seat].tokens[MONEY]
    if cmd.count * MONEY_PER_TOKEN > money:
        raise IllegalMove(
            f"converting into {cmd.count} {cmd.into} needs {cmd.count * MONEY_PER_TOKEN} money; you have {money}"
        )
    tape.emit("MoneyConverted", {"seat": seat, "into": cmd.into, "count": cmd.count})


# ---------------------------------------------------------------------------- set-up


def pick_nation(tape: Flow, seat: int, cmd: PickNationCommand) -> None:
    nation = cmd.nation
    s = tape.state
    if nation not in s.nations_left:
        raise IllegalMove(f"{nation} is already taken; left: {', '.join(s.nations_left)}")
    tape.emit("NationPicked", {"seat": seat, "nation": nation, "card": NATIONS[nation]})
    if len(s.queue) == 1:  # the last nation was picked
        flow.deal_tableau(tape)
        flow.start_turn(tape)


# ---------------------------------------------------------------------------- auctions


def bid(tape: Flow, seat: int, cmd: BidCommand) -> None:
    amount = cmd.amount
    s = tape.state
    a = s.auction
    if a is None:  # pragma: no cover - to_act is empty without an auction
        raise IllegalMove("there is no auction running")
    least = a.high_bid + 1
    if amount < least:
        raise IllegalMove(f"bid {amount} is too low: the least you may bid is {least}")
    have = s.players[seat].tokens[INFLUENCE]
    if amount > have:
        raise IllegalMove(f"bid {amount} exceeds your {have} influence")
    tape.emit("BidPlaced", {"seat": seat, "amount": amount})


def pass_(tape: Flow, seat: int, cmd: EmptyCommand) -> None:
    s = tape.state
    a = s.auction
    tape.emit("BidPassed", {"seat": seat})
    if a is None:  # pragma: no cover - to_act is empty without an auction
        return
    needed = s.seats if a.high_bidder is None else s.seats - 1
    if a.passes + 1 >= needed:  # every other player has passed since the last bid (or all did, unbid)
        flow.auction_over(tape)


# ---------------------------------------------------------------------------- resource phase


def buy(tape: Flow, seat: int, cmd: BuyCommand) -> None:
    s = tape.state
    if not s.tableau:
        raise IllegalMove("the tableau is empty")
    position, action, research = cmd.position, cmd.action, cmd.research
    if position > len(s.tableau):
        raise BadCommand(f"'position' must be at most {len(s.tableau)}, got {position}")
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
    deck = s.resource_deck
    tape.emit(
        "CardBought",
        {
            "seat": seat,
            "position": position,
            "card": RESOURCES[s.tableau[position - 1]].name,
            "action": action,
            "research": research,
            "refill": RESOURCES[deck[0]].name if deck else None,
        },
    )


def done(tape: Flow, seat: int, cmd: EmptyCommand) -> None:
    s = tape.state
    if s.phase == Phase.TRADE:
        lapsed = [t.id for t in s.trades if seat in (t.frm, t.to)]
        tape.emit("PlayerDone", {"seat": seat, "phase": Phase.TRADE.value, "lapsed": lapsed})
        if len(s.done) + 1 == s.seats:
            flow.phase_over(tape)
        return
    tape.emit("PlayerDone", {"seat": seat, "phase": s.phase.value, "lapsed": []})
    if len(s.queue) == 1:  # the seat was the last one to act
        flow.phase_over(tape)


# ---------------------------------------------------------------------------- investment, end


def _cards_in_hand(tape: Flow, seat: int, names: Sequence[str]) -> tuple[int, ...]:
    cards = res_ids(names)
    if not has_cards(tape.state.players[seat].hand, cards):
        raise IllegalMove(f"you do not hold all of {', '.join(names)}")
    return cards


def invest(tape: Flow, seat: int, cmd: CardsCommand) -> None:
    cards = _cards_in_hand(tape, seat, cmd.cards)
    gains = [0] * 7
    for c in cards:
        for i, n in enumerate(RESOURCES[c].production):
            gains[i] += INVEST_FACTOR * n
    tape.emit("CardsInvested", {"seat": seat, "cards": list(cmd.cards), "gains": token_map(gains)})


def discard(tape: Flow, seat: int, cmd: CardsCommand) -> None:
    cards = _cards_in_hand(tape, seat, cmd.cards)
    s = tape.state
    excess = len(s.players[seat].hand) - HAND_LIMIT
    if len(cards) != excess:
        raise IllegalMove(f"you hold {excess + HAND_LIMIT} cards: discard exactly {excess}, not {len(cards)}")
    tape.emit("CardsDiscarded", {"seat": seat, "cards": list(cmd.cards)})
    if s.queue == (seat,):  # the seat was the last one to discard
        flow.phase_over(tape)


# ---------------------------------------------------------------------------- build


def build(tape: Flow, seat: int, cmd: BuildCommand) -> None:
    name = cmd.card
    card = RESOURCE_INDEX[name]
    s = tape.state
    p = s.players[seat]
    if card not in p.hand:
        raise IllegalMove(f"you do not hold {name}")
    cost = build_cost(s, seat, card)
    if p.tokens[MATERIALS] < cost or p.tokens[LABOR] < cost:
        raise IllegalMove(
            f"building {name} costs {cost} materials and {cost} labor; you have "
            f"{p.tokens[MATERIALS]} materials and {p.tokens[LABOR]} labor"
        )
    tape.emit("CardBuilt", {"seat": seat, "card": name, "materials": cost, "labor": cost})


# ---------------------------------------------------------------------------- trade


def side_body(cards: tuple[int, ...], tokens: tuple[int, ...]) -> Body:
    return {"cards": res_names(cards), "card_count": len(cards), "tokens": token_map(tokens)}


def propose_trade(tape: Flow, seat: int, cmd: ProposeTradeCommand) -> None:
    s = tape.state
    to = cmd.to
    if to >= s.seats:
        raise BadCommand(f"'to' must be at most {s.seats - 1}, got {to}")
    give_cards, give_tokens = res_ids(cmd.give_cards), token_tuple(cmd.give_tokens)
    get_tokens = token_tuple(cmd.get_tokens)
    if to == seat:
        raise IllegalMove("you cannot trade with yourself")
    if to in s.done:
        raise IllegalMove(f"seat {to} has finished trading")
    if open_proposals(s, seat) >= MAX_OPEN_PROPOSALS:
        raise IllegalMove(
            f"you already have {MAX_OPEN_PROPOSALS} proposals open; wait for an answer before proposing again"
        )
    if not (give_cards or cmd.get_cards or cmd.give_tokens or cmd.get_tokens):
        raise IllegalMove("a trade must move at least one card or token")
    p = s.players[seat]
    if not has_cards(p.hand, give_cards):
        raise IllegalMove(f"you do not hold all of {', '.join(res_names(give_cards))}")
    if not covers(p.tokens, give_tokens):
        raise IllegalMove(f"you do not have {_tokens_text(give_tokens)}")
    tid = s.next_trade_id
    give = {"cards": list(cmd.give_cards), "card_count": len(give_cards), "tokens": token_map(give_tokens)}
    get = {"cards": list(cmd.get_cards), "card_count": len(cmd.get_cards), "tokens": token_map(get_tokens)}
    tape.emit(
        "TradeProposed",
        {"id": tid, "proposer": seat, "partner": to, "give": give, "get": get},
        visible_to=(seat, to),
        redacted={"id": tid, "proposer": seat, "partner": to, "give": None, "get": None},
    )


def _tokens_text(tokens: tuple[int, ...]) -> str:
    return ", ".join(f"{n} {TOKENS[i]}" for i, n in enumerate(tokens) if n) or "nothing"


def _offer_to(tape: Flow, seat: int, tid: int) -> Trade:
    for t in tape.state.trades:
        if t.id == tid:
            if t.to != seat:
                raise IllegalMove(f"trade {tid} was not offered to you")
            return t
    raise IllegalMove(f"there is no open trade {tid}")


def accept_trade(tape: Flow, seat: int, cmd: TradeIdCommand) -> None:
    t = _offer_to(tape, seat, cmd.id)
    me, them = tape.state.players[seat], tape.state.players[t.frm]
    if not has_cards(me.hand, t.get_cards):
        raise IllegalMove(f"you do not hold all of {', '.join(res_names(t.get_cards))}")
    if not covers(me.tokens, t.get_tokens):
        raise IllegalMove(f"you do not have {_tokens_text(t.get_tokens)}")
    if not has_cards(them.hand, t.give_cards) or not covers(them.tokens, t.give_tokens):
        tape.emit("TradeRefused", {"id": t.id, "reason": f"seat {t.frm} can no longer pay"})
        return
    give, get = side_body(t.give_cards, t.give_tokens), side_body(t.get_cards, t.get_tokens)
    hidden = {**give, "cards": None}, {**get, "cards": None}
    tape.emit(
        "TradeAccepted",
        {"id": t.id, "proposer": t.frm, "partner": seat, "give": give, "get": get},
        visible_to=(t.frm, seat),
        redacted={"id": t.id, "proposer": t.frm, "partner": seat, "give": hidden[0], "get": hidden[1]},
    )


def decline_trade(tape: Flow, seat: int, cmd: TradeIdCommand) -> None:
    t = _offer_to(tape, seat, cmd.id)
    tape.emit("TradeDeclined", {"id": t.id, "seat": seat})


Handler = Callable[[Flow, int, Any], None]
ANY = frozenset(Phase) - {Phase.SETUP, Phase.OVER}
# command type -> (phases it is allowed in, handler); the body models are services.games.modern_world.schemas.COMMANDS
HANDLERS: dict[str, tuple[frozenset[Phase], Handler]] = {
    "convert": (ANY, convert),
    "pick_nation": (frozenset({Phase.NATIONS}), pick_nation),
    "bid": (frozenset(AUCTIONS), bid),
    "pass": (frozenset(AUCTIONS), pass_),
    "buy": (frozenset({Phase.RESOURCE}), buy),
    "invest": (frozenset({Phase.INVESTMENT}), invest),
    "propose_trade": (frozenset({Phase.TRADE}), propose_trade),
    "accept_trade": (frozenset({Phase.TRADE}), accept_trade),
    "decline_trade": (frozenset({Phase.TRADE}), decline_trade),
    "build": (frozenset({Phase.BUILD}), build),
    "discard": (frozenset({Phase.END}), discard),
    "done": (frozenset({Phase.RESOURCE, Phase.INVESTMENT, Phase.TRADE, Phase.BUILD}), done),
}
assert set(HANDLERS) == set(COMMANDS)

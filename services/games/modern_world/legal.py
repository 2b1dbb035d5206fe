"""Who acts now (:func:`to_act`) and what each of them may send (:func:`legal`, as :mod:`schemas.legal`
choices).

``legal`` is sound and complete: every command a choice describes is accepted by ``decide``, and every
command ``decide`` accepts is described (``candidates.py`` of this package probes both
ways on random states). Card lists (``invest``, ``discard``, a proposal's ``give_cards`` and
``get_cards``) are ``multiset`` fields: any cards of the hand (or, asked of a partner whose hand is
hidden, of any kind), a name once per copy, in any order. A proposal's tokens are ``counts`` fields:
what you hold (``give_tokens``), or up to ``MAX_TRADE_TOKENS`` of each kind (``get_tokens``: the
partner may convert money or receive tokens before he answers, so holdings do not bound what may be
asked). Bids run from the least raise to your influence; purchases list every position and payment
mix (with the short forms that leave ``action`` or ``research`` out); conversions come with and
without ``count``; every nation left, every card you can build, every proposal made to you that you
can pay (accept) and every one made to you (decline), proposals to every partner still trading.
"""

from __future__ import annotations

import functools
import itertools
from collections import Counter
from collections.abc import Callable
from typing import Any, Final

from schemas.legal import Choice, Counts, Free, IntRange, Multiset, OneOf
from services.games.modern_world.data import (
    ACTION,
    CONVERTIBLE,
    HAND_LIMIT,
    INFLUENCE,
    LABOR,
    MATERIALS,
    MAX_OPEN_PROPOSALS,
    MAX_TRADE_CARDS,
    MONEY,
    MONEY_PER_TOKEN,
    RESEARCH,
    RESOURCE_NAMES,
    TABLEAU_SIZE,
    TOKENS,
)
from services.games.modern_world.schemas import MAX_CONVERT, MAX_TRADE_TOKENS
from services.games.modern_world.state import Phase, State, build_cost, covers, has_cards, open_proposals

AUCTIONS: Final = (Phase.LEADER, Phase.MARKET)
TRADE_SIDES: Final = ("give_cards", "give_tokens", "get_cards", "get_tokens")
NOBODY: Final[frozenset[int]] = frozenset()


def _auction_turn(state: State) -> frozenset[int]:
    return NOBODY if state.auction is None else frozenset((state.auction.turn,))


def _first_in_queue(state: State) -> frozenset[int]:
    return frozenset(state.queue[:1])


def _not_done(state: State) -> frozenset[int]:
    return frozenset(i for i in range(state.seats) if i not in state.done)


def _whole_queue(state: State) -> frozenset[int]:
    return frozenset(state.queue)


_ACTING: Final[dict[str, Callable[[State], frozenset[int]]]] = {
    Phase.NATIONS: _first_in_queue,
    Phase.LEADER: _auction_turn,
    Phase.MARKET: _auction_turn,
    Phase.RESOURCE: _first_in_queue,
    Phase.INVESTMENT: _first_in_queue,
    Phase.TRADE: _not_done,
    Phase.BUILD: _first_in_queue,
    Phase.END: _whole_queue,
}


def to_act(state: State) -> frozenset[int]:
    """The seats with a decision to make now: the bidder in an auction, the first of the queue in the
    phases played in turn order, everyone not done in the trade phase, every seat above the hand limit
    in the end phase; nobody before the start and after the end."""
    acting = _ACTING.get(state.phase)
    return NOBODY if acting is None else acting(state)


def may_act(state: State, seat: int) -> bool:
    """``seat in to_act(state)``, without building the set (``decide`` asks it for every command)."""
    phase = state.phase
    if phase == _TRADE:
        return seat not in state.done
    if phase == _END:
        return seat in state.queue
    if phase in AUCTIONS:
        return state.auction is not None and state.auction.turn == seat
    return phase in _ACTING and state.queue[:1] == (seat,)


_TRADE, _END = Phase.TRADE, Phase.END  # hoisted: an enum member lookup costs ~0.1 us on the hot path


def legal(state: State, seat: int) -> list[Choice]:
    """Every command ``seat`` may send now (see the module docstring); [] when it is not to act.

    The choices are immutable and built once per shape (cached by the few numbers they depend on):
    ``legal`` runs for every view record and every step of a search bot."""
    if seat not in to_act(state):
        return []
    phase = state.phase
    me = state.players[seat]
    if phase in AUCTIONS:
        out = _auction(state, seat)
    elif phase == Phase.RESOURCE:
        act, res = me.tokens[ACTION], me.tokens[RESEARCH]
        out = [DONE, *_buys(min(len(state.tableau), act + res), min(act, TABLEAU_SIZE), min(res, TABLEAU_SIZE))]
    elif phase == Phase.INVESTMENT:
        out = [DONE, *_cards("invest", me.hand, 1, len(me.hand))]
    elif phase == Phase.TRADE:
        out = _trade(state, seat)
    elif phase == Phase.BUILD:
        out = [DONE]
        for card in sorted(set(me.hand)):
            cost = build_cost(state, seat, card)
            if me.tokens[MATERIALS] >= cost and me.tokens[LABOR] >= cost:
                out.append(_fixed("build", "card", RESOURCE_NAMES[card]))
    elif phase == Phase.END:
        excess = len(me.hand) - HAND_LIMIT
        out = list(_cards("discard", me.hand, excess, excess))
    else:  # nations
        out = [_fixed("pick_nation", "nation", n) for n in state.nations_left]
    most = min(me.tokens[MONEY] // MONEY_PER_TOKEN, MAX_CONVERT)
    if most:
        out += _converts(most)
    return out


DONE: Final = Choice(type="done")
PASS: Final = Choice(type="pass")


@functools.lru_cache(maxsize=1024)
def _fixed(type_: str, field: str, value: Any) -> Choice:
    """The one command ``{type_: {field: value}}``."""
    return Choice(type=type_, body={field: value})


@functools.lru_cache(maxsize=1024)
def _converts(most: int) -> tuple[Choice, ...]:
    into = OneOf(values=list(CONVERTIBLE))
    return (Choice(type="convert", free={"into": into, "count": IntRange(min=1, max=most)}),
            Choice(type="convert", free={"into": into}))  # count left out: 1


def _auction(state: State, seat: int) -> list[Choice]:
    a = state.auction
    if a is None:  # pragma: no cover - to_act is empty without an auction
        return [PASS]
    least, have = a.high_bid + 1, state.players[seat].tokens[INFLUENCE]
    return [PASS, _bid(least, have)] if least <= have else [PASS]


@functools.lru_cache(maxsize=1024)
def _bid(least: int, have: int) -> Choice:
    return Choice(type="bid", free={"amount": IntRange(min=least, max=have)})


@functools.lru_cache(maxsize=2048)
def _buys(positions: int, act: int, res: int) -> tuple[Choice, ...]:
    """Every position up to ``positions`` paid in every mix of ``act`` action and ``res`` research; then
    the short forms that leave one of them out."""
    out = []
    for p in range(1, positions + 1):
        for a in range(max(0, p - res), min(act, p) + 1):
            out.append(Choice(type="buy", body={"position": p, "action": a, "research": p - a}))
    for p in range(1, positions + 1):
        if act >= p:
            out.append(Choice(type="buy", body={"position": p, "action": p}))
        if res >= p:
            out.append(Choice(type="buy", body={"position": p, "research": p}))
    return tuple(out)


@functools.lru_cache(maxsize=1024)
def _cards(type_: str, hand: tuple[int, ...], least: int, most: int) -> tuple[Choice, ...]:
    spec = hand_cards(hand, least, most)
    return (Choice(type=type_, free={"cards": spec}),) if spec else ()


@functools.lru_cache(maxsize=1024)
def hand_cards(hand: tuple[int, ...], least: int, most: int) -> Multiset | None:
    """A list of ``least`` to ``most`` cards of ``hand`` (card ids), a name once per copy, any order;
    None when the hand cannot make one."""
    most = min(most, len(hand))
    if least > most:
        return None
    held = Counter(hand)
    return Multiset(max={RESOURCE_NAMES[c]: held[c] for c in sorted(held)}, min_total=least, max_total=most)


@functools.lru_cache(maxsize=512)
def _tokens_held(mine: tuple[int, ...]) -> Counts | None:
    """Any mix of the tokens held (capped as the schema caps a trade's counts), one at least."""
    most = {TOKENS[k]: min(n, MAX_TRADE_TOKENS) for k, n in enumerate(mine) if n > 0}
    return Counts(max=most, min_total=1, max_total=sum(most.values())) if most else None


def _trade(state: State, seat: int) -> list[Choice]:
    out = [DONE]
    me = state.players[seat]
    for t in state.trades:
        if t.to == seat:
            if has_cards(me.hand, t.get_cards) and covers(me.tokens, t.get_tokens):
                out.append(_fixed("accept_trade", "id", t.id))
            out.append(_fixed("decline_trade", "id", t.id))
    partners = tuple(i for i in range(state.seats) if i != seat and i not in state.done)
    if not partners or open_proposals(state, seat) >= MAX_OPEN_PROPOSALS:
        return out
    return out + list(_proposals(partners, me.hand, me.tokens))


@functools.lru_cache(maxsize=256)
def _proposals(partners: tuple[int, ...], hand: tuple[int, ...], mine: tuple[int, ...]) -> tuple[Choice, ...]:
    """One choice per combination of sides present (a side left out moves nothing; one at least moves)."""
    sides = (hand_cards(hand, 1, MAX_TRADE_CARDS), _tokens_held(mine), ANY_CARDS, ANY_TOKENS)
    to = OneOf(values=list(partners))
    out = []
    for present in itertools.product((False, True), repeat=len(sides)):
        free: dict[str, Free] = {
            name: spec for name, spec, there in zip(TRADE_SIDES, sides, present, strict=True) if there and spec
        }
        if free and len(free) == sum(present):
            out.append(Choice(type="propose_trade", free={"to": to, **free}))
    return tuple(out)


ANY_CARDS: Final = Multiset(max=dict.fromkeys(RESOURCE_NAMES, MAX_TRADE_CARDS), min_total=1, max_total=MAX_TRADE_CARDS)
ANY_TOKENS: Final = Counts(max=dict.fromkeys(TOKENS, MAX_TRADE_TOKENS), min_total=1,
                           max_total=MAX_TRADE_TOKENS * len(TOKENS))


__all__ = ["AUCTIONS", "hand_cards", "legal", "may_act", "to_act"]

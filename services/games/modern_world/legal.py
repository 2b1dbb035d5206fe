"""Who acts now (:func:`to_act`) and what each of them may send (:func:`legal`, as :mod:`schemas.legal`
choices).

``legal`` is sound: every command a choice describes is accepted by ``decide``. It is complete except
where the free-field kinds cannot say what ``decide`` accepts (each gap is listed here, and
``tests/conformance/candidates_modern_world.py`` probes everything else):

- **card lists** (``invest``, ``discard``, a proposal's ``give_cards``/``get_cards``) are described in
  table order (the order a hand is shown in); ``decide`` takes the same cards in any order too, and no
  free-field kind says "any order of a sub-multiset". A ``subset`` holds distinct items, so in a hand
  holding a card twice the lists are listed one by one (a ``one_of``) while they are at most
  :data:`REPEATS_LISTED`; in a bigger hand, a ``subset`` of its distinct cards plus the lists naming a card
  twice or more of the sizes :func:`repeat_sizes` picks (the longest and the shortest: the whole hand,
  the hand but one card..., single pairs...). ``get_cards`` asks for distinct cards by name (the
  partner's hand is hidden; 20 cards of 28 kinds with repeats have no bounded description).
- **proposal tokens**: each side's ``*_tokens`` is one kind of token (``{"money": 2}``), up to what you
  hold (``give_tokens``) or what the partner who holds most of it holds (``get_tokens``). ``decide``
  also takes mixed kinds (``{"money": 2, "labor": 1}``) and asks beyond the partner's holdings (he
  may convert money before he accepts); a ``counts`` field would describe the mixes, but counting and
  sampling one enumerates every combination of the seven kinds (millions with ordinary holdings).

Everything else is exact: bids from the least raise to your influence, every position and payment
mix of a purchase (with the short forms that leave ``action`` or ``research`` out), conversions with
and without ``count``, every nation left, every card you can build, every proposal made to you that
you can pay (accept) and every one made to you (decline), proposals to every partner still trading.
"""

from __future__ import annotations

import functools
import itertools
import math
from collections import Counter
from collections.abc import Callable
from typing import Any, Final

from schemas.legal import Choice, Free, IntRange, OneOf, Subset
from schemas.modern_world import MAX_CONVERT
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
from services.games.modern_world.state import Phase, State, build_cost, covers, has_cards, open_proposals

AUCTIONS: Final = (Phase.LEADER, Phase.MARKET)
REPEATS_LISTED: Final = 256
"""Most card lists with repeats one choice lists (see the module docstring)."""
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
    return tuple(Choice(type=type_, free={"cards": spec}) for spec in hand_lists(hand, least, most))


@functools.lru_cache(maxsize=1024)
def hand_lists(hand: tuple[int, ...], least: int, most: int) -> tuple[Free, ...]:
    """Free fields for a list of ``least`` to ``most`` cards of ``hand`` (card ids), in table order.

    Without repeats in the hand: a subset of it. With repeats: every such list one by one when they are
    at most :data:`REPEATS_LISTED`; else a subset of the distinct cards, and the lists naming a card twice
    or more of the sizes :func:`repeat_sizes` picks (the longest and the shortest, the whole hand first)."""
    held = Counter(hand)
    distinct = [RESOURCE_NAMES[c] for c in sorted(held)]
    most = min(most, len(hand))
    if least > most:
        return ()
    if len(distinct) < len(hand) and _count_lists(hand, least, most) <= REPEATS_LISTED:
        return (OneOf(values=[cards for size in range(least, most + 1) for cards in _lists(held, size, False)]),)
    out: list[Free] = []
    if least <= len(distinct):
        out.append(Subset(items=distinct, min=least, max=min(most, len(distinct))))
    sizes = repeat_sizes(hand, least, most)
    if sizes:
        out.append(OneOf(values=[cards for size in sizes for cards in _lists(held, size, True)]))
    return tuple(out)


def repeat_sizes(hand: tuple[int, ...], least: int, most: int) -> tuple[int, ...]:
    """The sizes (``least`` to ``most``) whose lists naming a card twice or more :func:`hand_lists`
    lists: all of them when they come to at most :data:`REPEATS_LISTED` lists, else sizes taken from
    both ends (``most``, ``least``, ``most - 1``...) while they fit."""
    held = Counter(hand).values()
    if all(n == 1 for n in held):
        return ()
    every = _sizes(hand)
    repeats = [every[k] - math.comb(len(held), k) for k in range(len(every))]
    if sum(every[least:most + 1]) <= REPEATS_LISTED:
        return tuple(k for k in range(least, most + 1) if repeats[k])
    order = [k for pair in itertools.zip_longest(range(most, least - 1, -1), range(least, most + 1)) for k in pair
             if k is not None]
    chosen: list[int] = []
    total = 0
    for k in dict.fromkeys(order):
        if total + repeats[k] > REPEATS_LISTED:
            break
        total += repeats[k]
        chosen.append(k)
    return tuple(sorted(k for k in chosen if repeats[k]))


def _sizes(hand: tuple[int, ...]) -> list[int]:
    """``[k] ->`` how many lists of k cards the hand holds (in table order: one per sub-multiset)."""
    every = [1]  # the coefficients of the product of (1 + x + ... + x^copies) over the kinds held
    for n in Counter(hand).values():
        every = [sum(every[k - j] for j in range(n + 1) if 0 <= k - j < len(every)) for k in range(len(every) + n)]
    return every


def _count_lists(hand: tuple[int, ...], least: int, most: int) -> int:
    return sum(_sizes(hand)[least:most + 1])


def _lists(held: Counter[int], size: int, repeats_only: bool) -> list[list[str]]:
    """The lists of ``size`` cards of ``held`` in table order (only those naming some card twice or more:
    ``repeats_only``), sorted."""
    doubles = sorted(c for c, n in held.items() if n > 1)
    singles = sorted(c for c, n in held.items() if n == 1)
    out = []
    for counts in itertools.product(*(range(held[c] + 1) for c in doubles)):
        rest = size - sum(counts)
        if (repeats_only and max(counts) < 2) or not 0 <= rest <= len(singles):
            continue
        for extra in itertools.combinations(singles, rest):
            out.append(sorted([c for c, k in zip(doubles, counts, strict=True) for _ in range(k)] + list(extra)))
    return [[RESOURCE_NAMES[c] for c in cards] for cards in sorted(out)]


@functools.lru_cache(maxsize=512)
def _tokens_of_one_kind(most: tuple[int, ...]) -> OneOf | None:
    """``{kind: n}`` for every kind and every n from 1 to ``most[kind]``."""
    values = [{TOKENS[k]: n} for k, top in enumerate(most) for n in range(1, top + 1)]
    return OneOf(values=values) if values else None


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
    theirs = tuple(max(state.players[i].tokens[k] for i in partners) for k in range(len(TOKENS)))
    return out + list(_proposals(partners, me.hand, me.tokens, theirs))


@functools.lru_cache(maxsize=256)
def _proposals(partners: tuple[int, ...], hand: tuple[int, ...], mine: tuple[int, ...], theirs: tuple[int, ...]
               ) -> tuple[Choice, ...]:
    """One choice per combination of sides present (a side left out moves nothing; one at least moves)."""
    give_tokens, get_tokens = _tokens_of_one_kind(mine), _tokens_of_one_kind(theirs)
    sides: list[tuple[Free, ...]] = [
        hand_lists(hand, 1, MAX_TRADE_CARDS),
        (give_tokens,) if give_tokens else (),
        (ANY_CARDS,),
        (get_tokens,) if get_tokens else (),
    ]
    to = OneOf(values=list(partners))
    out = []
    for combo in itertools.product(*((None, *specs) for specs in sides)):
        free: dict[str, Free] = {name: spec for name, spec in zip(TRADE_SIDES, combo, strict=True) if spec}
        if free:
            out.append(Choice(type="propose_trade", free={"to": to, **free}))
    return tuple(out)


ANY_CARDS: Final = Subset(items=list(RESOURCE_NAMES), min=1, max=MAX_TRADE_CARDS)


__all__ = ["AUCTIONS", "hand_lists", "legal", "may_act", "repeat_sizes", "to_act"]

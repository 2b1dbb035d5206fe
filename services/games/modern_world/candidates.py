"""Modern World: a broad superset of the commands a seat might send in a state, for the conformance suite.

Every command type with the right and the wrong amounts around each bound (the least bid and one below,
all your influence and one more, every position and payment mix of the tableau and the ones that do
not add up or that you cannot pay), card lists from the hand and beyond it (cards not held, one copy
too many, the wrong number to discard), every nation, every build, every proposal id (made to you or
not, and one that does not exist), proposals to every seat (yourself, players who are done, seats that
do not exist) with each combination of sides, and malformed bodies (strings for numbers, unknown
fields, empty sides, zero counts). At most a few hundred per state.

Card lists come in the hand's order and shuffled, with repeats; proposals mix kinds of token on a
side, ask for more than any partner holds (up to the cap and one beyond it) and name a card twice.
"""

from __future__ import annotations

import itertools
from collections import Counter
from typing import Any

from services.games.modern_world.data import (
    ACTION,
    CONVERTIBLE,
    HAND_LIMIT,
    INFLUENCE,
    MAX_TRADE_CARDS,
    MAX_TRADE_TOKENS,
    MONEY,
    MONEY_PER_TOKEN,
    NATION_NAMES,
    RESEARCH,
    RESOURCE_NAMES,
    TOKENS,
)
from services.games.modern_world.state import State

Candidate = tuple[str, dict[str, Any]]
NOT_HELD = "Bureaucracy"  # a card name to ask for or offer when the hand lacks it


def candidates(state: State, seat: int) -> list[Candidate]:
    if not state.players or not 0 <= seat < len(state.players):
        return [("pass", {}), ("done", {})]
    me = state.players[seat]
    out: list[Candidate] = [("pass", {}), ("done", {}), ("pass", {"extra": 1}), ("nuke", {})]
    out += _bids(state, seat)
    out += _converts(me.tokens[MONEY])
    out += _buys(state, seat)
    hand: list[str] = [RESOURCE_NAMES[c] for c in me.hand]
    excess = len(hand) - HAND_LIMIT
    for cards in _hand_lists(hand):
        out.append(("invest", {"cards": cards}))
        if excess > 0 and abs(len(cards) - excess) <= 1:
            out.append(("discard", {"cards": cards}))
    out += [("invest", {"cards": []}), ("invest", {"cards": "Mining"}), ("discard", {"cards": hand[:1]})]
    out += [("build", {"card": name}) for name in [*sorted(set(hand)), NOT_HELD]]
    out += [("pick_nation", {"nation": n}) for n in NATION_NAMES]
    ids = [t.id for t in state.trades] + [state.next_trade_id, 0]
    out += [(kind, {"id": i}) for kind in ("accept_trade", "decline_trade") for i in ids]
    out += _proposals(state, seat, hand)
    return out


def _bids(state: State, seat: int) -> list[Candidate]:
    a = state.auction
    least = (a.high_bid + 1) if a is not None else 1
    have = state.players[seat].tokens[INFLUENCE]
    amounts = sorted({0, least - 1, least, least + 1, (least + have) // 2, have - 1, have, have + 1})
    return [("bid", {"amount": n}) for n in amounts] + [("bid", {"amount": str(least)}), ("bid", {})]


def _converts(money: int) -> list[Candidate]:
    most = money // MONEY_PER_TOKEN
    out: list[Candidate] = [("convert", {"into": into}) for into in (*CONVERTIBLE, "money")]
    for count in sorted({0, 1, 2, most, most + 1}):
        out += [("convert", {"into": into, "count": count}) for into in ("victory", "action", "money")]
    out.append(("convert", {"into": "victory", "count": True}))
    return out


def _buys(state: State, seat: int) -> list[Candidate]:
    tokens = state.players[seat].tokens
    act, res = tokens[ACTION], tokens[RESEARCH]
    out: list[Candidate] = []
    for p in range(0, min(len(state.tableau), 10) + 2):
        for a in sorted({0, 1, p - 1, p, p + 1, act, act + 1, p - res, p - res - 1}):
            if a >= 0:
                out.append(("buy", {"position": p, "action": a, "research": p - a}))
        out += [("buy", {"position": p, "action": p}), ("buy", {"position": p, "research": p}),
                ("buy", {"position": p})]
    out.append(("buy", {"position": 1, "action": 1, "research": 0, "tip": 1}))
    return out


def _hand_lists(hand: list[str]) -> list[list[str]]:
    """Card lists: singles, pairs, runs of the hand from either end (in its order and reversed), and
    lists naming one copy too many."""
    distinct = sorted(set(hand), key=RESOURCE_NAMES.index)
    out = [[c] for c in distinct] + [[NOT_HELD]]
    out += [list(pair) for pair in itertools.combinations(hand, 2)][:40]
    out += [hand[:k] for k in range(3, len(hand) + 1)] + [hand[-k:][::-1] for k in range(3, len(hand) + 1)]
    held = Counter(hand)
    out += [[c, *hand[:3]] for c in distinct if held[c] < 4][:5]
    unique: dict[str, list[str]] = {repr(cards): cards for cards in out if cards}
    return list(unique.values())


def _proposals(state: State, seat: int, hand: list[str]) -> list[Candidate]:
    me = state.players[seat]
    partners = [i for i in range(state.seats) if i != seat and i not in state.done]
    most = [max((state.players[i].tokens[k] for i in partners), default=0) for k in range(len(TOKENS))]
    mine_kind = max(range(len(TOKENS)), key=lambda k: me.tokens[k])
    their_kind = max(range(len(TOKENS)), key=lambda k: most[k])
    sides: dict[str, list[Any]] = {
        "give_cards": [c for c in (hand[:1], hand[:2][::-1], [NOT_HELD]) if c],
        "give_tokens": [{TOKENS[mine_kind]: n} for n in sorted({1, me.tokens[mine_kind], me.tokens[mine_kind] + 1})]
        + [_mix(me.tokens), _mix(me.tokens, 1)],
        "get_cards": [["Mining"], ["Oil", "Mining", "Oil"], ["Oil"] * MAX_TRADE_CARDS, ["Oil"] * (MAX_TRADE_CARDS + 1)],
        "get_tokens": [{TOKENS[their_kind]: n} for n in sorted({1, most[their_kind], most[their_kind] + 3})]
        + [{"money": MAX_TRADE_TOKENS, "victory": 2}, {"labor": MAX_TRADE_TOKENS + 1}],
    }
    out: list[Candidate] = []
    for to in range(-1, state.seats + 1):
        for name, values in sides.items():
            out += [("propose_trade", {"to": to, name: v}) for v in values[:2] if v]
        out.append(("propose_trade", {"to": to, "give_cards": sides["give_cards"][0], "get_cards": ["Oil"]}))
        out.append(("propose_trade", {"to": to}))
    for to in partners[:2]:
        for keys in itertools.combinations(sides, 2):
            for combo in itertools.product(*(sides[k][:3] for k in keys)):
                out.append(("propose_trade", {"to": to, **dict(zip(keys, combo, strict=True))}))
        out.append(("propose_trade", {"to": to, **{k: v[0] for k, v in sides.items() if v}}))
        out.append(("propose_trade", {"to": to, "give_cards": []}))
        out.append(("propose_trade", {"to": to, "give_tokens": {TOKENS[mine_kind]: 0}}))
        out.append(("propose_trade", {"to": str(to), "get_cards": ["Oil"]}))
    return out


def _mix(tokens: tuple[int, ...], extra: int = 0) -> dict[str, int]:
    """Every kind of token held (plus ``extra`` of each: more than held), or one money if none."""
    return {TOKENS[k]: n + extra for k, n in enumerate(tokens) if n} or {"money": 1 + extra}

"""Resampling the hidden state from one seat's view (for search bots that may not see the full state).

:func:`resample` builds a complete :class:`State` whose view for ``seat`` equals the view it was given.
What the view shows is copied (tokens, cards in play, permanent events, the tableau, the discards, the
market row, the auction, the queue, the trade phase's bookkeeping, the seat's own hand and its own
trade proposals); what it hides is drawn at random from what is unaccounted for:

- **resource cards** (4 copies of each of the 28): those not in the seat's hand, in play, in the
  tableau or discarded are the pool; each other hand gets its shown count from the pool, uniformly,
  and the resource deck is the rest, shuffled. Cards another player offers *us* in an open proposal are
  dealt into his hand first (he held them when he proposed);
- **market cards**: those neither in the row nor discarded form the deck, shuffled;
- **event cards**: those neither discarded, held as permanent events, nor being resolved form the
  deck, shuffled;
- **other players' trade proposals** (we see only who proposed to whom): made up in two simple shapes
  (a card for 2 of the partner's most plentiful token, or 2 of one's most plentiful token for 1 of the
  partner's).

The view carries no history, so cards an opponent is publicly known to hold (bought from the tableau
in plain sight) are not treated specially: the draw is uniform over the pool. ``next_trade_id`` is
not shown; it is set past every id on show. ``national_identity`` is not shown either; it is set when
nations are being picked or held (it is read only at set-up).
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from services.games.base import Outcome
from services.games.modern_world.codec import event_ids, market_ids, res_ids, token_tuple
from services.games.modern_world.data import (
    EVENT_INDEX,
    EVENTS,
    MARKET_INDEX,
    MARKETS,
    RESOURCE_COPIES,
    RESOURCES,
    TOKEN_INDEX,
)
from services.games.modern_world.state import PHASE_OF, Auction, Phase, Player, State, Trade

View = Mapping[str, Any]


def _tokens(counts: Mapping[str, int]) -> tuple[int, ...]:
    out = [0] * len(TOKEN_INDEX)
    for name, n in counts.items():
        out[TOKEN_INDEX[name]] = n
    return tuple(out)


def _remaining(total: Sequence[int], used: Counter[int], what: str) -> list[int]:
    """``total`` (a multiset of card ids) less ``used``; a view that uses more than exists is an error."""
    left = Counter(total)
    left.subtract(used)
    if any(n < 0 for n in left.values()):
        raise ValueError(f"the view does not add up: more {what} cards shown than exist")
    return sorted(left.elements())


def _deal(pool: list[int], count: int, rng: random.Random) -> list[int]:
    return [pool.pop(rng.randrange(len(pool))) for _ in range(count)]


def _most(tokens: tuple[int, ...]) -> int:
    return max(range(len(tokens)), key=lambda i: tokens[i])


def _made_up_trade(tid: int, frm: int, to: int, players: Sequence[Player], rng: random.Random) -> Trade:
    """A proposal between two other players, whose contents we cannot see, in a shape the list offers."""
    me, them = players[frm], players[to]
    nothing = (0,) * len(me.tokens)
    theirs = _most(them.tokens)
    if me.hand and rng.random() < 0.5:
        get = [0] * len(me.tokens)
        get[theirs] = 2
        return Trade(tid, frm, to, (rng.choice(me.hand),), nothing, (), tuple(get))
    give, get = [0] * len(me.tokens), [0] * len(me.tokens)
    give[_most(me.tokens)] = 2
    get[theirs] = 1
    return Trade(tid, frm, to, (), tuple(give), (), tuple(get))


def resample(view: View, seat: int, rng: random.Random) -> State:
    """A full state consistent with ``view`` (the view of ``seat``), hidden parts drawn with ``rng``."""
    players_view = view["players"]
    if view.get("seat") != seat or players_view[seat]["hand"] is None:
        raise ValueError(f"resample needs seat {seat}'s own view")
    n = len(players_view)
    hand = tuple(sorted(res_ids(players_view[seat]["hand"])))
    in_play = [res_ids(p["in_play"]) for p in players_view]
    tableau = res_ids(slot["card"] for slot in view["tableau"])
    resource_discard = res_ids(view["resource_discard"])

    # -- resource cards: the other hands and the deck share what is not on show
    shown: Counter[int] = Counter(hand)
    shown.update(tableau)
    shown.update(resource_discard)
    for cards in in_play:
        shown.update(cards)
    every = [c for c in range(len(RESOURCES)) for _ in range(RESOURCE_COPIES)]
    pool = _remaining(every, shown, "resource")
    hands: list[tuple[int, ...]] = []
    for p, pv in enumerate(players_view):
        if p == seat:
            hands.append(hand)
            continue
        dealt: list[int] = []
        for t in view["trades"]:  # cards offered to us: he held them when he proposed
            if t["proposer"] == p and t["partner"] == seat and t.get("give"):
                for card in res_ids(t["give"]["cards"]):
                    if len(dealt) < pv["hand_count"] and card in pool:
                        pool.remove(card)
                        dealt.append(card)
        dealt += _deal(pool, pv["hand_count"] - len(dealt), rng)
        hands.append(tuple(sorted(dealt)))
    if len(pool) != view["resource_deck_count"]:
        raise ValueError(
            f"the view does not add up: {len(pool)} resource cards left for a deck of {view['resource_deck_count']}"
        )
    rng.shuffle(pool)

    # -- market and event decks
    market_row = market_ids(view["market_row"])
    market_discard = market_ids(view["market_discard"])
    market_deck = _remaining(range(len(MARKETS)), Counter(market_row + market_discard), "market")
    if len(market_deck) != view["market_deck_count"]:
        raise ValueError("the view does not add up: market deck count")
    rng.shuffle(market_deck)
    event_discard = event_ids(view["event_discard"])
    current_event = None if view["current_event"] is None else EVENT_INDEX[view["current_event"]]
    permanents = [event_ids(p["permanent_events"]) for p in players_view]
    out_of_deck: Counter[int] = Counter(event_discard)
    for held in permanents:
        out_of_deck.update(held)
    if current_event is not None:
        out_of_deck[current_event] += 1
    event_deck = _remaining(range(len(EVENTS)), out_of_deck, "event")
    if len(event_deck) != view["event_deck_count"]:
        raise ValueError("the view does not add up: event deck count")
    rng.shuffle(event_deck)

    players = tuple(
        Player(
            tokens=_tokens(pv["tokens"]),
            hand=hands[p],
            in_play=in_play[p],
            permanents=permanents[p],
            nation=pv["nation"],
        )
        for p, pv in enumerate(players_view)
    )

    # -- trade proposals: ours as shown, the others' made up
    trades = []
    for t in view["trades"]:
        if t.get("give") is not None:
            give, get = t["give"], t["get"]
            trades.append(Trade(t["id"], t["proposer"], t["partner"],
                                res_ids(give["cards"]), token_tuple(give["tokens"]),
                                res_ids(get["cards"]), token_tuple(get["tokens"])))
        else:
            trades.append(_made_up_trade(t["id"], t["proposer"], t["partner"], players, rng))
    next_trade_id = max((t.id for t in trades), default=0) + 1

    a = view["auction"]
    auction = None
    if a is not None:
        item = None if a["item"] == "leader" else MARKET_INDEX[a["item"]]
        auction = Auction(item, a["to_bid"], a["high_bid"], a["high_bidder"], a["passes"])
    outcome = None
    if view["outcome"] is not None:
        o = view["outcome"]
        outcome = Outcome(scores=tuple(o["scores"]), winners=tuple(o["winners"]), detail=dict(o["detail"]))
    phase = PHASE_OF[view["phase"]]
    return State(
        seats=n,
        national_identity=phase == Phase.NATIONS or any(pv["nation"] for pv in players_view),
        phase=phase,
        turn=view["turn"],
        leader=view["leader"],
        players=players,
        resource_deck=tuple(pool),
        tableau=tableau,
        resource_discard=resource_discard,
        market_deck=tuple(market_deck),
        market_row=market_row,
        market_discard=market_discard,
        event_deck=tuple(event_deck),
        event_discard=event_discard,
        current_event=current_event,
        auction=auction,
        queue=tuple(view["queue"]),
        builds=view["builds_this_phase"],
        done=tuple(p for p, pv in enumerate(players_view) if pv["done_trading"]) if phase == Phase.TRADE else (),
        trades=tuple(trades),
        next_trade_id=next_trade_id,
        proposals=tuple(pv["proposals_made"] for pv in players_view),
        skipped=tuple(view["skipped_phases"]),
        skip_build=tuple(view["skip_build"]),
        extra_markets=view["extra_markets"],
        nations_left=tuple(view["nations_left"]),
        outcome=outcome,
    )


__all__ = ["resample"]

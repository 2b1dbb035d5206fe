"""Legal commands: a bounded, deterministic list that ``decide`` accepts, covering every command type.

Where choices are many the list is a sample: bids are the least bid, the least + 2 and everything you
have; purchases offer all-action, all-research and a balanced mix; conversion offers turning all your
money into the kind of token the phase needs (influence in auctions, action/research when buying,
materials/labor when building, victory otherwise); investment offers each kind of card alone and the
whole hand; end-phase discards offer the first or the last cards of the sorted hand; trade proposals
are two simple swaps with each partner still trading (your first card for 2 of his most plentiful
token; 2 of your most plentiful token for 1 of his). "pass"/"done" is always listed.
"""

from __future__ import annotations

from services.games.base import Command
from services.games.modern_world.codec import res_names
from services.games.modern_world.data import (
    ACTION,
    HAND_LIMIT,
    INFLUENCE,
    LABOR,
    MATERIALS,
    MAX_OPEN_PROPOSALS,
    MONEY,
    MONEY_PER_TOKEN,
    RESEARCH,
    RESOURCE_NAMES,
    TOKENS,
)
from services.games.modern_world.decide import build_cost, open_proposals, to_act
from services.games.modern_world.state import (
    BUILD,
    END,
    INVESTMENT,
    LEADER,
    MARKET,
    NATIONS,
    RESOURCE,
    TRADE,
    State,
    covers,
    has_cards,
)


def legal_commands(state: State, seat: int) -> list[Command]:
    if seat not in to_act(state):
        return []
    phase = state.phase
    out: list[Command]
    if phase in (LEADER, MARKET):
        out = _auction(state, seat)
    elif phase == RESOURCE:
        out = _resource(state, seat)
    elif phase == INVESTMENT:
        out = _investment(state, seat)
    elif phase == TRADE:
        out = _trade(state, seat)
    elif phase == BUILD:
        out = _build(state, seat)
    elif phase == END:
        out = _end(state, seat)
    elif phase == NATIONS:
        out = [Command(seat, "pick_nation", {"nation": n}) for n in state.nations_left]
    else:
        return []
    count = state.players[seat].tokens[MONEY] // MONEY_PER_TOKEN
    if count:
        out.append(Command(seat, "convert", {"into": TOKENS[_wanted(state, seat)], "count": count}))
    return out


def _wanted(state: State, seat: int) -> int:
    phase = state.phase
    if phase in (LEADER, MARKET):
        return INFLUENCE
    tokens = state.players[seat].tokens
    if phase == RESOURCE:
        return ACTION if tokens[ACTION] <= tokens[RESEARCH] else RESEARCH
    if phase == BUILD:
        return MATERIALS if tokens[MATERIALS] <= tokens[LABOR] else LABOR
    return 0  # victory


def _auction(state: State, seat: int) -> list[Command]:
    a = state.auction
    out = [Command(seat, "pass", {})]
    if a is None:  # pragma: no cover
        return out
    have = state.players[seat].tokens[INFLUENCE]
    least = a.high_bid + 1
    for amount in sorted({least, least + 2, have}):
        if least <= amount <= have:
            out.append(Command(seat, "bid", {"amount": amount}))
    return out


def _resource(state: State, seat: int) -> list[Command]:
    out = [Command(seat, "done", {})]
    tokens = state.players[seat].tokens
    act, res = tokens[ACTION], tokens[RESEARCH]
    for position in range(1, min(len(state.tableau), act + res) + 1):
        mixes = {(min(act, position), position - min(act, position))}
        if res >= position:
            mixes.add((0, position))
        half = min(act, position // 2)
        if position - half <= res:
            mixes.add((half, position - half))
        for a, r in sorted(mixes):
            if r <= res:
                out.append(Command(seat, "buy", {"position": position, "action": a, "research": r}))
    return out


def _investment(state: State, seat: int) -> list[Command]:
    out = [Command(seat, "done", {})]
    hand = state.players[seat].hand
    for card in sorted(set(hand)):
        out.append(Command(seat, "invest", {"cards": [RESOURCE_NAMES[card]]}))
    if len(hand) > 1:
        out.append(Command(seat, "invest", {"cards": res_names(hand)}))
    return out


def _build(state: State, seat: int) -> list[Command]:
    out = [Command(seat, "done", {})]
    p = state.players[seat]
    for card in sorted(set(p.hand)):
        cost = build_cost(state, seat, card)
        if p.tokens[MATERIALS] >= cost and p.tokens[LABOR] >= cost:
            out.append(Command(seat, "build", {"card": RESOURCE_NAMES[card]}))
    return out


def _end(state: State, seat: int) -> list[Command]:
    hand = state.players[seat].hand
    excess = len(hand) - HAND_LIMIT
    firsts, lasts = res_names(hand[:excess]), res_names(hand[-excess:])
    out = [Command(seat, "discard", {"cards": firsts})]
    if lasts != firsts:
        out.append(Command(seat, "discard", {"cards": lasts}))
    return out


def _trade(state: State, seat: int) -> list[Command]:
    out = [Command(seat, "done", {})]
    me = state.players[seat]
    for t in state.trades:
        if t.to == seat:
            if has_cards(me.hand, t.get_cards) and covers(me.tokens, t.get_tokens):
                out.append(Command(seat, "accept_trade", {"id": t.id}))
            out.append(Command(seat, "decline_trade", {"id": t.id}))
    if open_proposals(state, seat) >= MAX_OPEN_PROPOSALS:
        return out
    mine = max(range(7), key=lambda i: me.tokens[i])
    for partner in range(state.seats):
        if partner == seat or partner in state.done:
            continue
        theirs = state.players[partner].tokens
        most = max(range(7), key=lambda i: theirs[i])
        if me.hand and theirs[most] >= 2:
            card = RESOURCE_NAMES[me.hand[0]]
            body = {"to": partner, "give_cards": [card], "get_tokens": {TOKENS[most]: 2}}
            out.append(Command(seat, "propose_trade", body))
        if me.tokens[mine] >= 2 and theirs[most] >= 1 and mine != most:
            out.append(
                Command(
                    seat,
                    "propose_trade",
                    {"to": partner, "give_tokens": {TOKENS[mine]: 2}, "get_tokens": {TOKENS[most]: 1}},
                )
            )
    return out

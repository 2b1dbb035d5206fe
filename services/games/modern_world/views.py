"""What a seat (or a spectator) sees: everything public, its own hand and its own trade proposals.

Other hands show only as counts; deck orders never show, only their sizes.
"""

from __future__ import annotations

from typing import Any

from services.games.modern_world.codec import event_names, market_name, market_names, res_names, token_map
from services.games.modern_world.data import EVENTS, TOKENS
from services.games.modern_world.state import Phase, State, Trade


def _tokens(tokens: tuple[int, ...]) -> dict[str, int]:
    return {TOKENS[i]: n for i, n in enumerate(tokens)}


def _trade(t: Trade, seat: int | None) -> dict[str, Any]:
    out: dict[str, Any] = {"id": t.id, "proposer": t.frm, "partner": t.to}
    if seat in (t.frm, t.to):
        out["give"] = {"cards": res_names(t.give_cards), "tokens": token_map(t.give_tokens)}
        out["get"] = {"cards": res_names(t.get_cards), "tokens": token_map(t.get_tokens)}
    return out


def view(state: State, seat: int | None) -> dict[str, Any]:
    players = []
    for i, p in enumerate(state.players):
        players.append(
            {
                "seat": i,
                "tokens": _tokens(p.tokens),
                "capacity": _tokens(p.capacity()),
                "hand": res_names(p.hand) if seat == i else None,
                "hand_count": len(p.hand),
                "in_play": res_names(p.in_play),
                "permanent_events": event_names(p.permanents),
                "nation": p.nation,
                "done_trading": state.phase == Phase.TRADE and i in state.done,
                "proposals_made": state.proposals[i] if state.proposals else 0,
            }
        )
    a = state.auction
    auction = None
    if a is not None:
        auction = {
            "item": "leader" if a.card is None else market_name(a.card),
            "high_bid": a.high_bid,
            "high_bidder": a.high_bidder,
            "to_bid": a.turn,
            "passes": a.passes,
        }
    return {
        "phase": str(state.phase),  # a plain str, whatever the state holds
        "turn": state.turn,
        "leader": state.leader,
        "players": players,
        "tableau": [{"price": i + 1, "card": c} for i, c in enumerate(res_names(state.tableau))],
        "resource_deck_count": len(state.resource_deck),
        "resource_discard": res_names(state.resource_discard),
        "market_deck_count": len(state.market_deck),
        "market_row": market_names(state.market_row),
        "market_discard": market_names(state.market_discard),
        "event_deck_count": len(state.event_deck),
        "event_discard": event_names(state.event_discard),
        "current_event": None if state.current_event is None else EVENTS[state.current_event].name,
        "auction": auction,
        "queue": list(state.queue),
        "builds_this_phase": state.builds,
        "trades": [_trade(t, seat) for t in state.trades],
        "skipped_phases": list(state.skipped),
        "skip_build": list(state.skip_build),
        "extra_markets": state.extra_markets,
        "nations_left": list(state.nations_left),
    }

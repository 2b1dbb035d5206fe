"""Modern World as text: the board for replays, and the short phrases chat uses for views and events.

Tokens are written in the seed's column order as ``V5 I12 $4 M3 L3 R3 A3`` (victory, influence, money,
materials, labor, research, action); the tableau as ``price card``; a seat's own hand only in its own view.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from services.games.kit import public_players
from services.games.modern_world import GAME
from services.games.modern_world.data import MARKET_INDEX, MARKETS, TOKENS
from services.games.registration import Numbers

GAME_NAME = GAME.name
LETTER = {"victory": "V", "influence": "I", "money": "$", "materials": "M", "labor": "L", "research": "R",
          "action": "A"}
PHASE_DOING = {"nations": "pick a nation", "leader": "bid for the Leader Marker", "market": "bid",
               "resource": "buy from the tableau", "investment": "invest", "trade": "trade", "build": "build",
               "end": "discard down to 7"}


def seat_name(seat: Any) -> str:
    return "nobody" if seat is None else f"seat {seat}"


def tokens_short(tokens: Mapping[str, int] | None) -> str:
    """All seven kinds as ``V5 I12 $4 M3 L3 R3 A3``."""
    tokens = tokens or {}
    return " ".join(f"{LETTER[t]}{tokens.get(t, 0)}" for t in TOKENS)


def tokens_text(tokens: Mapping[str, int] | None) -> str:
    """The kinds present as ``2 money + 1 labor`` (``nothing`` when none)."""
    tokens = tokens or {}
    return " + ".join(f"{tokens[t]} {t}" for t in TOKENS if tokens.get(t)) or "nothing"


def cards_text(cards: Sequence[str] | None, sep: str = ", ") -> str:
    """``["Mining", "Mining", "Finance"]`` as ``2 Mining, Finance`` (runs of a card counted)."""
    if not cards:
        return "no cards"
    parts: list[str] = []
    i = 0
    while i < len(cards):
        j = i
        while j < len(cards) and cards[j] == cards[i]:
            j += 1
        parts.append(cards[i] if j - i == 1 else f"{j - i} {cards[i]}")
        i = j
    return sep.join(parts)


def market_text(name: str | None) -> str:
    """A market card with its reward: ``Asian Tiger (13 money)``; None is the Leader Marker."""
    if name is None or name == "leader":
        return "the Leader Marker"
    if name in MARKET_INDEX:
        card = MARKETS[MARKET_INDEX[name]]
        return f"{name} ({card.amount} {TOKENS[card.token]})"
    return str(name)


def side_text(side: Mapping[str, Any] | None) -> str:
    """One side of a trade: cards (or their count where hidden) and tokens."""
    if side is None:
        return "?"
    cards = side.get("cards")
    parts = []
    if cards:
        parts.append(cards_text(cards, " + "))
    elif cards is None and side.get("card_count"):
        count = side["card_count"]
        parts.append(f"{count} card{'' if count == 1 else 's'}")
    if side.get("tokens"):
        parts.append(tokens_text(side["tokens"]))
    return " + ".join(parts) or "nothing"


def status_line(view: Mapping[str, Any]) -> str:
    if view.get("finished"):
        return f"Game over after turn {view.get('turn', '?')}. {outcome_text(view.get('outcome'))}"
    phase = view.get("phase", "?")
    acting = ", ".join(f"seat {s}" for s in view.get("to_act") or []) or "nobody"
    event = f"; event: {view['current_event']}" if view.get("current_event") else ""
    skipped = view.get("skipped_phases") or []
    skips = f"; skipped: {', '.join(skipped)}" if skipped else ""
    return (f"Turn {view.get('turn', 0)}, {phase} phase: {acting} to {PHASE_DOING.get(phase, 'act')}; "
            f"leader {seat_name(view.get('leader'))}{event}{skips}.")


def auction_line(view: Mapping[str, Any]) -> str | None:
    auction = view.get("auction")
    if not auction:
        return None
    high = auction.get("high_bid") or 0
    bid = f"high bid {high} by seat {auction.get('high_bidder')}" if high else "no bid yet"
    row = view.get("market_row") or []
    later = f"; still to come: {', '.join(market_text(m) for m in row[1:])}" if len(row) > 1 else ""
    return f"Auction of {market_text(auction.get('item'))}: {bid}; seat {auction.get('to_bid')} to bid{later}."


def player_line(player: Mapping[str, Any], view: Mapping[str, Any]) -> str:
    tags = [t for t in (player.get("nation"), "leader" if player.get("seat") == view.get("leader") else None) if t]
    head = f"seat {player['seat']}{' (' + ', '.join(tags) + ')' if tags else ''}"
    held = player.get("hand_count", 0)
    in_play = cards_text(sorted(player.get("in_play") or []))
    line = (f"{head}: {tokens_short(player.get('tokens'))}; makes {tokens_short(player.get('capacity'))}; "
            f"{held} card{'' if held == 1 else 's'} in hand; in play: {in_play}")
    if player.get("permanent_events"):
        line += f"; events: {', '.join(player['permanent_events'])}"
    if player.get("done_trading"):
        line += "; done trading"
    return line + "."


def tableau_line(view: Mapping[str, Any]) -> str:
    row = ", ".join(f"{slot['price']} {slot['card']}" for slot in view.get("tableau") or []) or "empty"
    return (f"Tableau (price card): {row}. Decks: resources {view.get('resource_deck_count', 0)}, "
            f"events {view.get('event_deck_count', 0)}, markets {view.get('market_deck_count', 0)}.")


def trade_text(trade: Mapping[str, Any]) -> str:
    head = f"#{trade.get('id')} seat {trade.get('proposer')} to seat {trade.get('partner')}"
    if "give" not in trade:
        return f"{head} (secret)"
    return f"{head}: {side_text(trade.get('give'))} for {side_text(trade.get('get'))}"


def trades_line(view: Mapping[str, Any]) -> str | None:
    trades = view.get("trades") or []
    if not trades:
        return None
    return f"Open trades: {'; '.join(trade_text(t) for t in trades)}."


def hand_line(view: Mapping[str, Any]) -> str | None:
    seat = view.get("seat")
    players = view.get("players") or []
    if not isinstance(seat, int) or not 0 <= seat < len(players) or players[seat].get("hand") is None:
        return None
    return f"Your hand: {cards_text(players[seat]['hand'])}."


def outcome_text(outcome: Any) -> str:
    if not isinstance(outcome, Mapping):
        return ""
    scores = outcome.get("scores") or []
    winners = outcome.get("winners") or []
    won = f"won by {', '.join(f'seat {w}' for w in winners)}" if winners else "nobody won"
    return f"Victory tokens: {', '.join(f'seat {s} {p}' for s, p in enumerate(scores))}; {won}."


def view_lines(view: Mapping[str, Any]) -> list[str]:
    """The view in a few short lines (chat shows these; the board adds the discards)."""
    lines = [status_line(view)]
    lines += [line for line in (auction_line(view),) if line]
    lines += [player_line(p, view) for p in view.get("players") or []]
    lines.append(tableau_line(view))
    lines += [line for line in (trades_line(view), hand_line(view)) if line]
    return lines


def render(view: Mapping[str, Any]) -> str:
    lines = view_lines(view)
    if view.get("nations_left") and view.get("phase") == "nations":
        lines.append(f"Nations left: {', '.join(view['nations_left'])}.")
    discards = [f"{name} {', '.join(view[key])}" for name, key in
                (("resources:", "resource_discard"), ("markets:", "market_discard"), ("events:", "event_discard"))
                if view.get(key)]
    if discards:
        lines.append(f"Discarded {'; '.join(discards)}.")
    return "\n".join(lines)


def standing(state: Any, public: Mapping[str, Any]) -> tuple[Numbers, Numbers | None]:
    """Each seat's victory points and money as they stand, for the replay chart."""
    tokens = [p.get("tokens") or {} for p in public_players(public)]
    return [t.get("victory") for t in tokens], [t.get("money") for t in tokens]

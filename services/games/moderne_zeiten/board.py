"""Moderne Zeiten as text: the board for replays, and the short phrases chat uses for views and events.

The board is the 6 x 5 scoring table with each cell's track space and who claimed it (the track and
the table are the same thirty city/industry pairs), then one line per player and the status of the round.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from services.games.kit import public_players
from services.games.moderne_zeiten.schemas import INDUSTRIES
from services.games.moderne_zeiten.scoring import score
from services.games.moderne_zeiten.state import State
from services.games.registration import Numbers

SHORT = {"shipping": "ship", "aviation": "avi", "high_rise": "high", "automobile": "auto", "telecom": "tel"}
CITY_SHORT = {"new_orleans": "NO", "chicago": "CHI", "berlin": "BER", "paris": "PAR", "london": "LON",
              "new_york": "NY"}
PHASE_DOING = {"auction": "bid", "turn": "draw or play", "moving": "move"}


def seat_name(seat: Any) -> str:
    return "nobody" if seat is None else f"seat {seat}"


def cards_text(cards: Mapping[str, int] | Sequence[str] | None, short: bool = False) -> str:
    """``{"aviation": 2, "telecom": 1}`` (or a list of industries) as ``2 aviation, 1 telecom``."""
    if not cards:
        return "no cards"
    if not isinstance(cards, Mapping):
        counts: dict[str, int] = {}
        for card in cards:
            counts[card] = counts.get(card, 0) + 1
        cards = counts
    ordered = [i for i in INDUSTRIES if cards.get(i)] + [i for i in cards if i not in INDUSTRIES and cards[i]]
    return ", ".join(f"{cards[i]} {SHORT.get(i, i) if short else i}" for i in ordered) or "no cards"


def space_text(space: int, track: Sequence[Mapping[str, Any]], finish: int) -> str:
    if space <= 0:
        return "start"
    if space >= finish:
        return "Finish"
    if space <= len(track):
        cell = track[space - 1]
        return f"{space} ({cell['city']} {cell['industry']})"
    return str(space)


def status_line(view: Mapping[str, Any]) -> str:
    """Round, phase, who acts, stack and share counter in one line."""
    if view.get("finished"):
        return f"Game over after round {view.get('round', '?')}. {outcome_text(view.get('outcome'))}"
    phase = view.get("phase", "?")
    acting = ", ".join(f"seat {s}" for s in view.get("to_act") or []) or "nobody"
    doing = PHASE_DOING.get(phase, phase)
    return (f"Round {view.get('round', 0)}: {acting} to {doing}; start player {seat_name(view.get('start_player'))}; "
            f"stack {view.get('stack_count', 0)}; shares in play {view.get('counter', 0)} "
            f"(crash above {view.get('crash_limit', 0)}).")


def auction_line(view: Mapping[str, Any]) -> str | None:
    auction = view.get("auction")
    if not auction:
        return None
    high = auction.get("high_bid") or 0
    bid = f"high bid {high} by seat {auction.get('high_bidder')}" if high else "no bid yet"
    passed = ", ".join(map(str, auction.get("passed") or [])) or "nobody"
    return f"Auction of {cards_text(auction.get('cards'))}: {bid}; passed: {passed}."


def player_line(player: Mapping[str, Any], view: Mapping[str, Any]) -> str:
    played = cards_text({k: v for k, v in (player.get("played") or {}).items() if v}, short=True)
    controls = ", ".join(SHORT.get(i, i) for i in player.get("controls") or []) or "nothing"
    where = space_text(player.get("position", 0), view.get("track") or [], view.get("finish", 31))
    held = player.get("hand_count", 0)
    return (f"seat {player['seat']}: {player.get('money', 0)}M, {held} card{'' if held == 1 else 's'} in hand, "
            f"in play {played}, controls {controls}, at {where}, {player.get('big_markers', 0)} markers left.")


def claimed_line(view: Mapping[str, Any]) -> str:
    claimed = [f"{c['space']} {CITY_SHORT.get(c['city'], c['city'])}-{SHORT.get(c['industry'], c['industry'])} "
               f"s{c['claimed_by']}" for c in view.get("track") or [] if c.get("claimed_by") is not None]
    return f"Claimed: {', '.join(claimed) if claimed else 'nothing yet'}."


def hand_line(view: Mapping[str, Any]) -> str | None:
    hand = view.get("hand")
    if hand is None:
        return None
    return f"Your hand: {cards_text({k: v for k, v in hand.items() if v})}."


def moves_line(view: Mapping[str, Any]) -> str | None:
    choices = view.get("move_choices")
    if not choices:
        return None
    names = ["stay" if c is None else c for c in choices]
    return f"seat {view.get('current')} chooses where to fly: {', '.join(names)}."


def outcome_text(outcome: Any) -> str:
    if not isinstance(outcome, Mapping):
        return ""
    scores = outcome.get("scores") or []
    winners = outcome.get("winners") or []
    won = f"won by {', '.join(f'seat {w}' for w in winners)}" if winners else "nobody won"
    return f"Scores: {', '.join(f'seat {s} {p}' for s, p in enumerate(scores))}; {won}."


def table_lines(view: Mapping[str, Any]) -> list[str]:
    """The scoring table: a row per city, a column per industry; each cell ``space:claimer`` (``-`` free)."""
    track = view.get("track") or []
    cell = {(c["city"], c["industry"]): c for c in track}
    city_points = view.get("city_points") or {}
    industry_points = view.get("industry_points") or {}
    name_width = max((len(c) for c in city_points), default=8) + 4
    head = " " * name_width + "".join(f"{SHORT.get(i, i) + '(' + str(industry_points.get(i, '')) + ')':>9}"
                                      for i in INDUSTRIES)
    lines = [head]
    for city, points in city_points.items():
        cells = []
        for industry in INDUSTRIES:
            space = cell.get((city, industry))
            if space is None:
                cells.append(f"{'':>9}")
                continue
            owner = "-" if space.get("claimed_by") is None else f"s{space['claimed_by']}"
            cells.append(f"{str(space['space']) + ':' + owner:>9}")
        lines.append(f"{city + ' (' + str(points) + ')':<{name_width}}" + "".join(cells))
    return lines


def render(view: Mapping[str, Any]) -> str:
    lines = [status_line(view)]
    for extra in (auction_line(view), moves_line(view)):
        if extra:
            lines.append(extra)
    lines += [player_line(p, view) for p in view.get("players") or []]
    lines.append("Table (space:claimed by):")
    lines += ["  " + line for line in table_lines(view)]
    hand = hand_line(view)
    if hand:
        lines.append(hand)
    return "\n".join(lines)


def standing(state: State, public: Mapping[str, Any]) -> tuple[Numbers, Numbers | None]:
    """Each seat's score as it stands (public inputs only: money, played cards, claims) and money."""
    return [float(s) for s in score(state).scores], [p.get("money") for p in public_players(public)]

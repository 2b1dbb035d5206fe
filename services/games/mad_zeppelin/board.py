"""Mad Zeppelin as text: the board for replays, and the short phrases chat uses for views and events.

Traitors go by their role (``captain``, ``taster``...), Cargo by its kind (``gold cargo``, ``small crate``),
dice by their place, counted from 1 (``1 red, 2 white, 3 black``). A seat's hand, Traitors, draft pool and
what it has looked at show only in its own view.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from services.games.kit import public_players
from services.games.mad_zeppelin.data import COLOUR_OF, JOURNEYS
from services.games.registration import Numbers

END_REASONS = {"journeys": "The tenth Journey card ended the flight", "target": "A player reached the target"}


def seat_name(seat: Any) -> str:
    return "nobody" if seat is None else f"seat {seat}"


def card_name(kind: Any) -> str:
    return str(kind).replace("_", " ")


def traitor_name(key: Any) -> str:
    colour = COLOUR_OF.get(str(key))
    return f"{key} ({colour})" if colour else str(key)


def cards_text(cards: Sequence[str] | None) -> str:
    """``["wood", "wood", "lead"]`` as ``2 wood, lead``."""
    if not cards:
        return "nothing"
    counts: dict[str, int] = {}
    for card in cards:
        counts[card] = counts.get(card, 0) + 1
    return ", ".join(card_name(k) if n == 1 else f"{n} {card_name(k)}" for k, n in counts.items())


def numbered(cards: Sequence[str] | None) -> str:
    return ", ".join(f"{i} {card_name(c)}" for i, c in enumerate(cards or [], 1)) or "nothing"


def dice_text(dice: Sequence[str] | None) -> str:
    return ", ".join(f"{i} {face}{' (out)' if face == 'black' else ''}" for i, face in enumerate(dice or [], 1)) \
        or "not rolled"


def status_line(view: Mapping[str, Any]) -> str:
    if view.get("finished"):
        return f"Game over after turn {view.get('turn', '?')}. {outcome_text(view.get('outcome'))}"
    awaiting = view.get("awaiting") or {}
    doing = f"seat {awaiting['seat']} to {awaiting.get('what', 'act')}" if awaiting else "nobody to act"
    return (f"Turn {view.get('turn', 0)}, round {view.get('round', 0)}: {doing}; leader "
            f"{seat_name(view.get('leader'))}; safe {view.get('safe', 0)} gold; hold {view.get('hold_count', 0)} "
            f"cards; journeys {view.get('journeys', 0)}/{JOURNEYS}; target {view.get('target', 0)} points.")


def table_line(view: Mapping[str, Any]) -> str:
    plays = [f"seat {p['seat']} {p['traitor']}"
             + (f" as {p['identity']}" if p.get("identity") != p.get("traitor") else "")
             + (f" ({p['colour']})" if p.get("colour") else " (no colour)") for p in view.get("plays") or []]
    line = f"Dice: {dice_text(view.get('dice'))}. Played: {', '.join(plays) or 'nothing yet'}"
    if view.get("named_unplayable"):
        line += f"; banned: {', '.join(view['named_unplayable'])}"
    watches = [f"seat {w['seat']} watches for the {w['traitor']}" for w in view.get("captain_watches") or []]
    if watches:
        line += f"; {', '.join(watches)}"
    return line + "."


def player_line(player: Mapping[str, Any]) -> str:
    held = player.get("hand_count", 0)
    current = f"; now {player['current']}" if player.get("current") else ""
    return (f"seat {player['seat']}: {player.get('points', 0)} points, {player.get('gold', 0)} gold, {held} "
            f"card{'' if held == 1 else 's'}, {player.get('unplayed_traitors', 0)} Traitors to play{current}; "
            f"in front: {cards_text(player.get('front'))}.")


def own_lines(view: Mapping[str, Any]) -> list[str]:
    """What only this seat sees: its hand, its Traitors, the draft pool, what it has looked at."""
    if view.get("hand") is None:
        return []
    traitors = [t["traitor"] + ("" if t.get("playable", True) else " (banned)") for t in view.get("traitors") or []]
    lines = [f"Your hand: {cards_text(view['hand'])}. Your Traitors: {', '.join(traitors) or 'none'}."]
    if view.get("draft_pool"):
        lines.append(f"Draft from: {', '.join(view['draft_pool'])}.")
    known = []
    for note in view.get("knowledge") or []:
        if note["kind"] == "hold_top":
            known.append(f"top of the Hold: {numbered(note['cards'])}")
        elif note["kind"] == "unused":
            known.append(f"unused Traitors: {', '.join(note['cards']) or 'none'}")
        else:
            known.append(f"seat {note['of']} holds {', '.join(note['cards']) or 'no Traitors'}")
    if known:
        lines.append(f"You know: {'; '.join(known)}.")
    return lines


def outcome_text(outcome: Any) -> str:
    if not isinstance(outcome, Mapping):
        return ""
    scores = outcome.get("scores") or []
    winners = outcome.get("winners") or []
    detail = outcome.get("detail") or {}
    draw = " (a draw)" if detail.get("draw") or outcome.get("draw") else ""
    won = f"won by {', '.join(f'seat {w}' for w in winners)}{draw}" if winners else "nobody won"
    reason = END_REASONS.get(detail.get("reason") or outcome.get("reason") or "", "")
    return f"{reason + '. ' if reason else ''}Points: " \
           f"{', '.join(f'seat {s} {p}' for s, p in enumerate(scores))}; {won}."


def view_lines(view: Mapping[str, Any]) -> list[str]:
    lines = [status_line(view), table_line(view)]
    lines += [player_line(p) for p in view.get("players") or []]
    return lines + own_lines(view)


def render(view: Mapping[str, Any]) -> str:
    lines = view_lines(view)
    sequence = view.get("sequence")
    if sequence:
        done = [word for word, flag in (("searched", sequence.get("searched")), ("ability used",
                sequence.get("ability_used")), ("thrown", sequence.get("thrown"))) if flag]
        lines.append(f"seat {sequence.get('seat')}'s sequence: {', '.join(done) or 'just begun'}.")
    if view.get("discard"):
        lines.append(f"Crates paid: {cards_text(view['discard'])}.")
    return "\n".join(lines)


def standing(state: Any, public: Mapping[str, Any]) -> tuple[Numbers, Numbers | None]:
    """Each seat's points and gold as they stand, for the replay chart."""
    players = public_players(public)
    return [p.get("points") for p in players], [p.get("gold") for p in players]

"""Views and events as text. Any view renders generically (``key: value`` lines, nested lists and maps
compact on one line); a game can have a nicer board: the ``board`` of its registration
(:mod:`services.games.registration`; by convention the module ``board.py`` of the game's package)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from schemas.envelopes import EventEnvelope
from services.games.registry import REGISTRATIONS

WIDTH = 100


def render_board(game: str | None, view: Mapping[str, Any]) -> str:
    registration = REGISTRATIONS.get(game or "")
    renderer = registration.board if registration is not None else None
    return (renderer or render_generic)(view)


def compact(value: Any) -> str:
    """A value on one line: lists as ``[a, b]``, maps as ``{k: v}``, None as ``-``."""
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, str):
        return value if value else '""'
    if isinstance(value, Mapping):
        return "{" + ", ".join(f"{k}: {compact(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list | tuple):
        return "[" + ", ".join(compact(v) for v in value) + "]"
    return str(value)


def _is_scalar(value: Any) -> bool:
    return not isinstance(value, Mapping | list | tuple)


def render_generic(view: Mapping[str, Any], indent: int = 0, width: int = WIDTH) -> str:
    """Readable ``key: value`` lines. A map too long for one line opens an indented block; so does a list of
    maps (one compact line per item); everything else stays on its key's line."""
    pad = "  " * indent
    lines: list[str] = []
    for key, value in view.items():
        one_line = f"{pad}{key}: {compact(value)}"
        if len(one_line) <= width or _is_scalar(value):
            lines.append(one_line)
        elif isinstance(value, Mapping):
            lines.append(f"{pad}{key}:")
            lines.append(render_generic(value, indent + 1, width))
        elif all(_is_scalar(v) for v in value):
            lines.append(one_line)
        else:
            lines.append(f"{pad}{key}:")
            for item in value:
                if isinstance(item, Mapping):
                    block = render_generic(item, indent + 2, width).lstrip()
                    lines.append(f"{pad}  - {block}")
                else:
                    lines.append(f"{pad}  - {compact(item)}")
    return "\n".join(lines)


def body_text(body: Mapping[str, Any]) -> str:
    return " ".join(f"{k}={compact(v)}" for k, v in body.items())


def cause(envelope: EventEnvelope) -> str:
    """Who caused an event: 'set-up', or the seat (with its command when the reader may see it)."""
    if envelope.seat is None:
        return "set-up" if envelope.command_id is None else "the service"
    if envelope.command is not None:
        command = f"{envelope.command.get('type', '?')} {body_text(envelope.command.get('body') or {})}".strip()
        return f"seat {envelope.seat} ({command})"
    return f"seat {envelope.seat}"


def describe_event(envelope: EventEnvelope, seat: int | None = None) -> str:
    """One line as ``seat`` (None: a spectator) may see the event: ``v12 seat 1: Taken seat=1 n=2``.
    An event whose secrets the reader may not see is marked ``(hidden)`` and shows only its redacted body."""
    hidden = envelope.visible_to is not None and (seat is None or seat not in envelope.visible_to)
    seen = envelope.for_seat(seat)
    text = body_text(seen.body)
    return f"v{seen.version} {cause(seen)}: {seen.type}{' (hidden)' if hidden else ''}{' ' + text if text else ''}"

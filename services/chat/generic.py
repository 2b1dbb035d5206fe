"""The default chat adapter: works for any game from its views and legal commands alone.

Commands are written ``type key=value ...`` (:mod:`services.chat.chatform`); a command with one field
also takes its value alone (``take 2``), and a number alone picks from the numbered list of legal
commands. Input that cannot be read, or names a command that is not legal now, gets a reply saying
what went wrong, a "did you mean", and what is legal now.
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping, Sequence
from typing import Any

from schemas.envelopes import EventEnvelope
from schemas.legal import choices_from_wire, concrete
from services.chat.adapter import ChatError, CommandDict
from services.chat.chatform import ChatFormError, Shape, Token, format_command, read_plain, shapes_of, tokenize
from services.replay.render import body_text, cause, compact

MAX_LINE = 200
LISTED_PER_TYPE = 6
NUMBERED_UP_TO = 9


def concrete_commands(legal: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """The view record's choices as concrete commands: every command of a small choice, a spread of a
    large one (a typed command outside the spread is still read and sent; the game judges it)."""
    if not any("free" in c for c in legal):
        return list(legal)
    return [{"type": kind, "body": body} for kind, body in concrete(choices_from_wire(legal))]


def _norm(word: str) -> str:
    return word.lower().replace("-", "_")


def _plain(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    return value


class DefaultAdapter:
    # -- text out --------------------------------------------------------------------------------
    def render_view(self, view: Mapping[str, Any]) -> list[str]:
        lines = []
        for key, value in view.items():
            if value is None:
                continue
            line = f"{key}: {compact(value)}"
            lines.append(line if len(line) <= MAX_LINE else line[: MAX_LINE - 1] + "…")
        return lines

    def render_event(self, envelope: EventEnvelope) -> str | None:
        text = body_text(envelope.body)
        return f"{cause(envelope)}: {envelope.type}{' ' + text if text else ''}"

    def format_command(self, command: Mapping[str, Any]) -> str:
        return format_command(command)

    def describe_legal(self, legal: Sequence[Mapping[str, Any]]) -> str:
        legal = concrete_commands(legal)
        if not legal:
            return "You have nothing to do right now."
        if len(legal) <= NUMBERED_UP_TO:
            options = " | ".join(f"{i}) {self.format_command(c)}" for i, c in enumerate(legal, 1))
            return f"Legal now: {options} (write one, or just its number)"
        by_type: dict[str, list[Mapping[str, Any]]] = {}
        for command in legal:
            by_type.setdefault(command["type"], []).append(command)
        parts: list[str] = []
        for type_, commands in by_type.items():
            if len(commands) <= LISTED_PER_TYPE:
                parts.extend(self.format_command(c) for c in commands)
            else:
                parts.append(_summary(type_, [c.get("body") or {} for c in commands]))
        return f"Legal now: {' | '.join(parts)}"

    # -- text in ---------------------------------------------------------------------------------
    def parse(self, text: str, legal: Sequence[Mapping[str, Any]]) -> CommandDict | ChatError:
        legal = concrete_commands(legal)
        try:
            return self._parse(text.strip(), legal)
        except ChatFormError as e:
            return ChatError(f"{e} {self.describe_legal(legal)}")

    def _parse(self, text: str, legal: Sequence[Mapping[str, Any]]) -> CommandDict | ChatError:
        help_ = self.describe_legal(legal)
        if not text:
            return ChatError(f"Write a command. {help_}")
        if not legal:
            return ChatError("You have nothing to do right now (it is not your turn, or the match is over).")
        if text.isascii() and text.isdigit():
            pick = int(text)
            if 1 <= pick <= len(legal):
                return _copy(legal[pick - 1])
            return ChatError(f"There is no choice {pick}; pick 1 to {len(legal)}. {help_}")
        tokens = tokenize(text)
        first = tokens[0]
        types = {_norm(c["type"]): c["type"] for c in legal}
        if first.key is not None or first.is_json or _norm(first.raw) not in types:
            return ChatError(f"Unknown command '{first.raw if first.key is None else text.split()[0]}'."
                             f"{self._did_you_mean(text, first.raw, legal)} {help_}")
        type_ = types[_norm(first.raw)]
        bodies = [dict(c.get("body") or {}) for c in legal if c["type"] == type_]
        body = self._body(type_, tokens[1:], bodies)
        if isinstance(body, ChatError):
            return body
        wanted = {"type": type_, "body": body}
        for command in legal:  # the legal command itself, exactly as the game listed it
            if command["type"] == type_ and _plain(command.get("body") or {}) == _plain(body):
                return _copy(command)
        return wanted

    def _body(self, type_: str, tokens: Sequence[Token], bodies: list[dict[str, Any]]) -> dict[str, Any] | ChatError:
        example = self.format_command({"type": type_, "body": bodies[0]})
        shapes = shapes_of(bodies)
        key_lists = {tuple(b) for b in bodies}
        positional = [t for t in tokens if t.key is None]
        if positional:
            if len(key_lists) != 1:
                return ChatError(f"Name the values, like '{example}'.")
            order = list(next(iter(key_lists)))
            named = {t.key for t in tokens if t.key is not None}
            free = [k for k in order if k not in named]
            if len(positional) > len(free):
                return ChatError(f"Too many values; for example: {example}")
            tokens = [t for t in tokens if t.key is not None] + [
                Token(key, t.raw, t.value, t.is_json) for key, t in zip(free, positional, strict=False)]
        body: dict[str, Any] = {}
        for token in tokens:
            key = token.key or ""
            if key not in shapes:
                hint = difflib.get_close_matches(key, list(shapes), n=1) or (list(shapes) if len(shapes) == 1 else [])
                known = ", ".join(shapes) or "nothing"
                return ChatError(f"'{type_}' has no '{key}'{f' (did you mean {hint[0]}?)' if hint else ''}; "
                                 f"it takes {known}. For example: {example}")
            if key in body:
                return ChatError(f"'{key}' is given twice.")
            try:
                body[key] = token.value if token.is_json else read_plain(token.raw, shapes.get(key, Shape()))
            except ChatFormError as e:
                return ChatError(f"{key}: {e}. For example: {example}")
        if tuple(sorted(body)) not in {tuple(sorted(k)) for k in key_lists}:
            missing = [k for k in min(key_lists, key=lambda ks: len(set(ks) ^ set(body))) if k not in body]
            return ChatError(f"'{type_}' needs {', '.join(f'{k}=...' for k in missing) or 'fewer values'}. "
                             f"For example: {example}")
        return body

    def _did_you_mean(self, text: str, word: str, legal: Sequence[Mapping[str, Any]]) -> str:
        types = list(dict.fromkeys(c["type"] for c in legal))
        close = difflib.get_close_matches(word.lower(), types, n=1, cutoff=0.5)
        if not close:
            forms = [self.format_command(c) for c in legal]
            close = difflib.get_close_matches(text, forms, n=1, cutoff=0.5)
        return f" Did you mean '{close[0]}'?" if close else ""


def _copy(command: Mapping[str, Any]) -> CommandDict:
    return {"type": command["type"], "body": dict(command.get("body") or {})}


def _summary(type_: str, bodies: list[dict[str, Any]]) -> str:
    """Many commands of one type in a few words: ``bid amount=1..50`` (int ranges) or first values…"""
    parts = []
    for key in dict.fromkeys(k for b in bodies for k in b):
        values = [b[key] for b in bodies if key in b]
        ints = [v for v in values if isinstance(v, int) and not isinstance(v, bool)]
        if len(ints) == len(values):
            parts.append(f"{key}={min(ints)}..{max(ints)}")
        else:
            distinct = list(dict.fromkeys(compact(v) for v in values))
            parts.append(f"{key}={'/'.join(distinct[:3])}{'/…' if len(distinct) > 3 else ''}")
    return f"{type_} {' '.join(parts)} ({len(bodies)} choices)".replace("  ", " ")


DEFAULT = DefaultAdapter()

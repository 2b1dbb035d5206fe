"""The generic chat form of a command: ``type key=value ...``, and reading it back.

Values are written so that a person can type them and the parser reads them back exactly:
numbers as digits, ``true``/``false``, ``none``, plain words as they are, lists of two or more plain
items as ``a,b,c``, maps of plain entries as ``aviation:2,shipping:1``; anything else (a text with
spaces or that looks like a number, an empty or one-item list, nested data) as JSON (``"New York"``,
``[3]``, ``[]``). Reading is guided by a :class:`Shape` learned from the legal commands, so ``cards=3``
means ``[3]`` where the game expects a list.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

PLAIN_RE = re.compile(r"[A-Za-z0-9_.+/\-]+")
NUMBER_RE = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?|[+-]?(inf|nan|infinity)", re.IGNORECASE)
INT_RE = re.compile(r"[+-]?\d+")
KEY_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
TRUE_WORDS = {"true", "yes", "on"}
FALSE_WORDS = {"false", "no", "off"}
NONE_WORDS = {"none", "null"}
RESERVED = TRUE_WORDS | FALSE_WORDS | NONE_WORDS


class ChatFormError(ValueError):
    """Text that cannot be read as a command; the message says what was wrong."""


# -- writing ---------------------------------------------------------------------------------------
def _plain_scalar(value: Any) -> str | None:
    """The plain (unquoted) form of a scalar, or None when it needs JSON."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "none"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return repr(value) if value == value and abs(value) != float("inf") else None
    plain_text = isinstance(value, str) and PLAIN_RE.fullmatch(value) and value.lower() not in RESERVED
    if plain_text and not NUMBER_RE.fullmatch(value):
        return str(value)
    return None


def format_value(value: Any) -> str:
    plain = _plain_scalar(value)
    if plain is not None:
        return plain
    if isinstance(value, list | tuple) and len(value) >= 2:
        items = [_plain_scalar(v) if not isinstance(v, list | tuple | Mapping) else None for v in value]
        if all(item is not None for item in items):
            return ",".join(items)  # type: ignore[arg-type]
    if isinstance(value, Mapping) and value:
        entries = [(k, _plain_scalar(v)) for k, v in value.items() if not isinstance(v, list | tuple | Mapping)]
        if len(entries) == len(value) and all(isinstance(k, str) and PLAIN_RE.fullmatch(k) and v is not None
                                              for k, v in entries):
            return ",".join(f"{k}:{v}" for k, v in entries)
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def format_command(command: Mapping[str, Any]) -> str:
    """``{"type": "take", "body": {"n": 2}}`` as ``take n=2``."""
    body: Mapping[str, Any] = command.get("body") or {}
    args = " ".join(f"{key}={format_value(value)}" for key, value in body.items())
    return f"{command['type']} {args}".strip()


# -- shapes ----------------------------------------------------------------------------------------
def kind_of(value: Any) -> str:
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int"
    if isinstance(value, float):
        return "float"
    if isinstance(value, str):
        return "str"
    if isinstance(value, Mapping):
        return "map"
    return "list"


@dataclass
class Shape:
    """What a field's values looked like in the examples: their kinds, and the shape of list items and
    map values. An empty shape (no examples) reads values by their look."""

    kinds: set[str] = field(default_factory=set)
    items: Shape | None = None
    values: Shape | None = None

    def add(self, value: Any) -> None:
        kind = kind_of(value)
        self.kinds.add(kind)
        if kind == "list":
            self.items = self.items or Shape()
            for item in value:
                self.items.add(item)
        elif kind == "map":
            self.values = self.values or Shape()
            for item in value.values():
                self.values.add(item)

    def allows(self, kind: str) -> bool:
        return not self.kinds or kind in self.kinds

    def describe(self) -> str:
        names = {"int": "a whole number", "float": "a number", "bool": "true or false", "none": "none",
                 "str": "a word", "list": "a list like a,b", "map": "a map like a:1,b:2"}
        return " or ".join(names[k] for k in sorted(self.kinds)) or "a value"


def shapes_of(bodies: Iterable[Mapping[str, Any]]) -> dict[str, Shape]:
    shapes: dict[str, Shape] = {}
    for body in bodies:
        for key, value in body.items():
            shapes.setdefault(key, Shape()).add(value)
    return shapes


# -- reading ---------------------------------------------------------------------------------------
def read_plain(raw: str, shape: Shape) -> Any:
    """A plain (non-JSON) value as ``shape`` expects it; raises :class:`ChatFormError`."""
    low = raw.lower()
    if low in NONE_WORDS and shape.allows("none"):
        return None
    if shape.allows("bool") and (low in TRUE_WORDS or low in FALSE_WORDS) and "," not in raw:
        return low in TRUE_WORDS
    if shape.allows("map") and ":" in raw and ("map" in shape.kinds or not shape.kinds):
        out: dict[str, Any] = {}
        for part in filter(None, raw.split(",")):
            key, sep, value = part.partition(":")
            if not sep or not key:
                raise ChatFormError(f"'{part}' should look like name:value")
            out[key] = read_plain(value, shape.values or Shape())
        return out
    if shape.allows("list") and ("," in raw or shape.kinds == {"list"}):
        return [read_plain(part, shape.items or Shape()) for part in raw.split(",") if part]
    if shape.allows("int") and INT_RE.fullmatch(raw):
        return int(raw)
    if shape.allows("float") and NUMBER_RE.fullmatch(raw):
        return float(raw)
    if shape.allows("str") and "," not in raw:
        return raw
    raise ChatFormError(f"'{raw}' is not {shape.describe()}")


@dataclass(frozen=True, slots=True)
class Token:
    key: str | None  # None: a positional value
    raw: str  # the text as typed
    value: Any = None  # the decoded value when ``is_json``
    is_json: bool = False


def tokenize(text: str) -> list[Token]:
    """``take n=2 "New York" cards=[1,2]`` into tokens; JSON values may contain spaces."""
    decoder = json.JSONDecoder()
    tokens: list[Token] = []
    i, n = 0, len(text)
    while i < n:
        if text[i].isspace():
            i += 1
            continue
        key = None
        match = KEY_RE.match(text, i)
        if match and match.end() < n and text[match.end()] == "=":
            key, i = match.group(), match.end() + 1
        if i < n and text[i] in "\"[{":
            try:
                value, end = decoder.raw_decode(text, i)
            except json.JSONDecodeError as e:
                raise ChatFormError(f"cannot read {text[i:i + 20]!r}: {e.msg} (JSON values need closing quotes "
                                    f"or brackets)") from e
            if end < n and not text[end].isspace():
                raise ChatFormError(f"put a space after {text[i:end]!r}")
            tokens.append(Token(key, text[i:end], value, True))
            i = end
            continue
        end = i
        while end < n and not text[end].isspace():
            end += 1
        if key is not None and end == i:
            raise ChatFormError(f"'{key}=' needs a value")
        tokens.append(Token(key, text[i:end]))
        i = end
    return tokens

"""Reading command bodies safely: any malformed field becomes a BadCommand, never an exception.

`decide` receives bodies straight off the wire; these helpers are how a game reads them.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any

from services.games.errors import BadCommand


def int_field(body: Mapping[str, Any], name: str, lo: int | None = None, hi: int | None = None) -> int:
    value = body.get(name)
    if isinstance(value, bool) or not isinstance(value, int):
        raise BadCommand(f"'{name}' must be a whole number")
    if lo is not None and value < lo:
        raise BadCommand(f"'{name}' must be at least {lo}, got {value}")
    if hi is not None and value > hi:
        raise BadCommand(f"'{name}' must be at most {hi}, got {value}")
    return value


def str_field(body: Mapping[str, Any], name: str, choices: Collection[str] | None = None) -> str:
    value = body.get(name)
    if not isinstance(value, str):
        raise BadCommand(f"'{name}' must be text")
    if choices is not None and value not in choices:
        raise BadCommand(f"'{name}' must be one of {', '.join(sorted(choices))}; got '{value}'")
    return value


def opt_str_field(body: Mapping[str, Any], name: str, choices: Collection[str] | None = None) -> str | None:
    if body.get(name) is None:
        return None
    return str_field(body, name, choices)


def bool_field(body: Mapping[str, Any], name: str, default: bool | None = None) -> bool:
    value = body.get(name, default)
    if not isinstance(value, bool):
        raise BadCommand(f"'{name}' must be true or false")
    return value


def count_map_field(
    body: Mapping[str, Any], name: str, keys: Collection[str], max_total: int | None = None
) -> dict[str, int]:
    """A mapping like {"aviation": 2, "shipping": 1}: known keys, positive whole counts."""
    value = body.get(name)
    if not isinstance(value, Mapping):
        raise BadCommand(f"'{name}' must be a mapping of name to count")
    out: dict[str, int] = {}
    for key, count in value.items():
        if not isinstance(key, str) or key not in keys:
            raise BadCommand(f"unknown '{key}' in '{name}'; expected one of {', '.join(sorted(keys))}")
        if isinstance(count, bool) or not isinstance(count, int) or count < 0:
            raise BadCommand(f"count for '{key}' in '{name}' must be a whole number >= 0")
        if count:
            out[key] = count
    if max_total is not None and sum(out.values()) > max_total:
        raise BadCommand(f"'{name}' names more than {max_total} in all")
    return out


def int_list_field(body: Mapping[str, Any], name: str, lo: int, hi: int, max_len: int = 64) -> list[int]:
    value = body.get(name)
    if not isinstance(value, list) or len(value) > max_len:
        raise BadCommand(f"'{name}' must be a list of at most {max_len} whole numbers")
    for item in value:
        if isinstance(item, bool) or not isinstance(item, int) or not lo <= item <= hi:
            raise BadCommand(f"every entry of '{name}' must be a whole number from {lo} to {hi}")
    return list(value)


def str_list_field(
    body: Mapping[str, Any], name: str, choices: Collection[str] | None = None, max_len: int = 64
) -> list[str]:
    value = body.get(name)
    if not isinstance(value, list) or len(value) > max_len:
        raise BadCommand(f"'{name}' must be a list of at most {max_len} names")
    for item in value:
        if not isinstance(item, str) or (choices is not None and item not in choices):
            raise BadCommand(f"unknown entry '{item}' in '{name}'")
    return list(value)

"""Hypothesis strategies for hostile input: raw bytes, mutated valid envelopes (flipped, truncated and
inserted bytes; wrong types, huge numbers, unicode, nested junk, unknown fields) and command bodies
mutated from a game's legal commands."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from schemas.codec import pack_obj

HUGE = st.sampled_from([2**63, -(2**63), 2**64 - 1, 10**30, -1, 0, 2**31])
SCALARS = st.one_of(st.none(), st.booleans(), st.integers(min_value=-(2**63), max_value=2**64 - 1), HUGE,
                    st.floats(allow_nan=True), st.text(max_size=40), st.binary(max_size=20))
JUNK = st.recursive(SCALARS, lambda inner: st.lists(inner, max_size=4)
                    | st.dictionaries(st.text(max_size=10) | st.integers(), inner, max_size=4), max_leaves=12)


@st.composite
def mutated_bytes(draw: st.DrawFn, data: bytes) -> bytes:
    """``data`` with a few bytes flipped, cut, or inserted."""
    out = bytearray(data)
    for _ in range(draw(st.integers(1, 4))):
        kind = draw(st.sampled_from(["flip", "truncate", "insert", "delete"]))
        if not out:
            break
        i = draw(st.integers(0, len(out) - 1))
        if kind == "flip":
            out[i] ^= 1 << draw(st.integers(0, 7))
        elif kind == "truncate":
            del out[i:]
        elif kind == "insert":
            out[i:i] = draw(st.binary(min_size=1, max_size=8))
        else:
            del out[i]
    return bytes(out)


@st.composite
def mutated_fields(draw: st.DrawFn, obj: dict[str, Any]) -> dict[str, Any]:
    """An envelope as a map with fields replaced by junk, dropped, or added."""
    out = dict(obj)
    for _ in range(draw(st.integers(1, 3))):
        kind = draw(st.sampled_from(["junk", "drop", "add", "unicode"]))
        key = draw(st.sampled_from(sorted(out) or ["command_id"]))
        if kind == "junk":
            out[key] = draw(JUNK)
        elif kind == "drop":
            out.pop(key, None)
        elif kind == "add":
            out[draw(st.text(min_size=1, max_size=12))] = draw(JUNK)
        else:
            out[key] = draw(st.text(min_size=0, max_size=80))
    return out


@st.composite
def mutated_body(draw: st.DrawFn, body: dict[str, Any]) -> dict[str, Any]:
    """A legal command's body with values replaced by junk, keys dropped or added, or left as it was."""
    out = dict(body)
    for _ in range(draw(st.integers(0, 3))):
        kind = draw(st.sampled_from(["junk", "drop", "add", "nested", "huge"]))
        key = draw(st.sampled_from(sorted(out))) if out else draw(st.text(min_size=1, max_size=8))
        if kind == "junk":
            out[key] = draw(JUNK)
        elif kind == "drop":
            out.pop(key, None)
        elif kind == "add":
            out[draw(st.text(min_size=1, max_size=12))] = draw(JUNK)
        elif kind == "nested":
            out[key] = {k: v for k, v in [(key, out.get(key)), ("x", draw(JUNK))]}
        else:
            out[key] = draw(HUGE)
    return out


def packable(obj: Any) -> bytes | None:
    try:
        return pack_obj(obj)
    except (TypeError, ValueError, OverflowError):
        return None

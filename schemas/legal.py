"""What a seat may send now: the ``legal`` list of a seat's view record, complete.

Each item is a **choice**: a command type, the fields fixed for it (``body``) and, where listing every
value would be too many, the fields left **free** with a description a client can expand.

    {"type": "pass", "body": {}}                                          one command
    {"type": "bid", "body": {}, "free": {"amount": {"kind": "int", "min": 4, "max": 15}}}
    {"type": "play", "body": {}, "free": {"cards": {"kind": "counts",
        "max": {"aviation": 2, "telecom": 1}, "min_total": 1, "max_total": 3}}}

Free field kinds (every value they describe is accepted by the game, and every command the game
accepts is described by some choice; the shared conformance suite checks both on random states):

- ``int``: a whole number from ``min`` to ``max`` inclusive.
- ``one_of``: any of ``values`` (any JSON values, ``null`` included).
- ``counts``: a mapping key -> whole count, each from 0 to ``max[key]``, keys with 0 left out, the
  counts summing to ``min_total`` .. ``max_total``.
- ``subset``: a list of distinct items of ``items`` (kept in their listed order), ``min`` to ``max``
  of them.
- ``order``: a list holding every one of ``items`` exactly once, in any order.

A choice with no free fields is one command. A body is the choice's ``body`` with each free field
set to one of its values. This module is pure and depends on nothing but the standard library and
pydantic, so clients in Python use it as is; the JSON Schema of a choice is exported with the others.
"""

from __future__ import annotations

import itertools
import math
import random
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

Body = dict[str, Any]


class _Free(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class IntRange(_Free):
    kind: Literal["int"] = "int"
    min: int
    max: int


class OneOf(_Free):
    kind: Literal["one_of"] = "one_of"
    values: list[Any]


class Counts(_Free):
    kind: Literal["counts"] = "counts"
    max: dict[str, int] = Field(description="The most of each key (0 .. this).")
    min_total: int = 0
    max_total: int


class Subset(_Free):
    kind: Literal["subset"] = "subset"
    items: list[Any]
    min: int = 0
    max: int


class Order(_Free):
    kind: Literal["order"] = "order"
    items: list[Any]


Free = Annotated[IntRange | OneOf | Counts | Subset | Order, Field(discriminator="kind")]


class Choice(BaseModel):
    """One item of ``legal``: a command type, its fixed fields, and its free fields if any."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    type: str
    body: Body = Field(default_factory=dict)
    free: dict[str, Free] = Field(default_factory=dict)

    def wire(self) -> Body:
        """The JSON form (``free`` left out when there is none)."""
        out: Body = {"type": self.type, "body": dict(self.body)}
        if self.free:
            out["free"] = {name: spec.model_dump() for name, spec in self.free.items()}
        return out

    @property
    def count(self) -> int:
        """How many commands this choice stands for."""
        return math.prod(_count(spec) for spec in self.free.values())

    def bodies(self, limit: int | None = None) -> Iterator[Body]:
        """Every body this choice stands for (the first ``limit`` of them)."""
        names = list(self.free)
        product = _lazy_product([lambda n=n: _values(self.free[n]) for n in names])
        for values in itertools.islice(product, limit):
            yield {**self.body, **dict(zip(names, values, strict=True))}

    def sample(self, rng: random.Random) -> Body:
        """One of this choice's bodies, each free field drawn uniformly from its values."""
        return {**self.body, **{n: _sample(spec, rng) for n, spec in self.free.items()}}

    def covers(self, command_type: str, body: Mapping[str, Any]) -> bool:
        """Whether ``(command_type, body)`` is one of this choice's commands."""
        if command_type != self.type or set(body) != set(self.body) | set(self.free):
            return False
        if any(body[k] != v for k, v in self.body.items()):
            return False
        return all(_contains(spec, body[name]) for name, spec in self.free.items())


def choices_from_wire(items: Iterable[Mapping[str, Any]]) -> list[Choice]:
    return [Choice.model_validate(item) for item in items]


def covered(choices: Iterable[Choice], command_type: str, body: Mapping[str, Any]) -> bool:
    return any(c.covers(command_type, body) for c in choices)


def total(choices: Iterable[Choice]) -> int:
    return sum(c.count for c in choices)


def sample(choices: Sequence[Choice], rng: random.Random) -> tuple[str, Body]:
    """A command drawn from ``choices``: a choice uniformly, then a body of it uniformly."""
    choice = rng.choice(choices)
    return choice.type, choice.sample(rng)


def concrete(choices: Iterable[Choice], per_type: int = 48) -> list[tuple[str, Body]]:
    """A bounded concrete list: every command of a type with at most ``per_type`` of them, else a
    spread of each of its choices (the extremes and a few between), so a search bot or an action mask
    sees the range without 10,000 children."""
    by_type: dict[str, list[Choice]] = {}
    for c in choices:
        by_type.setdefault(c.type, []).append(c)
    out: list[tuple[str, Body]] = []
    for kind, group in by_type.items():
        if sum(c.count for c in group) <= per_type:
            out.extend((kind, b) for c in group for b in c.bodies())
            continue
        share = max(1, per_type // len(group))
        for c in group:
            bodies = list(c.bodies()) if c.count <= share else _spread(c, share)
            out.extend((kind, b) for b in bodies)
    return out


def _lazy_product(makers: list[Any]) -> Iterator[tuple[Any, ...]]:
    """``itertools.product`` without materialising every factor first (a factor may be huge)."""
    if not makers:
        yield ()
        return
    for head in makers[0]():
        for tail in _lazy_product(makers[1:]):
            yield (head, *tail)


# --- per kind ---


def _count(spec: Any) -> int:
    if isinstance(spec, IntRange):
        return max(0, spec.max - spec.min + 1)
    if isinstance(spec, OneOf):
        return len(spec.values)
    if isinstance(spec, Counts):
        ways = _ways(list(spec.max.values()))
        return sum(ways[0][t] for t in range(spec.min_total, min(spec.max_total, len(ways[0]) - 1) + 1))
    if isinstance(spec, Subset):
        return sum(math.comb(len(spec.items), k) for k in range(spec.min, min(spec.max, len(spec.items)) + 1))
    return math.factorial(len(spec.items))


def _values(spec: Any) -> Iterator[Any]:
    if isinstance(spec, IntRange):
        yield from range(spec.min, spec.max + 1)
    elif isinstance(spec, OneOf):
        yield from spec.values
    elif isinstance(spec, Counts):
        yield from _counts(spec)
    elif isinstance(spec, Subset):
        for k in range(spec.min, min(spec.max, len(spec.items)) + 1):
            for combo in itertools.combinations(spec.items, k):
                yield list(combo)
    else:
        for perm in itertools.permutations(spec.items):
            yield list(perm)


def _counts(spec: Counts) -> Iterator[dict[str, int]]:
    keys = list(spec.max)
    for combo in itertools.product(*(range(spec.max[k] + 1) for k in keys)):
        if spec.min_total <= sum(combo) <= spec.max_total:
            yield {k: n for k, n in zip(keys, combo, strict=True) if n}


def _ways(maxima: list[int]) -> list[list[int]]:
    """``ways[i][t]``: how many ways keys ``i..`` (each 0..its max) sum to exactly ``t``."""
    top = sum(maxima)
    ways = [[0] * (top + 1) for _ in range(len(maxima) + 1)]
    ways[len(maxima)][0] = 1
    for i in range(len(maxima) - 1, -1, -1):
        for t in range(top + 1):
            ways[i][t] = sum(ways[i + 1][t - n] for n in range(min(maxima[i], t) + 1))
    return ways


def _sample_counts(spec: Counts, rng: random.Random) -> dict[str, int]:
    """Uniform over the described mappings, without listing them: pick the total by how many mappings
    have it, then each key's count by how many completions remain."""
    keys = list(spec.max)
    ways = _ways([spec.max[k] for k in keys])
    totals = list(range(spec.min_total, min(spec.max_total, len(ways[0]) - 1) + 1))
    remaining = rng.choices(totals, [ways[0][t] for t in totals])[0]
    out: dict[str, int] = {}
    for i, key in enumerate(keys):
        options = list(range(min(spec.max[key], remaining) + 1))
        n = rng.choices(options, [ways[i + 1][remaining - m] for m in options])[0]
        if n:
            out[key] = n
        remaining -= n
    return out


def _contains(spec: Any, value: Any) -> bool:
    if isinstance(spec, IntRange):
        return isinstance(value, int) and not isinstance(value, bool) and spec.min <= value <= spec.max
    if isinstance(spec, OneOf):
        return any(value == v and type(value) is type(v) for v in spec.values)
    if isinstance(spec, Counts):
        if not isinstance(value, Mapping) or not set(value) <= set(spec.max):
            return False
        counts = list(value.values())
        if any(isinstance(n, bool) or not isinstance(n, int) or n <= 0 for n in counts):
            return False
        return all(value[k] <= spec.max[k] for k in value) and spec.min_total <= sum(counts) <= spec.max_total
    if isinstance(spec, Subset):
        if not isinstance(value, list) or not spec.min <= len(value) <= spec.max:
            return False
        rest = iter(spec.items)  # in listed order, each listed item used at most once (repeats allowed)
        return all(any(v == item and type(v) is type(item) for item in rest) for v in value)
    return isinstance(value, list) and len(value) == len(spec.items) and sorted(map(repr, value)) == sorted(
        map(repr, spec.items)
    )


def _sample(spec: Any, rng: random.Random) -> Any:
    if isinstance(spec, IntRange):
        return rng.randint(spec.min, spec.max)
    if isinstance(spec, OneOf):
        return rng.choice(spec.values)
    if isinstance(spec, Counts):
        return _sample_counts(spec, rng)
    if isinstance(spec, Subset):
        sizes = list(range(spec.min, min(spec.max, len(spec.items)) + 1))
        weights = [math.comb(len(spec.items), k) for k in sizes]
        k = rng.choices(sizes, weights)[0]
        picked = set(rng.sample(range(len(spec.items)), k))
        return [item for i, item in enumerate(spec.items) if i in picked]
    items = list(spec.items)
    rng.shuffle(items)
    return items


def _spread(choice: Choice, limit: int) -> list[Body]:
    """Up to ``limit`` bodies of a large choice: each free field's extremes and a few values between,
    combined, plus for counts every single-key play and the whole of each key."""
    names = list(choice.free)
    picks = [_spread_values(choice.free[n]) for n in names]
    out: list[Body] = []
    for values in itertools.islice(itertools.product(*picks), limit):
        out.append({**choice.body, **dict(zip(names, values, strict=True))})
    return out


def _spread_values(spec: Any) -> list[Any]:
    if isinstance(spec, IntRange):
        span = spec.max - spec.min
        steps = sorted({spec.min + d for d in (0, 1, 2, 4, 9, 14) if d <= span} | {spec.max})
        return steps
    if isinstance(spec, Counts):
        out: list[dict[str, int]] = []
        for k, most in spec.max.items():
            out.extend({k: n} for n in range(1, most + 1) if spec.min_total <= n <= spec.max_total)
        for whole in ({k: 1 for k, n in spec.max.items() if n}, {k: n for k, n in spec.max.items() if n}):
            if whole not in out and spec.min_total <= sum(whole.values()) <= spec.max_total:
                out.append(whole)
        if spec.min_total == 0:
            out.insert(0, {})
        return out
    return list(itertools.islice(_values(spec), 12))

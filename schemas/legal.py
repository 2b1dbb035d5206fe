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
- ``multiset``: a list of keys of ``max`` (cards from a hand, named once per copy), each at most
  ``max[key]`` times, ``min_total`` .. ``max_total`` long, in any order: lists naming the same keys
  the same number of times are the same command (``count`` counts them once; ``bodies`` and
  ``sample`` give them in ``max``'s key order).
- ``subset``: a list of distinct items of ``items`` (kept in their listed order), ``min`` to ``max``
  of them.
- ``order``: a list holding every one of ``items`` exactly once, in any order.
- ``text``: any string of ``min_length`` .. ``max_length`` characters (a note, a name, a taunt); with
  ``optional`` the field may also be left out of the body. Its values are too many to list: ``count`` says
  :data:`TEXT_COUNT` and ``bodies`` gives the field left out (if optional), then strings of a small alphabet
  shortest first; ``covers`` is exact.

A choice with no free fields is one command. A body is the choice's ``body`` with each free field
set to one of its values. This module is pure and depends on nothing but the standard library and
pydantic, so clients in Python use it as is; the JSON Schema of a choice is exported with the others.
"""

from __future__ import annotations

import functools
import itertools
import math
import random
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr

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


class Multiset(_Free):
    kind: Literal["multiset"] = "multiset"
    max: dict[str, int] = Field(description="The most copies of each key a list may name (0 .. this).")
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


class Text(_Free):
    kind: Literal["text"] = "text"
    min_length: int = Field(default=0, ge=0)
    max_length: int = Field(ge=0, description="The most characters (Unicode code points).")
    optional: bool = Field(default=False, description="The field may be left out of the body.")


Free = Annotated[IntRange | OneOf | Counts | Multiset | Subset | Order | Text, Field(discriminator="kind")]
TEXT_COUNT = 2**31 - 1  # what a text field counts for: too many to list, a number every client can hold
TEXT_ALPHABET = "ab"  # the strings ``bodies`` walks through (a text field is described, never listed)
TEXT_SAMPLE = "abcdefghijklmnopqrstuvwxyz ABCXYZ0123456789!?.,-éü€😀"  # what ``sample`` draws from
_ABSENT = object()  # an optional field left out of the body


class Choice(BaseModel):
    """One item of ``legal``: a command type, its fixed fields, and its free fields if any."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    type: str
    body: Body = Field(default_factory=dict)
    free: dict[str, Free] = Field(default_factory=dict)
    _memo: dict[Any, Any] = PrivateAttr(default_factory=dict)
    """Derived values (``count``, spreads): games reuse their choices, so each is worked out once."""

    def __eq__(self, other: object) -> bool:  # the memo is not part of what a choice is
        if not isinstance(other, Choice):
            return NotImplemented
        return (self.type, self.body, self.free) == (other.type, other.body, other.free)

    __hash__ = None  # type: ignore[assignment]  # mutable dicts inside: not hashable

    def wire(self) -> Body:
        """The JSON form (``free`` left out when there is none)."""
        out: Body = {"type": self.type, "body": dict(self.body)}
        if self.free:
            out["free"] = {name: spec.model_dump() for name, spec in self.free.items()}
        return out

    @property
    def count(self) -> int:
        """How many commands this choice stands for."""
        if not self.free:
            return 1
        memo = self._memos()
        if "count" not in memo:
            memo["count"] = math.prod(_count(spec) for spec in self.free.values())
        return int(memo["count"])

    def _memos(self) -> dict[Any, Any]:
        """The memo dict, read straight from pydantic's private storage (``self._memo`` goes through
        ``BaseModel.__getattr__``, several times slower on this hot path)."""
        private = self.__pydantic_private__
        assert private is not None
        return private["_memo"]  # type: ignore[no-any-return]

    def bodies(self, limit: int | None = None) -> Iterator[Body]:
        """Every body this choice stands for (the first ``limit`` of them)."""
        names = list(self.free)
        product = _lazy_product([lambda n=n: _values(self.free[n]) for n in names])
        for values in itertools.islice(product, limit):
            yield _body(self.body, names, values)

    def spread(self, limit: int) -> list[Body]:
        """Every body when there are at most ``limit``, else ``limit`` spread over the range (each free
        field's extremes and a few values between). Worked out once per limit: do not change them."""
        if not self.free:
            return [dict(self.body)]
        memo, key = self._memos(), ("spread", limit)
        if key not in memo:
            memo[key] = list(self.bodies()) if self.count <= limit else _spread(self, limit)
        return list(memo[key])

    def sample(self, rng: random.Random) -> Body:
        """One of this choice's bodies, each free field drawn uniformly from its values (a text field: its
        length uniformly, then its characters; an optional one left out one time in four)."""
        names = list(self.free)
        return _body(self.body, names, [_sample(self.free[n], rng) for n in names])

    def covers(self, command_type: str, body: Mapping[str, Any]) -> bool:
        """Whether ``(command_type, body)`` is one of this choice's commands.

        Exact, as the games read a body (strictly: no coercion): each value must be of the JSON type of
        what the choice gives, all the way down: ``True`` is not ``1``, ``1.0`` is not ``1``, ``"1"`` is
        not ``1``; a list is a ``list`` and a map (the body too) a ``dict`` (see :func:`same`)."""
        if command_type != self.type or not isinstance(body, dict):
            return False
        required = set(self.body) | {n for n, spec in self.free.items() if not _optional(spec)}
        if not required <= set(body) <= set(self.body) | set(self.free):
            return False
        if not all(same(body[k], v) for k, v in self.body.items()):
            return False
        return all(_contains(spec, body[name]) for name, spec in self.free.items() if name in body)


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
            out.extend((kind, dict(b)) for c in group for b in c.spread(per_type))
            continue
        share = max(1, per_type // len(group))
        for c in group:
            out.extend((kind, dict(b)) for b in c.spread(share))
    return out


def _body(fixed: Body, names: list[str], values: Sequence[Any]) -> Body:
    """The fixed fields and each free one set (an optional field drawn as left out is left out)."""
    return {**fixed, **{n: v for n, v in zip(names, values, strict=True) if v is not _ABSENT}}


def _optional(spec: Any) -> bool:
    return isinstance(spec, Text) and spec.optional


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
    if isinstance(spec, Counts | Multiset):
        return _count_totals(tuple(spec.max.values()), spec.min_total, spec.max_total)
    if isinstance(spec, Subset):
        return sum(math.comb(len(spec.items), k) for k in range(spec.min, min(spec.max, len(spec.items)) + 1))
    if isinstance(spec, Text):
        return TEXT_COUNT if spec.min_length <= spec.max_length else int(spec.optional)
    return math.factorial(len(spec.items))


def _values(spec: Any) -> Iterator[Any]:
    if isinstance(spec, IntRange):
        yield from range(spec.min, spec.max + 1)
    elif isinstance(spec, OneOf):
        yield from spec.values
    elif isinstance(spec, Counts):
        yield from _count_maps(spec)
    elif isinstance(spec, Multiset):
        for counts in _count_maps(spec):
            yield _as_list(counts)
    elif isinstance(spec, Subset):
        for k in range(spec.min, min(spec.max, len(spec.items)) + 1):
            for combo in itertools.combinations(spec.items, k):
                yield list(combo)
    elif isinstance(spec, Text):
        yield from _texts(spec)
    else:
        for perm in itertools.permutations(spec.items):
            yield list(perm)


def _texts(spec: Text) -> Iterator[Any]:
    """Left out (if optional), then every string of :data:`TEXT_ALPHABET`, shortest first (a sample of the
    values, lazily: there are too many to list)."""
    if spec.optional:
        yield _ABSENT
    for n in range(spec.min_length, spec.max_length + 1):
        for letters in itertools.product(TEXT_ALPHABET, repeat=n):
            yield "".join(letters)


def _as_list(counts: Mapping[str, int]) -> list[str]:
    return [key for key, n in counts.items() for _ in range(n)]


def _count_maps(spec: Counts | Multiset) -> Iterator[dict[str, int]]:
    """Every mapping key -> count the spec describes, keys with 0 left out, pruned by the totals (a spec
    with many keys and a small ``max_total`` never walks the whole product)."""
    keys, maxima = list(spec.max), [max(0, n) for n in spec.max.values()]
    after = [sum(maxima[i:]) for i in range(len(maxima) + 1)]  # the most keys i.. can add

    def walk(i: int, used: int, acc: dict[str, int]) -> Iterator[dict[str, int]]:
        if i == len(keys):
            if used >= spec.min_total:
                yield dict(acc)
            return
        for n in range(min(maxima[i], spec.max_total - used) + 1):
            if used + n + after[i + 1] < spec.min_total:
                continue
            if n:
                acc[keys[i]] = n
            yield from walk(i + 1, used + n, acc)
            acc.pop(keys[i], None)

    if spec.max_total >= 0:
        yield from walk(0, 0, {})


@functools.lru_cache(maxsize=1024)
def _count_totals(maxima: tuple[int, ...], low: int, high: int) -> int:
    """How many mappings (each key 0..its max) sum to ``low`` .. ``high``."""
    return sum(_ways(maxima, high)[0][max(low, 0):]) if high >= 0 else 0


@functools.lru_cache(maxsize=256)
def _ways(maxima: tuple[int, ...], cap: int) -> tuple[tuple[int, ...], ...]:
    """``ways[i][t]``: how many ways keys ``i..`` (each 0..its max) sum to exactly ``t`` (``t`` up to
    ``cap``, or the sum of the maxima if smaller). Prefix sums keep it linear in keys x totals."""
    maxima = tuple(max(0, m) for m in maxima)
    top = max(0, min(sum(maxima), cap))
    rows: list[tuple[int, ...]] = [(1,) + (0,) * top]
    for most in reversed(maxima):
        below = rows[-1]
        prefix = list(itertools.accumulate(below, initial=0))  # prefix[t] = sum(below[:t])
        rows.append(tuple(prefix[t + 1] - prefix[max(0, t - most)] for t in range(top + 1)))
    return tuple(reversed(rows))


def _sample_counts(spec: Counts | Multiset, rng: random.Random) -> dict[str, int]:
    """Uniform over the described mappings, without listing them: pick the total by how many mappings
    have it, then each key's count by how many completions remain."""
    keys = list(spec.max)
    ways = _ways(tuple(spec.max[k] for k in keys), spec.max_total)
    totals = list(range(max(spec.min_total, 0), len(ways[0])))
    remaining = rng.choices(totals, [ways[0][t] for t in totals])[0]
    out: dict[str, int] = {}
    for i, key in enumerate(keys):
        options = list(range(min(max(0, spec.max[key]), remaining) + 1))
        n = rng.choices(options, [ways[i + 1][remaining - m] for m in options])[0]
        if n:
            out[key] = n
        remaining -= n
    return out


def _scalar(value: Any) -> type:
    """The JSON type of a value that is not a list or a map (``bool`` before ``int``: a bool is an int
    in Python, never in JSON; ``int`` and ``float`` apart: the games read whole numbers strictly)."""
    for kind in (bool, int, float, str):
        if isinstance(value, kind):
            return kind
    return type(value)


def same(value: Any, given: Any) -> bool:
    """Whether a command's ``value`` is the value ``given`` by a choice: equal, and of the same JSON type
    all the way down. ``value`` is what a client sends, so its lists must be ``list`` and its maps ``dict``
    (what the games' strict reading accepts); ``given`` is the game's own (a tuple reads as a list)."""
    if isinstance(given, Mapping):
        return (isinstance(value, dict) and value.keys() == given.keys()
                and all(same(value[k], v) for k, v in given.items()))
    if isinstance(given, list | tuple):
        return isinstance(value, list) and len(value) == len(given) and all(map(same, value, given))
    return _scalar(value) is _scalar(given) and value == given


def _whole(n: Any) -> bool:
    return isinstance(n, int) and not isinstance(n, bool)


def _contains(spec: Any, value: Any) -> bool:
    if isinstance(spec, IntRange):
        return _whole(value) and spec.min <= value <= spec.max
    if isinstance(spec, OneOf):
        return any(same(value, v) for v in spec.values)
    if isinstance(spec, Counts):
        if not isinstance(value, dict) or not set(value) <= set(spec.max):
            return False
        counts = list(value.values())
        if not all(_whole(n) and n > 0 for n in counts):
            return False
        return all(value[k] <= spec.max[k] for k in value) and spec.min_total <= sum(counts) <= spec.max_total
    if isinstance(spec, Multiset):
        if not isinstance(value, list) or not all(isinstance(v, str) and v in spec.max for v in value):
            return False
        held = Counter(value)
        return all(n <= spec.max[k] for k, n in held.items()) and spec.min_total <= len(value) <= spec.max_total
    if isinstance(spec, Text):
        return isinstance(value, str) and spec.min_length <= len(value) <= spec.max_length
    if isinstance(spec, Subset):
        if not isinstance(value, list) or not spec.min <= len(value) <= spec.max:
            return False
        rest = iter(spec.items)  # in listed order, each listed item used at most once (repeats allowed)
        return all(any(same(v, item) for item in rest) for v in value)
    if not isinstance(value, list) or len(value) != len(spec.items):
        return False
    left = list(spec.items)  # every item once: each value takes one item it is the same as
    for v in value:
        at = next((i for i, item in enumerate(left) if same(v, item)), None)
        if at is None:
            return False
        del left[at]
    return True


def _sample(spec: Any, rng: random.Random) -> Any:
    if isinstance(spec, IntRange):
        return rng.randint(spec.min, spec.max)
    if isinstance(spec, OneOf):
        return rng.choice(spec.values)
    if isinstance(spec, Counts):
        return _sample_counts(spec, rng)
    if isinstance(spec, Multiset):
        return _as_list(_sample_counts(spec, rng))
    if isinstance(spec, Subset):
        sizes = list(range(spec.min, min(spec.max, len(spec.items)) + 1))
        weights = [math.comb(len(spec.items), k) for k in sizes]
        k = rng.choices(sizes, weights)[0]
        picked = set(rng.sample(range(len(spec.items)), k))
        return [item for i, item in enumerate(spec.items) if i in picked]
    if isinstance(spec, Text):
        if spec.optional and (spec.min_length > spec.max_length or rng.random() < 0.25):
            return _ABSENT
        return "".join(rng.choice(TEXT_SAMPLE) for _ in range(rng.randint(spec.min_length, spec.max_length)))
    items = list(spec.items)
    rng.shuffle(items)
    return items


def _spread(choice: Choice, limit: int) -> list[Body]:
    """Up to ``limit`` bodies of a large choice: each free field's extremes and a few values between,
    combined (lazily: only as many values of each field are worked out as the limit needs)."""
    names = list(choice.free)
    product = _lazy_product([lambda n=n: _spread_values(choice.free[n]) for n in names])
    return [_body(choice.body, names, values) for values in itertools.islice(product, limit)]


def _spread_values(spec: Any) -> Iterator[Any]:
    if isinstance(spec, IntRange):
        yield from _steps(spec.min, spec.max)
    elif isinstance(spec, Counts):
        yield from _spread_counts(spec)
    elif isinstance(spec, Multiset):
        for counts in _spread_counts(spec):
            yield _as_list({k: counts[k] for k in spec.max if k in counts})
    elif isinstance(spec, Text):
        yield from _spread_texts(spec)
    else:
        yield from itertools.islice(_values(spec), 12)


def _spread_texts(spec: Text) -> Iterator[Any]:
    """Left out (if optional), the shortest, a short word, and the longest."""
    if spec.optional:
        yield _ABSENT
    seen: list[str] = []
    for n in sorted({spec.min_length, min(max(spec.min_length, 5), spec.max_length), spec.max_length}):
        text = ("hello" * (n // 5 + 1))[:n]
        if spec.min_length <= n <= spec.max_length and text not in seen:
            seen.append(text)
            yield text


def _steps(low: int, high: int) -> list[int]:
    """``low``, a few values above it, and ``high``."""
    return sorted({low + d for d in (0, 1, 2, 4, 9, 14) if low + d <= high} | ({high} if high >= low else set()))


def _spread_counts(spec: Counts | Multiset) -> Iterator[dict[str, int]]:
    """The empty mapping if allowed, a few counts of each key alone, one of each key, all of each key,
    and the least and the most total filled from the first keys and from the last (so a spec whose totals
    are pinned still shows a few); each once."""
    keys = list(spec.max)

    def candidates() -> Iterator[dict[str, int]]:
        yield {}
        for k, most in spec.max.items():
            for n in _steps(1, most):
                yield {k: n}
        yield {k: 1 for k, n in spec.max.items() if n > 0}
        yield {k: n for k, n in spec.max.items() if n > 0}
        for target in (spec.min_total, spec.max_total):
            yield _fill(spec, keys, target)
            yield _fill(spec, keys[::-1], target)

    seen: list[dict[str, int]] = []
    for counts in candidates():
        if spec.min_total <= sum(counts.values()) <= spec.max_total and counts not in seen:
            seen.append(counts)
            yield counts


def _fill(spec: Counts | Multiset, keys: list[str], target: int) -> dict[str, int]:
    """Keys taken in ``keys`` order, each as much as it may, until the counts reach ``target``."""
    out: dict[str, int] = {}
    left = target
    for k in keys:
        n = min(max(0, spec.max[k]), left)
        if n:
            out[k] = n
            left -= n
    return out

"""The free-field kinds of ``schemas.legal`` checked against brute force: ``count`` is the number of
distinct commands, ``bodies`` lists each once, ``sample`` draws only covered bodies and reaches all of
them, ``covers`` refuses everything else, and the bounded ``concrete`` list never comes out empty."""

from __future__ import annotations

import itertools
import math
import random
from collections import Counter
from types import MappingProxyType
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from schemas.legal import Choice, Counts, Free, IntRange, Multiset, OneOf, Order, Subset, concrete, covered


def canonical(spec: Free, value: Any) -> str:
    """One key per distinct command (a multiset's order carries no meaning)."""
    if isinstance(spec, Multiset):
        return repr(sorted(value))
    if isinstance(spec, Counts):
        return repr(sorted(value.items()))
    return repr(value)


def brute_force(spec: Counts | Multiset) -> set[str]:
    """Every value by walking the whole product of counts."""
    keys = list(spec.max)
    out = set()
    for combo in itertools.product(*(range(spec.max[k] + 1) for k in keys)):
        if spec.min_total <= sum(combo) <= spec.max_total:
            counts = {k: n for k, n in zip(keys, combo, strict=True) if n}
            value = counts if isinstance(spec, Counts) else [k for k, n in counts.items() for _ in range(n)]
            out.add(canonical(spec, value))
    return out


maxima = st.dictionaries(st.sampled_from("abcdef"), st.integers(0, 3), min_size=1, max_size=5)


@settings(max_examples=120, deadline=None)
@given(maxima, st.integers(0, 4), st.integers(0, 12), st.booleans())
def test_counts_and_multisets_agree_with_brute_force(most: dict[str, int], low: int, span: int, as_list: bool) -> None:
    spec: Counts | Multiset = (Multiset if as_list else Counts)(max=most, min_total=low, max_total=low + span - 4)
    choice = Choice(type="t", free={"x": spec})
    expected = brute_force(spec)
    bodies = [b["x"] for b in choice.bodies()]
    assert choice.count == len(bodies) == len(expected)
    assert {canonical(spec, v) for v in bodies} == expected
    assert all(choice.covers("t", {"x": v}) for v in bodies)
    rng = random.Random(1)
    drawn = {canonical(spec, choice.sample(rng)["x"]) for _ in range(40 * len(expected))} if expected else set()
    assert drawn == expected  # every value reachable, nothing else drawn
    if expected:
        assert concrete([choice]) and all(choice.covers(t, b) for t, b in concrete([choice], per_type=3))


def test_a_multiset_takes_any_order_and_no_more_copies_than_allowed() -> None:
    spec = Multiset(max={"Oil": 2, "Mining": 1, "Law": 0}, min_total=2, max_total=3)
    choice = Choice(type="invest", free={"cards": spec})
    for cards in (["Oil", "Oil"], ["Mining", "Oil"], ["Oil", "Mining", "Oil"]):
        assert choice.covers("invest", {"cards": cards})
    for bad in (["Oil"], ["Oil"] * 3, ["Law", "Oil"], ["Gold", "Oil"], [1, 2], "OilOil", [["Oil"], "Oil"],
                ["Oil", "Oil", "Mining", "Mining"]):
        assert not choice.covers("invest", {"cards": bad}), bad
    assert choice.count == 3  # {Oil, Oil}, {Oil, Mining}, {Oil, Oil, Mining}


def test_counts_refuse_zero_negative_bool_and_unknown_keys() -> None:
    choice = Choice(type="give", free={"tokens": Counts(max={"money": 3, "labor": 1}, min_total=1, max_total=4)})
    assert choice.covers("give", {"tokens": {"money": 3, "labor": 1}})
    for bad in ({}, {"money": 0}, {"money": -1}, {"money": True}, {"gold": 1}, {"money": 4}, {"money": 1.0}):
        assert not choice.covers("give", {"tokens": bad}), bad


def test_large_counts_are_counted_and_sampled_without_listing() -> None:
    """Seven kinds up to 999 each (Modern World's asks): ~10^21 values, counted exactly by the DP."""
    spec = Counts(max=dict.fromkeys("abcdefg", 999), min_total=1, max_total=7 * 999)
    choice = Choice(type="ask", free={"tokens": spec})
    assert choice.count == 1000**7 - 1
    rng = random.Random(5)
    for _ in range(50):
        assert choice.covers("ask", choice.sample(rng))
    assert len(concrete([choice])) <= 48
    cards = Multiset(max=dict.fromkeys([f"c{i}" for i in range(28)], 20), min_total=1, max_total=20)
    assert Choice(type="ask", free={"cards": cards}).count == sum(math.comb(28 + k - 1, k) for k in range(1, 21))
    assert next(iter(Choice(type="ask", free={"cards": cards}).bodies())) == {"cards": ["c27"]}


@pytest.mark.parametrize(
    ("spec", "inside", "outside"),
    [
        (IntRange(min=2, max=4), [2, 3, 4], [1, 5, True, 3.0, "3"]),
        (OneOf(values=[1, "a", None]), [1, "a", None], [True, "b", 1.0]),
        (Subset(items=["a", "b", "c"], min=1, max=2), [["a"], ["a", "c"]], [[], ["c", "a"], ["a", "b", "c"], ["d"]]),
        (Order(items=["a", "b"]), [["a", "b"], ["b", "a"]], [["a"], ["a", "a"], ["a", "b", "b"]]),
    ],
)
def test_the_other_kinds_cover_what_they_say(spec: Free, inside: list[Any], outside: list[Any]) -> None:
    choice = Choice(type="t", free={"x": spec})
    assert all(covered([choice], "t", {"x": v}) for v in inside)
    assert not any(covered([choice], "t", {"x": v}) for v in outside)
    assert Counter(canonical(spec, b["x"]) for b in choice.bodies()).most_common(1)[0][1] == 1


@pytest.mark.parametrize(
    ("fixed", "inside", "outside"),
    [
        (1, [1], [True, 1.0, "1", [1], None]),
        (0, [0], [False, 0.0, "0", None]),
        (True, [True], [1, 1.0, "true"]),
        (None, [None], [False, 0, 0.0, "", "null", []]),
        ("a", ["a"], [["a"], True, 1.0]),
        ([1, "b"], [[1, "b"]], [[True, "b"], [1.0, "b"], (1, "b"), ["1", "b"], [1], [1, "b", None]]),
        ({"k": 2}, [{"k": 2}], [{"k": 2.0}, {"k": "2"}, {"k": 2, "j": 0}, {}, MappingProxyType({"k": 2}), [2]]),
        ({"k": [0]}, [{"k": [0]}], [{"k": [False]}, {"k": [0.0]}, {"k": (0,)}]),
    ],
)
def test_covers_compares_fixed_fields_exactly_type_included(fixed: Any, inside: list[Any], outside: list[Any]) -> None:
    """decide reads a body strictly (True is not 1, 1.0 is not 1); a client checking a command with covers
    before sending it must hear the same."""
    choice = Choice(type="t", body={"x": fixed})
    assert all(choice.covers("t", {"x": v}) for v in inside)
    for v in outside:
        assert not choice.covers("t", {"x": v}), v
        assert not covered([choice], "t", {"x": v}), v


@pytest.mark.parametrize(
    ("spec", "inside", "outside"),
    [
        (IntRange(min=0, max=2), [0, 1, 2], [False, True, 0.0, 1.0, "1", None]),
        (OneOf(values=[[1, "a"], {"n": 0}, 2]), [[1, "a"], {"n": 0}, 2],
         [[True, "a"], [1.0, "a"], {"n": False}, {"n": 0.0}, 2.0, (1, "a")]),
        (Subset(items=[0, 1, "b"], min=0, max=3), [[0, 1], [1, "b"]], [[False, 1], [0, True], [0.0], [1, 1.0]]),
        (Order(items=[0, 1, 2]), [[2, 0, 1]], [[False, 1, 2], [0, True, 2], [0.0, 1, 2], [0, 1, "2"], (0, 1, 2)]),
        (Counts(max={"a": 2}, min_total=1, max_total=2), [{"a": 1}, {"a": 2}],
         [{"a": True}, {"a": 1.0}, {"a": "1"}, MappingProxyType({"a": 1})]),
        (Multiset(max={"a": 2}, min_total=1, max_total=2), [["a"], ["a", "a"]], [[True], ("a",), [1.0]]),
    ],
)
def test_covers_compares_free_fields_exactly_type_included(spec: Free, inside: list[Any], outside: list[Any]) -> None:
    choice = Choice(type="t", free={"x": spec})
    assert all(choice.covers("t", {"x": v}) for v in inside)
    for v in outside:
        assert not choice.covers("t", {"x": v}), v


def test_covers_takes_a_body_as_a_dict_only() -> None:
    choice = Choice(type="t", body={"x": 1})
    assert choice.covers("t", {"x": 1})
    assert not choice.covers("t", MappingProxyType({"x": 1}))

"""Reading chat words, shared by the game adapters: words out of text, names by unique prefix, and runs of
counted items (``2 Mining, Finance``, ``a2 r2``, ``2 action and 1 research``)."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence

WORD_RE = re.compile(r"[A-Za-z_'\-]+|[0-9]+|[$,;+&]|\S")
SEPARATORS = frozenset({",", ";", "+", "&", "and", "plus"})
MAX_DIGITS = 6
MIN_PREFIX = 2

Item = tuple[str, int, bool]  # (name, count, whether the count was written)
Resolver = Callable[[str], "str | Problem"]


class Problem(str):
    """A word that could not be read; the text says why (a plain ``str`` subclass, so it prints as itself)."""


def words(text: str) -> list[str]:
    return [w.lower() for w in WORD_RE.findall(text)]


def by_prefix(word: str, names: Iterable[str], what: str, aliases: dict[str, str] | None = None) -> str | Problem:
    """The one name ``word`` stands for: an alias, the name itself (or its plural), or a unique prefix."""
    w = word.lower().replace("-", "_")
    names = list(names)
    if aliases and w in aliases:
        return aliases[w]
    for name in names:
        low = name.lower()
        if w in (low, low + "s", low.replace("_", "")) or (w.endswith("s") and w[:-1] == low):
            return name
    found = [n for n in names if len(w) >= MIN_PREFIX and n.lower().replace("_", "").startswith(w.replace("_", ""))]
    if len(found) == 1:
        return found[0]
    if found:
        return Problem(f"'{word}' could be {' or '.join(found[:4])}{' or ...' if len(found) > 4 else ''}")
    return Problem(f"'{word}' is not {what}")


def count_of(digits: str) -> int | None:
    return int(digits) if len(digits) <= MAX_DIGITS else None


def read_items(tokens: Sequence[str], resolve: Resolver, filler: Iterable[str] = ()) -> list[Item] | Problem:
    """``2 mining , finance`` / ``a 2 r 2`` / ``action 2 research 2`` into (name, count, written) items.

    A number before a name counts it; so does a number right after a name (``action 2 research 2``) unless
    another number follows it; separators (``,`` ``+`` ``and``) end an item, so ``mining, 2 finance`` is clear.
    """
    skip = set(filler)
    tokens = [("," if t in SEPARATORS else t) for t in tokens if t not in skip]
    items: list[Item] = []
    i = 0
    while i < len(tokens):
        token = tokens[i]
        nxt = tokens[i + 1] if i + 1 < len(tokens) else None
        if token == ",":
            i += 1
            continue
        if token.isdigit():
            if nxt is None or nxt == "," or nxt.isdigit():
                return Problem(f"'{token}' of what? Put a name after the number")
            name = resolve(nxt)
            count, i = count_of(token), i + 2
        else:
            name = resolve(token)
            after = tokens[i + 2] if i + 2 < len(tokens) else None
            if nxt is not None and nxt.isdigit() and (after is None or not after.isdigit()):
                count, i = count_of(nxt), i + 2
            else:
                if isinstance(name, Problem):
                    return name
                items.append((name, 1, False))
                i += 1
                continue
        if isinstance(name, Problem):
            return name
        if count is None or count < 1:
            return Problem("counts go from 1 to 999999")
        items.append((name, count, True))
    return items

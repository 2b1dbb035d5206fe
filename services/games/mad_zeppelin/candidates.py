"""Mad Zeppelin: a broad superset of the commands a seat might send in a state, for the legal-completeness
check (every candidate ``decide`` accepts must be covered by ``legal``).

Every Traitor key for draft, play and the ability; every die (and some outside 0-2) with every face for
the colours, re-rolls and dice abilities; every seat (and some outside the table) for the abilities that
target one; every Cargo kind for a throw and a gift, with each mix of crates the seat could offer in every
order (plus ``[]`` and one crate more than in hand); every order of the Hold's top; and malformed bodies. A few
hundred commands per state.
"""

from __future__ import annotations

from itertools import permutations
from typing import Any, cast

from services.games.mad_zeppelin.schemas import CARGO_KINDS, FACES, TRAITORS

Candidate = tuple[str, dict[str, Any]]

MALFORMED: list[Candidate] = [
    ("fly", {}), ("draft", {}), ("draft", {"traitor": 3}), ("draft", {"traitor": "pirate"}),
    ("draft", {"traitor": "captain", "also": 1}), ("play_traitor", {"traitor": None}),
    ("choose_colour", {"die": True, "colour": "red"}), ("choose_colour", {"die": "0", "colour": "red"}),
    ("choose_colour", {"die": 0}), ("reroll", {"die": 1.0}), ("reroll", {}), ("steal", {}),
    ("steal", {"take": "both"}), ("steal", {"take": "gold", "take2": "cargo"}),
    ("give", {"what": "cargo"}), ("give", {"what": "gold", "card": "wood"}), ("give", {"what": "gold", "card": None}),
    ("give", {"what": "cargo", "card": None}), ("give", {"what": "card", "card": "wood"}),
    ("arrange_hold", {}), ("arrange_hold", {"order": []}), ("arrange_hold", {"order": [0, 0, 1]}),
    ("arrange_hold", {"order": [0, 1, 2, 3]}), ("arrange_hold", {"order": [True, False]}),
    ("arrange_hold", {"order": (1, 0)}), ("arrange_hold", {"order": ["1", "0"]}),
    ("use_ability", {"look": "player"}), ("use_ability", {"look": "unused", "seat": 0}),
    ("use_ability", {"look": "unused", "seat": None}), ("use_ability", {"look": "everything"}),
    ("use_ability", {"traitor": "guard", "die": 0}), ("use_ability", {"traitor": None}),
    ("use_ability", {"seat": True}), ("use_ability", {"seat": "1"}), ("use_ability", {"die": None}),
    ("use_ability", {"traitor": "captain", "x": 1}), ("throw", {}), ("throw", {"card": 7}),
    ("throw", {"card": "journey"}), ("throw", {"card": "wood", "crates": "small_crate"}),
    ("throw", {"card": "wood", "crates": None}), ("throw", {"card": "wood", "crates": ["wood"]}),
    ("throw", {"crates": ["small_crate"]}), ("end_sequence", {"now": True}),
    ("end_sequence", cast(dict[str, Any], {1: True})),
]


def _crate_lists(bigs: int, smalls: int) -> list[list[str]]:
    """Every mix of up to ``bigs`` big and ``smalls`` small crates, none empty: in every order up to four
    crates (what pays the dearest throw), sorted beyond (more are never needed)."""
    out: list[list[str]] = []
    for b in range(bigs + 1):
        for s in range(smalls + 1):
            items = ["big_crate"] * b + ["small_crate"] * s
            if 0 < b + s <= 4:
                out += [list(p) for p in sorted(set(permutations(items)))]
            elif b + s:
                out.append(items)
    return out


def candidates(state: Any, seat: int) -> list[Candidate]:
    """Plausible and malformed commands for ``seat`` in ``state`` (a Mad Zeppelin ``State``)."""
    out: list[Candidate] = []
    for traitor in TRAITORS:
        out += [("draft", {"traitor": traitor}), ("play_traitor", {"traitor": traitor}),
                ("use_ability", {"traitor": traitor})]
    for die in range(-1, 4):
        out += [("choose_colour", {"die": die, "colour": face}) for face in FACES]
        out += [("reroll", {"die": die}), ("use_ability", {"die": die})]
    out += [("steal", {"take": "gold"}), ("steal", {"take": "cargo"}), ("give", {"what": "gold"})]
    out += [("give", {"what": "cargo", "card": kind}) for kind in CARGO_KINDS]
    for n in range(1, 4):
        out += [("arrange_hold", {"order": list(p)}) for p in permutations(range(n))]
    out += [("use_ability", {}), ("use_ability", {"look": "unused"})]
    for target in range(-1, 7):
        out += [("use_ability", {"look": "player", "seat": target}), ("use_ability", {"seat": target})]
    hand = state.players[seat].hand if 0 <= seat < len(state.players) else ()
    bigs, smalls = min(hand.count("big_crate") + 1, 3), min(hand.count("small_crate") + 1, 5)
    for kind in CARGO_KINDS:
        out += [("throw", {"card": kind}), ("throw", {"card": kind, "crates": []})]
        if kind in hand and kind not in ("alcohol", "small_crate", "big_crate"):
            out += [("throw", {"card": kind, "crates": crates}) for crates in _crate_lists(bigs, smalls)]
        else:
            out.append(("throw", {"card": kind, "crates": ["small_crate"]}))
    out += [("end_sequence", {}), *MALFORMED]
    return out

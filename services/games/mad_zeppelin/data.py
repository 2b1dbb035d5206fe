"""Mad Zeppelin as data: the Cargo cards, the Traitors, the dice and the set-up tables.

The enumerations (Traitor keys, Cargo kinds, colours, die faces) are the wire contract's, imported from
:mod:`services.games.mad_zeppelin.schemas`; the tables below are keyed by them in the same order.
"""

from __future__ import annotations

from typing import Final

from services.games.mad_zeppelin.schemas import (
    CARDS,
    CARGO_KINDS,
    COLOURS,
    CRATES,
    DICE,
    FACES,
    MODES,
    TRAITORS,
)

__all__ = [
    "ABILITY_FIELDS", "ACTIVATED", "AIRSICK_BY_SEATS", "ALCOHOL", "ALL_CARDS", "BLACK", "CARDS", "CARGO",
    "CARGO_KINDS", "COLOURS", "COLOUR_OF", "COST", "CRATES", "CRATE_VALUE", "DEFAULT_SEARCH", "DICE", "FACES",
    "GEOLOGIST_LOOK", "JOURNEY", "JOURNEYS", "LEVEL", "MODES", "NAME_OF", "POINTS", "REMOVED_BY_SEATS",
    "REROLLS_PER_TURN", "SAFE_GOLD", "SEARCH", "STANDING", "START_GOLD", "STRANGE", "TARGETS", "THROWABLE",
    "TRAITORS", "TRAITOR_KEYS", "TRAITOR_TABLE", "WHITE",
]

SAFE_GOLD: Final = 30
START_GOLD: Final = 3
JOURNEYS: Final = 10
TARGETS: Final = {"run": 20, "long_haul": 30}
REROLLS_PER_TURN: Final = 2
GEOLOGIST_LOOK: Final = 3

JOURNEY: Final = "journey"

# cargo kind -> (cards, level, points, Gold to throw or None when it is never thrown)
CARGO: Final[dict[str, tuple[int, int, int, int | None]]] = {
    "wood": (18, 1, 1, 1),
    "lead": (15, 1, 2, 1),
    "coal": (10, 2, 3, 2),
    "ore": (9, 2, 4, 2),
    "steel": (8, 2, 5, 3),
    "diamonds": (8, 3, 6, 3),
    "gold_cargo": (6, 3, 7, 4),
    "strange_materials": (6, 4, 0, 2),
    "alcohol": (6, 4, 0, None),
    "small_crate": (8, 4, 0, None),
    "big_crate": (6, 4, 0, None),
}
LEVEL: Final = {kind: row[1] for kind, row in CARGO.items()}
POINTS: Final = {kind: row[2] for kind, row in CARGO.items()}
COST: Final = {kind: row[3] for kind, row in CARGO.items() if row[3] is not None}
THROWABLE: Final = frozenset(COST)
CRATE_VALUE: Final = {"small_crate": 1, "big_crate": 2}
ALCOHOL: Final = "alcohol"
STRANGE: Final = "strange_materials"
ALL_CARDS: Final = {**{kind: row[0] for kind, row in CARGO.items()}, JOURNEY: JOURNEYS}

REMOVED_BY_SEATS: Final = {2: 30, 3: 30, 4: 20, 5: 20, 6: 0}
AIRSICK_BY_SEATS: Final = {2: 4, 3: 4, 4: 2, 5: 2, 6: 1}

WHITE: Final = "white"
BLACK: Final = "black"

# traitor key -> (name, colour or None for "?", Search text)
TRAITOR_TABLE: Final[dict[str, tuple[str, str | None, str]]] = {
    "captain": ("Karl Steeling - The Captain", "blue", ""),
    "councillor": ("Carlotta Love - The Councillor", "blue", "Take no Cargo; take 1 extra Gold."),
    "taster": ("Igor - The Taster", "blue", ""),
    "guard": ("Henchman III - The Guard", "yellow", ""),
    "machinist": ("Jack Hummerock - The Machinist", "yellow", ""),
    "lookout": ("Hernan Mirante - The Lookout", "yellow", ""),
    "doctor": ("Docteur Ripp - The Doctor", "red", ""),
    "geologist": ("Satine Rochat - The Geologist", "red", "Draw 2 Cargo cards instead of 1."),
    "anarchist": ("Hans Walder - The Anarchist", "red", ""),
    "clairvoyant": ("Ratatine - The Clairvoyant", "green", ""),
    "negotiator": ("Fred Zamfirescu - The Negotiator", "green", ""),
    "opportunist": ("Helen Troy - The Opportunist", "green", ""),
    "stowaway": ("Li'l Tim Sly - The Stowaway", None, ""),
    "shadow": ("Mr Shadow - The Shadow", None, "Take 2 Gold and no Cargo."),
}
TRAITOR_KEYS: Final = TRAITORS  # the same tuple, under the name the rules modules use
COLOUR_OF: Final = {key: row[1] for key, row in TRAITOR_TABLE.items()}
NAME_OF: Final = {key: row[0] for key, row in TRAITOR_TABLE.items()}

# Abilities in force as long as the Traitor is its player's current one; nothing to activate.
STANDING: Final = frozenset({"councillor", "taster", "guard", "machinist", "opportunist"})
# Abilities used with the ability action (use_ability), with the fields each takes.
ACTIVATED: Final = frozenset(TRAITOR_KEYS) - STANDING
ABILITY_FIELDS: Final[dict[str, frozenset[str]]] = {
    "captain": frozenset({"traitor"}),
    "doctor": frozenset({"traitor"}),
    "stowaway": frozenset({"traitor"}),
    "lookout": frozenset({"die"}),
    "anarchist": frozenset({"die"}),
    "clairvoyant": frozenset({"look", "seat"}),
    "negotiator": frozenset({"seat"}),
    "geologist": frozenset(),
    "shadow": frozenset(),
}
# Search: (Gold taken, cards drawn)
SEARCH: Final = {"councillor": (2, 0), "geologist": (1, 2), "shadow": (2, 0)}
DEFAULT_SEARCH: Final = (1, 1)

# The tables follow the contract's enumerations, in their order (a die roll draws from FACES by index).
assert tuple(CARGO) == CARGO_KINDS and tuple(ALL_CARDS) == CARDS, "Cargo table out of step with the schema"
assert tuple(TRAITOR_TABLE) == TRAITORS and set(ABILITY_FIELDS) == ACTIVATED, "Traitor table out of step"
assert set(CRATE_VALUE) == set(CRATES) and set(COLOUR_OF.values()) - {None} == set(COLOURS)
assert set(TARGETS) == set(MODES) and FACES[:2] == (WHITE, BLACK) and DICE == 3

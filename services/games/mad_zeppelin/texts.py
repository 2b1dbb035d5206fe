"""Mad Zeppelin's pieces in words, for people (the web board's card texts and tooltips): the Traitors (name,
colour, ability, Search), the Cargo (level, points, Gold to throw) and the dice faces. Numbers come from the
game's tables (:mod:`services.games.mad_zeppelin.data`); the abilities are this project's wording of
``rules/mad_zeppelin.md``."""

from __future__ import annotations

from services.games.mad_zeppelin.data import (
    CARGO,
    COLOUR_OF,
    CRATE_VALUE,
    DEFAULT_SEARCH,
    GEOLOGIST_LOOK,
    JOURNEYS,
    NAME_OF,
    REROLLS_PER_TURN,
    SEARCH,
    STANDING,
    TRAITOR_TABLE,
)

ABILITY: dict[str, str] = {
    "captain": "Name a Traitor: until the turn ends, whoever plays it gives you 1 Gold or 1 random Cargo card"
               " (you choose).",
    "councillor": "While current, nobody can steal your Cargo or Gold.",
    "taster": "While current, other players' abilities do not touch you.",
    "guard": "While current, throwing Cargo costs you 1 Gold less.",
    "machinist": "While current, level-1 Cargo costs you nothing to throw.",
    "lookout": f"Up to {REROLLS_PER_TURN} times this game turn, before you throw, re-roll a die that is not out.",
    "doctor": "Name a Traitor: it cannot be played until the turn ends.",
    "geologist": f"Look at the top {GEOLOGIST_LOOK} cards of the Hold and put them back in the order you like.",
    "anarchist": "Turn a die that is not out to black: it is out for the rest of the turn.",
    "clairvoyant": "Look at the Traitors out of play this turn, or at one player's unplayed Traitor.",
    "negotiator": "Pick a player: they give you 1 Gold or 1 Cargo card of their choice.",
    "opportunist": "While current, you may throw up to two Cargo cards in one action, paying for each.",
    "stowaway": "Name a Traitor not yet played this turn: you take its colour and ability until the turn ends,"
                " and nobody can play it this turn.",
    "shadow": "Take the colour and ability of the Traitor played just before you this turn (none if you are first).",
}
CARGO_EXTRA: dict[str, str] = {
    "strange_materials": "Worth 1 point for each level-1 Cargo you have thrown.",
    "alcohol": "Put in front of you instead of a throw (free, no colour needed): each makes your throws cost"
               " 1 Gold less.",
    "small_crate": f"Never thrown: when you pay Gold, discard it to pay {CRATE_VALUE['small_crate']} of it.",
    "big_crate": f"Never thrown: when you pay Gold, discard it to pay {CRATE_VALUE['big_crate']} of it.",
}
DIE: dict[str, str] = {
    "white": "The leader (or whoever re-rolled it) picks its colour.",
    "black": "Out for the rest of the turn: no re-roll, no change.",
    "yellow": "Traitors of yellow may throw Cargo.",
    "green": "Traitors of green may throw Cargo.",
    "blue": "Traitors of blue may throw Cargo.",
    "red": "Traitors of red may throw Cargo.",
}


def _search(key: str) -> str:
    gold, cards = SEARCH.get(key, DEFAULT_SEARCH)
    if (gold, cards) == DEFAULT_SEARCH:
        return ""
    drawn = "no Cargo" if cards == 0 else f"{cards} Cargo cards"
    return f" Search: take {gold} Gold and {drawn}."


def traitor_text(key: str) -> str:
    colour = COLOUR_OF[key] or "no colour of its own (?)"
    kind = "standing" if key in STANDING else "used as an action"
    return f"{NAME_OF[key]} · {colour}. Ability ({kind}): {ABILITY[key]}{_search(key)}"


def cargo_text(kind: str) -> str:
    _, level, points, cost = CARGO[kind]
    worth = CARGO_EXTRA.get(kind) or f"{points} point{'' if points == 1 else 's'}."
    throw = f" Costs {cost} Gold to throw." if cost is not None and kind not in CARGO_EXTRA else ""
    if kind == "strange_materials":
        throw = f" Costs {cost} Gold to throw."
    return f"Level {level}. {worth}{throw}"


def texts() -> dict[str, dict[str, str]]:
    """``{kind: {name: words}}``: Traitors, Cargo, dice faces and the board's other pieces."""
    return {
        "traitor": {key: traitor_text(key) for key in TRAITOR_TABLE},
        "traitor_short": {key: f"{COLOUR_OF[key] or '?'} · {ABILITY[key]}" for key in TRAITOR_TABLE},
        "cargo": {kind: cargo_text(kind) for kind in CARGO},
        "cargo_cost": {kind: str(row[3]) for kind, row in CARGO.items() if row[3] is not None},  # printed Gold
        "cargo_level": {kind: str(row[1]) for kind, row in CARGO.items()},
        "die": DIE,
        "board": {
            "leader": "The leader plays first, deals the Traitors, picks the colour of a white die and may look at"
                      " the Traitors nobody uses this turn. The leader passes left each turn.",
            "journeys": f"The flight ends when the {JOURNEYS}th Journey card is drawn.",
            "safe": "Gold in the Safe: Search and Journey cards pay from it, throws pay into it.",
            "hold": "Cards left in the Hold (the draw pile).",
            "bans": "Named by a Doctor or a Stowaway: cannot be played until the turn ends.",
            "watches": "A Captain's watch: whoever plays that Traitor gives the Captain 1 Gold or 1 random Cargo.",
        },
    }

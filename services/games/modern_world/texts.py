"""Modern World's pieces in words, for people (the web board's card texts and tooltips), built from the
game's own tables (:mod:`services.games.modern_world.data`) so the words never drift from the rules."""

from __future__ import annotations

from services.games.modern_world.data import (
    ALL,
    BASELINE,
    BUILD_COST,
    BUILD_COST_DUPLICATE,
    EVENTS,
    EXTRA_MARKETS,
    GAIN,
    HIGHEST,
    INVEST_FACTOR,
    LOSE,
    LOSE_ALL,
    MARKETS,
    MONEY_PER_TOKEN,
    NATIONS,
    PERMANENT,
    RANDOM,
    RESOURCES,
    SKIP_BUILD,
    SKIP_PHASE,
    TOKENS,
    EventCard,
)


def _tokens(amounts: tuple[int, ...], factor: int = 1) -> str:
    return ", ".join(f"{n * factor} {TOKENS[i]}" for i, n in enumerate(amounts) if n)


def resource_text(production: tuple[int, ...]) -> str:
    return (f"In play: produces {_tokens(production)} more each turn. Invested: {_tokens(production, INVEST_FACTOR)}"
            f" at once. Built for {BUILD_COST} materials and {BUILD_COST} labor ({BUILD_COST_DUPLICATE} each when"
            " you already have one in play).")


def event_text(card: EventCard) -> str:
    token = TOKENS[card.token] if card.token is not None else ""
    who = {ALL: "Every player", RANDOM: "A random player", HIGHEST: "The player with the highest",
           "lowest": "The player with the lowest"}.get(card.target, "")
    if card.capacity is not None:
        who = f"{who} {TOKENS[card.capacity]} capacity"
    amount = ("1D6 (a die each)" if card.target == ALL else "1D6") if card.die else str(card.amount)
    if card.effect == LOSE_ALL:
        return f"{who} loses all {token} tokens."
    if card.effect == LOSE:
        return f"{who} loses {amount} {token} tokens (never below 0)."
    if card.effect == GAIN:
        return f"{who} gains {amount} {token} tokens."
    if card.effect == PERMANENT:
        change = f"+{card.amount}" if card.amount > 0 else str(card.amount)
        return f"{who} keeps this card: {change} {token} capacity from the next production on."
    if card.effect == SKIP_PHASE:
        return f"Everyone skips the {card.phase} phase this turn."
    if card.effect == SKIP_BUILD:
        return f"{who} skips the build phase this turn."
    if card.effect == EXTRA_MARKETS:
        return f"{card.amount} more market cards are auctioned this turn."
    return card.effect


def texts() -> dict[str, dict[str, str]]:
    """``{kind: {name: words}}``: the resource, market, event and nation cards and the token types (``*_short``:
    the few words that fit on a card)."""
    return {
        "resource": {card.name: resource_text(card.production) for card in RESOURCES},
        "resource_short": {card.name: "+" + _tokens(card.production).replace(", ", " +") for card in RESOURCES},
        "market": {card.name: f"Reward: {card.amount} {TOKENS[card.token]} tokens at once to the auction's winner."
                   for card in MARKETS},
        "market_short": {card.name: f"{card.amount} {TOKENS[card.token]}" for card in MARKETS},
        "event": {card.name: event_text(card) for card in EVENTS},
        "board": {
            "leader": "The Leader Marker: its holder starts every auction and every phase played in turn order.",
        },
        "nation": {nation: f"Starts with {resource} in play." for nation, resource in NATIONS.items()},
        "token": {name: f"Everyone produces {BASELINE[i]} {name} a turn plus their cards' production."
                  + (f" {MONEY_PER_TOKEN} money turn into 1 token of any other type." if name == "money" else "")
                  + (" The most victory tokens wins." if name == "victory" else "")
                  for i, name in enumerate(TOKENS)},
    }

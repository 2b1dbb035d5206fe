"""Mad Zeppelin in chat: ``draft igor`` (or ``traitor igor``), ``colour 2 red``, ``play captain``, ``ability``,
``ability doctor``, ``ability die 1``, ``ability seat 2``, ``look unused``, ``look seat 1``, ``reroll 2``,
``throw gold``, ``throw steel with big crate``, ``throw alcohol``, ``end``, ``steal gold`` / ``steal cargo``,
``give gold`` / ``give wood``, ``arrange 3 1 2``; the board in a few lines and the events in words.

Traitors go by role or by any part of their name (``igor``, ``karl``, ``doc``); Cargo by kind (``gold`` is the
Gold cargo when thrown and a Gold coin when given: ``give gold cargo`` gives the card). Dice and the cards the
Geologist saw count from 1. Names may be shortened while unambiguous. Anything else gets a reply naming what is
wrong and listing what is legal now.

``legal`` is the seat's list of choices as the view record carries them (``schemas.legal``): the Traitor an
ability names, a white die's colour, the Geologist's order and a throw's crates may be open choices. The help
describes them in words; what is written is accepted whenever a choice covers it (``Choice.covers``), a throw's
crates in any order. Lists of single commands work the same way.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from schemas.envelopes import EventEnvelope
from schemas.legal import Choice, choices_from_wire, covered
from services.chat.adapter import ChatError, CommandDict
from services.chat.games.natural import NaturalAdapter
from services.chat.games.words import Problem, by_prefix, count_of, read_items, words
from services.games.mad_zeppelin.board import (
    card_name,
    cards_text,
    dice_text,
    numbered,
    outcome_text,
    traitor_name,
    view_lines,
)
from services.games.mad_zeppelin.data import NAME_OF
from services.games.mad_zeppelin.schemas import CARGO_KINDS, COLOURS, CRATES, TRAITORS

VERBS = {
    "draft": "draft", "traitor": "traitor", "play": "play_traitor", "colour": "choose_colour",
    "color": "choose_colour", "ability": "use_ability", "use": "use_ability", "look": "look", "reroll": "reroll",
    "re_roll": "reroll", "roll": "reroll", "throw": "throw", "place": "throw", "end": "end_sequence",
    "done": "end_sequence", "steal": "steal", "give": "give", "arrange": "arrange_hold", "order": "arrange_hold",
}
CHAT_WORD = {"use_ability": "ability", "choose_colour": "colour", "end_sequence": "end", "arrange_hold": "arrange",
             "play_traitor": "play"}  # the command types as players write them
CHAT_WORD_RE = re.compile(rf"\b({'|'.join(CHAT_WORD)})\b")
NAME_WORDS = {w: key for key, name in NAME_OF.items() for w in re.findall(r"[a-z']+", name.lower())
              if len(w) > 2 and w != "the"} | {"mr": "shadow", "tim": "stowaway", "doc": "doctor"}
MERGED = {("gold", "cargo"): "gold_cargo", ("strange", "materials"): "strange_materials",
          ("strange", "material"): "strange_materials", ("small", "crate"): "small_crate",
          ("small", "crates"): "small_crate", ("big", "crate"): "big_crate", ("big", "crates"): "big_crate"}
CARGO_ALIASES = {"gold": "gold_cargo", "diamond": "diamonds", "strange": "strange_materials", "small": "small_crate",
                 "big": "big_crate", "crate": "small_crate", "booze": "alcohol"}
COLOUR_ALIASES = {"y": "yellow", "g": "green", "b": "blue", "r": "red"}
FILLER = ("with", "the", "of", "die", "dice", "a", "an", "to", "#", ":", "=", "card", "pay", "paying", "using",
          "overboard", "it", "my")
LISTED = 3
EXPANDED = 200  # the most commands read out of one choice (this game's largest has 14)
TRAITOR_KEYS = TRAITORS


def traitor_of(word: str) -> str | Problem:
    """A Traitor's key from its role, a word of its name, or a unique prefix of either."""
    w = word.lower()
    if w in TRAITOR_KEYS:
        return w
    if w in NAME_WORDS:
        return NAME_WORDS[w]
    keys = {NAME_WORDS[n] for n in NAME_WORDS if len(w) >= 2 and n.startswith(w)}
    keys |= {k for k in TRAITOR_KEYS if len(w) >= 2 and k.startswith(w)}
    if len(keys) == 1:
        return keys.pop()
    if keys:
        return Problem(f"'{word}' could be {' or '.join(sorted(keys))}")
    return Problem(f"'{word}' is not a Traitor")


def cargo_of(word: str) -> str | Problem:
    return by_prefix(word, CARGO_KINDS, "a Cargo card", CARGO_ALIASES)


def colour_of(word: str) -> str | Problem:
    return by_prefix(word, COLOURS, "a colour (yellow, green, blue, red)", COLOUR_ALIASES)


def merged(tokens: Sequence[str]) -> list[str]:
    """Two-word names as one (``gold cargo`` -> ``gold_cargo``)."""
    out: list[str] = []
    for token in tokens:
        if out and (out[-1], token) in MERGED:
            out[-1] = MERGED[(out[-1], token)]
        else:
            out.append(token)
    return out


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _crates_text(crates: Sequence[str]) -> str:
    counts = {c: crates.count(c) for c in ("big_crate", "small_crate") if c in crates}
    return " + ".join(f"{n} {card_name(c)}s" if n > 1 else card_name(c) for c, n in counts.items())


def throw_word(card: str) -> str:
    return "gold" if card == "gold_cargo" else card_name(card)


class MadZeppelinAdapter(NaturalAdapter):
    command_words = frozenset(VERBS)  # what starts a command (a chat bridge tells commands from talk by it)
    verbs = VERBS  # word -> command type (a chat bridge names a secret command's word when it refuses it publicly)
    help_text = ("Commands: draft igor | colour 2 red | play captain | ability (with a Traitor, 'die 1' or 'seat 2' "
                 "when it needs one) | look unused / look seat 1 | reroll 2 | throw gold (with big crate) | throw "
                 "alcohol | end | steal gold / steal cargo | give gold / give wood | arrange 3 1 2. Dice count from 1; "
                 "Traitors by role or name (igor, karl); names may be shortened.")

    # -- text out --------------------------------------------------------------------------------
    def render_view(self, view: Mapping[str, Any]) -> list[str]:
        return [CHAT_WORD_RE.sub(lambda m: CHAT_WORD[m[0]], line) for line in view_lines(view)]

    def render_event(self, envelope: EventEnvelope) -> str | None:
        b = envelope.body
        who = f"seat {b.get('seat')}"
        match envelope.type:
            case "MatchStarted":
                mode = (b.get("options") or {}).get("mode", "run")
                return f"Mad Zeppelin for {b.get('seats')} players begins ({str(mode).replace('_', ' ')})."
            case "GoldTaken":
                gold = b.get("gold")
                return f"{who} takes {gold} gold{' from the Safe' if b.get('reason') == 'search' else ''}."
            case "CargoDrawn":
                return f"{who} draws {card_name(b['card']) if b.get('card') else 'a card'}."
            case "JourneyReturned":
                return f"{who} draws a Journey card: back into the Hold, {b.get('gold')} gold."
            case "JourneyPlaced":
                return f"{who} draws a Journey card: it is placed, {b.get('gold')} gold."
            case "TurnStarted":
                return f"Turn {b.get('turn')} begins; leader seat {b.get('leader')}."
            case "TraitorsShuffled":
                return f"The Traitors are shuffled; {b.get('airsick_count')} are airsick."
            case "TraitorDealt" | "TraitorDrafted":
                verb = "is dealt" if envelope.type == "TraitorDealt" else "drafts"
                return f"{who} {verb} {'the ' + traitor_name(b['traitor']) if b.get('traitor') else 'a Traitor'}."
            case "TraitorsRevealed":
                whose = "the unused Traitors" if b.get("of") is None else f"seat {b.get('of')}'s Traitors"
                seen = f": {', '.join(b['traitors']) or 'none'}" if b.get("traitors") is not None else ""
                return f"{who} looks at {whose}{seen}."
            case "DiceRolled":
                return f"Dice: {dice_text(b.get('faces'))}."
            case "DieColourChosen":
                return f"{who} makes die {_die(b.get('die'))} {b.get('colour')}."
            case "TraitorPlayed":
                return f"{who} plays the {traitor_name(b.get('traitor'))}."
            case "SequenceSkipped":
                return f"{who} cannot play (holds {', '.join(b.get('traitors') or []) or 'nothing'}) and is skipped."
            case "GoldStolen":
                return f"seat {b.get('thief')} steals 1 gold from seat {b.get('victim')}."
            case "CargoStolen":
                what = card_name(b["card"]) if b.get("card") else "a card"
                return f"seat {b.get('thief')} steals {what} from seat {b.get('victim')}."
            case "StealMissed":
                why = "nothing to take" if b.get("reason") == "nothing" else f"the {b.get('reason')} protects them"
                return f"seat {b.get('thief')} steals nothing from seat {b.get('victim')}: {why}."
            case "AbilityUsed":
                return f"{who}'s {b.get('ability')}: {_ability_text(b)}."
            case "DieRerolled":
                return f"{who} re-rolls die {_die(b.get('die'))}: {b.get('face')}."
            case "HoldTopSeen":
                seen = f": {numbered(b['cards'])}" if b.get("cards") is not None else ""
                return f"{who} looks at the top {b.get('count')} cards of the Hold{seen}."
            case "HoldRearranged":
                order = f" in the order {' '.join(str(i + 1) for i in b['order'])}" if b.get("order") else ""
                return f"{who} puts the {b.get('count')} cards back{order}."
            case "GoldGiven":
                return f"seat {b.get('giver')} gives seat {b.get('receiver')} 1 gold."
            case "CargoGiven":
                what = card_name(b["card"]) if b.get("card") else "a card"
                return f"seat {b.get('giver')} gives seat {b.get('receiver')} {what}."
            case "NothingGiven":
                return f"seat {b.get('giver')} has nothing to give seat {b.get('receiver')}."
            case "CargoThrown":
                crates = f" + {_crates_text(b.get('crates') or [])}" if b.get("crates") else ""
                return f"{who} throws {card_name(b.get('card'))} overboard (pays {b.get('gold')} gold{crates})."
            case "AlcoholPlaced":
                return f"{who} places an Alcohol."
            case "TurnEnded":
                points = ", ".join(f"seat {s} {p}" for s, p in enumerate(b.get("scores") or []))
                return f"End of turn {b.get('turn')}. Points: {points}."
            case "MatchEnded":
                return f"Game over. {outcome_text({**b, 'detail': b})}"
            case "HoldPrepared" | "SequenceEnded":
                return None
        return super().render_event(envelope)

    def format_command(self, command: Mapping[str, Any]) -> str:
        body: Mapping[str, Any] = command.get("body") or {}
        keys = set(body)
        match command.get("type"):
            case ("draft" | "play_traitor") as verb if keys == {"traitor"} and body["traitor"] in TRAITOR_KEYS:
                return f"{'draft' if verb == 'draft' else 'play'} {body['traitor']}"
            case "choose_colour" if keys == {"die", "colour"} and _is_int(body["die"]) and body["colour"] in COLOURS:
                return f"colour {body['die'] + 1} {body['colour']}"
            case "use_ability" if not keys:
                return "ability"
            case "use_ability" if keys == {"traitor"} and body["traitor"] in TRAITOR_KEYS:
                return f"ability {body['traitor']}"
            case "use_ability" if keys == {"die"} and _is_int(body["die"]):
                return f"ability die {body['die'] + 1}"
            case "use_ability" if keys == {"seat"} and _is_int(body["seat"]):
                return f"ability seat {body['seat']}"
            case "use_ability" if body == {"look": "unused"}:
                return "look unused"
            case "use_ability" if keys == {"look", "seat"} and body["look"] == "player" and _is_int(body["seat"]):
                return f"look seat {body['seat']}"
            case "reroll" if keys == {"die"} and _is_int(body["die"]):
                return f"reroll {body['die'] + 1}"
            case "throw" if keys <= {"card", "crates"} and body.get("card") in CARGO_KINDS and _crates_ok(body):
                # the crates in any order, [] as none: the chat form is the same (read back sorted)
                crates = f" with {_crates_text(body['crates'])}" if body.get("crates") else ""
                return f"throw {throw_word(body['card'])}{crates}"
            case "end_sequence" if not keys:
                return "end"
            case "steal" if keys == {"take"} and body["take"] in ("gold", "cargo"):
                return f"steal {body['take']}"
            case "give" if body == {"what": "gold"}:
                return "give gold"
            case "give" if keys == {"what", "card"} and body["what"] == "cargo" and body["card"] in CARGO_KINDS:
                return f"give {card_name(body['card'])}"
            case "arrange_hold" if keys == {"order"} and isinstance(body["order"], list) and \
                    all(_is_int(i) for i in body["order"]):
                return f"arrange {' '.join(str(i + 1) for i in body['order'])}"
        return super().format_command(command)

    def describe_legal(self, legal: Sequence[Mapping[str, Any]]) -> str:
        """What may be sent now, in words: single commands in their chat form; an open choice as an example
        and what else it allows (any Traitor's name, any colour, the cards in any order, crates to pay)."""
        choices = choices_from_wire(legal)
        if not choices:
            return "You have nothing to do right now."
        parts: list[str] = []
        notes: list[str] = []
        throws: dict[str, Mapping[str, Any]] = {}
        named = 0

        def note(text: str) -> None:
            if text not in notes:
                notes.append(text)

        for choice in choices:
            if choice.type == "choose_colour" and "colour" in choice.free:
                colours = [c for c in _values(choice, "colour") if c in COLOURS]
                parts.append(self.format_command({"type": "choose_colour",
                                                  "body": {**choice.body, "colour": colours[0]}}))
                note(f"colour + white die + {', '.join(colours)}")
                continue
            if choice.type == "arrange_hold" and "order" in choice.free:
                first = next(choice.bodies(1))
                parts.append(self.format_command({"type": "arrange_hold", "body": first}))
                note(f"arrange + the {len(first['order'])} cards in any order, top first")
                continue
            for body in _canonical_bodies(choice):
                if choice.type == "throw":
                    card = body["card"]
                    if card not in throws or (throws[card].get("crates") and not body.get("crates")):
                        throws[card] = body
                    if body.get("crates") and not any(n.startswith("pay") for n in notes):
                        notes.append(f"pay with crates: {self.format_command({'type': 'throw', 'body': body})}")
                    continue
                if choice.type == "use_ability" and set(body) == {"traitor"}:
                    named += 1
                    if named > LISTED:
                        if named == LISTED + 1:
                            notes.insert(0, "ability + another Traitor's name")
                        continue
                if choice.type != "end_sequence":
                    parts.append(self.format_command({"type": choice.type, "body": body}))
        parts += [self.format_command({"type": "throw", "body": b}) for b in throws.values()]
        parts += ["end"] if any(c.type == "end_sequence" for c in choices) else []
        text = f"Legal now: {' | '.join(parts)}"
        return f"{text} (or any other: {'; '.join(notes)})" if notes else text

    # -- text in ---------------------------------------------------------------------------------
    def tokens(self, text: str) -> list[str]:
        return merged(words(text.replace("-", "_")))

    def read(self, tokens: list[str], legal: Sequence[Mapping[str, Any]], help_: str) -> CommandDict | ChatError:
        choices = choices_from_wire(legal)
        types = {c.type for c in choices}
        first, rest = tokens[0], tokens[1:]
        verb = VERBS.get(first)
        if verb is None and not rest and not isinstance(traitor_of(first), Problem) and types & {"draft",
                                                                                               "play_traitor"}:
            verb, rest = "traitor", tokens
        if verb == "traitor":
            verb = "draft" if "draft" in types else "play_traitor"
        elif verb == "look":
            verb, rest = "use_ability", ["look", *rest]
        if verb is None:
            return ChatError(f"Unknown command '{first}'. {help_}")
        if verb not in types:
            return ChatError(f"You cannot {first} now. {help_}")
        said, rest = rest, [t for t in rest if t not in FILLER]
        options = _options(choices, verb)
        result: CommandDict | str
        match verb:
            case "draft" | "play_traitor":
                result = self._traitor(verb, rest, options)
            case "choose_colour":
                result = self._colour(rest, options)
            case "use_ability":
                result = self._ability(rest, options, choices)
            case "reroll":
                result = self._reroll(rest, options)
            case "throw":
                result = self._throw(rest, options, choices)
            case "steal":
                take = {"gold": "gold", "coin": "gold", "cargo": "cargo", "card": "cargo"}.get(" ".join(said), "")
                result = {"type": "steal", "body": {"take": take}} if take else "Say 'steal gold' or 'steal cargo'"
            case "give":
                result = self._give(rest, options, choices)
            case "arrange_hold":
                result = self._arrange(rest, options)
            case _:
                result = {"type": verb, "body": {}} if not rest else f"'{first}' takes nothing more"
        if isinstance(result, str):
            return ChatError(f"{result}. {help_}")
        if not covered(choices, result["type"], result["body"]):
            return ChatError(f"You cannot {first} that now. {help_}")
        return result

    def _traitor(self, verb: str, rest: Sequence[str], options: list[dict[str, Any]]) -> CommandDict | str:
        allowed = [o["traitor"] for o in options]
        said = "draft" if verb == "draft" else "play"
        if len(rest) != 1:
            return f"Name one Traitor, like '{said} {allowed[0]}'"
        traitor = traitor_of(rest[0])
        if isinstance(traitor, Problem):
            return str(traitor)
        if traitor not in allowed:
            return f"You cannot {said} the {traitor} now; you can {said} {', '.join(allowed)}"
        return {"type": verb, "body": {"traitor": traitor}}

    def _colour(self, rest: Sequence[str], options: list[dict[str, Any]]) -> CommandDict | str:
        dice = sorted({o["die"] for o in options})
        numbers = [t for t in rest if t.isdigit()]
        names = [t for t in rest if not t.isdigit()]
        if len(names) != 1 or len(numbers) > 1:
            return f"Say which die and colour, like 'colour {dice[0] + 1} red'"
        colour = colour_of(names[0])
        if isinstance(colour, Problem):
            return str(colour)
        if not numbers and len(dice) > 1:
            return f"Which white die? {' or '.join(str(d + 1) for d in dice)}, like 'colour {dice[0] + 1} {colour}'"
        die = (count_of(numbers[0]) or 0) - 1 if numbers else dice[0]
        if die not in dice:
            return f"Die {die + 1} is not white; the white dice: {', '.join(str(d + 1) for d in dice)}"
        return {"type": "choose_colour", "body": {"die": die, "colour": colour}}

    def _ability(self, rest: Sequence[str], options: list[dict[str, Any]], choices: Sequence[Choice]
                 ) -> CommandDict | str:
        example = self.format_command({"type": "use_ability", "body": options[0]})
        kinds = {frozenset(o) for o in options}
        rest = list(rest)
        look = rest[:1] == ["look"]
        if look:
            rest = rest[1:]
        body: dict[str, Any]
        if not rest:
            body = {}
        elif kinds & {frozenset({"die"})}:
            numbers = [t for t in rest if t.isdigit()]
            if len(rest) != 1 or len(numbers) != 1:
                return f"Say which die, like '{example}'"
            body = {"die": (count_of(numbers[0]) or 0) - 1}
        elif kinds & {frozenset({"traitor"})}:
            traitor = traitor_of(rest[0]) if len(rest) == 1 else Problem("Name one Traitor")
            if isinstance(traitor, Problem):
                return f"{traitor}, like '{example}'"
            body = {"traitor": traitor}
        elif rest == ["unused"]:
            body = {"look": "unused"}
        else:
            seat = _seat(rest)
            if seat is None:
                return f"Say which seat, like '{example}'"
            body = {"look": "player", "seat": seat} if any("look" in o for o in options) else {"seat": seat}
        if look and "look" not in body:
            return f"Your ability does not look; {example}"
        if not covered(choices, "use_ability", body):
            return f"You cannot do that with your ability now; you can: {_alternatives(self, 'use_ability', options)}"
        return {"type": "use_ability", "body": body}

    def _reroll(self, rest: Sequence[str], options: list[dict[str, Any]]) -> CommandDict | str:
        dice = [o["die"] for o in options]
        if len(rest) != 1 or not rest[0].isdigit():
            return f"Say which die, like 'reroll {dice[0] + 1}'"
        die = (count_of(rest[0]) or 0) - 1
        if die not in dice:
            return f"You can re-roll die {' or '.join(str(d + 1) for d in dice)}"
        return {"type": "reroll", "body": {"die": die}}

    def _throw(self, rest: Sequence[str], options: list[dict[str, Any]], choices: Sequence[Choice]
               ) -> CommandDict | str:
        cards = sorted({o["card"] for o in options}, key=CARGO_KINDS.index)
        if not rest:
            return f"Throw what? You can throw {', '.join(throw_word(c) for c in cards)}"
        card = cargo_of(rest[0])
        if isinstance(card, Problem):
            return str(card)
        crates = read_items(rest[1:], cargo_of)
        if isinstance(crates, Problem):
            return str(crates)
        paid = [name for name, count, _ in crates for _ in range(count)]
        if any(c not in CRATES for c in paid):
            return "Only mysterious crates pay for a throw, like 'throw steel with big crate'"
        if card not in cards:
            return f"You cannot throw {throw_word(card)} now; you can throw {', '.join(throw_word(c) for c in cards)}"
        body: dict[str, Any] = {"card": card}
        if paid:
            body["crates"] = sorted(paid)
        if not covered(choices, "throw", body):
            ways = [self.format_command({"type": "throw", "body": o}) for o in options if o["card"] == card]
            return f"That payment does not work; you can: {', '.join(ways)}"
        return {"type": "throw", "body": body}

    def _give(self, rest: Sequence[str], options: list[dict[str, Any]], choices: Sequence[Choice]
              ) -> CommandDict | str:
        listed = ", ".join(self.format_command({"type": "give", "body": o}) for o in options)
        if rest in (["gold"], ["coin"]):
            body: dict[str, Any] = {"what": "gold"}
        else:
            card = cargo_of(rest[0]) if len(rest) == 1 else Problem("Give one thing")
            if isinstance(card, Problem):
                return f"{card}; you can: {listed}"
            body = {"what": "cargo", "card": card}
        if not covered(choices, "give", body):
            return f"You cannot give that; you can: {listed}"
        return {"type": "give", "body": body}

    def _arrange(self, rest: Sequence[str], options: list[dict[str, Any]]) -> CommandDict | str:
        n = len(options[0]["order"])
        order = [(count_of(t) or 0) - 1 for t in rest if t.isdigit()]
        if len(order) != len(rest) or sorted(order) != list(range(n)):
            return (f"List the {n} cards you saw in their new order, top first, each once: like "
                    f"'arrange {' '.join(str(i) for i in range(n, 0, -1))}'")
        return {"type": "arrange_hold", "body": {"order": order}}


def _die(die: Any) -> str:
    return str(die + 1) if _is_int(die) else "?"


def _seat(rest: Sequence[str]) -> int | None:
    numbers = [t for t in rest if t.isdigit()]
    if len(numbers) != 1 or any(t not in ("seat", "s", "player") and not t.isdigit() for t in rest):
        return None
    return count_of(numbers[0])


def _crates_ok(body: Mapping[str, Any]) -> bool:
    crates = body.get("crates", [])
    return isinstance(crates, list) and all(c in CRATES for c in crates)


def _values(choice: Choice, name: str) -> list[Any]:
    """The values a choice offers for one field (free or fixed)."""
    out: list[Any] = []
    for body in choice.bodies(EXPANDED):
        if body.get(name) not in out:
            out.append(body.get(name))
    return out


def _canonical(kind: str, body: dict[str, Any]) -> dict[str, Any]:
    """One form per command: a throw's crates sorted, left out when there are none (as the chat reads it)."""
    if kind == "throw" and isinstance(body.get("crates"), list):
        crates = sorted(body["crates"])
        return {**{k: v for k, v in body.items() if k != "crates"}, **({"crates": crates} if crates else {})}
    return body


def _canonical_bodies(choice: Choice) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for body in choice.bodies(EXPANDED):
        body = _canonical(choice.type, body)
        if body not in out:
            out.append(body)
    return out


def _options(choices: Sequence[Choice], kind: str) -> list[dict[str, Any]]:
    """The bodies of ``kind`` on offer, each once in its chat form (for examples and suggestions)."""
    out: list[dict[str, Any]] = []
    for choice in choices:
        if choice.type == kind:
            out += [body for body in _canonical_bodies(choice) if body not in out]
    return out


def _alternatives(adapter: MadZeppelinAdapter, type_: str, options: Sequence[Mapping[str, Any]]) -> str:
    forms = [adapter.format_command({"type": type_, "body": o}) for o in options]
    return ", ".join(forms[:LISTED + 3]) + (", ..." if len(forms) > LISTED + 3 else "")


def _ability_text(b: Mapping[str, Any]) -> str:
    match b.get("ability"):
        case "captain":
            return f"watches for the {b.get('traitor')}"
        case "doctor":
            return f"the {b.get('traitor')} may not be played this turn"
        case "stowaway":
            return f"takes on the {b.get('traitor')}"
        case "shadow":
            return f"copies the {b.get('source')} (as {b.get('copied')})"
        case "lookout":
            return f"re-rolls die {_die(b.get('die'))}"
        case "anarchist":
            return f"die {_die(b.get('die'))} is out"
        case "clairvoyant":
            return "looks at the unused Traitors" if b.get("look") == "unused" else \
                f"looks at seat {b.get('target')}'s Traitors"
        case "negotiator":
            return f"seat {b.get('target')} must hand over 1 gold or a card"
        case "geologist":
            return "looks at the top of the Hold"
    return "used"


__all__ = ["MadZeppelinAdapter", "cards_text", "cargo_of", "colour_of", "traitor_of"]

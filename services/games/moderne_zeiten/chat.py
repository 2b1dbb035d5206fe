"""Moderne Zeiten in chat: ``bid 5``, ``pass``, ``draw``, ``play 3 aviation 1 shipping``, ``move aviation``,
``finish``, ``stay``; the board in a few lines and the events in words.

Industries may be shortened (``avi``, ``ship``, ``high``, ``auto``, ``tel``) or named by their titles
(``high rise``, ``telecommunications``); counts go before or after the industry (``play aviation 2``), and
an industry named alone counts one card. A number alone bids it during an auction. Input that is not
such a command gets a reply naming what is wrong and listing what is legal now.

``legal`` is the seat's list of choices as the view record carries them (``schemas.legal``): a bid's
range and a play over the hand are open choices, described in words in the help and accepted whenever
they cover what was written (``Choice.covers``); lists of single commands work the same way.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from schemas.envelopes import EventEnvelope
from schemas.legal import Choice, Counts, IntRange, choices_from_wire, covered
from services.chat.adapter import ChatError, CommandDict
from services.chat.games.natural import NaturalAdapter
from services.games.moderne_zeiten.board import (
    auction_line,
    cards_text,
    hand_line,
    moves_line,
    outcome_text,
    player_line,
    status_line,
)
from services.games.moderne_zeiten.schemas import INDUSTRIES

MAX_DIGITS = 9
PLAYS_LISTED = 8
WORD_RE = re.compile(r"[A-Za-z_\-]+|[0-9]+|\S")
ALIASES = {
    "air": "aviation", "plane": "aviation", "planes": "aviation", "airline": "aviation",
    "car": "automobile", "cars": "automobile", "building": "high_rise", "buildings": "high_rise",
    "construction": "high_rise", "skyscraper": "high_rise", "phone": "telecom", "phones": "telecom",
    "telecommunications": "telecom", "ships": "shipping", "ship": "shipping",
}
VERBS = {
    "bid": "bid", "b": "bid", "pass": "pass", "p": "pass", "draw": "draw", "d": "draw", "play": "play",
    "move": "move", "go": "move", "fly": "move", "finish": "finish", "stay": "stay",
}
NOTHING = {"nothing", "none", "no", "0"}
FILLER = {",", ";", "and", "&", "+", ":", "=", "x", "rise", "cards", "card", "of", "to", "amount"}


def industry_of(word: str) -> str | None:
    """An industry key from a word as a person may write it, or None."""
    w = word.lower().replace("-", "_")
    if w in ALIASES:
        return ALIASES[w]
    if w in ("high_rise", "highrise"):
        return "high_rise"
    matches = [i for i in INDUSTRIES if len(w) >= 2 and i.replace("_", "").startswith(w.replace("_", ""))]
    return matches[0] if len(matches) == 1 else None


def words(text: str) -> list[str]:
    return [w.lower() for w in WORD_RE.findall(text)]


def read_cards(tokens: Sequence[str]) -> dict[str, int] | str:
    """``3 aviation 1 shipping`` / ``aviation 3, ship`` / ``avi avi tel`` into counts; else what is wrong."""
    cards: dict[str, int] = {}
    tokens = [t for t in tokens if t not in FILLER]
    if len(tokens) == 1 and tokens[0] in NOTHING:
        return {}
    i = 0
    while i < len(tokens):
        token = tokens[i]
        nxt = tokens[i + 1] if i + 1 < len(tokens) else None
        if token.isdigit():
            industry = industry_of(nxt) if nxt is not None else None
            if nxt is None:
                return f"'{token}' of what? Name an industry after the number, like 'play {token} aviation'"
            if industry is None:
                return f"'{nxt}' is not an industry ({', '.join(INDUSTRIES)})"
            count, i = _count(token), i + 2
        else:
            industry = industry_of(token)
            if industry is None:
                return f"'{token}' is not an industry ({', '.join(INDUSTRIES)})"
            after = tokens[i + 2] if i + 2 < len(tokens) else None
            if nxt is not None and nxt.isdigit() and (after is None or not after.isdigit()):
                count, i = _count(nxt), i + 2
            else:
                count, i = 1, i + 1
        if count is None:
            return "that is more cards than there are"
        cards[industry] = cards.get(industry, 0) + count
    return {i: cards[i] for i in INDUSTRIES if cards.get(i)}


def _count(digits: str) -> int | None:
    return int(digits) if len(digits) <= MAX_DIGITS else None


class ModerneZeitenAdapter(NaturalAdapter):
    command_words = frozenset(VERBS)  # what starts a command (a chat bridge tells commands from talk by it)
    help_text = ("Commands: bid 5 (or just 5 in an auction) | pass | draw | play 2 aviation 1 telecom (or play "
                 "nothing) | move aviation (or just aviation when asked where to fly) | finish | stay. Industries "
                 "may be shortened: ship, avi, high, auto, tel. Money is in millions (15M).")

    # -- text out --------------------------------------------------------------------------------
    def render_view(self, view: Mapping[str, Any]) -> list[str]:
        lines = [status_line(view)]
        lines += [line for line in (_auction_line(view), moves_line(view)) if line]
        lines += [player_line(p, view) for p in view.get("players") or []]
        lines.append(_claimed_line(view))
        hand = hand_line(view)
        return [*lines, hand] if hand else lines

    def render_event(self, envelope: EventEnvelope) -> str | None:
        b = envelope.body
        who = f"seat {b.get('seat')}"
        match envelope.type:
            case "MatchStarted":
                return f"Moderne Zeiten for {b.get('seats')} players begins."
            case "CardsDealt":
                return f"{who} is dealt {cards_text(b['cards']) if b.get('cards') else str(b.get('count')) + ' cards'}."
            case "StartPlayerChosen":
                return f"{who} is the first start player."
            case "RoundStarted":
                return f"Round {b.get('round')} begins; start player seat {b.get('start_player')}."
            case "DieRolled":
                return f"{who} rolls {b.get('roll')}."
            case "CardsLaidOut":
                return f"Up for auction: {cards_text(b.get('cards'))}."
            case "AuctionSkipped":
                return f"No auction: {b.get('reason')}."
            case "BidMade":
                return f"{who} bids {b.get('amount')}."
            case "Passed":
                return f"{who} passes."
            case "AuctionWon":
                return f"{who} buys {cards_text(b.get('cards'))} for {b.get('amount')} and becomes start player."
            case "AuctionUnsold":
                return f"Nobody bid: {cards_text(b.get('cards'))} go under the stack."
            case "CardsDrawn":
                drawn = cards_text(b["cards"]) if b.get("cards") is not None else f"{b.get('count')} cards"
                return f"{who} draws {drawn}."
            case "CardsPlayed":
                return f"{who} plays {cards_text(b.get('cards'))} (shares in play: {b.get('counter')})."
            case "ControlTaken":
                count = b.get("count")
                return f"{who} takes control of {b.get('industry')} with {count} card{'' if count == 1 else 's'}."
            case "ZeppelinMoved":
                return f"{who} flies to space {b.get('space')}, {b.get('city')} {b.get('industry')}."
            case "MoveDeclined":
                return f"{who} stays."
            case "MarketCrashed":
                return (f"Market crash! {', '.join(b.get('industries') or [])} go back to the stack "
                        f"({b.get('removed')} cards); shares in play: {b.get('counter')}.")
            case "ZeppelinFinished":
                return f"{who} flies to Finish and ends the game."
            case "GameEnded":
                return f"Game over. {outcome_text(b)}"
            case "StackShuffled" | "TurnEnded" | "MoveAwaited":
                return None
        return super().render_event(envelope)

    def format_command(self, command: Mapping[str, Any]) -> str:
        body: Mapping[str, Any] = command.get("body") or {}
        match command.get("type"), tuple(body):
            case "bid", ("amount",) if _is_int(body["amount"]):
                return f"bid {body['amount']}"
            case ("pass" | "draw") as verb, ():
                return str(verb)
            case "play", ("cards",) if _is_cards(body["cards"]):
                cards = body["cards"]
                return "play " + (" ".join(f"{n} {i}" for i, n in cards.items()) if cards else "nothing")
            case "move", ("to",) if body["to"] is None or body["to"] == "finish":
                return "stay" if body["to"] is None else "finish"
            case "move", ("to",) if body["to"] in INDUSTRIES:
                return f"move {body['to']}"
        return super().format_command(command)

    def describe_legal(self, legal: Sequence[Mapping[str, Any]]) -> str:
        """What may be sent now, in words: open choices as ranges (``bid 4 to 15 (millions)``, ``play any
        cards from your hand: ...``), single commands in their chat form."""
        choices = choices_from_wire(legal)
        if not choices:
            return "You have nothing to do right now."
        parts: list[str] = []
        amounts = _bid_bounds(choices)
        if amounts:
            lo, hi = amounts
            parts.append(f"bid {lo} (millions)" if lo == hi else f"bid {lo} to {hi} (millions)")
        concrete_plays: list[Choice] = []
        open_play: Counts | None = None
        for choice in choices:
            if choice.type == "bid":
                continue
            if choice.type == "play" and "cards" in choice.free:
                spec = choice.free["cards"]
                open_play = spec if isinstance(spec, Counts) else open_play
            elif choice.type == "play" and not choice.free:
                concrete_plays.append(choice)
            elif choice.type == "move" and "to" in choice.free:
                parts += [self.format_command({"type": "move", "body": {"to": to}}) for to in _targets([choice])]
            else:
                parts += [self.format_command({"type": choice.type, "body": body}) for body in choice.bodies(8)]
        listed = sorted(concrete_plays, key=lambda c: _play_order(c.body["cards"]))
        parts += [self.format_command({"type": "play", "body": c.body}) for c in listed[:PLAYS_LISTED]]
        if open_play is not None:
            parts.append(f"play any cards from your hand: {cards_text(open_play.max)}")
        text = f"Legal now: {' | '.join(parts)}"
        if len(listed) > PLAYS_LISTED:
            text += f" (or any other cards from your hand: {cards_text(_hand(choices))})"
        return text

    # -- text in ---------------------------------------------------------------------------------
    def read(self, tokens: list[str], legal: Sequence[Mapping[str, Any]], help_: str) -> CommandDict | ChatError:
        choices = choices_from_wire(legal)
        types = {c.type for c in choices}
        first, rest = tokens[0], tokens[1:]
        verb = VERBS.get(first)
        if verb is None and first.isdigit() and "bid" in types:
            verb, rest = "bid", tokens
        elif verb is None and industry_of(first) is not None and "move" in types and not rest:
            verb, rest = "move", tokens
        if verb is None:
            return ChatError(f"Unknown command '{first}'. {help_}")
        said = verb
        if verb in ("finish", "stay"):
            verb, rest = "move", [verb, *rest]
        if verb not in types:
            return ChatError(f"You cannot {said} now. {help_}")
        match verb:
            case "bid":
                return self._bid(rest, choices, help_)
            case "pass" | "draw":
                if rest:
                    return ChatError(f"'{verb}' takes nothing more. {help_}")
                return _checked(choices, verb, {}, help_)
            case "play":
                return self._play(rest, choices, help_)
        return self._move(rest, choices, help_)

    def _bid(self, rest: Sequence[str], choices: Sequence[Choice], help_: str) -> CommandDict | ChatError:
        lo, hi = _bid_bounds(choices) or (0, 0)
        rest = [t for t in rest if t not in FILLER]
        if len(rest) != 1 or not rest[0].isdigit():
            return ChatError(f"Bid a whole number of millions, like 'bid {lo}'. {help_}")
        amount = _count(rest[0])
        if amount is None or not covered(choices, "bid", {"amount": amount}):
            return ChatError(f"You can bid {lo} to {hi}. {help_}")
        return {"type": "bid", "body": {"amount": amount}}

    def _play(self, rest: Sequence[str], choices: Sequence[Choice], help_: str) -> CommandDict | ChatError:
        cards = read_cards(rest) if rest else {}
        if isinstance(cards, str):
            return ChatError(f"{cards}. {help_}")
        body = {"cards": cards}
        if covered(choices, "play", body):
            return {"type": "play", "body": body}
        if not cards:
            return ChatError(f"Play what? Name cards from your hand, like 'play 2 aviation 1 telecom'. {help_}")
        hand = _hand(choices)
        short = [f"{hand.get(i, 0)} {i}" for i, n in cards.items() if n > hand.get(i, 0)]
        if short:
            return ChatError(f"You have only {', '.join(short)} in hand. {help_}")
        return ChatError(f"You cannot play {cards_text(cards)} now. {help_}")

    def _move(self, rest: Sequence[str], choices: Sequence[Choice], help_: str) -> CommandDict | ChatError:
        targets = _targets(choices)
        named = [t for t in rest if t not in FILLER]
        if len(named) != 1:
            return ChatError(f"Say where to: {_choices_text(targets)}. {help_}")
        word = named[0]
        word = "stay" if word in ("none", "null") else word
        to = None if word == "stay" else "finish" if word == "finish" else industry_of(word)
        if (to is None and word != "stay") or not covered(choices, "move", {"to": to}):
            return ChatError(f"You cannot fly to '{word}' now; choose {_choices_text(targets)}. {help_}")
        return {"type": "move", "body": {"to": to}}


def _auction_line(view: Mapping[str, Any]) -> str | None:
    """The auction, the seats that passed named as seats (a chat names them as its players)."""
    line = auction_line(view)
    passed = (view.get("auction") or {}).get("passed") or []
    if line and passed:
        named = ", ".join(f"seat {s}" for s in passed)
        line = line.replace(f"passed: {', '.join(map(str, passed))}.", f"passed: {named}.")
    return line


def _claimed_line(view: Mapping[str, Any]) -> str:
    """The claimed track spaces by the seat that claimed them (a chat names the seats as its players)."""
    by_seat: dict[int, list[str]] = {}
    for cell in view.get("track") or []:
        if cell.get("claimed_by") is not None:
            by_seat.setdefault(cell["claimed_by"], []).append(str(cell["space"]))
    claimed = "; ".join(f"seat {seat} {', '.join(spaces)}" for seat, spaces in sorted(by_seat.items()))
    return f"Claimed track spaces: {claimed or 'none yet'}."


def _checked(choices: Sequence[Choice], kind: str, body: dict[str, Any], help_: str) -> CommandDict | ChatError:
    if covered(choices, kind, body):
        return {"type": kind, "body": body}
    return ChatError(f"You cannot {kind} now. {help_}")


def _bid_bounds(choices: Sequence[Choice]) -> tuple[int, int] | None:
    """The lowest and the highest bid on offer (a range, or single bids), or None."""
    amounts: list[int] = []
    for choice in choices:
        if choice.type != "bid":
            continue
        spec = choice.free.get("amount")
        if isinstance(spec, IntRange):
            amounts += [spec.min, spec.max] if spec.min <= spec.max else []
        elif spec is None and _is_int(choice.body.get("amount")):
            amounts.append(choice.body["amount"])
        elif spec is not None:
            amounts += [v for v in itertools.islice(_values_of(choice, "amount"), 1000) if _is_int(v)]
    return (min(amounts), max(amounts)) if amounts else None


def _values_of(choice: Choice, name: str) -> Iterator[Any]:
    for body in choice.bodies():
        yield body[name]


def _targets(choices: Sequence[Choice]) -> list[Any]:
    """Where a move may go: each ``to`` on offer, in the order listed."""
    out: list[Any] = []
    for choice in choices:
        if choice.type == "move":
            out += [to for to in _values_of(choice, "to") if to not in out]
    return out


def _play_order(cards: Mapping[str, int]) -> tuple[int, int, list[int]]:
    return len(cards), sum(cards.values()), [INDUSTRIES.index(i) for i in cards if i in INDUSTRIES]


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_cards(value: Any) -> bool:
    return isinstance(value, Mapping) and all(k in INDUSTRIES and _is_int(n) and n > 0 for k, n in value.items())


def _hand(choices: Sequence[Choice]) -> dict[str, int]:
    """The cards in hand: the most of each industry a play on offer may hold (open or listed plays)."""
    hand: dict[str, int] = {}
    for choice in choices:
        if choice.type != "play":
            continue
        spec = choice.free.get("cards")
        held = spec.max if isinstance(spec, Counts) else choice.body.get("cards") or {}
        for industry, n in held.items():
            hand[industry] = max(hand.get(industry, 0), n)
    return {i: hand[i] for i in INDUSTRIES if hand.get(i)}


def _choices_text(choices: Sequence[Any]) -> str:
    return ", ".join("stay" if c is None else str(c) for c in choices)

"""Modern World in chat: ``bid 3``, ``pass``, ``buy 4`` / ``buy 4 a2 r2`` / ``buy 4 with 2 action 2 research``,
``invest mining, finance``, ``offer seat 1: mining + 2 money for 2 labor``, ``accept 3``, ``decline 3``,
``build mining``, ``discard culture``, ``convert 9 money to 3 victory`` / ``convert victory`` (all your
money), ``done``, ``nation japan``; the board in a few lines and the events in words.

Cards and tokens may be shortened while unambiguous (``min`` Mining; ``a``/``r``/``v``/``$`` for action,
research, victory, money; ``m`` materials, ``l`` labor, ``i`` influence). ``buy 4`` alone pays with action
first, then research. A number alone bids it during an auction, a nation alone picks it. Anything else
gets a reply naming what is wrong and listing what is legal now.

What is legal comes as the seat's ``legal`` choices (:mod:`schemas.legal`, open ranges and card choices
included): the help lists a few commands to copy and says the open choices in words; a command read is
sent when one of the choices covers it (card lists and offers: when your hand and the partner allow it; the
game judges the rest). Card lists are sent in table order, as hands are shown.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from schemas.envelopes import EventEnvelope
from schemas.legal import Choice, Counts, IntRange, Multiset, OneOf, choices_from_wire, covered
from services.chat.adapter import ChatError, CommandDict
from services.chat.games.natural import NaturalAdapter
from services.chat.games.words import Item, Problem, by_prefix, count_of, read_items
from services.games.modern_world.board import (
    cards_text,
    market_text,
    outcome_text,
    side_text,
    tokens_short,
    view_lines,
)
from services.games.modern_world.board import tokens_text as tokens_words
from services.games.modern_world.data import (
    CONVERTIBLE,
    EVENT_INDEX,
    EVENTS,
    HAND_LIMIT,
    MAX_TRADE_CARDS,
    MONEY_PER_TOKEN,
    NATION_NAMES,
    RESOURCE_INDEX,
    RESOURCE_NAMES,
    TOKENS,
)

VERBS = {
    "bid": "bid", "b": "bid", "pass": "pass", "p": "pass", "done": "done", "d": "done", "buy": "buy",
    "invest": "invest", "offer": "propose_trade", "propose": "propose_trade", "trade": "propose_trade",
    "accept": "accept_trade", "decline": "decline_trade", "reject": "decline_trade", "build": "build",
    "discard": "discard", "convert": "convert", "nation": "pick_nation", "pick": "pick_nation",
}
TOKEN_ALIASES = {
    "v": "victory", "vp": "victory", "vps": "victory", "points": "victory", "i": "influence", "inf": "influence",
    "$": "money", "cash": "money", "m": "materials", "mat": "materials", "mats": "materials", "l": "labor",
    "labour": "labor", "r": "research", "a": "action", "act": "action", "actions": "action",
}
NATION_ALIASES = {"us": "USA", "america": "USA", "eu": "Europe"}
FILLER = ("with", "of", "x", "card", "cards", "token", "tokens", "pay", "paying", "#", ":", "=", "the", "my", "in")
OFFERS_LISTED = 2
TOKEN_LEGEND = ("Tokens: V victory, I influence, $ money, M materials, L labor, R research, A action; 'makes': "
                "what the seat gains at each production.")
CHECKED_BY_CHAT = frozenset({"invest", "discard", "propose_trade"})
"""Commands chat checks itself (your cards, the partner) and leaves the rest to the game: ``legal`` lists
card lists in a big hand only in part, and a side of a proposal with one kind of token."""
LISTED = 4
EXAMPLE_OFFER = "offer seat 1: Mining + 2 money for 2 labor"


def token_of(word: str) -> str | Problem:
    return by_prefix(word, TOKENS, "a token (victory, influence, money, materials, labor, research, action)",
                     TOKEN_ALIASES)


def card_of(word: str) -> str | Problem:
    return by_prefix(word, RESOURCE_NAMES, "a resource card")


def _card_or_all(word: str) -> str | Problem:
    return "all" if word.lower() in ("all", "everything", "hand") else card_of(word)


def token_or_card(word: str) -> str | Problem:
    if word.lower() in TOKEN_ALIASES:
        return TOKEN_ALIASES[word.lower()]
    return by_prefix(word, (*TOKENS, *RESOURCE_NAMES), "a card or token")


def nation_of(word: str) -> str | Problem:
    return by_prefix(word, NATION_NAMES, f"a nation ({', '.join(NATION_NAMES)})", NATION_ALIASES)


def event_effect(name: str) -> str:
    """What an event card does, in a few words."""
    if name not in EVENT_INDEX:
        return ""
    card = EVENTS[EVENT_INDEX[name]]
    token = TOKENS[card.token] if card.token is not None else ""
    capacity = TOKENS[card.capacity] if card.capacity is not None else ""
    who = {"all": "everyone", "random": "a random player", "highest": f"the highest {capacity} capacity",
           "lowest": f"the lowest {capacity} capacity", "nobody": ""}[card.target]
    amount = "1D6" if card.die else str(card.amount)
    does = {"lose_all": f"loses all {token}", "lose": f"loses {amount} {token}", "gain": f"gains {amount} {token}",
            "permanent": f"{card.amount:+d} {token} capacity for good",
            "skip_phase": f"everyone skips the {card.phase} phase", "skip_build": "skips building",
            "extra_markets": f"{card.amount} more market cards"}[card.effect]
    return f"{who} {does}".strip()


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_cards(value: Any) -> bool:
    return isinstance(value, list) and bool(value) and all(c in RESOURCE_NAMES for c in value)


def _is_tokens(value: Any) -> bool:
    return isinstance(value, Mapping) and all(t in TOKENS and _is_int(n) and n > 0 for t, n in value.items())


def side_words(cards: Sequence[str], tokens: Mapping[str, int]) -> str:
    parts = [cards_text(cards, " + ")] if cards else []
    parts += [f"{tokens[t]} {t}" for t in TOKENS if tokens.get(t)]
    return " + ".join(parts) or "nothing"


def _trade_side(trade: Mapping[str, Any], key: str) -> str:
    return side_text(trade.get(key))


class ModernWorldAdapter(NaturalAdapter):
    command_words = frozenset(VERBS)  # what starts a command (a chat bridge tells commands from talk by it)
    verbs = VERBS  # word -> command type (a chat bridge names a secret command's word when it refuses it publicly)
    help_text = ("Commands: bid 3 | pass | buy 4 (or buy 4 a1 r3) | invest mining, finance | offer seat 1: mining "
                 "+ 2 money for 2 labor | accept 3 | decline 3 | build mining | discard culture | convert 9 money "
                 "to 3 victory (or convert victory: all your money) | done | nation japan. Names may be shortened "
                 "(min, a2, r2, $).")

    # -- text out --------------------------------------------------------------------------------
    def render_view(self, view: Mapping[str, Any]) -> list[str]:
        lines = view_lines(view)
        return [*lines[:1], TOKEN_LEGEND, *lines[1:]]

    def render_event(self, envelope: EventEnvelope) -> str | None:
        b = envelope.body
        who = f"seat {b.get('seat')}"
        match envelope.type:
            case "MatchStarted":
                return f"Modern World for {b.get('seats')} players begins."
            case "LeaderChosen":
                return f"{who} holds the Leader Marker."
            case "PhaseStarted":
                order = b.get("order") or []
                if b.get("phase") in ("leader", "market") or not order:
                    return None
                return f"{str(b.get('phase')).capitalize()} phase: {', '.join(f'seat {s}' for s in order)} in turn."
            case "NationPicked":
                return f"{who} picks {b.get('nation')} and puts {b.get('card')} into play."
            case "TableauDealt":
                return f"Tableau: {', '.join(f'{i} {c}' for i, c in enumerate(b.get('cards') or [], 1))}."
            case "TurnStarted":
                return f"Turn {b.get('turn')} begins; everyone produces."
            case "EventFlipped":
                return f"Event: {b.get('card')}: {event_effect(str(b.get('card')))}."
            case "RandomPlayerChosen":
                return f"The event hits {who}."
            case "TieBroken":
                return f"Tie on {b.get('capacity')} broken with dice: {who}."
            case "TokensChanged":
                delta = b.get("delta") or 0
                roll = f" (rolled {b['roll']})" if b.get("roll") is not None else ""
                return f"{who} {'gains' if delta >= 0 else 'loses'} {abs(delta)} {b.get('token')}{roll}."
            case "PermanentEventTaken":
                return f"{who} takes {b.get('card')} for good."
            case "SkipOrdered":
                if b.get("seat") is None:
                    return f"Everyone skips the {b.get('phase')} phase this turn."
                return f"{who} skips the {b.get('phase')} phase this turn."
            case "MarketsAdded":
                return f"{b.get('count')} extra market cards this turn."
            case "PhaseSkipped":
                return None if b.get("seat") is not None else f"The {b.get('phase')} phase is skipped."
            case "MarketCardsDrawn":
                return f"Markets drawn: {', '.join(market_text(m) for m in b.get('cards') or [])}."
            case "MarketDeckReshuffled":
                return f"The market discard is shuffled into a new deck of {b.get('count')}."
            case "AuctionStarted":
                return f"Auction of {market_text(b.get('card'))}; seat {b.get('first')} bids first."
            case "BidPlaced":
                return f"{who} bids {b.get('amount')}."
            case "BidPassed":
                return f"{who} passes."
            case "AuctionWon":
                if b.get("card") is None:
                    return f"{who} takes the Leader Marker for {b.get('bid')} influence."
                return f"{who} wins {b.get('card')} for {b.get('bid')} influence: {tokens_words(b.get('reward'))}."
            case "AuctionUnsold":
                if b.get("card") is None:
                    return "Nobody bid: the leader keeps the marker."
                return f"Nobody bid for {b.get('card')}; it is discarded."
            case "CardBought":
                paid = tokens_words({"action": b.get("action") or 0, "research": b.get("research") or 0})
                refill = f"; {b['refill']} fills the tableau" if b.get("refill") else ""
                return f"{who} buys {b.get('card')} (price {b.get('position')}, paid {paid}){refill}."
            case "PlayerDone":
                lapsed = b.get("lapsed") or []
                gone = f"; trade {', '.join(f'#{t}' for t in lapsed)} lapse{'s' if len(lapsed) == 1 else ''}" \
                    if lapsed else ""
                return f"{who} is done{' trading' if b.get('phase') == 'trade' else ''}{gone}."
            case "CardsInvested":
                return f"{who} invests {cards_text(b.get('cards'))} for {tokens_words(b.get('gains'))}."
            case "TradeProposed":
                head = f"seat {b.get('proposer')} offers seat {b.get('partner')} trade #{b.get('id')}"
                if b.get("give") is None:
                    return f"{head}."
                return f"{head}: {_trade_side(b, 'give')} for {_trade_side(b, 'get')}."
            case "TradeAccepted":
                return (f"seat {b.get('partner')} accepts trade #{b.get('id')} from seat {b.get('proposer')}: "
                        f"{_trade_side(b, 'give')} for {_trade_side(b, 'get')}.")
            case "TradeDeclined":
                return f"{who} declines trade #{b.get('id')}."
            case "TradeRefused":
                return f"Trade #{b.get('id')} fails: {b.get('reason')}."
            case "CardBuilt":
                return f"{who} builds {b.get('card')} for {b.get('materials')} materials + {b.get('labor')} labor."
            case "CardsDiscarded":
                return f"{who} discards {cards_text(b.get('cards'))}."
            case "MoneyConverted":
                count = b.get("count") or 0
                return f"{who} turns {count * MONEY_PER_TOKEN} money into {count} {b.get('into')}."
            case "GameEnded":
                return f"Game over ({b.get('reason')}). {outcome_text(b)}"
            case "DecksShuffled" | "EventDiscarded" | "TokensProduced":
                return None
        return super().render_event(envelope)

    def format_command(self, command: Mapping[str, Any]) -> str:
        body: Mapping[str, Any] = command.get("body") or {}
        keys = set(body)
        match command.get("type"):
            case "bid" if keys == {"amount"} and _is_int(body["amount"]):
                return f"bid {body['amount']}"
            case ("pass" | "done") as verb if not keys:
                return str(verb)
            case "buy" if keys <= {"position", "action", "research"} and "position" in keys and all(
                    _is_int(v) and v >= 0 for v in body.values()) and body["position"]:
                paid = " ".join(f"{body[t]} {t}" for t in ("action", "research") if body.get(t))
                return f"buy {body['position']}{' with ' + paid if paid else ''}"
            case ("invest" | "discard") as verb if keys == {"cards"} and _is_cards(body["cards"]):
                return f"{verb} {cards_text(body['cards'])}"
            case "build" if keys == {"card"} and body["card"] in RESOURCE_NAMES:
                return f"build {body['card']}"
            case ("accept_trade" | "decline_trade") as verb if keys == {"id"} and _is_int(body["id"]):
                return f"{verb.split('_')[0]} {body['id']}"
            case "convert" if keys in ({"into", "count"}, {"into"}) and body["into"] in CONVERTIBLE \
                    and _is_int(body.get("count", 1)) and body.get("count", 1) > 0:
                count = body.get("count", 1)
                return f"convert {count * MONEY_PER_TOKEN} money to {count} {body['into']}"
            case "pick_nation" if keys == {"nation"} and body["nation"] in NATION_NAMES:
                return f"nation {body['nation']}"
            case "propose_trade" if _is_offer(body):
                give = side_words(body.get("give_cards") or [], body.get("give_tokens") or {})
                get = side_words(body.get("get_cards") or [], body.get("get_tokens") or {})
                return f"offer seat {body['to']}: {give} for {get}"
        return super().format_command(command)

    def describe_legal(self, legal: Sequence[Mapping[str, Any]]) -> str:
        """A few commands that can be sent as they are (each parses back), then the open choices in words."""
        if not legal:
            return "You have nothing to do right now."
        menu = Menu(legal)
        parts: list[str] = []
        notes: list[str] = []
        for type_ in dict.fromkeys(c.type for c in menu.choices):
            if type_ == "bid":
                low, high = menu.bid_range()
                parts.append(f"bid {low}" if low == high else f"bid {low}..{high}")
            elif type_ == "buy":
                positions = sorted({b["position"] for b in menu.buys()})
                parts += [f"buy {p}" for p in positions]
                top = positions[-1]
                notes.append(f"pay as you like: buy {top} with 1 action {top - 1} research" if top > 1
                             else "buy 1 with 1 research")
            elif type_ == "invest":
                hand = menu.hand("invest")
                singles = list(dict.fromkeys(hand))
                parts += [f"invest {card}" for card in singles[:LISTED]]
                parts += ["invest all"] if len(hand) > 1 else []
                notes.append("any cards from your hand")
            elif type_ == "discard":
                hand, excess = menu.hand("discard"), menu.discard_count()
                examples = [c for c in (hand[:excess], hand[-excess:]) if menu.covers("discard", {"cards": c})]
                parts += [f"discard {cards_text(c)}" for c in dict.fromkeys(map(tuple, examples))]
                notes.append(f"any {excess} card{'' if excess == 1 else 's'} from your hand")
            elif type_ == "build":
                cards = [c.body["card"] for c in menu.of("build")]
                parts += [f"build {card}" for card in cards[:LISTED]]
                if len(cards) > LISTED:
                    notes.append(f"build {', '.join(cards[LISTED:])}")
            elif type_ in ("accept_trade", "decline_trade"):
                verb, ids = type_.split("_")[0], [str(i) for i in menu.ids(type_)]
                parts.append(f"{verb} {ids[0]}")
                if len(ids) > 1:
                    notes.append(f"{verb} {', '.join(ids[1:])}")
            elif type_ == "propose_trade":
                parts += [self.format_command(c) for c in menu.example_offers()[:OFFERS_LISTED]]
                partners = menu.partners()
                notes.append(f"offer to seat {', '.join(map(str, partners))}: your cards and tokens for cards and "
                             f"tokens, e.g. {EXAMPLE_OFFER.replace('seat 1', f'seat {partners[0]}')}")
            elif type_ == "convert":
                most = menu.convert_most()
                parts.append(f"convert {most * MONEY_PER_TOKEN} money to {most} victory")
                notes.append(f"convert into any token, up to {most}: convert 3 money to 1 influence")
            elif type_ == "pick_nation":
                parts += [f"nation {n}" for n in menu.nations()]
            else:  # pass, done
                parts.append(type_)
        text = f"Legal now: {' | '.join(parts)}"
        return f"{text} (or any other: {'; '.join(notes)})" if notes else text

    # -- text in ---------------------------------------------------------------------------------
    def read(self, tokens: list[str], legal: Sequence[Mapping[str, Any]], help_: str) -> CommandDict | ChatError:
        menu = Menu(legal)
        types = menu.types
        first, rest = tokens[0], tokens[1:]
        verb = VERBS.get(first)
        if verb is None and first.isdigit() and "bid" in types and not rest:
            verb, rest = "bid", tokens
        elif verb is None and "pick_nation" in types and not rest and not isinstance(nation_of(first), Problem):
            verb, rest = "pick_nation", tokens
        if verb is None:
            return ChatError(f"Unknown command '{first}'. {help_}")
        if verb in ("pass", "done") and verb not in types:
            verb = "done" if verb == "pass" else "pass"
        if verb not in types:
            return ChatError(f"You cannot {first} now. {help_}")
        result: CommandDict | str
        match verb:
            case "bid":
                result = self._bid(rest, menu)
            case "pass" | "done":
                result = {"type": verb, "body": {}} if not rest else f"'{first}' takes nothing more"
            case "buy":
                result = self._buy(rest, menu)
            case "invest" | "discard" | "build":
                result = self._cards(verb, rest, menu)
            case "propose_trade":
                result = self._offer(rest, menu)
            case "accept_trade" | "decline_trade":
                result = self._trade_id(verb, rest, menu)
            case "convert":
                result = self._convert(rest, menu)
            case _:
                result = self._nation(rest, menu)
        if isinstance(result, str):
            return ChatError(f"{result}. {help_}")
        if result["type"] not in CHECKED_BY_CHAT and not menu.covers(result["type"], result["body"]):
            return ChatError(f"You cannot {self.format_command(result)} now. {help_}")  # pragma: no cover - guard
        return result

    def _bid(self, rest: Sequence[str], menu: Menu) -> CommandDict | str:
        low, high = menu.bid_range()
        rest = [t for t in rest if t not in FILLER and t != "amount"]
        if len(rest) != 1 or not rest[0].isdigit():
            return f"Bid a whole number of influence, like 'bid {low}'"
        amount = count_of(rest[0])
        if amount is None or not low <= amount <= high:
            return f"You can bid {low} to {high}" if low < high else f"You can bid {low}"
        return {"type": "bid", "body": {"amount": amount}}

    def _buy(self, rest: Sequence[str], menu: Menu) -> CommandDict | str:
        buys = menu.buys()
        positions = sorted({b["position"] for b in buys})
        rest = [t for t in rest if t not in ("at", "position", "price", "for", "#")]
        if not rest or not rest[0].isdigit():
            return f"Say the price of the card (its place on the tableau), like 'buy {positions[0]}'"
        position = count_of(rest[0]) or 0
        if position not in positions:
            return f"You can buy at price {', '.join(map(str, positions))}"
        most = {t: max(b[t] for b in buys) for t in ("action", "research")}
        if len(rest) == 1:
            best = max((b for b in buys if b["position"] == position), key=lambda b: b["action"])
            return {"type": "buy", "body": dict(best)}
        items = read_items(rest[1:], token_of, FILLER)
        if isinstance(items, Problem):
            return str(items)
        paid = {"action": 0, "research": 0}
        for name, count, _ in items:
            if name not in paid:
                return "Pay with action and research tokens only, like 'buy 4 a2 r2'"
            paid[name] += count
        named = {name for name, _, _ in items}
        if len(named) == 1:  # the rest in the other kind
            other = "research" if "action" in named else "action"
            paid[other] = max(0, position - paid[next(iter(named))])
        if paid["action"] + paid["research"] != position:
            return f"The card at price {position} costs {position}; you offered {paid['action'] + paid['research']}"
        if paid["action"] > most["action"] or paid["research"] > most["research"]:
            return f"You can pay at most {most['action']} action and {most['research']} research"
        return {"type": "buy", "body": {"position": position, **paid}}

    def _cards(self, verb: str, rest: Sequence[str], menu: Menu) -> CommandDict | str:
        items = read_items(rest, _card_or_all if verb == "invest" else card_of, FILLER)
        if isinstance(items, Problem):
            return str(items)
        cards = in_table_order([name for name, count, _ in items for _ in range(count)])
        if verb == "build":
            buildable = [c.body["card"] for c in menu.of("build")]
            if len(cards) != 1:
                return "Name one card to build, like 'build Mining'" if not cards else "Build one card at a time"
            if cards[0] not in buildable:
                return f"You cannot build {cards[0]} now; you can build {', '.join(buildable)}"
            return {"type": "build", "body": {"card": cards[0]}}
        hand = menu.hand(verb)
        if verb == "invest" and [name for name, _, _ in items] == ["all"]:
            return {"type": "invest", "body": {"cards": hand}}
        if not cards:
            return f"Name the cards, like '{verb} {hand[0]}'"
        short = [c for c in dict.fromkeys(cards) if cards.count(c) > hand.count(c)]
        if short:
            return f"Your hand is {cards_text(hand)}: no more {', '.join(short)} to {verb}"
        if verb == "discard" and len(cards) != menu.discard_count():
            excess = menu.discard_count()
            return f"You hold {excess + HAND_LIMIT} cards: discard exactly {excess}"
        return {"type": verb, "body": {"cards": cards}}

    def _offer(self, rest: Sequence[str], menu: Menu) -> CommandDict | str:
        """An offer is checked for what chat can see (the partner, your own cards); the game judges the rest
        (``legal`` describes one kind of token a side; the game takes any)."""
        example = f"for example '{EXAMPLE_OFFER}'"
        rest = [t for t in rest if t not in (":", "#")]
        if rest[:1] == ["to"]:
            rest = rest[1:]
        while rest[:1] in (["seat"], ["s"]):
            rest = rest[1:]
        if not rest or not rest[0].isdigit():
            return f"Say who to offer to, {example}"
        to = count_of(rest[0])
        if "for" not in rest:
            return f"Say what you give 'for' what you want, {example}"
        partners = menu.partners()
        if to not in partners:
            return f"You can offer to seat {', '.join(map(str, partners))}" if partners else "Nobody can trade with you"
        cut = rest.index("for")
        sides: list[tuple[list[str], dict[str, int]]] = []
        for part in (rest[1:cut], rest[cut + 1:]):
            if part in (["nothing"], ["none"], []):
                sides.append(([], {}))
                continue
            items = read_items(part, token_or_card, FILLER)
            if isinstance(items, Problem):
                return f"{items}; {example}"
            sides.append(_side(items))
        (give_cards, give_tokens), (get_cards, get_tokens) = sides
        if not (give_cards or give_tokens or get_cards or get_tokens):
            return "A trade must move at least one card or token"
        if len(give_cards) > MAX_TRADE_CARDS or len(get_cards) > MAX_TRADE_CARDS:
            return f"At most {MAX_TRADE_CARDS} cards a side"
        hand = menu.hand("propose_trade")
        short = [c for c in dict.fromkeys(give_cards) if give_cards.count(c) > hand.count(c)]
        if short:
            return f"Your hand is {cards_text(hand)}: no {', '.join(short)} to give" if hand else "You hold no cards"
        body: dict[str, Any] = {"to": to}
        for key, value in (("give_cards", give_cards), ("give_tokens", give_tokens), ("get_cards", get_cards),
                           ("get_tokens", get_tokens)):
            if value:
                body[key] = value
        return {"type": "propose_trade", "body": body}

    def _trade_id(self, verb: str, rest: Sequence[str], menu: Menu) -> CommandDict | str:
        ids = menu.ids(verb)
        said = verb.split("_")[0]
        rest = [t for t in rest if t not in FILLER and t not in ("trade", "offer", "#")]
        if not rest and len(ids) == 1:
            return {"type": verb, "body": {"id": ids[0]}}
        if len(rest) != 1 or not rest[0].isdigit():
            return f"Say which trade, like '{said} {ids[0]}'"
        tid = count_of(rest[0])
        if tid not in ids:
            if verb == "accept_trade" and tid in menu.ids("decline_trade"):
                return f"You cannot pay for trade #{tid}: convert money, or decline it"
            return f"You can {said} trade {', '.join(f'#{i}' for i in ids)}"
        return {"type": verb, "body": {"id": tid}}

    def _convert(self, rest: Sequence[str], menu: Menu) -> CommandDict | str:
        most = menu.convert_most()
        example = f"like 'convert {MONEY_PER_TOKEN} money to 1 victory'"
        items = read_items([t for t in rest if t not in ("to", "into", "for")], token_of, FILLER)
        if isinstance(items, Problem):
            return f"{items}; {example}"
        money = [count for name, count, written in items if name == "money" and written]
        targets = [(name, count, written) for name, count, written in items if name != "money"]
        if len(targets) != 1:
            return f"Say which token to convert your money into, {example}"
        into, count, written = targets[0]
        if money and money[0] % MONEY_PER_TOKEN:
            return f"{MONEY_PER_TOKEN} money make 1 token; {money[0]} is not a multiple of {MONEY_PER_TOKEN}"
        if money and written and money[0] != count * MONEY_PER_TOKEN:
            return f"{count} {into} cost {count * MONEY_PER_TOKEN} money, not {money[0]}"
        if not written:
            count = money[0] // MONEY_PER_TOKEN if money else most
        if not 1 <= count <= most:
            return f"Your money makes at most {most} token{'' if most == 1 else 's'}"
        return {"type": "convert", "body": {"into": into, "count": count}}

    def _nation(self, rest: Sequence[str], menu: Menu) -> CommandDict | str:
        left = menu.nations()
        rest = [t for t in rest if t not in FILLER]
        nation = nation_of(rest[0]) if len(rest) == 1 else Problem("Name one nation")
        if isinstance(nation, Problem) or nation not in left:
            return f"{nation if isinstance(nation, Problem) else nation + ' is taken'}; left: {', '.join(left)}"
        return {"type": "pick_nation", "body": {"nation": nation}}


class Menu:
    """What chat reads off a seat's ``legal`` choices (their wire form, :mod:`schemas.legal`): the ranges,
    the hand the card choices draw on, the ids, the partners; and whether a command is one of them."""

    def __init__(self, legal: Sequence[Mapping[str, Any]]) -> None:
        self.choices = choices_from_wire(legal)
        self.types = {c.type for c in self.choices}

    def of(self, type_: str) -> list[Choice]:
        return [c for c in self.choices if c.type == type_]

    def covers(self, type_: str, body: Mapping[str, Any]) -> bool:
        return covered(self.choices, type_, body)

    def bid_range(self) -> tuple[int, int]:
        spec = self.of("bid")[0].free["amount"]
        assert isinstance(spec, IntRange)
        return spec.min, spec.max

    def buys(self) -> list[dict[str, Any]]:
        """The purchases written out in full (position, action, research)."""
        return [dict(c.body) for c in self.of("buy") if len(c.body) == 3]

    def hand(self, type_: str) -> list[str]:
        """The most cards one ``type_`` choice names (the hand, in table order)."""
        merged: dict[str, int] = {}
        for c in self.of(type_):
            spec = c.free.get("give_cards" if type_ == "propose_trade" else "cards")
            if isinstance(spec, Multiset):
                for card, n in spec.max.items():
                    merged[card] = max(merged.get(card, 0), n)
        return in_table_order([card for card, n in merged.items() for _ in range(n)])

    def discard_count(self) -> int:
        for c in self.of("discard"):
            spec = c.free["cards"]
            if isinstance(spec, Multiset):
                return spec.min_total
        return 0

    def ids(self, type_: str) -> list[int]:
        return [c.body["id"] for c in self.of(type_)]

    def convert_most(self) -> int:
        for c in self.of("convert"):
            spec = c.free.get("count")
            if isinstance(spec, IntRange):
                return spec.max
        return 1

    def nations(self) -> list[str]:
        return [c.body["nation"] for c in self.of("pick_nation")]

    def partners(self) -> list[int]:
        for c in self.of("propose_trade"):
            spec = c.free.get("to")
            if isinstance(spec, OneOf):
                return list(spec.values)
        return []

    def example_offers(self) -> list[dict[str, Any]]:
        """Offers to show: your first card for a token of your partner's, then a token for a card."""
        out = []
        for keys in (("give_cards", "get_tokens"), ("give_tokens", "get_cards"), ("give_cards", "get_cards")):
            for c in self.of("propose_trade"):
                if set(c.free) == {"to", *keys}:
                    body = {**c.body, **{name: _first(spec) for name, spec in c.free.items()}}
                    out.append({"type": "propose_trade", "body": body})
                    break
        return out


def _first(spec: Any) -> Any:
    """The first value of a free field (``Choice.bodies`` would expand every field in full first)."""
    if isinstance(spec, Multiset):
        return [card for card, n in spec.max.items() for _ in range(n)][: max(spec.min_total, 1)]
    if isinstance(spec, Counts):
        return {next(k for k, n in spec.max.items() if n > 0): max(spec.min_total, 1)}
    if isinstance(spec, OneOf):
        return spec.values[0]
    if isinstance(spec, IntRange):
        return spec.min
    raise ValueError(f"no first value of {spec!r}")


def in_table_order(cards: Sequence[str]) -> list[str]:
    """Cards sorted as hands are shown (and as ``legal`` lists them)."""
    return sorted(cards, key=lambda c: RESOURCE_INDEX.get(c, len(RESOURCE_INDEX)))


def _side(items: Sequence[Item]) -> tuple[list[str], dict[str, int]]:
    cards: list[str] = []
    tokens: dict[str, int] = {}
    for name, count, _ in items:
        if name in TOKENS:
            tokens[name] = tokens.get(name, 0) + count
        else:
            cards += [name] * count
    return in_table_order(cards), tokens


def _is_offer(body: Mapping[str, Any]) -> bool:
    if not _is_int(body.get("to")) or not set(body) <= {"to", "give_cards", "give_tokens", "get_cards", "get_tokens"}:
        return False
    cards_ok = all(_is_cards(body[k]) for k in ("give_cards", "get_cards") if k in body)
    tokens_ok = all(_is_tokens(body[k]) and body[k] for k in ("give_tokens", "get_tokens") if k in body)
    return cards_ok and tokens_ok and len(body) > 1


__all__ = ["Menu", "ModernWorldAdapter", "card_of", "nation_of", "token_of", "tokens_short"]

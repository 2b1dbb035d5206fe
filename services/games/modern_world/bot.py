"""Modern World for bots: a heuristic player, an observation encoder, and the game's plug-in.

The heuristic prices everything in victory points (VP), the only thing that counts at the end:

- **Token values**: victory 1, money 1/3 (three money convert into one victory); action and research
  buy cards, worth about a card each while the match goes on (and nothing once the last resource
  phase is over); materials and labor only build, worth something while enough turns remain for a
  build to pay; influence only bids, cheap until the last auctions. The match ends at the start of a
  turn when the resource or event deck is empty: the heuristic estimates the turns left from the
  event deck and from how fast the resource deck has been going down.
- **Cards**: a card is worth the better of investing it (3 times its production, at today's values)
  and building it (its production over the turns left, when materials and labor allow a build).
- **Auctions**: the leader marker (buying first) and each market card are worth their reward; bid the
  least raise while it stays under that worth at the going rate for influence (everything, in the last
  turn), else pass.
- **Resource phase**: buy the card whose worth most exceeds its price (the cheap end first; a dearer
  card only when clearly better); three money become an action when that buys a good card.
- **Investment**: invest every card it will not build this turn (keeping the ones materials and labor
  pay for, when enough turns are left for them to pay back).
- **Trade**: accept an offer that gains value, never propose; then done.
- **Build**: build the most productive affordable card, converting money when a small shortfall
  stands in the way.
- **End**: discard the cards worth least. In the last turn every 3 money become a victory token.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from services.bots.base import CommandDict, ValueBot
from services.bots.plugins import GamePlugin
from services.games.base import Command, Outcome
from services.games.modern_world.data import (
    ACTION,
    BUILD_COST,
    BUILD_COST_DUPLICATE,
    EVENT_INDEX,
    HAND_LIMIT,
    INFLUENCE,
    INVEST_FACTOR,
    LABOR,
    MARKET_INDEX,
    MARKETS,
    MATERIALS,
    MONEY,
    MONEY_PER_TOKEN,
    NATIONS,
    RESEARCH,
    RESOURCE_COPIES,
    RESOURCE_INDEX,
    RESOURCE_NAMES,
    RESOURCES,
    TABLEAU_SIZE,
    TOKEN_INDEX,
    TOKENS,
    VICTORY,
)
from services.games.modern_world.resample import resample
from services.games.modern_world.schemas import PHASES as WIRE_PHASES
from services.games.modern_world.state import Phase, State

View = Mapping[str, Any]
GAME_NAME = "modern-world"
N_TOKENS = len(TOKENS)
DECK_SIZE = len(RESOURCES) * RESOURCE_COPIES

CARD_VALUE = 1.0  # VP an action/research token is worth while cards remain to buy (about one card)
BUILD_TOKEN = 0.12  # VP per materials/labor token per turn left (they only build)
INFLUENCE_VALUE = 0.25  # VP an influence token is worth while auctions remain
LEADER_BASE = 0.5  # VP for holding the leader marker, plus a share of what we can buy first
DEARER_MARGIN = 0.5  # a card dearer than position 1 must beat the cheap one by this much per extra token
TRADE_MARGIN = 0.5  # an offer must gain at least this much to be accepted


def _tokens(counts: Mapping[str, int]) -> list[int]:
    out = [0] * N_TOKENS
    for name, n in counts.items():
        out[TOKEN_INDEX[name]] = n
    return out


def production(card: int) -> tuple[int, ...]:
    return RESOURCES[card].production


class Table:
    """What the heuristic reads off a view: its tokens, hand, the turns left and what things are worth."""

    def __init__(self, view: View) -> None:
        self.view = view
        self.me: int = view["seat"]
        players = view["players"]
        self.n = len(players)
        mine = players[self.me]
        self.tokens = _tokens(mine["tokens"])
        self.capacity = _tokens(mine["capacity"])
        self.hand = sorted(RESOURCE_INDEX[c] for c in mine["hand"] or [])
        self.in_play = [RESOURCE_INDEX[c] for c in mine["in_play"]]
        self.phase: str = view["phase"]
        self.deck: int = view["resource_deck_count"]
        self.events: int = view["event_deck_count"]
        self.tableau = [RESOURCE_INDEX[slot["card"]] for slot in view["tableau"]]
        self.last_turn = self.deck == 0 or self.events == 0
        self.future = self._future_turns(view)
        self.value = self._token_values()
        self.future_value = self._future_token_values()

    def _future_turns(self, view: View) -> int:
        """Production steps still to come (0 in the last turn)."""
        if self.last_turn:
            return 0
        nations = sum(1 for p in view["players"] if p["nation"])
        taken = DECK_SIZE - TABLEAU_SIZE - nations - self.deck
        turn = max(int(view["turn"]), 1)
        rate = max(2.0 * self.n, taken / turn)
        return max(1, min(self.events, int(self.deck / rate) + 1))

    def _token_values(self) -> list[float]:
        value = [0.0] * N_TOKENS
        value[VICTORY] = 1.0
        value[MONEY] = 1 / MONEY_PER_TOKEN
        buying_left = not self.last_turn or self.phase in (Phase.LEADER, Phase.MARKET, Phase.RESOURCE)
        value[ACTION] = value[RESEARCH] = CARD_VALUE if buying_left else 0.0
        value[MATERIALS] = value[LABOR] = min(0.5, BUILD_TOKEN * max(self.future - 1, 0))
        bidding_left = not self.last_turn or self.phase in (Phase.LEADER, Phase.MARKET)
        value[INFLUENCE] = INFLUENCE_VALUE if not self.last_turn else (0.05 if bidding_left else 0.0)
        return value

    def _future_token_values(self) -> list[float]:
        """What a token produced at a later turn start is worth."""
        value = list(self.value)
        value[ACTION] = value[RESEARCH] = CARD_VALUE if self.future > 1 else 0.6
        value[INFLUENCE] = INFLUENCE_VALUE
        return value

    # -- cards

    def invest_value(self, card: int) -> float:
        return INVEST_FACTOR * sum(n * w for n, w in zip(production(card), self.value, strict=True))

    def build_value(self, card: int) -> float:
        """What the card produces over the turns left, once in play."""
        return self.future * sum(n * w for n, w in zip(production(card), self.future_value, strict=True))

    def build_cost(self, card: int, builds: int) -> int:
        in_play = card in self.in_play
        return (BUILD_COST_DUPLICATE if in_play else BUILD_COST) + builds

    def can_build(self, card: int, builds: int, tokens: Sequence[int] | None = None) -> bool:
        t = tokens if tokens is not None else self.tokens
        cost = self.build_cost(card, builds)
        return t[MATERIALS] >= cost and t[LABOR] >= cost

    def card_value(self, card: int) -> float:
        """What a card in hand is worth: invested, or built if it is worth more and affordable soon."""
        invest = self.invest_value(card)
        if self.future >= 2:
            reach = [self.tokens[MATERIALS] + self.capacity[MATERIALS], self.tokens[LABOR] + self.capacity[LABOR]]
            if min(reach) >= self.build_cost(card, 0):
                return max(invest, self.build_value(card) - 0.3 * self.build_cost(card, 0))
        return invest

    def keep_for_building(self) -> list[int]:
        """The cards of the hand that materials and labor will build this turn, when that beats investing."""
        if self.future < 2:
            return []
        tokens = list(self.tokens)
        kept: list[int] = []
        candidates = sorted(self.hand, key=lambda c: -self.build_value(c))
        for card in candidates:
            builds = len(kept)
            if self.build_value(card) <= self.invest_value(card) or not self.can_build(card, builds, tokens):
                continue
            cost = self.build_cost(card, builds)
            tokens[MATERIALS] -= cost
            tokens[LABOR] -= cost
            kept.append(card)
        return kept

    def bundle(self, cards: Sequence[int], tokens: Sequence[int]) -> float:
        return sum(self.card_value(c) for c in cards) + sum(n * w for n, w in zip(tokens, self.value, strict=True))


def _cmd(type_: str, **body: Any) -> CommandDict:
    return {"type": type_, "body": body}


class Heuristic(ValueBot):
    """Modern World played by rules of thumb (see the module docstring). Sees only its own view."""

    def choose(self, view: View, legal: Sequence[CommandDict]) -> CommandDict:
        table = Table(view)
        best = self.plan(table, legal)
        if best is not None:
            return best
        return legal[self.best(self.values(view, legal, table))]

    # -- the command the heuristic wants (may be one the sampled legal list leaves out)

    def plan(self, t: Table, legal: Sequence[CommandDict]) -> CommandDict | None:
        kinds = {c["type"] for c in legal}
        money = t.tokens[MONEY]
        spending = t.phase in (Phase.LEADER, Phase.MARKET, Phase.RESOURCE)
        if t.last_turn and money >= MONEY_PER_TOKEN and not spending and "convert" in kinds:
            return _cmd("convert", into="victory", count=money // MONEY_PER_TOKEN)
        if t.phase == Phase.RESOURCE:
            return self._resource(t)
        if t.phase == Phase.INVESTMENT:
            return self._investment(t)
        if t.phase == Phase.TRADE:
            return self._trade(t, legal)
        if t.phase == Phase.BUILD:
            return self._build(t)
        if t.phase == Phase.END:
            excess = len(t.hand) - HAND_LIMIT
            worst = sorted(t.hand, key=lambda c: (t.card_value(c), c))[:excess]
            return _cmd("discard", cards=[RESOURCE_NAMES[c] for c in sorted(worst)])  # in hand order, as legal lists
        return None  # auctions and nations: chosen from the list by value

    def _resource(self, t: Table) -> CommandDict:
        act, res = t.tokens[ACTION], t.tokens[RESEARCH]
        budget = act + res
        best, best_score = None, 0.0
        cheapest = t.card_value(t.tableau[0]) if t.tableau else 0.0
        for p, card in enumerate(t.tableau[:budget], start=1):
            value = t.card_value(card)
            score = value - p * t.value[ACTION]
            if p > 1 and value - cheapest < DEARER_MARGIN * (p - 1) * max(cheapest, 1.0):
                continue
            if score > best_score:
                best, best_score = p, score
        if best is not None:
            a = min(act, best) if act >= res else max(0, best - res)
            return _cmd("buy", position=best, action=a, research=best - a)
        money = t.tokens[MONEY]
        worth_a_token = max(t.value[VICTORY], t.value[MONEY] * MONEY_PER_TOKEN)
        if t.tableau and budget == 0 and money >= MONEY_PER_TOKEN and cheapest - CARD_VALUE > worth_a_token:
            return _cmd("convert", into="action", count=1)
        return _cmd("done")

    def _investment(self, t: Table) -> CommandDict:
        kept = Counter(t.keep_for_building())
        invest = []
        for card in t.hand:
            if kept[card]:
                kept[card] -= 1
            elif t.invest_value(card) > 0:
                invest.append(card)
        if invest:
            return _cmd("invest", cards=[RESOURCE_NAMES[c] for c in invest])
        return _cmd("done")

    def _trade(self, t: Table, legal: Sequence[CommandDict]) -> CommandDict:
        offers = {c["body"]["id"] for c in legal if c["type"] == "accept_trade"}
        for trade in t.view["trades"]:
            if trade["id"] in offers and trade.get("give") is not None:
                got = t.bundle([RESOURCE_INDEX[c] for c in trade["give"]["cards"]], _tokens(trade["give"]["tokens"]))
                paid = t.bundle([RESOURCE_INDEX[c] for c in trade["get"]["cards"]], _tokens(trade["get"]["tokens"]))
                if got - paid >= TRADE_MARGIN:
                    return _cmd("accept_trade", id=trade["id"])
        return _cmd("done")

    def _build(self, t: Table) -> CommandDict:
        if t.future < 1:
            return _cmd("done")
        builds = t.view["builds_this_phase"]
        money = t.tokens[MONEY]
        for card in sorted(set(t.hand), key=lambda c: -t.build_value(c)):
            value = t.build_value(card)
            if value <= 0:
                break
            if t.can_build(card, builds):
                return _cmd("build", card=RESOURCE_NAMES[card])
            cost = t.build_cost(card, builds)
            short_m, short_l = max(0, cost - t.tokens[MATERIALS]), max(0, cost - t.tokens[LABOR])
            if (short_m + short_l) * MONEY_PER_TOKEN <= money and value > (short_m + short_l):
                into = "materials" if short_m else "labor"
                return _cmd("convert", into=into, count=short_m or short_l)
        return _cmd("done")

    # -- how good each legal command looks (for choosing in auctions, and for ISMCTS' root)

    def values(self, view: View, legal: Sequence[CommandDict], table: Table | None = None) -> list[float]:
        t = table or Table(view)
        wanted = self.plan(t, legal)
        out = []
        for command in legal:
            value = self._value(t, command)
            if wanted is not None and command["type"] == wanted["type"] and command["body"] == wanted["body"]:
                value += 100.0
            out.append(value)
        return out

    def item_value(self, t: Table) -> float:
        a = t.view["auction"]
        if a is None:
            return 0.0
        if a["item"] == "leader":
            buying = t.tokens[ACTION] + t.tokens[RESEARCH]
            return LEADER_BASE + 0.25 * min(buying, TABLEAU_SIZE) if not t.last_turn or buying else 0.2
        m = MARKETS[MARKET_INDEX[a["item"]]]
        return m.amount * t.value[m.token]

    def _value(self, t: Table, c: CommandDict) -> float:
        kind, body = c["type"], c.get("body", {})
        if kind == "bid":
            rate = max(t.value[INFLUENCE], 0.02)
            limit = min(t.tokens[INFLUENCE], int(self.item_value(t) / rate))
            amount: int = body["amount"]
            return 1.0 + 1.0 / amount if amount <= limit else -amount / 100
        if kind in ("pass", "done"):
            return 0.0
        if kind == "pick_nation":
            return t.build_value(RESOURCE_INDEX[NATIONS[body["nation"]]]) + 0.01 * len(body["nation"])
        if kind == "buy":
            position: int = body["position"]
            return t.card_value(t.tableau[position - 1]) - position * t.value[ACTION]
        if kind == "invest":
            return sum(t.invest_value(RESOURCE_INDEX[n]) - t.card_value(RESOURCE_INDEX[n]) + 0.1
                       for n in body["cards"])
        if kind == "build":
            return t.build_value(RESOURCE_INDEX[body["card"]])
        if kind == "discard":
            return -sum(t.card_value(RESOURCE_INDEX[n]) for n in body["cards"])
        if kind == "convert":
            count: int = body.get("count", 1)
            return count * (t.value[TOKEN_INDEX[body["into"]]] - MONEY_PER_TOKEN * t.value[MONEY]) - 0.05
        if kind == "accept_trade":
            return 0.5
        if kind == "decline_trade":
            return -0.05
        return -0.5  # proposals: rarely worth the bother


# -- ISMCTS playouts: a cheap policy on the full (determinized) state --


def rollout(state: State, seat: int, rng: random.Random) -> Command | None:
    """A quick playout move built straight from the state: modest bids, buy the cheapest card, invest
    the whole hand, build what is affordable, no trades, discard the first cards."""
    phase = state.phase
    p = state.players[seat]
    if phase in (Phase.LEADER, Phase.MARKET):
        a = state.auction
        if a is not None and a.high_bid + 1 <= min(p.tokens[INFLUENCE], 8) and rng.random() < 0.4:
            return Command(seat, "bid", {"amount": a.high_bid + 1})
        return Command(seat, "pass")
    if phase == Phase.RESOURCE:
        if state.tableau and p.tokens[ACTION] + p.tokens[RESEARCH] and rng.random() < 0.9:
            act = 1 if p.tokens[ACTION] else 0
            return Command(seat, "buy", {"position": 1, "action": act, "research": 1 - act})
        return Command(seat, "done")
    if phase == Phase.INVESTMENT:
        if p.hand and rng.random() < 0.8:
            return Command(seat, "invest", {"cards": [RESOURCE_NAMES[c] for c in p.hand]})
        return Command(seat, "done")
    if phase == Phase.TRADE:
        return Command(seat, "done")
    if phase == Phase.BUILD:
        for card in p.hand:
            cost = (BUILD_COST_DUPLICATE if card in p.in_play else BUILD_COST) + state.builds
            if p.tokens[MATERIALS] >= cost and p.tokens[LABOR] >= cost:
                return Command(seat, "build", {"card": RESOURCE_NAMES[card]})
        return Command(seat, "done")
    if phase == Phase.END:
        excess = len(p.hand) - HAND_LIMIT
        return Command(seat, "discard", {"cards": [RESOURCE_NAMES[c] for c in p.hand[:excess]]})
    if phase == Phase.NATIONS and state.nations_left:
        return Command(seat, "pick_nation", {"nation": rng.choice(state.nations_left)})
    return None


def playout_commands(state: State, seat: int) -> list[Command] | None:
    """The few commands the heuristic needs to see in a playout, where the full list is long and costly: in
    an auction, pass or the least raise (it never bids more); in the trade phase, done when nobody offers
    ``seat`` anything (it never proposes); in the phases it plans itself (resource, investment, build, end)
    only which kinds are there. None elsewhere: the full list."""
    phase = state.phase
    if phase in (Phase.LEADER, Phase.MARKET):
        a = state.auction
        if a is None:
            return None
        least = a.high_bid + 1
        if least <= state.players[seat].tokens[INFLUENCE]:
            return [Command(seat, "pass"), Command(seat, "bid", {"amount": least})]
        return [Command(seat, "pass")]
    if phase == Phase.TRADE and not any(t.to == seat for t in state.trades):
        return [Command(seat, "done")]
    if phase in (Phase.RESOURCE, Phase.INVESTMENT, Phase.BUILD, Phase.END):
        return [Command(seat, "done"), Command(seat, "convert", {"into": "victory", "count": 1})]
    return None


def search_when(view: View, legal: Sequence[CommandDict]) -> bool:
    """Search the decisions that shape the economy (cards bought, invested, built, kept, nations); take the
    heuristic's bid or pass in the auctions and its answer in the trade phase (hundreds of small steps)."""
    return view["phase"] not in (Phase.LEADER, Phase.MARKET, Phase.TRADE)


CORRUPTION = EVENT_INDEX["Corruption"]  # a random player loses all his money
STALL_DECK = TABLEAU_SIZE  # a resource deck smaller than this tends to stall (see _turns_left)
EVAL_SCALE = 10  # evaluate's scores are in tenths of a victory token (an Outcome's scores are whole numbers)


def _turns_left(state: State) -> int:
    """The production steps still to come, as the search's evaluation reckons them: while the resource
    deck is larger than the tableau, about as many turns as it takes the players to buy it (3 cards a seat
    a turn); once it is smaller, the tableau tends to stall (what is left is not worth its price to the
    heuristics, so nobody buys it out) and the match runs until the event deck ends."""
    events = len(state.event_deck)
    if len(state.resource_deck) < STALL_DECK:
        return events
    return min(events, len(state.resource_deck) // max(3 * state.seats, 1))


def evaluate(state: State) -> Outcome:
    """The standing of an unfinished match, in tenths of a victory token: victory, money at 3 for 1, what
    capacity will still produce in the turns the event and resource decks suggest are left, and what the
    cards in hand would bring if invested; action and research (held, or in hand as cards) buy cards while
    the deck lasts, worth about half a victory each. Money held is at risk while Corruption (a random player
    loses all his money) is still in the event deck: it counts ``1 - 1/seats`` of its worth then (victory
    tokens are safe from it)."""
    turns_left = _turns_left(state)
    buying_value = 0.5 if state.resource_deck else 0.0
    at_risk = 1.0 / state.seats if CORRUPTION in state.event_deck else 0.0
    scores = []
    for p in state.players:
        cap = p.capacity()
        money = p.tokens[MONEY] * (1 - at_risk) + turns_left * cap[MONEY]
        victory = p.tokens[VICTORY] + turns_left * cap[VICTORY]
        buying = p.tokens[ACTION] + p.tokens[RESEARCH]
        for card in p.hand:
            made = production(card)
            victory += INVEST_FACTOR * made[VICTORY]
            money += INVEST_FACTOR * made[MONEY]
            buying += INVEST_FACTOR * (made[ACTION] + made[RESEARCH])
        value = victory + money / MONEY_PER_TOKEN + buying_value * buying
        scores.append(round(EVAL_SCALE * value))
    best = max(scores)
    return Outcome(scores=tuple(scores), winners=tuple(i for i, s in enumerate(scores) if s == best))


def search_rank(view: View, legal: Sequence[CommandDict]) -> list[float]:
    """The search's ranking of its candidates: the heuristic's, with converting all money into victory
    next after the heuristic's own choice (the heuristic hoards money until the last turn, where
    Corruption can take it all; the search's playouts and evaluation judge whether converting pays)."""
    values = Heuristic().values(view, legal)
    money = _tokens(view["players"][view["seat"]]["tokens"])[MONEY]
    most = money // MONEY_PER_TOKEN
    for i, c in enumerate(legal):
        body = c.get("body", {})
        if most and c["type"] == "convert" and body.get("into") == "victory" and body.get("count", 1) == most:
            values[i] += 50.0
    return values


# -- observations for learning agents --

PHASES = tuple(p for p in WIRE_PHASES if p != "setup")
MAX_PLAYERS = 6
N_CARDS = len(RESOURCES)
AUCTION_ITEMS = ("leader", *(m.name for m in MARKETS))
SKIPPABLE = ("market", "investment", "trade")
PLAYER_SIZE = 2 + 2 * N_TOKENS + N_CARDS + 1
OBS_SIZE = (len(PHASES) + 8 + MAX_PLAYERS * PLAYER_SIZE + N_CARDS + TABLEAU_SIZE * N_CARDS
            + len(AUCTION_ITEMS) + 3 + 3 + len(SKIPPABLE) + 2)


def encode(view: View) -> list[float]:
    """The seat's view as a fixed vector: players listed from the seat round the table."""
    me = view["seat"]
    players = view["players"]
    n = len(players)
    out = [float(view["phase"] == p) for p in PHASES]
    out += [n / MAX_PLAYERS, view["turn"] / 20, view["resource_deck_count"] / DECK_SIZE,
            view["market_deck_count"] / len(MARKETS), view["event_deck_count"] / 44,
            float(me in view["to_act"]), float(view["leader"] == me), view["builds_this_phase"] / 5]
    for k in range(MAX_PLAYERS):
        if k >= n:
            out += [0.0] * PLAYER_SIZE
            continue
        p = players[(me + k) % n]
        out += [1.0, p["hand_count"] / 10]
        out += [v / 20 for v in _tokens(p["tokens"])]
        out += [v / 10 for v in _tokens(p["capacity"])]
        in_play = Counter(p["in_play"])
        out += [in_play[name] / 2 for name in RESOURCE_NAMES]
        out.append(float(p["done_trading"]))
    hand = Counter(players[me]["hand"] or [])
    out += [hand[name] / RESOURCE_COPIES for name in RESOURCE_NAMES]
    slots = [slot["card"] for slot in view["tableau"]]
    for i in range(TABLEAU_SIZE):
        out += [float(i < len(slots) and slots[i] == name) for name in RESOURCE_NAMES]
    a = view["auction"]
    out += [float(a is not None and a["item"] == item) for item in AUCTION_ITEMS]
    out += [a["high_bid"] / 20 if a else 0.0, float(bool(a) and a["high_bidder"] == me),
            float(bool(a) and a["high_bidder"] is not None)]
    trades = view["trades"]
    out += [sum(1 for t in trades if t["partner"] == me) / 5, sum(1 for t in trades if t["proposer"] == me) / 3,
            len(trades) / 10]
    out += [float(phase in view["skipped_phases"]) for phase in SKIPPABLE]
    out += [float(me in view["skip_build"]), view["extra_markets"] / 2]
    return out


PLUGIN = GamePlugin(
    game=GAME_NAME,
    resample=resample,
    heuristic=Heuristic,
    encode=encode,
    obs_size=OBS_SIZE,
    max_actions=1200,  # legal_commands is at most 1,183 long: a trade phase lists done, up to 30 answers to
    # proposals, up to 23 kinds of proposal x 48 (a spread of each) and 48 conversions; elsewhere at most 134
    rollout=rollout,
    rank=search_rank,
    evaluate=evaluate,
    rollout_steps=60,
    search_when=search_when,
    playout_commands=playout_commands,
    guided_rollout_steps=50,
    guided_margin=0.005,  # evaluate's risk-aware standing separates small but steady gains (a conversion)
    search_iterations=12,
)

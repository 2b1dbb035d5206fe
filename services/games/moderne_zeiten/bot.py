"""Moderne Zeiten for bots: a heuristic player, an observation encoder, and the game's plug-in.

The heuristic plays as a person would explain it:

- **Auction**: a card is worth about a million, more when it would give (or secure) control of an
  industry with a valuable space ahead; bid the lowest raise up to that value, keeping some money
  (money is worth 3 points at the end).
- **Turn**: for every play on offer, work out which industries it would control and the best space it
  would then move to (the city row and industry column it strengthens, minus the spaces it skips),
  less the cards it costs and the cards a market crash would take back. Play the best one if it beats
  drawing two cards, else draw.
- **Move**: go to the most valuable space; go to Finish when it ends the game with us in the lead, stay
  otherwise.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

from services.bots.base import CommandDict, ValueBot
from services.bots.plugins import GamePlugin
from services.games.base import Command, Outcome
from services.games.moderne_zeiten.data import N_INDUSTRIES, counts_of
from services.games.moderne_zeiten.resample import resample
from services.games.moderne_zeiten.schemas import GAME_NAME, INDUSTRIES
from services.games.moderne_zeiten.scoring import score
from services.games.moderne_zeiten.state import Phase, State, choice_name

View = Mapping[str, Any]

CARD_COST = 0.45  # points a card in hand is worth, as a means to move later
DRAW_VALUE = 1.0  # points drawing two cards is worth
SKIP_COST = 0.12  # points lost per unclaimed space jumped over
CONTROL_BONUS = 0.6  # points for newly controlling an industry (future moves for one card each)
MILLION_PER_POINT = 1.6  # what a bidder pays for a point of value
RESERVE = 4  # millions kept back in auctions
FINISH_WIN = 50.0


def _award(counts: Sequence[int], value: int, tie: int = 1) -> list[int]:
    top = max(counts)
    if top <= 0:
        return [0] * len(counts)
    leaders = [i for i, c in enumerate(counts) if c == top]
    points = value if len(leaders) == 1 else tie
    return [points if c == top else 0 for c in counts]


class Table:
    """What the heuristic reads off a view, in index form."""

    def __init__(self, view: View) -> None:
        self.view = view
        self.me: int = view["seat"]
        players = view["players"]
        self.n = len(players)
        self.played = [list(counts_of(p["played"])) for p in players]
        self.money = [p["money"] for p in players]
        self.position = [p["position"] for p in players]
        self.big_left = [p["big_markers"] for p in players]
        self.hand = list(counts_of(view["hand"] or {}))
        self.cities = list(view["city_points"])
        self.city_points = [view["city_points"][c] for c in self.cities]
        self.industry_points = [view["industry_points"][name] for name in INDUSTRIES]
        city_index = {c: i for i, c in enumerate(self.cities)}
        self.track = [(city_index[s["city"]], INDUSTRIES.index(s["industry"])) for s in view["track"]]
        self.claims = [s["claimed_by"] for s in view["track"]]
        self.controller = [view["controller"][name] for name in INDUSTRIES]
        self.rows = [[0] * self.n for _ in self.cities]
        self.columns = [[0] * self.n for _ in range(N_INDUSTRIES)]
        for (city, industry), seat in zip(self.track, self.claims, strict=True):
            if seat is not None:
                self.rows[city][seat] += 1
                self.columns[industry][seat] += 1

    def next_space(self, industry: int) -> int:
        here = self.position[self.me]
        for n, (_, ind) in enumerate(self.track, start=1):
            if ind == industry and n > here and self.claims[n - 1] is None:
                return n
        return 0

    def space_value(self, space: int) -> float:
        """Points a marker on ``space`` gains (row and column), less the spaces jumped over."""
        city, industry = self.track[space - 1]
        gain = 0.0
        for counts, value in ((self.rows[city], self.city_points[city]),
                              (self.columns[industry], self.industry_points[industry])):
            before = _award(counts, value)[self.me]
            after_counts = list(counts)
            after_counts[self.me] += 1
            after = _award(after_counts, value)[self.me]
            gain += after - before + 0.15 * value  # a marker also keeps the row/column contestable
        skipped = sum(1 for n in range(self.position[self.me] + 1, space) if self.claims[n - 1] is None)
        return gain - SKIP_COST * skipped

    def controls_after(self, cards: Sequence[int]) -> list[int]:
        out = []
        for i in range(N_INDUSTRIES):
            mine = self.played[self.me][i] + cards[i]
            others = max((row[i] for p, row in enumerate(self.played) if p != self.me), default=0)
            if self.controller[i] == self.me or (cards[i] and mine > others):
                out.append(i)
        return out

    def scores(self) -> list[int]:
        """The score if the game ended now (without the ender's point)."""
        totals = _award(self.money, 3)
        for i in range(N_INDUSTRIES):
            got = _award([row[i] for row in self.played], 1, 1)
            totals = [a + b for a, b in zip(totals, got, strict=True)]
        for city, row in enumerate(self.rows):
            totals = [a + b for a, b in zip(totals, _award(row, self.city_points[city]), strict=True)]
        for industry, column in enumerate(self.columns):
            got = _award(column, self.industry_points[industry])
            totals = [a + b for a, b in zip(totals, got, strict=True)]
        return totals

    def leads_if_finishing(self) -> bool:
        scores = self.scores()
        scores[self.me] += 1
        best_other = max(s for p, s in enumerate(scores) if p != self.me)
        return scores[self.me] > best_other or (
            scores[self.me] == best_other and self.money[self.me] >= max(self.money))

    def crash_loss(self, cards: Sequence[int]) -> float:
        """Points lost (cards of ours going back) if this play sets off a market crash."""
        total = sum(cards)
        if self.view["counter"] + total <= self.view["crash_limit"]:
            return 0.0
        totals = [sum(row[i] for row in self.played) + cards[i] for i in range(N_INDUSTRIES)]
        top = max(totals)
        mine = sum(self.played[self.me][i] + cards[i] for i in range(N_INDUSTRIES) if totals[i] == top)
        theirs = sum(totals[i] for i in range(N_INDUSTRIES) if totals[i] == top) - mine
        return CARD_COST * mine - 0.5 * CARD_COST * theirs / max(self.n - 1, 1)


class Heuristic(ValueBot):
    """Moderne Zeiten played by rules of thumb (see the module docstring). Sees only its own view."""

    def values(self, view: View, legal: Sequence[CommandDict]) -> list[float]:
        """How good each legal command looks (higher is better); ISMCTS uses it to prune its root."""
        table = Table(view)
        kinds = {c["type"] for c in legal}
        if kinds & {"bid", "pass"}:
            return self._auction(table, legal)
        if "move" in kinds:
            return [self._move(table, c) for c in legal]
        return [self._turn(table, c) for c in legal]

    # -- the auction --

    def lot_value(self, table: Table) -> float:
        cards = counts_of(table.view["auction"]["cards"])
        value = 0.0
        for i in range(N_INDUSTRIES):
            if not cards[i]:
                continue
            value += cards[i] * (0.55 + 0.05 * table.industry_points[i])
            mine = table.played[table.me][i] + table.hand[i] + cards[i]
            others = max(row[i] for p, row in enumerate(table.played) if p != table.me)
            if table.controller[i] != table.me and mine > others and table.next_space(i):
                value += CONTROL_BONUS
        return value

    def _auction(self, table: Table, legal: Sequence[CommandDict]) -> list[float]:
        """The lowest raise up to what the lot is worth to us is best; passing next; dearer bids last."""
        limit = min(int(self.lot_value(table) * MILLION_PER_POINT), table.money[table.me] - RESERVE)
        out = []
        for command in legal:
            if command["type"] == "pass":
                out.append(0.0)
            else:
                amount = command["body"]["amount"]
                out.append(1.0 + 1.0 / amount if amount <= limit else -amount / 100)
        return out

    # -- the turn --

    def play_value(self, table: Table, cards: Sequence[int]) -> float:
        controls = table.controls_after(cards)
        spaces = [s for s in (table.next_space(i) for i in controls) if s] if table.big_left[table.me] else []
        if spaces:
            move = max(table.space_value(s) for s in spaces)
        elif controls and not any(table.next_space(i) for i in controls):
            move = FINISH_WIN if table.leads_if_finishing() else -0.5
        else:
            move = -0.5
        gained = sum(1 for i in controls if table.controller[i] != table.me and table.next_space(i))
        return move + CONTROL_BONUS * gained - CARD_COST * sum(cards) - table.crash_loss(cards)

    def _turn(self, table: Table, command: CommandDict) -> float:
        if command["type"] == "play":
            return self.play_value(table, counts_of(command["body"]["cards"]))
        if not table.view["stack_count"]:
            return -1.0
        return DRAW_VALUE + (0.5 if sum(table.hand) <= 2 else 0.0)

    # -- the move --

    def _move(self, table: Table, command: CommandDict) -> float:
        to = command["body"]["to"]
        if to is None:
            return 0.0
        if to == "finish":
            return FINISH_WIN if table.leads_if_finishing() else -1.0
        space = table.next_space(INDUSTRIES.index(to))
        return table.space_value(space) if space else -1.0


# -- ISMCTS playouts: a cheap policy on the full (determinized) state --


def rollout(state: State, seat: int, rng: random.Random) -> Command | None:
    """A quick playout move built straight from the state (no enumeration of every play).

    Bids stay modest (a uniformly random bidder throws his money away); a turn draws or plays the
    fewest cards that take control of a random industry in hand (one card when none can).
    """
    if state.phase == Phase.AUCTION:
        amount = state.high_bid + 1
        if amount <= state.money[seat] and amount <= 2 * len(state.lot) and rng.random() < 0.5:
            return Command(seat, "bid", {"amount": amount})
        return Command(seat, "pass")
    if state.phase == Phase.MOVING:
        return Command(seat, "move", {"to": choice_name(rng.choice(state.choices))})
    if state.phase != Phase.TURN:
        return None
    hand = state.hands[seat]
    in_hand = [i for i in range(N_INDUSTRIES) if hand[i]]
    if not in_hand or rng.random() < 0.35:
        return Command(seat, "draw")
    i = rng.choice(in_hand)
    others = max(row[i] for p, row in enumerate(state.played) if p != seat)
    needed = others + 1 - state.played[seat][i]
    count = needed if state.controller[i] != seat and 0 < needed <= hand[i] else 1
    return Command(seat, "play", {"cards": {INDUSTRIES[i]: count}})


def evaluate(state: State) -> Outcome:
    """The standing of an unfinished match: the final scoring applied as things are."""
    return score(state)


# -- observations for learning agents --

PHASES = ("auction", "turn", "moving", "over")
MOVE_TARGETS = (*INDUSTRIES, "finish", None)
MAX_PLAYERS = 5
TRACK = 30
OBS_SIZE = len(PHASES) + 5 + MAX_PLAYERS * (6 + 2 * N_INDUSTRIES) + N_INDUSTRIES * 2 + 3 + 2 * TRACK + len(
    MOVE_TARGETS)


def encode(view: View) -> list[float]:
    """The seat's view as a fixed vector: players listed from the seat round the table."""
    me = view["seat"]
    players = view["players"]
    n = len(players)
    out = [float(view["phase"] == p) for p in PHASES]
    out += [n / MAX_PLAYERS, view["counter"] / 30, view["stack_count"] / 105, view["round"] / 30,
            float(me in view["to_act"])]
    for k in range(MAX_PLAYERS):
        if k >= n:
            out += [0.0] * (6 + 2 * N_INDUSTRIES)
            continue
        p = players[(me + k) % n]
        out += [1.0, p["money"] / 30, p["hand_count"] / 20, p["position"] / view["finish"],
                p["big_markers"] / 10, float(view["start_player"] == p["seat"])]
        out += [p["played"][name] / 10 for name in INDUSTRIES]
        out += [float(name in p["controls"]) for name in INDUSTRIES]
    hand = view["hand"] or {}
    out += [hand.get(name, 0) / 10 for name in INDUSTRIES]
    auction = view["auction"]
    lot = auction["cards"] if auction else {}
    out += [lot.get(name, 0) / 6 for name in INDUSTRIES]
    out += [auction["high_bid"] / 30 if auction else 0.0, float(bool(auction) and auction["high_bidder"] == me),
            float(bool(auction) and auction["high_bidder"] is not None)]
    for space in view["track"][:TRACK]:
        out += [float(space["claimed_by"] == me), float(space["claimed_by"] not in (None, me))]
    out += [0.0] * (2 * (TRACK - min(len(view["track"]), TRACK)))
    choices = view["move_choices"] or []
    out += [float(t in choices) for t in MOVE_TARGETS]
    return out


PLUGIN = GamePlugin(
    game=GAME_NAME,
    resample=resample,
    heuristic=Heuristic,
    encode=encode,
    obs_size=OBS_SIZE,
    max_actions=64,  # legal_commands: at most 48 plays + draw + the empty play, or pass + 48 bids
    rollout=rollout,
    rank=lambda view, legal: Heuristic().values(view, legal),
    evaluate=evaluate,
    rollout_steps=40,
    guided_rollout_steps=30,
    search_iterations=32,
)

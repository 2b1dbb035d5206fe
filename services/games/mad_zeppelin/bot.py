"""Mad Zeppelin for bots: a heuristic player, an observation encoder, and the game's plug-in.

The heuristic plays as a person would explain it:

- **Draft**: a Traitor is worth the chance that its colour comes up on the dice (better when we lead and
  colour the white dice ourselves; the Stowaway fits any colour, the Lookout re-rolls for his) times
  what we could throw with it, plus what its Ability is worth to us (the Opportunist with two good
  cards in hand, the Machinist with level-1 cards, the Guard with dear ones...).
- **White dice**: the colour of our own Traitors, the one not yet on the dice first.
- **Play**: the Traitor whose colour is on the dice and lets us throw the most, plus its Ability now;
  not one a Captain is watching; the Stowaway is kept for later while another fits.
- **Actions**: Abilities that help the throw come first (the Lookout re-rolls a die when our colour is
  missing, the Stowaway takes on a Traitor whose colour is out, the Shadow copies, the Negotiator takes
  from the richest player who is not protected), then the throw, then the Anarchist blacks out a die
  that opponents need and we do not. The throw is the card that adds most to our score (discounts,
  Strange materials and the four-level bonus counted) less the Gold it costs, paying with crates
  first; Gold is kept when spending it would stop us throwing a much better card next time. An
  Alcohol is placed when nothing can be thrown. The Captain and the Doctor name the Traitor most
  likely to be played by an opponent who can throw with it (what we saw counts), never our own.
- **Replies**: a Captain takes Cargo when we have Gold enough, Gold otherwise; the Negotiator gets our
  least useful card (or a Gold when we are rich); the Geologist puts the best card where we will draw
  next and the worst where the next opponent draws.

The legal list a bot receives holds the aliases of a throw too (``crates: []`` for none, the crates in
another order): they are worth a hair less than the canonical form (sorted crates, left out when none) so
the heuristic sends that one, and ISMCTS never spends a root slot on them (``rank``).
"""

from __future__ import annotations

import functools
import math
import random
from collections.abc import Mapping, Sequence
from typing import Any

from services.bots.base import CommandDict, ValueBot
from services.bots.plugins import GamePlugin
from services.games.base import Command, Outcome
from services.games.mad_zeppelin.data import (
    ALCOHOL,
    BLACK,
    CARGO_KINDS,
    COLOUR_OF,
    COLOURS,
    COST,
    CRATE_VALUE,
    DEFAULT_SEARCH,
    FACES,
    JOURNEY,
    LEVEL,
    POINTS,
    SEARCH,
    STRANGE,
    THROWABLE,
    TRAITOR_KEYS,
    WHITE,
)
from services.games.mad_zeppelin.flow import give_options
from services.games.mad_zeppelin.resample import resample
from services.games.mad_zeppelin.rules import (
    crates_redundant,
    current_play,
    dice_colours,
    playable,
    played_traitors,
    scores,
    throw_cost,
)
from services.games.mad_zeppelin.rules import score as _rules_score
from services.games.mad_zeppelin.schemas import GAME_NAME
from services.games.mad_zeppelin.state import Phase, State

View = Mapping[str, Any]

GOLD_VALUE = 0.45  # points a Gold in hand is worth, as a means to throw later
CRATE_WORTH = 0.3  # points a crate is worth per Gold it pays (it is good for nothing else)
CARD_VALUE = 1.0  # points a Cargo card drawn is worth, roughly
STEAL_VALUE = 1.0  # points an opponent's lost Gold or card is worth to us
P_COLOUR = 1 - (5 / 6) ** 3  # a given colour on at least one of three dice
P_COLOUR_LEADER = 1 - (4 / 6) ** 3  # ... or a white die we colour ourselves
P_ANY = 0.9  # some colour on the dice (the Stowaway takes one)
PRE, THROW, POST = 100.0, 50.0, 10.0  # tiers of the actions: before the throw, the throw, after it

ABILITY_BASE = {
    "captain": 0.8, "councillor": 0.5, "taster": 0.3, "guard": 0.6, "machinist": 0.4, "lookout": 0.5,
    "doctor": 0.6, "geologist": 1.0, "anarchist": 0.5, "clairvoyant": 0.1, "negotiator": 1.0,
    "opportunist": 0.6, "stowaway": 0.6, "shadow": 0.7,
}
SEARCH_VALUE = {"councillor": 2 * GOLD_VALUE, "shadow": 2 * GOLD_VALUE, "geologist": GOLD_VALUE + 2 * CARD_VALUE}
DEFAULT_SEARCH_VALUE = GOLD_VALUE + CARD_VALUE
DRAW_VALUE: dict[str, float] = {**{k: POINTS[k] * 0.5 for k in CARGO_KINDS}, "strange_materials": 1.5, "alcohol": 1.5,
              "small_crate": 0.6, "big_crate": 1.1, JOURNEY: 0.5}


ALIAS_PENALTY = 1e-6


def is_alias(kind: str, body: Mapping[str, Any]) -> bool:
    """A throw written another way than the canonical one: ``crates: []``, or the crates not sorted."""
    crates = body.get("crates")
    return kind == "throw" and isinstance(crates, list) and (not crates or crates != sorted(crates))


def _crates_value(crates: Sequence[str]) -> int:
    return sum(CRATE_VALUE[c] for c in crates)


score = functools.lru_cache(maxsize=1 << 16)(_rules_score)
"""The rules' score, remembered: the heuristic asks it for the same few fronts thousands of times a search."""


class Table:
    """What the heuristic reads off a view."""

    def __init__(self, view: View) -> None:
        self.view = view
        self.me: int = view["seat"]
        self.players = view["players"]
        self.n = len(self.players)
        self.mine = self.players[self.me]
        self.gold: int = self.mine["gold"]
        self.front: tuple[str, ...] = tuple(self.mine["front"])
        self.hand: list[str] = list(view["hand"] or [])
        self.traitors: list[str] = [t["traitor"] for t in view["traitors"] or []]
        self.playable: list[str] = [t["traitor"] for t in view["traitors"] or [] if t["playable"]]
        self.dice: list[str] = list(view["dice"])
        self.colours = {d for d in self.dice if d not in (BLACK, WHITE)}
        self.identity: str | None = self.mine["current"]
        self.played = {p["traitor"] for p in view["plays"]}
        self.banned = set(view["named_unplayable"])
        self.points: int = self.mine["points"]
        self.target: int = view["target"]
        self._best: dict[tuple[str | None, int, str | None], float] = {}
        self.known_held: dict[int, set[str]] = {}
        self.known_unused: set[str] | None = None
        for k in view["knowledge"] or []:
            if k["kind"] == "traitors" and k["of"] is not None:
                self.known_held[k["of"]] = set(k["cards"]) - self.played
            elif k["kind"] == "unused":
                self.known_unused = set(k["cards"])

    # -- throwing --

    def cost(self, card: str, identity: str | None) -> int:
        if identity == "machinist" and LEVEL[card] == 1:
            return 0
        discount = self.front.count(ALCOHOL) + (1 if identity == "guard" else 0)
        return max(0, COST[card] - discount)

    def gain(self, card: str, front: tuple[str, ...] | None = None) -> int:
        front = self.front if front is None else front
        return score((*front, card)) - score(front)

    def pay(self, cost: int) -> tuple[int, int]:
        """(Gold, crate value) we would pay, crates first (the fewest that cover it, else all)."""
        crates = sorted((CRATE_VALUE[c] for c in self.hand if c in CRATE_VALUE), reverse=True)
        used = 0
        for value in crates:
            if used >= cost:
                break
            used += value
        return max(0, cost - used), min(used, cost) if used else 0

    def throw_value(self, card: str, gold_paid: int, crate_paid: int, gold: int | None = None) -> float:
        """Points gained less what the payment is worth, less the better throw it would cost us later."""
        gold = self.gold if gold is None else gold
        if card == ALCOHOL:
            return self.gain(card) + self.alcohol_value()
        gained = self.gain(card)
        value = gained - GOLD_VALUE * gold_paid - CRATE_WORTH * crate_paid
        if self.points + gained >= self.target:
            value += 5.0
        left = gold - gold_paid
        for other in set(self.hand) & THROWABLE:
            if other == card or self.hand.count(other) == 0:
                continue
            better = self.gain(other) - gained
            need = self.pay(self.cost(other, None))[0]
            if better >= 3 and left + 1 < need <= gold + 1:  # spending now stops the better throw next time
                value -= 0.5 * better
        return value

    def alcohol_value(self) -> float:
        expensive = sum(1 for c in self.hand if c in THROWABLE and COST[c] > self.front.count(ALCOHOL))
        return 0.8 + 0.3 * min(expensive, 3) - (1.0 if self.points >= self.target - 6 else 0.0)

    def best_throw(self, identity: str | None, gold: int | None = None, skip: str | None = None) -> float:
        """The best throw with this identity now (0 when none is worth it)."""
        gold = self.gold if gold is None else gold
        if identity not in ("guard", "machinist"):
            identity = None  # only these two change a cost (``cost``)
        key = (identity, gold, skip)
        known = self._best.get(key)
        if known is not None:
            return known
        best = 0.0
        for card in set(self.hand) & THROWABLE:
            if card == skip:
                continue
            paid, crates = self.pay(self.cost(card, identity))
            if paid <= gold:
                best = max(best, self.throw_value(card, paid, crates, gold))
        self._best[key] = best
        return best

    def throw_potential(self, identity: str | None, extra_gold: int = 0) -> float:
        """What playing with this identity could throw now (the Opportunist throws twice), with
        ``extra_gold`` from the Search to come."""
        if identity is None or COLOUR_OF.get(identity) not in self.colours:
            return self.alcohol_value() * 0.8 if ALCOHOL in self.hand else 0.0
        gold = self.gold + extra_gold
        best = self.best_throw(identity, gold)
        if identity == "opportunist":
            best += 0.7 * self.best_throw(identity, max(0, gold - 2))
        return best

    # -- other players' Traitors --

    def p_held_by_opponent(self, traitor: str) -> float:
        """The chance an opponent holds ``traitor`` unplayed (from what we saw, else by counting)."""
        if traitor in self.traitors or traitor in self.played or traitor in self.banned:
            return 0.0
        if self.known_unused is not None and traitor in self.known_unused:
            return 0.0
        if any(traitor in held for held in self.known_held.values()):
            return 1.0
        unknown = [t for t in TRAITOR_KEYS if t not in self.played and t not in self.traitors
                   and not any(t in h for h in self.known_held.values())
                   and (self.known_unused is None or t not in self.known_unused)]
        held = sum(p["unplayed_traitors"] for p in self.players if p["seat"] != self.me
                   and p["seat"] not in self.known_held)
        return min(1.0, held / len(unknown)) if unknown else 0.0

    def threat(self, traitor: str) -> float:
        """How much an opponent gains by playing ``traitor`` now."""
        colour = COLOUR_OF[traitor]
        fits = colour in self.colours if colour else bool(self.colours)
        return (2.0 if fits else 0.5) + ABILITY_BASE[traitor]


class Heuristic(ValueBot):
    """Mad Zeppelin played by rules of thumb (see the module docstring). Sees only its own view."""

    def values(self, view: View, legal: Sequence[CommandDict]) -> list[float]:
        """How good each legal command looks (higher is better); ISMCTS uses it to prune its root."""
        table = Table(view)
        return [self.value(table, c["type"], body) - (ALIAS_PENALTY if is_alias(c["type"], body) else 0.0)
                for c in legal for body in (c.get("body", {}),)]

    def value(self, t: Table, kind: str, body: Mapping[str, Any]) -> float:
        if kind == "draft":
            return self._draft(t, body["traitor"])
        if kind == "choose_colour":
            return self._colour(t, body["colour"])
        if kind == "play_traitor":
            return self._play(t, body["traitor"])
        if kind == "steal":
            return (1.2 if t.gold >= 3 else 0.8) if body["take"] == "cargo" else GOLD_VALUE * 2
        if kind == "give":
            return -self._keep(t, "gold" if body["what"] == "gold" else body["card"])
        if kind == "arrange_hold":
            return self._arrange(t, body["order"])
        if kind == "throw":
            return self._throw(t, body["card"], body.get("crates", []))
        if kind == "use_ability":
            return self._ability(t, body)
        if kind == "reroll":
            return self._reroll(t, body["die"])
        return 0.0  # end_sequence

    # -- the draft and the dice --

    def _draft(self, t: Table, traitor: str) -> float:
        leader = t.view["leader"] == t.me
        colour = COLOUR_OF[traitor]
        throw = max(2.0, t.best_throw(traitor, t.gold + 2))
        if colour is None:
            p = P_ANY if traitor == "stowaway" else 0.5
        else:
            p = P_COLOUR_LEADER if leader else P_COLOUR
            if traitor == "lookout":
                p = 1 - (1 - p) * (1 - P_COLOUR / 2)
            if leader and any(COLOUR_OF[h] == colour for h in t.traitors):
                p += 0.05
        value = p * throw + ABILITY_BASE[traitor] + SEARCH_VALUE.get(traitor, DEFAULT_SEARCH_VALUE)
        throwables = sorted((t.gain(c) for c in t.hand if c in THROWABLE), reverse=True)
        if traitor == "opportunist" and len(throwables) >= 2:
            value += p * 0.5 * throwables[1]
        if traitor == "machinist":
            value += 0.3 * sum(1 for c in t.hand if c in THROWABLE and LEVEL[c] == 1)
        if traitor == "guard":
            value += 0.3 * sum(1 for c in t.hand if c in THROWABLE and COST[c] >= 3)
        return value

    def _colour(self, t: Table, colour: str) -> float:
        value = 0.0
        if t.view["phase"] == "actions" and t.identity is not None:
            value += 3.0 if COLOUR_OF[t.identity] == colour else 0.0
        for traitor in t.traitors:
            if COLOUR_OF[traitor] == colour:
                value += 1.0 if colour not in t.colours else 0.3
        return value + 0.01 * COLOURS.index(colour)

    # -- playing a Traitor --

    def _play(self, t: Table, traitor: str) -> float:
        identity: str | None = traitor
        if traitor == "shadow":
            plays = t.view["plays"]
            identity = plays[-1]["identity"] if plays and plays[-1]["identity"] != "shadow" else None
        search_gold = SEARCH.get(traitor, DEFAULT_SEARCH)[0]
        if traitor == "stowaway":
            value = P_ANY * t.best_throw(None, t.gold + search_gold) if t.colours else 0.0
            if len(t.playable) > 1:
                value -= 0.8  # keep the joker for later while another Traitor fits
        else:
            value = t.throw_potential(identity, search_gold)
        value += SEARCH_VALUE.get(traitor, DEFAULT_SEARCH_VALUE) + ABILITY_BASE[traitor]
        if traitor == "lookout" and "yellow" not in t.colours:
            value += 0.4 * t.best_throw("lookout")
        if any(w["traitor"] == traitor and w["seat"] != t.me for w in t.view["captain_watches"]):
            value -= 1.5
        return value

    # -- actions --

    def _throw(self, t: Table, card: str, crates: Sequence[str]) -> float:
        if card == ALCOHOL:
            value = t.throw_value(card, 0, 0)
            if t.identity and COLOUR_OF[t.identity] in t.colours and t.best_throw(t.identity) > value:
                value -= 1.0  # a real throw is better
            return THROW + value if value > 0 else value - 1.0
        cost = t.cost(card, t.identity)
        crate_paid = min(_crates_value(crates), cost)
        paid = max(0, cost - _crates_value(crates))
        value = t.throw_value(card, paid, crate_paid)
        return THROW + value if value > 0 else value - 1.0

    def _ability(self, t: Table, body: Mapping[str, Any]) -> float:
        seq = t.view["sequence"] or {}
        ability = seq.get("copied_ability_pending") or t.identity or ""
        thrown = bool(seq.get("thrown"))
        if ability in ("captain", "doctor"):
            named = body["traitor"]
            p = t.p_held_by_opponent(named)
            if ability == "captain":
                value = 0.0 if named in ("councillor", "taster") else p * (1.2 if COLOUR_OF[named] in t.colours
                                                                           else 0.7) * STEAL_VALUE
            else:
                value = p * t.threat(named) * 0.4
            return PRE + value if value > 0.05 else -0.5
        if ability == "stowaway":
            named = body["traitor"]
            if named in t.traitors:
                return -5.0  # it would ban our own
            colour = COLOUR_OF[named]
            value = (t.throw_potential(named) if colour in t.colours else 0.0) + ABILITY_BASE[named]
            value += 0.3 * t.p_held_by_opponent(named) * t.threat(named)
            return PRE + value
        if ability == "shadow":
            return PRE + 1.0
        if ability == "lookout":
            return self._reroll(t, body["die"])
        if ability == "anarchist":
            value = self._blackout(t, body["die"])
            if value <= 0:
                return value - 1.0
            return (POST if not thrown and t.best_throw(t.identity) > 0 else PRE) + value
        if ability == "negotiator":
            target = t.players[body["seat"]]
            value = 0.3 * target["gold"] + 0.2 * target["hand_count"] + 0.05 * target["points"]
            return float(PRE + value) if target["gold"] or target["hand_count"] else -0.5
        if ability == "clairvoyant":
            if body["look"] == "player":
                target = t.players[body["seat"]]
                return float(PRE + 0.1 + 0.05 * target["unplayed_traitors"] + 0.01 * target["points"])
            return PRE + 0.05
        if ability == "geologist":
            return PRE + 0.5
        return 0.0

    def _reroll(self, t: Table, die: int) -> float:
        colour = COLOUR_OF[t.identity] if t.identity else None
        seq = t.view["sequence"] or {}
        if colour is None or colour in t.colours or seq.get("thrown"):
            return -1.0
        want = t.best_throw(t.identity)
        if want <= 0:
            return -1.0
        face = t.dice[die]
        others = [d for i, d in enumerate(t.dice) if i != die]
        value = 1.0 + (0.3 if face in others else 0.0)  # a duplicate colour costs us least
        value -= 0.5 if any(COLOUR_OF[x] == face for x in t.traitors) else 0.0
        return PRE + value

    def _blackout(self, t: Table, die: int) -> float:
        """What blacking out ``die`` is worth: opponents to come lose a colour, we must not."""
        face = t.dice[die]
        others = [d for i, d in enumerate(t.dice) if i != die]
        if face in others:
            return 0.1  # the colour stays on another die
        seq = t.view["sequence"] or {}
        mine = COLOUR_OF[t.identity] if t.identity else None
        if face == mine and not seq.get("thrown"):
            return -3.0
        if any(COLOUR_OF[x] == face for x in t.traitors):
            return -1.5
        unknown = [x for x in TRAITOR_KEYS if x not in t.played and x not in t.traitors]
        share = sum(1 for x in unknown if COLOUR_OF[x] == face) / max(len(unknown), 1)
        leaders = max((p["points"] for p in t.players if p["seat"] != t.me), default=0)
        return 0.3 + 2.0 * share + 0.02 * leaders

    # -- replies --

    def _keep(self, t: Table, what: str) -> float:
        """What keeping ``what`` (Gold or a card kind) is worth to us."""
        if what == "gold":
            return 1.5 if t.gold <= 2 else 0.8
        if what in CRATE_VALUE:
            return 0.7 * CRATE_VALUE[what]
        if what == ALCOHOL:
            return 1.5
        if what == STRANGE:
            return 1.0 + sum(1 for c in t.front if LEVEL[c] == 1)
        return POINTS[what] - 0.3 * COST[what]

    def _arrange(self, t: Table, order: Sequence[int]) -> float:
        seen: list[str] = []
        for k in t.view["knowledge"] or []:
            if k["kind"] == "hold_top":
                seen = list(k["cards"])
        if len(seen) < len(order):
            return 0.0
        mine = t.n - 1  # the others draw once each before our next Search
        value = 0.0
        for position, index in enumerate(order):
            worth = DRAW_VALUE.get(seen[index], 1.0)
            value += worth if position == mine else -0.5 * worth / (1 + position)
        return value


# -- ISMCTS playouts: a cheap policy on the full (determinized) state --


def rollout(state: State, seat: int, rng: random.Random) -> Command | None:
    """A quick playout move straight from the state: Traitors that fit the dice, the dearest throw."""
    phase = state.phase
    if phase == "draft":
        return Command(seat, "draft", {"traitor": rng.choice(state.pool)})
    if WHITE in state.dice and (phase == "colours" or state.seq is not None):
        die = state.dice.index(WHITE)
        p = state.players[seat]
        wanted = [COLOUR_OF[t] for t in p.traitors if COLOUR_OF[t]]
        play = current_play(state, seat)
        if play is not None and play.colour:
            wanted = [play.colour]
        return Command(seat, "choose_colour", {"die": die, "colour": rng.choice(wanted or list(COLOURS))})
    if phase == "play":
        options = playable(state, seat)
        colours = dice_colours(state)
        fitting = [t for t in options if COLOUR_OF[t] in colours or (t == "stowaway" and colours)]
        return Command(seat, "play_traitor", {"traitor": rng.choice(fitting or options)})
    seq = state.seq
    if phase != "actions" or seq is None:
        return None
    if seq.steals:
        return Command(seat, "steal", {"take": rng.choice(("gold", "cargo"))})
    if seq.give >= 0:
        what = give_options(state, seat)[0]
        return Command(seat, "give", {"what": "gold"} if what == "gold" else {"what": "cargo", "card": what})
    if seq.arrange:
        return Command(seat, "arrange_hold", {"order": list(range(seq.arrange))})
    play = current_play(state, seat)
    if play is None:
        return None
    if seq.copied is None and not seq.ability_used and play.identity == "stowaway":
        colours = dice_colours(state)
        taken = played_traitors(state)
        mine = state.players[seat].traitors
        names = [t for t in TRAITOR_KEYS if t not in taken and t not in mine and COLOUR_OF[t] in colours]
        if names:
            return Command(seat, "use_ability", {"traitor": rng.choice(names)})
    if seq.copied is None and not seq.ability_used and play.identity == "shadow":
        index = state.players[seat].current
        if index > 0 and state.plays[index - 1].identity != "shadow":
            return Command(seat, "use_ability", {})
    if seq.throw < 2:
        command = _rollout_throw(state, seat)
        if command is not None:
            return command
    return Command(seat, "end_sequence", {})


def _rollout_throw(state: State, seat: int) -> Command | None:
    play = current_play(state, seat)
    p = state.players[seat]
    if play is not None and play.colour in dice_colours(state):
        best: tuple[int, str, list[str]] | None = None
        smalls, bigs = p.hand.count("small_crate"), p.hand.count("big_crate")
        for card in set(p.hand) & THROWABLE:
            cost = throw_cost(state, seat, card)
            crates = ["big_crate"] * min(bigs, cost // 2)
            crates += ["small_crate"] * min(smalls, cost - 2 * len(crates))
            if crates_redundant(crates, cost):
                crates = crates[1:]
            if max(0, cost - _crates_value(crates)) <= p.gold and (best is None or POINTS[card] > best[0]):
                best = (POINTS[card], card, crates)
        if best is not None:
            body: dict[str, object] = {"card": best[1]}
            if best[2]:
                body["crates"] = best[2]
            return Command(seat, "throw", body)
    if ALCOHOL in p.hand:
        return Command(seat, "throw", {"card": ALCOHOL})
    return None


PHASE_INDEX = {phase: i for i, phase in enumerate(Phase)}


def playout_stream(state: State) -> int:
    """The random stream of a playout step, named by where the match is: the game turn, the round, the
    player whose Traitor or sequence it is, the phase and how far the sequence has come. The dice of a turn
    (rolled after its last draft pick), its deal (after the last sequence of the turn before) and a re-roll
    or a stolen card then come out alike across the candidates of a search, whatever the number of
    commands each took to get there."""
    key = ((state.turn * 4 + state.round) * 8 + state.seat) * 16 + PHASE_INDEX[state.phase]
    seq = state.seq
    if seq is not None:
        key = ((key * 4 + seq.throw) * 2 + seq.ability_used) * 8 + len(seq.steals)
        key = key * 4 + state.players[seq.seat].rerolls
    return key


def evaluate(state: State) -> Outcome:
    """The standing of an unfinished match: its leader (fewest Gold among equals) would win now."""
    points = scores(state)
    best = max(points)
    top = [s for s in range(state.seats) if points[s] == best]
    least = min(state.players[s].gold for s in top)
    return Outcome(scores=points, winners=tuple(s for s in top if state.players[s].gold == least))


# -- observations for learning agents --

PHASES = ("draft", "colours", "play", "actions", "over")
MAX_PLAYERS = 6
FRONT_KINDS = tuple(k for k in CARGO_KINDS if k not in CRATE_VALUE)
IDENTITIES = (*TRAITOR_KEYS, None)
COMMAND_TYPES = ("draft", "choose_colour", "play_traitor", "steal", "give", "arrange_hold", "use_ability",
                 "reroll", "throw", "end_sequence")
HOLD_TOP = 3
CARD_KINDS = (*CARGO_KINDS, JOURNEY)
N_TRAITORS = len(TRAITOR_KEYS)
PLAYER_SIZE = 7 + len(IDENTITIES) + len(FRONT_KINDS)
OBS_SIZE = (len(PHASES) + 11 + 3 * len(FACES) + MAX_PLAYERS * PLAYER_SIZE + len(CARGO_KINDS)
            + 6 * N_TRAITORS + 8 + len(COMMAND_TYPES) + HOLD_TOP * len(CARD_KINDS))


def _traitor_set(names: Sequence[str]) -> list[float]:
    return [float(t in names) for t in TRAITOR_KEYS]


def encode(view: View) -> list[float]:
    """The seat's view as a fixed vector: players listed from the seat round the table."""
    me = view["seat"]
    players = view["players"]
    n = len(players)
    out = [float(view["phase"] == p) for p in PHASES]
    out += [n / MAX_PLAYERS, view["target"] / 30, view["turn"] / 15, view["round"] / 2,
            float(view["leader"] == me), float(me in view["to_act"]), float(view["current_seat"] == me),
            view["safe"] / 30, view["hold_count"] / 110, view["journeys"] / 10, len(view["discard"]) / 14]
    dice = list(view["dice"]) + [None] * (3 - len(view["dice"]))
    for face in dice:
        out += [float(face == f) for f in FACES]
    for k in range(MAX_PLAYERS):
        if k >= n:
            out += [0.0] * PLAYER_SIZE
            continue
        p = players[(me + k) % n]
        out += [1.0, p["gold"] / 10, p["hand_count"] / 10, p["points"] / 30, p["unplayed_traitors"] / 2,
                p["rerolls_used"] / 2, float(view["leader"] == p["seat"])]
        out += [float(p["current"] == i) for i in IDENTITIES]
        out += [p["front"].count(kind) / 5 for kind in FRONT_KINDS]
    hand = view["hand"] or []
    out += [hand.count(kind) / 5 for kind in CARGO_KINDS]
    traitors = view["traitors"] or []
    out += _traitor_set([t["traitor"] for t in traitors])
    out += _traitor_set([t["traitor"] for t in traitors if t["playable"]])
    out += _traitor_set(view["draft_pool"] or [])
    out += _traitor_set([p["traitor"] for p in view["plays"]])
    out += _traitor_set(view["named_unplayable"])
    out += _traitor_set([w["traitor"] for w in view["captain_watches"] if w["seat"] != me])
    seq = view["sequence"]
    if seq is None:
        out += [0.0] * 8
    else:
        out += [1.0, float(seq["seat"] == me), float(seq["searched"]), float(seq["ability_used"]),
                float(seq["copied_ability_pending"] is not None), seq["throws_left"] / 2, float(seq["thrown"]),
                seq["arranging"] / 3]
    awaiting = view["awaiting"]
    commands = awaiting["commands"] if awaiting and awaiting["seat"] == me else []
    out += [float(c in commands) for c in COMMAND_TYPES]
    top: list[str] = []
    for k in view["knowledge"] or []:
        if k["kind"] == "hold_top":
            top = list(k["cards"])
    top = (top + [""] * HOLD_TOP)[:HOLD_TOP]
    for card in top:
        out += [float(card == kind) for kind in CARD_KINDS]
    return out


def _rank(view: View, legal: Sequence[CommandDict]) -> list[float]:
    """The heuristic's values; an alias of a throw last (ISMCTS's tree knows each command in its canonical
    form, from ``legal_commands``, so a root slot spent on an alias would be wasted)."""
    values = Heuristic().values(view, legal)
    return [-math.inf if is_alias(c["type"], c.get("body", {})) else v for c, v in zip(legal, values, strict=True)]


SEARCHED = frozenset({"draft", "play_traitor", "throw", "arrange_hold"})


def _search_when(view: View, legal: Sequence[CommandDict]) -> bool:
    """Search the draft, the Traitor to play, the throw and the Geologist's order; leave the heuristic the
    rest (the white dice, Abilities' targets, replies), where searching hardly ever found a better command."""
    return any(c["type"] in SEARCHED for c in legal)


PLUGIN = GamePlugin(
    game=GAME_NAME,
    resample=resample,
    heuristic=Heuristic,
    encode=encode,
    obs_size=OBS_SIZE,
    max_actions=64,  # at most 14 named Traitors + 41 throws (8 kinds x crate payments) + Alcohol + end = 57;
    # the longest list seen in random and heuristic playouts is 28
    rollout=rollout,
    rank=_rank,
    evaluate=evaluate,
    rollout_steps=60,
    guided_confidence=2.0,
    search_iterations=96,
    playout_stream=playout_stream,
    search_when=_search_when,
    guided_width=8,
    guided_halving=True,
)

__all__ = ["OBS_SIZE", "PLUGIN", "Heuristic", "encode", "evaluate", "rollout"]

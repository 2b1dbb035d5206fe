"""Information-set Monte Carlo tree search (single observer), generic over the game contract.

The bot sees only its seat's view and legal commands, like every bot. Each iteration it draws a full
state consistent with that view from the game's ``resample`` plug-in (never the true hidden state) and
plays it out with the game's own pure rules (``decide``/``evolve``, a seeded rng for the dice and
shuffles). It searches in one of two ways:

**Guided** (the default when the game's plug-in has a heuristic bot): the tree is its root. The
candidates are the heuristic's own choice and the next best commands by its ranking (``root_width``
in all, the plug-in's ``guided_width``). Each round draws one determinization and one random seed and
plays every candidate on it, every seat then played by the heuristic on its own view of that state (a
per-step random stream, or one the plug-in's ``playout_stream`` names by where the match is, keeps the
dice alike across the candidates), for ``guided_rollout_steps``
commands (then judged by the plug-in's ``evaluate``) or to the end. A seat's reward is its share of the
win plus, weighted ``guided_score_weight``, its score margin over the best other seat. Each
``iterations`` is one such playout (with the plug-in's ``guided_halving``, in stages: after each, the worse
half of the challengers is dropped and the rest of the playouts go to the closer ones).
The bot sends the heuristic's choice unless another candidate beat it
in these paired playouts by more than ``margin`` and by more than ``confidence`` standard errors of the
mean difference: a search with a few dozen playouts cannot tell close commands apart, and guessing
would make it weaker than the heuristic it starts from (a rollout algorithm in Bertsekas' sense: one
step of improvement over a base policy, here the heuristic, which also models the opponents). A plug-in's
``search_when`` may leave some decisions to the heuristic (Modern World's hundreds of single bids), and
its ``playout_commands`` may give the playout heuristic a short list instead of the full one.

**Tree** (games without a heuristic, or ``guided=False``): UCT over a shared tree. Each iteration walks
the tree, expands one new command, plays the rest out with the plug-in's cheap ``rollout`` policy (or
uniformly) for ``rollout_steps`` commands or to the end, and backs up each seat's reward (its share of
the win, plus a little for its score) along the path. When the plug-in can rank commands, the root
searches only the ``root_width`` (8) best. Nodes are reached by command sequences: a child is keyed by
the command's canonical form (type and sorted body). Commands legal in some determinizations and not in
others are handled as in Cowling, Powley and Whitehouse (2012): a child's UCB term counts how often it
was *available*, not how often its parent was visited.
"""

from __future__ import annotations

import json
import math
import random
import time
from collections.abc import Mapping, Sequence
from typing import Any

from services.bots.base import CommandDict
from services.bots.plugins import plugin_for
from services.games import get_game
from services.games.base import Command, Outcome
from services.games.errors import Rejected

SCORE_WEIGHT = 0.1  # of the reward; the rest is the share of the win


def command_key(type_: str, body: Mapping[str, Any]) -> str:
    return json.dumps([type_, body], sort_keys=True, separators=(",", ":"))


class Node:
    __slots__ = ("available", "children", "player", "total", "visits")

    def __init__(self, player: int) -> None:
        self.player = player  # the seat whose command led here
        self.children: dict[str, Node] = {}
        self.visits = 0
        self.available = 0
        self.total = 0.0


def rewards(outcome: Outcome, seats: int) -> list[float]:
    """Per seat: the share of the win (shared wins split) and a little for the score."""
    top = max(max(outcome.scores, default=0), 1)
    share = 1.0 / len(outcome.winners) if outcome.winners else 0.0
    return [(1 - SCORE_WEIGHT) * (share if s in outcome.winners else 0.0) + SCORE_WEIGHT * outcome.scores[s] / top
            for s in range(seats)]


def guided_rewards(outcome: Outcome, seats: int, score_weight: float) -> list[float]:
    """Per seat: the share of the win, and (weighted ``score_weight``) the score margin over the best
    other seat, relative to the top score and mapped to [0, 1]."""
    share = 1.0 / len(outcome.winners) if outcome.winners else 0.0
    scale = max(max((abs(x) for x in outcome.scores), default=1), 1)
    out = []
    for s in range(seats):
        others = max((outcome.scores[o] for o in range(seats) if o != s), default=0)
        margin = 0.5 + 0.5 * max(-1.0, min(1.0, (outcome.scores[s] - others) / scale))
        out.append((1 - score_weight) * (share if s in outcome.winners else 0.0) + score_weight * margin)
    return out


class ISMCTSBot:
    default_iterations = 200

    def __init__(self, game: str, seed: int = 0, iterations: int = default_iterations,
                 time_budget_s: float | None = None, exploration: float = 0.7,
                 rollout_steps: int | None = None, root_width: int | None = None,
                 guided: bool | None = None, margin: float | None = None,
                 confidence: float | None = None, halving: bool | None = None) -> None:
        self.game = get_game(game)
        plugin = plugin_for(game)
        if plugin.resample is None:
            raise ValueError(f"{game} has no resample plug-in")
        self.resample = plugin.resample
        self.rollout_policy = plugin.rollout
        self.evaluate = plugin.evaluate
        self.heuristic = plugin.heuristic
        self.guided = (plugin.heuristic is not None) if guided is None else guided and plugin.heuristic is not None
        self.search_when = plugin.search_when
        self.playout_commands = plugin.playout_commands
        self.playout_stream = plugin.playout_stream
        if rollout_steps is not None:
            self.rollout_steps = rollout_steps
        else:
            self.rollout_steps = plugin.guided_rollout_steps if self.guided else plugin.rollout_steps
        self.rank = plugin.rank
        self.root_width = root_width if root_width is not None else (plugin.guided_width if self.guided else 8)
        self.margin = margin if margin is not None else plugin.guided_margin
        self.score_weight = plugin.guided_score_weight
        self.confidence = confidence if confidence is not None else plugin.guided_confidence
        self.halving = halving if halving is not None else plugin.guided_halving
        self.iterations = iterations
        self.time_budget_s = time_budget_s
        self.exploration = exploration
        self.rng = random.Random(seed)
        self.last_root: Node | None = None

    def choose(self, view: Mapping[str, Any], legal: Sequence[CommandDict]) -> CommandDict:
        if len(legal) == 1:
            return legal[0]
        if self.guided:
            return self._choose_guided(view, legal)
        seat: int = view["seat"]
        candidates = list(legal)
        if self.rank is not None and self.root_width and len(candidates) > self.root_width:
            values = self.rank(view, candidates)
            order = sorted(range(len(candidates)), key=lambda i: -values[i])[: self.root_width]
            candidates = [candidates[i] for i in sorted(order)]
        by_key = {command_key(c["type"], c.get("body", {})): c for c in candidates}
        root = Node(player=-1)
        deadline = time.monotonic() + self.time_budget_s if self.time_budget_s else None
        for done in range(self.iterations):
            if deadline is not None and done and time.monotonic() > deadline:
                break
            self._iterate(root, view, seat, by_key)
        self.last_root = root
        best = max(by_key, key=lambda k: (root.children[k].visits, root.children[k].total)
                   if k in root.children else (-1, 0.0))
        return by_key[best]

    # -- guided search: the heuristic's few best commands, each judged by heuristic playouts --

    def _candidates(self, view: Mapping[str, Any], legal: Sequence[CommandDict]) -> list[CommandDict]:
        """The heuristic's own choice first, then the next best commands by its ranking."""
        assert self.heuristic is not None
        first = self.heuristic(self.rng.getrandbits(32)).choose(view, legal)
        out = [first]
        if self.rank is not None:
            values = self.rank(view, legal)
            order = sorted(range(len(legal)), key=lambda i: -values[i])
        else:
            order = list(range(len(legal)))
        seen = {command_key(first["type"], first.get("body", {}))}
        for i in order:
            if len(out) >= (self.root_width or len(legal)):
                break
            if self.rank is not None and values[i] == -math.inf:
                continue
            key = command_key(legal[i]["type"], legal[i].get("body", {}))
            if key not in seen:
                seen.add(key)
                out.append(legal[i])
        return out

    def _choose_guided(self, view: Mapping[str, Any], legal: Sequence[CommandDict]) -> CommandDict:
        seat: int = view["seat"]
        candidates = self._candidates(view, legal)
        root = Node(player=-1)
        self.last_root = root
        if len(candidates) == 1 or (self.search_when is not None and not self.search_when(view, legal)):
            return candidates[0]
        keyed = [(command_key(c["type"], c.get("body", {})), c) for c in candidates]
        for key, _ in keyed:
            root.children[key] = Node(seat)
        results: list[list[float | None]] = [[] for _ in keyed]  # per candidate, its reward in each round
        deadline = time.monotonic() + self.time_budget_s if self.time_budget_s else None
        alive = list(range(len(keyed)))  # the candidates still played (the heuristic's, 0, always)
        stages = max(1, math.ceil(math.log2(len(keyed)))) if self.halving else 1
        done = attempts = 0
        for stage in range(stages):
            # successive halving: each stage has an equal share of the playouts, spread over the candidates
            # still in the race; after it the worse half of the challengers (by their mean paired
            # difference with the heuristic's command) is dropped
            goal = self.iterations * (stage + 1) // stages
            while done < goal and attempts < 4 * self.iterations:
                if deadline is not None and done and time.monotonic() > deadline:
                    break
                state = self.resample(view, seat, self.rng)
                seed = self.rng.getrandbits(32)
                for index in alive:  # the same determinization and dice for each
                    if done >= self.iterations:
                        break
                    key, command = keyed[index]
                    attempts += 1
                    reward = self._guided_playout(state, Command(seat, command["type"], command.get("body", {})),
                                                  seed)
                    results[index].append(None if reward is None else reward[seat])
                    if reward is None:
                        continue
                    child = root.children[key]
                    child.visits += 1
                    child.available += 1
                    child.total += reward[seat]
                    done += 1
            if stage < stages - 1:
                challengers = sorted(alive[1:], key=lambda i: -self._gain(results[i], results[0])[0])
                alive = [0, *challengers[: max(1, (len(alive) - 1) // 2)]]
        chosen = self._pick([results[i] if i in alive else [] for i in range(len(keyed))])
        return keyed[chosen][1]

    @staticmethod
    def _gain(results: Sequence[float | None], base: Sequence[float | None]) -> tuple[float, float, int]:
        """The mean paired difference of ``results`` over ``base``, its standard error and the pairs."""
        diffs = [r - h for r, h in zip(results, base, strict=False) if r is not None and h is not None]
        if len(diffs) < 2:
            return (-math.inf, math.inf, len(diffs))
        mean = sum(diffs) / len(diffs)
        variance = sum((d - mean) ** 2 for d in diffs) / (len(diffs) - 1)
        return mean, math.sqrt(variance / len(diffs)), len(diffs)

    def _pick(self, results: Sequence[Sequence[float | None]]) -> int:
        """The heuristic's command (0) unless another beat it in the paired playouts by more than
        ``margin`` and by more than ``confidence`` standard errors of the mean difference."""
        best, best_gain = 0, 0.0
        for index in range(1, len(results)):
            mean, error, _ = self._gain(results[index], results[0])
            if mean > self.margin and mean > self.confidence * error and mean > best_gain:
                best, best_gain = index, mean
        return best

    def _guided_playout(self, state: Any, command: Command, seed: int) -> list[float] | None:
        """Play ``command``, then every seat as the heuristic (on its own view of the determinization) for
        ``rollout_steps`` commands or to the end; each seat's reward, None when the command is refused."""
        game, heuristic = self.game, self.heuristic
        assert heuristic is not None
        try:
            state = self._step(state, command, random.Random(seed))
        except Rejected:
            return None
        bots: dict[int, Any] = {}
        limit = self.rollout_steps if self.rollout_steps and self.evaluate else 100_000
        for step in range(1, limit + 1):
            if game.outcome(state) is not None:
                break
            # a stream per step (or per point of the match): the dice stay alike across the candidates
            rng = random.Random(seed * 7919 + step if self.playout_stream is None
                                else (seed << 40) + self.playout_stream(state))
            acting = min(game.to_act(state))
            commands = (self.playout_commands and self.playout_commands(state, acting)) or game.legal_commands(
                state, acting)
            if len(commands) == 1:
                state = self._step(state, commands[0], rng)
                continue
            bot = bots.get(acting)
            if bot is None:
                bot = bots[acting] = heuristic(seed + acting)
            chosen = bot.choose(game.view(state, acting), [{"type": c.type, "body": c.body} for c in commands])
            try:
                state = self._step(state, Command(acting, chosen["type"], chosen.get("body", {})), rng)
            except Rejected:
                state = self._step(state, rng.choice(game.legal_commands(state, acting)), rng)
        outcome = game.outcome(state)
        if outcome is None:
            assert self.evaluate is not None
            outcome = self.evaluate(state)
        return guided_rewards(outcome, len(outcome.scores), self.score_weight)

    # -- one iteration --

    def _iterate(self, root: Node, view: Mapping[str, Any], seat: int, root_keys: Mapping[str, Any]) -> None:
        game, rng = self.game, self.rng
        state = self.resample(view, seat, rng)
        seats = len(view.get("players", ())) or None
        node, path = root, []
        expanded = False
        while not expanded and game.outcome(state) is None:
            acting = min(game.to_act(state))
            commands = game.legal_commands(state, acting)
            keyed = [(command_key(c.type, c.body), c) for c in commands]
            if node is root:
                keyed = [(k, c) for k, c in keyed if k in root_keys] or keyed
            untried = [(k, c) for k, c in keyed if k not in node.children]
            for k, _ in keyed:
                child = node.children.get(k)
                if child is not None:
                    child.available += 1
            if untried:
                key, command = rng.choice(untried)
                child = node.children[key] = Node(acting)
                child.available = 1
                expanded = True
            else:
                key, command = max(keyed, key=lambda kc: self._ucb(node.children[kc[0]]))
                child = node.children[key]
            state = self._step(state, command)
            path.append(child)
            node = child
        state = self._playout(state)
        outcome = game.outcome(state)
        if outcome is None:
            if self.evaluate is None:
                return  # cut short with no way to judge it: no information
            outcome = self.evaluate(state)
        reward = rewards(outcome, seats or len(outcome.scores))
        for visited in path:
            visited.visits += 1
            visited.total += reward[visited.player]

    def _ucb(self, child: Node) -> float:
        if child.visits == 0:
            return math.inf
        return child.total / child.visits + self.exploration * math.sqrt(math.log(child.available) / child.visits)

    def _step(self, state: Any, command: Command, rng: random.Random | None = None) -> Any:
        for event in self.game.decide(state, command, rng or self.rng):
            state = self.game.evolve(state, event)
        return state

    def _playout(self, state: Any) -> Any:
        game, rng, policy = self.game, self.rng, self.rollout_policy
        limit = self.rollout_steps if self.rollout_steps and self.evaluate else 100_000
        for _ in range(limit):
            if game.outcome(state) is not None:
                break
            acting = min(game.to_act(state))
            command = policy(state, acting, rng) if policy else None
            if command is None:
                command = rng.choice(game.legal_commands(state, acting))
            state = self._step(state, command)
        return state

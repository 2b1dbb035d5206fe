"""Information-set Monte Carlo tree search (single observer), generic over the game contract.

The bot sees only its seat's view and legal commands, like every bot. Each iteration it draws a full
state consistent with that view from the game's ``resample`` plug-in (never the true hidden state),
walks the shared tree with UCT, expands one new command, plays the rest of the match out with the
game's own pure rules (``decide``/``evolve``, a seeded rng for the dice and shuffles) and backs up
each seat's reward (its share of the win, plus a little for its score) along the path.

When the game's plug-in can rank commands (its heuristic's ``rank``), the root searches only the
``root_width`` best of them: with a few hundred iterations and fifty card combinations on offer, a
search over all of them would sample each only a few times. Playouts use the plug-in's cheap policy
and may stop after ``rollout_steps`` commands, judged by the plug-in's ``evaluate``.

Nodes are reached by command sequences: a child is keyed by the command's canonical form (type and
sorted body). Commands legal in some determinizations and not in others are handled as in Cowling,
Powley and Whitehouse (2012): a child's UCB term counts how often it was *available*, not how often
its parent was visited.
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


class ISMCTSBot:
    default_iterations = 200

    def __init__(self, game: str, seed: int = 0, iterations: int = default_iterations,
                 time_budget_s: float | None = None, exploration: float = 0.7,
                 rollout_steps: int | None = None, root_width: int | None = 8) -> None:
        self.game = get_game(game)
        plugin = plugin_for(game)
        if plugin.resample is None:
            raise ValueError(f"{game} has no resample plug-in")
        self.resample = plugin.resample
        self.rollout_policy = plugin.rollout
        self.evaluate = plugin.evaluate
        self.rollout_steps = rollout_steps if rollout_steps is not None else plugin.rollout_steps
        self.rank = plugin.rank
        self.root_width = root_width
        self.iterations = iterations
        self.time_budget_s = time_budget_s
        self.exploration = exploration
        self.rng = random.Random(seed)
        self.last_root: Node | None = None

    def choose(self, view: Mapping[str, Any], legal: Sequence[CommandDict]) -> CommandDict:
        if len(legal) == 1:
            return legal[0]
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

    def _step(self, state: Any, command: Command) -> Any:
        for event in self.game.decide(state, command, self.rng):
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

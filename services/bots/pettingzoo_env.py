"""PettingZoo AEC environments over the games, for people training agents (needs the ``rl`` extra).

``make_env(game, seats, options, seed)`` returns an :class:`pettingzoo.AECEnv` that drives the game's
pure functions directly (no pipeline), with the worker's randomness (``derive_rng(seed, version)``):

- agents ``seat_0``, ``seat_1``, ...; the agent to act is the lowest seat that has a decision to make;
- observation ``{"observation": float32 vector, "action_mask": int8 vector}``: the vector encodes only
  that seat's view (the game plug-in's encoder, or every number of the view flattened); the mask marks
  the first ``len(legal_commands)`` actions of the agent to act (none for the others);
- action ``Discrete(max_actions)``: action ``i`` is the ``i``-th legal command, in the game's order
  (``legal_commands(state, seat)[i]``). The bound is the game plug-in's ``max_actions``; should a game
  ever list more commands than that, the ones beyond the bound are simply never offered;
- at the end every agent is terminated and rewarded with its share of the win (1 to a sole winner,
  ``1/k`` to each of ``k`` sharing it, 0 otherwise); ``infos[agent]["scores"]`` holds the scores.
  Matches longer than ``max_steps`` commands are truncated.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from services.bots.plugins import encoder_for, plugin_for
from services.games import get_game
from services.games.base import Command
from services.games.rng import derive_rng

Observation = dict[str, np.ndarray]


def agent_name(seat: int) -> str:
    return f"seat_{seat}"


class GameEnv(AECEnv):  # type: ignore[misc]
    metadata = {"name": "airship_v0", "render_modes": ["ansi"], "is_parallelizable": False}

    def __init__(self, game: str, seats: int, options: Mapping[str, Any] | None = None, seed: int | None = None,
                 max_steps: int = 100_000, render_mode: str | None = None) -> None:
        super().__init__()
        self.game = get_game(game)
        self.seats = seats
        self.options = dict(options or {})
        self.max_steps = max_steps
        self.render_mode = render_mode
        self.encode, obs_size = encoder_for(game)
        self.max_actions = plugin_for(game).max_actions
        self.metadata = {**self.metadata, "name": f"airship_{game.replace('-', '_')}_v0"}
        self.possible_agents = [agent_name(s) for s in range(seats)]
        self._observation_spaces = {
            a: spaces.Dict({
                "observation": spaces.Box(-np.inf, np.inf, (obs_size,), np.float32),
                "action_mask": spaces.Box(0, 1, (self.max_actions,), np.int8),
            })
            for a in self.possible_agents
        }
        self._action_spaces = {a: spaces.Discrete(self.max_actions) for a in self.possible_agents}
        self._seed = seed
        self.state_: Any = None
        self._version = 0
        self._steps = 0
        self._match_seed = 0

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self._observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self._action_spaces[agent]

    # -- the AEC protocol --

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        if seed is not None:
            self._seed = seed
        self._match_seed = self._seed if self._seed is not None else random.randrange(2**63)
        if self._seed is not None:
            self._seed += 1  # the next reset without a seed plays another match, reproducibly
        events = self.game.setup(self.options, self.seats, derive_rng(self._match_seed, 0))
        state = self.game.initial()
        for event in events:
            state = self.game.evolve(state, event)
        self.state_ = state
        self._version = len(events)
        self._steps = 0
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self._select()

    def observe(self, agent: str) -> Observation:
        seat = self.possible_agents.index(agent)
        view = self.game.view(self.state_, seat)
        mask = np.zeros(self.max_actions, dtype=np.int8)
        if agent == self.agent_selection and seat in self.game.to_act(self.state_):
            mask[: min(len(self.game.legal_commands(self.state_, seat)), self.max_actions)] = 1
        return {"observation": np.asarray(self.encode(view), dtype=np.float32), "action_mask": mask}

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        seat = self.possible_agents.index(agent)
        legal = self.game.legal_commands(self.state_, seat)[: self.max_actions]
        if action is None or not 0 <= int(action) < len(legal):
            raise ValueError(f"{agent}: action {action} is not one of the {len(legal)} legal commands")
        command: Command = legal[int(action)]
        for event in self.game.decide(self.state_, command, derive_rng(self._match_seed, self._version)):
            self.state_ = self.game.evolve(self.state_, event)
            self._version += 1
        self._steps += 1
        self._cumulative_rewards[agent] = 0.0
        self.rewards = dict.fromkeys(self.agents, 0.0)
        outcome = self.game.outcome(self.state_)
        if outcome is not None:
            for a in self.agents:
                s = self.possible_agents.index(a)
                self.rewards[a] = 1.0 / len(outcome.winners) if s in outcome.winners else 0.0
                self.terminations[a] = True
                self.infos[a] = {"scores": list(outcome.scores), "winners": list(outcome.winners)}
        elif self._steps >= self.max_steps:
            self.truncations = dict.fromkeys(self.agents, True)
        self._accumulate_rewards()
        self._select()

    def _select(self) -> None:
        acting = self.game.to_act(self.state_)
        if acting and not any(self.terminations.values()) and not any(self.truncations.values()):
            self.agent_selection = agent_name(min(acting))
        else:
            self.agent_selection = self.agents[0] if self.agents else ""

    def render(self) -> str | None:
        if self.render_mode != "ansi":
            return None
        view = self.game.view(self.state_, None)
        return f"version {self._version}, to act {view.get('to_act')}, finished {view.get('finished')}"

    def close(self) -> None:
        return None


def make_env(game: str, seats: int, options: Mapping[str, Any] | None = None, seed: int | None = None,
             **kwargs: Any) -> GameEnv:
    """An AEC environment for ``seats`` players of ``game``; call ``reset()`` before use."""
    return GameEnv(game, seats, options, seed, **kwargs)

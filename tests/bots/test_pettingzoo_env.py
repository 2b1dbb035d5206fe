"""The PettingZoo AEC environments pass PettingZoo's own API test; masks follow the legal commands."""

from __future__ import annotations

import numpy as np
import pytest
from pettingzoo.test import api_test

from services.bots.pettingzoo_env import make_env
from services.games import get_game


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize(("game", "seats"), [("moderne-zeiten", 3), ("moderne-zeiten", 5), ("nim", 2)])
def test_pettingzoo_api_test(game: str, seats: int) -> None:
    api_test(make_env(game, seats, seed=1), num_cycles=500)


def test_a_masked_random_agent_plays_a_match_to_its_rewards() -> None:
    env = make_env("moderne-zeiten", 4, seed=3)
    env.reset()
    game = get_game("moderne-zeiten")
    rng = np.random.default_rng(0)
    steps = 0
    final: dict[str, float] = {}
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, info = env.last()
        if terminated or truncated:
            final[agent] = float(reward)
            assert len(info["scores"]) == 4
            env.step(None)
            continue
        mask = obs["action_mask"]
        seat = int(agent.removeprefix("seat_"))
        assert mask.sum() == len(game.legal_commands(env.state_, seat)) > 0
        assert obs["observation"].shape == env.observation_space(agent)["observation"].shape
        env.step(int(rng.choice(np.flatnonzero(mask))))
        steps += 1
    assert steps > 20
    assert env.agents == []
    assert sorted(final) == [f"seat_{s}" for s in range(4)]
    assert sum(final.values()) == pytest.approx(1.0)  # the win, shared among the winners


def test_an_illegal_action_is_refused_clearly() -> None:
    env = make_env("nim", 2, seed=0)
    env.reset()
    with pytest.raises(ValueError, match="not one of the"):
        env.step(3 + 10)

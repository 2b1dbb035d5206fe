"""Mad Zeppelin's bots: the heuristic beats random players, ISMCTS plays a match, and the heuristic's
choices make sense (never naming its own Traitors, paying with crates first)."""

from __future__ import annotations

import random

from services.bots.mad_zeppelin import OBS_SIZE, PLUGIN, Heuristic, encode, evaluate, rollout
from services.bots.tournament import run_tournament
from services.games import get_game
from services.games.base import Command
from services.games.mad_zeppelin.data import CRATE_VALUE
from services.games.mad_zeppelin.rules import throw_cost
from services.games.mad_zeppelin.state import State
from tests.games.harness import start

GAME = get_game("mad-zeppelin")


def test_the_heuristic_beats_random_players() -> None:
    result = run_tournament("mad-zeppelin", ["heuristic", "random", "random", "random"], matches=40, seed=1)
    assert result.rejected == 0
    heuristic, random_ = result.bots["heuristic"], result.bots["random"]
    assert result.beats_chance("heuristic"), result.table()  # the whole 95% interval above 25%
    assert heuristic.average_score > random_.average_score
    assert sum(t.played for t in result.by_seat) == 40 * 4


def test_ismcts_plays_a_match_to_the_end() -> None:
    result = run_tournament("mad-zeppelin", ["ismcts:10", "heuristic", "random"], matches=1, seed=4)
    assert result.matches == 1 and result.rejected == 0


def _heuristic_match(seats: int, seed: int, mode: str = "run") -> list[tuple[State, Command]]:
    """A match among heuristic bots: each state with the command chosen in it."""
    state, _ = start(GAME, seats, {"mode": mode}, seed)
    bots = [Heuristic(seed * 10 + s) for s in range(seats)]
    rng = random.Random(seed)
    out = []
    while GAME.outcome(state) is None:
        seat = min(GAME.to_act(state))
        legal = GAME.legal_commands(state, seat)
        assert len(legal) <= PLUGIN.max_actions
        view = GAME.view(state, seat)
        assert len(encode(view)) == OBS_SIZE
        choice = bots[seat].choose(view, [{"type": c.type, "body": c.body} for c in legal])
        command = Command(seat, choice["type"], choice["body"])
        out.append((state, command))
        for event in GAME.decide(state, command, rng):
            state = GAME.evolve(state, event)
    return out


def test_the_heuristic_never_names_its_own_traitors_and_pays_with_crates_first() -> None:
    named = throws = crate_paid = 0
    for seats, seed in ((2, 1), (3, 2), (4, 3), (5, 4), (6, 5)):
        for state, command in _heuristic_match(seats, seed, "long_haul" if seed % 2 else "run"):
            player = state.players[command.seat]
            if command.type == "use_ability" and "traitor" in command.body:
                assert command.body["traitor"] not in player.traitors
                named += 1
            if command.type == "throw" and command.body["card"] != "alcohol":
                throws += 1
                cost = throw_cost(state, command.seat, command.body["card"])
                crates = [c for c in player.hand if c in CRATE_VALUE]
                if cost and crates:
                    assert command.body.get("crates"), (command, player.hand)
                    crate_paid += 1
    assert named > 5 and throws > 50 and crate_paid > 0


def test_the_playout_policy_and_evaluation_keep_to_the_rules() -> None:
    rng = random.Random(3)
    for seats in (2, 4, 6):
        state, _ = start(GAME, seats, {}, seats)
        steps = 0
        while GAME.outcome(state) is None:
            seat = min(GAME.to_act(state))
            command = rollout(state, seat, rng) or rng.choice(GAME.legal_commands(state, seat))
            for event in GAME.decide(state, command, rng):  # a rejected command would raise
                state = GAME.evolve(state, event)
            steps += 1
            if steps % 25 == 0:
                outcome = evaluate(state)
                assert len(outcome.scores) == seats and outcome.winners
        assert steps < 2000

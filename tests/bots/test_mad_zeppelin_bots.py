"""Mad Zeppelin's bots: the heuristic beats random players, ISMCTS plays a match, and the heuristic's
choices make sense (never naming its own Traitors, paying with crates first)."""

from __future__ import annotations

import random

from services.bots.tournament import run_tournament
from services.games import get_game
from services.games.base import Command
from services.games.mad_zeppelin.bot import OBS_SIZE, PLUGIN, Heuristic, encode, evaluate, rollout
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


def test_the_search_streams_are_named_by_where_the_match_is() -> None:
    """Two playout steps at the same point of the match draw from the same stream; steps of a turn that
    differ in who acts or how far his sequence has come draw from different ones."""
    assert PLUGIN.playout_stream is not None and PLUGIN.search_when is not None
    rng = random.Random(5)
    state, _ = start(GAME, 2, {}, 5)
    keys: dict[int, tuple[object, ...]] = {}
    points: dict[tuple[object, ...], int] = {}
    bots = [Heuristic(s) for s in range(2)]
    while GAME.outcome(state) is None:
        seat = min(GAME.to_act(state))
        key = PLUGIN.playout_stream(state)
        assert key == PLUGIN.playout_stream(state._replace(hold=state.hold[1:]))  # what is hidden is no part of it
        seq = state.seq
        point = (state.turn, state.round, str(state.phase), state.seat) + (
            () if seq is None else (seq.throw, seq.ability_used, len(seq.steals), state.players[seq.seat].rerolls))
        assert keys.setdefault(key, point) == point  # one stream a point of the match, and one point a stream
        assert points.setdefault(point, key) == key
        legal = GAME.legal_commands(state, seat)
        chosen = bots[seat].choose(GAME.view(state, seat), [{"type": c.type, "body": c.body} for c in legal])
        for event in GAME.decide(state, Command(seat, chosen["type"], chosen["body"]), rng):
            state = GAME.evolve(state, event)
    assert len(keys) > 20


def test_the_search_leaves_the_white_dice_and_replies_to_the_heuristic() -> None:
    assert PLUGIN.search_when is not None
    view: dict[str, object] = {}
    assert PLUGIN.search_when(view, [{"type": "draft", "body": {"traitor": "captain"}}])
    assert not PLUGIN.search_when(view, [{"type": "choose_colour", "body": {"die": 0, "colour": "red"}}])
    assert not PLUGIN.search_when(view, [{"type": "give", "body": {"what": "gold"}}])

"""Information-set MCTS: it searches from its own view only, is reproducible, and plays well."""

from __future__ import annotations

import random

from services.bots.ismcts import ISMCTSBot, command_key
from services.bots.tournament import run_tournament
from services.games import get_game
from services.games.moderne_zeiten.state import State
from tests.games.harness import start

MZ = get_game("moderne-zeiten")


def _legal(state: State, seat: int) -> list[dict[str, object]]:
    return [{"type": c.type, "body": c.body} for c in MZ.legal_commands(state, seat)]


def _midgame(seed: int, turn: bool = True) -> State:
    """A state after some random play where the acting seat has a real choice (a turn when ``turn``)."""
    state, _ = start(MZ, 4, {}, seed)
    pick = random.Random(seed)
    for step in range(400):
        seat = min(MZ.to_act(state))
        if step > 25 and (state.phase == "turn") == turn and len(MZ.legal_commands(state, seat)) > 3:
            return state
        for event in MZ.decide(state, pick.choice(MZ.legal_commands(state, seat)), pick):
            state = MZ.evolve(state, event)
    raise AssertionError("no suitable state")


def test_ismcts_beats_random_at_nim() -> None:
    result = run_tournament("nim", ["ismcts:200", "random"], matches=20, seed=3)
    assert result.beats_chance("ismcts:200"), result.table()


def test_ismcts_plays_a_moderne_zeiten_match_to_the_end() -> None:
    result = run_tournament("moderne-zeiten", ["ismcts:10", "heuristic", "random"], matches=1, seed=4)
    assert result.matches == 1 and result.rejected == 0


def test_the_choice_depends_only_on_the_view_not_on_the_hidden_state() -> None:
    state = _midgame(5)
    seat = min(MZ.to_act(state))
    # the same public situation with the other hands and the stack dealt differently
    others = [p for p in range(4) if p != seat]
    hands = list(state.hands)
    hands[others[0]], hands[others[1]] = state.hands[others[1]], state.hands[others[0]]
    twin = state._replace(hands=tuple(hands), stack=tuple(reversed(state.stack)))
    if sum(hands[others[0]]) != sum(state.hands[others[0]]):  # equal counts keep the views equal
        twin = state._replace(stack=tuple(reversed(state.stack)))
    assert twin != state
    assert MZ.view(twin, seat) == MZ.view(state, seat)
    choices = [ISMCTSBot("moderne-zeiten", seed=7, iterations=40).choose(MZ.view(s, seat), _legal(s, seat))
               for s in (state, twin)]
    assert choices[0] == choices[1]


def test_the_root_is_searched_among_the_heuristics_best_commands_and_the_choice_is_legal() -> None:
    state = _midgame(6)
    seat = min(MZ.to_act(state))
    legal = _legal(state, seat)
    bot = ISMCTSBot("moderne-zeiten", seed=1, iterations=60, root_width=4)
    choice = bot.choose(MZ.view(state, seat), legal)
    assert choice in legal
    assert bot.last_root is not None
    assert len(bot.last_root.children) <= 4
    assert sum(child.visits for child in bot.last_root.children.values()) == 60
    assert command_key(choice["type"], choice["body"]) in bot.last_root.children


def test_a_time_budget_stops_the_search() -> None:
    state = _midgame(8)
    seat = min(MZ.to_act(state))
    bot = ISMCTSBot("moderne-zeiten", seed=1, iterations=10**6, time_budget_s=0.2)
    bot.choose(MZ.view(state, seat), _legal(state, seat))
    assert bot.last_root is not None
    assert 0 < sum(child.visits for child in bot.last_root.children.values()) < 10**6


def test_the_guided_search_keeps_the_heuristics_choice_unless_another_clearly_beats_it() -> None:
    bot = ISMCTSBot("moderne-zeiten", seed=1, margin=0.02, confidence=1.5)
    noisy: list[list[float | None]] = [[0.5, 0.4, 0.6, 0.5], [0.9, 0.0, 1.0, 0.2], [0.5, 0.42, None, 0.5]]
    assert bot._pick(noisy) == 0  # better on average, but within the noise (or too little)
    clear: list[list[float | None]] = [[0.5, 0.4, 0.6, 0.5], [0.7, 0.6, 0.8, 0.7], [0.6, 0.5, 0.7, 0.6]]
    assert bot._pick(clear) == 1  # the largest clear gain


def test_successive_halving_spends_the_playouts_on_the_heuristics_choice_and_the_best_challengers() -> None:
    state = _midgame(6)
    seat = min(MZ.to_act(state))
    legal = _legal(state, seat)
    bot = ISMCTSBot("moderne-zeiten", seed=1, iterations=96, root_width=4, halving=True)
    choice = bot.choose(MZ.view(state, seat), legal)
    assert choice in legal
    assert bot.last_root is not None
    visits = sorted(child.visits for child in bot.last_root.children.values())
    # two stages of 48 playouts: 4 candidates x 12 rounds, then the heuristic's and the best other x 24
    assert visits == [12, 12, 36, 36]
    assert bot.last_root.children[command_key(choice["type"], choice["body"])].visits == 36


def test_modern_worlds_short_playout_lists_are_among_the_legal_commands() -> None:
    from services.games.modern_world.bot import playout_commands

    game = get_game("modern-world")
    state, _ = start(game, 3, {}, 2)
    pick = random.Random(2)
    checked = 0
    for _ in range(600):
        if game.outcome(state) is not None:
            break
        seat = min(game.to_act(state))
        legal = game.legal_commands(state, seat)
        short = playout_commands(state, seat)
        if short is not None and state.phase in ("leader", "market", "trade"):
            keys = {command_key(c.type, c.body) for c in legal}
            assert {command_key(c.type, c.body) for c in short} <= keys
            checked += 1
        for event in game.decide(state, pick.choice(legal), pick):
            state = game.evolve(state, event)
    assert checked > 20

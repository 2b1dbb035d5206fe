"""Modern World bots: resample keeps every seat's view, the heuristic beats random players, ISMCTS plays."""

from __future__ import annotations

import random
from typing import Any

import pytest

from services.bots.tournament import run_tournament
from services.games import get_game
from services.games.base import Command
from services.games.modern_world.bot import OBS_SIZE, Heuristic, encode, evaluate, rollout
from services.games.modern_world.resample import resample
from services.games.rng import derive_rng

MW = get_game("modern-world")


def _playout(seats: int, seed: int, national_identity: bool) -> list[Any]:
    """Every state of a random match (the random commands come from the legal list)."""
    state = MW.initial()
    for event in MW.setup({"national_identity": national_identity}, seats, derive_rng(seed, 0)):
        state = MW.evolve(state, event)
    pick = random.Random(seed)
    out = [state]
    while MW.outcome(state) is None:
        seat = min(MW.to_act(state))
        for event in MW.decide(state, pick.choice(MW.legal_commands(state, seat)), pick):
            state = MW.evolve(state, event)
        out.append(state)
    return out


@pytest.mark.parametrize("national_identity", [False, True])
@pytest.mark.parametrize("seats", [2, 3, 4, 5, 6])
def test_resample_keeps_every_seats_view_and_every_legal_command_is_accepted(
        seats: int, national_identity: bool) -> None:
    rng = random.Random(seats)
    states = _playout(seats, seed=10 * seats + national_identity, national_identity=national_identity)
    trading = [s for s in states if s.trades]
    assert trading, "the playout should reach open trade proposals"
    for state in states[::9] + trading[::5]:
        for seat in range(seats):
            view = MW.view(state, seat)
            sampled = resample(view, seat, rng)
            assert MW.view(sampled, seat) == view
            for acting in MW.to_act(sampled):
                for command in MW.legal_commands(sampled, acting):
                    MW.decide(sampled, command, random.Random(0))


def test_resample_deals_the_hidden_cards_at_random_and_keeps_our_own() -> None:
    state = next(s for s in _playout(4, seed=3, national_identity=False)
                 if len(s.players[1].hand) >= 2 and len(s.resource_deck) > 2)
    view = MW.view(state, 0)
    samples = [resample(view, 0, random.Random(k)) for k in range(8)]
    assert all(s.players[0].hand == state.players[0].hand for s in samples)
    assert len({s.players[1].hand for s in samples}) > 1
    assert len({s.resource_deck for s in samples}) > 1
    with pytest.raises(ValueError, match="own view"):
        resample(MW.view(state, 1), 0, random.Random(0))


def test_resample_puts_cards_offered_to_us_into_the_proposers_hand() -> None:
    for state in _playout(3, seed=5, national_identity=False):
        for t in state.trades:
            if t.give_cards:
                sampled = resample(MW.view(state, t.to), t.to, random.Random(1))
                hand = sampled.players[t.frm].hand
                assert all(hand.count(c) >= t.give_cards.count(c) for c in t.give_cards)
                return
    pytest.fail("no proposal offering a card in this playout")


def test_the_heuristic_plays_only_accepted_commands_and_the_helpers_fit_the_state() -> None:
    bot, rng = Heuristic(1), random.Random(2)
    for state in _playout(4, seed=7, national_identity=True)[::3]:
        if MW.outcome(state) is not None:
            continue
        seat = min(MW.to_act(state))
        view = MW.view(state, seat)
        legal = [{"type": c.type, "body": c.body} for c in MW.legal_commands(state, seat)]
        choice = bot.choose(view, legal)
        MW.decide(state, Command(seat, choice["type"], choice.get("body", {})), rng)
        assert len(encode(view)) == OBS_SIZE
        assert len(bot.values(view, legal)) == len(legal)
        move = rollout(state, seat, rng)
        if move is not None:
            MW.decide(state, move, rng)
        assert len(evaluate(state).scores) == 4


def test_the_modern_world_heuristic_beats_random_players() -> None:
    result = run_tournament("modern-world", ["heuristic", "random", "random", "random"], matches=24, seed=1)
    assert result.rejected == 0
    assert result.beats_chance("heuristic"), result.table()  # the whole 95% interval above 25%
    assert result.bots["heuristic"].average_score > 2 * result.bots["random"].average_score


def test_ismcts_plays_a_modern_world_match_to_the_end() -> None:
    result = run_tournament("modern-world", ["ismcts:8", "heuristic", "random"], matches=1, seed=4)
    assert result.matches == 1 and result.rejected == 0

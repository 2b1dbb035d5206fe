"""Modern World: hidden information. Hands are seen only by their owner; deck orders by nobody."""

from __future__ import annotations

import random

from services.games.base import Command
from services.games.modern_world.codec import res_ids
from services.games.modern_world.state import Phase, State
from services.games.modern_world.tests.helpers import GAME, new_match
from tests.games.harness import random_playout


def _with_hand(s: State, seat: int, names: list[str]) -> State:
    players = list(s.players)
    players[seat] = players[seat]._replace(hand=tuple(sorted(res_ids(names))))
    return s._replace(players=tuple(players))


def _midgame(seed: int = 3, seats: int = 4) -> State:
    """A state some way into a match, with cards in hands."""
    s, log = new_match(seats, seed=seed)
    pick = random.Random(seed)
    for _ in range(400):
        if GAME.outcome(s) is not None:
            break
        seat = pick.choice(sorted(GAME.to_act(s)))
        cmd = pick.choice(GAME.legal_commands(s, seat))
        for e in GAME.decide(s, cmd, random.Random(len(log))):
            s = GAME.evolve(s, e)
            log.append(e)
        if sum(len(p.hand) for p in s.players) >= 6:
            break
    return s


def test_a_players_hand_is_invisible_to_the_others() -> None:
    s = _with_hand(_midgame(), 1, ["Finance", "Media", "Media"])
    changed = _with_hand(s, 1, ["Oil", "Oil", "Law"])  # same count, other cards
    assert changed != s
    for seat in (None, 0, 2, 3):
        assert GAME.view(changed, seat) == GAME.view(s, seat)
    assert GAME.view(changed, 1) != GAME.view(s, 1)
    assert sorted(GAME.view(changed, 1)["players"][1]["hand"]) == ["Law", "Oil", "Oil"]


def test_other_hands_show_only_as_counts() -> None:
    s = _with_hand(_midgame(), 2, ["Finance", "Media"])
    view = GAME.view(s, 0)
    assert view["players"][2]["hand"] is None and view["players"][2]["hand_count"] == 2
    assert GAME.view(s, None)["players"][0]["hand"] is None


def test_deck_orders_are_invisible_to_everyone() -> None:
    s = _midgame()
    shuffled = s._replace(
        resource_deck=tuple(reversed(s.resource_deck)),
        market_deck=tuple(reversed(s.market_deck)),
        event_deck=tuple(reversed(s.event_deck)),
    )
    assert shuffled != s
    for seat in (None, 0, 1, 2, 3):
        assert GAME.view(shuffled, seat) == GAME.view(s, seat)


def test_trade_contents_are_invisible_to_third_parties() -> None:
    s = _with_hand(_with_hand(_midgame(), 0, ["Oil"]), 1, ["Law"])
    s = s._replace(phase=Phase.TRADE, queue=(), done=(), trades=(), proposals=(0, 0, 0, 0), auction=None)
    rng = random.Random(0)
    events = GAME.decide(s, Command(0, "propose_trade", {"to": 1, "give_cards": ["Oil"]}), rng)
    a = GAME.evolve(s, events[0])
    events = GAME.decide(s, Command(0, "propose_trade", {"to": 1, "get_tokens": {"money": 1}}), rng)
    b = GAME.evolve(s, events[0])
    assert GAME.view(a, 2) == GAME.view(b, 2) and GAME.view(a, None) == GAME.view(b, None)
    assert GAME.view(a, 1) != GAME.view(b, 1)


def test_views_over_a_whole_match_never_show_another_hand() -> None:
    _, log, _ = random_playout(GAME, 3, {}, seed=5)
    for e in log:
        if e.visible_to is not None:
            for seat in (None, 0, 1, 2):
                if seat is None or seat not in e.visible_to:
                    body = e.seen_by(seat)
                    assert body == (e.redacted or {})
                    assert ("resource" not in body and "cards" not in body) or body.get("cards") is None

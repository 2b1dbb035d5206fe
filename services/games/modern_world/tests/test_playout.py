"""Modern World: random playouts (600 matches over 2-6 players and both option settings).

Each match is checked by the shared harness (legal commands accepted, decide pure, replay equality,
schemas) and here after every step: no negative tokens, every card accounted for (deck, tableau,
hands, in play, discards), hands within the limit between turns, trades only among players still
trading. Token conservation is checked event by event over a quarter of the matches: each event
changes the players' token totals by exactly what it says was produced, won, paid or converted,
and a trade moves tokens without creating any.
"""

from __future__ import annotations

from collections import Counter

import pytest

from services.games.base import Event
from services.games.modern_world.data import (
    EVENTS,
    HAND_LIMIT,
    MARKETS,
    MONEY_PER_TOKEN,
    RESOURCES,
    TOKEN_INDEX,
)
from services.games.modern_world.state import Phase, State
from services.games.modern_world.tests.helpers import GAME
from tests.games.harness import random_playout

MATCHES = 600  # 2,000 before legal_commands came from the complete ``legal`` (hundreds of proposals to choose
# from in a trade phase make each match about 7 times slower; services/games/modern_world/tests/test_legal.py adds the
# conformance check on random states)
N_RES, N_MKT, N_EVT = 4 * len(RESOURCES), len(MARKETS), len(EVENTS)


def invariant(s: State) -> None:
    if s.phase == Phase.SETUP:
        return
    res = len(s.resource_deck) + len(s.tableau) + len(s.resource_discard)
    evt = len(s.event_deck) + len(s.event_discard) + (s.current_event is not None)
    for p in s.players:
        assert min(p.tokens) >= 0, f"negative tokens {p.tokens}"
        res += len(p.hand) + len(p.in_play)
        evt += len(p.permanents)
    assert res == N_RES, f"resource cards: {res}"
    assert len(s.market_deck) + len(s.market_row) + len(s.market_discard) == N_MKT
    assert evt == N_EVT, f"event cards: {evt}"
    assert len(s.tableau) <= 10
    if s.phase == Phase.LEADER:
        assert all(len(p.hand) <= HAND_LIMIT for p in s.players)
    if s.phase == Phase.TRADE:
        assert all(t.frm not in s.done and t.to not in s.done for t in s.trades)
    else:
        assert not s.trades


def full_card_check(s: State) -> None:
    cards = Counter(s.resource_deck + s.tableau + s.resource_discard)
    for p in s.players:
        cards.update(p.hand + p.in_play)
    assert all(cards[i] == 4 for i in range(len(RESOURCES)))
    assert sorted(s.market_deck + s.market_row + s.market_discard) == list(range(N_MKT))
    held = [c for p in s.players for c in p.permanents]
    assert sorted(s.event_deck + s.event_discard + tuple(held)) == list(range(N_EVT))


def declared(e: Event) -> list[int]:
    """The change in all players' token totals an event declares (0 for moves between players)."""
    out = [0] * 7
    b = e.body

    def add(counts: dict[str, int], sign: int = 1) -> None:
        for name, n in counts.items():
            out[TOKEN_INDEX[name]] += sign * n

    t = e.type
    if t == "TokensProduced":
        for g in b["gains"]:
            add(g)
    elif t == "TokensChanged":
        out[TOKEN_INDEX[b["token"]]] += b["delta"]
    elif t == "AuctionWon":
        out[TOKEN_INDEX["influence"]] -= b["bid"]
        add(b["reward"])
    elif t == "CardBought":
        out[TOKEN_INDEX["action"]] -= b["action"]
        out[TOKEN_INDEX["research"]] -= b["research"]
    elif t == "CardsInvested":
        add(b["gains"])
    elif t == "CardBuilt":
        out[TOKEN_INDEX["materials"]] -= b["materials"]
        out[TOKEN_INDEX["labor"]] -= b["labor"]
    elif t == "MoneyConverted":
        out[TOKEN_INDEX["money"]] -= MONEY_PER_TOKEN * b["count"]
        out[TOKEN_INDEX[b["into"]]] += b["count"]
    return out


def totals(s: State) -> list[int]:
    return [sum(column) for column in zip(*(p.tokens for p in s.players), strict=True)]


def check_ledger(log: list[Event]) -> None:
    s = GAME.evolve(GAME.initial(), log[0])
    for e in log[1:]:
        before = totals(s)
        s = GAME.evolve(s, e)
        after = totals(s)
        assert [a - b for a, b in zip(after, before, strict=True)] == declared(e), e


CASES = [(seats, ni) for seats in range(2, 7) for ni in (False, True)]


@pytest.mark.slow
@pytest.mark.parametrize(("seats", "national_identity"), CASES)
def test_random_playouts(seats: int, national_identity: bool) -> None:
    per_case = MATCHES // len(CASES)
    turns = []
    for k in range(per_case):
        seed = seats * 100_000 + national_identity * 10_000 + k
        state, log, outcome = random_playout(
            GAME, seats, {"national_identity": national_identity}, seed, invariant=invariant
        )
        full_card_check(state)
        if k % 4 == 0:
            check_ledger(log)
        assert outcome.winners and max(outcome.scores) == outcome.scores[outcome.winners[0]]
        if national_identity:
            assert len({p.nation for p in state.players}) == seats
        turns.append(state.turn)
    assert min(turns) >= 1


def test_every_listed_legal_command_is_accepted() -> None:
    for seats in (2, 4, 6):
        random_playout(GAME, seats, {"national_identity": seats == 4}, seats, invariant=invariant,
                       check_every_legal=True, schema_every=25)

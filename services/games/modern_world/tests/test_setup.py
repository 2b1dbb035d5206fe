"""Modern World: the decks as data, set-up, options and the national identity option."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from services.games.errors import BadOptions, IllegalMove
from services.games.modern_world.codec import res_names
from services.games.modern_world.data import (
    BASELINE,
    EVENTS,
    MARKETS,
    NATIONS,
    RESOURCE_INDEX,
    RESOURCES,
    TOKENS,
)
from services.games.modern_world.state import Phase
from services.games.modern_world.tests.helpers import GAME, new_match, play

SEED = Path("/work/shared/rules/seeds/modern_world.txt")


def _seed_section(start: str, stop: str) -> list[str]:
    text = SEED.read_text()
    body = text.split(start, 1)[1].split(stop, 1)[0]
    return [line for line in body.strip().splitlines()[1:] if line.strip()]


def test_resource_deck_has_four_copies_of_28_cards() -> None:
    s, _ = new_match(3)
    total = len(s.resource_deck) + len(s.tableau)
    assert len(RESOURCES) == 28
    assert total == 112
    everything = s.resource_deck + s.tableau
    assert all(everything.count(i) == 4 for i in range(28))


def test_market_deck_has_the_25_cards_once() -> None:
    s, _ = new_match(3)
    assert len(MARKETS) == 25
    assert sorted(s.market_deck) == list(range(25))


def test_event_deck_has_every_listed_event_card_once() -> None:
    s, _ = new_match(3)
    assert len(EVENTS) == 44  # the seed lists 44 (the rules file's "50" has no further cards)
    held = s.event_deck + s.event_discard + tuple(c for p in s.players for c in p.permanents)
    assert sorted(held) == list(range(44))


@pytest.mark.skipif(not SEED.exists(), reason="seed rule text not available")
def test_resource_cards_transcribe_the_seed_table() -> None:
    lines = _seed_section("RESOURCE DECK CARD LIST", "EVENT & MARKET DECK CARD NOTATION")
    seen = []
    for line in lines:
        *name_parts, v, i, money, m, lab, r, a = line.split()
        name = " ".join(name_parts)
        values = tuple(0 if x == "-" else int(x) for x in (v, i, money, m, lab, r, a))
        assert RESOURCES[RESOURCE_INDEX[name]].production == values, name
        seen.append(name)
    assert seen == [c.name for c in RESOURCES]


@pytest.mark.skipif(not SEED.exists(), reason="seed rule text not available")
def test_market_cards_transcribe_the_seed_table() -> None:
    lines = _seed_section("MARKET DECK CARD LIST", "OPTIONAL RULE")
    short = {
        "VT": "victory", "LT": "labor", "MT": "materials", "$T": "money", "RT": "research", "AT": "action",
    }
    got = [(m.name, m.amount, TOKENS[m.token]) for m in MARKETS]
    want = []
    for line in lines:
        match = re.match(r"(.+) (\d+) (\S+)$", line)
        assert match, line
        want.append((match.group(1), int(match.group(2)), short[match.group(3)]))
    assert got == want


@pytest.mark.skipif(not SEED.exists(), reason="seed rule text not available")
def test_event_cards_transcribe_every_seed_card_in_order() -> None:
    lines = _seed_section("EVENT DECK CARD LIST", "MARKET DECK CARD LIST")
    names = [line for line in lines]
    for card, line in zip(EVENTS, names, strict=True):
        assert line.startswith(card.name + " "), (card.name, line)


def test_each_player_starts_with_three_of_each_token_and_no_cards() -> None:
    s, events = new_match(4, seed=5)
    before_production = GAME.initial()
    for e in events[: [e.type for e in events].index("TokensProduced")]:
        before_production = GAME.evolve(before_production, e)
    assert all(p.tokens == (3,) * 7 for p in before_production.players)
    produced = next(e for e in events if e.type == "TokensProduced")
    assert all(g == {TOKENS[i]: n for i, n in enumerate(BASELINE)} for g in produced.body["gains"])
    for p in s.players:
        assert not p.hand and not p.in_play


def test_top_ten_resource_cards_form_the_tableau() -> None:
    _, events = new_match(2, seed=3)
    shuffled = next(e for e in events if e.type == "DecksShuffled")
    dealt = next(e for e in events if e.type == "TableauDealt")
    assert dealt.body["cards"] == shuffled.body["resource"][:10]


def test_a_random_player_gets_the_leader_marker() -> None:
    leaders = {new_match(5, seed=seed)[0].leader for seed in range(30)}
    assert len(leaders) > 1


def test_first_turn_opens_with_the_leader_auction_starting_with_the_leader() -> None:
    s, _ = new_match(3, seed=2)
    assert s.phase == Phase.LEADER and s.turn == 1
    assert s.auction is not None and s.auction.turn == s.leader and s.auction.card is None


def test_match_started_is_first_and_carries_validated_options() -> None:
    _, events = new_match(2)
    assert events[0].type == "MatchStarted"
    assert events[0].body == {"game": "modern-world", "seats": 2, "options": {"national_identity": False}}


def test_deck_orders_are_hidden_from_everyone() -> None:
    _, events = new_match(2)
    shuffled = next(e for e in events if e.type == "DecksShuffled")
    assert shuffled.visible_to == ()
    assert shuffled.seen_by(0) == {"counts": [112, 25, 44]}


@pytest.mark.parametrize("seats", [1, 7, 0])
def test_two_to_six_players(seats: int) -> None:
    with pytest.raises(BadOptions, match="2 to 6"):
        GAME.setup({}, seats, __import__("random").Random(0))


def test_unknown_option_is_rejected() -> None:
    with pytest.raises(BadOptions):
        GAME.setup({"nationalidentity": True}, 3, __import__("random").Random(0))


def test_national_identity_is_off_by_default() -> None:
    s, _ = new_match(3)
    assert not s.national_identity and all(p.nation is None for p in s.players)


def test_national_identity_players_pick_distinct_nations_in_turn_order_from_the_leader() -> None:
    s, _ = new_match(3, seed=4, national_identity=True)
    assert s.phase == Phase.NATIONS
    first = s.leader
    assert s.queue == s.order_from(first)
    s, _ = play(s, first, "pick_nation", nation="Japan")
    second = (first + 1) % 3
    with pytest.raises(IllegalMove, match="Japan is already taken"):
        play(s, second, "pick_nation", nation="Japan")
    s, _ = play(s, second, "pick_nation", nation="USA")
    s, events = play(s, (first + 2) % 3, "pick_nation", nation="Europe")
    assert s.players[first].nation == "Japan"
    assert res_names(s.players[first].in_play) == ["Technology"]
    assert res_names(s.players[second].in_play) == ["Military"]
    assert res_names(s.players[(first + 2) % 3].in_play) == ["Culture"]
    assert "TableauDealt" in [e.type for e in events]
    assert s.phase == Phase.LEADER


def test_national_identity_card_comes_from_the_resource_deck() -> None:
    s, _ = new_match(2, seed=1, national_identity=True)
    before = s.resource_deck.count(RESOURCE_INDEX["Manufacturing"])
    s, _ = play(s, s.leader, "pick_nation", nation="China")
    assert s.resource_deck.count(RESOURCE_INDEX["Manufacturing"]) == before - 1
    assert len(s.resource_deck) == 111


def test_national_identity_starting_card_adds_capacity() -> None:
    s, _ = new_match(2, seed=1, national_identity=True)
    leader = s.leader
    s, _ = play(s, leader, "pick_nation", nation="China")
    s, events = play(s, 1 - leader, "pick_nation", nation="India")
    gains = next(e for e in events if e.type == "TokensProduced").body["gains"]
    assert gains[leader]["money"] == BASELINE[2] + 2 and gains[leader]["materials"] == BASELINE[3] + 1
    assert gains[1 - leader]["labor"] == BASELINE[4] + 2
    assert set(NATIONS) == {"Europe", "China", "Japan", "India", "Russia", "USA"}

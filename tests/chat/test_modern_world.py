"""Modern World in chat: every legal command has a natural chat form that parses back to it (random reachable
states, all seat counts, both options), the help lists only commands that parse, garbage gets a helpful reply,
and the board and events read as short text that never names another seat's secret cards. ``legal`` is what a
seat's view record carries: the choices' wire form, open ranges and card choices included."""

from __future__ import annotations

import random
import re
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from schemas.envelopes import EventEnvelope
from schemas.legal import concrete, covered
from services.chat.adapter import ChatError, get_adapter
from services.chat.games.words import Problem, read_items
from services.games.base import Command, Event, Game
from services.games.errors import IllegalMove
from services.games.modern_world import GAME
from services.games.modern_world.chat import ModernWorldAdapter, card_of, token_of
from services.games.modern_world.state import Phase, State, Trade
from services.games.modern_world.tests.helpers import auction, player, state, tokens
from services.games.rng import derive_rng
from services.replay.render import render_board
from tests.chat import chat_helpers

MW = get_adapter("modern-world")


def buying_cheap(game: Game[Any], state: State, acting: list[int], pick: random.Random) -> Command:
    """A random seat's random command, but half the time a cheap card when one can be bought: matches end
    sooner."""
    legal = game.legal_commands(state, pick.choice(acting))
    cheap = [c for c in legal if c.type == "buy" and c.body["position"] <= 2]
    return pick.choice(cheap if cheap and pick.random() < 0.5 else legal)


def playout(seed: int, seats: int, options: dict[str, bool], steps: int) -> list[tuple[State, list[Event]]]:
    return chat_helpers.playout(GAME, seed, seats, options, steps, buying_cheap)


def legal_of(state: State, seat: int) -> list[dict[str, Any]]:
    """The seat's ``legal`` as its view record carries it."""
    return [c.wire() for c in GAME.legal(state, seat)]


def same_command(parsed: Any, command: dict[str, Any]) -> bool:
    """``parsed`` is ``command``, or its long form (a purchase naming both payments, a conversion its count)."""
    if parsed == command:
        return True
    body = dict(command["body"])
    if command["type"] == "buy":
        body = {"action": 0, "research": 0, **body}
    if command["type"] == "convert":
        body = {"count": 1, **body}
    return bool(parsed == {"type": command["type"], "body": body})


def options_in(help_: str) -> list[str]:
    """The concrete commands a help text lists (``bid 3..9`` gives its two ends)."""
    listed = help_.removeprefix("Legal now: ").split(" (or any other")[0].split(" | ")
    out = []
    for option in listed:
        bids = re.fullmatch(r"bid (\d+)\.\.(\d+)", option)
        out += [f"bid {bids[1]}", f"bid {bids[2]}"] if bids else [option]
    return out


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 2**32), st.integers(2, 6), st.booleans(), st.integers(0, 400))
def test_every_legal_command_round_trips_through_its_chat_form(seed: int, seats: int, nations: bool,
                                                              steps: int) -> None:
    sampler = random.Random(seed)
    for state_, _ in playout(seed, seats, {"national_identity": nations}, steps)[-25:]:
        for seat in GAME.to_act(state_):
            choices = GAME.legal(state_, seat)
            legal = legal_of(state_, seat)
            commands = [{"type": t, "body": b} for t, b in concrete(choices, 6)]
            commands += [{"type": c.type, "body": c.sample(sampler)} for c in choices]
            for command in commands:
                text = MW.format_command(command)
                parsed = MW.parse(text, legal)
                assert not isinstance(parsed, ChatError) and same_command(parsed, command), (text, parsed, command)
                assert covered(choices, parsed["type"], parsed["body"]), text
            help_ = MW.describe_legal(legal)
            assert len(f"Your move. {help_}".encode()) <= 400, help_
            for option in options_in(help_):
                parsed = MW.parse(option, legal)
                assert not isinstance(parsed, ChatError), (option, parsed)
                assert covered(choices, parsed["type"], parsed["body"]), option
                GAME.decide(state_, Command(seat, parsed["type"], parsed["body"]), derive_rng(seed, 999))


WORDS = ["bid", "pass", "buy", "invest", "offer", "accept", "decline", "build", "discard", "convert", "done", "nation",
         "seat", "1", "2", "3", "0", "99999999999", "for", "to", "with", "a2", "r", "money", "victory", "min", "mining",
         "m", "finance", "japan", "usa", "nothing", "+", ",", ":", "and", "-1", "x", "#3", "cul", "all"]
GARBAGE = st.one_of(
    st.text(max_size=40),
    st.text(alphabet=st.sampled_from(list("bid pass buy offer convert money 0123456789,:+=-x$#")), max_size=40),
    st.lists(st.sampled_from(WORDS), max_size=7).map(" ".join),
)


@settings(max_examples=200, deadline=None)
@given(GARBAGE, st.integers(0, 2**32), st.integers(0, 200), st.integers(2, 4))
def test_garbage_gets_a_helpful_reply_never_an_exception(text: str, seed: int, steps: int, seats: int) -> None:
    state_ = playout(seed, seats, {"national_identity": seed % 2 == 0}, steps)[-1][0]
    for seat in range(seats):
        legal = legal_of(state_, seat)
        parsed = MW.parse(text, legal)
        if isinstance(parsed, ChatError):
            assert parsed.message
            if legal and text.strip():
                assert "Legal now: " in parsed.message, parsed.message
            continue
        assert parsed["type"] in {c["type"] for c in legal}
        try:  # the game accepts it; only what chat leaves to the game (the partner's holdings) may fail
            assert GAME.decide(state_, Command(seat, parsed["type"], parsed["body"]), derive_rng(seed, 999))
        except IllegalMove as e:
            assert parsed["type"] == "propose_trade", (text, parsed, e)


TEN = ["Government", "Science", "Agriculture", "Mining", "Finance", "Military", "Culture", "Media", "Oil", "Energy"]


def _wire(s: State, seat: int) -> list[dict[str, Any]]:
    return [c.wire() for c in GAME.legal(s, seat)]


AUCTION = _wire(state([player(influence=12, money=6), player(influence=20)], Phase.LEADER,
                      auction=auction(None, 0, high_bid=2, high_bidder=1)), 0)
RESOURCE = _wire(state([player(action=3, research=4), player()], Phase.RESOURCE, queue=(0, 1),
                       tableau=TEN[:4]), 0)
INVEST = _wire(state([player(hand=["Mining", "Mining", "Finance"]), player()], Phase.INVESTMENT, queue=(0,)), 0)
TRADE = _wire(state(
    [player(labor=5, money=1), player(hand=["Mining", "Law"], labor=3, money=2, influence=4), player(money=5)],
    Phase.TRADE, trades=(Trade(3, 0, 1, (), tokens(labor=2), (), tokens(labor=1)),
                         Trade(4, 2, 1, (), tokens(money=5), (), tokens(money=3)))), 1)
BUILD = _wire(state([player(hand=["Mining", "Culture", "Law"], in_play=["Law"], materials=6, labor=6, money=9),
                     player()], Phase.BUILD, queue=(0,)), 0)
END = _wire(state([player(hand=["Mining", "Finance", "Culture", "Law", "Oil", "Oil", "Energy", "Land", "Water"]),
                   player()], Phase.END, queue=(0,)), 0)
NATIONS = _wire(state([player(), player(), player()], Phase.NATIONS, queue=(0, 1, 2),
                      nations_left=("Japan", "USA", "Europe")), 0)


def ok(text: str, legal: list[dict[str, Any]]) -> Any:
    return chat_helpers.parsed_ok(MW, text, legal)


def reply(text: str, legal: list[dict[str, Any]]) -> str:
    return chat_helpers.parsed_reply(MW, text, legal)


def test_natural_forms() -> None:
    assert ok("bid 5", AUCTION) == ok("5", AUCTION) == ok("B 5", AUCTION) == {"type": "bid", "body": {"amount": 5}}
    assert ok("pass", AUCTION) == {"type": "pass", "body": {}}
    assert ok("convert influence", AUCTION) == ok("convert 6 money to influence", AUCTION) == \
        {"type": "convert", "body": {"into": "influence", "count": 2}}
    assert ok("convert 3 money to 1 victory", AUCTION) == ok("convert 1 v", AUCTION) == \
        {"type": "convert", "body": {"into": "victory", "count": 1}}

    def buy(p: int, a: int, r: int) -> dict[str, Any]:
        return {"type": "buy", "body": {"position": p, "action": a, "research": r}}

    assert ok("buy 4", RESOURCE) == buy(4, 3, 1)  # action first
    for text in ("buy 4 a1 r3", "buy 4 with 1 action 3 research", "buy 4 with 1 action and 3 research",
                 "buy 4 r3 a1", "buy 4 action 1 research 3", "buy 4 with 1 action", "buy 4 r 3"):
        assert ok(text, RESOURCE) == buy(4, 1, 3), text
    assert ok("buy 2 a2", RESOURCE) == buy(2, 2, 0)
    assert ok("done", RESOURCE) == ok("pass", RESOURCE) == {"type": "done", "body": {}}
    assert ok("invest mining, finance", INVEST) == {"type": "invest", "body": {"cards": ["Mining", "Finance"]}}
    assert ok("invest 2 min fin", INVEST) == {"type": "invest", "body": {"cards": ["Mining", "Mining", "Finance"]}}
    assert ok("offer seat 2: mining + 2 money for finance", TRADE) == {"type": "propose_trade", "body": {
        "to": 2, "give_cards": ["Mining"], "give_tokens": {"money": 2}, "get_cards": ["Finance"]}}
    assert ok("offer 0 nothing for 2 labor and 1 law", TRADE) == {"type": "propose_trade", "body": {
        "to": 0, "get_cards": ["Law"], "get_tokens": {"labor": 2}}}
    assert ok("accept 3", TRADE) == ok("accept #3", TRADE) == ok("accept", TRADE) == \
        {"type": "accept_trade", "body": {"id": 3}}
    assert ok("decline 4", TRADE) == ok("reject trade 4", TRADE) == {"type": "decline_trade", "body": {"id": 4}}
    assert ok("build mining", BUILD) == ok("build min", BUILD) == {"type": "build", "body": {"card": "Mining"}}
    assert ok("convert 2 l", BUILD) == {"type": "convert", "body": {"into": "labor", "count": 2}}
    assert ok("discard culture, mining", END) == {"type": "discard", "body": {"cards": ["Mining", "Culture"]}}
    assert ok("invest all", INVEST) == {"type": "invest", "body": {"cards": ["Mining", "Mining", "Finance"]}}
    assert ok("invest finance, mining", INVEST) == {"type": "invest", "body": {"cards": ["Mining", "Finance"]}}
    assert ok("nation japan", NATIONS) == ok("Japan", NATIONS) == ok("pick jap", NATIONS) == \
        {"type": "pick_nation", "body": {"nation": "Japan"}}
    assert ok("nation us", NATIONS) == {"type": "pick_nation", "body": {"nation": "USA"}}
    assert token_of("a") == "action" and token_of("$") == "money" and token_of("ma") == "materials"
    assert isinstance(card_of("mi"), Problem) and card_of("mil") == "Military"
    assert read_items(["2", "mining", ",", "finance"], card_of) == [("Mining", 2, True), ("Finance", 1, False)]


def test_mistakes_are_answered_with_what_is_legal() -> None:
    assert reply("bid 2", AUCTION) == ("You can bid 3 to 12. Legal now: pass | bid 3..12 | convert 6 money to 2 "
                                       "victory (or any other: convert into any token, up to 2: convert 3 money to 1 "
                                       "influence)")
    assert reply("hello there", AUCTION).startswith("Unknown command 'hello'. Legal now: pass | bid 3..12")
    assert reply("buy 1", AUCTION).startswith("You cannot buy now. Legal now:")
    assert reply("convert 4 money to victory", AUCTION).startswith("3 money make 1 token; 4 is not a multiple of 3")
    assert reply("convert 3 victory", AUCTION).startswith("Your money makes at most 2 tokens")
    assert reply("buy 5", RESOURCE).startswith("You can buy at price 1, 2, 3, 4.")
    assert reply("buy 4 a2 r3", RESOURCE).startswith("The card at price 4 costs 4; you offered 5.")
    assert reply("buy 4 a4", RESOURCE).startswith("You can pay at most 3 action and 4 research.")
    assert reply("buy 2 money 2", RESOURCE).startswith("Pay with action and research tokens only")
    assert reply("buy mining", RESOURCE).startswith("Say the price of the card")
    assert reply("invest 3 mining", INVEST).startswith("Your hand is 2 Mining, Finance: no more Mining to invest")
    assert reply("invest zeppelin", INVEST).startswith("'zeppelin' is not a resource card.")
    assert reply("invest mi", INVEST).startswith("'mi' could be Mining or Military.")
    assert reply("offer seat 1 mining", TRADE).startswith("Say what you give 'for' what you want")
    assert reply("offer mining for law", TRADE).startswith("Say who to offer to")
    assert reply("offer 2 nothing for nothing", TRADE).startswith("A trade must move at least one card or token")
    assert reply("offer 1 law for mining", TRADE).startswith("You can offer to seat 0, 2.")
    assert reply("offer 2 oil for mining", TRADE).startswith("Your hand is Mining, Law: no Oil to give.")
    assert reply("accept 4", TRADE).startswith("You cannot pay for trade #4: convert money, or decline it")
    assert reply("build law", BUILD).startswith("You cannot build Law now; you can build Mining, Culture.")
    assert reply("discard mining", END).startswith("You hold 9 cards: discard exactly 2.")
    assert reply("nation china", NATIONS).startswith("China is taken; left: Japan, USA, Europe.")
    assert reply("bid 5", []).startswith("You have nothing to do right now")
    assert MW.describe_legal(RESOURCE) == ("Legal now: done | buy 1 | buy 2 | buy 3 | buy 4 (or any other: pay as you "
                                           "like: buy 4 with 1 action 3 research)")
    assert MW.describe_legal(TRADE) == (
        "Legal now: done | accept 3 | decline 3 | offer seat 0: Mining for 1 victory | offer seat 0: 1 influence for "
        "Government (or any other: decline 4; offer to seat 0, 2: your cards and tokens for cards and tokens, e.g. "
        "offer seat 0: Mining + 2 money for 2 labor)")
    assert MW.describe_legal(END) == ("Legal now: discard Mining, Finance | discard Land, Water (or any other: any 2 "
                                      "cards from your hand)")


def test_the_board_and_the_events_read_as_short_text() -> None:
    states = playout(5, 3, {"national_identity": True}, 220)
    state = states[-1][0]
    seat_view, public = GAME.view(state, 1), GAME.view(state, None)
    lines = MW.render_view(seat_view)
    assert lines[0].startswith(("Turn ", "Game over"))
    assert sum(line.startswith("seat ") for line in lines) == 3
    assert lines[-1].startswith("Your hand: ") and not any("Your hand" in line for line in MW.render_view(public))
    assert all(len(line) < 400 for line in lines)
    board = render_board("modern-world", seat_view)
    assert "Tableau (price card): " in board and "V" in board and "Your hand: " in board
    version = 0
    secret_trades = 0
    for _, events in states:
        for event in events:
            version += 1
            env = EventEnvelope(match_id="m", version=version, type=event.type, body=event.body,
                                visible_to=None if event.visible_to is None else list(event.visible_to),
                                redacted=event.redacted)
            public_line = MW.render_event(env.for_seat(None))
            assert public_line is None or len(public_line) < 400
            if event.type in ("TradeProposed", "TradeAccepted"):
                secret_trades += 1
                cards = [c for side in ("give", "get") for c in event.body[side]["cards"]]
                assert public_line is not None and not any(c in public_line for c in cards), public_line
                private = MW.render_event(env.for_seat(event.body["proposer"]))
                assert private is not None and all(c in private for c in cards)
            if event.type == "DecksShuffled":
                assert public_line is None
            if event.type == "BidPlaced":
                assert public_line == f"seat {event.body['seat']} bids {event.body['amount']}."
    assert secret_trades


def test_the_adapter_is_registered() -> None:
    assert isinstance(MW, ModernWorldAdapter)

"""Moderne Zeiten in chat: every legal command has a natural chat form that parses back to it (random
reachable states; ``legal`` as the view record carries it: choices, open ones for bids and plays), the help
describes open choices in words and names only commands that parse, anything covered by a choice is read,
garbage gets a helpful reply, and the board and events read as short text."""

from __future__ import annotations

import re
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from schemas.envelopes import EventEnvelope
from schemas.legal import choices_from_wire, concrete, covered
from services.chat.adapter import ChatError, get_adapter
from services.games.base import Event
from services.games.moderne_zeiten.chat import ModerneZeitenAdapter, industry_of, read_cards
from services.games.moderne_zeiten.game import GAME
from services.games.moderne_zeiten.state import State
from services.games.rng import derive_rng
from services.replay.render import render_board
from tests.chat import chat_helpers

MZ = get_adapter("moderne-zeiten")
BOOLS = st.booleans()


def playout(seed: int, seats: int, options: dict[str, bool], steps: int) -> list[tuple[State, list[Event]]]:
    return chat_helpers.playout(GAME, seed, seats, options, steps)


def legal_of(state: State, seat: int) -> list[dict[str, Any]]:
    """The seat's ``legal`` as its view record carries it: the choices' wire form."""
    return [c.wire() for c in GAME.legal(state, seat)]


def commands_of(legal: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Concrete commands of the choices: all of a small choice, a spread of a large one."""
    return [{"type": kind, "body": body} for kind, body in concrete(choices_from_wire(legal))]


def options_in(help_: str) -> list[str]:
    """The commands a help text names (``bid 3 to 9 (millions)`` gives its two ends, ``play any cards from
    your hand: 1 shipping, 2 telecom`` the whole hand and one card)."""
    listed = help_.removeprefix("Legal now: ").split(" (or any other")[0].split(" | ")
    out = []
    for option in listed:
        bids = re.fullmatch(r"bid (\d+) to (\d+) \(millions\)", option)
        hand = re.fullmatch(r"play any cards from your hand: (.*)", option)
        if bids:
            out += [f"bid {bids[1]}", f"bid {bids[2]}"]
        elif hand:
            cards = hand[1].split(", ")
            out += ["play " + " ".join(cards), "play 1 " + cards[-1].split()[1]]
        else:
            out.append(option.removesuffix(" (millions)"))
    return out


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32), st.integers(3, 5), BOOLS, BOOLS, BOOLS, st.integers(0, 250))
def test_every_legal_command_round_trips_through_its_chat_form(seed: int, seats: int, forced: bool, needs_play: bool,
                                                              crash_after: bool, steps: int) -> None:
    options = {"forced_move": forced, "move_needs_play": needs_play, "crash_after_move": crash_after}
    for state, _ in playout(seed, seats, options, steps)[-30:]:
        for seat in GAME.to_act(state):
            legal = legal_of(state, seat)
            choices = choices_from_wire(legal)
            for command in commands_of(legal):
                text = MZ.format_command(command)
                assert MZ.parse(text, legal) == command, text
            for option in options_in(MZ.describe_legal(legal)):
                parsed = MZ.parse(option, legal)
                assert not isinstance(parsed, ChatError), (option, parsed)
                assert covered(choices, parsed["type"], parsed["body"]), option


GARBAGE = st.one_of(
    st.text(max_size=40),
    st.text(alphabet=st.sampled_from(list("bid pass play draw move finish stay avi ship tel 0123456789,:=-x")),
            max_size=40),
    st.lists(st.sampled_from(["play", "bid", "move", "3", "aviation", "high", "rise", "99999999999999", "nothing",
                              "stay", "finish", "none", ",", "and", "-1", "2x", "tel", "x"]), max_size=6).map(" ".join),
)


@settings(max_examples=200, deadline=None)
@given(GARBAGE, st.integers(0, 2**32), st.integers(0, 120))
def test_garbage_gets_a_helpful_reply_never_an_exception(text: str, seed: int, steps: int) -> None:
    state = playout(seed, 4, {}, steps)[-1][0]
    for seat in range(4):
        legal = legal_of(state, seat)
        parsed = MZ.parse(text, legal)
        if isinstance(parsed, ChatError):
            assert parsed.message
            if legal and text.strip():
                assert "Legal now: " in parsed.message, parsed.message
        else:
            assert parsed["type"] in {c["type"] for c in legal}
            assert GAME.decide(state, _command(seat, parsed), derive_rng(seed, 999))  # the game accepts it


def _command(seat: int, parsed: dict[str, Any]) -> Any:
    from services.games.base import Command

    return Command(seat, parsed["type"], parsed["body"])


BIDS_4_TO_15 = {"amount": {"kind": "int", "min": 4, "max": 15}}
AUCTION = [{"type": "pass", "body": {}}, {"type": "bid", "body": {}, "free": BIDS_4_TO_15}]
HAND = {"shipping": 1, "aviation": 3, "telecom": 1}
ANY_OF_HAND = {"cards": {"kind": "counts", "max": HAND, "min_total": 1, "max_total": 5}}
OPEN_TURN = [{"type": "draw", "body": {}}, {"type": "play", "body": {}, "free": ANY_OF_HAND}]
ONLY_MOVE = [*OPEN_TURN, {"type": "play", "body": {"cards": {}}}]
LISTED_BIDS = [{"type": "pass", "body": {}}] + [{"type": "bid", "body": {"amount": a}} for a in (4, 5, 6, 8, 13, 15)]
TURN = [{"type": "draw", "body": {}}] + [{"type": "play", "body": {"cards": c}} for c in (
    {"shipping": 1}, {"aviation": 1}, {"aviation": 2}, {"aviation": 3}, {"telecom": 1},
    {"shipping": 1, "aviation": 3, "telecom": 1}, {"aviation": 1, "telecom": 1}, {"shipping": 1, "telecom": 1},
    {"shipping": 1, "aviation": 1, "telecom": 1})]
MOVING = [{"type": "move", "body": {"to": t}} for t in ("aviation", "telecom", "finish", None)]


def test_natural_forms() -> None:
    def ok(text: str, legal: list[dict[str, Any]]) -> Any:
        parsed = MZ.parse(text, legal)
        assert not isinstance(parsed, ChatError), parsed
        return parsed

    assert ok("bid 5", AUCTION) == {"type": "bid", "body": {"amount": 5}}
    assert ok("  BID 7 ", AUCTION) == {"type": "bid", "body": {"amount": 7}}  # anywhere in the range
    assert ok("bid 15", AUCTION) == {"type": "bid", "body": {"amount": 15}}
    assert ok("bid 13", LISTED_BIDS) == {"type": "bid", "body": {"amount": 13}}
    assert ok("9", AUCTION) == {"type": "bid", "body": {"amount": 9}}
    assert ok("bid amount=6", AUCTION) == {"type": "bid", "body": {"amount": 6}}
    assert ok("pass", AUCTION) == ok("p", AUCTION) == {"type": "pass", "body": {}}
    assert ok("draw", TURN) == {"type": "draw", "body": {}}
    three = {"type": "play", "body": {"cards": {"shipping": 1, "aviation": 3, "telecom": 1}}}
    for text in ("play 3 aviation 1 shipping 1 telecom", "play aviation 3, ship, tel", "play 3x avi and 1 ship 1 tel",
                 "play avi avi avi ship telecommunications", "play cards=aviation:3,shipping:1,telecom:1"):
        assert ok(text, TURN) == three, text
    for turn in (TURN, OPEN_TURN):
        assert ok("play 2 avi", turn) == {"type": "play", "body": {"cards": {"aviation": 2}}}
    two_and_one = {"type": "play", "body": {"cards": {"aviation": 2, "telecom": 1}}}
    assert ok("play 2 aviation 1 telecom", OPEN_TURN) == two_and_one
    assert ok("play nothing", ONLY_MOVE) == ok("play", ONLY_MOVE) == {"type": "play", "body": {"cards": {}}}
    assert ok("move aviation", MOVING) == ok("aviation", MOVING) == ok("fly to avi", MOVING) == \
        {"type": "move", "body": {"to": "aviation"}}
    assert ok("finish", MOVING) == {"type": "move", "body": {"to": "finish"}}
    assert ok("stay", MOVING) == ok("move none", MOVING) == {"type": "move", "body": {"to": None}}
    assert industry_of("high-rise") == industry_of("High") == industry_of("buildings") == "high_rise"
    assert industry_of("a") is None and industry_of("zeppelin") is None
    assert read_cards(["2", "high", "rise"]) == {"high_rise": 2}
    assert read_cards(["nothing"]) == {}


def test_mistakes_are_answered_with_what_is_legal() -> None:
    def reply(text: str, legal: list[dict[str, Any]]) -> str:
        parsed = MZ.parse(text, legal)
        assert isinstance(parsed, ChatError), parsed
        return parsed.message

    assert reply("bid 3", AUCTION) == "You can bid 4 to 15. Legal now: bid 4 to 15 (millions) | pass"
    assert reply("bid 16", AUCTION).startswith("You can bid 4 to 15.")
    assert reply("bid 7", LISTED_BIDS).startswith("You can bid 4 to 15.")  # a list: only what it lists
    assert reply("bid", AUCTION).startswith("Bid a whole number of millions, like 'bid 4'.")
    assert reply("draw", AUCTION) == "You cannot draw now. Legal now: bid 4 to 15 (millions) | pass"
    assert reply("hello there", AUCTION) == "Unknown command 'hello'. Legal now: bid 4 to 15 (millions) | pass"
    assert MZ.describe_legal(OPEN_TURN) == ("Legal now: draw | play any cards from your hand: "
                                            "1 shipping, 3 aviation, 1 telecom")
    assert MZ.describe_legal(ONLY_MOVE).endswith("| play nothing | play any cards from your hand: "
                                                 "1 shipping, 3 aviation, 1 telecom")
    assert reply("play 4 aviation", OPEN_TURN).startswith("You have only 3 aviation in hand.")
    assert reply("play 1 automobile", OPEN_TURN).startswith("You have only 0 automobile in hand.")
    assert reply("play", OPEN_TURN).startswith("Play what?")
    assert reply("play 2 telecom 3 aviation 1 shipping", TURN).startswith("You have only 1 telecom in hand.")
    assert reply("play 2 aviation 1 telecom", TURN).startswith("You cannot play 2 aviation, 1 telecom now.")
    assert reply("play 4 aviation", TURN).startswith("You have only 3 aviation in hand.")
    assert reply("play 2 zeppelins", TURN).startswith("'zeppelins' is not an industry")
    assert reply("play 2", TURN).startswith("'2' of what?")
    assert reply("play", TURN).startswith("Play what?")
    assert reply("draw 2", TURN).startswith("'draw' takes nothing more.")
    assert reply("move shipping", MOVING).startswith("You cannot fly to 'shipping' now; choose aviation, telecom, "
                                                     "finish, stay.")
    assert reply("finish", AUCTION).startswith("You cannot finish now.")
    assert reply("bid 5", []).startswith("You have nothing to do right now")
    assert "(or any other cards from your hand: 1 shipping, 3 aviation, 1 telecom)" in MZ.describe_legal(TURN)
    assert MZ.describe_legal(MOVING) == "Legal now: move aviation | move telecom | finish | stay"


def test_the_board_and_the_events_read_as_short_text() -> None:
    states = playout(5, 4, {}, 60)
    state = states[-1][0]
    seat_view, public = GAME.view(state, 1), GAME.view(state, None)
    lines = MZ.render_view(seat_view)
    assert lines[0].startswith(f"Round {state.round}: seat ")
    assert sum(line.startswith("seat ") for line in lines) == 4
    assert lines[-1].startswith("Your hand: ") and not any("Your hand" in line for line in MZ.render_view(public))
    assert all(len(line) < 300 for line in lines)
    board = render_board("moderne-zeiten", seat_view)
    assert "Table (space:claimed by):" in board and "new_york (5)" in board and "ship(3)" in board
    version = 0
    for _, events in states:
        for event in events:
            version += 1
            env = EventEnvelope(match_id="m", version=version, type=event.type, body=event.body,
                                visible_to=None if event.visible_to is None else list(event.visible_to),
                                redacted=event.redacted)
            public_line = MZ.render_event(env.for_seat(None))
            if event.type in ("CardsDrawn", "CardsDealt"):
                assert public_line is not None and "cards" in public_line
                assert not any(i in public_line for i in ("aviation", "shipping", "telecom", "automobile"))
            if event.type == "BidMade":
                assert public_line == f"seat {event.body['seat']} bids {event.body['amount']}."


def test_the_adapter_is_registered_and_others_keep_the_default() -> None:
    assert isinstance(MZ, ModerneZeitenAdapter)
    assert type(get_adapter("nim")).__name__ == "DefaultAdapter"

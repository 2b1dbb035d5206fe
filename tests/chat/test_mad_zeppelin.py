"""Mad Zeppelin in chat: every legal command has a natural chat form that parses back to it (random reachable
states, all seat counts, both modes, ``legal`` as the view record carries it: choices, some open), the help
lists only commands that parse and describes open choices in words, garbage gets a helpful reply, and the board
and events read as short text that never names another seat's hidden cards or Traitors. Lists of single
commands (what a client may pass after expanding the choices) work the same way."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from schemas.envelopes import EventEnvelope
from schemas.legal import choices_from_wire, covered
from services.chat.adapter import ChatError, get_adapter
from services.chat.games.words import Problem
from services.games.base import Command, Event
from services.games.mad_zeppelin import GAME
from services.games.mad_zeppelin.chat import MadZeppelinAdapter, cargo_of, traitor_of
from services.games.mad_zeppelin.data import COLOUR_OF, TRAITOR_KEYS
from services.games.mad_zeppelin.state import State
from services.games.rng import derive_rng
from services.replay.render import render_board
from tests.chat import chat_helpers

MZ = get_adapter("mad-zeppelin")
MODES = st.sampled_from(["run", "long_haul"])


def playout(seed: int, seats: int, mode: str, steps: int) -> list[tuple[State, list[Event]]]:
    return chat_helpers.playout(GAME, seed, seats, {"mode": mode}, steps)


def legal_of(state: State, seat: int) -> list[dict[str, Any]]:
    """The seat's ``legal`` as the view record carries it: the choices' wire form."""
    return [choice.wire() for choice in GAME.legal(state, seat)]


def canonical(command: dict[str, Any]) -> dict[str, Any]:
    """The form chat reads a command back in: a throw's crates sorted, left out when there are none."""
    body = dict(command["body"])
    if command["type"] == "throw" and not body.get("crates", True):
        del body["crates"]
    elif command["type"] == "throw" and "crates" in body:
        body["crates"] = sorted(body["crates"])
    return {"type": command["type"], "body": body}


def options_in(help_: str) -> list[str]:
    return help_.removeprefix("Legal now: ").split(" (or any other")[0].split(" | ")


def check_state(state: State, seed: int) -> None:
    for seat in GAME.to_act(state):
        legal = legal_of(state, seat)
        choices = choices_from_wire(legal)
        for choice in choices:
            for body in choice.bodies():  # every command, the aliases of a throw's crates included
                command = {"type": choice.type, "body": body}
                text = MZ.format_command(command)
                assert MZ.parse(text, legal) == canonical(command), text
        flat = legal_commands_of(state, seat)  # a flat list of single commands works too
        for command in flat:
            assert MZ.parse(MZ.format_command(command), flat) == command
        help_ = MZ.describe_legal(legal)
        assert len(f"Your move. {help_}".encode()) <= 400, help_
        for option in options_in(help_):
            parsed = MZ.parse(option, legal)
            assert not isinstance(parsed, ChatError), (option, parsed)
            assert covered(choices, parsed["type"], parsed["body"]), option


def legal_commands_of(state: State, seat: int) -> list[dict[str, Any]]:
    return chat_helpers.legal_of(GAME, state, seat)


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32), st.integers(2, 6), MODES, st.integers(0, 300))
def test_every_legal_command_round_trips_through_its_chat_form(seed: int, seats: int, mode: str, steps: int) -> None:
    for state, _ in playout(seed, seats, mode, steps)[-30:]:
        check_state(state, seed)


WORDS = ["draft", "traitor", "play", "colour", "ability", "look", "reroll", "throw", "end", "steal", "give",
         "arrange", "igor", "karl", "doc", "cap", "gold", "cargo", "big", "small", "crate", "with", "unused", "seat",
         "1", "2", "3", "0", "4", "99999999999", "red", "r", "wood", "strange", "alcohol", "+", ",", "die", "-1"]
GARBAGE = st.one_of(
    st.text(max_size=40),
    st.text(alphabet=st.sampled_from(list("draft play throw gold crate colour red 0123456789,:+=-x")), max_size=40),
    st.lists(st.sampled_from(WORDS), max_size=6).map(" ".join),
)


@settings(max_examples=200, deadline=None)
@given(GARBAGE, st.integers(0, 2**32), st.integers(0, 150), st.integers(2, 4))
def test_garbage_gets_a_helpful_reply_never_an_exception(text: str, seed: int, steps: int, seats: int) -> None:
    state = playout(seed, seats, "run", steps)[-1][0]
    for seat in range(seats):
        legal = legal_of(state, seat)
        parsed = MZ.parse(text, legal)
        if isinstance(parsed, ChatError):
            assert parsed.message
            if legal and text.strip():
                assert "Legal now: " in parsed.message, parsed.message
        else:
            assert covered(choices_from_wire(legal), parsed["type"], parsed["body"]), (text, parsed)
            assert GAME.decide(state, Command(seat, parsed["type"], parsed["body"]), derive_rng(seed, 999))


def cmd(type_: str, **body: Any) -> dict[str, Any]:
    return {"type": type_, "body": body}


DRAFT = [cmd("draft", traitor=t) for t in ("captain", "taster", "doctor", "stowaway")]
COLOURS = [cmd("choose_colour", die=d, colour=c) for d in (0, 2) for c in ("yellow", "green", "blue", "red")]
PLAY = [cmd("play_traitor", traitor=t) for t in ("guard", "geologist")]
CAPTAIN = [cmd("use_ability", traitor=t) for t in TRAITOR_KEYS] + [cmd("end_sequence")]
LOOKOUT = [cmd("use_ability", die=d) for d in (0, 1)] + [
    cmd("throw", card="wood"), cmd("throw", card="gold_cargo", crates=["big_crate"]),
    cmd("throw", card="gold_cargo", crates=["big_crate", "small_crate", "small_crate"]),
    cmd("throw", card="gold_cargo", crates=["small_crate", "small_crate"]), cmd("throw", card="alcohol"),
    cmd("end_sequence")]
CLAIRVOYANT = [cmd("use_ability", look="unused"), cmd("use_ability", look="player", seat=1),
               cmd("use_ability", look="player", seat=2), cmd("reroll", die=2), cmd("end_sequence")]
NEGOTIATOR = [cmd("use_ability", seat=0), cmd("use_ability", seat=2), cmd("end_sequence")]
STEAL = [cmd("steal", take="gold"), cmd("steal", take="cargo")]
GIVE = [cmd("give", what="gold"), cmd("give", what="cargo", card="wood"), cmd("give", what="cargo", card="gold_cargo")]
ARRANGE = [cmd("arrange_hold", order=list(p)) for p in ((0, 1, 2), (0, 2, 1), (1, 0, 2), (1, 2, 0), (2, 0, 1),
                                                        (2, 1, 0))]


def ok(text: str, legal: list[dict[str, Any]]) -> Any:
    return chat_helpers.parsed_ok(MZ, text, legal)


def reply(text: str, legal: list[dict[str, Any]]) -> str:
    return chat_helpers.parsed_reply(MZ, text, legal)


def test_natural_forms() -> None:
    taster = cmd("draft", traitor="taster")
    assert ok("draft igor", DRAFT) == ok("traitor igor", DRAFT) == ok("Igor", DRAFT) == ok("draft tas", DRAFT) == taster
    assert ok("draft doc", DRAFT) == ok("draft ripp", DRAFT) == cmd("draft", traitor="doctor")
    assert ok("draft tim", DRAFT) == ok("draft sly", DRAFT) == cmd("draft", traitor="stowaway")
    assert ok("colour 3 red", COLOURS) == ok("color red 3", COLOURS) == ok("colour die 3 r", COLOURS) == \
        cmd("choose_colour", die=2, colour="red")
    assert ok("play guard", PLAY) == ok("traitor henchman", PLAY) == ok("guard", PLAY) == \
        cmd("play_traitor", traitor="guard")
    assert ok("ability doctor", CAPTAIN) == ok("use docteur", CAPTAIN) == cmd("use_ability", traitor="doctor")
    assert ok("ability die 2", LOOKOUT) == ok("ability 2", LOOKOUT) == cmd("use_ability", die=1)
    assert ok("throw wood", LOOKOUT) == cmd("throw", card="wood")
    assert ok("throw gold with big crate", LOOKOUT) == ok("throw gold cargo with big", LOOKOUT) == \
        cmd("throw", card="gold_cargo", crates=["big_crate"])
    assert ok("throw gold with 2 small crates + big crate", LOOKOUT) == ok("throw gold big small small", LOOKOUT) \
        == cmd("throw", card="gold_cargo", crates=["big_crate", "small_crate", "small_crate"])
    assert ok("throw alcohol", LOOKOUT) == ok("place alcohol", LOOKOUT) == cmd("throw", card="alcohol")
    assert ok("end", LOOKOUT) == ok("done", LOOKOUT) == cmd("end_sequence")
    assert ok("look unused", CLAIRVOYANT) == ok("ability unused", CLAIRVOYANT) == cmd("use_ability", look="unused")
    assert ok("look seat 2", CLAIRVOYANT) == ok("look 2", CLAIRVOYANT) == \
        cmd("use_ability", look="player", seat=2)
    assert ok("reroll 3", CLAIRVOYANT) == ok("re-roll die 3", CLAIRVOYANT) == cmd("reroll", die=2)
    assert ok("ability seat 2", NEGOTIATOR) == cmd("use_ability", seat=2)
    assert ok("steal gold", STEAL) == cmd("steal", take="gold")
    assert ok("steal cargo", STEAL) == ok("steal card", STEAL) == cmd("steal", take="cargo")
    assert ok("give gold", GIVE) == cmd("give", what="gold")
    assert ok("give wood", GIVE) == cmd("give", what="cargo", card="wood")
    assert ok("give gold cargo", GIVE) == cmd("give", what="cargo", card="gold_cargo")
    assert ok("arrange 3 1 2", ARRANGE) == cmd("arrange_hold", order=[2, 0, 1])
    assert traitor_of("karl") == "captain" and traitor_of("mr") == "shadow" and isinstance(traitor_of("c"), Problem)
    assert cargo_of("diamond") == "diamonds" and cargo_of("strange") == "strange_materials"


def test_mistakes_are_answered_with_what_is_legal() -> None:
    assert reply("draft guard", DRAFT) == ("You cannot draft the guard now; you can draft captain, taster, doctor, "
                                           "stowaway. Legal now: draft captain | draft taster | draft doctor | "
                                           "draft stowaway")
    assert reply("draft c", DRAFT).startswith("'c' is not a Traitor.")
    assert reply("draft ca", DRAFT).startswith("'ca' could be captain or councillor.")
    assert reply("colour red", COLOURS).startswith("Which white die? 1 or 3, like 'colour 1 red'.")
    assert reply("colour 2 red", COLOURS).startswith("Die 2 is not white; the white dice: 1, 3.")
    assert reply("colour 1 purple", COLOURS).startswith("'purple' is not a colour")
    assert reply("throw wood", DRAFT).startswith("You cannot throw now. Legal now: draft captain")
    assert reply("hello there", PLAY) == "Unknown command 'hello'. Legal now: play guard | play geologist"
    assert reply("ability", CAPTAIN).startswith("You cannot do that with your ability now; you can: ability captain")
    assert reply("ability die 3", LOOKOUT).startswith("You cannot do that with your ability now")
    assert reply("throw coal", LOOKOUT).startswith("You cannot throw coal now; you can throw wood, gold, alcohol.")
    assert reply("throw gold", LOOKOUT).startswith("That payment does not work; you can: throw gold with big crate,")
    assert reply("throw wood with coal", LOOKOUT).startswith("Only mysterious crates pay for a throw")
    assert reply("look seat 0", CLAIRVOYANT).startswith("You cannot do that with your ability now")
    assert reply("steal everything", STEAL).startswith("Say 'steal gold' or 'steal cargo'.")
    assert reply("give coal", GIVE).startswith("You cannot give that; you can: give gold, give wood, give gold cargo.")
    assert reply("arrange 1 2", ARRANGE).startswith("List the 3 cards you saw in their new order, top first, each once")
    assert reply("end", []).startswith("You have nothing to do right now")
    assert MZ.describe_legal(CAPTAIN) == ("Legal now: ability captain | ability councillor | ability taster | end "
                                          "(or any other: ability + another Traitor's name)")
    assert MZ.describe_legal(LOOKOUT) == (
        "Legal now: ability die 1 | ability die 2 | throw wood | throw gold with big crate | throw alcohol | end "
        "(or any other: pay with crates: throw gold with big crate)")


def test_the_board_and_the_events_read_as_short_text() -> None:
    states = playout(7, 3, "run", 120)
    state = states[-1][0]
    seat_view, public = GAME.view(state, 1), GAME.view(state, None)
    lines = MZ.render_view(seat_view)
    assert lines[0].startswith(("Turn ", "Game over")) and lines[1].startswith("Dice: ")
    assert sum(line.startswith("seat ") for line in lines) == 3
    assert any(line.startswith("Your hand: ") for line in lines)
    assert not any("Your hand" in line for line in MZ.render_view(public))
    assert all(len(line) < 400 for line in lines)
    board = render_board("mad-zeppelin", seat_view)
    assert "Dice: " in board and "journeys " in board and "Your hand: " in board
    version = 0
    hidden = 0
    for _, events in states:
        for event in events:
            version += 1
            env = EventEnvelope(match_id="m", version=version, type=event.type, body=event.body,
                                visible_to=None if event.visible_to is None else list(event.visible_to),
                                redacted=event.redacted)
            public_line = MZ.render_event(env.for_seat(None))
            assert public_line is None or len(public_line) < 400
            if event.visible_to is not None and event.redacted is not None:
                secret = [v for k, v in event.body.items() if k not in event.redacted]
                names = [str(x) for v in secret for x in (v if isinstance(v, list) else [v])]
                words = [n.replace("_", " ") for n in names if not n.isdigit()]
                hidden += bool(words)
                assert public_line is None or not any(f" {w}" in public_line for w in words), (public_line, words)
            if event.type == "TraitorPlayed":
                colour = COLOUR_OF[event.body["traitor"]]
                assert public_line == f"seat {event.body['seat']} plays the {event.body['traitor']}" \
                                      f"{f' ({colour})' if colour else ''}."
    assert hidden


def test_the_adapter_is_registered() -> None:
    assert isinstance(MZ, MadZeppelinAdapter)


def test_open_choices_are_described_in_words_and_read_in_any_order() -> None:
    from services.games.mad_zeppelin.state import Phase
    from services.games.mad_zeppelin.tests.helpers import act, table

    state = table(2, traitors={0: ["captain", "geologist"], 1: ["taster", "lookout"]})
    captain, _ = act(state, 0, "play_traitor", traitor="captain")
    legal = legal_of(captain, 0)
    assert any("free" in c for c in legal)
    assert MZ.describe_legal(legal) == ("Legal now: ability captain | ability councillor | ability taster | throw "
                                        "wood | end (or any other: ability + another Traitor's name)")
    assert ok("ability doc", legal) == cmd("use_ability", traitor="doctor")

    colours = state._replace(phase=Phase.COLOURS, dice=("white", "red", "white"))
    legal = legal_of(colours, 0)
    assert MZ.describe_legal(legal) == ("Legal now: colour 1 yellow | colour 3 yellow (or any other: colour + "
                                        "white die + yellow, green, blue, red)")
    assert ok("colour 3 red", legal) == cmd("choose_colour", die=2, colour="red")
    assert reply("colour 2 red", legal).startswith("Die 2 is not white; the white dice: 1, 3.")

    geologist, _ = act(state, 0, "play_traitor", traitor="geologist")
    geologist, _ = act(geologist, 0, "use_ability")
    legal = legal_of(geologist, 0)
    assert MZ.describe_legal(legal) == ("Legal now: arrange 1 2 3 (or any other: arrange + the 3 cards in any order, "
                                        "top first)")
    assert ok("arrange 3 1 2", legal) == cmd("arrange_hold", order=[2, 0, 1])

    crates = table(2, traitors={0: ["machinist", "guard"], 1: ["taster", "lookout"]}, gold={0: 0},
                   hands={0: ["gold_cargo", "big_crate", "small_crate", "small_crate"]}, hold_top=["wood"])
    crates, _ = act(crates, 0, "play_traitor", traitor="machinist")
    legal = legal_of(crates, 0)
    assert "pay with crates: throw gold with big crate" in MZ.describe_legal(legal)
    paid = cmd("throw", card="gold_cargo", crates=["big_crate", "small_crate", "small_crate"])
    assert ok("throw gold with small crate + big crate + small crate", legal) == paid
    assert covered(choices_from_wire(legal), "throw", {"card": "gold_cargo", "crates": ["small_crate", "big_crate"]})
    assert reply("throw gold", legal).startswith("That payment does not work; you can: throw gold with big crate")

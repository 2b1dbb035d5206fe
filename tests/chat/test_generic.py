"""The default chat adapter: every legal command has a chat form that parses back to it; any other input
gets a helpful reply and never an exception."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from schemas.envelopes import EventEnvelope
from services.chat.adapter import ChatError, get_adapter
from services.chat.chatform import format_value
from services.chat.generic import DEFAULT, DefaultAdapter
from services.games.base import replay
from services.games.registration import Registration
from services.games.registry import REGISTRATIONS
from services.games.rng import derive_rng
from tests.pipeline.nim import NIM

TAKE = [{"type": "take", "body": {"n": n}} for n in (1, 2, 3)]


def nim_states(seed: int, seats: int, max_take: int, choices: list[int]) -> list[Any]:
    state = replay(NIM, NIM.setup({"max_take": max_take}, seats, derive_rng(seed, 0)))
    states = [state]
    for choice in choices:
        acting = sorted(NIM.to_act(state))
        if not acting:
            break
        legal = NIM.legal_commands(state, acting[0])
        for event in NIM.decide(state, legal[choice % len(legal)], derive_rng(seed, len(states))):
            state = NIM.evolve(state, event)
        states.append(state)
    return states


@settings(max_examples=100, deadline=None)
@given(st.integers(0, 2**32), st.integers(2, 4), st.integers(1, 6), st.lists(st.integers(0, 10), max_size=20))
def test_every_legal_nim_command_round_trips_through_its_chat_form(seed: int, seats: int, max_take: int,
                                                                  choices: list[int]) -> None:
    for state in nim_states(seed, seats, max_take, choices):
        for seat in NIM.to_act(state):
            legal = [{"type": c.type, "body": c.body} for c in NIM.legal_commands(state, seat)]
            for command in legal:
                assert DEFAULT.parse(DEFAULT.format_command(command), legal) == command


SCALARS = st.one_of(st.none(), st.booleans(), st.integers(-10**6, 10**6),
                    st.floats(allow_nan=False, allow_infinity=False),
                    st.text(max_size=8), st.sampled_from(["none", "true", "3", "a,b", "x:1", "New York", ""]))
VALUES = st.recursive(SCALARS, lambda inner: st.one_of(
    st.lists(inner, max_size=4), st.dictionaries(st.text(min_size=1, max_size=5), inner, max_size=3)), max_leaves=8)
KEYS = st.from_regex(r"[a-z_][a-z0-9_]{0,6}", fullmatch=True)
COMMANDS = st.lists(st.fixed_dictionaries({"type": st.sampled_from(["bid", "pass", "move-to", "Play"]),
                                           "body": st.dictionaries(KEYS, VALUES, max_size=3)}),
                    min_size=1, max_size=12)


@settings(max_examples=150, deadline=None)
@given(COMMANDS)
def test_any_json_like_command_round_trips_among_others(legal: list[dict[str, Any]]) -> None:
    for command in legal:
        parsed = DEFAULT.parse(DEFAULT.format_command(command), legal)
        assert parsed == command, DEFAULT.format_command(command)


GARBAGE = st.one_of(st.text(max_size=40),
                    st.text(alphabet=st.sampled_from(list('take n=1,:"[]{} 23bidpas-¹')), max_size=30))


@settings(max_examples=150, deadline=None)
@given(GARBAGE, COMMANDS)
def test_garbage_gets_a_helpful_reply_never_an_exception(text: str, legal: list[dict[str, Any]]) -> None:
    for options in (legal, TAKE, []):
        parsed = DEFAULT.parse(text, options)
        if isinstance(parsed, ChatError):
            assert parsed.message
            if options and text.strip():
                assert "Legal now" in parsed.message or "For example" in parsed.message \
                    or "Name the values" in parsed.message or "given twice" in parsed.message
        else:
            assert parsed["type"] in {c["type"] for c in options}


def test_short_forms_and_menu_numbers() -> None:
    assert DEFAULT.parse("take 2", TAKE) == {"type": "take", "body": {"n": 2}}
    assert DEFAULT.parse("  TAKE   n=3 ", TAKE) == {"type": "take", "body": {"n": 3}}
    assert DEFAULT.parse("1", TAKE) == {"type": "take", "body": {"n": 1}}
    assert DEFAULT.parse("take 7", TAKE) == {"type": "take", "body": {"n": 7}}  # not listed: the game decides


def test_mistakes_get_did_you_mean_and_the_legal_list() -> None:
    replies = {text: DEFAULT.parse(text, TAKE) for text in
               ["tkae n=2", "take m=2", "take n=x", "take", "9", "", "take n=1 n=2", "take 1 2", 'take n="2',
                "n=2"]}
    messages = {text: r.message for text, r in replies.items() if isinstance(r, ChatError)}
    assert len(messages) == len(replies)
    assert "Did you mean 'take'?" in messages["tkae n=2"] and "1) take n=1" in messages["tkae n=2"]
    assert "'take' has no 'm' (did you mean n?)" in messages["take m=2"]
    assert "n: 'x' is not a whole number. For example: take n=1" in messages["take n=x"]
    assert "'take' needs n=..." in messages["take"]
    assert "There is no choice 9; pick 1 to 3" in messages["9"]
    assert "Write a command" in messages[""]
    assert "given twice" in messages["take n=1 n=2"]
    assert "Too many values" in messages["take 1 2"]
    assert "cannot read" in messages['take n="2']
    assert "Unknown command 'n=2'" in messages["n=2"]
    assert "nothing to do" in DEFAULT.parse("take 1", []).message  # type: ignore[union-attr]


def test_chat_forms_read_naturally() -> None:
    assert DEFAULT.format_command({"type": "buy", "body": {"cards": [3, 5], "city": "New York", "ok": True,
                                                           "shares": {"aviation": 2, "shipping": 1},
                                                           "one": [4], "none": None, "code": "7"}}) == \
        'buy cards=3,5 city="New York" ok=true shares=aviation:2,shipping:1 one=[4] none=none code="7"'
    assert format_value([]) == "[]" and format_value({}) == "{}"
    legal = [{"type": "buy", "body": {"cards": [3, 5]}}]
    assert DEFAULT.parse("buy cards=4", legal) == {"type": "buy", "body": {"cards": [4]}}


def test_many_legal_commands_are_summarised() -> None:
    legal = [{"type": "bid", "body": {"amount": a}} for a in range(1, 51)] + [{"type": "pass", "body": {}}]
    text = DEFAULT.describe_legal(legal)
    assert text == "Legal now: bid amount=1..50 (50 choices) | pass"
    assert DEFAULT.describe_legal([]) == "You have nothing to do right now."


def test_events_and_views_render_as_short_lines() -> None:
    env = EventEnvelope(match_id="m", version=5, type="Taken", body={"seat": 1, "n": 2}, command_id="c", seat=1)
    assert DEFAULT.render_event(env) == "seat 1: Taken seat=1 n=2"
    assert DEFAULT.render_view({"pile": 4, "secret": None, "to_act": [0]}) == ["pile: 4", "to_act: [0]"]
    long = DEFAULT.render_view({"deck": list(range(500))})[0]
    assert len(long) == 200 and long.endswith("…")


def test_a_game_registers_its_own_adapter_and_others_get_the_default(monkeypatch: pytest.MonkeyPatch) -> None:
    class Fancy(DefaultAdapter):
        def render_view(self, view: Any) -> list[str]:
            return [f"{view['pile']} matches left"]

    monkeypatch.setitem(REGISTRATIONS, "fancy-nim", Registration(NIM, chat=Fancy()))
    assert get_adapter("fancy-nim").render_view({"pile": 3}) == ["3 matches left"]
    assert get_adapter("nim") is DEFAULT and get_adapter("no-such-game") is DEFAULT

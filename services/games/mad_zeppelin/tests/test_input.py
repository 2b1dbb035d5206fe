"""Bad input: each kind is rejected with a reason a player understands, and nothing changes."""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from schemas.legal import covered
from services.games.base import Command
from services.games.errors import BadCommand, GameOver, IllegalMove, NotYourTurn, Rejected
from services.games.mad_zeppelin import GAME
from services.games.mad_zeppelin.state import State
from services.games.mad_zeppelin.tests.helpers import act, sampled_states, table

BASE = table(3, traitors={0: ["captain", "guard"], 1: ["negotiator", "anarchist"], 2: ["lookout", "doctor"]},
             hands={0: ["coal"], 1: ["wood"]}, gold={0: 1})


def _played() -> State:
    state, _ = act(BASE, 0, "play_traitor", traitor="captain")
    return state


def _rejects(state: State, command: Command, error: type[Rejected], reason: str) -> None:
    before = state
    with pytest.raises(error, match=reason):
        GAME.decide(state, command, random.Random(0))
    assert state == before


@pytest.mark.parametrize(("seat", "kind", "body", "error", "reason"), [
    (0, "fly", {}, BadCommand, "unknown command 'fly'"),
    (9, "play_traitor", {"traitor": "captain"}, BadCommand, "there is no seat 9 in this match of"),
    (-1, "play_traitor", {"traitor": "captain"}, BadCommand, "there is no seat -1"),
    (1, "play_traitor", {"traitor": "negotiator"}, NotYourTurn, "it is seat 0's turn to play a Traitor"),
    (0, "throw", {"card": "coal"}, IllegalMove, "'throw' is not possible now: you must play a Traitor"),
    (0, "play_traitor", {}, BadCommand, "'traitor': Field required"),
    (0, "play_traitor", {"traitor": 3}, BadCommand, "'traitor': Input should be 'captain', 'councillor'"),
    (0, "play_traitor", {"traitor": "pirate"}, BadCommand, "'traitor': Input should be 'captain',.* or 'shadow'"),
    (0, "play_traitor", {"traitor": "captain", "and": "more"}, BadCommand, "'and': unknown field"),
    (1, "play_traitor", {"traitor": "captain", "and": "more"}, BadCommand, "'and': unknown field"),  # body first
    (0, "play_traitor", {"traitor": "doctor"}, IllegalMove, "you do not hold Docteur Ripp - The Doctor"),
])
def test_bad_commands_before_playing_are_rejected_and_change_nothing(
    seat: int, kind: str, body: dict[str, Any], error: type[Rejected], reason: str
) -> None:
    _rejects(BASE, Command(seat, kind, body), error, reason)


@pytest.mark.parametrize(("kind", "body", "error", "reason"), [
    ("throw", {"card": "steel"}, IllegalMove, "you have no steel in hand"),
    ("throw", {"card": "coal"}, IllegalMove, "costs you 2 Gold but you have 1"),  # wood drawn, no Gold
    ("throw", {"card": "coal", "crates": "small_crate"}, BadCommand, "'crates': Input should be a valid list"),
    ("throw", {"card": "coal", "crates": ["big_crate"]}, IllegalMove, "you have only 0 big_crate"),
    ("throw", {"card": 7}, BadCommand, "'card': Input should be 'wood', 'lead'"),
    ("use_ability", {}, BadCommand, "'traitor': name a Traitor"),
    ("use_ability", {"traitor": None}, BadCommand, "'traitor': name a Traitor"),
    ("use_ability", {"traitor": "guard", "die": 1}, BadCommand, "takes traitor; unexpected: die"),
    ("reroll", {"die": 0}, IllegalMove, "only the Lookout's ability"),
    ("reroll", {"die": 5}, BadCommand, "'die': Input should be less than or equal to 2"),
    ("steal", {"take": "gold"}, IllegalMove, "'steal' is not possible now"),
    ("draft", {"traitor": "guard"}, IllegalMove, "'draft' is not possible now"),
    ("end_sequence", {"now": True}, BadCommand, "'now': unknown field"),
    ("end_sequence", {1: True}, BadCommand, "'1': Keys should be strings"),
    ("use_ability", {2: "x", "traitor": "guard"}, BadCommand, "'2': Keys should be strings"),
    ("use_ability", {"traitor": "guard", "seat": None}, BadCommand, "takes traitor; unexpected: seat"),
])
def test_bad_commands_during_a_sequence_are_rejected_and_change_nothing(
    kind: str, body: dict[str, Any], error: type[Rejected], reason: str
) -> None:
    state = _played()
    state = state._replace(players=(state.players[0]._replace(gold=1), *state.players[1:]),
                           safe=state.safe + 1)
    _rejects(state, Command(0, kind, body), error, reason)


def test_a_body_that_is_not_a_mapping_is_rejected() -> None:
    _rejects(BASE, Command(0, "play_traitor", ["captain"]), BadCommand, "must be a mapping")  # type: ignore[arg-type]


def test_bad_die_numbers_are_rejected() -> None:
    state = table(2, traitors={0: ["anarchist", "guard"], 1: ["negotiator", "lookout"]})
    state, _ = act(state, 0, "play_traitor", traitor="anarchist")
    _rejects(state, Command(0, "use_ability", {"die": 3}), BadCommand, "'die': Input should be less than or equal to 2")
    _rejects(state, Command(0, "use_ability", {"die": True}), BadCommand, "'die': Input should be a valid integer")


def test_give_must_be_something_the_giver_has() -> None:
    state = table(2, traitors={0: ["negotiator", "guard"], 1: ["anarchist", "lookout"]},
                  hands={1: ["wood", "ore"]})
    state, _ = act(state, 0, "play_traitor", traitor="negotiator")
    state, _ = act(state, 0, "use_ability", seat=1)
    _rejects(state, Command(1, "give", {"what": "cargo", "card": "steel"}), IllegalMove, "no steel in hand")
    _rejects(state, Command(1, "give", {"what": "cargo"}), BadCommand, "'card': with what 'cargo', name the card")
    _rejects(state, Command(1, "give", {"what": "gold", "card": "wood"}), BadCommand, "only goes with")
    _rejects(state, Command(0, "give", {"what": "gold"}), NotYourTurn, "seat 1's turn to give seat 0")


def test_every_command_after_the_end_is_rejected() -> None:
    state = BASE._replace(phase="over", end_reason="target", final_scores=(20, 0, 0), winners=(0,))
    for seat in range(3):
        _rejects(state, Command(seat, "end_sequence", {}), GameOver, "the match is over")
    assert GAME.legal_commands(state, 0) == [] and GAME.to_act(state) == frozenset()


def test_commands_before_the_match_starts_are_rejected() -> None:
    _rejects(GAME.initial(), Command(0, "draft", {"traitor": "guard"}), IllegalMove, "has not started")


def test_legal_commands_are_empty_for_seats_not_to_act() -> None:
    assert GAME.legal_commands(BASE, 1) == [] and GAME.legal_commands(BASE, 2) == []
    assert [c.body["traitor"] for c in GAME.legal_commands(BASE, 0)] == ["captain", "guard"]


FIELD_NAMES = ["traitor", "die", "colour", "take", "what", "card", "order", "crates", "look", "seat", "x"]
JUNK = st.one_of(
    st.none(), st.booleans(), st.integers(-3, 20), st.text(max_size=4),
    st.sampled_from(["captain", "shadow", "wood", "small_crate", "big_crate", "gold", "cargo", "unused",
                     "red"]),
    st.lists(st.integers(-1, 3), max_size=4), st.lists(st.sampled_from(["small_crate", "big_crate", "x"])),
    st.dictionaries(st.text(max_size=2), st.integers()),
)


FUZZ_STATES = sampled_states(6, every=3)


@settings(max_examples=400, deadline=None)
@given(
    index=st.integers(0, len(FUZZ_STATES) - 1),
    seat=st.integers(-1, 6),
    kind=st.sampled_from(["draft", "choose_colour", "play_traitor", "steal", "give", "arrange_hold",
                          "use_ability", "reroll", "throw", "end_sequence", "jump"]),
    body=st.dictionaries(st.sampled_from(FIELD_NAMES), JUNK, max_size=3),
)
def test_any_junk_is_either_accepted_or_rejected_cleanly(
    index: int, seat: int, kind: str, body: dict[str, Any]
) -> None:
    state = FUZZ_STATES[index]
    before = state
    try:
        events = GAME.decide(state, Command(seat, kind, body), random.Random(0))
    except Rejected as e:
        assert e.reason and state == before
        return
    assert events and state == before
    # legal covers every accepted command (a throw's crates in any order and [] included)
    assert covered(GAME.legal(state, seat), kind, body)

"""Mad Zeppelin's contract edge: command bodies are parsed strictly (a clear BadCommand, nothing changed),
``legal`` is complete both ways (what decide accepts is covered, what a choice describes is accepted,
the aliases of a throw's crates included), ``legal_commands`` lists each command once, and the phase
reaches views as a plain string."""

from __future__ import annotations

import json
import random
from typing import Any

import msgpack
import pytest

from schemas.legal import Choice, choices_from_wire, covered
from services.games.base import Command, commands_of
from services.games.errors import BadCommand, Rejected
from services.games.mad_zeppelin import GAME
from services.games.mad_zeppelin.candidates import candidates
from services.games.mad_zeppelin.legal import canonical
from services.games.mad_zeppelin.schemas import COMMANDS, SCHEMAS, TRAITORS, Options
from services.games.mad_zeppelin.state import Phase, Player, Sequence, State
from services.games.mad_zeppelin.tests.helpers import act, sampled_states, table

STATES = sampled_states(12, every=2)


def _accepts(state: State, seat: int, kind: str, body: dict[str, Any]) -> bool:
    try:
        GAME.decide(state, Command(seat, kind, body), random.Random(0))
    except Rejected:
        return False
    return True


def _sequence_with_crates() -> State:
    """Seat 0 plays the Machinist (yellow is on the dice) holding gold cargo (4 Gold to throw), two big and
    two small crates, and has 1 Gold (from the Search)."""
    state = table(2, traitors={0: ["guard", "machinist"], 1: ["taster", "councillor"]},
                  hands={0: ["gold_cargo", "big_crate", "big_crate", "small_crate", "small_crate", "alcohol"]},
                  gold={0: 0}, hold_top=["wood"])
    state, _ = act(state, 0, "play_traitor", traitor="machinist")
    assert state.players[0].gold == 1
    return state


# --- strict bodies ---


@pytest.mark.parametrize(("kind", "body", "reason"), [
    ("draft", {"traitor": "Captain"}, "'traitor': Input should be 'captain'"),
    ("choose_colour", {"die": "0", "colour": "red"}, "'die': Input should be a valid integer"),
    ("choose_colour", {"die": 0.0, "colour": "red"}, "'die': Input should be a valid integer"),
    ("reroll", {"die": True}, "'die': Input should be a valid integer"),
    ("arrange_hold", {"order": [True, False]}, r"'order.0': Input should be a valid integer"),
    ("arrange_hold", {"order": (1, 0)}, "'order': Input should be a valid list"),
    ("throw", {"card": "wood", "crates": ["small_crate"], "gold": 1}, "'gold': unknown field"),
    ("throw", {"card": "wood", "crates": None}, "'crates': Input should be a valid list"),
    ("use_ability", {"seat": "1"}, "'seat': Input should be a valid integer"),
    ("steal", {"take": "gold", "from": 1}, "'from': unknown field"),
    ("end_sequence", {"now": True}, "'now': unknown field"),
])
def test_strict_bodies_are_refused_with_a_clear_reason(kind: str, body: dict[str, Any], reason: str) -> None:
    state = next(s for s in STATES if s.phase == Phase.ACTIONS)
    seat = min(GAME.to_act(state))
    with pytest.raises(BadCommand, match=reason):
        GAME.decide(state, Command(seat, kind, body), random.Random(0))


def test_fields_that_do_not_go_with_the_choice_are_refused_even_as_null() -> None:
    state = table(2, traitors={0: ["negotiator", "clairvoyant"], 1: ["anarchist", "lookout"]},
                  hands={1: ["wood", "ore"]})
    state, _ = act(state, 0, "play_traitor", traitor="negotiator")
    with pytest.raises(BadCommand, match="the negotiator's ability takes seat; unexpected: look"):
        GAME.decide(state, Command(0, "use_ability", {"seat": 1, "look": None}), random.Random(0))
    state, _ = act(state, 0, "use_ability", seat=1)
    with pytest.raises(BadCommand, match="'card' only goes with what 'cargo'"):
        GAME.decide(state, Command(1, "give", {"what": "gold", "card": None}), random.Random(0))
    with pytest.raises(BadCommand, match="'card': with what 'cargo', name the card kind to give"):
        GAME.decide(state, Command(1, "give", {"what": "cargo", "card": None}), random.Random(0))
    state = table(2, traitors={0: ["clairvoyant", "guard"], 1: ["anarchist", "lookout"]})
    state, _ = act(state, 0, "play_traitor", traitor="clairvoyant")
    with pytest.raises(BadCommand, match="'seat' only goes with look 'player'"):
        GAME.decide(state, Command(0, "use_ability", {"look": "unused", "seat": None}), random.Random(0))
    with pytest.raises(BadCommand, match="'seat': there is no seat 2 in this match"):
        GAME.decide(state, Command(0, "use_ability", {"look": "player", "seat": 2}), random.Random(0))


def test_the_body_is_read_before_the_turn() -> None:
    state = STATES[0]
    other = (min(GAME.to_act(state)) + 1) % state.seats
    with pytest.raises(BadCommand, match="'traitor': Field required"):
        GAME.decide(state, Command(other, "draft", {}), random.Random(0))


# --- legal, complete both ways ---


def test_legal_covers_the_aliases_of_a_throw_the_old_list_missed() -> None:
    state = _sequence_with_crates()
    choices = GAME.legal(state, 0)
    old_forms = [(c.type, c.body) for c in GAME.legal_commands(state, 0)]
    # the same payment with the crates in another order, [] for no crates: accepted, covered, not canonical
    for body in ({"card": "gold_cargo", "crates": ["small_crate", "big_crate", "small_crate"]},
                 {"card": "gold_cargo", "crates": ["small_crate", "small_crate", "big_crate"]},
                 {"card": "gold_cargo", "crates": ["small_crate", "big_crate"]},
                 {"card": "alcohol", "crates": []}):
        assert _accepts(state, 0, "throw", body) and covered(choices, "throw", body)
        assert ("throw", body) not in old_forms
    assert ("throw", {"card": "gold_cargo", "crates": ["big_crate", "small_crate", "small_crate"]}) in old_forms
    assert ("throw", {"card": "gold_cargo", "crates": ["big_crate", "big_crate"]}) in old_forms
    # 4 Gold to pay with 1 in hand: crates must pay at least 3 of it, none to spare (no change is given)
    for crates in ([], ["small_crate"], ["big_crate", "small_crate", "big_crate"], ["small_crate"] * 3):
        assert not _accepts(state, 0, "throw", {"card": "gold_cargo", "crates": crates})
        assert not covered(choices, "throw", {"card": "gold_cargo", "crates": crates})
    assert not _accepts(state, 0, "throw", {"card": "gold_cargo"})
    assert not covered(choices, "throw", {"card": "gold_cargo"})


def test_open_choices_describe_the_named_traitor_the_colour_and_the_order() -> None:
    state = table(2, traitors={0: ["captain", "guard"], 1: ["taster", "lookout"]})
    state, _ = act(state, 0, "play_traitor", traitor="captain")
    named = [c for c in GAME.legal(state, 0) if c.type == "use_ability"]
    assert [c.wire() for c in named] == [
        {"type": "use_ability", "body": {}, "free": {"traitor": {"kind": "one_of", "values": list(TRAITORS)}}}]
    wire = [c.wire() for c in GAME.legal(state, 0)]
    assert choices_from_wire(wire) == GAME.legal(state, 0)
    assert json.loads(json.dumps(wire)) == wire


def test_legal_is_complete_both_ways_on_random_states() -> None:
    accepted = sampled = 0
    for state in [*STATES[::3], _sequence_with_crates()]:
        acting = GAME.to_act(state)
        for seat in range(state.seats):
            choices = GAME.legal(state, seat)
            assert all(isinstance(c, Choice) for c in choices)
            if seat not in acting:
                assert choices == []
            for kind, body in candidates(state, seat):
                if _accepts(state, seat, kind, body):
                    accepted += 1
                    assert covered(choices, kind, body), (seat, kind, body)
            for choice in choices:
                for body in choice.bodies(limit=60):
                    sampled += 1
                    assert _accepts(state, seat, choice.type, body), (seat, choice.type, body)
    assert accepted > 500 and sampled > 500


def test_legal_commands_are_each_command_once_and_all_in_legal() -> None:
    for state in STATES[::4]:
        for seat in GAME.to_act(state):
            commands = GAME.legal_commands(state, seat)
            assert commands == commands_of(canonical(state, seat), seat)  # built directly, for speed
            forms = [json.dumps([c.type, c.body], sort_keys=True) for c in commands]
            assert len(forms) == len(set(forms)) and commands
            choices = GAME.legal(state, seat)
            assert all(covered(choices, c.type, c.body) for c in commands)
            assert all(c.body.get("crates") != [] for c in commands)
            assert all(c.body.get("crates", []) == sorted(c.body.get("crates", [])) for c in commands)


# --- the wire ---


def test_views_hold_plain_strings_for_the_phase() -> None:
    for state in STATES[::10]:
        assert isinstance(state.phase, Phase)
        for seat in [None, *range(state.seats)]:
            view = GAME.view(state, seat)
            assert type(view["phase"]) is str
            assert msgpack.unpackb(msgpack.packb(view)) == json.loads(json.dumps(view)) == view


def test_the_schema_is_the_contract() -> None:
    assert GAME.Options is Options is SCHEMAS.options and set(COMMANDS) == set(SCHEMAS.commands)
    for name, model in COMMANDS.items():
        schema = model.model_json_schema()
        assert schema.get("description"), name
        assert schema.get("additionalProperties") is False, name
        assert all(p.get("description") for p in schema.get("properties", {}).values()), name
    assert Options.model_json_schema()["properties"]["mode"]["description"]


def test_the_fields_evolve_builds_by_position_are_in_their_order() -> None:
    # evolve's hot paths build these by position: a new field goes at the end and those calls are reviewed
    assert Player._fields == ("gold", "hand", "front", "traitors", "current", "rerolls")
    assert Sequence._fields == ("seat", "searched", "ability_used", "copied", "throw", "arrange", "give", "steals")

"""Views as text: the generic renderer and the per-game hook."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest

from schemas.envelopes import EventEnvelope
from services.games.registration import Registration
from services.games.registry import REGISTRATIONS
from services.replay.render import compact, describe_event, render_board, render_generic
from tests.pipeline.nim import NIM


def test_generic_rendering_is_key_value_lines_with_compact_nesting() -> None:
    view = {"pile": 7, "to_act": [0], "finished": False, "outcome": None, "name": "",
            "players": [{"seat": 0, "cash": 5}, {"seat": 1, "cash": 3}],
            "market": {"aviation": 2, "shipping": [1, 2]}}
    assert render_generic(view).splitlines() == [
        "pile: 7", "to_act: [0]", "finished: no", "outcome: -", 'name: ""',
        "players: [{seat: 0, cash: 5}, {seat: 1, cash: 3}]", "market: {aviation: 2, shipping: [1, 2]}",
    ]


def test_long_nested_values_open_indented_blocks() -> None:
    view = {"players": [{"seat": s, "hand": list(range(20))} for s in range(2)],
            "board": {f"region{i}": {"owner": i, "units": [1, 2, 3]} for i in range(6)},
            "deck": list(range(60))}
    lines = render_generic(view, width=60).splitlines()
    assert lines[0] == "players:"
    assert lines[1].startswith("  - seat: 0") and "hand: [0, 1," in lines[2]
    assert "board:" in lines and "  region0: {owner: 0, units: [1, 2, 3]}" in lines
    assert any(line.startswith("deck: [0, 1, 2") for line in lines)  # a long flat list stays one line


def test_a_game_can_register_its_own_board(monkeypatch: pytest.MonkeyPatch) -> None:
    def board(view: Mapping[str, Any]) -> str:
        return f"PILE {view['pile']}"

    monkeypatch.setitem(REGISTRATIONS, "test-board", Registration(NIM, board=board))
    assert render_board("test-board", {"pile": 3}) == "PILE 3"
    assert render_board("nim", {"pile": 3}) == "pile: 3"
    assert render_board("unknown", {"pile": 3}) == "pile: 3"


def test_events_describe_their_cause_as_the_reader_may_see_it() -> None:
    env = EventEnvelope(match_id="m", version=7, type="Drawn", body={"card": 12}, visible_to=[1],
                        redacted={"count": 1}, command_id="c", seat=1, command={"type": "draw", "body": {}})
    assert describe_event(env, 1) == "v7 seat 1 (draw): Drawn card=12"
    assert describe_event(env, 0) == "v7 seat 1: Drawn (hidden) count=1"
    assert describe_event(env.model_copy(update={"seat": None, "command_id": None, "command": None})) == \
        "v7 set-up: Drawn (hidden) count=1"
    assert compact({"a": (1, True)}) == "{a: [1, yes]}"

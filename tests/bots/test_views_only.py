"""Bots receive their own seat's view and legal commands, and nothing else: no path to the full state."""

from __future__ import annotations

import copy
import json
from collections.abc import Mapping, Sequence
from typing import Any

import pytest

from services.bots.base import Bot, CommandDict
from services.bots.plugins import make_bot
from services.bots.runner import play_match
from services.games import get_game
from services.games.base import Event
from services.pipeline.inprocess import InProcess
from services.pipeline.states import to_event


class Spy:
    """Wraps a bot and records exactly what it was given."""

    def __init__(self, seat: int, bot: Bot) -> None:
        self.seat = seat
        self.bot = bot
        self.seen: list[tuple[Any, Any]] = []

    def choose(self, view: Mapping[str, Any], legal: Sequence[CommandDict]) -> CommandDict:
        self.seen.append((view, legal))
        return self.bot.choose(copy.deepcopy(view), copy.deepcopy(list(legal)))


def _plain(value: Any) -> bool:
    """Only JSON data: dicts with text keys, lists, text, numbers, booleans, None."""
    if isinstance(value, dict):
        return all(isinstance(k, str) and _plain(v) for k, v in value.items())
    if isinstance(value, list):
        return all(_plain(v) for v in value)
    return value is None or isinstance(value, str | int | float | bool)


@pytest.mark.parametrize("kinds", [["heuristic", "ismcts:8", "random"], ["heuristic", "random", "random", "random"]])
def test_every_bot_input_is_exactly_its_seats_view_at_some_version(kinds: list[str]) -> None:
    game = get_game("moderne-zeiten")
    spies = [Spy(seat, make_bot(kind, "moderne-zeiten", seat)) for seat, kind in enumerate(kinds)]
    embedded = InProcess(partitions=1)
    report = play_match(embedded.client(), "moderne-zeiten", len(kinds), spies, seed=11)
    log: list[Event] = [to_event(e) for e in embedded.backend.store.read_log(report.meta.match_id)]
    state = game.initial()
    views: dict[int, set[str]] = {seat: set() for seat in range(len(kinds))}
    legal: dict[int, set[str]] = {seat: set() for seat in range(len(kinds))}
    for event in log:
        state = game.evolve(state, event)
        for seat in views:
            views[seat].add(json.dumps(game.view(state, seat), sort_keys=True))
            commands = [{"type": c.type, "body": c.body} for c in game.legal_commands(state, seat)]
            legal[seat].add(json.dumps(commands, sort_keys=True))
    for spy in spies:
        assert spy.seen
        for view, commands in spy.seen:
            assert type(view) is dict and _plain(view) and _plain(commands)
            assert view["seat"] == spy.seat
            assert json.dumps(view, sort_keys=True) in views[spy.seat]
            assert json.dumps(commands, sort_keys=True) in legal[spy.seat]
            others = [p for p in view["players"] if p["seat"] != spy.seat]
            assert all(set(p) >= {"hand_count"} and "hand" not in p for p in others)


def test_a_bot_sees_no_secret_of_another_seat() -> None:
    spy = Spy(0, make_bot("heuristic", "moderne-zeiten", 0))
    bots = [spy, *(make_bot("random", "moderne-zeiten", s) for s in (1, 2))]
    embedded = InProcess(partitions=1)
    report = play_match(embedded.client(), "moderne-zeiten", 3, bots, seed=12)
    log = [to_event(e) for e in embedded.backend.store.read_log(report.meta.match_id)]
    assert any(e.visible_to is not None and 0 not in e.visible_to for e in log)  # there are secrets
    for view, _ in spy.seen:
        assert set(view["players"][1]) == set(view["players"][0])  # counts only, for everyone
        assert "order" not in json.dumps(view)  # the stack order never appears
        assert view["hand"] is not None and sum(view["hand"].values()) == view["players"][0]["hand_count"]

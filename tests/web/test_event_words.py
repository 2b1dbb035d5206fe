"""The table's list of what happened says each event in the game's own words (#30's "events for people"): the
gateway sends, to a subscription with ``texts``, the sentence the game's chat adapter tells a chat table, and the
page names the seats in it by their players. Checked in Node.js (``gameEventText`` of services/web/static/dom.js)
on the sentences the built-in games' adapters give for events of real matches."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from schemas.envelopes import EventEnvelope
from services.bots.plugins import make_bot
from services.bots.runner import play_match
from services.games import builtin_games
from services.games.registry import registration_of
from services.pipeline.inprocess import InProcess
from tests.web.node_script import run_node

SCRIPT = Path(__file__).with_name("event_words_js.mjs")


def said(rows: list[list[Any]]) -> list[str | None]:
    return list(run_node(SCRIPT, rows))


def test_seats_are_named_by_their_players_and_the_reader_is_told_apart() -> None:
    move = {"type": "CargoThrown", "command_id": "1.k1", "seat": 2}
    rows = [
        [move, "seat 2 throws Coal overboard (pays 2 gold).", 0, {"2": "alice"}],
        [move, "seat 2 throws Coal overboard (pays 2 gold).", 2, {"2": "alice"}],
        [move, "seat 2 throws Coal overboard (pays 2 gold).", 2, {}],
        [move, "seat 1 steals 1 gold from seat 2.", None, {"1": "bob"}],
        [{**move, "command_id": "timeout-v9-s2"}, "seat 2 ends the sequence.", None, {}],
        [move, "seat 0 flies to space 4, new_orleans high_rise.", None, {}],
        [move, "", 0, {}],
        [move, None, 0, {}],
    ]
    assert said(rows) == [
        "alice (seat 2) throws Coal overboard (pays 2 gold).",  # (a name as its player wrote it)
        "alice (seat 2, you) throws Coal overboard (pays 2 gold).",
        "Seat 2 (you) throws Coal overboard (pays 2 gold).",
        "bob (seat 1) steals 1 gold from seat 2.",
        "Seat 2 ends the sequence (the service's bot moved, as time ran out).",
        "Seat 0 flies to space 4, new orleans high rise.",
        "",
        None,
    ]


@pytest.mark.parametrize("game", builtin_games())
def test_every_event_of_a_match_is_said_in_words(game: str) -> None:
    """A whole match of each built-in game: every event seat 0 sees has a sentence or is left out on purpose
    (''), and no sentence is the developer's line ("Type: field value")."""
    adapter = registration_of(game).chat
    assert adapter is not None, f"{game} has no chat adapter: its events have no words"
    embedded = InProcess(partitions=2)
    client = embedded.client()
    seats = 3
    bots = [make_bot("random", game, seat) for seat in range(seats)]
    report = play_match(client, game, seats, bots, timeout_s=120, seed=11)
    log = embedded.backend.store.read_log(report.meta.match_id)
    rows = []
    for envelope in log:
        seen = EventEnvelope.model_validate(envelope.for_seat(0).model_dump())
        text = adapter.render_event(seen)
        assert text is None or (text and text[0] != "{" and envelope.type not in text), (envelope.type, text)
        rows.append([seen.model_dump(mode="json"), text or "", 0, {"0": "ann", "1": "bob"}])
    out = said(rows)
    told = [t for t in out if t]
    assert len(told) >= len(out) // 3, f"{game}: most events said nothing"
    assert all(t[0].isupper() or t.startswith(("ann", "bob")) for t in told), told
    assert any("ann (seat 0, you)" in t or "bob (seat 1)" in t for t in told), told[:10]

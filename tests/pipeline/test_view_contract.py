"""The view contract: every view record declares ``to_act``, ``finished`` and ``outcome`` (filled by the
projector from the game, whatever the game's own view holds) and, for the seat that must act, the
complete ``legal`` choices; records stored before these fields existed still read correctly."""

from __future__ import annotations

import pytest

from schemas.envelopes import ViewRecord
from schemas.legal import choices_from_wire
from services.bots.base import RandomBot
from services.bots.runner import play_match
from services.games import default_seats, get_game
from services.pipeline.inprocess import InProcess
from tests.registered import SUITE_GAMES


@pytest.mark.parametrize("name", SUITE_GAMES)
def test_records_declare_who_acts_and_how_it_ended(name: str) -> None:
    game = get_game(name)
    seats = default_seats(game)
    embedded = InProcess(partitions=2)
    seen: list[ViewRecord] = []
    client = embedded.client()
    original = client.wait_view

    def spy(*args: object, **kwargs: object) -> ViewRecord:
        record = original(*args, **kwargs)  # type: ignore[arg-type]
        seen.append(record)
        return record

    client.wait_view = spy  # type: ignore[method-assign]
    report = play_match(client, name, seats, [RandomBot(s) for s in range(seats)], seed=3)
    assert report.rejected == 0
    assert seen and seen[-1].finished and seen[-1].outcome is not None
    assert report.outcome == seen[-1].outcome
    for record in seen:
        assert record.finished == (record.outcome is not None)
        if record.key == "public":
            assert record.legal == []
            continue
        seat = int(record.key)
        assert bool(record.legal) == (seat in record.to_act and not record.finished)
        choices = choices_from_wire(record.legal)
        assert [c.wire() for c in choices] == record.legal


def test_a_record_stored_before_the_fields_existed_reads_them_from_its_view() -> None:
    old = {"match_id": "m", "key": "1", "version": 7,
           "view": {"to_act": [], "finished": True, "outcome": {"scores": [1, 2], "winners": [1], "detail": {}}}}
    record = ViewRecord.model_validate(old)
    assert record.finished and record.to_act == [] and record.outcome == old["view"]["outcome"]

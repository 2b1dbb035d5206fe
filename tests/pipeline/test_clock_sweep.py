"""The workers' clock sweep (#29) in process: a clocked match whose seat never moves is moved for by the
service and forfeits on the embedded backend too, and a sweep that fails (Redis away, a worker user without the
new ACL) never stops the worker from serving commands."""

from __future__ import annotations

import time

import pytest

from schemas.clock import FORFEITED, TIMED_OUT
from services.pipeline.inprocess import InProcess
from services.pipeline.memory import MemoryStore


def test_an_embedded_clocked_match_whose_seat_sleeps_forfeits() -> None:
    embedded = InProcess(partitions=4)
    client = embedded.client()
    meta = client.create_match("mad-zeppelin", 2, seed=3, clock={"kind": "move", "seconds": 0.2, "timeouts": 2})
    for seat in range(2):
        client.join(meta.match_id, seat)
    deadline = time.monotonic() + 20
    while client.match(meta.match_id).status != "finished":
        assert time.monotonic() < deadline, "the clocked match did not end"
        embedded.pump()
        time.sleep(0.05)
    log = embedded.backend.store.read_log(meta.match_id)
    assert log[-1].type == FORFEITED and [e.body["in_row"] for e in log if e.type == TIMED_OUT] == [1, 1]
    assert client.match(meta.match_id).clock is not None


def test_a_failing_sweep_leaves_the_commands_served(monkeypatch: pytest.MonkeyPatch) -> None:
    def refused(*_: object) -> list[tuple[str, int]]:
        raise PermissionError("NOPERM this user has no permissions to access the 'clocks' key")

    monkeypatch.setattr(MemoryStore, "due_clocks", refused)
    embedded = InProcess(partitions=4)
    client = embedded.client()
    meta = client.create_match("mad-zeppelin", 2, seed=4, clock={"kind": "move", "seconds": 30})
    credentials = [client.join(meta.match_id, seat)[1] for seat in range(2)]
    embedded.pump()
    record = client.view(meta.match_id, "public")
    assert record is not None and record.to_act
    seat = record.to_act[0]
    mine = client.view(meta.match_id, str(seat))
    assert mine is not None and mine.legal
    choice = next(c for c in mine.legal if not c.get("free"))
    result = client.call(meta.match_id, seat, credentials[seat], choice["type"], choice["body"], timeout_s=10)
    assert result.status == "accepted", result

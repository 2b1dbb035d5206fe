"""The web client's turn clocks (#29) in Node.js: ``remainingMs`` (services/web/static/api.js) counts a deadline down
from the server's time in the record, from the moment the record came, whatever this machine's clock says; the
time controls, countdowns and clock events in words (services/web/static/clock.js and dom.js)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.web.node_script import run_node

SCRIPT = Path(__file__).with_name("clock_js.mjs")
MOVE = {"kind": "move", "seconds": 30.0, "increment": 0.0, "timeouts": 3}
BANK = {"kind": "bank", "seconds": 300.0, "increment": 5.0, "timeouts": 3}


def run(payload: dict[str, Any]) -> dict[str, Any]:
    return dict(run_node(SCRIPT, payload))


def record(control: dict[str, Any], seats: list[dict[str, Any]], server_ms: int | None = 1_000_000) -> dict[str, Any]:
    full = [{"seat": i, "remaining_ms": 30_000, "deadline_ms": None, "timeouts": 0, "in_row": 0, "forfeited": False,
             **s} for i, s in enumerate(seats)]
    return {"version": 5, "clock": {"control": control, "started": True, "at_ms": 999_000, "seats": full},
            "server_ms": server_ms}


def test_remaining_ms_counts_from_the_servers_time() -> None:
    # the browser's own clock (performance.now()) is 7 s into its life, the server's 1,000,000 ms since the epoch:
    # only the time since the record came counts, not the difference of the two clocks
    moving = record(MOVE, [{"deadline_ms": 1_012_000}, {}])
    bank = record(BANK, [{"remaining_ms": 250_000}, {"remaining_ms": 280_000, "deadline_ms": 1_270_000}])
    stored = record(MOVE, [{"deadline_ms": 1_012_000}], server_ms=None)  # (no server_ms: counted from at_ms)
    got = run({"remaining": [
        [moving, 0, 7_000, 7_000],  # just came: 12 s left
        [moving, 0, 7_000, 10_500],  # 3.5 s later
        [moving, 0, 7_000, 30_000],  # past the deadline: 0, never below
        [moving, 1, 7_000, 8_000],  # a seat with no decision: its time per move
        [bank, 0, 7_000, 9_000],  # a bank not running: what is left of it
        [bank, 1, 7_000, 9_000],  # a running bank: its deadline, counted down
        [{"clock": None}, 0, 0, 0],  # no clock
        [moving, 5, 0, 0],  # no such seat
        [stored, 0, 0, 1_000],
    ], "controls": [], "countdowns": [], "events": [], "outcomes": []})
    assert got["remaining"] == [12_000, 8_500, 0, 30_000, 250_000, 268_000, None, None, 12_000]


def test_time_controls_and_clock_events_in_words() -> None:
    names = {"0": "alice", "1": "bob"}
    timed_out = {"version": 9, "type": "TimedOut", "seat": 0, "command_id": "timeout-v8-s0",
                 "body": {"seat": 0, "at_ms": 1, "deadline_ms": 1, "in_row": 2}}
    stand_in = {"version": 10, "type": "Taken", "seat": 0, "command_id": "timeout-v8-s0", "body": {"n": 1}}
    forfeited = {"version": 12, "type": "Forfeited", "seat": 1, "command_id": "timeout-v11-s1",
                 "body": {"seat": 1, "at_ms": 1, "deadline_ms": 1, "reason": "timeouts"}}
    bank_out = {**forfeited, "body": {**forfeited["body"], "reason": "bank"}}
    timed = {"version": 11, "type": "MoveTimed", "seat": 0, "body": {"seat": 0, "at_ms": 1}}
    clock_set = {"version": 3, "type": "ClockSet", "body": {"control": MOVE}}
    got = run({"remaining": [], "countdowns": [3_723_000, 65_000, 42_000, 7_300, 0, None],
               "controls": [MOVE, BANK, {**BANK, "increment": 0.0}, {**MOVE, "seconds": 2.5}, {"kind": "none"}],
               "events": [[timed_out, 1, names, MOVE], [timed_out, 0, names, MOVE], [stand_in, 1, names, MOVE],
                          [forfeited, 0, names, MOVE], [bank_out, 1, {}, BANK], [timed, 0, names, MOVE],
                          [clock_set, None, {}, None]],
               "outcomes": [{"scores": [0, 0], "winners": [0], "detail": {"forfeited": [1], "reason": "timeouts"}}]})
    assert [c[0] for c in got["controls"]] == ["30 s per move", "5 min + 5 s", "5 min in all", "2.5 s per move",
                                               "no clock"]
    assert "3 timeouts in a row forfeit" in got["controls"][0][1]
    assert [c[2] for c in got["controls"]] == [7_500, 10_000, 10_000, 2_000, None]  # when the own seat is warned
    assert got["countdowns"] == ["1:02:03", "1:05", "42 s", "7.3 s", "0.0 s", "\u2013"]  # (an en dash: no time)
    assert got["events"][0] == ("Time ran out for alice (seat 0): the service's bot played in that seat's place "
                                "(2 in a row; the 3rd forfeits).")
    assert got["events"][1].startswith("Time ran out for you: the service's bot played in your place")
    assert got["events"][2] == "alice (seat 0), by the service's bot as time ran out: taken — n 1"
    assert got["events"][3] == "bob (seat 1) forfeited (ran out of time: 3 timeouts in a row). The match is over."
    assert got["events"][4] == "You forfeited (ran out of time: the bank was empty). The match is over."
    assert got["events"][5] == ""  # MoveTimed: not listed
    assert got["events"][6].startswith("The clock is set: 30 s per move")
    assert got["outcomes"] == ["seat 1 forfeited (ran out of time); seat 0 won"]

"""The bridge's send queue: a queue per table served in turn, urgent lines first without starving the rest,
a move's lines joined, the flood limit kept; and the table store's file (0600, atomic, checked on load)."""

from __future__ import annotations

import json
import os
import stat
import threading
from pathlib import Path

import pytest

from services.chat.irc.outbox import URGENT_RUN, Cooldowns, Line, Outbox, joined
from services.chat.irc.protocol import TEXT_BYTES
from services.chat.irc.store import SeatRecord, StoreError, TableRecord, TableStore


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def drain(outbox: Outbox) -> list[Line]:
    stop = threading.Event()
    out = []
    while outbox.queued():
        line = outbox.take(stop)
        assert line is not None
        out.append(line)
    return out


def test_tables_take_turns_so_a_flooded_table_delays_another_by_one_line_a_turn() -> None:
    outbox = Outbox()
    outbox.put([Line("#a", f"board {i}", "#a", whole=True) for i in range(50)])  # a flood at table a
    outbox.put([Line("#b", "bob bids 5.", "#b"), Line("ann", "Your move.", "#b", urgent=True)])
    sent = [(x.table, x.text) for x in drain(outbox)]
    assert sent[:4] == [("#a", "board 0"), ("#b", "Your move."), ("#a", "board 1"), ("#b", "bob bids 5.")]
    assert [t for t, _ in sent].count("#a") == 50


def test_urgent_lines_go_first_but_never_hold_the_channel_back_for_good() -> None:
    outbox = Outbox()
    outbox.put([Line("#t", f"event {i}", "#t", whole=True) for i in range(3)])
    outbox.put([Line(f"p{i}", f"Your move {i}.", "#t", urgent=True) for i in range(5)])
    sent = [x.text for x in drain(outbox)]
    assert URGENT_RUN == 2  # after two urgent lines, one of the others
    assert sent == ["Your move 0.", "Your move 1.", "event 0", "Your move 2.", "Your move 3.", "event 1",
                    "Your move 4.", "event 2"]


def test_a_move_s_lines_to_one_target_are_joined_while_they_fit() -> None:
    lines = [Line("#t", "ann plays 2 aviation.", "#t"), Line("#t", "Next: bob.", "#t"),
             Line("bob", "Your move.", "#t", urgent=True), Line("#t", "x" * TEXT_BYTES, "#t"),
             Line("#t", "Round 1: ann to bid.", "#t", whole=True), Line("#t", "Claimed: nothing.", "#t", whole=True)]
    assert [x.text for x in joined(lines)] == ["ann plays 2 aviation. Next: bob.", "Your move.", "x" * TEXT_BYTES,
                                               "Round 1: ann to bid.", "Claimed: nothing."]


def test_the_flood_limit_allows_a_burst_then_one_line_per_interval() -> None:
    clock = Clock()
    outbox = Outbox(line_interval_s=0.5, burst=3, clock=clock)
    outbox.put([Line("#t", f"line {i}", "#t", whole=True) for i in range(5)])
    stop = threading.Event()
    for _ in range(3):
        assert outbox.take(stop) is not None
    assert outbox._wait_s() == pytest.approx(0.5)
    clock.now += 0.5
    assert outbox._wait_s() == 0 and outbox.take(stop) is not None
    assert outbox._wait_s() == pytest.approx(0.5)
    stop.set()
    assert outbox.take(stop) is None


def test_a_line_that_could_not_be_sent_goes_first_when_the_connection_is_back() -> None:
    outbox = Outbox()
    outbox.put([Line("#a", "first", "#a"), Line("#b", "second", "#b")])
    line = outbox.take(threading.Event())
    assert line is not None and line.text == "first"
    outbox.unget(line)
    assert [x.text for x in drain(outbox)] == ["first", "second"]


def test_cooldowns_allow_one_use_per_period_for_every_key() -> None:
    clock = Clock()
    limits = Cooldowns(30, clock)
    assert limits.wait_s("!board:#t", "!board:kim") == 0
    assert limits.wait_s("!board:#t", "!board:zed") == 30  # the channel's turn is used
    clock.now += 10
    assert limits.wait_s("!board:#u", "!board:kim") == 20  # kim's is too
    clock.now += 21
    assert limits.wait_s("!board:#t", "!board:kim") == 0


def test_the_store_is_written_whole_for_its_owner_only_and_checked_when_read(tmp_path: Path) -> None:
    path = tmp_path / "new" / "tables.json"
    store = TableStore(path)
    assert store.load() == []
    table = TableRecord("#t", "m1", "nim", 2, shown=4,
                        players=[SeatRecord(0, "0." + "a" * 48, "ann", "ann@h", None, "f" * 64)])
    store.save([table])
    assert store.load() == [table]
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    assert stat.S_IMODE(os.stat(path.parent).st_mode) == 0o700
    os.chmod(path, 0o644)
    store.load()
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600, "a store readable by others is tightened"
    path.write_text("{not json")
    with pytest.raises(StoreError, match="cannot read the table store"):
        store.load()
    path.write_text(json.dumps({"format": 99}))
    with pytest.raises(StoreError, match="not a table store of format 1"):
        store.load()
    blocked = TableStore(tmp_path / "file" / "tables.json")
    (tmp_path / "file").write_text("a file where the directory should be")
    with pytest.raises(StoreError, match="cannot write the table store"):
        blocked.save([table])

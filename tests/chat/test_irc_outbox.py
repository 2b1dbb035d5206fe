"""The bridge's send queue: a queue per table served in turn, urgent lines first without starving the rest,
a move's lines joined, the flood limit kept; and the table store's file (0600, atomic, checked on load)."""

from __future__ import annotations

import json
import os
import stat
import threading
from pathlib import Path

import pytest

from services.chat.irc.acks import Acks
from services.chat.irc.outbox import KEEP_RUN, URGENT_RUN, Cooldowns, Line, Outbox, joined
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


def test_the_matchs_lines_go_before_chatter_and_only_chatter_is_dropped_for_room() -> None:
    outbox = Outbox(max_queued=5)
    outbox.put([Line("#t", f"!seats answer {i}", "#t", whole=True) for i in range(8)])  # chatter: 3 dropped
    outbox.put([Line("#t", f"ann bids {i}.", "#t", whole=True, keep=True) for i in range(6)])  # none dropped
    assert outbox.dropped == 8, "every chatter line made room for the match's lines"
    sent = [x.text for x in drain(outbox)]
    assert sent == [f"ann bids {i}." for i in range(6)]
    outbox.put([Line("#t", "chat", "#t"), Line("#t", "event.", "#t", keep=True)])
    assert [x.text for x in drain(outbox)] == ["event.", "chat"]


def test_the_byte_pace_holds_the_next_line_until_the_last_ones_bytes_are_paid() -> None:
    clock = Clock()
    outbox = Outbox(bytes_per_s=100, clock=clock)
    outbox.put([Line("#t", "x" * 88, "#t", whole=True), Line("#t", "y", "#t", whole=True)])
    stop = threading.Event()
    assert outbox.take(stop) is not None  # 88 + "#t" + 12 = 102 bytes
    assert outbox._wait_s() == pytest.approx(1.02)
    clock.now += 1.02
    assert outbox._wait_s() == 0 and outbox.take(stop) is not None


def test_a_line_counts_as_told_once_the_server_acknowledged_it() -> None:
    acks = Acks(every=3, window=4, window_bytes=10_000)
    lines = [Line("#t" if i % 2 else "ann", f"line {i}", "#t") for i in range(5)]
    tokens = [acks.sent(line) for line in lines[:3]]
    assert tokens == [None, None, "airship-3"]  # a ping after every 3 lines
    assert acks.sent(lines[3]) is None and acks.idle() == "airship-4" and acks.idle() is None
    stop = threading.Event()
    assert acks.waiting == 4 and not acks.wait_room(stop, 0.05), "the window is full: wait for the server"
    assert not acks.pong("someone-else-3") and acks.waiting == 4
    assert acks.pong("airship-3") and acks.waiting == 1 and acks.wait_room(stop, 0.05)
    acks.sent(lines[4])
    assert acks.stalled(0) and not acks.stalled(60), "a server silent for a minute is taken for gone"
    resent = acks.lost()  # the connection broke: lines 3 and 4 were never acknowledged
    assert [(x.target, x.text) for x in resent] == [("#t", "Meanwhile: line 3"), ("ann", "line 4")]
    assert acks.waiting == 0 and acks.idle() is None


def test_chatter_waits_behind_the_matchs_lines_but_is_not_starved() -> None:
    outbox = Outbox()
    outbox.put([Line("#t", f"board {i}", "#t", whole=True) for i in range(2)])
    outbox.put([Line("#t", f"event {i}.", "#t", whole=True, keep=True) for i in range(7)])
    assert KEEP_RUN == 3
    assert [x.text for x in drain(outbox)] == ["event 0.", "event 1.", "event 2.", "board 0", "event 3.", "event 4.",
                                               "event 5.", "board 1", "event 6."]

"""Turn clocks (#29) in chat and on IRC: a clock written short on '!new', the time left on the turn line, the prompt,
the board and the status, one reminder a decision that expires with its deadline, and timeouts and forfeits in
plain words. Deadlines far away are read at a simulated time (``now_ms``); timeouts and forfeits happen for real,
on clocks of a second or less."""

from __future__ import annotations

import threading
import time
from typing import Any

import pytest

from schemas.clock import ClockView, SeatClock, TimeControl
from schemas.envelopes import ViewRecord
from services.chat import clocks
from services.chat.irc.outbox import Line, Outbox
from services.chat.irc.store import SeatRecord
from services.chat.irc.tables import Player, Table, Tables
from services.chat.session import ChatSession
from services.pipeline.inprocess import InProcess
from tests.chat.test_irc_tables import ANN, BOB, Clock, PumpedClient, texts

T0 = 1_700_000_000_000


class Wall:
    """The server's time as the chat layer reads it (ms since the epoch): set by the test, else the real one."""

    def __init__(self) -> None:
        self.now: int | None = None

    def __call__(self) -> int:
        return self.now if self.now is not None else clocks.wall_ms()


def clocked_tables(wall: Wall | None = None, mono: Clock | None = None) -> Tables:
    embedded = InProcess(partitions=2)
    return Tables(PumpedClient(embedded.backend, pump=embedded.pump), timeout_s=5, clock=mono or Clock(),
                  abandon_idle_s=300, now_ms=wall or Wall())


def seated(t: Tables, clock: str, channel: str = "#t") -> Table:
    assert "New match of nim" in texts(t.on_channel(channel, ANN, f"!new nim 2 max_take=2 seed=3 {clock}"))[0]
    t.on_channel(channel, ANN, "!join 0")
    t.on_channel(channel, BOB, "!join 1")
    return t.tables[channel]


def deadline(t: Tables, table: Table, seat: int) -> int:
    record = t.client.view(table.match_id, "public")
    assert record is not None and record.clock is not None
    value = record.clock.seats[seat].deadline_ms
    assert value is not None
    return value


def record(control: TimeControl, seats: list[tuple[int | None, int | None]], server_ms: int | None = T0,
           in_row: int = 0) -> ViewRecord:
    """A public view record with clocks: per seat (remaining_ms, deadline_ms)."""
    clock = ClockView(control=control, started=True, at_ms=T0, seats=[
        SeatClock(seat=s, remaining_ms=r, deadline_ms=d, timeouts=in_row, in_row=in_row)
        for s, (r, d) in enumerate(seats)])
    to_act = [s for s, (_, d) in enumerate(seats) if d is not None]
    return ViewRecord(match_id="m", key="public", version=9, view={}, to_act=to_act, clock=clock,
                      server_ms=server_ms)


# -- words ---------------------------------------------------------------------------------------
@pytest.mark.parametrize(("text", "kind", "seconds", "increment", "timeouts"), [
    ("30s", "move", 30, 0, 3), ("1m30s", "move", 90, 0, 3), ("2min", "move", 120, 0, 3), ("1h", "move", 3600, 0, 3),
    ("30s/2", "move", 30, 0, 2), ("5m+5s", "bank", 300, 5, 3), ("5M+0", "bank", 300, 0, 3),
    ("0.5s", "move", 0.5, 0, 3), ("1.5m+2s", "bank", 90, 2, 3)])
def test_a_clock_is_read_from_its_short_form(text: str, kind: str, seconds: float, increment: float,
                                             timeouts: int) -> None:
    control = clocks.parse_clock(text)
    assert isinstance(control, TimeControl), control
    assert (control.kind, control.seconds, control.increment, control.timeouts) == (kind, seconds, increment,
                                                                                     timeouts)
    assert clocks.parse_clock("none") == TimeControl(kind="none")


@pytest.mark.parametrize(("text", "says"), [
    ("30x", "is not a clock; write e.g. 30s"), ("30", "say the unit"), ("0s", "out of bounds"),
    ("8d", "is not a clock"), ("9999h", "out of bounds"), ("5m+2h", "at most 1 h"), ("5m+x", "not an increment"),
    ("30s/0", "1 to 20"), ("30s/21", "1 to 20"), ("5m+5s/2", "only for a clock per move"), ("s", "not a clock")])
def test_a_bad_clock_gets_one_line_saying_what_to_write(text: str, says: str) -> None:
    reason = clocks.parse_clock(text)
    assert isinstance(reason, str) and says in reason and "\n" not in reason and len(reason) < 200


def test_times_are_said_short() -> None:
    assert [clocks.left(ms) for ms in (-5, 0, 1, 999, 20_000, 59_001, 60_000, 95_000, 3_723_000, 90_061_000)] == [
        "0 s", "0 s", "1 s", "1 s", "20 s", "1:00", "1:00", "1:35", "1:02:03", "1 d 1:01:01"]
    assert [clocks.span(s) for s in (0.5, 30, 60, 90, 300, 3600, 5400)] == [
        "0.5 s", "30 s", "1 min", "1 min 30 s", "5 min", "1 h", "1 h 30 min"]
    assert clocks.control_text(TimeControl(kind="move", seconds=30)) == "30 s a move; 3 timeouts in a row forfeit"
    assert clocks.control_text(TimeControl(kind="move", seconds=30, timeouts=1)) == \
        "30 s a move; the first timeout forfeits"
    assert clocks.control_text(TimeControl(kind="bank", seconds=300, increment=5)) == \
        "5 min bank, +5 s a move; an empty bank forfeits"


def test_every_seat_s_clock_in_one_line_counted_from_the_server_s_time() -> None:
    names = {0: "alice", 1: "bob", 2: "carol"}.__getitem__
    bank = TimeControl(kind="bank", seconds=300, increment=5)
    # alice decides (20 s left by the gateway's time); bob's and carol's banks wait
    rec = record(bank, [(60_000, T0 + 20_000), (95_000, None), (300_000, None)])
    far_off = Wall()
    far_off.now = T0 + 3_600_000  # this machine's clock is an hour off: the gateway's server_ms counts
    assert clocks.clocks_line(rec, names, far_off) == ("Clocks (5 min bank, +5 s a move; an empty bank forfeits): "
                                                       "alice 20 s left to move · bob 1:35 · carol 5:00.")
    move = TimeControl(kind="move", seconds=30)
    rec = record(move, [(30_000, None), (30_000, T0 + 12_500)], server_ms=None, in_row=1)
    far_off.now = T0  # the embedded service: no server_ms, this machine's time is the server's
    assert clocks.clocks_line(rec, names, far_off) == ("Clocks (30 s a move; 3 timeouts in a row forfeit): alice "
                                                       "waiting (1 timeout in a row) · bob 13 s left to move "
                                                       "(1 timeout in a row).")
    assert clocks.clocks_line(record(move, [(None, None)]).model_copy(update={"clock": None}), names) is None


def test_the_turn_line_says_each_seat_s_time_when_they_differ() -> None:
    t = clocked_tables()
    table = Table("#t", "m", "nim", 2, adapter=None)  # type: ignore[arg-type]
    bank = TimeControl(kind="bank", seconds=300)
    assert t._turn_text(table, record(bank, [(60_000, T0 + 20_000), (95_000, T0 + 95_000)]), [0, 1]) == \
        "seat 0 (20 s), seat 1 (1:35): your move."
    assert t._turn_text(table, record(bank, [(60_000, T0 + 20_000), (95_000, T0 + 20_000)]), [0, 1]) == \
        "seat 0, seat 1: your move — 20 s left."


def test_a_reminder_counts_from_the_gateway_s_time_not_this_machine_s() -> None:
    far_off = Wall()
    far_off.now = T0 + 3_600_000  # an hour ahead: were it used, every decision would look long over
    t = clocked_tables(far_off)
    table = Table("#t", "m", "nim", 2, adapter=None)  # type: ignore[arg-type]
    table.players[1] = Player(SeatRecord(1, "token", "bob", "bob@h", None, ""), session=None)  # type: ignore[arg-type]
    move = TimeControl(kind="move", seconds=30)  # reminded at 10 s left
    seen = record(move, [(30_000, None), (30_000, T0 + 25_000)], server_ms=T0)
    assert t._reminders(table, seen) == []
    late = record(move, [(30_000, None), (30_000, T0 + 25_000)], server_ms=T0 + 20_000)
    assert texts(t._reminders(table, late)) == [
        "Hurry: 5 s left for your move at #t; then the service's bot plays for you (1st timeout in a row; a 3rd "
        "forfeits)."]


# -- a table -------------------------------------------------------------------------------------
def test_new_takes_a_clock_and_refuses_a_bad_one_in_one_line() -> None:
    t = clocked_tables()
    assert "A clock is optional: 30s (30 s a move) or 5m+5s" in " ".join(texts(t.on_channel("#t", ANN, "!help")))
    for bad, says in [("30x", "'30x' is not a clock; write e.g. 30s"), ("0s", "out of bounds"),
                      ("30s 1m", "give one clock"), ("fast", "a clock looks like 30s or 5m+5s")]:
        reply = texts(t.on_channel("#t", ANN, f"!new nim 2 {bad}"))
        assert len(reply) == 1 and reply[0].startswith("ann: ") and says in reply[0], reply
        assert "#t" not in t.tables, "a refused clock sets nothing up"
    said = texts(t.on_channel("#t", ANN, "!new nim 2 5m+5s max_take=2"))
    assert said == ["New match of nim for 2 players, 5 min bank, +5 s a move; an empty bank forfeits. Write '!join' to "
                    "take a seat (0/2)."]
    view = t.client.view(t.tables["#t"].match_id, "public")
    assert view is not None and view.clock is not None
    assert view.clock.control == TimeControl(kind="bank", seconds=300, increment=5)
    t.on_channel("#u", ANN, "!new moderne zeiten 3 clock=30s/2")  # clock= too, anywhere after the game
    view = t.client.view(t.tables["#u"].match_id, "public")
    assert view is not None and view.clock is not None
    assert view.clock.control == TimeControl(kind="move", seconds=30, timeouts=2)
    t.on_channel("#v", ANN, "!new nim 2")
    view = t.client.view(t.tables["#v"].match_id, "public")
    assert view is not None and view.clock is None  # no clock unless asked


def test_the_turn_line_the_prompt_the_board_and_the_seats_say_the_time_left() -> None:
    wall = Wall()
    t = clocked_tables(wall)
    table = seated(t, "1m")
    wall.now = deadline(t, table, 0) - 20_000
    first = t.poll()
    assert texts(first, "#t") == ["ann: your move — 20 s left."]  # nick first, as without a clock
    assert first[0].target == "ann" and texts(first, "ann")[-1].startswith("Your move (20 s left). Legal now:")
    clocks_line = "Clocks (1 min a move; 3 timeouts in a row forfeit): ann 20 s left to move · bob waiting."
    assert texts(t.on_channel("#t", ANN, "!seats"))[-1] == clocks_line
    assert texts(t.on_channel("#t", BOB, "!board"))[-1] == clocks_line
    wall.now += 5_000
    board = texts(t.on_private(ANN, "board"))
    assert "Clocks (1 min a move; 3 timeouts in a row forfeit): ann 15 s left to move · bob waiting." in board
    assert board[-1].startswith("Your move (15 s left).")
    assert any("This match has a clock: 1 min a move" in x for x in texts(t.on_private(ANN, "help")))
    assert t.on_channel("#t", ANN, "take 2") == []
    wall.now = deadline(t, table, 1) - 42_000
    news = t.poll()
    assert texts(news, "#t") == ["ann: Taken seat=0 n=2", "bob: your move — 42 s left."]  # never "MoveTimed"
    assert texts(news, "bob")[-1].startswith("Your move (42 s left).")


def test_the_seat_to_act_is_reminded_once_a_decision_privately_and_the_reminder_expires() -> None:
    wall, mono = Wall(), Clock()
    t = clocked_tables(wall, mono)
    table = seated(t, "1m")
    due = deadline(t, table, 0)
    wall.now = due - 40_000
    t.poll()
    wall.now = due - 16_000  # a 1 min clock: reminded at 15 s left (a quarter)
    assert t.poll() == []
    wall.now = due - 14_000
    reminder = t.poll()
    assert [(x.target, x.urgent) for x in reminder] == [("ann", True)], "to the seat to act only, not the channel"
    assert reminder[0].text == ("Hurry: 14 s left for your move at #t; then the service's bot plays for you (1st "
                                "timeout in a row; a 3rd forfeits).")
    assert reminder[0].expires == mono.now + 14
    for late in (10_000, 5_000, 2_500):  # once a decision
        wall.now = due - late
        assert t.poll() == []
    # bob's decision starts with little time already (as seen): its turn line says so, no reminder follows
    t.on_channel("#t", ANN, "take 1")
    wall.now = deadline(t, table, 1) - 9_000
    started = t.poll()
    assert texts(started, "#t")[-1] == "bob: your move — 9 s left."
    assert texts(started, "bob")[-1].startswith("Your move (9 s left).")
    assert not any(x.startswith("Hurry") for x in texts(started)), "the prompt says the time: no reminder with it"
    wall.now += 3_000
    assert t.poll() == []
    # a reminder held up in the outbox past the deadline is never sent; one in time is
    outbox = Outbox(clock=mono)
    outbox.put([Line("ann", "Hurry: 14 s left", "#t", urgent=True, expires=mono.now + 14),
                Line("#t", "ann: Taken seat=0 n=1", "#t")])
    mono.now += 15
    outbox.put([Line("bob", "Hurry: 10 s left", "#t", urgent=True, expires=mono.now + 10)])
    stop = threading.Event()
    sent = [outbox.take(stop, poll_s=0.01) for _ in range(2)]
    assert [x.text for x in sent if x] == ["Hurry: 10 s left", "ann: Taken seat=0 n=1"]
    assert outbox.expired == 1 and outbox.queued() == 0


def poll_until_over(t: Tables, table: Table, limit_s: float = 30.0) -> list[Line]:
    out: list[Line] = []
    start = time.monotonic()
    while not table.finished and time.monotonic() - start < limit_s:
        out += t.poll()
        time.sleep(0.05)
    assert table.finished, "the clocks did not end the match"
    return out


def test_timeouts_and_a_forfeit_are_told_in_plain_words() -> None:
    t = clocked_tables()
    table = seated(t, "1s/2")
    out = t.poll() + poll_until_over(t, table)  # ann and bob never move: the service plays, then ann forfeits
    channel = texts(out, "#t")
    assert "Time ran out for ann: the service's bot played for ann (1 in a row; a 2nd forfeits)." in channel
    assert "Time ran out for bob: the service's bot played for bob (1 in a row; a 2nd forfeits)." in channel
    ran_out = channel.index("Time ran out for ann: the service's bot played for ann (1 in a row; a 2nd forfeits).")
    assert channel[ran_out + 1] == "ann: Taken seat=0 n=2", "the bot's move follows, as any move is told"
    assert channel[-1] == "The match is over. ann forfeited: out of time (2 timeouts in a row). bob wins."
    assert not any(word in line for line in channel for word in ("MoveTimed", "ClockStarted", "Forfeited",
                                                                  "TimedOut", "match.timeout"))
    assert "Time ran out for you: the service's bot played for you (1 in a row; a 2nd forfeits)." in texts(out, "ann")
    assert texts(out, "ann")[-1] == "The match is over. You forfeited: out of time (2 timeouts in a row). Won by bob."
    assert texts(out, "bob")[-1] == "The match is over. You won: ann forfeited, out of time (2 timeouts in a row)."


def test_an_empty_bank_forfeits_in_plain_words() -> None:
    t = clocked_tables()
    table = seated(t, "0.5s+0.1s")
    channel = texts(t.poll() + poll_until_over(t, table), "#t")
    assert channel[-1] == "The match is over. ann forfeited: out of time (the bank ran out). bob wins."


# -- a terminal session --------------------------------------------------------------------------
def test_a_session_says_its_time_left_and_a_timeout_without_the_clock_s_bookkeeping() -> None:
    embedded = InProcess(partitions=2)
    client = PumpedClient(embedded.backend, pump=embedded.pump)
    client.create_match("nim", 2, {"max_take": 2}, seed=3, match_id="c", clock={"kind": "move", "seconds": 1.0,
                                                                                 "timeouts": 3})
    creds = dict(client.join("c", s) for s in range(2))
    wall = Wall()
    me = ChatSession(client, "c", 1, creds[1], now_ms=wall)
    first = me.updates()
    assert any(line.startswith("Clocks") for line in me.handle("board"))
    assert not any("left" in line for line in first if line.startswith("Your move"))  # not bob's turn
    lines: list[Any] = []
    start = time.monotonic()
    while not any("Your move" in x for x in lines) and time.monotonic() - start < 20:
        lines += me.updates()
        time.sleep(0.05)
    assert "Time ran out for seat 0: the service's bot played for seat 0 (1 in a row; a 3rd forfeits)." in lines
    assert not any(word in line for line in lines for word in ("MoveTimed", "ClockStarted", "match.timeout"))
    prompt = next(x for x in lines if x.startswith("Your move"))
    assert prompt.startswith("Your move (1 s left).")

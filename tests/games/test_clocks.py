"""Turn clocks (#29) at the match layer, on simulated time: random matches of every game with short clocks, seats
that sometimes let their deadline pass, and moves racing their deadlines. Every log is then verified (each command
decided again at its recorded time), and its clocks replayed."""

from __future__ import annotations

import random
from typing import Any

import pytest

from schemas.clock import CLOCK_STARTED, FORFEITED, MOVE_TIMED, TIMED_OUT, TIMEOUT_COMMAND, TimeControl, timeout_id
from schemas.envelopes import EventEnvelope, MatchMeta
from services.games import builtin_games, default_seats
from services.games.base import Command, Event, replay
from services.games.clock import ClockedGame, clock_events, match_game
from services.games.errors import BadCommand, Rejected
from services.games.rng import derive_rng
from services.pipeline.states import to_envelope, to_event
from services.replay.files import MatchLog
from services.replay.verify import verify

T0 = 1_700_000_000_000
MOVE = TimeControl(kind="move", seconds=2.0, timeouts=3)
BANK = TimeControl(kind="bank", seconds=6.0, increment=1.0)


class Match:
    """A match played on simulated time, appended as the store would (one command at a time, at its version)."""

    def __init__(self, name: str, control: TimeControl, seed: int) -> None:
        self.game: ClockedGame = match_game(name)
        self.seed = seed
        self.seats = default_seats(self.game)
        self.meta = MatchMeta(match_id=f"m{seed}", game=name, seats=self.seats, seed=seed, status="finished")
        events = self.game.setup({}, self.seats, derive_rng(seed, 0)) + clock_events(control)
        self.meta = self.meta.model_copy(update={"options": events[0].body["options"]})
        self.log: list[EventEnvelope] = []
        self.state: Any = self.game.initial()
        self.ids: list[str] = []
        self._add(events, None, None, None)
        self._add([Event(CLOCK_STARTED, {"at_ms": T0})], None, None, None)

    def _add(self, events: list[Event], command_id: str | None, seat: int | None,
             recorded: dict[str, Any] | None) -> None:
        for i, event in enumerate(events):
            self.log.append(to_envelope(self.meta.match_id, len(self.log) + 1, event, command_id, seat,
                                        recorded if i == 0 else None))
            self.state = self.game.evolve(self.state, event)

    @property
    def version(self) -> int:
        return len(self.log)

    def decide(self, seat: int, kind: str, body: dict[str, Any], at: int, command_id: str) -> list[Event]:
        return self.game.decide_at(self.state, Command(seat, kind, body), derive_rng(self.seed, self.version), at)

    def apply(self, seat: int, kind: str, body: dict[str, Any], at: int, command_id: str) -> list[Event]:
        events = self.decide(seat, kind, body, at, command_id)
        self._add(events, command_id, seat, {"type": kind, "body": body})
        self.ids.append(command_id)
        return events


def play(name: str, control: TimeControl, seed: int) -> Match:
    rng = random.Random(seed)
    match = Match(name, control, seed)
    now, n = T0, 0
    while match.game.outcome(match.state) is None and n < 3000:
        n += 1
        due = match.game.deadline(match.state)
        assert due is not None, "a running clocked match always has a seat on the clock"
        deadline, due_seat = due
        acting = sorted(match.game.to_act(match.state))
        seat = rng.choice(acting)
        legal = match.game.legal_commands(match.state, seat)
        move = rng.choice(legal)
        late = rng.random() < (0.1 if control.kind == "move" else 0.01)
        at = deadline + rng.randint(0, 500) if late else min(now + rng.randint(0, 900), deadline - 1)
        if not late and at < now:
            at = now
        version = match.version
        timeout_body = {"deadline_ms": deadline, "move": None}
        # Early, the timeout is refused; a move and a timeout decided at the same version race: one is appended.
        with pytest.raises(BadCommand):
            match.decide(due_seat, TIMEOUT_COMMAND, timeout_body, deadline - 1, "early")
        move_first = not late or rng.random() < 0.3
        if move_first:
            match.apply(seat, move.type, move.body, at, f"c{n}")
            with pytest.raises(Rejected):  # the timeout decided again on the state the move left
                if match.game.deadline(match.state) == (deadline, due_seat) and seat != due_seat:
                    raise BadCommand("still due: another seat acted (simultaneous decisions)")
                match.decide(due_seat, TIMEOUT_COMMAND, timeout_body, at, "late")
        else:
            match.apply(due_seat, TIMEOUT_COMMAND, timeout_body, at, timeout_id(version, due_seat))
        now = max(now, at)
    assert match.game.outcome(match.state) is not None, f"{name} seed {seed}: no end in {n} decisions"
    return match


@pytest.mark.parametrize("control", [MOVE, BANK], ids=["move", "bank"])
@pytest.mark.parametrize("name", builtin_games())
def test_random_clocked_matches_replay_and_verify(name: str, control: TimeControl) -> None:
    for seed in range(6):
        match = play(name, control, seed)
        assert [e.version for e in match.log] == list(range(1, len(match.log) + 1))
        assert len(match.ids) == len(set(match.ids)), "a command (or a timeout) applied twice"
        report = verify(MatchLog(match.meta, match.log))
        assert report.ok, report.summary()
        assert report.commands_decided == len(match.ids)
        again = replay(match.game, [to_event(e) for e in match.log])
        assert again == match.state
        for envelope in match.log:  # no timeout of a seat that was not on the clock at its version
            if envelope.type == TIMED_OUT:
                before = replay(match.game, [to_event(e) for e in match.log[:envelope.version - 1]])
                assert before.clock is not None
                assert before.clock.deadline(envelope.body["seat"]) == envelope.body["deadline_ms"]
                assert envelope.body["at_ms"] >= envelope.body["deadline_ms"]


def test_three_timeouts_in_a_row_forfeit_and_the_outcome_says_so() -> None:
    match = Match("moderne-zeiten", MOVE, 7)
    for expected in (1, 2, 3):
        deadline, seat = match.game.deadline(match.state) or (0, 0)
        events = match.apply(seat, TIMEOUT_COMMAND, {"deadline_ms": deadline, "move": None}, deadline + 10,
                             timeout_id(match.version, seat))
        if expected < 3:
            assert events[0].type == TIMED_OUT and events[0].body["in_row"] == expected
            assert events[-1].type == MOVE_TIMED and events[-1].body["stand_in"] is True
            if match.game.deadline(match.state)[1] != seat:  # type: ignore[index]
                return  # the stand-in's move passed the turn on: the row is broken by the next seat's decision
        else:
            assert [e.type for e in events] == [FORFEITED]
    outcome = match.game.outcome(match.state)
    assert outcome is not None and outcome.detail["forfeited"] == [seat] and seat not in outcome.winners
    assert match.game.to_act(match.state) == frozenset()
    assert match.game.deadline(match.state) is None


def test_a_bank_runs_down_and_gains_its_increment() -> None:
    match = Match("moderne-zeiten", BANK, 3)
    clock = match.state.clock
    deadline, seat = match.game.deadline(match.state) or (0, 0)
    assert deadline == T0 + 6000
    move = match.game.legal_commands(match.state, seat)[0]
    match.apply(seat, move.type, move.body, T0 + 2500, "c1")
    clock = match.state.clock
    assert clock.seats[seat].bank_ms == 6000 - 2500 + 1000
    if seat in match.game.to_act(match.state):
        assert clock.deadline(seat) == T0 + 2500 + clock.seats[seat].bank_ms


def test_an_empty_bank_forfeits() -> None:
    match = Match("mad-zeppelin", BANK, 5)
    deadline, seat = match.game.deadline(match.state) or (0, 0)
    events = match.apply(seat, TIMEOUT_COMMAND, {"deadline_ms": deadline}, deadline, timeout_id(match.version, seat))
    assert [e.type for e in events] == [FORFEITED] and events[0].body["reason"] == "bank"
    assert verify(MatchLog(match.meta, match.log)).ok


def test_an_unclocked_match_has_no_clock_and_refuses_timeouts() -> None:
    game = match_game("modern-world")
    state = replay(game, game.setup({}, 4, derive_rng(1, 0)))
    assert state.clock is None and game.deadline(state) is None
    with pytest.raises(BadCommand):
        game.decide_at(state, Command(0, TIMEOUT_COMMAND, {"deadline_ms": 1}), derive_rng(1, 9), T0)


def test_a_replay_shows_every_seats_clock_at_every_version() -> None:
    from services.replay.stepper import Replay

    match = play("moderne-zeiten", BANK, 11)
    stepper = Replay(MatchLog(match.meta, match.log))
    last_bank: dict[int, int] = {}
    for version in range(1, stepper.last + 1):
        public = stepper.records_at(version)[0]
        state = replay(match.game, [to_event(e) for e in match.log[:version]])
        if state.clock is None:
            assert public.clock is None
            continue
        assert public.clock is not None and public.clock.control == BANK
        for seat_clock in public.clock.seats:
            assert seat_clock.deadline_ms == state.clock.deadline(seat_clock.seat)
            last_bank[seat_clock.seat] = seat_clock.remaining_ms or 0
    assert set(last_bank) == set(range(match.seats))
    assert stepper.records_at()[0].finished


def test_a_record_says_how_long_a_seat_has_left() -> None:
    from schemas.envelopes import ViewRecord

    match = Match("mad-zeppelin", MOVE, 2)
    deadline, seat = match.game.deadline(match.state) or (0, 0)
    record = ViewRecord(match_id="m", key="public", version=match.version, view={},
                        clock=match.state.clock.view(), server_ms=deadline - 1500)
    assert record.time_left_ms(seat) == 1500
    assert record.time_left_ms(1 - seat) is None  # no decision: no deadline
    late = record.model_copy(update={"server_ms": deadline + 10})
    assert late.time_left_ms(seat) == 0
    in_process = record.model_copy(update={"server_ms": None})
    assert in_process.time_left_ms(seat, now_ms=deadline - 200) == 200
    assert ViewRecord(match_id="m", key="public", version=1, view={}).time_left_ms(0) is None

"""The bot side of a chaos run: random bots in every seat (one :class:`SeatRunner` thread each) over a
client that writes down every command it sends and every result it receives. Lobby calls are retried
across a lost connection without taking a seat twice."""

from __future__ import annotations

import secrets
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from schemas.envelopes import CommandResult
from services.bots.base import RandomBot
from services.bots.sdk import ConnectionErrors, SeatRunner
from services.client.protocol import GameClient
from services.games.errors import BadOptions
from services.logs import get_logger
from services.pipeline import lobby
from services.pipeline.auth import hash_credential
from services.pipeline.direct import DirectClient
from services.pipeline.ports import Backend

T = TypeVar("T")

log = get_logger("chaos")


@dataclass(frozen=True, slots=True)
class Received:
    result: CommandResult
    epoch: int  # Redis restarts completed when it arrived


@dataclass
class Ledger:
    """What the clients sent and got back; ``epoch`` is advanced by the Redis restarter."""

    sent: set[tuple[str, str]] = field(default_factory=set)  # (match id, command id): ids are per match
    received: list[Received] = field(default_factory=list)
    credentials: list[str] = field(default_factory=list)
    epoch: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)

    def note_sent(self, command_id: str, match_id: str) -> None:
        with self.lock:
            self.sent.add((match_id, command_id))

    def note_received(self, result: CommandResult) -> None:
        with self.lock:
            self.received.append(Received(result, self.epoch))


class RecordingClient(DirectClient):
    def __init__(self, backend: Backend, ledger: Ledger, poll_ms: int = 200) -> None:
        super().__init__(backend, poll_ms=poll_ms)
        self.ledger = ledger

    def send(self, match_id: str, seat: int, credential: str | None, type: str, body: Mapping[str, Any],
             command_id: str | None = None, expected_version: int | None = None) -> str:
        """Publish, and note the command as sent once the service has taken it (XADD answered): from then
        on it owes a result. A publish that failed with the connection was never acknowledged; the bot
        decides again (with the same command id while the view has not moved on)."""
        command_id = super().send(match_id, seat, credential, type, body, command_id, expected_version)
        self.ledger.note_sent(command_id, match_id)
        return command_id

    def call(self, match_id: str, seat: int, credential: str | None, type: str, body: Mapping[str, Any],
             timeout_s: float = 30.0, command_id: str | None = None,
             expected_version: int | None = None) -> CommandResult:
        result = super().call(match_id, seat, credential, type, body, timeout_s, command_id, expected_version)
        self.ledger.note_received(result)
        return result


def retrying(fn: Callable[[], T], attempts: int = 60) -> T:
    """``fn()``, again after a lost connection (growing pauses, about a minute in all)."""
    for attempt in range(attempts):
        try:
            return fn()
        except ConnectionErrors:
            if attempt == attempts - 1:
                raise
            time.sleep(min(0.05 * 2**attempt, 1.0))
    raise AssertionError("unreachable")


def create(client: DirectClient, game: str, seats: int, seed: int, match_id: str) -> None:
    store = client.backend.store

    def attempt() -> None:
        try:
            lobby.create_match(store, game, seats, None, seed, match_id)
        except BadOptions:
            if store.meta(match_id) is None:  # taken by our own earlier attempt whose reply was lost: fine
                raise

    retrying(attempt)


def join(client: DirectClient, match_id: str, seat: int) -> str:
    """Take the seat with a credential of our own, so a retry can tell whether the lost attempt won."""
    store = client.backend.store
    credential = secrets.token_urlsafe(24)
    hashed = hash_credential(credential)

    def attempt() -> None:
        if store.claim_seat(match_id, seat, hashed) is None:
            meta = store.meta(match_id)
            if meta is None or meta.credential_hashes.get(seat) != hashed:
                raise BadOptions(f"seat {seat} of {match_id} was taken by someone else")

    retrying(attempt)
    return credential


@dataclass
class MatchRun:
    match_id: str
    game: str
    seats: int
    finished: bool = False
    error: str | None = None
    decisions: int = 0
    rejected: int = 0
    reconnects: int = 0


def play(client: RecordingClient, game: str, seats: int, seed: int, match_id: str, timeout_s: float,
         deadline: float = float("inf")) -> MatchRun:
    """One match, a random bot in every seat, each seat in its own thread. A seat that loses its connection
    reconnects (the client's pool does), until ``deadline`` (``time.monotonic()``) has passed."""
    run = MatchRun(match_id, game, seats)
    try:
        create(client, game, seats, seed, match_id)
        credentials = [join(client, match_id, seat) for seat in range(seats)]
    except Exception as e:
        run.error = f"lobby: {e!r}"
        return run
    with client.ledger.lock:
        client.ledger.credentials.extend(credentials)
    return seat_bots(run, client, credentials, seed, timeout_s, deadline)


def seat_bots(run: MatchRun, client: GameClient, tokens: Sequence[str], seed: int, timeout_s: float,
              deadline: float, pause_s: float = 0.0) -> MatchRun:
    """Play ``run``'s match to its end, a random bot per seat in a thread of its own, over ``client``; a seat that
    loses its connection goes on with the same client (after ``pause_s``) until ``deadline``, or until another
    seat of the match gave up (the match cannot end then). Fills in and returns ``run``."""
    failed = threading.Event()

    def reconnect() -> GameClient:
        if time.monotonic() > deadline:
            raise RuntimeError("the chaos run's deadline has passed")
        if failed.is_set():
            raise RuntimeError("another seat of the match gave up")
        time.sleep(pause_s)
        return client

    runners = [SeatRunner(client, run.match_id, seat, tokens[seat], RandomBot(seed * 16 + seat), timeout_s,
                          reconnect=reconnect, max_reconnects=10_000) for seat in range(len(tokens))]
    errors: list[str] = []

    def seat_loop(runner: SeatRunner) -> None:
        try:
            runner.run()
        except Exception as e:
            log.error("chaos seat gave up", match_id=run.match_id, seat=runner.seat, error=repr(e), exc_info=True)
            errors.append(f"seat {runner.seat}: {e!r}")
            failed.set()

    threads = [threading.Thread(target=seat_loop, args=(r,), name=f"{run.match_id}-{r.seat}") for r in runners]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    run.finished = not errors and all(r.final is not None for r in runners)
    run.error = "; ".join(errors) or None
    run.decisions = sum(r.stats.decisions for r in runners)
    run.rejected = sum(r.stats.rejected for r in runners)
    run.reconnects = sum(r.stats.reconnects for r in runners)
    return run

"""The bot SDK: run a bot in one seat of a match over a client: a gateway client
(:class:`services.client.GatewayClient`, the way for players) or the embedded trusted client.

A bot is any object with ``choose(view, legal) -> {"type": ..., "body": {...}}`` (see
:class:`services.bots.base.Bot`); ``legal`` is the seat's complete list of choices made concrete
(:func:`concrete_legal`). :class:`SeatRunner` is the one bot driver: ``play_seat`` runs one seat on its
own, the match runner (:func:`services.bots.runner.play_match`) asks each seat's runner in turn.
It joins (or is given) a seat, follows the seat's view
records in order, asks the bot when the seat must act, sends the command and waits for its result,
retries with the next view after a rejection, survives a lost connection, and stops at the match end.

Each decision is sent with a command id derived from the view version it answers and the attempt
(``<match>-<seat>-v<version>-a<attempt>``), so a runner that reconnects and answers the same view
again cannot make the move twice: the service returns the first result for that id. Only a received
rejection starts a new attempt.

    class Greedy:
        def choose(self, view, legal):
            return max(legal, key=lambda c: c["body"].get("amount", 0))

    play_seat(GatewayClient("http://localhost:8000"), match_id, Greedy())  # joins a free seat, plays to the end

With a gateway client the seat's token plays the part of the credential. Command ids longer than the
gateway's idempotency keys allow (48 characters, for long match ids) are shortened with a hash.

A complete runnable example is ``services/bots/examples/greedy.py``.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import redis

from schemas.envelopes import CommandResult, ViewRecord
from schemas.legal import choices_from_wire, concrete
from services.bots.base import Bot
from services.client.protocol import GameClient
from services.logs import get_logger
from services.pipeline.backoff import reconnect_backoff
from services.pipeline.direct import Timeout

log = get_logger("bot")

# A lost connection to the gateway (services.client.errors.Unavailable is a ConnectionError) or to Redis
# (restarting, unreachable, still loading its data) is one of these too.
ConnectionErrors: tuple[type[BaseException], ...] = (ConnectionError, OSError, Timeout,
                                                     redis.exceptions.ConnectionError, redis.exceptions.TimeoutError)


@dataclass
class SeatStats:
    decisions: int = 0
    rejected: int = 0
    reconnects: int = 0
    results: list[CommandResult] = field(default_factory=list)


class SeatRunner:
    def __init__(self, client: GameClient, match_id: str, seat: int, credential: str, bot: Bot,
                 timeout_s: float = 60.0, reconnect: Callable[[], GameClient] | None = None,
                 max_reconnects: int = 20) -> None:
        """``reconnect``: a new client after a lost connection (None: a lost connection ends the run), tried up to
        ``max_reconnects`` times in a row (some 20-30 s of pauses, :func:`reconnect_backoff`); the count starts
        again at each view received, so a long match survives any number of separate outages."""
        self.client = client
        self.match_id = match_id
        self.seat = seat
        self.credential = credential
        self.bot = bot
        self.timeout_s = timeout_s
        self._reconnect = reconnect
        self._max_reconnects = max_reconnects
        self._failures = 0  # lost connections in a row
        self._backoff = reconnect_backoff()
        self.stats = SeatStats()
        self.final: ViewRecord | None = None
        self._attempt = (0, 0)  # (version, attempt) of the decision in hand
        # the command chosen for it: a resend after a lost answer sends this one again, never a new choice under
        # the same id (the gateway refuses a key reused for another command, 409 idempotency_key_reused)
        self._choice: tuple[tuple[int, int], dict[str, Any]] | None = None

    max_attempts = 5

    def command_id(self, version: int, attempt: int) -> str:
        """The same decision gets the same id (a resend after a lost answer is applied at most once). Ids are
        per match (the at-most-once record is the match's), so the match id is not part of it: every byte
        here is kept in the log, the record and the results."""
        return f"{self.seat}-v{version}-a{attempt}"

    def run(self) -> ViewRecord:
        """Play until the match ends; returns the seat's final view record."""
        seen = 0
        while True:
            try:
                record = self.client.wait_view(self.match_id, self.seat, seen + 1, self.timeout_s,
                                               token=self.credential)
                if self._failures:
                    self._failures = 0
                    self._backoff.reset()
                if record.finished:
                    self.final = record
                    return record
                seen = record.version
                if not record.legal:
                    continue
                result = self.answer(record)
                if result.status == "rejected":
                    # Decide again on the view of the version the service judged by: the same view when the
                    # rejection was the bot's mistake, a newer one when the match moved on (another seat
                    # acted first in a phase where several may act); never on the stale view again.
                    seen = max(result.version, record.version) - 1
            except ConnectionErrors as e:
                self._recover(e)
                seen = max(seen - 1, 0)  # answer the newest view again, with the same command id

    def answer(self, record: ViewRecord) -> CommandResult:
        """Ask the bot about ``record`` (a view of this seat that must act), send its command, wait for the
        result. Answering the same version again (after a reconnect) sends the same command under the same id, so
        the move is made once; only a received rejection starts a new attempt (a new choice, a new id), at most
        ``max_attempts`` per version."""
        if self._attempt[0] != record.version:
            self._attempt = (record.version, 0)
        if self._choice is not None and self._choice[0] == self._attempt:
            choice = self._choice[1]  # the decision in hand, sent again after a lost answer: the same command
        else:
            choice = self.bot.choose(record.view, concrete_legal(record.legal))
            self._choice = (self._attempt, choice)
            self.stats.decisions += 1
        pinned = {"expected_version": record.version} if racing_a_clock(record, self.seat) else {}
        result = self.client.call(self.match_id, self.seat, self.credential, choice["type"],
                                  choice.get("body", {}), self.timeout_s,
                                  command_id=self.command_id(record.version, self._attempt[1]), **pinned)
        self.stats.results.append(result)
        if result.status == "rejected":
            self.stats.rejected += 1
            log.info("bot command rejected", match_id=self.match_id, seat=self.seat, reason=result.reason)
            self._attempt = (record.version, self._attempt[1] + 1)
            if self._attempt[1] >= self.max_attempts:
                raise RuntimeError(f"seat {self.seat}: {self.max_attempts} rejections at version {record.version}")
        return result

    def _recover(self, error: BaseException) -> None:
        self.stats.reconnects += 1
        self._failures += 1
        if self._reconnect is None or self._failures > self._max_reconnects:
            raise error
        log.warning("bot lost its connection; reconnecting", match_id=self.match_id, seat=self.seat,
                    error=repr(error), in_row=self._failures)
        time.sleep(self._backoff.next_s())
        self.client = self._reconnect()


def racing_a_clock(record: ViewRecord, seat: int) -> bool:
    """Whether a command answering ``record`` is sent with its version (``expected_version``): on a clock, when the
    seat alone is to act. Then a move that lost the race to its timeout is refused (``conflict``: the service's bot
    moved for the seat) rather than applied to a later decision it was not chosen for; the runner answers the next
    view. Where several seats act at once, another seat's move would refuse it too, so it is not pinned."""
    return record.clock is not None and record.to_act == [seat]


def concrete_legal(legal: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A record's ``legal`` choices as concrete commands ``{"type", "body"}`` for :meth:`Bot.choose`:
    every command of a small choice, a spread of a large one (its extremes and a few between). Bots
    that want the whole range read ``record.legal`` and expand it with :mod:`schemas.legal`."""
    return [{"type": kind, "body": body} for kind, body in concrete(choices_from_wire(legal))]


def play_seat(client: GameClient, match_id: str, bot: Bot, seat: int | None = None, **options: Any) -> ViewRecord:
    """Join ``match_id`` (the given seat, or the first free one) and play it with ``bot`` to the end.

    ``options`` go to :class:`SeatRunner` (``timeout_s``, ``reconnect``, ``max_reconnects``). Returns the
    seat's final view record.
    """
    joined, credential = client.join(match_id, seat)
    wait_for_players(client, match_id, float(options.get("timeout_s", 60.0)))
    return SeatRunner(client, match_id, joined, credential, bot, **options).run()


def wait_for_players(client: GameClient, match_id: str, timeout_s: float = 60.0, poll_s: float = 0.05) -> None:
    """Return once every seat is taken (the service rejects commands of a match still open for joining)."""
    deadline = time.monotonic() + timeout_s
    while True:
        if client.match(match_id).status != "open":
            return
        if time.monotonic() > deadline:
            raise Timeout(f"match {match_id} still waits for players after {timeout_s}s")
        time.sleep(poll_s)

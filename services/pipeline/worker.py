"""The stateless command handler.

For each command: check the envelope and the seat credential, load the match state (cache, then the
log), run the game's ``decide`` with the rng derived from the match seed and version, and append the
events with the store's atomic append (which also records the result and refuses a command id it has
seen). A version conflict reloads and decides again. The delivery is acknowledged only after the
append, so a worker killed at any instant loses nothing: another claims the pending command, and the
command id makes the second attempt return the first result.

Failures are sorted in one place (:meth:`Worker.process`): a rejection is a result; an unexpected
error leaves the command pending for a retry; a command delivered more than ``max_deliveries`` times
goes to the dead-letter stream and its sender gets a rejection. A stream entry without a payload (no
``e`` field) is left pending the same way and dead-lettered after ``max_deliveries``; it never holds up
the entries read with it.

A serving worker's appends carry, in their round trip, the read of its next batch (``CommandBus.read_ahead``:
what is there then, without waiting); a batch found that way is handled without a read of its own (topped up
from the partitions that may hold more), and a stopping worker handles it before it leaves.

The loop calls :attr:`Worker.heartbeat` on every pass (an idle blocking read included), so the
liveness endpoint sees a loop that is turning, and only a loop that is stuck.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from typing import Any

from pydantic import ValidationError

from schemas.codec import DecodeError, unpack
from schemas.envelopes import CommandEnvelope, CommandResult, MatchMeta
from schemas.game_schemas import PURGE_COMMAND, MatchPurgeBody
from services import metrics
from services.faults import fault_point
from services.games.errors import BadCommand, GameOver, NotYourTurn, Rejected, version_mismatch
from services.keys import partition_of_key
from services.logs import error_text, get_logger
from services.pipeline.backoff import Backoff
from services.pipeline.batch import Chain
from services.pipeline.clocks import ClockSweep
from services.pipeline.decision import decide
from services.pipeline.failures import Retry, Unanswerable, bounded, rejection, salvage_ids, without_credential
from services.pipeline.lobby import SYSTEM_COMMANDS, create_from, join_from
from services.pipeline.ports import AppendItem, AppendOutcome, AppendStatus, CommandBus, Delivery, EventStore
from services.pipeline.states import StateCache
from services.settings import WorkerSettings

# Defined elsewhere, importable from here: WorkerSettings (services.settings), the failure helpers
# (services.pipeline.failures).
__all__ = ["Retry", "Unanswerable", "Worker", "WorkerSettings", "bounded",
           "salvage_ids", "without_credential"]

log = get_logger("worker")


class Worker:
    def __init__(
        self, bus: CommandBus, store: EventStore, consumer: str, settings: WorkerSettings | None = None
    ) -> None:
        self.bus = bus
        self.store = store
        self.consumer = consumer
        self.settings = settings or WorkerSettings()
        self.cache = StateCache(store)
        self.clocks = ClockSweep(store, self.cache)
        self._running: dict[str, MatchMeta] = {}
        self._last_claim = 0.0
        self.stopping = threading.Event()
        self.heartbeat: Callable[[], None] | None = None
        self.shared = False  # set by run(): read only this worker's share of the partitions
        self.reachable = True  # whether the last pass of run() reached Redis
        self._owned: list[int] | None = None
        self._members_at = 0.0
        self._valid_until = 0.0  # (monotonic) until when this worker's leases surely hold
        self._held_back: list[Delivery] = []  # read while the leases were not surely valid
        self._counters: dict[tuple[str, str], Any] = {}  # metric children by labels, looked up once
        self._histograms: dict[str, Any] = {}
        self._ahead: list[Delivery] = []  # what the last batch's appends read in their round trip: the next batch
        self._more: list[int] = []  # the partitions that gave the read ahead all it asked of them

    # -- the loop --------------------------------------------------------------------------------
    def run(self, should_stop: Callable[[], bool] | None = None) -> None:
        """Serve until ``stop()`` (or SIGTERM via the CLI); the batch in hand is always finished.

        A serving worker reads only its share of the partitions (:meth:`_share`), so each match's commands
        are decided by one worker, on a cached state nobody else moves."""
        log.info("worker started", consumer=self.consumer)
        self.shared = True
        backoff = Backoff()
        reachable = self.reachable = True
        while not self.stopping.is_set() and not (should_stop and should_stop()):
            try:
                self.run_once()
            except Exception as e:  # the store or bus is unreachable (e.g. Redis restarting): wait, go on
                reachable = self.reachable = False
                metrics.WORKER_ERRORS.inc()
                log.warning("worker loop failed; retrying", consumer=self.consumer, error=error_text(e))
                self.stopping.wait(backoff.next_s())
            else:
                reachable = self.reachable = True
                backoff.reset()
        if reachable:  # the others take its share at once (else when its heartbeat expires)
            try:
                self._finish_ahead()
                self.bus.ack_many([])  # what is deferred to a next read that will not come
                self.bus.members(self.consumer, False, self._expiry_ms())
                asked_at = time.time()
                self.bus.leases(self.consumer, [], self.settings.lease_ttl_ms)
                log.info("partitions leased", consumer=self.consumer, workers=0, partitions=[], wanted=[],
                         asked_at=asked_at)
            except Exception as e:
                log.warning("could not withdraw from the workers", consumer=self.consumer, error=error_text(e))
        log.info("worker stopped", consumer=self.consumer)

    def _expiry_ms(self) -> int:
        """A worker whose heartbeat is older than this is gone: one lease's time to live."""
        return self.settings.lease_ttl_ms

    def _share(self) -> list[int] | None:
        """The partitions this worker serves: all of them when it is not serving (``run_once`` called by hand),
        else those it holds a lease on (``{p}:lease``, ``lua/lease.lua``), renewed every quarter of the lease's
        time to live. It asks for every n-th partition by its rank among the live workers (heartbeats younger
        than one lease); a partition another worker still holds is taken once that one gives it up (it no longer
        asks for it) or its lease lapses (it died), so a partition is never served by two workers at once:
        a worker serves only until 80 % of the time to live has passed since it sent its last renewal, and Redis
        keeps the lease the whole time to live from when it received it. A dead worker's partitions are taken
        within a lease's time to live plus a renewal period, and the commands it held are claimed at once."""
        if not self.shared:
            return None
        now = time.monotonic()
        ttl_s = self.settings.lease_ttl_ms / 1000
        if self._owned is None or now - self._members_at >= ttl_s / 4 or now >= self._valid_until:
            self._members_at = now
            live = self.bus.members(self.consumer, True, self._expiry_ms())
            rank, count = (live.index(self.consumer), len(live)) if self.consumer in live else (0, 1)
            wanted = [p for p in range(self.bus.partitions) if p % count == rank]
            asked_at = time.time()  # (it serves nothing it gives up here after this instant)
            held = self.bus.leases(self.consumer, wanted, self.settings.lease_ttl_ms)
            self._valid_until = now + 0.8 * ttl_s
            gained = sorted(set(held) - set(self._owned or []))
            if held != self._owned:
                log.info("partitions leased", consumer=self.consumer, workers=count, partitions=held, wanted=wanted,
                         asked_at=asked_at)
                metrics.WORKER_PARTITIONS.set(len(held))
            self._owned = held
            kept = [d for d in self._held_back if partition_of_key(d.stream) in held]
            self._held_back = []
            self._ahead = kept + self._ahead
            if gained:
                self._take_over(gained)
        return self._owned

    def _take_over(self, partitions: list[int]) -> None:
        """Commands left pending in partitions just leased (by a worker that died or gave them up, which no
        longer serves them): claimed at once, not after ``claim_idle_ms``, and one at a time, as
        :meth:`_claim_one_by_one` does (a poison command that kills this worker charges only itself a delivery)."""
        while not self.stopping.is_set():
            claimed = self.bus.claim_stale(self.consumer, 0, 1, only=partitions)
            if not claimed:
                return
            self.beat()
            self.process(claimed[0])

    def _serving(self, deliveries: list[Delivery]) -> list[Delivery]:
        """Of ``deliveries``, those this worker may handle now: all when it is not serving; else those of a
        partition it leases, while its lease is surely valid. The rest stay pending: kept for after the next
        renewal, if it still holds their partition (else its new holder claims them)."""
        if not self.shared or not deliveries:
            return deliveries
        owned = set(self._owned or [])
        if time.monotonic() >= self._valid_until:
            self._held_back += deliveries
            return []
        return [d for d in deliveries if partition_of_key(d.stream) in owned]

    def stop(self) -> None:
        self.stopping.set()

    def beat(self) -> None:
        if self.heartbeat is not None:
            self.heartbeat()

    def run_once(self, block_ms: int | None = None) -> int:
        """Claim stale commands when due, else read a batch; handle them. Returns how many were handled."""
        self.beat()
        now = time.monotonic()
        if now - self._last_claim >= self.settings.claim_every_s and not self._ahead:
            self._last_claim = now
            # Its own handled commands are acknowledged first (a serving worker defers that to its next read), and a
            # backlog read ahead is handled first: else a claim would take them back, idle on a slow machine, and
            # decide them again (their recorded results answer, but the work is done twice).
            self.bus.ack_many([])
            self._maintain()
            claimed = self._claim_one_by_one()
            if claimed:
                return claimed
        block = self.settings.block_ms if block_ms is None else block_ms
        share = self._share()
        if self.shared:  # a blocking read ends in time to renew the leases
            block = min(block, int(self.settings.lease_ttl_ms / 6))
        if (not self.shared or time.monotonic() < self._valid_until) and self.clocks.due(share, self._meta):
            block = 0  # deadlines passed in its partitions (#29): decided; more may be due at once
        block = min(block, int(self.clocks.sweep_s * 1000) + 50)  # ... looked at again soon, even when idle
        if self._ahead:  # what is left of a backlog is taken as a sweep would, up to a whole batch
            deliveries, self._ahead = self._ahead, []
            if self._more and len(deliveries) < self.settings.batch_size:
                deliveries += self.bus.read(self.consumer, self.settings.batch_size - len(deliveries), 0, self._more)
        elif share == []:  # more workers than partitions: stand by
            self.stopping.wait(block / 1000)
            return 0
        else:
            deliveries = self.bus.read(self.consumer, self.settings.batch_size, block, share)
        deliveries = self._serving(deliveries)
        self._handle(deliveries, read_ahead=self.shared)
        return len(deliveries)

    def _handle(self, deliveries: Sequence[Delivery], read_ahead: bool) -> None:
        handled: list[Delivery] = []
        try:
            self.process_batch(deliveries, handled, read_ahead)
        finally:  # a serving worker's acknowledgements go with its next read, a round trip less per batch
            self.bus.ack_many(handled, defer=self.shared)

    def _finish_ahead(self) -> None:
        """A stopping worker's batch in hand: what its last appends read ahead (it is pending with it)."""
        while self._ahead:
            deliveries, self._ahead = self._ahead, []
            self._handle(deliveries, read_ahead=False)

    # -- a batch -----------------------------------------------------------------------------------
    def process_batch(self, deliveries: Sequence[Delivery], handled: list[Delivery], read_ahead: bool = False) -> None:
        """Handle a batch as a batch: decide every well-formed command in memory (a match's commands in
        order, each on the state its predecessor left), append all of them in one round trip (one atomic
        chain per match), then sort the outcomes. What the chains could not settle (a version conflict:
        another worker moved the match; a duplicate cut a chain short) and every other delivery
        (malformed, unknown match, seat refused, failing, redelivered too often) go through
        :meth:`process` one at a time, on a freshly loaded state. Handled deliveries are added to
        ``handled`` for the caller to acknowledge. ``read_ahead``: the appends' round trip also reads the next
        batch (where the bus can), which :meth:`run_once` then handles without a read of its own."""
        chains: dict[str, Chain] = {}
        singles: list[Delivery] = []
        for delivery in deliveries:
            fault_point("after_read")
            admitted = self._admit(delivery)
            if admitted is None:
                singles.append(delivery)
                continue
            env, meta = admitted
            chain = chains.get(env.match_id)
            if chain is None:
                chain = chains[env.match_id] = Chain.start(self.cache.get(env.match_id) or self.cache.load(meta))
            # A command sent twice in one batch: the second copy gets the first's result, alone, afterwards.
            if env.command_id in chain.command_ids or not self._decide_into(chain, delivery, env):
                singles.append(delivery)
        if chains:
            fault_point("decided")
            started = time.perf_counter()
            ahead = self.bus.read_ahead(self.consumer, self.settings.batch_size, self._owned) if read_ahead else None
            try:
                outcomes = self.store.append_chains({m: c.items for m, c in chains.items()}, ahead)
            finally:  # (read even when the appends' replies failed: pending with this worker now)
                if ahead is not None and ahead.deliveries:
                    self._ahead, self._more = ahead.deliveries, ahead.more
            metrics.APPEND_SECONDS.observe(time.perf_counter() - started)
            fault_point("after_append")
            for match_id, chain in chains.items():
                for delivery, item, outcome in chain.settle(outcomes.get(match_id, [])):
                    handled.append(delivery)
                    self._settled(chain.loaded.meta.game, item.result, outcome)
                if chain.conflicted:
                    metrics.CONFLICTS.inc()
                singles += chain.unsettled
        for delivery in singles:
            self.process(delivery, handled)

    def _admit(self, delivery: Delivery) -> tuple[CommandEnvelope, MatchMeta] | None:
        """The envelope and its match's metadata when the command can be decided in a batch; None sends it
        through :meth:`process`, which sorts every other case."""
        if delivery.problem is not None or delivery.deliveries > self.settings.max_deliveries:
            return None
        try:
            env = unpack(CommandEnvelope, delivery.data)
        except DecodeError:
            return None
        if env.type == PURGE_COMMAND or env.type in SYSTEM_COMMANDS:  # no seat's command: decided alone
            return None
        meta = self._meta(env.match_id)
        if meta is None:
            return None
        try:
            self._check_seat(meta, env)
        except Rejected:
            return None
        if delivery.deliveries > 1:
            metrics.REDELIVERIES.inc()
        return env, meta

    def _decide_into(self, chain: Chain, delivery: Delivery, env: CommandEnvelope) -> bool:
        """Decide ``env`` on the chain's state and add its append; False when anything failed unexpectedly
        (it is then handled alone, after the batch, and logged there if it fails again; the rest of the
        batch goes on)."""
        game, meta, version = chain.loaded.game, chain.loaded.meta, chain.version
        started = time.perf_counter()
        try:
            if game.outcome(chain.state) is not None:
                raise GameOver("the match is over")
            if env.expected_version is not None and env.expected_version != version:
                raise version_mismatch(version, env.expected_version)
            decided = decide(game, chain.state, env, meta.seed or 0, version)
            self._decide_seconds(meta.game).observe(time.perf_counter() - started)
        except Rejected as err:
            self._decide_seconds(meta.game).observe(time.perf_counter() - started)
            chain.add(delivery, AppendItem(version, (), rejection(env, version, err)), chain.state, version)
            return True
        except Exception:
            return False
        chain.add(delivery, decided.item, decided.state, version + decided.events)
        return True

    def _decide_seconds(self, game: str) -> Any:
        histogram = self._histograms.get(game)
        if histogram is None:
            histogram = self._histograms[game] = metrics.DECIDE_SECONDS.labels(game)
        return histogram

    def _settled(self, game: str, result: CommandResult, outcome: AppendOutcome) -> None:
        status = "duplicate" if outcome.status is AppendStatus.DUPLICATE else result.status
        counter = self._counters.get((game, status))
        if counter is None:
            counter = self._counters[(game, status)] = metrics.COMMANDS.labels(game, status)
        counter.inc()
        if status == "accepted":
            log.debug("accepted", match_id=result.match_id, command_id=result.command_id, version=result.version)
        elif status == "rejected":
            log.info("rejected", match_id=result.match_id, command_id=result.command_id, seat=result.seat,
                     version=result.version, code=result.code, reason=result.reason)

    def _claim_one_by_one(self) -> int:
        """Take over commands a dead worker left pending, one at a time: if one of them kills the process
        (a poison command), the others are not charged a delivery they never had, and it alone reaches the
        dead-letter stream after ``max_deliveries``."""
        handled = 0
        while handled < self.settings.batch_size and not self.stopping.is_set():
            if self.shared and not self._owned:  # a serving worker claims only in partitions it leases
                break
            claimed = self.bus.claim_stale(self.consumer, self.settings.claim_idle_ms, 1,
                                           only=self._owned if self.shared else None)
            if not claimed:
                break
            self.beat()
            self.process(claimed[0])
            handled += 1
        return handled

    def _maintain(self) -> None:
        """Periodic chores: trim acknowledged commands, report the lag and the pending entries."""
        try:
            self.bus.trim()
            for partition, lag in self.bus.lag().items():
                metrics.STREAM_LAG.labels("commands", str(partition)).set(lag)
            for partition, pending in self.bus.pending().items():
                metrics.STREAM_PENDING.labels("commands", str(partition)).set(pending.count)
                metrics.STREAM_OLDEST_PENDING.labels("commands", str(partition)).set(pending.oldest_s)
        except Exception as e:  # chores never stop the worker
            log.warning("maintenance failed", error=error_text(e))

    def process(self, delivery: Delivery, handled: list[Delivery] | None = None) -> CommandResult | None:
        """Handle one delivery; every failure is sorted here: result, retry later, or dead letter.

        A handled delivery is acknowledged at once, or added to ``handled`` for the caller to acknowledge
        with the rest of its batch in one round trip. Acknowledging late is safe: a worker that dies
        before it leaves the commands pending, and their second delivery returns the recorded results."""
        fault_point("after_read")
        if delivery.deliveries > 1:
            metrics.REDELIVERIES.inc()
        if delivery.deliveries > self.settings.max_deliveries:
            return self._give_up(delivery, "failed repeatedly; sent to the dead-letter stream")
        if delivery.problem is not None:  # no payload at all: nothing to try; retried like any failure
            metrics.WORKER_ERRORS.inc()
            if delivery.deliveries >= self.settings.max_deliveries:
                return self._give_up(delivery, "unreadable stream entry; sent to the dead-letter stream")
            log.warning("unreadable stream entry left pending", entry=delivery.entry_id, stream=delivery.stream,
                        problem=delivery.problem, deliveries=delivery.deliveries)
            return None
        try:
            result = self.handle(delivery.data)
        except Unanswerable as e:
            metrics.COMMANDS.labels("unknown", "rejected").inc()
            metrics.DEAD_LETTERS.inc()
            log.warning("unanswerable command", entry=delivery.entry_id, reason=str(e))
            self.bus.dead_letter(without_credential(delivery), str(e))
            return None
        except Retry as e:
            log.warning("command left pending", entry=delivery.entry_id, error=str(e))
            return None
        except Exception as e:  # a bug or an infrastructure failure: never stop the worker
            metrics.WORKER_ERRORS.inc()
            log.exception("command failed", entry=delivery.entry_id, error=error_text(e))
            return None
        fault_point("after_append")
        if handled is None:
            self.bus.ack(delivery)
        else:
            handled.append(delivery)
        return result

    def _give_up(self, delivery: Delivery, reason: str) -> CommandResult | None:
        metrics.DEAD_LETTERS.inc()
        self.bus.dead_letter(without_credential(delivery), reason)
        ids = salvage_ids(delivery.data)
        if ids is None or self.store.meta(ids[0]) is None:
            log.warning("dead letter without a reachable sender", entry=delivery.entry_id, stream=delivery.stream,
                        reason=reason, problem=delivery.problem, deliveries=delivery.deliveries)
            return None
        match_id, command_id = ids
        result = CommandResult(command_id=command_id, match_id=match_id, status="rejected",
                               version=self.store.version(match_id), code="failed", reason=reason)
        outcome = self.store.append(match_id, result.version, [], result)
        log.warning("dead letter", match_id=match_id, command_id=command_id)
        return outcome.result

    # -- one command -----------------------------------------------------------------------------
    def handle(self, data: bytes) -> CommandResult | None:
        try:
            env = unpack(CommandEnvelope, data)
        except DecodeError as e:
            return self._reject_malformed(data, e)
        if env.type == PURGE_COMMAND:
            self._purge(env)
            return None
        if env.type in SYSTEM_COMMANDS:
            return self._lobby(env)
        meta = self._meta(env.match_id)
        if meta is None:
            raise Unanswerable(f"unknown match '{env.match_id}'")
        game_name = meta.game
        try:
            self._check_seat(meta, env)
        except Rejected as err:
            return self._record(env, meta, rejection(env, self.store.version(env.match_id), err))
        # No look-up of an earlier result here: the append refuses a seen command id and returns its result.
        for _ in range(self.settings.conflict_retries):
            started = time.perf_counter()
            loaded = self.cache.load(meta)
            version = loaded.version
            try:
                if loaded.game.outcome(loaded.state) is not None:
                    raise GameOver("the match is over")
                if env.expected_version is not None and env.expected_version != version:
                    raise version_mismatch(version, env.expected_version)
                decided = decide(loaded.game, loaded.state, env, meta.seed or 0, version)
            except Rejected as err:
                metrics.DECIDE_SECONDS.labels(game_name).observe(time.perf_counter() - started)
                return self._record(env, meta, rejection(env, version, err))
            metrics.DECIDE_SECONDS.labels(game_name).observe(time.perf_counter() - started)
            state, item = decided.state, decided.item
            result = item.result
            started = time.perf_counter()
            outcome = self.store.append(env.match_id, version, item.events, result, item.finished, item.deadline)
            metrics.APPEND_SECONDS.observe(time.perf_counter() - started)
            if outcome.status is AppendStatus.APPENDED:
                loaded.state, loaded.version, loaded.top = state, outcome.version, None
                metrics.COMMANDS.labels(game_name, "accepted").inc()
                log.debug("accepted", match_id=env.match_id, command_id=env.command_id, version=outcome.version)
                return result
            if outcome.status is AppendStatus.DUPLICATE:
                metrics.COMMANDS.labels(game_name, "duplicate").inc()
                return outcome.result
            if outcome.version < version:  # the store is behind the cached state: writes were lost (a failover
                self.cache.forget(env.match_id)  # to a replica that had not got them): rebuild from the log
                log.warning("cached state ahead of the store; rebuilt from the log", match_id=env.match_id,
                            cached=version, stored=outcome.version)
            metrics.CONFLICTS.inc()
        raise Retry(f"{self.settings.conflict_retries} version conflicts in a row on {env.match_id}")

    def _lobby(self, env: CommandEnvelope) -> CommandResult | None:
        """``match.create`` and ``match.join`` (#35), published by the gateway: decided here, so only workers write
        metas, logs, feeds and credentials (``services.pipeline.lobby``). The result is recorded like any command's
        (a join's names its seat); a create whose set-up failed has no match to record it in: it is announced."""
        decide = create_from if env.type == SYSTEM_COMMANDS[0] else join_from
        result = decide(self.store, env)
        metrics.LOBBY_COMMANDS.labels(env.type, result.code or result.status).inc()
        if result.status == "rejected" and self.store.meta(env.match_id) is None:
            self.store.announce(result)
            log.warning("lobby command refused", match_id=env.match_id, type=env.type, code=result.code,
                        reason=result.reason)
            return result
        recorded = self.store.append(env.match_id, result.version, [], result).result
        log.info("lobby command decided", match_id=env.match_id, type=env.type, status=result.status,
                 seat=result.seat, code=result.code)
        return recorded

    def _purge(self, env: CommandEnvelope) -> None:
        """``match.purge``, published by the archiver once the match's archive is written and verified (or an open
        match nobody filled is due): the store removes the match only if it is finished at the archived version (or
        open past this worker's ``open_ttl_s``), else nothing. No result is recorded (the match's keys go with
        it); the archiver sees the outcome in the match's set entry, which goes with the keys."""
        try:
            body = MatchPurgeBody.model_validate(env.body)
        except ValidationError as e:
            metrics.PURGES.labels("bad").inc()
            log.warning("malformed purge", match_id=env.match_id, command_id=env.command_id,
                        error=bounded(str(e.errors()[0].get("msg", "")) if e.errors() else "invalid"))
            return
        outcome = self.store.purge(env.match_id, body.status, body.version, self.settings.open_ttl_s)
        self._running.pop(env.match_id, None)
        self.cache.forget(env.match_id)
        metrics.PURGES.labels(outcome).inc()
        if outcome in ("deleted", "gone"):
            log.info("match purged", match_id=env.match_id, status=body.status, version=body.version, outcome=outcome)
        else:
            log.warning("purge refused: nothing removed", match_id=env.match_id, status=body.status,
                        version=body.version, outcome=outcome)

    def _check_seat(self, meta: MatchMeta, env: CommandEnvelope) -> None:
        if not 0 <= env.seat < meta.seats:
            raise BadCommand(f"seat {env.seat} does not exist; this match has seats 0 to {meta.seats - 1}")
        # The seat was authenticated by whoever published the envelope (the gateway, or an embedded client):
        # only they may write the command streams.
        if meta.credential_hashes.get(env.seat) is None:
            raise NotYourTurn(f"seat {env.seat} has not been joined yet")
        if meta.status == "open":
            raise NotYourTurn("the match is waiting for players to join")
        if meta.status == "finished":
            raise GameOver("the match is over")

    def _meta(self, match_id: str) -> MatchMeta | None:
        """The match's metadata; a running match's is cached, as its seats and credentials never change
        (its end is seen in the state: the worker checks the outcome before deciding)."""
        meta = self._running.get(match_id)
        if meta is None:
            meta = self.store.meta(match_id)
            if meta is not None and meta.seed is None:
                meta = meta.model_copy(update={"seed": self.store.seed(match_id)})
            if meta is not None and meta.status == "running":
                if len(self._running) >= self.cache.capacity:
                    self._running.pop(next(iter(self._running)))
                self._running[match_id] = meta
        return meta

    def _record(self, env: CommandEnvelope, meta: MatchMeta, result: CommandResult) -> CommandResult | None:
        outcome = self.store.append(env.match_id, result.version, [], result)
        if outcome.status is AppendStatus.DUPLICATE:
            metrics.COMMANDS.labels(meta.game, "duplicate").inc()
            return outcome.result
        metrics.COMMANDS.labels(meta.game, "rejected").inc()
        log.info("rejected", match_id=env.match_id, command_id=env.command_id, seat=env.seat,
                 version=result.version, code=result.code, reason=result.reason)
        return outcome.result

    def _reject_malformed(self, data: bytes, err: DecodeError) -> CommandResult | None:
        ids = salvage_ids(data)
        if ids is None or self.store.meta(ids[0]) is None:
            raise Unanswerable(f"malformed envelope: {err}")
        match_id, command_id = ids
        result = CommandResult(command_id=command_id, match_id=match_id, status="rejected",
                               version=self.store.version(match_id), code="bad_envelope",
                               reason=bounded(f"malformed command envelope: {err}"))
        metrics.COMMANDS.labels("unknown", "rejected").inc()
        return self.store.append(match_id, result.version, [], result).result

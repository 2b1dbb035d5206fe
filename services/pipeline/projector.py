"""The projector: turns the partition feeds into read models.

For every match it keeps the public view and one view per seat, each with the version it reflects
(and, for a seat that must act, the commands it may send). A view is written only when newer than the
stored one, so a re-delivered event is recognised as done; an event that skips versions (a gap: a
trimmed feed, a projector that started late) makes it rebuild the state from the match log.

Failures are sorted per match, like the worker sorts them per command: when applying a match's events or
building its views raises, that match's entries stay pending (a retry: another pass claims them) while
the other matches of the batch are written and acknowledged. A match that still fails on the
``max_deliveries``-th delivery is *parked* (``{p}:parked``, with the error): logged with its id, counted
in ``airship_parked_matches``, and its later entries are acknowledged without building until an operator
unparks it (``airship parked retry``). A feed entry that cannot be read (no payload, undecodable) stays
pending the same way and goes to ``{p}:feed-dead`` after ``max_deliveries``. Errors of the store itself
(Redis unreachable, refused) are no match's fault: they abort the batch, which is retried as a whole.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

from redis.exceptions import RedisError

from schemas.envelopes import EventEnvelope, ViewRecord
from schemas.upcast import decode_event
from services import metrics
from services.games.abandon import abandon_rule, is_abandoned, with_rule
from services.games.clock import clock_of
from services.logs import error_text, get_logger
from services.pipeline.backoff import Backoff
from services.pipeline.ports import Delivery, EventStore, ViewStore
from services.pipeline.states import Loaded, StateCache, to_event
from services.pipeline.worker import bounded
from services.settings import BLOCK_MS, CLAIM_EVERY_S, CLAIM_IDLE_MS, MAX_DELIVERIES, PROJECTOR_BATCH

log = get_logger("projector")
STORE_ERRORS: tuple[type[BaseException], ...] = (RedisError, OSError)
"""Failures of the store, not of a match: they abort the batch instead of counting against a match."""


def build_views(loaded: Loaded) -> list[ViewRecord]:
    """The public record and one record per seat for the state in ``loaded``."""
    game, state, match_id, version = loaded.game, loaded.state, loaded.meta.match_id, loaded.version
    acting = game.to_act(state)
    result = game.outcome(state)
    clock = clock_of(state)
    common: dict[str, Any] = {"match_id": match_id, "version": version, "to_act": sorted(acting),
                              "finished": result is not None,
                              "outcome": None if result is None else with_rule(result.as_dict(), loaded.abandon_rule),
                              "abandoned": is_abandoned(result), "clock": clock.view() if clock is not None else None}
    records = [ViewRecord(key="public", view=game.view(state, None), **common)]
    for seat in range(loaded.meta.seats):
        legal = [c.wire() for c in game.legal(state, seat)] if seat in acting else []
        records.append(ViewRecord(key=str(seat), view=game.view(state, seat), legal=legal, **common))
    return records


class Projector:
    def __init__(self, store: EventStore, views: ViewStore, consumer: str, batch_size: int = PROJECTOR_BATCH,
                 block_ms: int = BLOCK_MS, claim_idle_ms: int = CLAIM_IDLE_MS, claim_every_s: float = CLAIM_EVERY_S,
                 max_deliveries: int = MAX_DELIVERIES) -> None:
        self.store = store
        self.views = views
        self.consumer = consumer
        self.batch_size = batch_size
        self.block_ms = block_ms
        self.claim_idle_ms = claim_idle_ms
        self.claim_every_s = claim_every_s
        self.max_deliveries = max_deliveries
        self.cache = StateCache(store)
        self.stopping = threading.Event()
        self.heartbeat: Callable[[], None] | None = None

    def run(self, should_stop: Callable[[], bool] | None = None) -> None:
        """Serve until ``stop()``; entries left pending by a dead projector are claimed on start and
        every ``claim_every_s``."""
        log.info("projector started", consumer=self.consumer)
        last_claim = 0.0
        backoff = Backoff()
        while not self.stopping.is_set() and not (should_stop and should_stop()):
            claim = time.monotonic() - last_claim >= self.claim_every_s
            if claim:
                last_claim = time.monotonic()
            try:
                self.run_once(claim=claim)
            except Exception as e:  # the store is unreachable (e.g. Redis restarting): wait, go on
                metrics.PROJECTOR_ERRORS.inc()
                log.warning("projector loop failed; retrying", consumer=self.consumer, error=error_text(e))
                self.stopping.wait(backoff.next_s())
            else:
                backoff.reset()
        log.info("projector stopped", consumer=self.consumer)

    def stop(self) -> None:
        self.stopping.set()

    def run_once(self, block_ms: int | None = None, claim: bool = False) -> int:
        if self.heartbeat is not None:
            self.heartbeat()
        deliveries: list[Delivery] = []
        if claim:
            deliveries = self.store.claim_stale_feed(self.consumer, self.claim_idle_ms, self.batch_size)
            if deliveries and self.heartbeat is not None:
                self.heartbeat()
        if not deliveries:
            block = self.block_ms if block_ms is None else block_ms
            deliveries = self.store.read_feed(self.consumer, self.batch_size, block)
        if deliveries:
            self.project(deliveries)
        return len(deliveries)

    def project(self, deliveries: list[Delivery]) -> None:
        """Apply a batch of feed entries, write each touched match's views once, then acknowledge what is
        done: every entry but those of a match that failed (and of an unreadable one) now."""
        done: list[Delivery] = []
        by_match: dict[str, list[tuple[Delivery, EventEnvelope]]] = {}
        for delivery in deliveries:
            envelope = self._decode(delivery)
            if envelope is not None:
                by_match.setdefault(envelope.match_id, []).append((delivery, envelope))
        parked = self.store.parked_among(list(by_match)) if by_match else set()
        for match_id, entries in by_match.items():
            if match_id in parked:  # views left as they were until an operator unparks the match
                done += [d for d, _ in entries]
                continue
            if self._project_match(match_id, entries):
                done += [d for d, _ in entries]
        for delivery in done:
            self.store.ack_feed(delivery)

    def _decode(self, delivery: Delivery) -> EventEnvelope | None:
        """The entry's event; None for an unreadable entry, which is left pending or dead-lettered."""
        problem = delivery.problem
        if problem is None:
            try:
                return decode_event(delivery.data)
            except ValueError as e:  # UpcastError, DecodeError, a validation error
                problem = bounded(f"undecodable: {e}")
        metrics.PROJECTOR_ERRORS.inc()
        if delivery.deliveries >= self.max_deliveries:
            metrics.FEED_DEAD_LETTERS.inc()
            log.error("unreadable feed entry sent to the dead-letter stream", entry=delivery.entry_id,
                      stream=delivery.stream, problem=problem, deliveries=delivery.deliveries)
            self.store.dead_letter_feed(delivery, f"unreadable feed entry: {problem}")
        else:
            log.warning("unreadable feed entry left pending", entry=delivery.entry_id, stream=delivery.stream,
                        problem=problem, deliveries=delivery.deliveries)
        return None

    def _project_match(self, match_id: str, entries: list[tuple[Delivery, EventEnvelope]]) -> bool:
        """Apply the match's entries and write its views; True when its entries may be acknowledged."""
        deliveries = max(d.deliveries for d, _ in entries)
        if deliveries > self.max_deliveries:  # it may have killed projectors: do not try it again
            return self._park(match_id, "failed repeatedly (the projector may have died building it)", deliveries)
        try:
            loaded = None
            for delivery, envelope in entries:
                loaded = self._apply(envelope, fresh=delivery.deliveries == 1) or loaded
            if loaded is None:
                return True  # an unknown match: nothing to build (logged in _apply)
            records = build_views(loaded)
            self.views.put_views(match_id, records)
        except STORE_ERRORS:
            raise
        except Exception as e:  # the game's evolve or view failed for this match only
            metrics.PROJECTOR_ERRORS.inc()
            self.cache.forget(match_id)  # rebuilt from the log on the next try
            if deliveries >= self.max_deliveries:
                return self._park(match_id, error_text(e), deliveries)
            log.warning("building the views failed; left pending for a retry", match_id=match_id,
                        deliveries=deliveries, error=error_text(e))
            return False
        metrics.VIEWS_WRITTEN.inc(len(records))
        return True

    def _park(self, match_id: str, error: str, deliveries: int) -> bool:
        if self.store.park(match_id, bounded(error), deliveries):
            metrics.PARKED_MATCHES.inc()
        log.error("match parked: its views are no longer built until an operator retries it", match_id=match_id,
                  error=error, deliveries=deliveries)
        return True

    def _apply(self, envelope: EventEnvelope, fresh: bool = False) -> Loaded | None:
        """Fold one feed event into the match's cached state. ``fresh``: its first delivery. A fresh event at
        the cached version that is not the event the cache holds there means the log was rewritten from there
        (writes lost in a failover to a replica that had not got them, then written anew): the state is
        rebuilt from the log. (Fresh events below the cached version are normal: the cache caught up from the
        log ahead of the feed.)"""
        loaded = self.cache.get(envelope.match_id)
        if loaded is None:
            meta = self.store.meta(envelope.match_id)
            if meta is None:
                log.error("event of an unknown match", match_id=envelope.match_id, version=envelope.version)
                return None
            return self.cache.load(meta)  # built from the log, which holds this event already
        if envelope.version <= loaded.version:
            if fresh and envelope.version == loaded.version and loaded.top not in (
                    None, (envelope.command_id, envelope.type)):
                metrics.VIEW_REBUILDS.inc()
                log.warning("an event at a version already applied; rebuilding from the log",
                            match_id=envelope.match_id, have=loaded.version, got=envelope.version)
                self.cache.forget(envelope.match_id)
                return self.cache.load(loaded.meta)
            return loaded  # re-delivered: already applied
        if envelope.version == loaded.version + 1:
            loaded.state = loaded.game.evolve(loaded.state, to_event(envelope))
            loaded.version = envelope.version
            loaded.top = (envelope.command_id, envelope.type)
            loaded.abandon_rule = abandon_rule(envelope.type, envelope.body)
            metrics.EVENTS_PROJECTED.labels(loaded.meta.game).inc()
            return loaded
        metrics.VIEW_REBUILDS.inc()
        log.info("gap in the feed, catching up from the log", match_id=envelope.match_id,
                 have=loaded.version, got=envelope.version)
        self.cache.catch_up(loaded)
        return loaded

"""The projector: turns the partition feeds into read models.

For every match it keeps the public view and one view per seat, each with the version it reflects
(and, for a seat that must act, the commands it may send). A view is written only when newer than the
stored one, so a re-delivered event is recognised as done; an event that skips versions (a gap: a
trimmed feed, a projector that started late) makes it rebuild the state from the match log.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

from schemas.envelopes import EventEnvelope, ViewRecord
from schemas.upcast import UpcastError, decode_event
from services import metrics
from services.logs import get_logger
from services.pipeline.ports import Delivery, EventStore, ViewStore
from services.pipeline.states import Loaded, StateCache, to_event
from services.pipeline.worker import Backoff

log = get_logger("projector")


def build_views(loaded: Loaded) -> list[ViewRecord]:
    """The public record and one record per seat for the state in ``loaded``."""
    game, state, match_id, version = loaded.game, loaded.state, loaded.meta.match_id, loaded.version
    records = [ViewRecord(match_id=match_id, key="public", version=version, view=game.view(state, None))]
    acting = game.to_act(state)
    for seat in range(loaded.meta.seats):
        legal = (
            [{"type": c.type, "body": c.body} for c in game.legal_commands(state, seat)] if seat in acting else []
        )
        records.append(ViewRecord(match_id=match_id, key=str(seat), version=version,
                                  view=game.view(state, seat), legal=legal))
    return records


class Projector:
    def __init__(self, store: EventStore, views: ViewStore, consumer: str, batch_size: int = 256,
                 block_ms: int = 1000, claim_idle_ms: int = 30_000, claim_every_s: float = 5.0) -> None:
        self.store = store
        self.views = views
        self.consumer = consumer
        self.batch_size = batch_size
        self.block_ms = block_ms
        self.claim_idle_ms = claim_idle_ms
        self.claim_every_s = claim_every_s
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
                log.warning("projector loop failed; retrying", consumer=self.consumer, error=repr(e))
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
        if not deliveries:
            block = self.block_ms if block_ms is None else block_ms
            deliveries = self.store.read_feed(self.consumer, self.batch_size, block)
        if deliveries:
            self.project(deliveries)
        return len(deliveries)

    def project(self, deliveries: list[Delivery]) -> None:
        """Apply a batch of feed entries, write each touched match's views once, then acknowledge."""
        touched: dict[str, Loaded] = {}
        for delivery in deliveries:
            try:
                envelope = decode_event(delivery.data)
            except UpcastError as e:
                log.error("unreadable feed entry", entry=delivery.entry_id, error=str(e))
                continue
            loaded = self._apply(envelope)
            if loaded is not None:
                touched[envelope.match_id] = loaded
        for match_id, loaded in touched.items():
            records = build_views(loaded)
            self.views.put_views(match_id, records)
            metrics.VIEWS_WRITTEN.inc(len(records))
        for delivery in deliveries:
            self.store.ack_feed(delivery)

    def _apply(self, envelope: EventEnvelope) -> Loaded | None:
        loaded = self.cache.get(envelope.match_id)
        if loaded is None:
            meta = self.store.meta(envelope.match_id)
            if meta is None:
                log.error("event of an unknown match", match_id=envelope.match_id, version=envelope.version)
                return None
            return self.cache.load(meta)  # built from the log, which holds this event already
        if envelope.version <= loaded.version:
            return loaded  # re-delivered: already applied
        if envelope.version == loaded.version + 1:
            loaded.state = loaded.game.evolve(loaded.state, to_event(envelope))
            loaded.version = envelope.version
            metrics.EVENTS_PROJECTED.labels(loaded.meta.game).inc()
            return loaded
        metrics.VIEW_REBUILDS.inc()
        log.info("gap in the feed, catching up from the log", match_id=envelope.match_id,
                 have=loaded.version, got=envelope.version)
        self.cache.catch_up(loaded)
        return loaded

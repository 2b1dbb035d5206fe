"""Rebuilding match states from their logs, with a bounded in-memory cache.

The cache is only an optimisation: a worker or projector without it (just started, or evicted) reads
the log and folds ``evolve`` over it. Nothing in it matters for correctness.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

from schemas.envelopes import EventEnvelope, MatchMeta
from services.games.abandon import abandon_rule
from services.games.base import Event, Game
from services.games.clock import match_game
from services.pipeline.ports import EventStore


def to_event(envelope: EventEnvelope) -> Event:
    visible = tuple(envelope.visible_to) if envelope.visible_to is not None else None
    return Event(envelope.type, envelope.body, visible, envelope.redacted)


def to_envelope(
    match_id: str,
    version: int,
    event: Event,
    command_id: str | None = None,
    seat: int | None = None,
    command: dict[str, Any] | None = None,
) -> EventEnvelope:
    # built from a game's own event (plain data by the contract) and values the caller checked: no validation
    # (this runs for every event a worker appends; the conformance tests check events against their schemas)
    return EventEnvelope.model_construct(
        match_id=match_id,
        version=version,
        type=event.type,
        body=event.body,
        visible_to=list(event.visible_to) if event.visible_to is not None else None,
        redacted=event.redacted,
        command_id=command_id,
        seat=seat,
        command=command,
    )


@dataclass(slots=True)
class Loaded:
    game: Game[Any]
    meta: MatchMeta
    version: int
    state: Any
    top: tuple[str | None, str] | None = None  # (command id, type) of the event at ``version``, when known
    abandon_rule: str | None = None  # the rule of the MatchAbandoned event that ended it (services.games.abandon)


class StateCache:
    def __init__(self, store: EventStore, capacity: int = 10_000) -> None:
        self._store = store
        self.capacity = capacity
        self._cache: OrderedDict[str, Loaded] = OrderedDict()

    def load(self, meta: MatchMeta) -> Loaded:
        """The match's state at the newest version in the store."""
        loaded = self._cache.get(meta.match_id)
        if loaded is None:
            game = match_game(meta.game)
            loaded = Loaded(game, meta, 0, game.initial())
        loaded.meta = meta
        self.catch_up(loaded)
        self.put(loaded)
        return loaded

    def catch_up(self, loaded: Loaded, upto: int | None = None) -> None:
        for envelope in self._store.read_log(loaded.meta.match_id, after=loaded.version):
            if upto is not None and envelope.version > upto:
                break
            if envelope.version != loaded.version + 1:
                raise RuntimeError(
                    f"log of {loaded.meta.match_id} jumps from {loaded.version} to {envelope.version}"
                )
            loaded.state = loaded.game.evolve(loaded.state, to_event(envelope))
            loaded.version = envelope.version
            loaded.top = (envelope.command_id, envelope.type)
            loaded.abandon_rule = abandon_rule(envelope.type, envelope.body)

    def put(self, loaded: Loaded) -> None:
        self._cache[loaded.meta.match_id] = loaded
        self._cache.move_to_end(loaded.meta.match_id)
        while len(self._cache) > self.capacity:
            self._cache.popitem(last=False)

    def forget(self, match_id: str) -> None:
        self._cache.pop(match_id, None)

    def get(self, match_id: str) -> Loaded | None:
        return self._cache.get(match_id)

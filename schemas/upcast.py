"""Upcasting: event envelopes written in an older shape are upgraded on read.

Every stored or exported event envelope carries ``schema_version`` (absent means 0, the shape before
the field existed). Reading one runs the registered upcasters for each version step, oldest first,
until it has :data:`~schemas.envelopes.EVENT_SCHEMA_VERSION`; only then is it validated. An upcaster is
a pure function over the raw dict (as it came out of JSON or msgpack) returning the dict one version
newer. It applies to every event, or to one game's events, or to one event type of one game:

    @UPCASTERS.register(1, game="moderne-zeiten", event_type="BidPlaced")
    def _amount_in_millions(raw):
        return {**raw, "body": {**raw["body"], "amount": raw["body"]["amount"] // 1_000_000}}

A step N -> N+1 runs the upcasters for every event first, then the game's, then the event type's,
and then sets ``schema_version`` to N+1 (so an event type nothing changed for needs no upcaster).

Version 0 (the first shape) had no ``schema_version`` and named ``visible_to`` ``seats``.

A game's own upcasters are named by its registration (``upcasters=`` in
``services/games/<game>/registration.py``): a function that registers them,
``def upcasters(registry: Upcasters) -> None``. :data:`UPCASTERS` calls its sources on first use; the game
registry (:mod:`services.games.registry`, which this package does not import) adds the one that calls every
built-in game's (none of the built-in games has one yet). Code outside the built-in games (a test game)
registers its upcasters itself.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError

from schemas.codec import DecodeError, unpack_obj
from schemas.envelopes import EVENT_SCHEMA_VERSION, EventEnvelope

RawEvent = dict[str, Any]
Upcaster = Callable[[RawEvent], RawEvent]


Source = Callable[["Upcasters"], None]


class UpcastError(ValueError):
    """An event that cannot be upgraded or read (too new, malformed, or failing validation)."""


@dataclass(frozen=True, slots=True)
class _Entry:
    game: str | None
    event_type: str | None
    fn: Upcaster

    def applies(self, game: str | None, event_type: object) -> bool:
        if self.game is not None and self.game != game:
            return False
        return self.event_type is None or self.event_type == event_type

    @property
    def order(self) -> int:
        return (self.game is not None) + (self.event_type is not None)


class Upcasters:
    """A registry of upcasters keyed by the schema version they upgrade from. Its ``sources`` (functions
    registering upcasters here) are called on first use."""

    def __init__(self, current: int = EVENT_SCHEMA_VERSION, sources: Iterable[Source] = ()) -> None:
        self.current = current
        self._sources = list(sources)
        self._steps: dict[int, list[_Entry]] = {}
        self._lock = threading.Lock()

    def add_source(self, source: Source) -> None:
        """``source(self)`` registers upcasters, on the next use (the game registry adds the games')."""
        with self._lock:
            self._sources.append(source)

    def load(self) -> None:
        """Let every source register its upcasters (each once; reading does it on first use)."""
        if not self._sources:
            return
        with self._lock:
            sources, self._sources = self._sources, []  # (a source that upcasts meanwhile sees what is here)
        for source in sources:
            source(self)

    def register(self, from_version: int, game: str | None = None,
                 event_type: str | None = None) -> Callable[[Upcaster], Upcaster]:
        """Decorator: ``fn`` upgrades (matching) raw events from ``from_version`` to ``from_version + 1``."""
        if not 0 <= from_version < self.current:
            raise ValueError(f"an upcaster upgrades from 0..{self.current - 1}, not {from_version}")
        if event_type is not None and game is None:
            raise ValueError("an event type upcaster needs its game (event types are per game)")

        def add(fn: Upcaster) -> Upcaster:
            entries = self._steps.setdefault(from_version, [])
            entries.append(_Entry(game, event_type, fn))
            entries.sort(key=lambda e: e.order)
            return fn

        return add

    def upcast(self, raw: RawEvent, game: str | None = None) -> RawEvent:
        """``raw`` upgraded to the current schema version (a new dict; ``raw`` is not changed)."""
        version = raw.get("schema_version", 0)
        if isinstance(version, bool) or not isinstance(version, int) or version < 0:
            raise UpcastError(f"schema_version must be a whole number >= 0, not {version!r}")
        if version > self.current:
            raise UpcastError(f"event written by a newer airship (schema version {version}); this one reads up "
                              f"to {self.current}")
        self.load()
        out = dict(raw)
        while version < self.current:
            for entry in self._steps.get(version, []):
                if entry.applies(game, out.get("type")):
                    out = entry.fn(out)
            version += 1
            out["schema_version"] = version
        return out


UPCASTERS = Upcasters()


@UPCASTERS.register(0)
def _v0_seats_to_visible_to(raw: RawEvent) -> RawEvent:
    out = dict(raw)
    if "seats" in out:
        out["visible_to"] = out.pop("seats")
    return out


def upcast_event(raw: RawEvent, game: str | None = None, upcasters: Upcasters = UPCASTERS) -> RawEvent:
    return upcasters.upcast(raw, game)


def load_event(raw: object, game: str | None = None, upcasters: Upcasters = UPCASTERS) -> EventEnvelope:
    """A raw event (a dict from JSON or msgpack, any schema version) as a current :class:`EventEnvelope`.

    Stores and file readers call this instead of validating directly, so old logs stay readable.
    """
    if not isinstance(raw, dict):
        raise UpcastError(f"an event must be a map, not {type(raw).__name__}")
    upgraded = upcasters.upcast(raw, game)
    try:
        return EventEnvelope.model_validate(upgraded)
    except ValidationError as e:
        raise UpcastError(f"invalid event: {e.errors(include_url=False)[:3]}") from e


def game_of(raw: object) -> str | None:
    """The game named by a raw ``MatchStarted`` event (how a header-less log says what it is)."""
    if isinstance(raw, dict) and raw.get("type") == "MatchStarted" and isinstance(raw.get("body"), dict):
        game = raw["body"].get("game")
        return game if isinstance(game, str) else None
    return None


def decode_event(data: bytes, game: str | None = None, upcasters: Upcasters = UPCASTERS) -> EventEnvelope:
    """A packed (msgpack) event of any schema version as a current envelope: what a store's ``read_log`` and
    the feed readers use instead of ``unpack(EventEnvelope, data)`` so that old entries stay readable."""
    try:
        return load_event(unpack_obj(data), game, upcasters)
    except DecodeError as e:
        raise UpcastError(str(e)) from e

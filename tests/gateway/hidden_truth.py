"""The admin's truth about a match, for the hidden-information tests: the whole log read straight from Redis,
the states folded from it with the game's ``evolve``, and from those exactly what each seat (or a spectator)
may see — views, legal commands, events — to compare with what the gateway gave out."""

from __future__ import annotations

import json
from typing import Any

import redis
from pydantic import BaseModel

import schemas.envelopes
import schemas.gateway
from schemas.envelopes import EventEnvelope
from schemas.logentry import Cause, load_slice
from services.games import get_game
from services.keys import Keys
from services.pipeline.states import to_event


def _wire_words() -> set[str]:
    """The field names of every wire model: the frame around what a seat gets, never a secret."""
    words: set[str] = set()
    for module in (schemas.gateway, schemas.envelopes):
        for value in vars(module).values():
            if isinstance(value, type) and issubclass(value, BaseModel):
                words |= set(value.model_fields)
    return words


WIRE_WORDS = _wire_words()


def normal(obj: Any) -> Any:
    """``obj`` as it looks after a JSON round trip (tuples become lists, keys text)."""
    return json.loads(json.dumps(obj))


def leaves(obj: Any) -> set[str]:
    """Every text leaf of a JSON-like value (keys included)."""
    if isinstance(obj, str):
        return {obj}
    if isinstance(obj, dict):
        return {str(k) for k in obj} | {s for v in obj.values() for s in leaves(v)}
    if isinstance(obj, list | tuple):
        return {s for v in obj for s in leaves(v)}
    return set()


class Truth:
    def __init__(self, r: redis.Redis, keys: Keys, match_id: str, game: str, seats: int) -> None:
        self.r = r
        self.keys = keys
        self.match_id = match_id
        self.game_name = game
        self.game = get_game(game)
        self.seats = seats
        self.log: list[EventEnvelope] = []
        self._cause: Cause | None = None  # (the compact log names a command once: passed from read to read)
        self.states: list[Any] = [self.game.initial()]  # states[v]: after event v

    def refresh(self) -> Truth:
        """Read the log's new events and fold them in."""
        after = len(self.log)
        entries = self.r.xrange(self.keys.log(self.match_id), min=f"{after + 1}-0")
        events, self._cause = load_slice(self.match_id, entries, self.game_name, self._cause)
        for event in events:
            assert event.version == len(self.log) + 1, "the log has a gap"
            self.log.append(event)
            self.states.append(self.game.evolve(self.states[-1], to_event(event)))
        return self

    @property
    def version(self) -> int:
        return len(self.log)

    def view(self, version: int, seat: int | None) -> Any:
        assert version <= self.version, (version, self.version)
        return normal(self.game.view(self.states[version], seat))

    def legal(self, version: int, seat: int) -> Any:
        state = self.states[version]
        if seat not in self.game.to_act(state):
            return []
        return normal([c.wire() for c in self.game.legal(state, seat)])

    def events_for(self, seat: int | None) -> list[Any]:
        return [normal(e.for_seat(seat).model_dump(mode="json")) for e in self.log]

    def full(self) -> list[Any]:
        return [normal(e.model_dump(mode="json")) for e in self.log]

    def hidden_from(self, seat: int | None) -> list[EventEnvelope]:
        return [e for e in self.log if e.visible_to is not None and (seat is None or seat not in e.visible_to)]

    def secret_words(self, seat: int | None) -> set[str]:
        """Text that is in secrets kept from ``seat`` and nowhere in what ``seat`` may see (its events, its
        views and legal commands at every version, the public views): finding one in what the seat got is a
        leak, whatever the shape it came in."""
        hidden: set[str] = set()
        for e in self.hidden_from(seat):
            hidden |= leaves(e.body) - leaves(e.redacted or {})
        if not hidden:
            return set()
        allowed = leaves(self.events_for(seat)) | WIRE_WORDS
        for v in range(self.version + 1):
            allowed |= leaves(self.view(v, None))
            if seat is not None:
                allowed |= leaves(self.view(v, seat)) | leaves(self.legal(v, seat))
        return {w for w in hidden - allowed if len(w) >= 3}

"""One running match per game on real Redis and an in-process worker that handles exactly the delivery a
fuzz input became, checking what it did: every input gets a result or (when nobody can be answered) a
dead letter; the match changes only for an accepted command, and then by exactly ``decide``'s events."""

from __future__ import annotations

import random
import uuid
from dataclasses import dataclass

from schemas.codec import DecodeError, unpack
from schemas.envelopes import CommandEnvelope, CommandResult, MatchMeta
from services.games import get_game
from services.games.base import Command
from services.games.rng import derive_rng
from services.pipeline.auth import hash_credential
from services.pipeline.redis_backend import RedisBackend
from services.pipeline.states import StateCache, to_envelope, to_event
from services.pipeline.worker import Unanswerable, Worker, WorkerSettings
from tests.fuzz.counts import COUNTS


@dataclass
class Table:
    match_id: str
    game: str
    seats: int
    credentials: list[str]


class Arena:
    def __init__(self, backend: RedisBackend) -> None:
        self.backend = backend
        self.worker = Worker(backend.bus, backend.store, "fuzz", WorkerSettings(block_ms=10))
        self.cache = StateCache(backend.store)
        self.last: Table | None = None
        self.stale: list[str] = []  # the credentials of an earlier match

    def table(self, game_name: str, seed: int = 1, steps: int = 0) -> Table:
        """A new running match of the game, ``steps`` random legal commands in (chosen with ``seed``), all
        seats joined. Built from the draws alone, so hypothesis can replay an example exactly."""
        game = get_game(game_name)
        seats = game.min_seats + seed % (game.max_seats - game.min_seats + 1)
        events = game.setup({}, seats, derive_rng(seed, 0))
        state = game.initial()
        for event in events:
            state = game.evolve(state, event)
        pick = random.Random(seed)
        for _ in range(steps):
            if game.outcome(state) is not None:
                break
            seat = pick.choice(sorted(game.to_act(state)))
            new = game.decide(state, pick.choice(game.legal_commands(state, seat)), derive_rng(seed, len(events)))
            for event in new:
                state = game.evolve(state, event)
            events += new
        match_id = f"fuzz-{uuid.uuid4().hex[:10]}"
        credentials = [f"cred-{seed}-{s}-{uuid.uuid4().hex}" for s in range(seats)]
        meta = MatchMeta(match_id=match_id, game=game_name, seats=seats, seed=seed, status="running",
                         credential_hashes={s: hash_credential(c) for s, c in enumerate(credentials)})
        envelopes = [to_envelope(match_id, i + 1, e) for i, e in enumerate(events)]
        assert self.backend.store.create_match(meta, envelopes)
        if self.last is not None:
            self.stale = self.last.credentials
        self.last = Table(match_id, game_name, seats, credentials)
        return self.last

    def state(self, match_id: str) -> object:
        meta = self.backend.store.meta(match_id)
        assert meta is not None
        return self.cache.load(meta).state.game  # (the game's own state, under the match layer's clock)

    def push(self, match_id: str, data: bytes, kind: str) -> CommandResult | None:
        """Publish ``data`` on the match's partition, let the worker handle it, check the outcome."""
        store = self.backend.store
        before = store.version(match_id)
        state = self.state(match_id) if before else None
        self.backend.bus.publish(match_id, data)
        deliveries = self.backend.bus.read("fuzz", 10, 200)
        assert len(deliveries) == 1, deliveries
        delivery = deliveries[0]
        try:
            result = self.worker.handle(delivery.data)
        except Unanswerable as e:
            self.backend.bus.dead_letter(delivery, str(e))
            COUNTS[f"{kind}: dead letter"] += 1
            assert store.version(match_id) == before
            return None
        self.backend.bus.ack(delivery)
        assert result is not None, "an answerable command always gets a result"
        COUNTS[f"{kind}: {result.status}"] += 1
        after = store.version(match_id)
        if after == before:
            return result
        assert result.status == "accepted" and result.version == after, (result, before, after)
        env = unpack(CommandEnvelope, data)
        meta = store.meta(match_id)
        assert meta is not None and state is not None
        game = get_game(meta.game)
        rng = derive_rng(store.seed(match_id) or 0, before)
        expected = game.decide(state, Command(env.seat, env.type, env.body), rng)
        got = [to_event(e) for e in store.read_log(match_id, after=before)]
        assert got == expected, "the log grew by exactly decide's events"
        return result


def decodes(data: bytes) -> bool:
    try:
        unpack(CommandEnvelope, data)
    except DecodeError:
        return False
    return True

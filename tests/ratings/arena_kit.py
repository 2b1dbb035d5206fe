"""The arena's scripts run straight on Redis, as the gateway runs them (services.gateway.arena), with a clock the
test sets and seatings it may seed."""

from __future__ import annotations

import random

import redis

from services.keys import Keys
from services.ratings import pairing as arena


class Scripts:
    def __init__(self, r: redis.Redis, keys: Keys, rng: random.Random | None = None) -> None:
        self.r, self.keys = r, keys
        self.enqueue_script = r.register_script(arena.ENQUEUE)
        self.poll_script = r.register_script(arena.POLL)
        self.leave_script = r.register_script(arena.LEAVE)
        self.settle_script = r.register_script(arena.SETTLE)
        self.now = 1_000_000
        self.rng = rng

    def enqueue(self, ticket: str, player: str, seats: str = "2", game: str = "nim", limit: int = 4,
                most: int = 100) -> int:
        return int(self.enqueue_script(keys=[self.keys.arena("waiting")],
                                       args=[arena.prefix(self.keys), self.now, ticket, player, game, 30_000, limit,
                                             most, seats]))

    def seat_order(self) -> str:
        if self.rng is None:
            return arena.seat_order()
        order = list(range(arena.MAX_SEATS))
        self.rng.shuffle(order)
        return ",".join(map(str, order))

    def poll(self, ticket: str, player: str, match_id: str = "m1",
             claim_ms: int = 60_000) -> arena.Matched | arena.Waiting | arena.Lapsed | None:
        reply = self.poll_script(keys=[self.keys.arena("waiting")],
                                 args=[arena.prefix(self.keys), self.now, ticket, player, 30_000, match_id, 3_600_000,
                                       arena.SCAN, self.seat_order(), claim_ms])
        return arena.parse_poll(reply)

    def settle(self, match_id: str, outcome: str, collected: str = "", no_show_ms: int = 600_000) -> list[str]:
        reply = self.settle_script(keys=[self.keys.arena("waiting")],
                                   args=[arena.prefix(self.keys), self.now, match_id, outcome, collected, 30_000,
                                         no_show_ms, arena.FRONT, 3_600_000])
        return [x.decode() for x in reply]

    def leave(self, ticket: str, player: str) -> int:
        return int(self.leave_script(keys=[self.keys.arena("waiting")],
                                     args=[arena.prefix(self.keys), self.now, ticket, player]))

"""What the gateway reads and writes in Redis (``redis.asyncio``), and nothing more: it reads match metadata,
results, view records, view announcements and the logs; it writes the command streams (XADD only, through
``lua/publish.lua``: matches are created and seats taken by the system commands ``match.create`` and
``match.join``, which workers decide, #35) and its own hash of each match (``{p}:match:<id>:gw``: abandon
votes, ``abandoned``, seats flagged for bots, ``arena_dissolved``). It never sees a match's seed."""

from __future__ import annotations

import asyncio
import hashlib
import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any, cast

import redis.asyncio as aioredis

from schemas.codec import pack, unpack_obj, unpack_result, unpack_view
from schemas.envelopes import CommandEnvelope, CommandResult, EventEnvelope, MatchMeta, ViewRecord
from schemas.logentry import LOOKBACK, Cause, first_cause, load_slice, starts_inside_command
from services.gateway.batch import Batcher
from services.gateway.wire import Refused
from services.keys import Keys
from services.pipeline import redis_conn
from services.pipeline.lobby import RESERVE
from services.pipeline.redis_backend import STATUSES, _meta_from, lua
from services.pipeline.redis_streams import FIELD, entries_of, text
from services.settings import Settings

StreamEntries = list[tuple[bytes, list[tuple[bytes, dict[bytes, bytes]]]]]
ABANDON_VOTE = "abandon:"  # gw hash field per seat: "<version>:<ms>", the version the seat voted at and when
MARK_ABANDONED = """
-- Flag a match a worker finished with MatchAbandoned, for the lobby's summaries (the log, views and archive carry
-- the event itself), in the gateway's hash of the match. Only while the match is in Redis: the archiver may have
-- taken it out already. The meta is named after the gw key, not in KEYS: EVALSHA checks KEYS for read *and* write
-- access, and the gateway may only read a meta (#35).
-- KEYS: gw. Returns 1 if flagged, else 0.
if redis.call('HGET', string.sub(KEYS[1], 1, -3) .. 'meta', 'status') ~= 'finished' then
  return 0
end
redis.call('HSET', KEYS[1], 'abandoned', '1')
return 1
"""


class TooManyOpen(Refused):
    """No room for another open match (``AIRSHIP_MAX_OPEN_MATCHES``): 503, to try again in a minute."""

    def __init__(self, detail: str) -> None:
        super().__init__(503, "unavailable", detail, headers={"Retry-After": "60"})


class GatewayMeta(MatchMeta):
    """A match's metadata as the gateway reads it: with whether its players abandoned it, and their votes."""

    abandoned: bool = False
    abandon_votes: dict[int, tuple[int, int]] = {}  # seat -> (version voted at, time in ms)
    reserved: dict[int, str] = {}  # seat -> the registered player it is reserved for (a rated match)
    rematch: str | None = None  # the match asked for as its rematch (services.gateway.rematch)
    bots: frozenset[int] = frozenset()  # the seats given to the service's bots (fields bot:<seat>)


def gateway_meta(reply: object, gw: object = None) -> GatewayMeta:
    """A meta hash (HGETALL) and the match's gw hash (the gateway's own fields) as one :class:`GatewayMeta`."""
    h = {**cast(dict[bytes, bytes], gw or {}), **cast(dict[bytes, bytes], reply)}
    meta = _meta_from(h)
    votes: dict[int, tuple[int, int]] = {}
    for key, value in h.items():
        if key.startswith(ABANDON_VOTE.encode()):
            version, _, ms = value.decode().partition(":")
            votes[int(key[len(ABANDON_VOTE):])] = (int(version), int(ms or 0))
    reserved = {int(k[len(RESERVE):]): v.decode() for k, v in h.items()
                if k.startswith(RESERVE.encode()) and k[len(RESERVE):].isdigit()}
    rematch = h.get(b"rematch")
    bots = frozenset(int(k[4:]) for k in h if k.startswith(b"bot:") and k[4:].isdigit())
    return GatewayMeta(**dict(meta), abandoned=h.get(b"abandoned") == b"1", abandon_votes=votes, reserved=reserved,
                       rematch=rematch.decode() if rematch else None, bots=bots)


def command_digest(envelope: CommandEnvelope) -> str:
    """What makes a command the same command when its key is used again: its type, body and expected version
    (keys in any order), hashed short. Kept with the key in the match's sent hash (``lua/publish.lua``)."""
    text = json.dumps([envelope.type, envelope.body, envelope.expected_version], sort_keys=True,
                      separators=(",", ":"), default=str)
    return hashlib.blake2b(text.encode(), digest_size=12).hexdigest()


def connect_async(url: str, max_connections: int = 64, socket_timeout_s: float | None = None) -> aioredis.Redis:
    """The gateway's client, at most ``max_connections`` connections (requests wait for a free one).
    ``socket_timeout_s``: the longest wait for a reply (None: redis-py's default, 5 s);
    a client for blocking reads needs their block time plus a margin, or an idle read that ends normally
    (nil at the end of its block) arrives after the client gave up on it: a TimeoutError and a lost connection."""
    return cast(aioredis.Redis, redis_conn.connect_async(url, max_connections, socket_timeout_s))


class GatewayStore:
    def __init__(self, r: aioredis.Redis, settings: Settings, reader: aioredis.Redis | None = None) -> None:
        self.r = r
        self.reader = reader or r  # for the blocking reads: its socket timeout must exceed their block time
        self.keys: Keys = settings.keys
        self.settings = settings
        self._mark_abandoned = r.register_script(MARK_ABANDONED)
        self._publish = r.register_script(lua("publish"))
        self.batch = Batcher(r)
        self.on_change: list[Callable[[], None]] = []  # called when this gateway created or filled a match

    # -- matches ---------------------------------------------------------------------------------
    async def meta(self, match_id: str) -> MatchMeta | None:
        h, gw = await asyncio.gather(self.batch.call("HGETALL", self.keys.meta(match_id)),
                                     self.batch.call("HGETALL", self.keys.gw(match_id)))
        return gateway_meta(h, gw) if h else None

    async def version(self, match_id: str) -> int:
        return int(await self.batch.call("HGET", self.keys.meta(match_id), "version") or 0)

    async def check_open_room(self, match_id: str) -> None:
        """Refuse (:class:`TooManyOpen`) a new open match in a partition holding its share of
        ``max_open_matches`` already. Counted before the create script, so concurrent creations may pass the
        bound by a few: it bounds memory, it is not a quota. The archiver removes open matches nobody filled
        (``open_ttl_s``)."""
        limit = self.settings.max_open_matches
        if limit <= 0:
            return
        share = -(-limit // self.keys.partitions)
        if int(await self.r.zcard(self.keys.match_matches(match_id, "open"))) >= share:
            raise TooManyOpen(f"{limit} matches are waiting for players already; join one of them (GET "
                              f"/matches?status=open) or try again later")

    def changed(self) -> None:
        """A match was created or a seat taken here: what this gateway caches of the lobby is out of date."""
        for hook in self.on_change:
            hook()

    async def list_matches(self, status: str | None, limit: int) -> list[tuple[MatchMeta, int]]:
        """The newest ``limit`` matches with that status from every partition, with their versions."""
        statuses = [status] if status else list(STATUSES)
        pipe = self.r.pipeline(transaction=False)
        for p in range(self.keys.partitions):
            for s in statuses:
                pipe.zrevrange(self.keys.matches(p, s), 0, limit - 1, withscores=True)
        replies = await pipe.execute()
        ranked = sorted(((score, text(mid)) for reply in replies for mid, score in reply), reverse=True)[:limit]
        for _, mid in ranked:
            pipe.hgetall(self.keys.meta(mid))
            pipe.hgetall(self.keys.gw(mid))
        replies = await pipe.execute()
        pairs = zip(replies[::2], replies[1::2], strict=True)
        return [(gateway_meta(h, gw), int(h.get(b"version", 0))) for h, gw in pairs if h]

    async def vote_abandon(self, match_id: str, seat: int, version: int, now_ms: int) -> None:
        """Record ``seat``'s vote to end the match, cast at ``version``."""
        await self.r.hset(self.keys.gw(match_id), f"{ABANDON_VOTE}{seat}", f"{version}:{now_ms}")

    async def mark_abandoned(self, match_id: str) -> bool:
        """Flag a match finished by its ``MatchAbandoned`` event as abandoned in its meta (for summaries); False
        when it is not finished or no longer in Redis."""
        return bool(await self._mark_abandoned(keys=[self.keys.gw(match_id)]))

    # -- commands and results --------------------------------------------------------------------
    async def publish(self, envelope: CommandEnvelope) -> CommandResult | None:
        """In one script call (``lua/publish.lua``, sent with the turn's other calls): 409
        ``idempotency_key_reused`` when the seat used this key for another command; the command's recorded
        result if it has one; else mark it sent and add it to its partition's stream. A resent command is
        published again; the worker answers the copy with the first result and applies nothing (the at-most-once
        record), so the caller may return the recorded result at once or wait for the first copy's. The digest stays in
        ``sent`` as long as the result stays in ``seen`` (a rejection past the match's ``rejected_kept`` leaves both:
        resent, it is decided again, which is safe as it changed nothing)."""
        mid, cid = envelope.match_id, envelope.command_id
        reply = await self.batch.script(self._publish, [self.keys.gw(mid)],
                                        [cid, command_digest(envelope), pack(envelope)])
        outcome = reply[0]
        if outcome == b"earlier":
            return unpack_result(reply[1], mid, cid)
        if outcome == b"reused":
            raise Refused(409, "idempotency_key_reused",
                          "this idempotency key was used for another command of this seat: choose a new key for a "
                          "new command (the first command's result is at GET /matches/{id}/commands/{key})")
        return None

    async def was_sent(self, match_id: str, command_id: str) -> bool:
        """Whether the command was published and is in flight, or has a result by now: the append removes an id
        from ``sent`` as it records the result (in the same script), so a result missed a moment ago is found."""
        pipe = self.r.pipeline(transaction=False)
        pipe.hexists(self.keys.sent(match_id), command_id)
        pipe.hexists(self.keys.seen(match_id), command_id)
        return any(await pipe.execute())

    async def result(self, match_id: str, command_id: str) -> CommandResult | None:
        data = await self.batch.call("HGET", self.keys.seen(match_id), command_id)
        return unpack_result(cast(bytes, data), match_id, command_id) if data is not None else None

    async def results(self, commands: Sequence[tuple[str, str]]) -> list[CommandResult | None]:
        """The recorded results of (match id, command id) pairs, in one round trip."""
        pipe = self.r.pipeline(transaction=False)
        for match_id, command_id in commands:
            pipe.hget(self.keys.seen(match_id), command_id)
        replies = await pipe.execute()
        return [unpack_result(cast(bytes, data), mid, cid) if data is not None else None
                for (mid, cid), data in zip(commands, replies, strict=True)]

    @property
    def per_slot_reads(self) -> bool:
        """Whether a blocking read must stay in one slot (a Redis Cluster): then one reader per partition."""
        from redis.asyncio.cluster import RedisCluster

        return isinstance(self.reader, RedisCluster)

    async def stream_ends(self, keys: Sequence[str]) -> dict[str, str]:
        """The id of each stream's newest entry ("0-0" for an empty one), in one round trip."""
        pipe = self.r.pipeline(transaction=False)
        for key in keys:
            pipe.xrevrange(key, count=1)
        replies = await pipe.execute()
        return {key: text(newest[0][0]) if newest else "0-0" for key, newest in zip(keys, replies, strict=True)}

    async def read_live(self, positions: Mapping[str, str], block_ms: int, count: int) -> StreamEntries:
        """One blocking XREAD over partitions' live streams after their positions (one slot each on a cluster)."""
        streams: dict[Any, Any] = dict(positions)
        reply = await self.reader.xread(streams, block=block_ms, count=count)
        return cast(StreamEntries, reply or [])

    # -- views and logs --------------------------------------------------------------------------
    async def view(self, match_id: str, key: str) -> ViewRecord | None:
        data = await self.batch.call("HGET", self.keys.view(match_id, key), "d")
        return unpack_view(cast(bytes, data)) if data is not None else None

    async def read_log(self, match_id: str, game: str, after: int = 0, limit: int | None = None) -> list[EventEnvelope]:
        """As the event store's ``read_log`` (``schemas.logentry``), on the gateway's connection."""
        log = self.keys.log(match_id)
        entries = entries_of(await self.r.xrange(log, min=f"{after + 1}-0", count=limit))
        inherited: Cause | None = None
        top = f"{after}-0"
        while starts_inside_command(entries) and (
                back := entries_of(await self.r.xrevrange(log, max=top, min="-", count=LOOKBACK))):
            found, inherited = first_cause(unpack_obj(fields[FIELD]) for _, fields in back)
            if found:
                break
            top = f"({text(back[-1][0])}"
        return load_slice(match_id, entries, game, inherited)[0]

    async def ping(self) -> bool:
        return bool(await self.r.ping())

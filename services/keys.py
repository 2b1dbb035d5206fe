"""Every Redis key name, in one place. A match belongs to partition ``crc32(match_id) % P``; every key of
a partition carries the hash tag ``{p}`` so on Redis Cluster a partition lives in one slot and a Lua
script may touch all of its keys atomically."""

from __future__ import annotations

import zlib
from dataclasses import dataclass

DEFAULT_PARTITIONS = 16
WORKERS_GROUP = "workers"
PROJECTORS_GROUP = "projectors"
RATINGS_GROUP = "ratings"


def partition_of(match_id: str, partitions: int) -> int:
    return zlib.crc32(match_id.encode()) % partitions


@dataclass(frozen=True, slots=True)
class Keys:
    """Key names under a deployment-wide ``prefix`` (tests use their own prefix)."""

    prefix: str = "airship"
    partitions: int = DEFAULT_PARTITIONS

    def tag(self, partition: int) -> str:
        return f"{self.prefix}:{{{partition}}}"

    def commands(self, partition: int) -> str:
        return f"{self.tag(partition)}:commands"

    def feed(self, partition: int) -> str:
        return f"{self.tag(partition)}:feed"

    def live(self, partition: int) -> str:
        """Stream of the partition's command results and view announcements, for the gateways' few readers:
        ``{m, c, r}`` (match, command id, packed result) or ``{m, k, v}`` (match, view keys, version); trimmed."""
        return f"{self.tag(partition)}:live"

    def dead(self, partition: int) -> str:
        return f"{self.tag(partition)}:dead"

    def feed_dead(self, partition: int) -> str:
        """Stream of the partition's feed entries the projectors could not read (written by the projector)."""
        return f"{self.tag(partition)}:feed-dead"

    def parked(self, partition: int) -> str:
        """Hash match id -> packed {error, at, deliveries}: matches whose views the projector gave up building."""
        return f"{self.tag(partition)}:parked"

    def clocks(self, partition: int) -> str:
        """Sorted set of the partition's clocked matches (#29): member the match id, score its next deadline (ms
        since the epoch); written by the append and join scripts, read by the workers' sweep."""
        return f"{self.tag(partition)}:clocks"

    def matches(self, partition: int, status: str) -> str:
        """Sorted set of the partition's match ids with that status (score: creation time in ms)."""
        return f"{self.tag(partition)}:matches:{status}"

    def bots_wanted(self, partition: int) -> str:
        """Sorted set of the partition's open match ids with seats flagged for the bots (score: when, in ms).
        Named like a status set, so the gateway's user reaches it with the same key pattern."""
        return self.matches(partition, "bots")

    def archive_pending(self, partition: int) -> str:
        """The archiver's sorted set of the partition's finished match ids -> when they finished (ms, estimated);
        a match's entry goes with its keys (the worker's ``match.purge``)."""
        return f"{self.tag(partition)}:archive:pending"

    def seat_players(self, partition: int) -> str:
        """Hash of the partition's player links, kept after a match is archived (ratings are rebuilt from them):
        ``<match>.<seat>`` -> player name, ``<match>.p.<player>`` -> seat, ``<match>.created`` -> creation ms."""
        return f"{self.tag(partition)}:seat-players"

    def players(self, part: str) -> str:
        """The registered players (one hash slot): ``names`` (name -> record), ``keys`` (API key hash -> name)."""
        return f"{self.prefix}:{{players}}:{part}"

    def ratings(self, part: str) -> str:
        """The ratings read model (one hash slot): ``epoch``, ``games``, ``<game>:matches|standings|history``."""
        return f"{self.prefix}:{{ratings}}:{part}"

    def arena(self, part: str) -> str:
        """The arena's queue and tickets (one hash slot, so its scripts are atomic on a cluster too): ``waiting``,
        ``q:<game>:<seats>``, ``p:<player>``, ``t:<ticket>``, ``created:<match>`` (services.ratings.pairing)."""
        return f"{self.prefix}:{{arena}}:{part}"

    def limits(self, part: str) -> str:
        """The gateways' shared limits (one hash slot, so one script flushes a gateway's counts and reads every
        replica's): ``gateways`` (id -> expiry), ``gw:<id>`` (its held counts), ``rate:<limit>:<digest>`` (token
        buckets) (services.gateway.shared_limits)."""
        return f"{self.prefix}:{{limits}}:{part}"

    def lease(self, partition: int) -> str:
        """The worker that serves the partition now (its consumer name, with a time to live): see
        ``lua/lease.lua``."""
        return f"{self.tag(partition)}:lease"

    def members(self) -> str:
        """Hash consumer -> last heartbeat (server ms): the live workers, who split the partitions."""
        return f"{self.prefix}:workers"

    def partition(self, match_id: str) -> int:
        return partition_of(match_id, self.partitions)

    def match_matches(self, match_id: str, status: str) -> str:
        """The status set of the match's own partition."""
        return self.matches(self.partition(match_id), status)

    def match(self, match_id: str, part: str) -> str:
        return f"{self.tag(self.partition(match_id))}:match:{match_id}:{part}"

    def log(self, match_id: str) -> str:
        return self.match(match_id, "log")

    def meta(self, match_id: str) -> str:
        return self.match(match_id, "meta")

    def secret(self, match_id: str) -> str:
        """The match seed: readable by workers (and admin tools) only; the gateway may write it once."""
        return self.match(match_id, "secret")

    def gw(self, match_id: str) -> str:
        """Hash of what the gateway alone writes of a match (#35): abandon votes (``abandon:<seat>``), ``abandoned``,
        seats flagged for bots (``bot:<seat>``), ``arena_dissolved``. The meta is the workers'."""
        return self.match(match_id, "gw")

    def sent(self, match_id: str) -> str:
        """Hash command id -> 1: the commands the gateway published, so it can tell 'pending' from 'unknown'."""
        return self.match(match_id, "sent")

    def seen(self, match_id: str) -> str:
        """Hash command id -> packed result: the at-most-once record."""
        return self.match(match_id, "seen")

    def results(self, match_id: str) -> str:
        return self.match(match_id, "results")

    def view(self, match_id: str, key: str) -> str:
        """Hash {v: version, d: packed ViewRecord}; key 'public' or a seat number."""
        return self.match(match_id, f"view:{key}")

    def updates(self, match_id: str) -> str:
        """Stream announcing every new view version of the match."""
        return self.match(match_id, "updates")


def partition_of_key(key: str) -> int:
    """The partition of a key that carries its hash tag (``<prefix>:{<p>}:commands``)."""
    return int(key[key.index("{") + 1:key.index("}")])

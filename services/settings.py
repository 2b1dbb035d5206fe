"""Settings of the Redis service, one object read from environment variables (units in the names).

=============================  =====================================================================
``AIRSHIP_REDIS_URL``          Redis URL (``redis://host:port/db``)
``AIRSHIP_PARTITIONS``         P, the number of partitions (fixed per deployment)
``AIRSHIP_KEY_PREFIX``         prefix of every key (tests and ``play --redis`` use their own)
``AIRSHIP_METRICS_PORT``       Prometheus endpoint port of the process (0: none)
``AIRSHIP_HEALTH_STALE_S``     /healthz fails once the service loop has not ticked for this long
``AIRSHIP_REDIS_TIMEOUT_S``    worker/projector: longest wait for a Redis reply beyond a blocking read's time
``AIRSHIP_WORKER_BATCH``       commands a worker reads per batch
``AIRSHIP_PROJECTOR_BATCH``    feed entries a projector reads per batch
``AIRSHIP_BLOCK_MS``           how long an idle read blocks
``AIRSHIP_CLAIM_IDLE_MS``      a pending entry idle this long belongs to a dead consumer
``AIRSHIP_CLAIM_EVERY_S``      how often a worker looks for such entries (and trims the streams)
``AIRSHIP_MAX_DELIVERIES``     deliveries after which a command goes to the dead-letter stream
``AIRSHIP_FEED_MAXLEN``        approximate length the partition feeds are trimmed to
``AIRSHIP_RESULTS_MAXLEN``     approximate length a match's results stream is trimmed to
``AIRSHIP_APPEND_REPLICAS``    worker: replicas an append must reach (``WAIT``) before it is acknowledged (0: none)
``AIRSHIP_APPEND_WAIT_MS``     worker: how long it waits for them; short of them, the batch is delivered again
``AIRSHIP_UPDATES_MAXLEN``     approximate length a match's view-announcement stream is trimmed to
``AIRSHIP_LIVE_MAXLEN``        approximate length a partition's live stream (results and view announcements
                             for the gateways' readers) is trimmed to
``AIRSHIP_RESULTS_TTL_S``      a finished match's results stream expires this long after the end
``AIRSHIP_GAME_MODULES``       games beyond the built-in ones, comma-separated: ``module:attribute`` (the game
                               object, registered) or ``module`` (imported; it registers its games itself)
``AIRSHIP_GATEWAY_MAX_BODY``   gateway: largest request body or WebSocket message, in bytes
``AIRSHIP_GATEWAY_TOKEN_RPS``  gateway: requests per second per seat token (bursts of 4 s worth)
``AIRSHIP_GATEWAY_ADDR_RPS``   gateway: requests per second per client address (bursts of 4 s worth)
``AIRSHIP_GATEWAY_SOCKETS``    gateway: open WebSockets per seat token
``AIRSHIP_GATEWAY_REDIS_CONNECTIONS`` gateway: Redis connections for requests (besides one live reader, or one per
                             partition on a cluster); requests wait for a free one
``AIRSHIP_GATEWAY_SOCKETS``    gateway: open WebSocket subscriptions per seat token
``AIRSHIP_GATEWAY_ADDR_SOCKETS`` gateway: open WebSockets per client address
``AIRSHIP_GATEWAY_LONGPOLLS``  gateway: waiting long-polls per seat token (views and results with ``wait_s``, and
                               commands waiting for their result)
``AIRSHIP_GATEWAY_ADDR_LONGPOLLS`` gateway: waiting long-polls per client address
``AIRSHIP_GATEWAY_LIMITS_IDLE_MS`` gateway: the limits above hold across replicas, each taking requests and slots
                               from Redis ahead of need (docs/gateway.md); what a key leaves unused this long goes back
``AIRSHIP_GATEWAY_SOCKET_RPS`` gateway: messages per second on one WebSocket (bursts of 4 s worth)
``AIRSHIP_GATEWAY_TRUST_PROXY`` gateway: the number of proxies in front of it that append to X-Forwarded-For (0: none;
                               the client address is the entry that many from the right); an IPv6 client
                               counts per /64
``AIRSHIP_GATEWAY_BOT_FLAG_RPS`` gateway: requests per second per client address giving seats to bots (bursts of
                               20 s worth)
``AIRSHIP_GATEWAY_REGISTER_PER_HOUR`` gateway: player registrations per client address (an IPv6 address: per /64)
                               and hour, all at once at most (429 ``registration_quota``)
``AIRSHIP_RATED_CLOCK_S``     gateway: every rated (arena, ladder) match's time per decision; the third timeout in a
                               row forfeits (#29)
``AIRSHIP_ARENA_CLAIM_S``      gateway: a match the arena pairs begins only if each player collects its seat within
                               this long; else it is dissolved, the collected tickets queued again at the front
``AIRSHIP_ARENA_NO_SHOW_S``    gateway: a player who did not collect its arena seat in time may not queue for this
                               long (0: no bar)
``AIRSHIP_ARENA_TICKETS_PER_PLAYER`` gateway: open arena tickets per player (waiting, or matched to a match not
                               begun), all games together
``AIRSHIP_GATEWAY_MAX_CONNECTIONS`` gateway: open connections (HTTP and WebSocket) per process; more are closed on
                               arrival (0: the file-descriptor limit less a tenth, at least 64, of headroom)
``AIRSHIP_GATEWAY_ADDR_CONNECTIONS`` gateway: open connections per client address (an IPv6 address: per /64); more
                               are closed on arrival (0: max(64, file-descriptor limit / 16))
``AIRSHIP_GATEWAY_HEADER_TIMEOUT_S`` gateway: a connection's request head (line and headers) must be complete this
                               long after it opened or its first byte came; else the connection is closed
``AIRSHIP_GATEWAY_IDLE_TIMEOUT_S`` gateway: a keep-alive connection idle this long after a response is closed
``AIRSHIP_GATEWAY_MAX_SOCKETS`` gateway: open WebSockets per process; more are closed with 1013 (try again later)
``AIRSHIP_GATEWAY_WS_IDLE_S``  gateway: a WebSocket without a subscription this long is closed (1000)
``AIRSHIP_GATEWAY_WS_PING_S``  gateway: WebSocket ping interval; a peer whose pong is this late is dropped (0: none)
``AIRSHIP_ARCHIVE_DIR``        archive of finished matches (archiver writes, gateway reads; empty: none)
``AIRSHIP_ARCHIVE_GRACE_S``    archiver: a finished match stays in Redis this long before it is archived
``AIRSHIP_ARCHIVE_EVERY_S``    archiver: seconds between two passes over the finished matches
``AIRSHIP_OPEN_TTL_S``         archiver: an open match (a seat still free) is removed this long after its creation
                               (0: never)
``AIRSHIP_MAX_OPEN_MATCHES``   gateway: open matches at most (per partition: this / partitions, rounded up); a
                               creation beyond it is refused with 503 until some begin or expire (0: no limit)
``AIRSHIP_IDLE_MATCH_S``       archiver: a running match nobody moved in for this long is ended (event
                               ``MatchAbandoned``, rule ``expired``), then archived like any finished match
                               (0: never)
``AIRSHIP_REJECTED_KEPT``      per match: results of commands that changed nothing (rejections) kept in its
                               at-most-once record beyond one per event; past it they are only delivered live
``AIRSHIP_GATEWAY_ADDR_CREATES`` gateway: matches a client address may create without an API key at once (a burst)
``AIRSHIP_GATEWAY_ADDR_CREATES_PER_H`` gateway: ... and then per hour (429 ``quota_exceeded`` beyond)
``AIRSHIP_GATEWAY_PLAYER_CREATES`` gateway: matches a registered player (its API key) may create at once (a burst);
                               all players together may create 4 times that from one address
``AIRSHIP_GATEWAY_PLAYER_CREATES_PER_H`` gateway: ... and then per hour
=============================  =====================================================================

The defaults of the service loops (batch sizes, blocking and claiming) are defined here once, as the
constants below; :class:`WorkerSettings` (the worker's part of them) lives here too, so this module depends
on nothing of the pipeline: the pipeline imports settings, never the other way round.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, fields, replace
from typing import Any

from services.games.registry import load_game_modules
from services.keys import DEFAULT_PARTITIONS, Keys

# The defaults of the worker and projector loops, in one place (Settings, WorkerSettings and the projector).
WORKER_BATCH = 64  # commands a worker reads per batch
PROJECTOR_BATCH = 256  # feed entries a projector reads per batch
BLOCK_MS = 1000  # how long an idle read blocks
CLAIM_IDLE_MS = 30_000  # a pending entry idle this long belongs to a dead consumer
CLAIM_EVERY_S = 5.0  # how often a worker or projector looks for such entries
MAX_DELIVERIES = 5  # deliveries after which an entry is dead-lettered (a match: parked)
CONFLICT_RETRIES = 8  # version conflicts in a row before a worker leaves a command pending
LEASE_TTL_MS = 1500  # a worker's lease on a partition lapses this long after its last renewal (a dead worker's too)

_ENV = {
    "redis_url": "AIRSHIP_REDIS_URL",
    "partitions": "AIRSHIP_PARTITIONS",
    "key_prefix": "AIRSHIP_KEY_PREFIX",
    "metrics_port": "AIRSHIP_METRICS_PORT",
    "health_port": "AIRSHIP_HEALTH_PORT",
    "health_stale_s": "AIRSHIP_HEALTH_STALE_S",
    "redis_timeout_s": "AIRSHIP_REDIS_TIMEOUT_S",
    "worker_batch_size": "AIRSHIP_WORKER_BATCH",
    "projector_batch_size": "AIRSHIP_PROJECTOR_BATCH",
    "block_ms": "AIRSHIP_BLOCK_MS",
    "claim_idle_ms": "AIRSHIP_CLAIM_IDLE_MS",
    "claim_every_s": "AIRSHIP_CLAIM_EVERY_S",
    "max_deliveries": "AIRSHIP_MAX_DELIVERIES",
    "feed_maxlen": "AIRSHIP_FEED_MAXLEN",
    "results_maxlen": "AIRSHIP_RESULTS_MAXLEN",
    "append_replicas": "AIRSHIP_APPEND_REPLICAS",
    "append_wait_ms": "AIRSHIP_APPEND_WAIT_MS",
    "updates_maxlen": "AIRSHIP_UPDATES_MAXLEN",
    "live_maxlen": "AIRSHIP_LIVE_MAXLEN",
    "results_ttl_s": "AIRSHIP_RESULTS_TTL_S",
    "game_modules": "AIRSHIP_GAME_MODULES",
    "gateway_max_body": "AIRSHIP_GATEWAY_MAX_BODY",
    "gateway_token_rps": "AIRSHIP_GATEWAY_TOKEN_RPS",
    "gateway_addr_rps": "AIRSHIP_GATEWAY_ADDR_RPS",
    "gateway_sockets": "AIRSHIP_GATEWAY_SOCKETS",
    "gateway_redis_connections": "AIRSHIP_GATEWAY_REDIS_CONNECTIONS",
    "gateway_addr_sockets": "AIRSHIP_GATEWAY_ADDR_SOCKETS",
    "gateway_longpolls": "AIRSHIP_GATEWAY_LONGPOLLS",
    "gateway_addr_longpolls": "AIRSHIP_GATEWAY_ADDR_LONGPOLLS",
    "gateway_limits_idle_ms": "AIRSHIP_GATEWAY_LIMITS_IDLE_MS",
    "gateway_socket_rps": "AIRSHIP_GATEWAY_SOCKET_RPS",
    "gateway_trust_proxy": "AIRSHIP_GATEWAY_TRUST_PROXY",
    "gateway_bot_flag_rps": "AIRSHIP_GATEWAY_BOT_FLAG_RPS",
    "gateway_register_per_hour": "AIRSHIP_GATEWAY_REGISTER_PER_HOUR",
    "arena_claim_s": "AIRSHIP_ARENA_CLAIM_S",
    "rated_clock_s": "AIRSHIP_RATED_CLOCK_S",
    "arena_no_show_s": "AIRSHIP_ARENA_NO_SHOW_S",
    "arena_tickets_per_player": "AIRSHIP_ARENA_TICKETS_PER_PLAYER",
    "gateway_max_connections": "AIRSHIP_GATEWAY_MAX_CONNECTIONS",
    "gateway_addr_connections": "AIRSHIP_GATEWAY_ADDR_CONNECTIONS",
    "gateway_header_timeout_s": "AIRSHIP_GATEWAY_HEADER_TIMEOUT_S",
    "gateway_idle_timeout_s": "AIRSHIP_GATEWAY_IDLE_TIMEOUT_S",
    "gateway_max_sockets": "AIRSHIP_GATEWAY_MAX_SOCKETS",
    "gateway_ws_idle_s": "AIRSHIP_GATEWAY_WS_IDLE_S",
    "gateway_ws_ping_s": "AIRSHIP_GATEWAY_WS_PING_S",
    "archive_dir": "AIRSHIP_ARCHIVE_DIR",
    "archive_grace_s": "AIRSHIP_ARCHIVE_GRACE_S",
    "archive_every_s": "AIRSHIP_ARCHIVE_EVERY_S",
    "archive_purge_wait_s": "AIRSHIP_ARCHIVE_PURGE_WAIT_S",
    "archive_port": "AIRSHIP_ARCHIVE_PORT",
    "lease_ttl_ms": "AIRSHIP_LEASE_TTL_MS",
    "archive_url": "AIRSHIP_ARCHIVE_URL",
    "open_ttl_s": "AIRSHIP_OPEN_TTL_S",
    "max_open_matches": "AIRSHIP_MAX_OPEN_MATCHES",
    "idle_match_s": "AIRSHIP_IDLE_MATCH_S",
    "rejected_kept": "AIRSHIP_REJECTED_KEPT",
    "gateway_addr_creates": "AIRSHIP_GATEWAY_ADDR_CREATES",
    "gateway_addr_creates_per_h": "AIRSHIP_GATEWAY_ADDR_CREATES_PER_H",
    "gateway_player_creates": "AIRSHIP_GATEWAY_PLAYER_CREATES",
    "gateway_player_creates_per_h": "AIRSHIP_GATEWAY_PLAYER_CREATES_PER_H",
}


class SettingsError(ValueError):
    """An environment variable holds a value of the wrong kind."""


@dataclass(frozen=True, slots=True)
class WorkerSettings:
    """What a :class:`services.pipeline.worker.Worker` needs of the settings (:meth:`Settings.worker`)."""

    batch_size: int = WORKER_BATCH
    block_ms: int = BLOCK_MS
    max_deliveries: int = MAX_DELIVERIES
    claim_idle_ms: int = CLAIM_IDLE_MS
    claim_every_s: float = CLAIM_EVERY_S
    conflict_retries: int = CONFLICT_RETRIES
    open_ttl_s: float = 21_600.0  # match.purge removes an open match only past this age (AIRSHIP_OPEN_TTL_S; 0: never)
    lease_ttl_ms: int = LEASE_TTL_MS


@dataclass(frozen=True, slots=True)
class Settings:
    redis_url: str = "redis://127.0.0.1:6379/0"
    partitions: int = DEFAULT_PARTITIONS
    key_prefix: str = "airship"
    metrics_port: int = 0
    health_port: int = 0
    health_stale_s: float = 60.0
    redis_timeout_s: float = 3.0
    worker_batch_size: int = WORKER_BATCH
    projector_batch_size: int = PROJECTOR_BATCH
    block_ms: int = BLOCK_MS
    claim_idle_ms: int = CLAIM_IDLE_MS
    claim_every_s: float = CLAIM_EVERY_S
    max_deliveries: int = MAX_DELIVERIES
    feed_maxlen: int = 100_000
    append_replicas: int = 0  # WAIT for this many replicas before a worker acknowledges its appends
    append_wait_ms: int = 1000
    results_maxlen: int = 100  # live delivery only: a reader further behind asks the seen record
    updates_maxlen: int = 100
    live_maxlen: int = 20_000  # a gateway reader further behind is resynced from the records
    results_ttl_s: int = 86_400
    game_modules: str = ""
    gateway_max_body: int = 65_536
    gateway_token_rps: float = 50.0
    gateway_addr_rps: float = 200.0
    gateway_sockets: int = 4
    gateway_redis_connections: int = 64  # per gateway process (per node on a cluster), besides its live readers
    gateway_addr_sockets: int = 64
    gateway_longpolls: int = 8
    gateway_addr_longpolls: int = 64
    gateway_limits_idle_ms: int = 500
    gateway_socket_rps: float = 50.0
    gateway_trust_proxy: int = 0
    gateway_bot_flag_rps: float = 0.5
    gateway_register_per_hour: int = 20
    arena_claim_s: float = 60.0
    arena_no_show_s: float = 600.0
    rated_clock_s: float = 30.0  # every rated match's time per decision (schemas.clock.ARENA_CLOCK; tests shorten it)
    arena_tickets_per_player: int = 2
    gateway_max_connections: int = 0  # 0: from RLIMIT_NOFILE (services.gateway.conns.connection_limits)
    gateway_addr_connections: int = 0  # 0: from RLIMIT_NOFILE
    gateway_header_timeout_s: float = 10.0
    gateway_idle_timeout_s: int = 5  # uvicorn's keep-alive timeout (whole seconds, as uvicorn takes it)
    gateway_max_sockets: int = 20_000
    gateway_ws_idle_s: float = 60.0
    gateway_ws_ping_s: float = 20.0
    archive_dir: str = ""
    archive_grace_s: float = 86_400.0
    archive_every_s: float = 60.0
    archive_purge_wait_s: float = 10.0  # how long the archiver waits for a worker to decide its match.purge
    lease_ttl_ms: int = LEASE_TTL_MS
    archive_port: int = 0  # the archiver serves its archive files read-only over HTTP on this port (0: off)
    archive_url: str = ""  # the gateway reads archived matches from the archiver there (instead of archive_dir)
    open_ttl_s: float = 21_600.0
    max_open_matches: int = 20_000
    idle_match_s: float = 86_400.0
    rejected_kept: int = 256
    gateway_addr_creates: int = 20
    gateway_addr_creates_per_h: float = 60.0
    gateway_player_creates: int = 40
    gateway_player_creates_per_h: float = 240.0

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None, **overrides: Any) -> Settings:
        """Defaults, overridden by the environment, overridden by ``overrides`` (e.g. CLI flags; None
        values are ignored)."""
        env = os.environ if env is None else env
        values: dict[str, Any] = {}
        for f in fields(cls):
            raw = env.get(_ENV[f.name])
            if raw is None or raw == "":
                continue
            kind = type(getattr(cls(), f.name))
            try:
                values[f.name] = kind(raw)
            except ValueError as e:
                raise SettingsError(f"{_ENV[f.name]}={raw!r} is not a valid {kind.__name__}") from e
        values.update({k: v for k, v in overrides.items() if v is not None})
        settings = cls(**values)
        if settings.partitions < 1:
            raise SettingsError("AIRSHIP_PARTITIONS must be at least 1")
        return settings

    def with_(self, **changes: Any) -> Settings:
        return replace(self, **changes)

    @property
    def keys(self) -> Keys:
        return Keys(self.key_prefix, self.partitions)

    def worker(self) -> WorkerSettings:
        return WorkerSettings(batch_size=self.worker_batch_size, block_ms=self.block_ms,
                              max_deliveries=self.max_deliveries, claim_idle_ms=self.claim_idle_ms,
                              claim_every_s=self.claim_every_s, open_ttl_s=self.open_ttl_s,
                              lease_ttl_ms=self.lease_ttl_ms)

    def projector_options(self) -> dict[str, Any]:
        """The keyword arguments of :class:`services.pipeline.projector.Projector` from these settings."""
        return {"batch_size": self.projector_batch_size, "block_ms": self.block_ms,
                "claim_idle_ms": self.claim_idle_ms, "claim_every_s": self.claim_every_s,
                "max_deliveries": self.max_deliveries}

    def import_game_modules(self) -> None:
        """Register the games of ``AIRSHIP_GAME_MODULES`` (games beyond the built-in ones: test games, the
        benchmark game), so that a worker or projector process can serve them."""
        load_game_modules(self.game_modules)

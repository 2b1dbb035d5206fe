"""Prometheus metrics, one registry per process. ``serve(port)`` exposes them over HTTP."""

from __future__ import annotations

from prometheus_client import Counter, Gauge, Histogram, start_http_server

LATENCY_BUCKETS = (0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1.0)

COMMANDS = Counter("airship_commands_total", "Commands handled, by game and outcome", ["game", "outcome"])
DECIDE_SECONDS = Histogram("airship_decide_seconds", "Time to load state and decide", ["game"],
                           buckets=LATENCY_BUCKETS)
APPEND_SECONDS = Histogram("airship_append_seconds", "Time of the atomic append", buckets=LATENCY_BUCKETS)
CONFLICTS = Counter("airship_version_conflicts_total", "Appends refused for a stale version")
WORKER_PARTITIONS = Gauge("airship_worker_partitions", "Command partitions this worker reads (its share)")
REDELIVERIES = Counter("airship_redeliveries_total", "Commands delivered more than once")
DEAD_LETTERS = Counter("airship_dead_letters_total", "Commands sent to the dead-letter stream")
WORKER_ERRORS = Counter("airship_worker_errors_total", "Unexpected failures while handling a command")
STREAM_LAG = Gauge("airship_stream_lag", "Entries not yet delivered to the group", ["stream", "partition"])
EVENTS_PROJECTED = Counter("airship_events_projected_total", "Events applied to read models", ["game"])
VIEW_REBUILDS = Counter("airship_view_rebuilds_total", "Read models rebuilt from the log after a gap")
VIEWS_WRITTEN = Counter("airship_views_written_total", "View records written")


def serve(port: int) -> None:
    """Expose /metrics on ``port`` (0 disables)."""
    if port:
        start_http_server(port)

GATEWAY_REQUESTS = Counter("airship_gateway_requests_total", "HTTP requests answered, by route and status",
                           ["route", "status"])
GATEWAY_REQUEST_SECONDS = Histogram("airship_gateway_request_seconds", "HTTP request time by route", ["route"],
                                    buckets=LATENCY_BUCKETS)
GATEWAY_COMMANDS = Counter("airship_gateway_commands_total", "Commands published by the gateway")
GATEWAY_AUTH_FAILURES = Counter("airship_gateway_auth_failures_total", "Requests with a wrong seat token")
GATEWAY_RATE_LIMITED = Counter("airship_gateway_rate_limited_total", "Requests refused by a rate limit")
GATEWAY_STORE_FULL = Counter("airship_gateway_store_full_total",
                             "Requests and WebSocket commands refused because Redis is at maxmemory (store_full)")
GATEWAY_SOCKETS = Gauge("airship_gateway_websockets", "Open WebSocket connections")
GATEWAY_SOCKETS_REFUSED = Counter("airship_gateway_websockets_refused_total",
                                  "WebSockets closed with 1013 at once: the process holds AIRSHIP_GATEWAY_MAX_SOCKETS")
GATEWAY_CONNECTIONS = Gauge("airship_gateway_connections", "Open client connections (HTTP and WebSocket)")
GATEWAY_CONNECTIONS_REFUSED = Counter(
    "airship_gateway_connections_refused_total",
    "Connections closed on arrival, by reason (address: the client address's cap; capacity: the process's cap)",
    ["reason"])
GATEWAY_CONNECTIONS_TIMED_OUT = Counter(
    "airship_gateway_connections_timed_out_total",
    "Connections closed by a timeout, by kind (header: request head incomplete; idle: keep-alive idle; "
    "websocket: a WebSocket without a subscription)", ["kind"])
for _reason in ("address", "capacity"):
    GATEWAY_CONNECTIONS_REFUSED.labels(_reason)
for _kind in ("header", "idle", "websocket"):
    GATEWAY_CONNECTIONS_TIMED_OUT.labels(_kind)
GATEWAY_LIMIT_REFUSALS = Counter("airship_gateway_limit_refusals_total",
                                 "Requests, sockets and long-polls refused by a shared limit, by limit (token_rate, "
                                 "address_rate, token_sockets, address_sockets, token_longpolls, address_longpolls)",
                                 ["limit"])
GATEWAY_LIMITS_FLUSH_SECONDS = Histogram("airship_gateway_limits_flush_seconds",
                                         "Time of one flush of the gateway's limit counts to Redis (one round trip)",
                                         buckets=LATENCY_BUCKETS)
GATEWAY_LIMITS_FLUSH_FAILURES = Counter("airship_gateway_limits_flush_failures_total",
                                        "Flushes of the limit counts that failed (the gateway then limits locally)")
GATEWAY_LIMITS_LOCAL = Gauge("airship_gateway_limits_local",
                             "1 while the gateway limits on its own because Redis does not answer its flushes")
GATEWAY_LIMITS_REPLICAS = Gauge("airship_gateway_limits_replicas",
                                "Gateways sharing the limits at the last flush (this one included)")
ARENA_TICKETS = Counter("airship_arena_tickets_total", "Tickets queued in the arena, by game", ["game"])
ARENA_MATCHES = Counter("airship_arena_matches_total", "Rated matches the arena created for paired tickets, by game",
                        ["game"])
ARENA_REFUSED = Counter("airship_arena_refused_total",
                        "Arena tickets refused, by reason (player_limit, queue_full, no_show)", ["reason"])
ARENA_DISSOLVED = Counter("airship_arena_dissolved_total",
                          "Arena matches dissolved because a seat was not collected in time")
GATEWAY_HUBS = Gauge("airship_gateway_hubs", "Matches watched by this gateway (fed by its few live readers)")
GATEWAY_LIVE_ENTRIES = Counter("airship_gateway_live_entries_total",
                               "Results and view announcements this gateway read from the partitions' live streams")
GATEWAY_LIVE_READ_FAILURES = Counter("airship_gateway_live_read_failures_total",
                                     "Failed reads of the live streams (Redis unreachable); resynced once back")
GATEWAY_BATCH_CALLS = Histogram("airship_gateway_redis_batch_calls",
                                "Redis calls sent together in one pipeline by the gateway's group commit",
                                buckets=(1, 2, 4, 8, 16, 32, 64, 128, 256, 512))
GATEWAY_LIVE_LAG = Gauge("airship_gateway_live_lag_seconds",
                         "Age of the newest live entry when this gateway last read one (delivery delay)")

ARCHIVED_MATCHES = Counter("airship_archived_matches_total",
                           "Finished matches written to the archive and removed from Redis")
EXPIRED_OPEN_MATCHES = Counter("airship_expired_open_matches_total",
                               "Open matches nobody filled, removed by the archiver after AIRSHIP_OPEN_TTL_S")
EXPIRED_IDLE_MATCHES = Counter("airship_expired_idle_matches_total",
                               "Running matches nobody moved in for AIRSHIP_IDLE_MATCH_S, ended by the archiver's "
                               "system command (published; the worker decides it)")
PURGES = Counter("airship_purges_total",
                 "match.purge commands a worker decided, by outcome (deleted; gone; or refused: not_finished, "
                 "changed, started, young, kept, orphan, bad)", ["outcome"])
CLOCK_TIMEOUTS = Counter("airship_clock_timeouts_total",
                         "Deadlines that passed in clocked matches (#29), by game and what followed: stand_in (the "
                         "service's heuristic bot decided for the seat) or forfeit (the seat forfeited the match).",
                         ["game", "outcome"])
CLOCK_LATE_SECONDS = Histogram("airship_clock_late_seconds",
                               "How long after its deadline a timeout was decided (the sweep's delay).",
                               buckets=(0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60))
LOBBY_COMMANDS = Counter("airship_lobby_commands_total",
                         "match.create and match.join commands a worker decided (#35), by type and outcome (accepted, "
                         "or the rejection code: full, conflict, forbidden, arena_seat_lapsed, expired, ...)",
                         ["type", "outcome"])
ARCHIVE_ERRORS = Counter("airship_archive_errors_total", "Matches the archiver failed to archive (retried next pass)")

STREAM_PENDING = Gauge("airship_stream_pending", "Entries delivered to the group but not yet acknowledged",
                       ["stream", "partition"])
STREAM_OLDEST_PENDING = Gauge("airship_stream_oldest_pending_seconds",
                              "Age of the oldest delivered, unacknowledged entry (0 when none)",
                              ["stream", "partition"])
PROJECTOR_ERRORS = Counter("airship_projector_errors_total",
                           "Projector failures: a match's views that could not be built, an unreadable feed entry, "
                           "a failed loop pass")
PARKED_MATCHES = Gauge("airship_parked_matches", "Matches whose views the projector gave up building (parked)")
FEED_DEAD_LETTERS = Counter("airship_feed_dead_letters_total", "Feed entries sent to the feed dead-letter stream")

RATINGS_MATCHES_RATED = Counter("airship_ratings_matches_rated_total",
                                "Finished matches the ratings projector recorded (each once), by game", ["game"])
RATINGS_PUBLISH_SECONDS = Histogram("airship_ratings_publish_seconds",
                                    "Time to fold a game's rated matches and publish its ladder",
                                    buckets=(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 10.0))
RATINGS_ERRORS = Counter("airship_ratings_errors_total", "Failed passes of the ratings projector (retried)")
RATINGS_REBUILD_SECONDS = Gauge("airship_ratings_last_rebuild_seconds",
                                "How long the last `airship ratings rebuild` took (0: none recorded)")
RATINGS_REBUILD_TIMESTAMP = Gauge("airship_ratings_last_rebuild_timestamp_seconds",
                                  "When the last `airship ratings rebuild` finished (unix time; 0: none recorded)")

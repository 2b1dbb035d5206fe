"""Write the alerting rules of airship from one source, for both Prometheus setups:

- ``infra/prometheus/alerts.yml``: a Prometheus rule file, loaded by the compose Prometheus
  (``rule_files`` in infra/prometheus/prometheus.yml);
- ``k8s/components/monitoring/prometheusrule.yaml``: the same groups in a Prometheus Operator
  ``PrometheusRule`` (kube-prometheus / kube-prometheus-stack).

    python infra/alert_rules.py            # rewrite both
    python infra/alert_rules.py --check    # exit 1 when a checked-in file differs (tests run this)

Every alert has ``for:``, ``labels.severity``, ``annotations.summary`` and ``annotations.runbook_url`` (a
page under docs/runbooks/; tests/ops/test_alerts.py checks that it exists and that every metric an
expression names is one the processes export).

Several processes export the stream gauges (every worker reports every partition's lag), so the
expressions take the ``max`` per partition before they add the partitions up.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from infra.generated import write_or_check  # noqa: E402

# Where the runbooks are read: an absolute address, so that the link in Alertmanager and Grafana opens the page.
# The default is the repository's docs/runbooks as its host shows them; an operator who publishes the runbooks
# elsewhere (a wiki, an internal Git host) sets AIRSHIP_RUNBOOK_BASE_URL and regenerates the rules
# (``AIRSHIP_RUNBOOK_BASE_URL=https://git.example.org/airship/blob/main/docs/runbooks python infra/alert_rules.py``).
DEFAULT_RUNBOOK_BASE_URL = "https://github.com/airship-game/airship/blob/main/docs/runbooks"
RUNBOOKS = os.environ.get("AIRSHIP_RUNBOOK_BASE_URL", DEFAULT_RUNBOOK_BASE_URL).rstrip("/")
BACKLOG_THRESHOLD = 200  # commands waiting (lag + pending): ten workers' worth at KEDA's target of 20
LARGE_BACKLOG = 2000  # commands waiting, flat or not: players wait seconds for their results
REDIS_MEMORY_WARN = 0.90  # of maxmemory (noeviction: at 1.0 Redis refuses every write that grows memory)
REDIS_MEMORY_CRITICAL = 0.98
GATEWAY_5XX_SHARE = 0.05
GATEWAY_P99_S = 1.0
# Routes that wait on purpose (long-polls up to wait_s): their time is the client's choice, not latency.
LONG_POLL_ROUTES = "/matches/{match_id}/views/.*|/matches/{match_id}/commands/{key}"


def per_partition(metric: str, stream: str) -> str:
    return f'sum(max by (partition) ({metric}{{stream="{stream}"}}))'


# Recording rules: the backlog of the command streams, the number KEDA scales the workers on.
RECORDS: list[dict[str, str]] = [
    {"record": "airship:commands_lag", "expr": per_partition("airship_stream_lag", "commands")},
    {"record": "airship:commands_pending", "expr": per_partition("airship_stream_pending", "commands")},
    {"record": "airship:commands_backlog",
     "expr": "(airship:commands_lag or vector(0)) + (airship:commands_pending or vector(0))"},
    {"record": "airship:commands_handled:rate5m", "expr": "sum(rate(airship_commands_total[5m]))"},
]


def alert(name: str, expr: str, for_: str, severity: str, summary: str, description: str,
          runbook: str) -> dict[str, Any]:
    return {
        "alert": name,
        "expr": expr,
        "for": for_,
        "labels": {"severity": severity},
        "annotations": {"summary": summary, "description": description, "runbook_url": f"{RUNBOOKS}/{runbook}"},
    }


ALERTS: list[dict[str, Any]] = [
    alert("AirshipCommandBacklogGrowing",
          f"deriv(airship:commands_backlog[10m]) > 0 and airship:commands_backlog > {BACKLOG_THRESHOLD}",
          "10m", "warning",
          "The command backlog has grown for 10 minutes and is above " + str(BACKLOG_THRESHOLD),
          "{{ $value | humanize }} commands per second more arrive than the workers handle. Check that KEDA "
          "scales the workers (ScaledObject airship-worker, its fallback condition) and that they are not "
          "at maxReplicaCount.",
          "backlog.md#the-backlog-grows"),
    alert("AirshipOldestPendingTooOld",
          "max by (stream, partition) (airship_stream_oldest_pending_seconds) > 60",
          "2m", "warning",
          "An entry of {{ $labels.stream }} partition {{ $labels.partition }} has been pending for over 60 s",
          "Delivered, never acknowledged for {{ $value | humanizeDuration }}: a consumer died holding it or "
          "is stuck. Live consumers claim it after the claim idle time.",
          "backlog.md#an-entry-stays-pending"),
    alert("AirshipCommandDeadLetters",
          "sum(increase(airship_dead_letters_total[10m])) > 0",
          "1m", "warning",
          "Commands were sent to the dead-letter streams",
          "{{ $value | humanize }} commands in 10 minutes failed repeatedly and were moved to {p}:dead.",
          "dead-letters.md"),
    alert("AirshipFeedDeadLetters",
          "sum(increase(airship_feed_dead_letters_total[10m])) > 0",
          "1m", "warning",
          "Feed entries were sent to the feed dead-letter streams",
          "{{ $value | humanize }} feed entries in 10 minutes could not be read by the projectors "
          "({p}:feed-dead).",
          "dead-letters.md"),
    alert("AirshipProjectorErrors",
          "sum(rate(airship_projector_errors_total[1m])) > 0",
          "5m", "warning",
          "The projectors keep failing",
          "Projector errors in every minute for 5 minutes ({{ $value | humanize }}/s now): views fall behind or "
          "matches get parked. Read the projector logs. (A burst that ends does not fire: the rate is taken over "
          "1 minute, so the condition must hold through the whole 5 minutes.)",
          "backlog.md#the-projectors-fail"),
    alert("AirshipParkedMatches",
          "max(airship_parked_matches) > 0",
          "5m", "warning",
          "{{ $value }} matches are parked: the projector gave up building their views",
          "Their players see stale views until the matches are rebuilt and unparked.",
          "dead-letters.md"),
    alert("AirshipNoProgress",
          "(airship:commands_handled:rate5m or vector(0)) == 0 and airship:commands_backlog > 0",
          "5m", "critical",
          "Commands are waiting and no worker has handled one for 5 minutes",
          "Commands wait (lag + pending) and airship_commands_total has not moved: the workers are down, "
          "stuck, or cannot reach Redis.",
          "backlog.md#no-progress"),
    alert("AirshipCommandBacklogLarge",
          f"airship:commands_backlog > {LARGE_BACKLOG}",
          "15m", "warning",
          f"Over {LARGE_BACKLOG} commands have been waiting for 15 minutes",
          "{{ $value | humanize }} commands wait (lag + pending), growing or not: the workers keep up with what "
          "arrives but never catch up, so every player waits behind the backlog.",
          "backlog.md#the-backlog-stays-large"),
    alert("AirshipWorkersGone",
          'absent(airship_stream_lag{stream="commands"})',
          "3m", "critical",
          "No worker reports to Prometheus: nobody decides commands",
          "Every worker reports the lag of every command stream; none has for 3 minutes. All workers are down, "
          "or Prometheus cannot reach any (scrape targets, NetworkPolicy). The backlog alerts cannot fire "
          "without them.",
          "workers.md#no-worker-reports"),
    alert("AirshipWorkerErrors",
          "sum(rate(airship_worker_errors_total[2m])) > 0",
          "10m", "warning",
          "The workers keep failing to handle commands",
          "Worker errors in every 2 minutes for 10 minutes ({{ $value | humanize }}/s now): commands are "
          "redelivered and end in the dead letters.",
          "workers.md#the-workers-fail"),
    alert("AirshipProjectorStalled",
          '(sum(rate(airship_events_projected_total[5m])) or vector(0)) == 0 '
          'and sum(max by (partition) (airship_stream_lag{stream="feed"})) > 0 '
          'and (sum(max by (partition) (airship_stream_pending{stream="feed"})) or vector(0)) == 0',
          "10m", "critical",
          "Feed entries wait and no projector has projected one for 10 minutes",
          "{{ $value | humanize }} feed entries are undelivered, nothing is pending and no event was projected: "
          "the projectors are not reading (stuck loop, lost consumer group). Views and results stop updating.",
          "backlog.md#the-projectors-stall"),
    alert("AirshipArchiverErrors",
          "sum(rate(airship_archive_errors_total[5m])) > 0",
          "15m", "warning",
          "The archiver keeps failing",
          "Archive errors in every 5 minutes for 15 minutes: finished matches stay in Redis and its memory grows "
          "(no worker to purge them, the archive volume full or unwritable).",
          "archiver.md#the-archiver-fails"),
    alert("AirshipGatewayErrors",
          'sum(rate(airship_gateway_requests_total{status=~"5.."}[5m])) '
          f'/ sum(rate(airship_gateway_requests_total[5m])) > {GATEWAY_5XX_SHARE}',
          "5m", "critical",
          f"Over {GATEWAY_5XX_SHARE:.0%} of the gateway's answers are server errors",
          "{{ $value | humanizePercentage }} of the requests get a 5xx (503: Redis unavailable or full, or the "
          "gateway at a connection cap; 500: a bug).",
          "gateway.md#server-errors"),
    alert("AirshipGatewayLatency",
          "histogram_quantile(0.99, sum by (le) (rate(airship_gateway_request_seconds_bucket"
          f'{{route!~"{LONG_POLL_ROUTES}"}}[5m]))) > {GATEWAY_P99_S}',
          "10m", "warning",
          f"The gateway's p99 latency has been over {GATEWAY_P99_S:g} s for 10 minutes",
          "p99 {{ $value | humanizeDuration }} over every route but the long-polls (views and a command's "
          "result with wait_s). A command's POST waits for its result: slow workers or Redis show here first.",
          "gateway.md#slow-answers"),
    alert("AirshipRedisDown",
          "max(redis_up) == 0 or absent(redis_up)",
          "1m", "critical",
          "Redis does not answer (or its exporter is gone)",
          "redis_exporter cannot reach Redis, or Prometheus cannot reach the exporter: nothing can be played.",
          "redis.md#redis-is-down"),
    alert("AirshipRedisMemoryHigh",
          f"max(redis_memory_used_bytes / (redis_memory_max_bytes > 0)) > {REDIS_MEMORY_WARN}",
          "5m", "warning",
          f"Redis uses over {REDIS_MEMORY_WARN:.0%} of maxmemory",
          "{{ $value | humanizePercentage }} of maxmemory: at the limit (noeviction) Redis refuses new matches "
          "and commands.",
          "redis.md#memory-near-maxmemory"),
    alert("AirshipRedisFull",
          f"max(redis_memory_used_bytes / (redis_memory_max_bytes > 0)) > {REDIS_MEMORY_CRITICAL}",
          "1m", "critical",
          "Redis is at maxmemory: it refuses writes",
          "{{ $value | humanizePercentage }} of maxmemory: new matches and commands get 507 store_full.",
          "redis.md#memory-near-maxmemory"),
    alert("AirshipRedisPersistenceFailing",
          "max(1 - redis_aof_last_write_status) > 0 or max(1 - redis_aof_last_bgrewrite_status) > 0 "
          "or max(1 - redis_rdb_last_bgsave_status) > 0",
          "2m", "critical",
          "Redis cannot write its AOF or RDB snapshot",
          "A failed AOF write makes Redis refuse writes (MISCONF); a failed rewrite or snapshot leaves no "
          "fresh copy to restore from.",
          "redis.md#persistence-fails"),
]

GROUPS: list[dict[str, Any]] = [
    {"name": "airship.records", "interval": "30s", "rules": RECORDS},
    {"name": "airship.alerts", "rules": ALERTS},
]


def prometheus_rule() -> dict[str, Any]:
    return {
        "apiVersion": "monitoring.coreos.com/v1",
        "kind": "PrometheusRule",
        "metadata": {"name": "airship", "labels": {"app.kubernetes.io/part-of": "airship"}},
        "spec": {"groups": GROUPS},
    }


def _dump(data: Any) -> str:
    import yaml

    text: str = yaml.safe_dump(data, sort_keys=False, width=120, allow_unicode=True)
    return text


def outputs() -> dict[Path, str]:
    header = "# Generated by infra/alert_rules.py: do not edit by hand (python infra/alert_rules.py).\n"
    return {
        ROOT / "infra" / "prometheus" / "alerts.yml": header + _dump({"groups": GROUPS}),
        ROOT / "k8s" / "components" / "monitoring" / "prometheusrule.yaml": header + _dump(prometheus_rule()),
    }


def main(argv: list[str] | None = None) -> int:
    return write_or_check(outputs(), "alert_rules.py", __doc__, argv)

if __name__ == "__main__":
    sys.exit(main())

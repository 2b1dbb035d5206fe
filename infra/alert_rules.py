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

import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from infra.generated import write_or_check  # noqa: E402

# Where the runbooks are read. The repository path as shipped; an operator who browses the repository at
# some address sets that address here (e.g. https://git.example.org/airship/blob/main/docs/runbooks) and
# regenerates the rules.
RUNBOOKS = "docs/runbooks"
BACKLOG_THRESHOLD = 200  # commands waiting (lag + pending): ten workers' worth at KEDA's target of 20


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
          "sum(rate(airship_projector_errors_total[5m])) > 0",
          "5m", "warning",
          "The projectors keep failing",
          "{{ $value | humanize }} projector errors per second for 5 minutes: views fall behind or matches "
          "get parked. Read the projector logs.",
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

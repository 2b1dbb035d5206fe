"""The Grafana dashboard asks only for metrics the processes really export: the metrics endpoint is
served over HTTP in this process (as ``metrics.serve`` does in a worker), a match is played through the
in-process pipeline so the worker and projector record real samples, and the scrape is parsed."""

from __future__ import annotations

import json
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest
from prometheus_client import start_http_server
from prometheus_client.parser import text_string_to_metric_families

from services import metrics
from services.bots.base import RandomBot
from services.bots.runner import play_match
from services.pipeline.inprocess import InProcess
from tests.ops.conftest import ROOT, free_port
from tests.ops.promql import label_names, metric_names

DASHBOARD = ROOT / "infra" / "grafana" / "dashboards" / "airship.json"
# Labels Prometheus attaches to every scraped series (target labels), and the histogram bucket label.
TARGET_LABELS = {"job", "instance", "namespace", "pod", "service", "container", "endpoint", "le"}


@pytest.fixture(scope="module")
def scrape() -> Iterator[dict[str, set[str]]]:
    """Sample name -> its label names, from a live /metrics scrape."""
    play_match(InProcess(partitions=2).client(), "nim", 2, [RandomBot(s) for s in range(2)], seed=1)
    # What a match does not touch: the lag gauge (set by the worker's lag poll) and the labelled
    # metrics of paths a healthy match never takes.
    metrics.STREAM_LAG.labels("commands", "0").set(0)
    metrics.STREAM_LAG.labels("feed", "0").set(0)
    for stream in ("commands", "feed"):  # set by the same polls (XPENDING summary)
        metrics.STREAM_PENDING.labels(stream, "0").set(0)
        metrics.STREAM_OLDEST_PENDING.labels(stream, "0").set(0)
    metrics.RATINGS_MATCHES_RATED.labels("nim").inc(0)  # (the ratings projector's, not run here)
    metrics.ARENA_TICKETS.labels("nim").inc(0)  # (the arena's, at the gateway: not run here)
    metrics.ARENA_MATCHES.labels("nim").inc(0)
    metrics.ARENA_REFUSED.labels("queue_full").inc(0)
    metrics.PURGES.labels("purged").inc(0)  # (a worker's, on the archiver's match.purge: not run here)
    # The gateway's request metrics, recorded by its middleware on a real request (no Redis needed for /games).
    from fastapi.testclient import TestClient

    from services.gateway.app import create_app
    from services.settings import Settings

    with TestClient(create_app(Settings())) as gateway:
        assert gateway.get("/games").status_code == 200
    port = free_port()
    server, thread = start_http_server(port, addr="127.0.0.1")
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5) as response:
            text = response.read().decode()
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)
    samples: dict[str, set[str]] = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            samples.setdefault(sample.name, set()).update(sample.labels)
    yield samples


def expressions() -> list[str]:
    def walk(panels: list[dict[str, Any]]) -> Iterator[str]:
        for panel in panels:
            yield from (t["expr"] for t in panel.get("targets", []) if t.get("expr"))
            yield from walk(panel.get("panels", []))

    return list(walk(json.loads(DASHBOARD.read_text())["panels"]))


def test_the_dashboard_has_the_panels_the_issue_asks_for() -> None:
    text = " ".join(expressions())
    for metric in ("airship_commands_total", "airship_decide_seconds_bucket", "airship_append_seconds_bucket",
                   "airship_version_conflicts_total", "airship_redeliveries_total", "airship_dead_letters_total",
                   "airship_stream_lag"):
        assert metric in text
    assert "sum by (game, outcome)" in text and "max by (partition)" in text and "histogram_quantile(0.99" in text


@pytest.mark.parametrize("expr", expressions())
def test_every_metric_in_the_dashboard_is_exported(expr: str, scrape: dict[str, set[str]]) -> None:
    names = metric_names(expr)
    assert names, f"no metric found in {expr!r}"
    # The Redis row reads redis_exporter (oliver006/redis_exporter, the compose service redis-exporter), not
    # an airship process: its redis_* series are not in this scrape.
    names = {n for n in names if not n.startswith("redis_")}
    if not names:
        return
    missing = names - set(scrape)
    assert not missing, f"{expr!r} names {sorted(missing)}, which no process exports"
    known_labels = {label for n in names for label in scrape[n]} | TARGET_LABELS
    unknown = label_names(expr) - known_labels
    assert not unknown, f"{expr!r} uses labels {sorted(unknown)} that {sorted(names)} do not carry"


def base(sample: str) -> str:
    for suffix in ("_bucket", "_sum", "_count", "_total"):
        sample = sample.removesuffix(suffix)
    return sample


def test_every_exported_airship_metric_is_on_the_dashboard(scrape: dict[str, set[str]]) -> None:
    shown = {base(n) for e in expressions() for n in metric_names(e)}
    exported = {base(n) for n in scrape if n.startswith("airship_") and not n.endswith("_created")}
    assert exported <= shown, f"exported but not on the dashboard: {sorted(exported - shown)}"


def test_panels_use_the_provisioned_datasource() -> None:
    dash = json.loads(DASHBOARD.read_text())
    provisioned = (ROOT / "infra" / "grafana" / "provisioning" / "datasources" / "prometheus.yml").read_text()
    assert "uid: prometheus" in provisioned
    variable = next(v for v in dash["templating"]["list"] if v["type"] == "datasource")
    assert variable["query"] == "prometheus"
    ids = [p["id"] for p in dash["panels"]]
    assert len(ids) == len(set(ids))

"""The alerting rules (infra/alert_rules.py -> infra/prometheus/alerts.yml for compose and the
PrometheusRule of k8s/components/monitoring): fresh, the same in both places, each alert with ``for:``,
a severity, a summary and a runbook that exists, and every metric an expression names is one the
processes export (or a recording rule of the same file). With promtool installed (Debian: prometheus)
the file is also checked and unit-tested by promtool itself."""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import subprocess
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
import yaml
from prometheus_client import Counter, Gauge, Histogram, Summary

from services import metrics
from tests.ops.conftest import ROOT
from tests.ops.manifests import build, objects, one
from tests.ops.promql import label_names, metric_names

RULES = ROOT / "infra" / "prometheus" / "alerts.yml"
PROMETHEUS_RULE = ROOT / "k8s" / "components" / "monitoring" / "prometheusrule.yaml"
RUNBOOKS = ROOT / "docs" / "runbooks"
# Labels Prometheus attaches to every scraped series (target labels).
TARGET_LABELS = {"job", "instance", "namespace", "pod", "service", "container", "endpoint"}
# What the issue asks to alert on: each of these metrics is in some alert.
ASKED = {"airship_stream_oldest_pending_seconds", "airship_dead_letters_total", "airship_feed_dead_letters_total",
         "airship_projector_errors_total", "airship_parked_matches", "airship_commands_total",
         "airship_stream_lag", "airship_stream_pending"}


# What the rules read from redis_exporter (the compose service redis-exporter, the k8s Deployment
# airship-redis-exporter), not an airship process; tests/ops/test_scrape.py scrapes a real exporter for them.
REDIS_EXPORTER = {"redis_up", "redis_memory_used_bytes", "redis_memory_max_bytes", "redis_aof_last_write_status",
                  "redis_aof_last_bgrewrite_status", "redis_rdb_last_bgsave_status"}


def generator() -> ModuleType:
    spec = importlib.util.spec_from_file_location("alert_rules", ROOT / "infra" / "alert_rules.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def groups() -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = yaml.safe_load(RULES.read_text())["groups"]
    return found


def rules() -> list[dict[str, Any]]:
    return [rule for group in groups() for rule in group["rules"]]


def alerts() -> list[dict[str, Any]]:
    return [rule for rule in rules() if "alert" in rule]


def exported() -> dict[str, set[str]]:
    """Series name -> label names, of every metric services/metrics.py defines."""
    found: dict[str, set[str]] = {}
    for value in vars(metrics).values():
        if not isinstance(value, (Counter, Gauge, Histogram, Summary)):
            continue
        name, labels = value._name, set(value._labelnames)
        if isinstance(value, Counter):
            found[f"{name}_total"] = labels
        elif isinstance(value, Histogram):
            found.update({f"{name}_bucket": labels | {"le"}, f"{name}_sum": labels, f"{name}_count": labels})
        elif isinstance(value, Summary):
            found.update({f"{name}_sum": labels, f"{name}_count": labels})
        else:
            found[name] = labels
    return found


def test_generated_files_are_fresh() -> None:
    assert generator().main(["--check"]) == 0, "run: python infra/alert_rules.py"


def test_compose_and_kubernetes_have_the_same_rules() -> None:
    rule = yaml.safe_load(PROMETHEUS_RULE.read_text())
    assert (rule["apiVersion"], rule["kind"]) == ("monitoring.coreos.com/v1", "PrometheusRule")
    assert rule["spec"]["groups"] == groups()


def test_the_production_overlays_carry_the_prometheus_rule() -> None:
    for overlay in ("production", "production-hpa"):
        docs = build(overlay)
        assert one(docs, "PrometheusRule", "airship")["spec"]["groups"] == groups()
    assert not objects(build("dev"), "PrometheusRule")


def test_compose_prometheus_loads_the_rule_file() -> None:
    config = yaml.safe_load((ROOT / "infra" / "prometheus" / "prometheus.yml").read_text())
    assert "/etc/prometheus/alerts.yml" in config["rule_files"]


@pytest.mark.parametrize("rule", alerts(), ids=lambda r: r["alert"])
def test_every_alert_has_a_severity_a_summary_a_runbook_and_a_for(rule: dict[str, Any]) -> None:
    assert re.fullmatch(r"\d+[smh]", rule["for"]) and rule["for"] != "0s", rule["for"]
    assert rule["labels"]["severity"] in {"warning", "critical"}
    annotations = rule["annotations"]
    assert annotations["summary"].strip()
    url = annotations["runbook_url"]
    assert re.match(r"https?://[^/]+/", url), f"{rule['alert']}: runbook URL {url!r} is not absolute"
    prefix = generator().RUNBOOKS + "/"
    assert url.startswith(prefix), url
    page, _, anchor = url.removeprefix(prefix).partition("#")
    path = RUNBOOKS / page
    assert path.is_file(), f"{rule['alert']}: runbook {path.relative_to(ROOT)} does not exist"
    if anchor:
        assert anchor in headings(path), f"{rule['alert']}: no heading #{anchor} in {page}"


def test_every_runbook_is_linked_by_an_alert_or_the_operations_guide() -> None:
    linked = {a["annotations"]["runbook_url"].rsplit("/", 1)[1].partition("#")[0] for a in alerts()}
    guide = (ROOT / "docs" / "operations.md").read_text()
    for page in RUNBOOKS.glob("*.md"):
        assert page.name in linked or f"runbooks/{page.name}" in guide, page.name


def test_the_runbook_address_is_a_setting(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AIRSHIP_RUNBOOK_BASE_URL", "https://wiki.example.org/ops/airship/")
    module = generator()
    assert module.RUNBOOKS == "https://wiki.example.org/ops/airship"
    urls = [a["annotations"]["runbook_url"] for a in module.ALERTS]
    assert urls and all(u.startswith("https://wiki.example.org/ops/airship/") for u in urls)


def headings(path: Path) -> set[str]:
    """GitHub's anchors of a Markdown file's headings."""
    found = set()
    for line in path.read_text().splitlines():
        if line.startswith("#"):
            title = line.lstrip("#").strip().lower()
            found.add(re.sub(r"[^\w\- ]", "", title).replace(" ", "-"))
    return found


@pytest.mark.parametrize("rule", rules(), ids=lambda r: r.get("alert") or r["record"])
def test_every_metric_in_a_rule_is_exported_or_recorded(rule: dict[str, Any]) -> None:
    known = exported()
    recorded = {r["record"] for r in rules() if "record" in r}
    names = metric_names(rule["expr"])
    assert names, rule["expr"]
    missing = names - set(known) - recorded - REDIS_EXPORTER
    assert not missing, f"{rule['expr']!r} names {sorted(missing)}, which no process exports"
    carried = {label for n in names & set(known) for label in known[n]} | TARGET_LABELS
    unknown = label_names(rule["expr"]) - carried
    assert not unknown, f"{rule['expr']!r} uses labels {sorted(unknown)} that {sorted(names)} do not carry"


def test_the_alerts_cover_what_the_issue_asks_for() -> None:
    recorded = {r["record"]: r["expr"] for r in rules() if "record" in r}

    def expand(expr: str) -> set[str]:
        return {m for n in metric_names(expr) for m in (expand(recorded[n]) if n in recorded else {n})}

    named = {m for rule in alerts() for m in expand(rule["expr"])}
    assert named >= ASKED, ASKED - named
    names = {rule["alert"] for rule in alerts()}
    assert {"AirshipCommandBacklogGrowing", "AirshipOldestPendingTooOld", "AirshipCommandDeadLetters",
            "AirshipFeedDeadLetters", "AirshipProjectorErrors", "AirshipParkedMatches", "AirshipNoProgress",
            # issue #32
            "AirshipRedisMemoryHigh", "AirshipRedisFull", "AirshipRedisDown", "AirshipRedisPersistenceFailing",
            "AirshipWorkersGone", "AirshipGatewayErrors", "AirshipGatewayLatency", "AirshipProjectorStalled",
            "AirshipCommandBacklogLarge", "AirshipArchiverErrors", "AirshipWorkerErrors"} <= names
    assert {rule["alert"]: rule["labels"]["severity"] for rule in alerts()}["AirshipNoProgress"] == "critical"


# -- promtool -----------------------------------------------------------------------------------------------

PROMTOOL_TESTS = Path(__file__).with_name("alerts_test.yml")


def promtool() -> str:
    """promtool from infra/dev/install-prometheus-tools.sh's install (make test runs it), else PATH. Under CI a missing
    promtool fails instead of skipping."""
    home = Path(os.environ.get("AIRSHIP_PROMTOOL_HOME")
                or Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "airship" / "prometheus")
    found = str(home / "bin" / "promtool") if (home / "bin" / "promtool").exists() else shutil.which("promtool")
    if found is None:
        if os.environ.get("CI"):
            pytest.fail("promtool is not installed: bash infra/dev/install-prometheus-tools.sh (make test runs it)")
        pytest.skip("promtool is not installed: bash infra/dev/install-prometheus-tools.sh (make test runs it)")
    return found


def test_promtool_accepts_the_rules() -> None:
    done = subprocess.run([promtool(), "check", "rules", str(RULES)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stdout + done.stderr


def test_every_alert_has_a_unit_test_that_fires_and_one_that_does_not() -> None:
    cases = [case for test in yaml.safe_load(PROMTOOL_TESTS.read_text())["tests"]
             for case in test.get("alert_rule_test", [])]
    for rule in alerts():
        name = rule["alert"]
        assert any(c["alertname"] == name and c["exp_alerts"] for c in cases), f"{name}: no case where it fires"
        assert any(c["alertname"] == name and not c["exp_alerts"] for c in cases), f"{name}: no case where it is quiet"


def test_promtool_unit_tests_of_every_alert(tmp_path: Path) -> None:
    # The same rules without their annotations (promtool would compare the expanded texts too).
    bare = [{**group, "rules": [{k: v for k, v in rule.items() if k != "annotations"} for rule in group["rules"]]}
            for group in groups()]
    (tmp_path / "alerts.yml").write_text(yaml.safe_dump({"groups": bare}))
    tests = tmp_path / PROMTOOL_TESTS.name
    tests.write_text(PROMTOOL_TESTS.read_text())
    done = subprocess.run([promtool(), "test", "rules", str(tests)], capture_output=True, text=True, timeout=120,
                          cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr

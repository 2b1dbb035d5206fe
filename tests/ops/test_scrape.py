"""Everything the dashboard and the alerting rules name is exported by some process that a scrape job reaches,
in docker compose (infra/prometheus/prometheus.yml) and on Kubernetes (the ServiceMonitor and the Services of
the production overlay) — issue #32: the archiver was scraped by neither, so "Archived matches" read 0, and
Kubernetes deployed no redis_exporter although the dashboard has a Redis row.

Which process exports an airship metric is read from the code: the modules that set it (``metrics.NAME``) and
the process each module runs in. Every process registers every metric family, so a scrape of any one of them
names them all; only the owner's values are real. The redis_* names are checked against a real redis_exporter
(Debian's, unpacked by infra/dev/install-prometheus-tools.sh) scraping a Redis with the shipped config as the
``exporter`` user.
"""

from __future__ import annotations

import ast
import json
import os
import re
import subprocess
import time
import urllib.request
from pathlib import Path
from typing import Any

import pytest
import yaml

from services import metrics
from tests.ops.conftest import ROOT, free_port
from tests.ops.manifests import build, objects, one
from tests.ops.promql import metric_names
from tests.ops.test_alerts import REDIS_EXPORTER, exported, rules

DASHBOARD = ROOT / "infra" / "grafana" / "dashboards" / "airship.json"
PROMETHEUS = ROOT / "infra" / "prometheus" / "prometheus.yml"
COMPOSE = ROOT / "docker-compose.yml"

# The process each module that sets metrics runs in (a module not listed fails the test: give it a process).
PROCESS_OF = {"services/gateway/": {"gateway"}, "services/pipeline/worker.py": {"worker"},
              "services/pipeline/clocks.py": {"worker"},
              "services/pipeline/projector.py": {"projector"}, "services/cli/serve.py": {"projector"},
              "services/archive/": {"archiver"}, "services/ratings/": {"ratings"},
              "services/readmodels/": {"ratings"}}  # (the read-model kit: run by the ratings projector)
AIRSHIP = {"gateway", "worker", "projector", "archiver", "ratings"}
EXPORTER = "redis-exporter"


def owners() -> dict[str, set[str]]:
    """Series name -> the processes whose code sets it. prometheus_client's own process_* and python_* series
    come from every process."""
    series_of: dict[str, set[str]] = {}
    for attr, value in vars(metrics).items():
        name = getattr(value, "_name", None)
        if name is None:
            continue
        series_of[attr] = {s for s in exported() if s == name or s.startswith(name + "_")}
    found: dict[str, set[str]] = {}
    for path in sorted((ROOT / "services").rglob("*.py")):
        rel = path.relative_to(ROOT).as_posix()
        if rel == "services/metrics.py" or rel.startswith("services/bench/"):
            continue
        used = {node.attr for node in ast.walk(ast.parse(path.read_text()))
                if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "metrics"
                and node.attr in series_of}
        if not used:
            continue
        kinds = next((k for prefix, k in PROCESS_OF.items() if rel.startswith(prefix)), None)
        assert kinds is not None, f"{rel} sets {sorted(used)}: name its process in PROCESS_OF"
        for attr in used:
            for series in series_of[attr]:
                found.setdefault(series, set()).update(kinds)
    return found


def owner_of(name: str, found: dict[str, set[str]]) -> set[str]:
    if name.startswith("redis_"):
        return {EXPORTER}
    if name.startswith(("process_", "python_")):
        return set(AIRSHIP)
    return found.get(name, set())


def named() -> dict[str, str]:
    """Every series name the dashboard's queries and the rules name (recorded names expanded) -> where."""
    recorded = {r["record"]: r["expr"] for r in rules() if "record" in r}

    def expand(expr: str) -> set[str]:
        return {m for n in metric_names(expr) for m in (expand(recorded[n]) if n in recorded else {n})}

    out: dict[str, str] = {}
    for rule in rules():
        for name in expand(rule["expr"]):
            out.setdefault(name, f"rule {rule.get('alert') or rule.get('record')}")

    def exprs(node: Any) -> list[str]:
        if isinstance(node, dict):
            return [v for k, v in node.items() if k == "expr" and isinstance(v, str)] + \
                [e for v in node.values() for e in exprs(v)]
        if isinstance(node, list):
            return [e for v in node for e in exprs(v)]
        return []

    for expr in exprs(json.loads(DASHBOARD.read_text())):
        for name in expand(expr.replace("$__rate_interval", "5m").replace("$__interval", "1m")):
            out.setdefault(name, "the dashboard")
    return out


def compose_reached() -> dict[str, set[str]]:
    """Scrape job -> the processes it reaches, checked: each DNS name or target is a compose service, on the port
    that service serves metrics on."""
    compose = yaml.safe_load(COMPOSE.read_text())["services"]
    anchors = yaml.safe_load(COMPOSE.read_text())
    reached: dict[str, set[str]] = {}
    for job in yaml.safe_load(PROMETHEUS.read_text())["scrape_configs"]:
        targets = [(n, sd["port"]) for sd in job.get("dns_sd_configs", []) for n in sd["names"]]
        targets += [tuple(t.split(":")) for sc in job.get("static_configs", []) for t in sc["targets"]]
        for host, port in targets:
            if host not in compose:
                continue
            service = compose[host]
            command = service.get("command") or []
            if "redis_exporter" in service.get("image", ""):
                kind, serves = EXPORTER, 9121
            elif command[:1] == ["airship"]:
                kind = command[1]
                env = {**anchors.get("x-airship-env", {}), **(service.get("environment") or {})}
                metrics_port = int(env.get("AIRSHIP_METRICS_PORT", 0))
                serves = metrics_port or int(command[command.index("--port") + 1]) if "--port" in command \
                    else metrics_port
            else:
                continue
            assert int(port) == serves, f"job {job['job_name']}: {host} serves metrics on {serves}, not {port}"
            reached.setdefault(job["job_name"], set()).add(kind)
    return reached


def k8s_reached(overlay: str) -> set[str]:
    """The processes the ServiceMonitor reaches in ``overlay``: Services it selects, on a port it names, whose
    pods (a Deployment's template) have that container port."""
    docs = build(overlay)
    monitor = one(docs, "ServiceMonitor", "airship")
    ports = {e["port"] for e in monitor["spec"]["endpoints"]}
    selector = monitor["spec"]["selector"]["matchLabels"]
    reached = set()
    for service in objects(docs, "Service").values():
        if not selector.items() <= service["metadata"].get("labels", {}).items():
            continue
        for port in service["spec"]["ports"]:
            if port["name"] not in ports:
                continue
            for deployment in objects(docs, "Deployment").values():
                template = deployment["spec"]["template"]
                if not service["spec"]["selector"].items() <= template["metadata"]["labels"].items():
                    continue
                for container in template["spec"]["containers"]:
                    if not any(p.get("name") == port["targetPort"] for p in container.get("ports", [])):
                        continue
                    args = container.get("args") or []
                    reached.add(EXPORTER if "redis_exporter" in container["image"] else args[1])
    return reached


def test_every_module_that_sets_a_metric_runs_in_a_named_process() -> None:
    found = owners()
    assert found["airship_archived_matches_total"] == {"archiver"}
    assert found["airship_commands_total"] == {"worker"}


def test_compose_scrapes_every_process_that_exports_what_is_named() -> None:
    found, reached = owners(), set().union(*compose_reached().values())
    assert reached >= AIRSHIP | {EXPORTER}, reached
    missing = {name: where for name, where in named().items() if not owner_of(name, found) & reached}
    assert not missing, f"named but exported by no process a compose scrape job reaches: {missing}"


@pytest.mark.parametrize("overlay", ["production", "production-hpa"])
def test_kubernetes_scrapes_every_process_that_exports_what_is_named(overlay: str) -> None:
    found, reached = owners(), k8s_reached(overlay)
    assert reached >= AIRSHIP | {EXPORTER}, reached
    missing = {name: where for name, where in named().items() if not owner_of(name, found) & reached}
    assert not missing, f"{overlay}: named but exported by no process the ServiceMonitor reaches: {missing}"


def exporter_binary() -> str:
    home = Path(os.environ.get("AIRSHIP_PROMTOOL_HOME")
                or Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "airship" / "prometheus")
    exe = home / "bin" / "redis_exporter"
    if not exe.exists():
        if os.environ.get("CI"):
            pytest.fail("redis_exporter is not installed: bash infra/dev/install-prometheus-tools.sh")
        pytest.skip("redis_exporter is not installed: bash infra/dev/install-prometheus-tools.sh")
    return str(exe)


def test_a_real_redis_exporter_exports_every_redis_series_named(tmp_path: Path) -> None:
    """The exporter as compose and k8s run it (the ``exporter`` user, no CONFIG GET, no client list) against the
    shipped redis.conf + users.acl: every redis_* name of the dashboard and the rules is in its scrape."""
    from tests.ops.test_redis_durability import RedisServer, password

    exe = exporter_binary()
    server = RedisServer(tmp_path).start()
    port = free_port()
    env = {**os.environ, "REDIS_ADDR": f"redis://127.0.0.1:{server.port}", "REDIS_USER": "exporter",
           "REDIS_PASSWORD": password("exporter"), "REDIS_EXPORTER_CONFIG_COMMAND": "-",
           "REDIS_EXPORTER_EXPORT_CLIENT_LIST": "false", "REDIS_EXPORTER_WEB_LISTEN_ADDRESS": f"127.0.0.1:{port}"}
    proc = subprocess.Popen([exe], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        text = ""
        deadline = time.monotonic() + 20
        while "redis_up" not in text:
            assert proc.poll() is None, proc.stderr.read().decode() if proc.stderr else ""
            assert time.monotonic() < deadline, "the exporter did not answer"
            try:
                text = urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5).read().decode()
            except OSError:
                time.sleep(0.2)
        series = {m[1] for m in re.finditer(r"^([a-zA-Z_:][\w:]*)(\{| )", text, re.M)}
        assert re.search(r"^redis_up 1$", text, re.M), "the exporter could not log in as exporter"
        wanted = {name for name in named() if name.startswith("redis_")} | REDIS_EXPORTER
        assert wanted <= series, f"not exported by redis_exporter: {sorted(wanted - series)}"
        with server.admin() as admin:
            refused = [(e["username"], e["object"]) for e in admin.acl_log()]
        assert not refused, f"Redis refused the exporter: {refused}"
    finally:
        proc.terminate()
        proc.wait(timeout=10)
        server.stop()

"""docker-compose.yml: valid for docker-compose (when installed), complete (health checks, mounted files
exist, settings and Redis users), and every airship command in it exists in the CLI."""

from __future__ import annotations

import shutil
import subprocess
from typing import Any

import pytest
import yaml

from tests.ops.cli_check import check, invocations
from tests.ops.conftest import ROOT

COMPOSE = ROOT / "docker-compose.yml"
SETTINGS = {"AIRSHIP_REDIS_URL", "AIRSHIP_PARTITIONS", "AIRSHIP_KEY_PREFIX", "AIRSHIP_METRICS_PORT",
            "AIRSHIP_HEALTH_PORT"}


@pytest.fixture(scope="module")
def compose() -> dict[str, Any]:
    data: dict[str, Any] = yaml.safe_load(COMPOSE.read_text())
    return data


def airship_services(compose: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {n: s for n, s in compose["services"].items() if s.get("image", "").startswith("airship")}


def test_docker_compose_config_accepts_the_file() -> None:
    tool = shutil.which("docker-compose")
    if tool is None:
        pytest.skip("docker-compose is not installed (Debian: apt-get install docker-compose); "
                    "the structural checks in this file still ran")
    done = subprocess.run([tool, "-f", str(COMPOSE), "-p", "airship", "config", "-q"], capture_output=True,
                          text=True, cwd=ROOT, timeout=120)
    assert done.returncode == 0, done.stderr


def test_the_stack_has_every_part(compose: dict[str, Any]) -> None:
    services = compose["services"]
    assert {"redis", "worker", "projector", "bots", "prometheus", "grafana"} <= set(services)
    assert services["worker"]["deploy"]["replicas"] == 2
    assert "/etc/redis/redis.conf" in services["redis"]["command"]


def test_every_service_has_a_health_check(compose: dict[str, Any]) -> None:
    for name, service in compose["services"].items():
        test = service.get("healthcheck", {}).get("test")
        assert test and test[0] in ("CMD", "CMD-SHELL"), f"{name} has no health check"


def test_dependencies_wait_for_health(compose: dict[str, Any]) -> None:
    services = compose["services"]
    for name, service in services.items():
        for dep, how in (service.get("depends_on") or {}).items():
            assert dep in services, f"{name} depends on unknown {dep}"
            assert how == {"condition": "service_healthy"}, f"{name} -> {dep}"


def test_mounted_files_exist(compose: dict[str, Any]) -> None:
    for name, service in compose["services"].items():
        for volume in service.get("volumes", []):
            source = volume.split(":", 1)[0]
            if source.startswith("./"):
                assert (ROOT / source).exists(), f"{name} mounts missing {source}"
            else:
                assert source in compose["volumes"], f"{name} uses undeclared volume {source}"


def test_airship_services_carry_the_settings_and_stop_gracefully(compose: dict[str, Any]) -> None:
    services = airship_services(compose)
    assert {"worker", "projector", "bots"} <= set(services)
    for name, service in services.items():
        assert set(service["environment"]) >= SETTINGS, name
        assert service["stop_grace_period"] == "30s" and service["init"] is True, name
        assert service["build"]["dockerfile"] == "infra/Dockerfile"


def test_each_process_logs_in_as_its_own_redis_user(compose: dict[str, Any]) -> None:
    users = {n: s["environment"]["AIRSHIP_REDIS_URL"].split("//")[1].split(":")[0]
             for n, s in airship_services(compose).items()}
    assert users == {"worker": "worker", "projector": "projector", "bots": "lobby"}


def test_prometheus_scrapes_every_airship_process(compose: dict[str, Any]) -> None:
    config = yaml.safe_load((ROOT / "infra" / "prometheus" / "prometheus.yml").read_text())
    jobs = {j["job_name"]: j for j in config["scrape_configs"]}
    for name in ("worker", "projector"):
        port = int(compose["services"][name]["environment"]["AIRSHIP_METRICS_PORT"])
        sd = jobs[f"airship-{name}"]["dns_sd_configs"][0]
        assert sd["names"] == [name] and sd["port"] == port
    assert "redis-exporter:9121" in jobs["redis"]["static_configs"][0]["targets"]


def test_every_airship_command_exists_in_the_cli(compose: dict[str, Any]) -> None:
    pending: set[str] = set()
    seen = 0
    for name, service in airship_services(compose).items():
        lines = invocations(service["command"], service["environment"])
        assert lines, f"{name} runs no airship command"
        for argv in lines:
            seen += 1
            problems, later = check(argv)
            assert not problems, f"{name}: airship {' '.join(argv)}: {problems}"
            pending.update(later)
    assert seen >= 5
    if pending:
        pytest.skip(f"not in this branch yet (written elsewhere): {', '.join(sorted(pending))}")

"""docker-compose.yml: valid for docker-compose (when installed), complete (health checks, mounted files
exist, settings and Redis users: only the worker, the projector, the gateway and the exporter hold one, the
bots play through the gateway), and every airship command in it exists in the CLI."""

from __future__ import annotations

import re
import shutil
import subprocess
from typing import Any

import pytest
import yaml

from tests.ops.cli_check import check, invocations
from tests.ops.conftest import ROOT

COMPOSE = ROOT / "docker-compose.yml"
ACL = ROOT / "infra" / "redis" / "users.acl"
REDIS_CLIENTS = {"worker", "projector", "gateway", "archiver", "ratings"}  # the airship processes that log in to Redis
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
    assert {"redis", "worker", "projector", "gateway", "bots", "prometheus", "grafana"} <= set(services)
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
    assert REDIS_CLIENTS | {"bots"} <= set(services)
    for name, service in services.items():
        if name in REDIS_CLIENTS:
            assert set(service["environment"]) >= SETTINGS, name
        assert service["stop_grace_period"] == "30s" and service["init"] is True, name
        assert service["build"]["dockerfile"] == "infra/Dockerfile"
        assert service["read_only"] is True, name


def acl_passwords() -> dict[str, str]:
    return {line.split()[1]: next((w[1:] for w in line.split() if w.startswith(">")), "")
            for line in ACL.read_text().splitlines() if line.strip()}


def redis_logins(service: dict[str, Any]) -> set[tuple[str, str]]:
    """(user, password) of every Redis login in a service's environment: URLs and REDIS_USER/PASSWORD."""
    env = {k: str(v) for k, v in (service.get("environment") or {}).items()}
    logins = {m for v in env.values() for m in re.findall(r"rediss?://([^:@/]*):([^@/]*)@", v)}
    if "REDIS_PASSWORD" in env:
        logins.add((env.get("REDIS_USER", "default"), env["REDIS_PASSWORD"]))
    return logins


def test_only_the_worker_projector_gateway_and_exporter_hold_a_redis_user(compose: dict[str, Any]) -> None:
    holders = {name: redis_logins(s) for name, s in compose["services"].items() if redis_logins(s)}
    assert set(holders) == REDIS_CLIENTS | {"redis-exporter"}
    passwords = acl_passwords()
    for name, logins in holders.items():
        ((user, password),) = logins
        assert user == name.removeprefix("redis-"), f"{name} logs in as {user}"
        assert passwords.get(user) == password, f"{name}: the password of {user} is not the one in users.acl"
    for name, service in compose["services"].items():
        text = yaml.safe_dump(service)
        assert name in holders or not re.search(r"redis://|REDIS_PASSWORD|dev-password", text), name


def test_each_process_logs_in_as_its_own_redis_user(compose: dict[str, Any]) -> None:
    users = {n: s["environment"]["AIRSHIP_REDIS_URL"].split("//")[1].split(":")[0]
             for n, s in airship_services(compose).items() if "AIRSHIP_REDIS_URL" in s["environment"]}
    assert users == {"worker": "worker", "projector": "projector", "gateway": "gateway", "archiver": "archiver",
                     "ratings": "ratings"}


def test_the_gateway_serves_on_its_published_port_and_the_bots_play_through_it(compose: dict[str, Any]) -> None:
    services = compose["services"]
    gateway, bots = services["gateway"], services["bots"]
    command = gateway["command"]
    assert command[:2] == ["airship", "gateway"]
    port = command[command.index("--port") + 1]
    assert command[command.index("--host") + 1] == "0.0.0.0"
    assert gateway["ports"] == [f"127.0.0.1:{port}:{port}"]
    probe = " ".join(gateway["healthcheck"]["test"])
    assert "services.health" in probe and f"'ready', {port}" in probe
    assert bots["environment"]["AIRSHIP_URL"] == f"http://gateway:{port}"
    assert bots["depends_on"]["gateway"] == {"condition": "service_healthy"}
    assert "redis" not in bots["depends_on"]
    for argv in invocations(bots["command"], bots["environment"]):
        assert argv[0] == "tournament" and argv[argv.index("--url") + 1] == f"http://gateway:{port}", argv


def test_prometheus_scrapes_every_airship_process(compose: dict[str, Any]) -> None:
    config = yaml.safe_load((ROOT / "infra" / "prometheus" / "prometheus.yml").read_text())
    jobs = {j["job_name"]: j for j in config["scrape_configs"]}
    for name in ("worker", "projector", "ratings"):
        port = int(compose["services"][name]["environment"]["AIRSHIP_METRICS_PORT"])
        sd = jobs[f"airship-{name}"]["dns_sd_configs"][0]
        assert sd["names"] == [name] and sd["port"] == port
    command = compose["services"]["gateway"]["command"]
    sd = jobs["airship-gateway"]["dns_sd_configs"][0]
    assert sd["names"] == ["gateway"] and sd["port"] == int(command[command.index("--port") + 1])
    assert jobs["airship-gateway"].get("metrics_path", "/metrics") == "/metrics"
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


def test_the_archiver_writes_the_archive_volume_and_the_gateway_reads_it(compose: dict[str, Any]) -> None:
    services = compose["services"]
    archiver, gateway = services["archiver"], services["gateway"]
    assert archiver["command"] == ["airship", "archiver"]
    assert archiver.get("deploy", {}).get("replicas", 1) == 1  # one archiver: passes must not race
    directory = archiver["environment"]["AIRSHIP_ARCHIVE_DIR"]
    assert f"archive-data:{directory}" in archiver["volumes"]
    assert gateway["environment"]["AIRSHIP_ARCHIVE_DIR"] == directory
    assert f"archive-data:{directory}:ro" in gateway["volumes"]
    assert "archive-data" in compose["volumes"]

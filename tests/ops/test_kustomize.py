"""Every overlay builds with kubectl's kustomize, its objects validate against the Kubernetes schemas,
and the pieces fit together: references resolve, probes and ports agree with the settings, termination
gives the worker its grace period, budgets and monitors select the pods they mean."""

from __future__ import annotations

import base64

import kubernetes_validate
import pytest
import yaml

from tests.ops.conftest import ROOT
from tests.ops.manifests import CRDS, EXTERNAL_SECRETS, OVERLAYS, SECRET_KEYS, Doc, build, objects, one, settings

VERSIONS = ["1.29.0", kubernetes_validate.latest_version()]


def test_there_are_overlays() -> None:
    assert {"dev", "production", "production-hpa"} <= set(OVERLAYS)


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("overlay", OVERLAYS)
def test_core_objects_validate_against_the_kubernetes_schemas(overlay: str, version: str) -> None:
    for doc in build(overlay):
        if (doc["apiVersion"], doc["kind"]) in CRDS:
            continue  # custom resources: checked field by field in test_keda.py and below
        try:
            kubernetes_validate.validate(doc, version, strict=True)
        except kubernetes_validate.ValidationError as e:
            pytest.fail(f"{overlay}: {doc['kind']} {doc['metadata']['name']} (k8s {version}): {e.message}")


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_everything_lives_in_the_airship_namespace(overlay: str) -> None:
    for doc in build(overlay):
        if doc["kind"] != "Namespace":
            assert doc["metadata"].get("namespace") == "airship", f"{doc['kind']} {doc['metadata']['name']}"


def containers(deployment: Doc) -> list[Doc]:
    containers: list[Doc] = deployment["spec"]["template"]["spec"]["containers"]
    return containers


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_workers_and_projectors_run_their_command_with_probes_on_the_health_port(overlay: str) -> None:
    docs = build(overlay)
    env = settings(docs)
    for name, args in (("worker", ["worker"]), ("projector", ["projector"]), ("ratings", ["ratings", "projector"])):
        deployment = one(docs, "Deployment", f"airship-{name}")
        pod = deployment["spec"]["template"]["spec"]
        (container,) = containers(deployment)
        assert container["args"] == ["airship", *args]
        ports = {p["name"]: p["containerPort"] for p in container["ports"]}
        assert ports == {"metrics": int(env["AIRSHIP_METRICS_PORT"]), "health": int(env["AIRSHIP_HEALTH_PORT"])}
        assert container["livenessProbe"]["httpGet"] == {"path": "/healthz", "port": "health"}
        assert container["readinessProbe"]["httpGet"] == {"path": "/readyz", "port": "health"}
        assert container["startupProbe"]["httpGet"]["path"] == "/healthz"
        assert {"requests", "limits"} <= set(container["resources"])
        assert container["securityContext"]["readOnlyRootFilesystem"] is True
        assert pod["securityContext"]["runAsNonRoot"] is True
        # The worker finishes the batch in hand on SIGTERM: give it as long as compose does.
        assert pod["terminationGracePeriodSeconds"] == 30
        assert deployment["spec"]["strategy"]["rollingUpdate"]["maxUnavailable"] == 0


def test_grace_period_matches_compose() -> None:
    compose = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    assert compose["services"]["worker"]["stop_grace_period"] == "30s"


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_configmap_and_secret_references_resolve(overlay: str) -> None:
    docs = build(overlay)
    configmaps, secrets = objects(docs, "ConfigMap"), objects(docs, "Secret")
    external = EXTERNAL_SECRETS.get(overlay, set())
    for deployment in objects(docs, "Deployment").values():
        for container in containers(deployment):
            for source in container.get("envFrom", []):
                assert source["configMapRef"]["name"] in configmaps
            for var in container.get("env", []):
                ref = var.get("valueFrom", {}).get("secretKeyRef")
                if ref is None:
                    continue
                assert ref["key"] in SECRET_KEYS
                if ref["name"] in external:
                    continue
                assert ref["name"] in secrets, f"{overlay}: no Secret {ref['name']}"
                assert ref["key"] in secrets[ref["name"]]["data"]
    for secret in external:
        assert secret not in secrets, f"{overlay} must not carry {secret}: it comes from the secret store"


def test_dev_secret_holds_every_key_and_urls_for_each_role() -> None:
    secret = one(build("dev"), "Secret", "airship-redis")
    data = {k: base64.b64decode(v).decode() for k, v in secret["data"].items()}
    assert set(data) == SECRET_KEYS
    for role in ("worker", "projector", "gateway", "ratings"):
        assert data[f"{role}-url"].startswith(f"redis://{role}:")
    assert data["keda-username"] == "keda"


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_each_deployment_logs_in_to_redis_as_its_own_user(overlay: str) -> None:
    docs = build(overlay)
    for name in ("worker", "projector", "gateway", "ratings"):
        (container,) = containers(one(docs, "Deployment", f"airship-{name}"))
        refs = [v["valueFrom"]["secretKeyRef"] for v in container["env"] if v["name"] == "AIRSHIP_REDIS_URL"]
        assert refs == [{"name": "airship-redis", "key": f"{name}-url"}]
    text = yaml.safe_dump_all(docs)
    for gone in ("lobby", "bot-url", "reader"):  # users that no longer exist
        assert gone not in text, f"{overlay} still mentions {gone}"


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_the_gateway_serves_http_with_probes_and_a_service(overlay: str) -> None:
    docs = build(overlay)
    deployment = one(docs, "Deployment", "airship-gateway")
    pod = deployment["spec"]["template"]["spec"]
    (container,) = containers(deployment)
    args = container["args"]
    assert args[:2] == ["airship", "gateway"] and args[args.index("--host") + 1] == "0.0.0.0"
    port = int(args[args.index("--port") + 1])
    assert {p["name"]: p["containerPort"] for p in container["ports"]} == {"http": port}
    assert container["livenessProbe"]["httpGet"] == {"path": "/healthz", "port": "http"}
    assert container["readinessProbe"]["httpGet"] == {"path": "/readyz", "port": "http"}
    assert container["startupProbe"]["httpGet"]["path"] == "/healthz"
    assert {"requests", "limits"} <= set(container["resources"])
    assert container["securityContext"]["readOnlyRootFilesystem"] is True
    assert container["securityContext"]["allowPrivilegeEscalation"] is False
    assert pod["securityContext"]["runAsNonRoot"] is True and pod["automountServiceAccountToken"] is False
    assert deployment["spec"]["strategy"]["rollingUpdate"]["maxUnavailable"] == 0
    service = one(docs, "Service", "airship-gateway")
    labels = deployment["spec"]["template"]["metadata"]["labels"]
    assert service["spec"]["selector"].items() <= labels.items()
    assert service["spec"].get("clusterIP") != "None"
    assert [(p["name"], p["targetPort"]) for p in service["spec"]["ports"]] == [("http", "http")]
    budget = one(docs, "PodDisruptionBudget", "airship-gateway")
    assert budget["spec"]["selector"]["matchLabels"].items() <= labels.items()


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_disruption_budgets_select_the_deployments(overlay: str) -> None:
    docs = build(overlay)
    budgets = objects(docs, "PodDisruptionBudget")
    for name in ("airship-worker", "airship-projector"):
        labels = one(docs, "Deployment", name)["spec"]["template"]["metadata"]["labels"]
        selector = budgets[name]["spec"]["selector"]["matchLabels"]
        assert selector.items() <= labels.items()
        assert budgets[name]["spec"]["maxUnavailable"] == 1


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_metrics_services_and_service_monitor(overlay: str) -> None:
    docs = build(overlay)
    services = objects(docs, "Service")
    for name in ("airship-worker", "airship-projector", "airship-ratings", "airship-archiver"):
        labels = one(docs, "Deployment", name)["spec"]["template"]["metadata"]["labels"]
        service = services[name]
        assert service["spec"]["selector"].items() <= labels.items()
        assert [p["name"] for p in service["spec"]["ports"]] == ["metrics"]
    monitors = objects(docs, "ServiceMonitor")
    if overlay == "dev":
        assert not monitors
        return
    (monitor,) = monitors.values()
    assert monitor["apiVersion"] == "monitoring.coreos.com/v1"
    selected = [s for s in services.values()
                if monitor["spec"]["selector"]["matchLabels"].items() <= s["metadata"]["labels"].items()]
    assert {s["metadata"]["name"] for s in selected} == {"airship-worker", "airship-projector", "airship-gateway",
                                                         "airship-ratings", "airship-archiver",
                                                         "airship-redis-exporter"}
    endpoints = {e["port"]: e["path"] for e in monitor["spec"]["endpoints"]}
    assert endpoints == {"metrics": "/metrics", "http": "/metrics"}  # the gateway: /metrics on its HTTP port
    for service in selected:  # every selected Service is scraped through one of the endpoints
        assert {p["name"] for p in service["spec"]["ports"]} & set(endpoints), service["metadata"]["name"]


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_one_autoscaler_owns_the_worker_replicas(overlay: str) -> None:
    docs = build(overlay)
    keda, hpa = objects(docs, "ScaledObject"), objects(docs, "HorizontalPodAutoscaler")
    assert bool(keda) != bool(hpa), f"{overlay}: exactly one of KEDA and HPA"
    assert "replicas" not in one(docs, "Deployment", "airship-worker")["spec"]
    for autoscaler in hpa.values():
        target = autoscaler["spec"]["scaleTargetRef"]
        assert (target["kind"], target["name"]) == ("Deployment", "airship-worker")
        assert autoscaler["spec"]["minReplicas"] >= 1


def test_dev_runs_its_own_redis_and_production_does_not() -> None:
    dev = build("dev")
    redis = one(dev, "StatefulSet", "redis")
    pod = redis["spec"]["template"]["spec"]
    assert pod["containers"][0]["args"] == ["redis-server", "/etc/redis/redis.conf"]
    assert redis["spec"]["volumeClaimTemplates"][0]["metadata"]["name"] == "data"
    sources = pod["volumes"][0]["projected"]["sources"]
    names = {s.get("configMap", s.get("secret", {})).get("name") for s in sources}
    assert names <= set(objects(dev, "ConfigMap")) | set(objects(dev, "Secret"))
    for overlay in ("production", "production-hpa"):
        assert not objects(build(overlay), "StatefulSet")


def test_production_overlays_pin_a_registry_image() -> None:
    for overlay in ("production", "production-hpa"):
        for deployment in objects(build(overlay), "Deployment").values():
            image = containers(deployment)[0]["image"]
            assert "/" in image and not image.endswith(":latest"), image


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_one_archiver_owns_the_archive_and_the_gateways_ask_it(overlay: str) -> None:
    """#32: no ReadWriteMany requirement: the archive volume is ReadWriteOnce and mounted by the archiver alone;
    the gateways read archived matches over HTTP from the archiver's archive port (AIRSHIP_ARCHIVE_URL)."""
    docs = build(overlay)
    archiver = one(docs, "Deployment", "airship-archiver")
    assert archiver["spec"]["replicas"] == 1 and archiver["spec"]["strategy"]["type"] == "Recreate"
    (container,) = containers(archiver)
    assert container["args"] == ["airship", "archiver"]
    refs = [v["valueFrom"]["secretKeyRef"] for v in container["env"] if v["name"] == "AIRSHIP_REDIS_URL"]
    assert refs == [{"name": "airship-redis", "key": "archiver-url"}]
    env = {v["name"]: v.get("value") for v in container["env"]}
    claim = one(docs, "PersistentVolumeClaim", "airship-archive")
    assert claim["spec"]["accessModes"] == ["ReadWriteOnce"]
    for pvc in objects(docs, "PersistentVolumeClaim").values():
        assert "ReadWriteMany" not in pvc["spec"]["accessModes"], pvc["metadata"]["name"]
    mounted = {d["metadata"]["name"] for d in objects(docs, "Deployment").values()
               for v in d["spec"]["template"]["spec"].get("volumes", [])
               if v.get("persistentVolumeClaim", {}).get("claimName") == "airship-archive"}
    assert mounted == {"airship-archiver"}
    pod = archiver["spec"]["template"]["spec"]
    (volume,) = [v for v in pod["volumes"] if "persistentVolumeClaim" in v]
    (mount,) = [m for m in container["volumeMounts"] if m["name"] == volume["name"]]
    assert mount["mountPath"] == env["AIRSHIP_ARCHIVE_DIR"] and not mount.get("readOnly", False)
    ports = {p["name"]: p["containerPort"] for p in container["ports"]}
    assert ports["archive"] == int(env["AIRSHIP_ARCHIVE_PORT"])
    (gateway,) = containers(one(docs, "Deployment", "airship-gateway"))
    genv = {v["name"]: v.get("value") for v in gateway["env"]}
    assert "AIRSHIP_ARCHIVE_DIR" not in genv
    host, _, port = genv["AIRSHIP_ARCHIVE_URL"].removeprefix("http://").partition(":")
    service = one(docs, "Service", host)
    (sport,) = [p for p in service["spec"]["ports"] if p["port"] == int(port)]
    assert sport["targetPort"] == "archive"
    assert service["spec"]["selector"].items() <= archiver["spec"]["template"]["metadata"]["labels"].items()


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_every_image_is_pinned(overlay: str) -> None:
    """#32: no ``:latest`` and no untagged image anywhere (the dev overlay ran ``airship:latest``); airship's own
    image carries the version of pyproject.toml."""
    import tomllib

    version = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    for kind in ("Deployment", "StatefulSet"):
        for workload in objects(build(overlay), kind).values():
            for container in workload["spec"]["template"]["spec"]["containers"]:
                image = container["image"]
                name, _, tag = image.rpartition(":")
                assert name and tag and tag != "latest" and "/" not in tag, f"{overlay}: {image}"
                if name.endswith("airship"):
                    assert tag == version, f"{overlay}: {image} is not the version {version}"


def test_no_real_looking_password_is_committed() -> None:
    """Only the dev overlay carries Redis passwords, each a ``<user>-dev-password`` placeholder (its users.acl and
    its Secret's env file); production overlays take the Secret from the operator's store."""
    import re

    found: dict[str, set[str]] = {}
    for path in (ROOT / "k8s").rglob("*"):
        if path.is_file() and path.name != "README.md":  # (its example command writes '…')
            text = path.read_text()
            words = re.findall(r"\s>(\S+)", text) if path.suffix == ".acl" else []
            words += [a or b for a, b in re.findall(r"://[^:/@\s]+:([^@\s]+)@|password=(\S+)", text)]
            for secret in words:
                found.setdefault(secret, set()).add(path.relative_to(ROOT).as_posix())
    assert found, "the dev overlay's passwords were not found (the pattern is wrong)"
    for secret, where in found.items():
        if re.fullmatch(r"<[a-z-]+>", secret):  # a placeholder in a comment
            continue
        assert re.fullmatch(r"[a-z]+-dev-password", secret), (secret, where)
        assert all("overlays/dev/" in w or "components/redis-dev/" in w for w in where), where

"""The NetworkPolicies of every overlay (#32), evaluated on the built manifests with the Kubernetes semantics
(a pod selected by some Ingress policy admits only what one of them allows; a rule without ``from`` admits every
source, without ``ports`` every port): the gateway's HTTP port is the only one open to anyone; metrics ports
admit only Prometheus's namespace; Redis admits exactly the pods that hold a Redis user (and KEDA's operator);
the archive port only the gateways."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pytest

from tests.ops.manifests import OVERLAYS, Doc, build, objects

AIRSHIP_NS = {"kubernetes.io/metadata.name": "airship"}


@dataclass(frozen=True)
class Pod:
    name: str
    namespace: dict[str, str]
    labels: dict[str, str]
    ports: dict[str, int] = field(default_factory=dict)
    redis_user: bool = False


STRANGER = Pod("stranger", {"kubernetes.io/metadata.name": "default"}, {"app": "x"})
NEIGHBOUR = Pod("neighbour", AIRSHIP_NS, {"app": "debug"})  # any other pod in the airship namespace
PROMETHEUS = Pod("prometheus", {"kubernetes.io/metadata.name": "monitoring"}, {"app.kubernetes.io/name": "prometheus"})
KEDA = Pod("keda-operator", {"kubernetes.io/metadata.name": "keda"}, {"app": "keda-operator"})


def matches(selector: dict[str, Any], labels: dict[str, str]) -> bool:
    if not selector.get("matchLabels", {}).items() <= labels.items():
        return False
    for expr in selector.get("matchExpressions", []):
        assert expr["operator"] == "In", expr
        if labels.get(expr["key"]) not in expr["values"]:
            return False
    return True


def pods(docs: tuple[Doc, ...]) -> list[Pod]:
    found = []
    for kind in ("Deployment", "StatefulSet"):
        for workload in objects(docs, kind).values():
            template = workload["spec"]["template"]
            containers = template["spec"]["containers"]
            ports = {p["name"]: p["containerPort"] for c in containers for p in c.get("ports", []) if "name" in p}
            refs = [v["valueFrom"]["secretKeyRef"] for c in containers for v in c.get("env", [])
                    if "secretKeyRef" in v.get("valueFrom", {})]
            keys = {ref["key"] for ref in refs if ref["name"] == "airship-redis"}
            found.append(Pod(workload["metadata"]["name"], AIRSHIP_NS, template["metadata"]["labels"], ports,
                             any(k.endswith("-url") for k in keys)))
    return found


def admits(policies: list[Doc], target: Pod, port: str, source: Pod) -> bool:
    selecting = [p for p in policies if matches(p["spec"]["podSelector"], target.labels)
                 and "Ingress" in p["spec"].get("policyTypes", ["Ingress"])]
    if not selecting:
        return True
    for policy in selecting:
        for rule in policy["spec"].get("ingress", []):
            if "ports" in rule and not any(p["port"] in (port, target.ports.get(port)) for p in rule["ports"]):
                continue
            if "from" not in rule:
                return True
            for peer in rule["from"]:
                if "namespaceSelector" in peer:
                    ok = matches(peer["namespaceSelector"], source.namespace)
                else:
                    ok = source.namespace == AIRSHIP_NS
                if ok and matches(peer.get("podSelector", {}), source.labels):
                    return True
    return False


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_every_airship_pod_is_isolated_by_default(overlay: str) -> None:
    policies = list(objects(build(overlay), "NetworkPolicy").values())
    assert any(p["spec"]["podSelector"] == {} and not p["spec"].get("ingress") for p in policies)


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_only_the_gateway_http_port_is_open_to_anyone(overlay: str) -> None:
    docs = build(overlay)
    policies = list(objects(docs, "NetworkPolicy").values())
    open_ports = {(pod.name, port) for pod in pods(docs) for port in pod.ports
                  if admits(policies, pod, port, STRANGER) or admits(policies, pod, port, NEIGHBOUR)}
    assert open_ports == {("airship-gateway", "http")}


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_metrics_only_from_the_monitoring_namespace(overlay: str) -> None:
    docs = build(overlay)
    policies = list(objects(docs, "NetworkPolicy").values())
    everyone = pods(docs)
    with_metrics = [pod for pod in everyone if "metrics" in pod.ports]
    assert {p.name for p in with_metrics} >= {"airship-worker", "airship-projector", "airship-archiver",
                                              "airship-ratings"}
    for pod in with_metrics:
        assert admits(policies, pod, "metrics", PROMETHEUS), pod.name
        for source in [*everyone, STRANGER, NEIGHBOUR, KEDA]:
            assert not admits(policies, pod, "metrics", source), (pod.name, source.name)
    gateway = next(p for p in everyone if p.name == "airship-gateway")
    assert admits(policies, gateway, "http", PROMETHEUS)  # its /metrics is on its HTTP port


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_the_archive_only_from_the_gateways(overlay: str) -> None:
    docs = build(overlay)
    policies = list(objects(docs, "NetworkPolicy").values())
    everyone = pods(docs)
    archiver = next(p for p in everyone if p.name == "airship-archiver")
    admitted = {s.name for s in [*everyone, STRANGER, NEIGHBOUR, PROMETHEUS, KEDA]
                if admits(policies, archiver, "archive", s)}
    assert admitted == {"airship-gateway"}


def test_redis_only_from_the_pods_that_hold_a_redis_user_and_keda() -> None:
    docs = build("dev")
    policies = list(objects(docs, "NetworkPolicy").values())
    everyone = pods(docs)
    redis = next(p for p in everyone if p.name == "redis")
    admitted = {s.name for s in [*everyone, STRANGER, NEIGHBOUR, PROMETHEUS, KEDA]
                if admits(policies, redis, "redis", s)}
    users = {p.name for p in everyone if p.redis_user}
    assert users >= {"airship-worker", "airship-projector", "airship-gateway", "airship-archiver", "airship-ratings"}
    assert "airship-bots" not in users
    assert admitted == users | {"keda-operator"}

"""The KEDA objects carry the fields KEDA documents for the redis-streams and redis-cluster-streams
scalers (keda.sh/docs/latest/scalers/redis-streams, .../redis-cluster-streams): per partition's command
stream a lagCount trigger and a pendingEntriesCount trigger, added by a scalingModifiers formula into the
total backlog the HPA scales on; development scales to zero, production keeps workers and has a fallback;
the generated files are fresh. (test_keda_acl.py replays what these triggers send to Redis as ``keda``.)"""

from __future__ import annotations

import importlib.util
import math
import re
from types import ModuleType
from typing import Any

import pytest

from services.keys import WORKERS_GROUP, Keys
from tests.ops.conftest import ROOT
from tests.ops.manifests import EXTERNAL_SECRETS, OVERLAYS, SECRET_KEYS, Doc, build, objects, one, settings

# Metadata KEDA documents for the two scalers (anything else is a typo KEDA would silently ignore).
DOCUMENTED = {
    "redis-streams": {"address", "host", "port", "addressFromEnv", "hostFromEnv", "portFromEnv",
                      "usernameFromEnv", "passwordFromEnv", "stream", "consumerGroup", "pendingEntriesCount",
                      "streamLength", "lagCount", "activationLagCount", "enableTLS", "unsafeSsl", "databaseIndex"},
    "redis-cluster-streams": {"addresses", "hosts", "ports", "addressesFromEnv", "hostsFromEnv", "portsFromEnv",
                              "usernameFromEnv", "passwordFromEnv", "stream", "consumerGroup", "pendingEntriesCount",
                              "streamLength", "lagCount", "activationLagCount", "enableTLS", "unsafeSsl"},
}
ADDRESS = {"redis-streams": [{"address"}, {"host", "port"}, {"addressFromEnv"}, {"hostFromEnv", "portFromEnv"}],
           "redis-cluster-streams": [{"addresses"}, {"hosts", "ports"}, {"addressesFromEnv"},
                                     {"hostsFromEnv", "portsFromEnv"}]}
SCALED_OBJECT_SPEC = {"scaleTargetRef", "pollingInterval", "cooldownPeriod", "idleReplicaCount",
                      "initialCooldownPeriod", "minReplicaCount", "maxReplicaCount", "fallback", "advanced", "triggers"}
ADVANCED = {"horizontalPodAutoscalerConfig", "restoreToOriginalReplicaCount", "scalingModifiers"}
SCALING_MODIFIERS = {"formula", "target", "activationTarget", "metricType"}
FALLBACK = {"failureThreshold", "replicas", "behavior"}
TRIGGER = {"type", "metadata", "authenticationRef", "name", "metricType", "useCachedMetrics"}
AUTH_PARAMETERS = {"username", "password", "host", "port", "address", "addresses", "hosts", "ports", "tls",
                   "ca", "cert", "key"}


def generator() -> ModuleType:
    spec = importlib.util.spec_from_file_location("keda_triggers", ROOT / "infra" / "keda_triggers.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def keda_overlays() -> list[str]:
    return [o for o in OVERLAYS if objects(build(o), "ScaledObject")]


def test_generated_files_are_fresh() -> None:
    assert generator().main(["--check"]) == 0, "run: python infra/keda_triggers.py"


def test_the_generator_and_the_settings_agree_on_partitions_and_prefix() -> None:
    gen = generator()
    for overlay in OVERLAYS:
        env = settings(build(overlay))
        assert int(env["AIRSHIP_PARTITIONS"]) == gen.PARTITIONS
        assert env["AIRSHIP_KEY_PREFIX"] == gen.PREFIX


def test_keda_overlays_exist() -> None:
    assert set(keda_overlays()) == {"dev", "production"}


@pytest.mark.parametrize(("overlay", "min_replicas"), [("dev", 0), ("production", 1)])
def test_scaled_object_scales_the_workers_on_the_backlog(overlay: str, min_replicas: int) -> None:
    """Development may scale to zero; production keeps at least one worker and falls back to a fixed
    number of workers when KEDA cannot read the metric."""
    docs = build(overlay)
    (scaled,) = objects(docs, "ScaledObject").values()
    assert scaled["apiVersion"] == "keda.sh/v1alpha1"
    spec = scaled["spec"]
    assert set(spec) <= SCALED_OBJECT_SPEC
    target = spec["scaleTargetRef"]
    assert target.get("kind", "Deployment") == "Deployment"
    one(docs, "Deployment", target["name"])
    assert target["name"] == "airship-worker"
    if min_replicas:
        assert spec["minReplicaCount"] >= min_replicas
    else:
        assert spec["minReplicaCount"] == 0
    assert spec["maxReplicaCount"] > spec["minReplicaCount"]
    assert isinstance(spec["pollingInterval"], int) and isinstance(spec["cooldownPeriod"], int)
    assert spec["pollingInterval"] <= 30, "a first command waits at most one polling interval at zero workers"
    fallback = spec["fallback"]
    assert set(fallback) <= FALLBACK and fallback.get("behavior", "static") == "static"
    assert isinstance(fallback["failureThreshold"], int) and fallback["failureThreshold"] >= 1
    assert spec["minReplicaCount"] < fallback["replicas"] <= spec["maxReplicaCount"]


@pytest.mark.parametrize(("overlay", "trigger_type"), [("dev", "redis-streams"),
                                                        ("production", "redis-cluster-streams")])
def test_a_lag_and_a_pending_trigger_per_partition(overlay: str, trigger_type: str) -> None:
    docs = build(overlay)
    env = settings(docs)
    keys = Keys(prefix=env["AIRSHIP_KEY_PREFIX"], partitions=int(env["AIRSHIP_PARTITIONS"]))
    triggers: list[dict[str, Any]] = one(docs, "ScaledObject", "airship-worker")["spec"]["triggers"]
    by_name = {t["name"]: t for t in triggers}
    assert len(by_name) == len(triggers) == 2 * keys.partitions
    worker = one(docs, "Deployment", "airship-worker")
    for p in range(keys.partitions):
        for name, mode in (("lag", "lagCount"), ("pending", "pendingEntriesCount")):
            meta = by_name[f"{name}{p}"]["metadata"]
            assert meta["stream"] == keys.commands(p)
            assert mode in meta and not {"lagCount", "pendingEntriesCount", "streamLength"} - {mode} & set(meta)
    for trigger in triggers:
        assert set(trigger) <= TRIGGER and trigger["type"] == trigger_type
        assert trigger.get("metricType", "AverageValue") == "AverageValue", "KEDA's fallback needs AverageValue"
        meta = trigger["metadata"]
        assert set(meta) <= DOCUMENTED[trigger_type], set(meta) - DOCUMENTED[trigger_type]
        assert all(isinstance(v, str) for v in meta.values()), "KEDA metadata values are strings"
        assert meta["consumerGroup"] == WORKERS_GROUP
        assert int(meta.get("lagCount", meta.get("pendingEntriesCount", "0"))) > 0
        assert int(meta["activationLagCount"]) >= 0
        assert sum(1 for way in ADDRESS[trigger_type] if way <= set(meta)) == 1
        for key, var in meta.items():
            if key.endswith("FromEnv"):
                assert var in env_of(docs, worker), f"{key}: {var} is not in the worker's environment"
        assert trigger["authenticationRef"]["name"] in objects(docs, "TriggerAuthentication")


@pytest.mark.parametrize("overlay", ["dev", "production"])
def test_the_formula_adds_every_trigger_into_the_total_backlog(overlay: str) -> None:
    """scalingModifiers: the HPA sees one composite metric, the sum of every trigger (not their maximum),
    with the same per-worker target as each trigger (KEDA's static fallback feeds replicas x the failing
    trigger's target), and any backlog at all activates it (scale from zero)."""
    spec = one(build(overlay), "ScaledObject", "airship-worker")["spec"]
    assert set(spec["advanced"]) <= ADVANCED
    modifiers = spec["advanced"]["scalingModifiers"]
    assert set(modifiers) <= SCALING_MODIFIERS and modifiers.get("metricType", "AverageValue") == "AverageValue"
    names = [t["name"] for t in spec["triggers"]]
    formula = modifiers["formula"]
    assert re.fullmatch(r"\w+( \+ \w+)*", formula), formula
    assert sorted(formula.split(" + ")) == sorted(names), "each trigger exactly once, added"
    target = float(modifiers["target"])
    for trigger in spec["triggers"]:
        meta = trigger["metadata"]
        assert float(meta.get("lagCount", meta.get("pendingEntriesCount", "nan"))) == target
    assert float(modifiers["activationTarget"]) == 0
    # The example: 19 commands waiting on each of 16 partitions.
    values = {name: (19.0 if name.startswith("lag") else 0.0) for name in names}
    composite = eval(formula, {"__builtins__": {}}, values)
    partitions = len(names) // 2
    assert composite == 19 * partitions
    assert min(math.ceil(composite / target), spec["maxReplicaCount"]) == min(math.ceil(19 * partitions / 20), 16)
    assert math.ceil(composite / target) > 1


def env_of(docs: tuple[Doc, ...], deployment: Doc) -> set[str]:
    """What KEDA can resolve from the scale target's container: env and envFrom ConfigMaps."""
    (container,) = deployment["spec"]["template"]["spec"]["containers"]
    names = {v["name"] for v in container.get("env", [])}
    for source in container.get("envFrom", []):
        names |= set(one(docs, "ConfigMap", source["configMapRef"]["name"])["data"])
    return names


@pytest.mark.parametrize("overlay", ["dev", "production"])
def test_trigger_authentication_reads_the_keda_user_from_the_secret(overlay: str) -> None:
    docs = build(overlay)
    (auth,) = objects(docs, "TriggerAuthentication").values()
    assert auth["apiVersion"] == "keda.sh/v1alpha1"
    refs = auth["spec"]["secretTargetRef"]
    assert {r["parameter"] for r in refs} == {"username", "password"}
    for ref in refs:
        assert set(ref) == {"parameter", "name", "key"} and ref["parameter"] in AUTH_PARAMETERS
        assert ref["key"] in SECRET_KEYS
        if ref["name"] not in EXTERNAL_SECRETS.get(overlay, set()):
            assert ref["key"] in one(docs, "Secret", ref["name"])["data"]


def test_production_lists_the_cluster_nodes() -> None:
    addresses = settings(build("production"))["AIRSHIP_REDIS_ADDRESSES"].split(",")
    assert len(addresses) >= 3 and all(a.rsplit(":", 1)[1].isdigit() for a in addresses)

"""The KEDA objects carry the fields KEDA documents for the redis-streams and redis-cluster-streams
scalers (keda.sh/docs/latest/scalers/redis-streams, .../redis-cluster-streams) in lagCount mode, one
trigger per partition's command stream, and the generated files are fresh."""

from __future__ import annotations

import importlib.util
from types import ModuleType
from typing import Any

import pytest

from services.pipeline.keys import WORKERS_GROUP, Keys
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


@pytest.mark.parametrize("overlay", ["dev", "production"])
def test_scaled_object_scales_the_workers_to_zero_on_lag(overlay: str) -> None:
    docs = build(overlay)
    (scaled,) = objects(docs, "ScaledObject").values()
    assert scaled["apiVersion"] == "keda.sh/v1alpha1"
    spec = scaled["spec"]
    assert set(spec) <= SCALED_OBJECT_SPEC
    target = spec["scaleTargetRef"]
    assert target.get("kind", "Deployment") == "Deployment"
    one(docs, "Deployment", target["name"])
    assert target["name"] == "airship-worker"
    assert spec["minReplicaCount"] == 0 and spec["maxReplicaCount"] >= 1
    assert isinstance(spec["pollingInterval"], int) and isinstance(spec["cooldownPeriod"], int)


@pytest.mark.parametrize(("overlay", "trigger_type"), [("dev", "redis-streams"),
                                                        ("production", "redis-cluster-streams")])
def test_one_lag_trigger_per_partition(overlay: str, trigger_type: str) -> None:
    docs = build(overlay)
    env = settings(docs)
    keys = Keys(prefix=env["AIRSHIP_KEY_PREFIX"], partitions=int(env["AIRSHIP_PARTITIONS"]))
    triggers: list[dict[str, Any]] = one(docs, "ScaledObject", "airship-worker")["spec"]["triggers"]
    assert [t["metadata"]["stream"] for t in triggers] == [keys.commands(p) for p in range(keys.partitions)]
    worker = one(docs, "Deployment", "airship-worker")
    for trigger in triggers:
        assert set(trigger) <= TRIGGER and trigger["type"] == trigger_type
        meta = trigger["metadata"]
        assert set(meta) <= DOCUMENTED[trigger_type], set(meta) - DOCUMENTED[trigger_type]
        assert all(isinstance(v, str) for v in meta.values()), "KEDA metadata values are strings"
        assert meta["consumerGroup"] == WORKERS_GROUP
        assert int(meta["lagCount"]) > 0 and int(meta["activationLagCount"]) >= 0
        assert not {"pendingEntriesCount", "streamLength"} & set(meta), "lagCount mode only"
        assert sum(1 for way in ADDRESS[trigger_type] if way <= set(meta)) == 1
        for key, var in meta.items():
            if key.endswith("FromEnv"):
                assert var in env_of(docs, worker), f"{key}: {var} is not in the worker's environment"
        assert trigger["authenticationRef"]["name"] in objects(docs, "TriggerAuthentication")


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

"""Write the KEDA ScaledObjects of the workers: they follow the TOTAL backlog of the command streams, the
sum over every partition of the entries not yet delivered to the group ``workers`` (lag) and of those
delivered but not acknowledged (pending: in hand, or left behind by a dead worker).

Per partition p, two ``redis-streams`` (or ``redis-cluster-streams``) triggers read Redis directly:

- ``lag<p>``: lagCount mode. Per poll KEDA sends ``INFO`` (it checks ``redis_version`` >= 7, KEDA >= 2.11),
  ``XINFO GROUPS <stream>``, and ``XLEN <stream>`` when the group does not exist yet;
- ``pending<p>``: pendingEntriesCount mode (a consumerGroup and no lagCount): ``XPENDING <stream> workers``.

KEDA's ``scalingModifiers`` formula adds the 2P values into one composite metric, the only one the HPA
sees: ``ceil(total / TARGET)`` workers, and any backlog at all (> ACTIVATION) wakes the workers from zero
within one polling interval. (Without the formula the HPA takes the *maximum* over the triggers: 19
commands waiting on each of 16 partitions would give one worker.) Needs KEDA >= 2.12 (scalingModifiers);
>= 2.17 for the fallback fixes with formulas, >= 2.19 for the fallback to apply at zero replicas.

    python infra/keda_triggers.py            # rewrite k8s/components/keda-redis*/ (scaledobject.yaml,
                                             # triggerauthentication.yaml)
    python infra/keda_triggers.py --check    # exit 1 when a checked-in file differs (tests run this)

Change ``PARTITIONS`` together with AIRSHIP_PARTITIONS in k8s/base/settings.yaml (a test checks both).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from infra.generated import write_or_check  # noqa: E402
from services.keys import WORKERS_GROUP, Keys  # noqa: E402

PARTITIONS = 16
PREFIX = "airship"
# Commands of backlog (lag + pending, summed over the partitions) per worker. Every trigger carries the same
# target as the formula: KEDA's static fallback feeds the HPA fallback.replicas x the failing trigger's target.
TARGET = "20"
ACTIVATION = "0"  # any backlog at all wakes the workers from zero
MAX_WORKERS = 16
POLLING_INTERVAL = 15  # seconds: the longest a first command waits for KEDA to notice it at zero workers
FALLBACK = {"failureThreshold": 3, "replicas": 4}  # after 3 failed polls (Redis or its ACL refuses KEDA)

# trigger type -> (where it goes, how the trigger finds Redis: an env var of the worker Deployment,
#                  minReplicaCount: development scales to zero, production keeps workers warm)
VARIANTS: dict[str, tuple[str, dict[str, str], int]] = {
    "redis-streams": ("k8s/components/keda-redis/scaledobject.yaml",
                      {"addressFromEnv": "AIRSHIP_REDIS_ADDRESS"}, 0),
    "redis-cluster-streams": ("k8s/components/keda-redis-cluster/scaledobject.yaml",
                              {"addressesFromEnv": "AIRSHIP_REDIS_ADDRESSES"}, 2),
}


def triggers(trigger_type: str, keys: Keys) -> list[dict[str, Any]]:
    """Two triggers per partition, named for the formula: lag<p> (lagCount) and pending<p> (XPENDING)."""
    address = VARIANTS[trigger_type][1]
    found = []
    for p in range(keys.partitions):
        for name, mode in (("lag", "lagCount"), ("pending", "pendingEntriesCount")):
            found.append({
                "type": trigger_type,
                "name": f"{name}{p}",
                "metricType": "AverageValue",
                "metadata": {
                    **address,
                    "stream": keys.commands(p),
                    "consumerGroup": WORKERS_GROUP,
                    mode: TARGET,
                    "activationLagCount": ACTIVATION,
                },
                "authenticationRef": {"name": "airship-keda-redis"},
            })
    return found


def formula(keys: Keys) -> str:
    """The total backlog: every partition's lag and pending entries, added."""
    return " + ".join(f"lag{p} + pending{p}" for p in range(keys.partitions))


def scaled_object(trigger_type: str, partitions: int = PARTITIONS, prefix: str = PREFIX) -> dict[str, Any]:
    keys = Keys(prefix=prefix, partitions=partitions)
    return {
        "apiVersion": "keda.sh/v1alpha1",
        "kind": "ScaledObject",
        "metadata": {"name": "airship-worker", "labels": {"app.kubernetes.io/name": "airship",
                                                           "app.kubernetes.io/component": "worker"}},
        "spec": {
            "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "airship-worker"},
            "minReplicaCount": VARIANTS[trigger_type][2],
            "maxReplicaCount": MAX_WORKERS,
            "pollingInterval": POLLING_INTERVAL,
            "cooldownPeriod": 300,
            "fallback": dict(FALLBACK),
            "advanced": {
                "horizontalPodAutoscalerConfig": {"behavior": {
                    "scaleDown": {"stabilizationWindowSeconds": 300,
                                  "policies": [{"type": "Pods", "value": 2, "periodSeconds": 60}]},
                }},
                "scalingModifiers": {"formula": formula(keys), "target": TARGET, "activationTarget": ACTIVATION,
                                     "metricType": "AverageValue"},
            },
            "triggers": triggers(trigger_type, keys),
        },
    }


def trigger_authentication() -> dict[str, Any]:
    """KEDA logs in as the ACL user 'keda' (INFO; XINFO GROUPS, XPENDING, XLEN on the command streams only)."""
    return {
        "apiVersion": "keda.sh/v1alpha1",
        "kind": "TriggerAuthentication",
        "metadata": {"name": "airship-keda-redis", "labels": {"app.kubernetes.io/part-of": "airship"}},
        "spec": {"secretTargetRef": [
            {"parameter": "username", "name": "airship-redis", "key": "keda-username"},
            {"parameter": "password", "name": "airship-redis", "key": "keda-password"},
        ]},
    }


def render(trigger_type: str, partitions: int = PARTITIONS, prefix: str = PREFIX) -> str:
    import yaml

    header = (f"# Generated by infra/keda_triggers.py: do not edit by hand. {partitions} partitions, prefix "
              f"'{prefix}'. Two {trigger_type}\n# triggers per command stream (lagCount: lag<p>; pendingEntriesCount:"
              f" pending<p>), added by the scalingModifiers\n# formula: one worker per {TARGET} commands of total "
              f"backlog, woken from zero by any backlog.\n")
    body: str = yaml.safe_dump(scaled_object(trigger_type, partitions, prefix), sort_keys=False, width=120)
    return header + body


def outputs() -> dict[Path, str]:
    """Every generated file and its text."""
    import yaml

    auth = ("# Generated by infra/keda_triggers.py: do not edit by hand.\n"
            + yaml.safe_dump(trigger_authentication(), sort_keys=False, width=120))
    files = {}
    for trigger_type, (rel, _, _) in VARIANTS.items():
        files[ROOT / rel] = render(trigger_type)
        files[(ROOT / rel).with_name("triggerauthentication.yaml")] = auth
    return files


def main(argv: list[str] | None = None) -> int:
    return write_or_check(outputs(), "keda_triggers.py", __doc__, argv)

if __name__ == "__main__":
    sys.exit(main())

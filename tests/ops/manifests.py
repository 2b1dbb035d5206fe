"""Building the kustomize overlays and looking objects up in the result."""

from __future__ import annotations

import functools
import shutil
import subprocess
from typing import Any

import pytest
import yaml

from tests.ops.conftest import ROOT

K8S = ROOT / "k8s"
OVERLAYS = sorted(p.name for p in (K8S / "overlays").iterdir() if (p / "kustomization.yaml").exists())
CRDS = {("keda.sh/v1alpha1", "ScaledObject"), ("keda.sh/v1alpha1", "TriggerAuthentication"),
        ("monitoring.coreos.com/v1", "ServiceMonitor"), ("monitoring.coreos.com/v1", "PrometheusRule")}
# Overlays whose Secret airship-redis comes from the operator's secret store, not from kustomize.
EXTERNAL_SECRETS = {"production": {"airship-redis"}, "production-hpa": {"airship-redis"}}
SECRET_KEYS = {"worker-url", "projector-url", "gateway-url", "keda-username", "keda-password", "archiver-url",
               "ratings-url", "exporter-url"}

Doc = dict[str, Any]


@functools.cache
def build(overlay: str) -> tuple[Doc, ...]:
    kubectl = shutil.which("kubectl")
    if kubectl is None:
        pytest.skip("kubectl is not installed (its built-in kustomize builds the overlays)")
    done = subprocess.run([kubectl, "kustomize", str(K8S / "overlays" / overlay)], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, f"kubectl kustomize {overlay} failed:\n{done.stderr}"
    return tuple(d for d in yaml.safe_load_all(done.stdout) if d)


def objects(docs: tuple[Doc, ...], kind: str) -> dict[str, Doc]:
    return {d["metadata"]["name"]: d for d in docs if d["kind"] == kind}


def one(docs: tuple[Doc, ...], kind: str, name: str) -> Doc:
    found = objects(docs, kind)
    assert name in found, f"no {kind} {name}; have {sorted(found)}"
    return found[name]


def settings(docs: tuple[Doc, ...]) -> dict[str, str]:
    data: dict[str, str] = one(docs, "ConfigMap", "airship-settings")["data"]
    return data

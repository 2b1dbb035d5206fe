"""infra/Dockerfile (not built here: no Docker engine): one image, non-root, the package installed, and
the process chosen by the command in exec form so SIGTERM reaches airship."""

from __future__ import annotations

import json

from tests.ops.conftest import ROOT

DOCKERFILE = (ROOT / "infra" / "Dockerfile").read_text()
FINAL = DOCKERFILE.rsplit("\nFROM ", 1)[1]


def instructions(text: str) -> list[tuple[str, str]]:
    joined = text.replace("\\\n", " ")
    return [(line.split(None, 1)[0].upper(), line.split(None, 1)[1] if " " in line.strip() else "")
            for line in joined.splitlines() if line.strip() and not line.lstrip().startswith("#")]


def test_the_final_stage_runs_as_an_unprivileged_user() -> None:
    users = [arg for op, arg in instructions(FINAL) if op == "USER"]
    assert users and users[-1].split(":")[0] not in ("root", "0")


def test_the_package_is_installed_and_on_the_path() -> None:
    assert "pip install ." in DOCKERFILE and "COPY --from=build /opt/airship /opt/airship" in FINAL
    assert "PATH=/opt/airship/bin:$PATH" in FINAL


def test_the_command_is_exec_form_airship() -> None:
    cmds = [arg for op, arg in instructions(FINAL) if op == "CMD"]
    assert json.loads(cmds[-1])[0] == "airship"
    assert not [op for op, _ in instructions(FINAL) if op == "ENTRYPOINT"]


def test_the_build_context_keeps_what_the_build_copies() -> None:
    ignored = (ROOT / ".dockerignore").read_text().split()
    for copied in ("pyproject.toml", "README.md", "services", "schemas"):
        assert copied not in ignored
        assert (ROOT / copied).exists()

"""constraints.txt pins every Python package airship installs: each dependency pyproject.toml names (runtime,
dev and every extra), and theirs, as installed here; each pin satisfies pyproject's range; and both
install paths (``make install``, infra/Dockerfile) install with it."""

from __future__ import annotations

import re
import tomllib
from importlib import metadata
from typing import cast

from packaging.markers import default_environment
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

from tests.ops.conftest import ROOT

CONSTRAINTS = ROOT / "constraints.txt"


def pins() -> dict[str, Version]:
    found: dict[str, Version] = {}
    for line in CONSTRAINTS.read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        name, sep, version = line.partition("==")
        assert sep and version and not re.search(r"[<>!~;\[ ]", line), f"not an exact pin: {line!r}"
        assert canonicalize_name(name) not in found, f"pinned twice: {name}"
        found[canonicalize_name(name)] = Version(version)
    return found


def declared() -> list[Requirement]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    extras = project.get("optional-dependencies", {})
    return [Requirement(r) for r in [*project["dependencies"], *(r for group in extras.values() for r in group)]]


def applies(req: Requirement, extra: str = "") -> bool:
    environment = {**cast(dict[str, str], default_environment()), "extra": extra}
    return req.marker is None or req.marker.evaluate(environment)


def closure(roots: list[Requirement]) -> set[str]:
    """Every distribution the roots pull in here (with their extras), by the installed metadata."""
    seen: set[str] = set()
    todo = [(r, frozenset(r.extras)) for r in roots if applies(r)]
    while todo:
        req, extras = todo.pop()
        name = canonicalize_name(req.name)
        key = f"{name}[{','.join(sorted(extras))}]"
        if key in seen:
            continue
        seen.add(key)
        for text in metadata.requires(req.name) or []:
            sub = Requirement(text)
            if any(applies(sub, extra) for extra in ["", *extras]):
                todo.append((sub, frozenset(sub.extras)))
    return {key.split("[", 1)[0] for key in seen}


def test_every_dependency_in_pyproject_is_pinned_within_its_range() -> None:
    pinned = pins()
    for req in declared():
        name = canonicalize_name(req.name)
        assert name in pinned, f"{req.name} (pyproject.toml) is not pinned in constraints.txt"
        assert req.specifier.contains(pinned[name], prereleases=True), \
            f"constraints.txt pins {req.name}=={pinned[name]}, outside pyproject's {req.specifier}"


def test_what_they_pull_in_is_pinned_too_and_is_what_is_installed() -> None:
    pinned = pins()
    needed = closure(declared())
    assert {"hiredis", "pydantic-core", "starlette", "uvloop"} <= needed  # extras and transitive ones count
    missing = sorted(needed - set(pinned))
    assert not missing, f"installed as dependencies but not pinned in constraints.txt: {missing}"
    stale = {n: (str(pinned[n]), metadata.version(n)) for n in needed if Version(metadata.version(n)) != pinned[n]}
    assert not stale, f"constraints.txt differs from what is installed (pinned, installed): {stale}"
    assert "airship" not in pinned


def test_make_and_the_dockerfile_install_with_the_constraints() -> None:
    makefile = (ROOT / "Makefile").read_text()
    assert "pip install -q -e '.[dev]' -c constraints.txt" in makefile
    dockerfile = (ROOT / "infra" / "Dockerfile").read_text()
    assert re.search(r"^COPY [^\n]*\bconstraints\.txt\b[^\n]* \./$", dockerfile, re.M), "the image build needs it"
    installs = re.findall(r"pip install (?!--upgrade pip)[^\n\\&]*", dockerfile)
    assert installs and all("-c constraints.txt" in i for i in installs), installs

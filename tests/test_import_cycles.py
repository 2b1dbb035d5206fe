"""No new import cycle inside a package: the modules of ``services/<package>/`` (and ``schemas/``) import each
other without a loop, counting the imports inside functions (how a cycle is usually hidden) and leaving out
``if TYPE_CHECKING:`` blocks (types only, never run). The cycles that exist are listed in :data:`KNOWN`; a new
one, or a module joining one, fails here. Break it with a small module both sides import (the shared part), not
with an import inside a function."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

KNOWN: set[frozenset[str]] = {frozenset(cycle) for cycle in (
    {"services.bots.ismcts", "services.bots.plugins"},  # make_bot builds an ISMCTS bot, which reads plug-ins
    {"services.chat.adapter", "services.chat.generic"},  # get_adapter's default is the generic adapter
    {"services.client", "services.client.aio", "services.client.http"},  # the package re-exports both clients
    {"services.pipeline.redis_backend", "services.pipeline.redis_local"},
    {"services.bench.cluster", "services.bench.pipeline"},
)}


def _modules() -> dict[str, Path]:
    found = {}
    for top in ("services", "schemas"):
        for path in (ROOT / top).rglob("*.py"):
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


def _imports(name: str, path: Path, known: dict[str, Path]) -> set[str]:
    """The modules of the same package ``name`` imports, anywhere but under ``if TYPE_CHECKING:``."""
    tree = ast.parse(path.read_text())
    types_only = {id(n) for node in ast.walk(tree) if isinstance(node, ast.If)
                  and "TYPE_CHECKING" in ast.unparse(node.test) for n in ast.walk(node)}
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    named: set[str] = set()
    for node in ast.walk(tree):
        if id(node) in types_only:
            continue
        if isinstance(node, ast.Import):
            named.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = package.split(".")[: len(package.split(".")) - node.level + 1] if node.level else []
            module = ".".join([*base, *([node.module] if node.module else [])])
            named.add(module)
            named.update(f"{module}.{alias.name}" for alias in node.names)
    inside = ".".join(name.split(".")[:2])  # services.<package>, or schemas
    return {m for m in named if m in known and m != name and (m == inside or m.startswith(inside + "."))}


def _cycles(graph: dict[str, set[str]]) -> list[frozenset[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    cycles: list[frozenset[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = {stack.pop()}
            while v not in component:
                component.add(stack.pop())
            if len(component) > 1:
                cycles.append(frozenset(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return cycles


def test_no_new_import_cycle_inside_a_package() -> None:
    known = _modules()
    cycles = _cycles({name: _imports(name, path, known) for name, path in known.items()})
    new = [sorted(c) for c in cycles if c not in KNOWN]
    assert not new, f"new import cycles (break them with a shared module, not an import in a function): {new}"
    gone = [sorted(c) for c in KNOWN if c not in cycles]
    assert not gone, f"these cycles are broken now: take them off KNOWN: {gone}"


def test_the_check_finds_a_cycle_hidden_in_a_function(tmp_path: Path) -> None:
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [frozenset({"a", "b", "c"})]
    probe = tmp_path / "probe.py"
    probe.write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from services.games import base\n"
                     "def f():\n    from services.games import registry\n")
    known = {"services.games.registry": probe, "services.games.base": probe, "services.bots.plugins": probe}
    assert _imports("services.games.probe", probe, known) == {"services.games.registry"}

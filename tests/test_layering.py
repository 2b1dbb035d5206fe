"""The dependency direction of the code, read from every module's imports (``ast``; nothing is imported).

Layers, lowest first; a module may import its own layer and the ones below, never one above:

0. ``schemas``: the wire contracts; they import nothing of ``services``;
1. ``services.games``: the rules; only ``services.games``, ``schemas``, the standard library and pydantic. A
   game's folder also holds its plug-ins for the layers above (#31: ``bot``, ``chat``, ``board``, ``candidates``
   and the ``registration`` that names them all): those are layer 3, and no rules module imports them;
2. the pipeline and what every process shares: ``services.pipeline``, ``services.settings``,
   ``services.keys``, ``services.logs``, ``services.metrics``, ``services.health``, ``services.faults``,
   ``services.redis_binary`` (which redis-server to start)
   (``services.settings`` below ``services.pipeline``: the pipeline reads settings, never the reverse);
3. what uses the pipeline: ``services.bots``, ``services.replay``, ``services.chat``, ``services.client``,
   ``services.archive``, ``services.gateway``, ``services.web`` (the page the gateway serves), ``services.ratings``
   and ``services.readmodels`` (the read-model kit);
4. the entry points that tie it all together: ``services.cli``, ``services.bench``, ``services.stack``,
   ``services.chaos``.

A game's own tests (``services/games/<game>/tests/``) stand outside the layers, as ``tests/`` does, and no code
imports them. Every import counts, wherever it is written (inside a function, under ``TYPE_CHECKING``): a lazy import
is still a dependency. A new top-level module or package under ``services/`` must be given a layer here.
"""

from __future__ import annotations

import ast
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("schemas", "services")

LAYERS: tuple[tuple[str, ...], ...] = (
    ("schemas",),
    ("services.games",),
    ("services.pipeline", "services.settings", "services.keys", "services.logs", "services.metrics",
     "services.health", "services.faults", "services.redis_binary"),
    ("services.bots", "services.replay", "services.chat", "services.client", "services.archive",
     "services.gateway", "services.web", "services.ratings", "services.readmodels"),
    ("services.cli", "services.bench", "services.stack", "services.chaos"),
)
LAYER_NAMES = ("schemas", "games", "pipeline", "clients and tools", "entry points")
GAMES_MAY_IMPORT = ("services.games", "schemas", "pydantic")
GAME_PLUGINS = ("registration", "bot", "chat", "board", "candidates")  # services.games.<game>.<these>: layer 3
# Type-only imports (under TYPE_CHECKING) of the generic Registration, which names the plug-ins' types:
TYPES_ONLY = {("services.games.registration", "services.bots.plugins"),
              ("services.games.registration", "services.chat.adapter")}


def is_game_plugin(name: str) -> bool:
    """``services.games.<game>.<plugin>`` (or below): a game's plug-in for the layers above the rules."""
    parts = name.split(".")
    return len(parts) >= 4 and parts[:2] == ["services", "games"] and parts[3] in GAME_PLUGINS


@dataclass(frozen=True, slots=True)
class Import:
    module: str  # the importing module
    path: Path
    line: int
    target: str  # the imported module (``from a import b`` is ``a.b`` when ``a/b`` is a module)

    def where(self) -> str:
        return f"{self.path.relative_to(ROOT)}:{self.line}"


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def is_module(name: str) -> bool:
    """Whether ``name`` is a module or package of this repository."""
    base = ROOT.joinpath(*name.split("."))
    return base.with_suffix(".py").is_file() or base.is_dir()


def imports_of(path: Path) -> list[Import]:
    module = module_name(path)
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found: list[Import] = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found += [Import(module, path, node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                source = ".".join([*base, *([node.module] if node.module else [])])
            else:
                source = node.module or ""
            for alias in node.names:
                submodule = f"{source}.{alias.name}"
                found.append(Import(module, path, node.lineno, submodule if is_module(submodule) else source))
    return found


def is_game_test(name: str) -> bool:
    """``services.games.<game>.tests`` (or below): a game's own tests, kept in its folder (#31). Like ``tests/``
    they stand outside the layers (they may import anything); nothing but tests may import them."""
    parts = name.split(".")
    return len(parts) >= 4 and parts[:2] == ["services", "games"] and parts[3] == "tests"


def all_imports() -> list[Import]:
    files = sorted(p for package in PACKAGES for p in (ROOT / package).rglob("*.py"))
    return [imp for path in files for imp in imports_of(path)]


EVERY_IMPORT = all_imports()


def within(name: str, prefix: str) -> bool:
    return name == prefix or name.startswith(prefix + ".")


def layer_of(name: str) -> int | None:
    if is_game_plugin(name):
        return 3
    for level, prefixes in enumerate(LAYERS):
        if any(within(name, prefix) for prefix in prefixes):
            return level
    return None


def is_ours(name: str) -> bool:
    return any(within(name, package) for package in PACKAGES)


IMPORTS = [imp for imp in EVERY_IMPORT if not is_game_test(imp.module)]


def report(violations: list[str]) -> str:
    return f"{len(violations)} import(s) against the layering:\n  " + "\n  ".join(violations)


def test_the_imports_are_read() -> None:
    """The checks below see the code: a known import of each kind is found."""
    targets = {(imp.module, imp.target) for imp in IMPORTS}
    assert ("services.pipeline.decision", "services.games.rng") in targets
    assert ("services.cli", "services.cli.play") in targets  # from services.cli import play, ...
    assert len({imp.module for imp in IMPORTS}) > 100


def test_no_code_imports_a_games_tests() -> None:
    assert any(is_game_test(imp.module) for imp in EVERY_IMPORT)  # (they are read, then set apart)
    violations = [f"{imp.where()}: {imp.module} imports {imp.target}" for imp in IMPORTS if is_game_test(imp.target)]
    assert not violations, report(violations)


def test_every_module_has_a_layer() -> None:
    unplaced = sorted({imp.module for imp in IMPORTS if layer_of(imp.module) is None and imp.module != "services"})
    assert not unplaced, f"give these modules a layer in tests/test_layering.py: {unplaced}"


def test_schemas_import_nothing_of_services() -> None:
    violations = [f"{imp.where()}: {imp.module} imports {imp.target}" for imp in IMPORTS
                  if within(imp.module, "schemas") and within(imp.target, "services")]
    assert not violations, report(violations)


def test_games_import_only_games_schemas_the_standard_library_and_pydantic() -> None:
    violations = []
    for imp in IMPORTS:
        if not within(imp.module, "services.games") or is_game_plugin(imp.module):
            continue
        if (imp.module, imp.target) in TYPES_ONLY or is_game_plugin(imp.target):
            if is_game_plugin(imp.target):
                violations.append(f"{imp.where()}: the rules module {imp.module} imports the plug-in {imp.target}")
            continue
        top = imp.target.partition(".")[0]
        if top in sys.stdlib_module_names or any(within(imp.target, ok) for ok in GAMES_MAY_IMPORT):
            continue
        violations.append(f"{imp.where()}: {imp.module} imports {imp.target}")
    assert not violations, report(violations)


def test_settings_do_not_import_the_pipeline() -> None:
    violations = [f"{imp.where()}: {imp.module} imports {imp.target}" for imp in IMPORTS
                  if imp.module == "services.settings" and within(imp.target, "services.pipeline")]
    assert not violations, report(violations)


@pytest.mark.parametrize("level", range(len(LAYERS) - 1), ids=LAYER_NAMES[:-1])
def test_no_layer_imports_a_higher_one(level: int) -> None:
    violations = []
    for imp in IMPORTS:
        if layer_of(imp.module) != level or not is_ours(imp.target) or (imp.module, imp.target) in TYPES_ONLY:
            continue
        target_level = layer_of(imp.target)
        if target_level is not None and target_level > level:
            violations.append(f"{imp.where()}: {imp.module} ({LAYER_NAMES[level]}) imports {imp.target} "
                              f"({LAYER_NAMES[target_level]})")
    assert not violations, report(violations)

"""The registries: built-in plug-ins come from the entry points of pyproject.toml, loaded on first use; test
games are registered by the tests that use them and never count as built in."""

from __future__ import annotations

import json
import subprocess
import sys
import tomllib
from importlib.metadata import EntryPoint
from pathlib import Path

import pytest

from schemas import upcast
from schemas.upcast import RawEvent, Upcasters
from services.bench import register_tally
from services.bots.plugins import PLUGINS
from services.chat.adapter import ADAPTERS
from services.games import GAMES, builtin_games, get_game, register
from services.games.registry import Registry, RegistryError, load_game_modules
from services.replay.render import RENDERERS
from tests.pipeline.nim import NIM

ROOT = Path(__file__).resolve().parents[1]
GROUPS = {"airship.games": GAMES, "airship.bots": PLUGINS, "airship.chat": ADAPTERS, "airship.boards": RENDERERS}


def declared(group: str) -> list[str]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    return sorted(project["entry-points"][group])


def test_the_built_in_games_are_the_entry_points_and_nothing_else() -> None:
    register_tally()
    assert "nim" in GAMES and "tally" in GAMES  # registered by the tests (tests/conftest.py) and the benchmark
    assert builtin_games() == declared("airship.games")
    assert "nim" not in builtin_games() and "tally" not in builtin_games()


@pytest.mark.parametrize("group", sorted(GROUPS))
def test_every_entry_point_is_installed_and_loads(group: str) -> None:
    """pyproject.toml and the installed metadata agree (a stale install misses a group: pip install -e .)."""
    registry = GROUPS[group]
    assert registry.builtin() == declared(group)
    assert set(declared(group)) <= set(registry)


@pytest.mark.parametrize("group", sorted(set(GROUPS) - {"airship.games"}))
def test_plug_ins_are_for_built_in_games(group: str) -> None:
    assert set(declared(group)) <= set(declared("airship.games"))


def test_a_registration_of_the_same_object_again_is_harmless() -> None:
    assert register(NIM) is NIM
    assert register(get_game("moderne-zeiten")) is GAMES["moderne-zeiten"]


def test_another_object_under_a_taken_name_is_refused() -> None:
    class Impostor:
        name = "moderne-zeiten"

    GAMES.load()
    with pytest.raises(RegistryError, match="two games named 'moderne-zeiten'"):
        register(Impostor())  # type: ignore[arg-type]
    registry: Registry[object] = Registry("airship.games", "game")
    registry.register("moderne-zeiten", Impostor())  # before the entry points are loaded: refused when they are
    with pytest.raises(RegistryError, match="two games named 'moderne-zeiten'"):
        registry.load()


def test_an_adapter_registered_by_its_module_is_the_one_its_entry_point_names() -> None:
    """A chat adapter module registers an instance of its class when imported (``@register_adapter``); its
    entry point names the class: one adapter, not two."""
    from services.chat.games.moderne_zeiten import ModerneZeitenAdapter

    assert type(ADAPTERS["moderne-zeiten"]) is ModerneZeitenAdapter
    assert ADAPTERS.register("moderne-zeiten", ModerneZeitenAdapter()) is ADAPTERS["moderne-zeiten"]


def test_a_registry_of_an_empty_group_holds_what_is_registered() -> None:
    registry: Registry[str] = Registry("airship.nothing-here", "thing")
    assert registry.builtin() == [] and len(registry) == 0
    registry.register("a", "x")
    assert dict(registry) == {"a": "x"} and registry.builtin() == []


def test_game_modules_name_a_game_object_or_a_module_that_registers_itself() -> None:
    games = load_game_modules("services.pipeline.bench_game:TALLY, tests.pipeline.nim")
    assert [g.name for g in games] == ["tally"] and "tally" in GAMES and "nim" in GAMES
    with pytest.raises(RegistryError, match="has no 'NOPE'"):
        load_game_modules("services.pipeline.bench_game:NOPE")


def test_importing_the_registries_loads_no_game() -> None:
    """Loading is lazy: the game packages are imported on the first read of a registry, not before."""
    code = ("import json, sys, services.games, services.bots.plugins, services.chat.adapter, services.replay.render; "
            "print(json.dumps(sorted(m for m in sys.modules if m.startswith(('services.games.', 'services.bots.', "
            "'services.chat.games', 'services.replay.boards')))))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True).stdout
    loaded = json.loads(out)
    assert not [m for m in loaded if m.split(".")[2] in {"moderne_zeiten", "modern_world", "mad_zeppelin"}], loaded


def _register_test_upcasters(registry: Upcasters) -> None:
    @registry.register(0, game="nim")
    def _count_to_n(raw: RawEvent) -> RawEvent:
        return {**raw, "n": raw.get("count")}


def test_upcasters_of_an_entry_point_are_registered_on_first_use(monkeypatch: pytest.MonkeyPatch) -> None:
    ep = EntryPoint("nim", f"{__name__}:_register_test_upcasters", "airship.test-upcasters")
    monkeypatch.setattr(upcast, "entry_points", lambda group: [ep] if group == ep.group else [])
    registry = Upcasters(current=1, group=ep.group)
    assert registry.upcast({"count": 2}, game="nim") == {"count": 2, "n": 2, "schema_version": 1}
    assert registry.upcast({"count": 2}, game="other") == {"count": 2, "schema_version": 1}

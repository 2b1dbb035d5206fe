"""The registries: built-in plug-ins come from the entry points of pyproject.toml, loaded on first use; test
games are registered by the tests that use them and never count as built in."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tomllib
from importlib.metadata import EntryPoint
from pathlib import Path

import pytest

from schemas.upcast import RawEvent, Upcasters
from services.bench import register_tally
from services.games import GAMES, builtin_games, get_game, register
from services.games.errors import BadOptions
from services.games.registration import Registration
from services.games.registry import REGISTRATIONS, BrokenGame, Registry, RegistryError, load_game_modules
from tests.pipeline.nim import NIM

ROOT = Path(__file__).resolve().parents[1]


def declared(group: str) -> list[str]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    return sorted(project["entry-points"][group])


def test_the_built_in_games_are_the_entry_points_and_nothing_else() -> None:
    register_tally()
    assert "nim" in GAMES and "tally" in GAMES  # registered by the tests (tests/conftest.py) and the benchmark
    assert builtin_games() == declared("airship.games")
    assert "nim" not in builtin_games() and "tally" not in builtin_games()


def test_one_entry_point_group_names_a_registration_per_game() -> None:
    """pyproject.toml and the installed metadata agree (a stale install: pip install -e .), each entry point
    names a whole registration, and no other group of plug-ins is left."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert sorted(project["entry-points"]) == ["airship.games"]
    assert REGISTRATIONS.builtin() == declared("airship.games") and REGISTRATIONS.broken() == {}
    for name in declared("airship.games"):
        registration = REGISTRATIONS[name]
        assert isinstance(registration, Registration) and registration.game is GAMES[name]


def test_a_registration_of_the_same_object_again_is_harmless() -> None:
    assert register(NIM) is NIM
    assert register(get_game("moderne-zeiten")) is GAMES["moderne-zeiten"]
    assert register(REGISTRATIONS["moderne-zeiten"]) is GAMES["moderne-zeiten"]


def test_another_object_under_a_taken_name_is_refused() -> None:
    class Impostor:
        name = "moderne-zeiten"

    GAMES.load()
    with pytest.raises(RegistryError, match="two games named 'moderne-zeiten'"):
        register(Impostor())  # type: ignore[arg-type]


def _registry_of(monkeypatch: pytest.MonkeyPatch, *eps: EntryPoint) -> Registry:
    registry = Registry("airship.test-games")
    monkeypatch.setattr("services.games.registry.entry_points", lambda group: list(eps) if group == registry.group
                        else [])
    return registry


def test_a_game_that_does_not_load_fails_only_itself(monkeypatch: pytest.MonkeyPatch) -> None:
    """A bug in a game, or a venv naming a game the tree lacks: the others load, a read of it says why."""
    registry = _registry_of(monkeypatch, EntryPoint("gone", "services.games.gone.registration:REGISTRATION",
                                                    "airship.test-games"),
                            EntryPoint("nim", "tests.test_registries:NIM_REGISTRATION", "airship.test-games"),
                            EntryPoint("wrong", "tests.pipeline.nim:NIM", "airship.test-games"))
    assert registry.builtin() == ["gone", "nim", "wrong"]
    assert list(registry) == ["nim"] and registry["nim"] is NIM_REGISTRATION
    assert set(registry.broken()) == {"gone", "wrong"}
    assert "ModuleNotFoundError" in registry.broken()["gone"] and "not a Registration" in registry.broken()["wrong"]
    with pytest.raises(BrokenGame, match="'gone' is installed but does not load: ModuleNotFoundError") as failed:
        registry["gone"]
    assert isinstance(failed.value, BadOptions)  # the CLI prints it as one line


def test_a_broken_game_leaves_the_cli_working(tmp_path: Path) -> None:
    """The entry points are read when a game is needed, not when the command line is parsed: with a game that
    does not load installed, ``airship games`` lists the others and says why, ``airship play`` of another game
    runs, and of the broken one fails in one line."""
    dist = tmp_path / "broken_game-0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: broken-game\nVersion: 0\n")
    (dist / "entry_points.txt").write_text("[airship.games]\nbroken-game = airship_no_such_module:REGISTRATION\n")
    env = {**os.environ, "PYTHONPATH": f"{tmp_path}{os.pathsep}{ROOT}"}
    airship = [sys.executable, "-m", "services.cli"]
    listed = subprocess.run([*airship, "games"], capture_output=True, text=True, cwd=ROOT, env=env)
    assert listed.returncode == 0, listed.stderr
    assert "moderne-zeiten" in listed.stdout and "broken-game      does not load: ModuleNotFoundError" in listed.stdout
    played = subprocess.run([*airship, "play", "--game", "nim-free-table", "--players", "2", "--quiet"],
                            capture_output=True, text=True, cwd=ROOT, env=env)
    assert played.returncode != 0 and "unknown game 'nim-free-table'" in played.stderr
    played = subprocess.run([*airship, "play", "--game", "broken-game", "--quiet"], capture_output=True, text=True,
                            cwd=ROOT, env=env)
    assert played.returncode != 0 and "'broken-game' is installed but does not load" in played.stderr
    assert "Traceback" not in played.stderr


NIM_REGISTRATION = Registration(NIM)


def test_the_test_game_loads_through_one_entry_point_line(monkeypatch: pytest.MonkeyPatch) -> None:
    """tests/games/liars_dice is built as docs/game-contract.md says: its one entry-point line is all a registry
    needs (tests/conftest.py registers the same object, as a test game is not installed)."""
    from tests.games.liars_dice.game import GAME, REGISTRATION

    registry = _registry_of(monkeypatch, EntryPoint("liars-dice", "tests.games.liars_dice.game:REGISTRATION",
                                                    "airship.test-games"))
    assert registry["liars-dice"] is REGISTRATION and REGISTRATION.game is GAME and registry.broken() == {}
    assert REGISTRATION.perturber() is not None and REGISTRATION.schemas is not None
    assert REGISTRATIONS["liars-dice"] is REGISTRATION and "liars-dice" not in builtin_games()


def test_a_registry_of_an_empty_group_holds_what_is_registered() -> None:
    registry = Registry("airship.nothing-here")
    assert registry.builtin() == [] and len(registry) == 0
    registry.register(NIM_REGISTRATION)
    assert dict(registry) == {"nim": NIM_REGISTRATION} and registry.builtin() == []


def test_game_modules_name_a_game_object_or_a_module_that_registers_itself() -> None:
    games = load_game_modules("services.pipeline.bench_game:TALLY, tests.pipeline.nim")
    assert [g.name for g in games] == ["tally"] and "tally" in GAMES and "nim" in GAMES
    with pytest.raises(RegistryError, match="has no 'NOPE'"):
        load_game_modules("services.pipeline.bench_game:NOPE")


def test_importing_the_registries_loads_no_game() -> None:
    """Loading is lazy: the game packages are imported on the first read of the registry, not before."""
    code = ("import json, sys, services.games, services.bots.plugins, services.chat.adapter, services.replay.render; "
            "print(json.dumps(sorted(m for m in sys.modules if m.startswith('services.games.'))))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True).stdout
    loaded = json.loads(out)
    assert not [m for m in loaded if m.split(".")[2] in {"moderne_zeiten", "modern_world", "mad_zeppelin"}], loaded


def _register_test_upcasters(registry: Upcasters) -> None:
    @registry.register(0, game="nim")
    def _count_to_n(raw: RawEvent) -> RawEvent:
        return {**raw, "n": raw.get("count")}


def test_upcasters_of_a_registration_are_registered_on_first_use(monkeypatch: pytest.MonkeyPatch) -> None:
    """A game's upcasters are named by its registration; the registry is a source of schemas.upcast's."""
    from services.games import registry as games_registry

    monkeypatch.setattr(games_registry, "builtin_registrations",
                        lambda: [Registration(NIM, upcasters=_register_test_upcasters)])
    upcasters = Upcasters(current=1, sources=[games_registry._game_upcasters])
    assert upcasters.upcast({"count": 2}, game="nim") == {"count": 2, "n": 2, "schema_version": 1}
    assert upcasters.upcast({"count": 2}, game="other") == {"count": 2, "schema_version": 1}

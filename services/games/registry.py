"""Registries of plug-ins, filled explicitly: the built-in ones from entry points, the others by the code
that uses them.

The built-in games, bot plug-ins, chat adapters and replay boards are declared in one place, as entry
points in ``pyproject.toml``::

    [project.entry-points."airship.games"]
    moderne-zeiten = "services.games.moderne_zeiten:GAME"

A :class:`Registry` loads its group (``importlib.metadata.entry_points(group=...)``) on first use: the
first read, not the import of this module. "Built-in" means declared by an entry point
(:meth:`Registry.builtin`). Anything else is added with :meth:`Registry.register` by the code that needs
it: a test registers its test game, ``airship bench`` the benchmark game, and a worker or projector the
games named in ``AIRSHIP_GAME_MODULES`` (:func:`load_game_modules`). Such games never appear among the
built-in ones.

Registering the same object again under the same name is harmless (a module that registers itself
when imported, then loaded through its entry point); a *different* object under a taken name is an error.

``GAMES`` (the game registry) and :func:`get_game` are re-exported by :mod:`services.games`.
"""

from __future__ import annotations

import importlib
import threading
from collections.abc import Callable, Iterator, MutableMapping
from importlib.metadata import EntryPoint, entry_points
from typing import Any, TypeVar

from services.games.base import Game
from services.games.errors import BadOptions

T = TypeVar("T")

GAMES_GROUP = "airship.games"


class RegistryError(RuntimeError):
    """A registration that cannot be right: two objects under one name, or an entry point that does not load."""


def _identical(registered: Any, loaded: Any) -> bool:
    return registered is loaded


class Registry(MutableMapping[str, T]):
    """Name -> plug-in, with the built-in plug-ins loaded from the entry points of ``group`` on first use.

    ``prepare`` turns what an entry point names into the registered object (e.g. a class into an instance);
    ``same(registered, loaded)`` says whether an entry point's object is the one already registered under its
    name (by default: the very same object); ``name_of`` gives the name an object says it has, checked
    against the entry point's name.

    Reading (``registry[name]``, ``in``, iteration, ``len``) loads the entry points first; ``register``
    does not, so a module may register itself while it is being loaded. ``registry[name] = obj`` replaces
    whatever was there (what a test's ``monkeypatch.setitem`` does); ``register`` refuses to.
    """

    def __init__(self, group: str, kind: str, *, prepare: Callable[[Any], T] | None = None,
                 same: Callable[[T, Any], bool] = _identical, name_of: Callable[[T], str] | None = None) -> None:
        self.group = group
        self.kind = kind
        self._prepare = prepare
        self._same = same
        self._name_of = name_of
        self._items: dict[str, T] = {}
        self._lock = threading.Lock()  # held only to change the mapping, never while importing
        self._loaded = False
        self._loading = threading.local()  # set while this thread loads the entry points

    # -- entry points ------------------------------------------------------------------------------
    def entry_points(self) -> list[EntryPoint]:
        """The entry points of the group, sorted by name (read from the installed metadata each time)."""
        return sorted(entry_points(group=self.group), key=lambda ep: ep.name)

    def builtin(self) -> list[str]:
        """The names of the built-in plug-ins: those declared by an entry point, sorted."""
        return sorted({ep.name for ep in self.entry_points()})

    def load(self) -> None:
        """Load the entry points now (reading does it on first use). A failing entry point is a
        :class:`RegistryError` naming it; the next read tries again. Two threads may load at once: each
        registers the same objects. A read while this thread loads (a module reading the registry as it
        is imported) sees what is registered so far."""
        if self._loaded or getattr(self._loading, "active", False):
            return
        self._loading.active = True
        try:
            for ep in self.entry_points():
                self._add_entry_point(ep)
            self._loaded = True
        finally:
            self._loading.active = False

    def _add_entry_point(self, ep: EntryPoint) -> None:
        try:
            loaded = ep.load()
        except Exception as e:
            raise RegistryError(f"{self.kind} '{ep.name}' (entry point {ep.value!r} of {self.group}) does not "
                                f"load: {type(e).__name__}: {e}") from e
        with self._lock:
            registered = self._items.get(ep.name)
        if registered is not None and self._same(registered, loaded):
            return  # it registered itself when its module was imported
        obj = self._prepare(loaded) if self._prepare is not None else loaded
        if self._name_of is not None and self._name_of(obj) != ep.name:
            raise RegistryError(f"the entry point '{ep.name}' of {self.group} names {ep.value!r}, whose name "
                                f"is '{self._name_of(obj)}'")
        self.register(ep.name, obj)

    # -- registration ------------------------------------------------------------------------------
    def register(self, name: str, obj: T) -> T:
        """Add ``obj`` under ``name``. The same object again is a no-op; another object under a taken name
        is a :class:`RegistryError`. Returns what is registered under ``name``."""
        with self._lock:
            registered = self._items.get(name)
            if registered is None:
                self._items[name] = obj
                return obj
            if registered is obj or self._same(registered, obj):
                return registered
            raise RegistryError(f"two {self.kind}s named '{name}': {registered!r} is registered, not {obj!r}")

    # -- the mapping -------------------------------------------------------------------------------
    def __getitem__(self, name: str) -> T:
        self.load()
        return self._items[name]

    def __setitem__(self, name: str, obj: T) -> None:
        with self._lock:
            self._items[name] = obj

    def __delitem__(self, name: str) -> None:
        with self._lock:
            del self._items[name]

    def __iter__(self) -> Iterator[str]:
        self.load()
        return iter(list(self._items))

    def __len__(self) -> int:
        self.load()
        return len(self._items)

    def __contains__(self, name: object) -> bool:
        self.load()
        return name in self._items

    def __repr__(self) -> str:
        return f"Registry({self.group!r}, {sorted(self._items)})"


def _game_name(game: Game[Any]) -> str:
    return game.name


GAMES: Registry[Game[Any]] = Registry(GAMES_GROUP, "game", name_of=_game_name)
"""Game name -> the object implementing :class:`services.games.base.Game`."""


def register(game: Game[Any]) -> Game[Any]:
    """Register a game that is not built in (a test game, the benchmark game) under its name."""
    return GAMES.register(game.name, game)


def get_game(name: str) -> Game[Any]:
    try:
        return GAMES[name]
    except KeyError:
        hint = "" if GAMES.builtin() else " (no game is declared: is airship installed? pip install -e .)"
        raise BadOptions(f"unknown game '{name}'; known games: {', '.join(sorted(GAMES))}{hint}") from None


def builtin_games() -> list[str]:
    """The built-in games (declared by an entry point of ``airship.games``), sorted: what chaos runs,
    benchmarks and the tests that loop over every game cover. Test games and the benchmark game are not
    among them, even once registered."""
    return GAMES.builtin()


def is_builtin(game: Game[Any]) -> bool:
    return game.name in GAMES.builtin() and GAMES.get(game.name) is game


def default_seats(game: Game[Any]) -> int:
    """A typical table: four players where the game allows it."""
    return min(max(4, game.min_seats), game.max_seats)


def load_game_modules(spec: str) -> list[Game[Any]]:
    """Register games beyond the built-in ones, named in ``spec`` (``AIRSHIP_GAME_MODULES``), comma-separated:

    - ``module:attribute``: the game object ``attribute`` of ``module``, registered here
      (``services.pipeline.bench_game:TALLY``);
    - ``module``: the module is imported and registers its games itself (``tests.pipeline.nim``).

    Returns the games registered as ``module:attribute``."""
    games: list[Game[Any]] = []
    for item in filter(None, (part.strip() for part in spec.split(","))):
        module_name, _, attribute = item.partition(":")
        module = importlib.import_module(module_name.strip())
        if attribute:
            try:
                game = getattr(module, attribute.strip())
            except AttributeError:
                raise RegistryError(f"'{item}': {module_name} has no '{attribute}'") from None
            games.append(register(game))
    return games

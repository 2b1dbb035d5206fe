"""The registry of games: one :class:`~services.games.registration.Registration` per game, filled explicitly.

The built-in games are declared in one place, one entry point each in ``pyproject.toml``::

    [project.entry-points."airship.games"]
    moderne-zeiten = "services.games.moderne_zeiten.registration:REGISTRATION"

:data:`REGISTRATIONS` loads the group (``importlib.metadata.entry_points(group=...)``) on first use: the first
read, not the import of this module. "Built-in" means declared by an entry point (:meth:`Registry.builtin`).
Anything else is added with :func:`register` by the code that needs it: a test registers its test game,
``airship bench`` the benchmark game, and a worker or projector the games named in ``AIRSHIP_GAME_MODULES``
(:func:`load_game_modules`). Such games never appear among the built-in ones.

A game whose entry point does not load (a bug in it, or a venv that names a game the tree lacks) fails only
itself: it is left out of the registry, a read of it raises :class:`RegistryError` with the cause, and every
other game and command works. Registering the same object again under the same name is harmless; a
*different* object under a taken name is an error.

``GAMES`` (name -> the rules object) and :func:`get_game` are re-exported by :mod:`services.games`.
"""

from __future__ import annotations

import importlib
import threading
from collections.abc import Iterator, MutableMapping
from dataclasses import replace
from importlib.metadata import EntryPoint, entry_points
from typing import TYPE_CHECKING, Any

from schemas.upcast import UPCASTERS, Upcasters
from services.games.base import Game
from services.games.errors import BadOptions
from services.games.registration import Registration, bare

if TYPE_CHECKING:
    from schemas.game_schemas import GameSchemas

GAMES_GROUP = "airship.games"


class RegistryError(RuntimeError):
    """A registration that cannot be right: two objects under one name, or an entry point that does not load."""


class BrokenGame(RegistryError, BadOptions):
    """A read of a built-in game whose entry point does not load: the command that needs it is refused with the
    cause (the CLI prints one line), every other game works."""

    def __init__(self, reason: str) -> None:
        BadOptions.__init__(self, reason)


class Registry(MutableMapping[str, Registration]):
    """Name -> registration, the built-in ones loaded from the entry points of ``group`` on first use.

    Reading (``registry[name]``, ``in``, iteration, ``len``) loads the entry points first; ``register``
    does not, so a module may register itself while it is being loaded. ``registry[name] = obj`` replaces
    whatever was there (what a test's ``monkeypatch.setitem`` does); ``register`` refuses to.
    """

    def __init__(self, group: str) -> None:
        self.group = group
        self._items: dict[str, Registration] = {}
        self._broken: dict[str, str] = {}  # name -> why its entry point does not load
        self._lock = threading.Lock()  # held only to change the mapping, never while importing
        self._loaded = False
        self._loading = threading.local()  # set while this thread loads the entry points

    # -- entry points ------------------------------------------------------------------------------
    def entry_points(self) -> list[EntryPoint]:
        """The entry points of the group, sorted by name (read from the installed metadata each time)."""
        return sorted(entry_points(group=self.group), key=lambda ep: ep.name)

    def builtin(self) -> list[str]:
        """The names of the built-in games: those declared by an entry point (loading or not), sorted."""
        return sorted({ep.name for ep in self.entry_points()})

    def broken(self) -> dict[str, str]:
        """The built-in games whose entry point did not load, with the reason."""
        self.load()
        return dict(self._broken)

    def load(self) -> None:
        """Load the entry points now (reading does it on first use). One that fails is recorded as broken
        (:meth:`broken`, and a read of it raises); the others load. Two threads may load at once: each
        registers the same objects. A read while this thread loads (a module reading the registry as it is
        imported) sees what is registered so far."""
        if self._loaded or getattr(self._loading, "active", False):
            return
        self._loading.active = True
        try:
            for ep in self.entry_points():
                try:
                    self._add_entry_point(ep)
                except RegistryError as e:
                    self._broken[ep.name] = str(e)
                except Exception as e:  # a registration whose checks fail
                    self._broken[ep.name] = f"{type(e).__name__}: {e}"
            self._loaded = True
        finally:
            self._loading.active = False

    def _add_entry_point(self, ep: EntryPoint) -> None:
        try:
            loaded = ep.load()
        except Exception as e:
            raise RegistryError(f"{type(e).__name__}: {e} (entry point {ep.value!r} of {self.group})") from e
        if not isinstance(loaded, Registration):
            raise RegistryError(f"the entry point '{ep.name}' of {self.group} names {ep.value!r}, which is not "
                                f"a Registration")
        if loaded.name != ep.name:
            raise RegistryError(f"the entry point '{ep.name}' of {self.group} names {ep.value!r}, whose name "
                                f"is '{loaded.name}'")
        self.register(loaded)

    # -- registration ------------------------------------------------------------------------------
    def register(self, registration: Registration) -> Registration:
        """Add ``registration`` under its game's name. The same one again (or one of the same game object)
        is a no-op; another game under a taken name is a :class:`RegistryError`. Returns what is registered."""
        name = registration.name
        with self._lock:
            registered = self._items.get(name)
            if registered is None:
                self._items[name] = registration
                return registration
            if registered is registration or registered.game is registration.game:
                return registered
        raise RegistryError(f"two games named '{name}': {registered.game!r} is registered, not "
                            f"{registration.game!r}")

    # -- the mapping -------------------------------------------------------------------------------
    def __getitem__(self, name: str) -> Registration:
        self.load()
        try:
            return self._items[name]
        except KeyError:
            if name in self._broken:
                raise BrokenGame(f"game '{name}' is installed but does not load: {self._broken[name]}") from None
            raise

    def __setitem__(self, name: str, registration: Registration) -> None:
        with self._lock:
            self._items[name] = registration

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


class Games(MutableMapping[str, Game[Any]]):
    """Name -> the rules object: a view of :data:`REGISTRATIONS` for the code that needs only the rules.
    Setting a name replaces the game of its registration (a test's ``monkeypatch.setitem``)."""

    def __init__(self, registry: Registry) -> None:
        self.registry = registry

    def builtin(self) -> list[str]:
        return self.registry.builtin()

    def load(self) -> None:
        self.registry.load()

    def __getitem__(self, name: str) -> Game[Any]:
        return self.registry[name].game

    def __setitem__(self, name: str, game: Game[Any]) -> None:
        registered = self.registry.get(name)
        self.registry[name] = bare(game) if registered is None else replace(registered, game=game)

    def __delitem__(self, name: str) -> None:
        del self.registry[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self.registry)

    def __len__(self) -> int:
        return len(self.registry)

    def __contains__(self, name: object) -> bool:
        return name in self.registry

    def __repr__(self) -> str:
        return f"Games({sorted(self.registry)})"


REGISTRATIONS = Registry(GAMES_GROUP)
"""Game name -> its :class:`Registration`."""
GAMES = Games(REGISTRATIONS)
"""Game name -> the object implementing :class:`services.games.base.Game`."""


def register(game: Game[Any] | Registration) -> Game[Any]:
    """Register a game that is not built in (a test game, the benchmark game) under its name: its rules
    alone, or its whole :class:`Registration`. Returns the game registered under that name."""
    registration = game if isinstance(game, Registration) else bare(game)
    return REGISTRATIONS.register(registration).game


def extend(name: str, **parts: Any) -> Registration:
    """Add parts (``bot=``, ``chat=``, ``board=``...) to the registration of a game registered by the code
    that uses it (a test's plug-in for a test game). Returns the new registration."""
    registration = replace(REGISTRATIONS[name], **parts)
    REGISTRATIONS[name] = registration
    return registration


def registration_of(name: str) -> Registration:
    """The game's registration, or :class:`BadOptions` naming the known games (:class:`BrokenGame`, saying why,
    for a built-in game that does not load)."""
    try:
        return REGISTRATIONS[name]
    except KeyError:
        hint = "" if REGISTRATIONS.builtin() else " (no game is declared: is airship installed? pip install -e .)"
        raise BadOptions(f"unknown game '{name}'; known games: {', '.join(sorted(GAMES))}{hint}") from None


def get_game(name: str) -> Game[Any]:
    return registration_of(name).game


def builtin_games() -> list[str]:
    """The built-in games (declared by an entry point of ``airship.games``), sorted: what chaos runs,
    benchmarks and the tests that loop over every game cover. Test games and the benchmark game are not
    among them, even once registered; a built-in game that does not load is (its tests fail)."""
    return REGISTRATIONS.builtin()


def builtin_registrations() -> list[Registration]:
    """The registrations of the built-in games that load, sorted by name."""
    return [REGISTRATIONS[name] for name in builtin_games() if name in REGISTRATIONS]


def builtin_schemas() -> dict[str, GameSchemas]:
    """Name -> wire shapes of every built-in game that declares them: what ``schemas/json`` is made of. A
    built-in game that does not load is an error here (the checked-in files would lose it)."""
    schemas = {name: REGISTRATIONS[name].schemas for name in builtin_games()}
    return {name: s for name, s in schemas.items() if s is not None}


def _game_upcasters(upcasters: Upcasters) -> None:
    """The upcasters of every built-in game that has them (a source of :data:`schemas.upcast.UPCASTERS`)."""
    for registration in builtin_registrations():
        if registration.upcasters is not None:
            registration.upcasters(upcasters)


UPCASTERS.add_source(_game_upcasters)


def is_builtin(game: Game[Any]) -> bool:
    return game.name in REGISTRATIONS.builtin() and GAMES.get(game.name) is game


def default_seats(game: Game[Any]) -> int:
    """A typical table: four players where the game allows it."""
    return min(max(4, game.min_seats), game.max_seats)


def load_game_modules(spec: str) -> list[Game[Any]]:
    """Register games beyond the built-in ones, named in ``spec`` (``AIRSHIP_GAME_MODULES``), comma-separated:

    - ``module:attribute``: the game object (or registration) ``attribute`` of ``module``, registered here
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

"""What a game provides to be played in chat, and the registry of those adapters.

A game without its own adapter gets :class:`~services.chat.generic.DefaultAdapter`, which works from
the legal commands alone. A game's adapter may subclass it and override only what it does better
(a board in a few lines, events in words, shorthand commands like ``bid 5``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, cast

from schemas.envelopes import EventEnvelope
from services.games.registry import Registry

CommandDict = dict[str, Any]


@dataclass(frozen=True, slots=True)
class ChatError:
    """Input that is not a command the player may send, with a reply that helps (what is legal now)."""

    message: str


class ChatAdapter(Protocol):
    def render_view(self, view: Mapping[str, Any]) -> list[str]:
        """A seat's (or the public) view as a few short chat lines."""
        ...

    def render_event(self, envelope: EventEnvelope) -> str | None:
        """One event, already as the reader may see it (``for_seat``), as a chat line; None to stay quiet."""
        ...

    def parse(self, text: str, legal: Sequence[Mapping[str, Any]]) -> CommandDict | ChatError:
        """Chat text into a command ``{"type", "body"}``, given the commands legal now; never raises."""
        ...

    def format_command(self, command: Mapping[str, Any]) -> str:
        """The chat form of a command; ``parse`` reads it back to the same command."""
        ...

    def describe_legal(self, legal: Sequence[Mapping[str, Any]]) -> str:
        """The legal commands as one short help text."""
        ...


def _instance(adapter: Any) -> ChatAdapter:
    """An entry point names the adapter class (or an instance); the registry holds one instance."""
    return cast(ChatAdapter, adapter() if isinstance(adapter, type) else adapter)


def _same_adapter(registered: ChatAdapter, loaded: Any) -> bool:
    """One class, one adapter: an instance of the class an entry point names is that entry point's adapter."""
    return registered is loaded or type(registered) is (loaded if isinstance(loaded, type) else type(loaded))


ADAPTERS: Registry[ChatAdapter] = Registry("airship.chat", "chat adapter", prepare=_instance, same=_same_adapter)
"""Game name -> its chat adapter: the built-in ones declared by entry points of ``airship.chat`` (the
adapter class) in ``pyproject.toml``, loaded on first use."""


def register_adapter(game: str) -> Callable[[type[Any]], type[Any]]:
    """Class decorator: an instance of the class is ``game``'s chat adapter (for a game that is not built
    in; a built-in game's adapter is declared by its entry point)."""

    def add(cls: type[Any]) -> type[Any]:
        ADAPTERS.register(game, _instance(cls))
        return cls

    return add


def get_adapter(game: str) -> ChatAdapter:
    """The game's adapter; the generic one for a game without its own."""
    from services.chat.generic import DEFAULT

    return ADAPTERS.get(game, DEFAULT)

"""What a game provides to be played in chat, and the registry of those adapters.

A game without its own adapter gets :class:`~services.chat.generic.DefaultAdapter`, which works from
the legal commands alone. A game's adapter may subclass it and override only what it does better
(a board in a few lines, events in words, shorthand commands like ``bid 5``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from schemas.envelopes import EventEnvelope

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


ADAPTERS: dict[str, ChatAdapter] = {}


def register_adapter(game: str) -> Callable[[type[Any]], type[Any]]:
    """Class decorator: instances of the class are ``game``'s chat adapter."""

    def add(cls: type[Any]) -> type[Any]:
        ADAPTERS[game] = cls()
        return cls

    return add


def get_adapter(game: str) -> ChatAdapter:
    from services.chat import games  # noqa: F401  (registers the built-in games' adapters)
    from services.chat.generic import DEFAULT

    return ADAPTERS.get(game, DEFAULT)

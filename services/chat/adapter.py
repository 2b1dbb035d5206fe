"""What a game provides to be played in chat: its adapter, the ``chat`` of its registration
(:mod:`services.games.registration`; by convention the module ``chat.py`` of the game's package).

A game without its own adapter gets :class:`~services.chat.generic.DefaultAdapter`, which works from
the legal commands alone. A game's adapter may subclass it and override only what it does better
(a board in a few lines, events in words, shorthand commands like ``bid 5``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from schemas.envelopes import EventEnvelope
from services.games.registry import REGISTRATIONS

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


def get_adapter(game: str) -> ChatAdapter:
    """The game's adapter (the ``chat`` of its registration); the generic one for a game without its own,
    or a name no game has."""
    from services.chat.generic import DEFAULT

    registration = REGISTRATIONS.get(game)
    return registration.chat if registration is not None and registration.chat is not None else DEFAULT


def secret_commands(game: str) -> frozenset[str]:
    """The game's commands whose choice the rules hide from other players (``secret_commands`` of its
    registration): a chat network takes them privately only."""
    registration = REGISTRATIONS.get(game)
    return registration.secret_commands if registration is not None else frozenset()

"""How each game declares its wire contract: command, event and view models plus options."""

from __future__ import annotations

from dataclasses import dataclass

from pydantic import BaseModel, ConfigDict


class Body(BaseModel):
    """Base for command and event bodies: unknown fields are an error."""

    model_config = ConfigDict(extra="forbid")


class CommandBody(Body):
    """Base for command bodies: validated strictly at run time (``services.games.kit.parse_body``):
    no coercion (``"4"`` is not 4, ``true`` is not 1), unknown fields refused."""

    model_config = ConfigDict(extra="forbid", strict=True)


class ViewModel(BaseModel):
    """Base for views. Extra fields are an error so a view cannot silently grow a leak."""

    model_config = ConfigDict(extra="forbid")


@dataclass(frozen=True)
class GameSchemas:
    """A game's contract. Event models must accept both the full body and the redacted body."""

    game: str
    options: type[BaseModel]
    commands: dict[str, type[BaseModel]]
    events: dict[str, type[BaseModel]]
    view: type[BaseModel]

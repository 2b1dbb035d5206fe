"""How each game declares its wire contract: command, event and view models plus options."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

ABANDON_COMMAND = "match.abandon"
"""The system command that ends a running match early, as its players agreed (published by the gateway) or once
nobody moved in it for the idle time (published by the archiver, rule ``expired``); never accepted from a client:
client command types are identifiers, without a dot). Its body is a
:class:`MatchAbandonedEvent`'s."""

MATCH_ABANDONED = "MatchAbandoned"
"""The event every game's ``evolve`` accepts whatever its rules: the match is over, abandoned; its outcome names
no winner, scores 0 and says ``detail.abandoned``."""


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


class MatchAbandonedEvent(Body):
    """The match ended early: its players agreed (``POST /matches/{id}/abandon``), or nobody moved in it for the
    service's idle time and the service ended it (rule ``expired``)."""

    votes: list[int] = Field(description="The seats that agreed (none for an expired match).")
    rule: Literal["all", "idle", "expired"] = Field(
        description="all: every seat agreed; idle: every seat not to act agreed and the seats to act stayed "
                    "silent past the idle time (schemas.gateway.abandon_agreed); expired: nobody moved in the "
                    "match for the service's idle time (AIRSHIP_IDLE_MATCH_S), so the service ended it.")


@dataclass(frozen=True)
class GameSchemas:
    """A game's contract. Event models must accept both the full body and the redacted body."""

    game: str
    options: type[BaseModel]
    commands: dict[str, type[BaseModel]]
    events: dict[str, type[BaseModel]]
    view: type[BaseModel]

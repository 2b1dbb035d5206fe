"""How each game declares its wire contract: command, event and view models plus options."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

ABANDON_COMMAND = "match.abandon"
"""The system command that ends a running match early, as its players agreed (published by the gateway) or once
nobody moved in it for the idle time (published by the archiver, rule ``expired``); never accepted from a client:
client command types are identifiers, without a dot). Its body is a
:class:`MatchAbandonedEvent`'s."""

PURGE_COMMAND = "match.purge"
"""The system command that removes a match's keys from Redis once the archiver wrote and verified its archive (or,
for a match still open past ``AIRSHIP_OPEN_TTL_S``, once nobody filled it): published by the archiver, decided by a
worker, which removes the keys only if the match is finished at the version in the body (or open and past the
worker's own ``AIRSHIP_OPEN_TTL_S``) and otherwise deletes nothing. Never accepted from a client (a dot). Its body is
a :class:`MatchPurgeBody`; it is stored nowhere (no result, no log entry: the match's keys go)."""

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


class OutcomeView(ViewModel):
    """How a finished match ended: each seat's score, the winners (none, one or several), game-specific detail
    (``abandoned``: its players ended it early)."""

    scores: list[int]
    winners: list[int]
    detail: dict[str, Any]


class GameView(ViewModel):
    """The header every game's view starts with, added by the framework (``services.games.skeleton``); a game's
    view model subclasses it and declares only its own fields."""

    seat: int | None = Field(description="Whose view this is; null: a spectator's (the public view).")
    to_act: list[int] = Field(description="The seats the match waits for.")
    finished: bool
    outcome: OutcomeView | None = Field(description="How the match ended; null while it runs.")


class MatchPurgeBody(Body):
    """The body of ``match.purge``: which kind of removal, and for a finished match the version archived."""

    status: Literal["finished", "open"]
    version: int = Field(default=0, ge=0, description="The version of the archive's last event (finished).")


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

"""How each game declares its wire contract: command, event and view models plus options."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from schemas.clock import CLOCK_EVENT_MODELS, TimeControl

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

CREATE_COMMAND = "match.create"
"""The system command that sets a match up (published by the gateway, #35): a worker draws the seed, runs the game's
``setup`` and writes the meta, the set-up events (log and feed), the seed and the open set; its result (accepted,
at the set-up's version) is recorded in the match's ``seen`` hash like any command's. The gateway chooses the match
id and waits for the result; it never sees the seed and cannot write a log, a meta or a feed. Body:
:class:`MatchCreateBody`. A match id that exists already is answered as created (an arena match is created by
whichever gateway's poll comes first, each with the same body)."""

JOIN_COMMAND = "match.join"
"""The system command that takes a seat (published by the gateway, #35): a worker gives a free seat the credential
hash in the body, insert-only (a taken seat stays taken), links it to the player when one is named, and starts the
match when the last seat is taken. Its result names the seat (accepted) or why not (rejected: ``full`` (not open),
``forbidden`` for a seat reserved for another player, ``conflict`` for a player already seated or a seat taken,
``arena_seat_lapsed``, ``expired`` past the gateway's deadline, ``not_found``). Body: :class:`MatchJoinBody`."""

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


class MatchCreateBody(Body):
    """The body of ``match.create``: what the gateway checked (game, seats, options), the seats reserved for
    registered players, and service fields of the meta (an arena match's claim deadline)."""

    game: str = Field(max_length=40)
    seats: int = Field(ge=1, le=16)
    options: dict[str, object] = Field(default_factory=dict)
    reveal_log: bool = True
    reserved: dict[int, str] = Field(default_factory=dict, description="seat -> the player it is reserved for")
    claim_by_ms: int | None = Field(default=None, ge=0, description="An arena match: its seats must be collected "
                                    "by then (ms since the epoch), or it is dissolved.")
    clock: TimeControl | None = Field(default=None, description="The match's time control (#29); none: no clock.")


class MatchJoinBody(Body):
    """The body of ``match.join``: the seat (a seat token names its seat, so the gateway chooses it), the sha256 of
    the seat's new token (the token itself never reaches Redis), the registered player taking it, and the gateway's
    deadline (ms since the epoch): a join decided later is refused, as the gateway has answered its client."""

    seat: int = Field(ge=0, le=15)
    credential_hash: str = Field(pattern="^[0-9a-f]{64}$")
    player: str | None = Field(default=None, max_length=64)
    until_ms: int = Field(ge=0)


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

    def __post_init__(self) -> None:
        for name, model in CLOCK_EVENT_MODELS.items():  # the service's clock events may be in every game's log
            self.events.setdefault(name, model)

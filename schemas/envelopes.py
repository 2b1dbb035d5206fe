"""Envelopes: what travels on the command streams, the event logs and the result streams."""

from __future__ import annotations

import time
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from schemas.clock import ClockView, TimeControl

EVENT_SCHEMA_VERSION = 1



class Envelope(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class CommandEnvelope(Envelope):
    """A player's command as published on ``{p}:commands`` by the gateway (or an embedded trusted client),
    which authenticated the seat: the envelope carries no credential."""

    command_id: str = Field(min_length=1, max_length=64, pattern=r"^[A-Za-z0-9_.:-]+$",
                            description="Unique per command; a re-sent command id is applied at most once.")
    match_id: str = Field(min_length=1, max_length=64, pattern=r"^[A-Za-z0-9_.-]+$")
    seat: int = Field(ge=0, le=15)
    type: str = Field(min_length=1, max_length=40, description="The game's command type, e.g. 'bid'.")
    body: dict[str, Any] = Field(default_factory=dict)
    expected_version: int | None = Field(
        default=None, ge=0, description="If set, reject unless the match is at exactly this version."
    )


class EventEnvelope(Envelope):
    """One event of a match's log, as stored and as exported (one JSON line each)."""

    match_id: str
    version: int = Field(ge=1, description="1 for the first event; the log has no gaps.")
    type: str
    body: dict[str, Any]
    visible_to: list[int] | None = Field(
        default=None, description="None: public. Otherwise only these seats may see `body`."
    )
    redacted: dict[str, Any] | None = Field(
        default=None, description="What everyone else sees instead of `body` when `visible_to` is set."
    )
    command_id: str | None = Field(default=None, description="The command that caused it; None for set-up.")
    seat: int | None = Field(default=None, description="The seat whose command caused it.")
    command: dict[str, Any] | None = Field(
        default=None,
        description="On the first event of each command: the command itself ({'type', 'body'}), so a log can be "
        "verified by deciding again. Only its sender and operators see it.",
    )
    schema_version: int = EVENT_SCHEMA_VERSION

    def seen_by(self, seat: int | None) -> dict[str, Any]:
        if self.visible_to is None or (seat is not None and seat in self.visible_to):
            return self.body
        return self.redacted or {}

    def public(self) -> EventEnvelope:
        """The envelope with the secrets stripped, for public feeds and spectators."""
        return self.for_seat(None)

    def for_seat(self, seat: int | None) -> EventEnvelope:
        """The envelope as ``seat`` (None: a spectator) may see it: secrets and others' commands removed."""
        update: dict[str, Any] = {}
        if self.visible_to is not None and (seat is None or seat not in self.visible_to):
            update.update(body=self.redacted or {}, redacted=None, visible_to=None)
        if self.command is not None and (seat is None or seat != self.seat):
            update["command"] = None
        return self.model_copy(update=update) if update else self


class CommandResult(Envelope):
    """The answer to one command, on ``{p}:match:<id>:results``."""

    command_id: str
    match_id: str
    seat: int | None = None
    status: Literal["accepted", "rejected"]
    version: int = Field(ge=0, description="The match version after the command (accepted) or as seen (rejected).")
    events: int = Field(default=0, ge=0, description="How many events the command appended.")
    code: str | None = Field(
        default=None, description="Stable rejection code: 'not_your_turn', 'illegal_move', 'bad_command', 'game_over', "
        "'conflict' (the match is past the expected_version sent), 'future_version' (the match has not reached it), "
        "'failed' (the command failed repeatedly); docs/gateway.md.")
    reason: str | None = Field(default=None, description="Why it was rejected, for people.")


class MatchMeta(Envelope):
    """A match's metadata (``{p}:match:<id>:meta``)."""

    match_id: str
    game: str
    seats: int
    options: dict[str, Any] = Field(default_factory=dict)
    seed: int | None = Field(default=None, description="The secret seed; stored apart, read by workers only.")
    status: Literal["open", "running", "finished"] = "running"
    reveal_log: bool = Field(default=True, description="Once finished, the whole log is public.")
    credential_hashes: dict[int, str] = Field(default_factory=dict,
                                              description="seat -> sha256 of its credential")
    players: dict[int, str] = Field(
        default_factory=dict,
        description="seat -> the registered player who joined it (rated seats; services.ratings). Carried by "
        "archive headers so the ladder can be rebuilt from the archive alone; empty when no seat was linked.")
    created_ms: int | None = Field(
        default=None, description="When the match was created (ms since the epoch); the ladder's canonical "
        "order. Archive headers carry it with `players`.")
    clock: TimeControl | None = Field(default=None, description="Its time control (#29; none: no clock); the log "
                                      "says it too (ClockSet).")


class ViewContract(Envelope):
    """What every view record carries, whatever the game: stored by the projector (:class:`ViewRecord`),
    answered and pushed by the gateway (``schemas.gateway.ViewAnswer``/``ViewMessage``). Read these fields,
    not keys of ``view``."""

    match_id: str
    key: str = Field(description="'public' or the seat number as text")
    version: int = Field(description="The match version this view reflects (its last event's). 0 while the match "
                         "waits for players: the gateway then serves the set-up with nobody to act and nothing legal.")
    view: dict[str, Any] = Field(description="The game's own view (its JSON Schema: schemas/json/<game>/view).")
    to_act: list[int] = Field(default_factory=list, description="The seats with a decision to make now (none "
                              "while the match waits for players).")
    finished: bool = Field(default=False, description="The match is over; no command is accepted.")
    outcome: dict[str, Any] | None = Field(
        default=None, description="Once finished: {'scores': [...], 'winners': [...], 'detail': {...}}.")
    abandoned: bool = Field(default=False, description="Finished early by its players' agreement (event "
                            "MatchAbandoned): no winner, every score 0, outcome.detail.abandoned.")
    legal: list[dict[str, Any]] = Field(
        default_factory=list,
        description="For the seat's own record when it must act: every command it may send now, as choices "
        "{'type', 'body', 'free'?}; each free field is described for the client to expand (kinds int, "
        "one_of, counts, multiset, subset, order: schemas/json/legal_choice.json).")
    clock: ClockView | None = Field(
        default=None, description="A clocked match's clocks (#29): every seat's deadline and remaining time; null "
        "for a match without a time control.")
    server_ms: int | None = Field(
        default=None, description="The gateway's time (ms since the epoch) when it sent this record: count a "
        "deadline down from `clock.seats[i].deadline_ms - server_ms`, not from your own clock. Null in the store.")

    def time_left_ms(self, seat: int, now_ms: int | None = None) -> int | None:
        """How long ``seat`` has left for its decision when this record was sent (``server_ms``; for a record read
        in process, ``now_ms`` or this machine's clock); None when it has no deadline. Subtract the time since the
        record arrived to count down."""
        clock = self.clock
        if clock is None or not 0 <= seat < len(clock.seats) or clock.seats[seat].deadline_ms is None:
            return None
        sent = self.server_ms if self.server_ms is not None else now_ms
        if sent is None:
            sent = int(time.time() * 1000)
        return max(0, int(clock.seats[seat].deadline_ms or 0) - sent)


class ViewRecord(ViewContract):
    """A read model as the projector stores it: one view, the version it reflects, and what every
    game's view has in common as declared fields."""

    @model_validator(mode="before")
    @classmethod
    def _from_older_records(cls, data: Any) -> Any:
        """Records stored before these fields were declared carried them only inside ``view``."""
        if isinstance(data, dict) and "finished" not in data and isinstance(data.get("view"), dict):
            view = data["view"]
            data = {**data, "to_act": list(view.get("to_act") or []), "finished": bool(view.get("finished")),
                    "outcome": view.get("outcome")}
        return data

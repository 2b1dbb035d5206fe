"""What the worker does with commands it cannot apply: the exceptions that sort them, rejection results with
bounded reasons, and the helpers that keep credentials out of dead letters."""

from __future__ import annotations

from dataclasses import replace

from schemas.codec import DecodeError, pack_obj, unpack_obj
from schemas.envelopes import CommandEnvelope, CommandResult
from services.games.errors import Rejected
from services.pipeline.ports import Delivery

REDACTED = "[redacted]"


class Retry(Exception):
    """The command could not be completed now (e.g. repeated conflicts); leave it pending."""


class Unanswerable(Exception):
    """Nobody can be answered (unknown match, unreadable envelope): record it as a dead letter."""


MAX_REASON = 200  # a reason never echoes more than this of anything (a 10 MB key must not become a reason)


def bounded(reason: str) -> str:
    return reason if len(reason) <= MAX_REASON else reason[: MAX_REASON - 1] + "…"


def rejection(env: CommandEnvelope, version: int, err: Rejected) -> CommandResult:
    return CommandResult(command_id=env.command_id, match_id=env.match_id, seat=env.seat, status="rejected",
                         version=version, code=err.code, reason=bounded(err.reason))


def without_credential(delivery: Delivery) -> Delivery:
    """The delivery as the dead-letter stream keeps it: a readable envelope's seat credential replaced
    (operators and the read-only user read dead letters; a credential would let them act for the seat)."""
    try:
        obj = unpack_obj(delivery.data)
    except DecodeError:
        return delivery
    if not isinstance(obj, dict) or obj.get("credential") is None:
        return delivery
    return replace(delivery, data=pack_obj({**obj, "credential": REDACTED}))


def salvage_ids(data: bytes) -> tuple[str, str] | None:
    """(match_id, command_id) from a malformed envelope, when both are readable and well-formed."""
    try:
        obj = unpack_obj(data)
    except DecodeError:
        return None
    if not isinstance(obj, dict):
        return None
    match_id, command_id = obj.get("match_id"), obj.get("command_id")
    if not (isinstance(match_id, str) and isinstance(command_id, str)):
        return None
    try:
        CommandEnvelope(command_id=command_id, match_id=match_id, seat=0, type="x")
    except ValueError:
        return None
    return match_id, command_id

"""msgpack on the wire and in storage; JSON for humans and other languages."""

from __future__ import annotations

import json
import zlib
from collections.abc import Mapping
from typing import Any, TypeVar

import msgpack
from pydantic import BaseModel, ValidationError

from schemas.envelopes import CommandResult, ViewRecord

M = TypeVar("M", bound=BaseModel)


class DecodeError(ValueError):
    """Bytes that are not a valid envelope of the expected kind."""


def pack(model: BaseModel) -> bytes:
    return msgpack.packb(model.model_dump(mode="python", exclude_none=True), use_bin_type=True)  # type: ignore[no-any-return]


def pack_obj(obj: Any) -> bytes:
    return msgpack.packb(obj, use_bin_type=True)  # type: ignore[no-any-return]


def unpack_obj(data: bytes) -> Any:
    try:
        return msgpack.unpackb(data, raw=False, strict_map_key=False)
    except Exception as e:  # msgpack raises several unrelated types on garbage
        raise DecodeError(f"not valid msgpack: {e}") from e


def unpack(model: type[M], data: bytes) -> M:
    obj = unpack_obj(data)
    if not isinstance(obj, dict):
        raise DecodeError(f"expected a map, got {type(obj).__name__}")
    try:
        return model.model_validate(obj)
    except ValidationError as e:
        # never the input: it may hold a seat credential, and the message reaches results and logs
        raise DecodeError(f"invalid {model.__name__}: {e.errors(include_url=False, include_input=False)[:3]}") from e


_STATUS = {"accepted": 0, "rejected": 1}
_STATUS_OF = {0: "accepted", 1: "rejected"}


def pack_result(result: CommandResult, with_id: bool = True) -> bytes:
    """A command result as stored: a msgpack array ``[command_id, status (0 accepted, 1 rejected), version,
    events, seat, code, reason]`` with the trailing empty fields left out and without the match id, which every
    reader knows from the key. Less than half the bytes of the model's map. Without ``with_id`` the command id
    is left out too, for where the reader knows it (the ``seen`` hash's field, a results entry's ``c``)."""
    fields: list[Any] = [result.command_id, _STATUS[result.status], result.version, result.events, result.seat,
                         result.code, result.reason]
    while fields[-1] is None:
        fields.pop()
    return msgpack.packb(fields if with_id else fields[1:], use_bin_type=True)  # type: ignore[no-any-return]


def unpack_result(data: bytes, match_id: str, command_id: str | bytes | None = None) -> CommandResult:
    """A stored result of match ``match_id``: the compact array of :func:`pack_result` (``command_id`` given
    when it was stored without it), or the map results were stored as before."""
    obj = unpack_obj(data)
    if isinstance(obj, dict):
        return unpack(CommandResult, data)
    if isinstance(obj, list) and obj and not isinstance(obj[0], str):  # stored without its id
        if command_id is None:
            raise DecodeError("a stored result without its command id, and none given")
        obj = [command_id.decode() if isinstance(command_id, bytes) else command_id, *obj]
    if not isinstance(obj, list) or not 4 <= len(obj) <= 7 or obj[1] not in _STATUS_OF:
        raise DecodeError("not a stored command result")
    command_id, status, version, events, *rest = obj
    seat, code, reason = (*rest, None, None, None)[:3]
    try:
        return CommandResult(command_id=command_id, match_id=match_id, status=_STATUS_OF[status], version=version,
                             events=events, seat=seat, code=code, reason=reason)
    except ValidationError as e:
        raise DecodeError(f"invalid stored result: {e.errors(include_url=False, include_input=False)[:3]}") from e


RESULT_FIELD, RESULT_ID_FIELD = b"r", b"c"  # a results-stream entry: the result (without its id) and the id


def result_entry(fields: Mapping[bytes, bytes], match_id: str) -> CommandResult:
    """The result a ``match:<id>:results`` stream entry holds (entries written before the id had its own field
    carry it inside ``r``)."""
    return unpack_result(fields[RESULT_FIELD], match_id, fields.get(RESULT_ID_FIELD))


def to_json_line(model: BaseModel) -> str:
    return model.model_dump_json(exclude_none=True)


def from_json_line(model: type[M], line: str) -> M:
    try:
        return model.model_validate(json.loads(line))
    except (ValueError, ValidationError) as e:
        raise DecodeError(f"invalid {model.__name__} line: {e}") from e


ZLIB_HEADER = 0x78  # the first byte of a zlib stream; as msgpack a positive integer, never a view record's map


def pack_view(record: ViewRecord) -> bytes:
    """A view record as stored: its msgpack map, zlib-compressed (a view repeats its field names and the
    game's words for every seat and card; compressed it keeps about a third of the bytes)."""
    return zlib.compress(pack(record), 1)


def unpack_view(data: bytes) -> ViewRecord:
    """A stored view record: compressed by :func:`pack_view`, or the plain msgpack map stored before."""
    if data[:1] == bytes([ZLIB_HEADER]):
        try:
            data = zlib.decompress(data)
        except zlib.error as e:
            raise DecodeError(f"not a compressed view record: {e}") from e
    return unpack(ViewRecord, data)

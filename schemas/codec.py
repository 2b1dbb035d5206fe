"""msgpack on the wire and in storage; JSON for humans and other languages."""

from __future__ import annotations

import json
from typing import Any, TypeVar

import msgpack
from pydantic import BaseModel, ValidationError

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


def to_json_line(model: BaseModel) -> str:
    return model.model_dump_json(exclude_none=True)


def from_json_line(model: type[M], line: str) -> M:
    try:
        return model.model_validate(json.loads(line))
    except (ValueError, ValidationError) as e:
        raise DecodeError(f"invalid {model.__name__} line: {e}") from e

"""The gateway's edge: reading request bodies (JSON or msgpack, size-capped), answering in the format the
client asked for, and problems (``application/problem+json``) for every refusal."""

from __future__ import annotations

import json
from typing import Any, TypeVar

import msgpack
from fastapi import Request
from fastapi.responses import Response
from pydantic import BaseModel, ValidationError
from starlette.requests import ClientDisconnect

from schemas.gateway import Problem

M = TypeVar("M", bound=BaseModel)
MSGPACK = "application/msgpack"
BODY_TYPES = frozenset({"application/json", MSGPACK})  # what a request body may be sent as
MAX_DEPTH = 32
INT_RANGE = (-(2**63), 2**64 - 1)  # what msgpack (the format of the streams and the store) can hold
TITLES = {400: "Bad Request", 401: "Unauthorized", 403: "Forbidden", 404: "Not Found", 409: "Conflict",
          413: "Payload Too Large", 422: "Unprocessable Content", 429: "Too Many Requests",
          503: "Service Unavailable"}


class Refused(Exception):
    """A request the gateway refuses; becomes a problem answer with ``status``."""

    def __init__(self, status: int, code: str, detail: str, field: str | None = None,
                 headers: dict[str, str] | None = None) -> None:
        super().__init__(detail)
        self.status = status
        self.code = code
        self.detail = detail[:300]
        self.field = field
        self.headers = headers or {}

    def problem(self) -> Problem:
        return Problem(title=TITLES.get(self.status, "Error"), status=self.status, code=self.code,
                       detail=self.detail, field=self.field)


def store_refusal(error: Exception) -> Refused:
    """The answer to a Redis error: Redis at ``maxmemory`` (``-OOM``: it refuses what would grow memory) is full,
    not down — 503 ``store_full``, counted in ``airship_gateway_store_full_total`` (alert AirshipRedisFull,
    docs/runbooks/redis.md); anything else 503 ``unavailable``."""
    import redis

    from services import metrics

    if isinstance(error, redis.exceptions.OutOfMemoryError):
        metrics.GATEWAY_STORE_FULL.inc()
        return Refused(503, "store_full", "the service's store is full; try again later",
                       headers={"Retry-After": "30"})
    return Refused(503, "unavailable", "the service's store is unavailable", headers={"Retry-After": "1"})


def wants_msgpack(request: Request) -> bool:
    return MSGPACK in request.headers.get("accept", "")


def encode(request: Request | None, payload: Any, status: int = 200, media: str = "application/json",
           headers: dict[str, str] | None = None) -> Response:
    """``payload`` (a model or plain data) as JSON, or msgpack when the client accepts it."""
    data = payload.model_dump(mode="json") if isinstance(payload, BaseModel) else payload
    if request is not None and wants_msgpack(request):
        return Response(msgpack.packb(data, use_bin_type=True), status, headers, MSGPACK)
    return Response(json.dumps(data, separators=(",", ":")), status, headers, media)


def problem_response(request: Request | None, refused: Refused) -> Response:
    return encode(request, refused.problem(), refused.status, "application/problem+json", refused.headers)


def too_deep(obj: Any, depth: int = 0) -> bool:
    if depth > MAX_DEPTH:
        return True
    if isinstance(obj, dict):
        return any(too_deep(v, depth + 1) for v in obj.values())
    if isinstance(obj, list):
        return any(too_deep(v, depth + 1) for v in obj)
    return False


def unstorable(obj: Any) -> str | None:
    """What in ``obj`` could not be stored (msgpack) and given back as JSON, or None (call after
    :func:`too_deep`): integers past 64 bits, text with lone surrogates, and msgpack's binary, extension
    and timestamp values, which JSON has no shape for."""
    if obj is None or isinstance(obj, bool | float):
        return None
    if isinstance(obj, int):
        return None if INT_RANGE[0] <= obj <= INT_RANGE[1] else "an integer outside the 64-bit range"
    if isinstance(obj, str):
        try:
            obj.encode()
        except UnicodeEncodeError:
            return "text that is not valid unicode"
        return None
    if isinstance(obj, list):
        return next((why for v in obj if (why := unstorable(v))), None)
    if isinstance(obj, dict):
        for k, v in obj.items():
            why = (None if isinstance(k, str) else "a map key that is not text") or unstorable(k) or unstorable(v)
            if why:
                return why
        return None
    return f"a value JSON has no shape for ({type(obj).__name__})"


def decode_bytes(raw: bytes, is_msgpack: bool) -> Any:
    """JSON or msgpack bytes as plain data; :class:`Refused` (400) for anything malformed or too deep."""
    try:
        obj = msgpack.unpackb(raw, raw=False, strict_map_key=True) if is_msgpack else (json.loads(raw) if raw else None)
    except RecursionError:
        raise Refused(400, "bad_request", "the body is nested too deeply") from None
    except Exception as e:  # json and msgpack raise several unrelated types on garbage
        kind = "msgpack" if is_msgpack else "JSON"
        raise Refused(400, "bad_request", f"the body is not valid {kind} ({type(e).__name__})") from None
    if too_deep(obj):
        raise Refused(400, "bad_request", f"the body is nested deeper than {MAX_DEPTH} levels")
    why = unstorable(obj)
    if why:
        raise Refused(400, "bad_request", f"the body holds {why}")
    return obj


def validate(model: type[M], obj: Any, where: str = "body") -> M:
    """``obj`` as ``model``; :class:`Refused` (400) naming the first offending field, never echoing input."""
    if not isinstance(obj, dict):
        raise Refused(400, "bad_request", f"the {where} must be an object", where)
    try:
        return model.model_validate(obj)
    except ValidationError as e:
        first = e.errors(include_url=False, include_input=False, include_context=False)[0]
        field = ".".join([where, *(str(p) for p in first["loc"])])
        raise Refused(400, "bad_request", f"{field}: {first['msg']}", field) from None


def check_options(model: type[BaseModel], title: str, options: dict[str, Any], where: str = "body.options") -> None:
    """Match options as a client sent them, checked against the game's options model strictly, with JSON's
    types (whatever that model's own configuration): a value of another type is refused, never converted, and
    so is an unknown option: :class:`Refused` (422 ``bad_options``) naming the option (``body.options.x``)."""
    try:
        model.model_validate_json(json.dumps(options), strict=True)
    except ValidationError as e:
        first = e.errors(include_url=False, include_input=False, include_context=False)[0]
        name = ".".join(str(p) for p in first["loc"])
        message = "unknown option" if first["type"] == "extra_forbidden" else first["msg"]
        field = f"{where}.{name}" if name else where
        raise Refused(422, "bad_options", f"bad options for {title}: {field}: {message}", field) from None


async def read_body(request: Request, model: type[M], max_bytes: int) -> M:
    """The request body as ``model``: 413 past ``max_bytes`` (read no further), 400 when malformed."""
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > max_bytes:
        raise Refused(413, "too_large", f"the body is larger than {max_bytes} bytes")
    chunks: list[bytes] = []
    size = 0
    try:
        async for chunk in request.stream():
            size += len(chunk)
            if size > max_bytes:
                raise Refused(413, "too_large", f"the body is larger than {max_bytes} bytes")
            chunks.append(chunk)
    except ClientDisconnect:  # the client went away mid-body (or sent less than its Content-Length)
        raise Refused(400, "bad_request", "the body ended before its Content-Length") from None
    if not chunks:
        return validate(model, {})
    media = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if media not in BODY_TYPES:  # a foreign page's form or text/plain post (no CORS preflight) stops here
        raise Refused(415, "unsupported_media_type",
                      f"send the body as application/json or {MSGPACK} (Content-Type), not {media or 'untyped'}")
    return validate(model, decode_bytes(b"".join(chunks), media == MSGPACK))

"""The errors of the gateway clients, each with a one-line message for people.

Every HTTP error answer of the gateway (``application/problem+json``) becomes a :class:`GatewayError`
subclass chosen by its status; a gateway that cannot be reached at all (connection refused, reset, no
answer in time) is :class:`Unavailable`, which is also a :class:`ConnectionError`, so code that survives
lost connections (the bot SDK) treats both alike. A wait that ran out is :class:`Timeout`, which is the
pipeline client's ``Timeout`` too, so callers catch one class for either client.
"""

from __future__ import annotations

from typing import Any

from services.pipeline.direct import Timeout as PipelineTimeout

MAX_DETAIL = 300


class ClientError(Exception):
    """Anything a gateway client raises on purpose."""


class GatewayError(ClientError):
    """The gateway answered with an error (or could not be reached: status 0).

    ``status`` is the HTTP status, ``code`` the stable error code (``not_found``, ``unauthorized``...),
    ``detail`` the explanation for people; ``str(error)`` is ``detail`` on one line.
    """

    def __init__(self, status: int, code: str, detail: str, field: str | None = None) -> None:
        self.status = status
        self.code = code
        self.detail = one_line(detail) or code
        self.field = field
        super().__init__(self.detail)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(status={self.status}, code={self.code!r}, detail={self.detail!r})"


class BadRequest(GatewayError):
    """400: a malformed request or a field of the wrong type (``field`` names it)."""


class Unauthorized(GatewayError):
    """401: a missing, malformed or wrong seat token."""


class Forbidden(GatewayError):
    """403: a token of another match, or of a seat that may not do this."""


class NotFound(GatewayError):
    """404: an unknown match or idempotency key."""


class Conflict(GatewayError):
    """409: the seat is taken, the match is full, the match id is taken."""


class TooLarge(GatewayError):
    """413: the request body is over the gateway's size cap."""


class InvalidOptions(GatewayError):
    """422: an unknown game, a bad seat count or bad match options."""


class RateLimited(GatewayError):
    """429: too many requests; ``retry_after_s`` says when to come back."""

    def __init__(self, status: int, code: str, detail: str, field: str | None = None,
                 retry_after_s: float = 1.0) -> None:
        super().__init__(status, code, detail, field)
        self.retry_after_s = retry_after_s


class Unavailable(GatewayError, ConnectionError):
    """503, or no answer at all: the gateway (or the Redis behind it) is down or unreachable."""


class Timeout(ClientError, PipelineTimeout):
    """Nothing arrived in time (a command's result, a view version)."""


BY_STATUS: dict[int, type[GatewayError]] = {
    400: BadRequest, 401: Unauthorized, 403: Forbidden, 404: NotFound, 409: Conflict, 413: TooLarge,
    422: InvalidOptions, 429: RateLimited, 503: Unavailable,
}


def one_line(text: str) -> str:
    """``text`` on one line, cut to a readable length."""
    flat = " ".join(str(text).split())
    return flat if len(flat) <= MAX_DETAIL else flat[: MAX_DETAIL - 3] + "..."


def error_for(status: int, problem: Any, retry_after: str | None = None) -> GatewayError:
    """The error for an HTTP error answer; ``problem`` is its decoded body (a problem document, or anything)."""
    body = problem if isinstance(problem, dict) else {}
    code = str(body.get("code") or _default_code(status))
    detail = str(body.get("detail") or body.get("title") or f"the gateway answered {status}")
    field = body.get("field") if isinstance(body.get("field"), str) else None
    cls = BY_STATUS.get(status, Unavailable if status >= 500 else GatewayError)
    if cls is RateLimited:
        return RateLimited(status, code, detail, field, retry_after_s=_seconds(retry_after))
    return cls(status, code, detail, field)


def _default_code(status: int) -> str:
    return {400: "bad_request", 401: "unauthorized", 403: "forbidden", 404: "not_found", 409: "conflict",
            413: "too_large", 422: "bad_options", 429: "rate_limited", 503: "unavailable"}.get(status, f"http_{status}")


def _seconds(value: str | None) -> float:
    try:
        return max(0.0, float(value)) if value is not None else 1.0
    except ValueError:
        return 1.0


STATUS_OF_CODE = {"bad_request": 400, "unauthorized": 401, "forbidden": 403, "not_found": 404, "conflict": 409,
                  "too_large": 413, "bad_options": 422, "rate_limited": 429, "unavailable": 503}


def ws_error(code: str, message: str) -> GatewayError:
    """The error for a WebSocket ``error`` message (the same family as over HTTP)."""
    status = STATUS_OF_CODE.get(code, 400)
    return error_for(status, {"code": code, "detail": message})

"""Pieces the synchronous and the asynchronous gateway clients share: paths, query parameters, decoding
answers into the wire models, and the seat tokens a client holds."""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from typing import Any
from urllib.parse import quote

import httpx

from schemas.envelopes import CommandResult, ViewRecord
from schemas.gateway import IDEMPOTENCY_KEY, ViewAnswer, view_fields
from services.client.errors import BadRequest, InvalidOptions, Unavailable, error_for

MAX_WAIT_S = 30  # the gateway's cap on wait_s
KEY_RE = re.compile(IDEMPOTENCY_KEY)


def base_url(url: str) -> str:
    """The gateway URL without a trailing slash; a bare ``host:port`` means ``http://host:port``."""
    url = url.strip().rstrip("/")
    if not url:
        raise ValueError("a gateway URL is required (--url or AIRSHIP_URL)")
    return url if "://" in url else f"http://{url}"


def ws_url(url: str) -> str:
    """The WebSocket address of the gateway at ``url``."""
    base = base_url(url)
    scheme, rest = base.split("://", 1)
    return f"{'wss' if scheme == 'https' else 'ws'}://{rest}/ws"


def match_path(match_id: str, *parts: str) -> str:
    return "/".join(["/matches", quote(match_id, safe=""), *(quote(p, safe="") for p in parts)])


def wait_param(remaining_s: float) -> int:
    """Whole seconds to long-poll for, within the gateway's cap."""
    return max(0, min(MAX_WAIT_S, math.ceil(remaining_s)))


def seat_of_token(token: str) -> int | None:
    """The seat a token acts for (tokens look like ``<seat>.<48 hex digits>``), None if it does not say."""
    head, sep, _ = token.partition(".")
    return int(head) if sep and head.isdigit() else None


def create_body(game: str, seats: int, options: Mapping[str, Any] | None, reveal_log: bool,
                clock: Mapping[str, Any] | None) -> dict[str, Any]:
    """The body of ``POST /matches``."""
    body: dict[str, Any] = {"game": game, "seats": seats, "options": dict(options or {}), "reveal_log": reveal_log}
    if clock is not None:
        body["clock"] = dict(clock)
    return body


def check_create(seed: int | None, match_id: str | None) -> None:
    if seed is not None or match_id is not None:
        raise InvalidOptions(422, "bad_options", "the gateway chooses match seeds and ids; "
                                                 "'seed' and 'match_id' cannot be set through it")


def check_key(key: str) -> str:
    if not KEY_RE.match(key):
        raise BadRequest(400, "bad_request", f"idempotency key {key[:60]!r} must match {IDEMPOTENCY_KEY}")
    return key


def view_key(key: str | int) -> str:
    """``"public"`` or a seat number as text."""
    text = str(key)
    if text != "public" and not text.isdigit():
        raise ValueError(f"a view key is 'public' or a seat number, not {text!r}")
    return text


def to_record(data: Any) -> ViewRecord:
    answer = ViewAnswer.model_validate(data)
    return ViewRecord(**view_fields(answer))


def to_result(data: Any) -> CommandResult:
    return CommandResult.model_validate(data)


def headers(token: str | None) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"} if token else {}


def decode(response: httpx.Response) -> Any:
    """The JSON body of an answer (None when empty or not JSON)."""
    if not response.content:
        return None
    try:
        return response.json()
    except ValueError:
        return None


def check(response: httpx.Response) -> httpx.Response:
    """The answer itself if it is not an error; otherwise the error it stands for, raised."""
    if response.status_code >= 400:
        raise error_for(response.status_code, decode(response), response.headers.get("Retry-After"))
    return response


def unreachable(url: str, error: Exception) -> Unavailable:
    """A transport failure as a one-line :class:`Unavailable`."""
    if isinstance(error, httpx.TimeoutException):
        what = "did not answer in time"
    elif isinstance(error, httpx.ConnectError):
        what = f"cannot be reached ({_reason(error)})"
    else:
        what = f"dropped the connection ({_reason(error)})"
    return Unavailable(0, "unavailable", f"the gateway at {url} {what}")


def _reason(error: Exception) -> str:
    text = str(error) or type(error).__name__
    if "refused" in text.lower():
        return "connection refused"
    return text.split("]")[-1].strip() or type(error).__name__


class Tokens:
    """The seat tokens a client holds, by match and seat."""

    def __init__(self) -> None:
        self._by_seat: dict[tuple[str, int], str] = {}

    def remember(self, match_id: str, seat: int, token: str | None) -> None:
        if token:
            self._by_seat[(match_id, seat)] = token

    def get(self, match_id: str, seat: int) -> str | None:
        return self._by_seat.get((match_id, seat))

    def for_key(self, match_id: str, key: str, token: str | None) -> str | None:
        """The token to send for view ``key``: the given one, else the held one for that seat."""
        if token is not None or key == "public":
            return token
        return self.get(match_id, int(key))

    def items(self) -> Mapping[tuple[str, int], str]:
        return dict(self._by_seat)

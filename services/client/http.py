"""The synchronous gateway client (httpx): everything a player, a bot or a tool does through the gateway.

    client = GatewayClient("http://localhost:8000")
    match = client.create_match("nim", 2)
    seat, token = client.join(match.match_id)
    result = client.call(match.match_id, seat, token, "take", {"n": 1})

The client holds the token of every seat it joined (per match and seat) and uses it where one is needed
and none is given. Every method raises a :class:`~services.client.errors.GatewayError` for an error answer
(:class:`~services.client.errors.Unavailable` when the gateway cannot be reached) and
:class:`~services.client.errors.Timeout` when a wait runs out. A rate-limited request (429) is retried
after the ``Retry-After`` the gateway names, a few times, before ``RateLimited`` is raised.

It has the methods of :class:`services.client.protocol.GameClient`, so the bot SDK, the match runner and
the chat frontends run over it as over the embedded client.
"""

from __future__ import annotations

import threading
import time
import uuid
from collections.abc import Iterator, Mapping
from types import TracebackType
from typing import Any

import httpx

from schemas.envelopes import CommandResult, ViewRecord
from schemas.gateway import (
    AbandonAnswer,
    BotSeats,
    BotsWanted,
    GameInfo,
    GameList,
    LogAnswer,
    MatchList,
    MatchSummary,
    SeatToken,
)
from schemas.players import LadderAnswer
from services.client import common
from services.client.errors import RateLimited, Timeout
from services.logs import get_logger

log = get_logger("client")

MAX_RATE_RETRIES = 3
MAX_RETRY_AFTER_S = 5.0
MAX_SENT = 1024


class GatewayClient:
    """A synchronous client of the gateway at ``url``; ``timeout_s`` bounds each request (long-polls get
    their wait on top). Threads may share it (a chat reader and writer do)."""

    def __init__(self, url: str, timeout_s: float = 10.0, transport: httpx.BaseTransport | None = None) -> None:
        self.url = common.base_url(url)
        self.timeout_s = timeout_s
        self.tokens = common.Tokens()
        self._sent: dict[tuple[str, str], str] = {}  # (match, idempotency key) -> the token that sent it
        self._lock = threading.Lock()
        self._http = httpx.Client(base_url=self.url, timeout=timeout_s, transport=transport,
                                  headers={"Accept": "application/json"})

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> GatewayClient:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()

    # -- transport -------------------------------------------------------------------------------
    def _request(self, method: str, path: str, *, json: Any = None, params: Mapping[str, Any] | None = None,
                 token: str | None = None, wait_s: float = 0.0) -> httpx.Response:
        timeout = httpx.Timeout(self.timeout_s + wait_s, connect=self.timeout_s)
        for attempt in range(MAX_RATE_RETRIES + 1):
            try:
                response = self._http.request(method, path, json=json, params=params, timeout=timeout,
                                              headers=common.headers(token))
                return common.check(response)
            except RateLimited as e:
                if attempt == MAX_RATE_RETRIES:
                    raise
                log.info("rate limited; retrying", path=path, retry_after_s=e.retry_after_s)
                time.sleep(min(e.retry_after_s, MAX_RETRY_AFTER_S))
            except httpx.TransportError as e:
                raise common.unreachable(self.url, e) from e
        raise AssertionError("unreachable")  # pragma: no cover

    def _get(self, path: str, **kwargs: Any) -> Any:
        return common.decode(self._request("GET", path, **kwargs))

    # -- lobby -----------------------------------------------------------------------------------
    def games(self) -> list[GameInfo]:
        """The games, their seat counts and match options."""
        return GameList.model_validate(self._get("/games")).games

    def matches(self, status: str | None = None, game: str | None = None,
                limit: int | None = None) -> list[MatchSummary]:
        """Matches, newest first; ``status`` is ``open``, ``running`` or ``finished``."""
        params = {k: v for k, v in {"status": status, "game": game, "limit": limit}.items() if v is not None}
        return MatchList.model_validate(self._get("/matches", params=params)).matches

    def create_match(self, game: str, seats: int, options: Mapping[str, Any] | None = None,
                     reveal_log: bool = True, *, seed: int | None = None,
                     match_id: str | None = None, clock: Mapping[str, Any] | None = None) -> MatchSummary:
        """Set a match up; its seats are open for joining. ``reveal_log``: once finished, the whole log is
        public. The gateway chooses the seed and the id (``seed``/``match_id`` raise ``InvalidOptions``). ``clock``:
        its time control (#29), e.g. ``{"kind": "move", "seconds": 30}``; each view's ``clock`` then has every seat's
        deadline, and ``server_ms`` the gateway's time to count it down from."""
        common.check_create(seed, match_id)
        body = common.create_body(game, seats, options, reveal_log, clock)
        return MatchSummary.model_validate(common.decode(self._request("POST", "/matches", json=body)))

    def match(self, match_id: str) -> MatchSummary:
        """One match's summary; ``NotFound`` for an unknown match."""
        return MatchSummary.model_validate(self._get(common.match_path(match_id)))

    def join(self, match_id: str, seat: int | None = None) -> tuple[int, str]:
        """Take ``seat`` (the first free one if None); returns ``(seat, token)`` and keeps the token."""
        body = {} if seat is None else {"seat": seat}
        answer = SeatToken.model_validate(common.decode(
            self._request("POST", common.match_path(match_id, "seats"), json=body)))
        self.tokens.remember(match_id, answer.seat, answer.token)
        return answer.seat, answer.token

    def flag_bots(self, match_id: str, seats: list[int] | None = None, bot: str = "heuristic",
                  token: str | None = None) -> BotSeats:
        """Give free seats (every free one if None) of an open match to the service's bots (``airship bots``);
        once a seat is taken, with the token of a seat of the match."""
        body: dict[str, Any] = {"bot": bot} if seats is None else {"bot": bot, "seats": seats}
        return BotSeats.model_validate(common.decode(
            self._request("POST", common.match_path(match_id, "bots"), json=body, token=token)))

    def bots_wanted(self, limit: int = 50) -> list[BotSeats]:
        """The open matches whose free seats are all flagged for bots, oldest first."""
        return BotsWanted.model_validate(self._get("/bots/wanted", params={"limit": limit})).matches

    def abandon(self, match_id: str, token: str) -> AbandonAnswer:
        """The token's seat votes to end the match early; the answer says whether it ended and who must agree."""
        return AbandonAnswer.model_validate(common.decode(
            self._request("POST", common.match_path(match_id, "abandon"), token=token)))

    # -- commands --------------------------------------------------------------------------------
    def _post_command(self, match_id: str, seat: int, token: str | None, type: str, body: Mapping[str, Any],
                      key: str, expected_version: int | None, wait_s: int) -> CommandResult | None:
        token = token or self.tokens.get(match_id, seat)
        self.tokens.remember(match_id, seat, token)
        with self._lock:
            self._sent[(match_id, key)] = token or ""
            while len(self._sent) > MAX_SENT:  # keep the newest: wait_result looks up recent commands
                del self._sent[next(iter(self._sent))]
        payload: dict[str, Any] = {"idempotency_key": key, "type": type, "body": dict(body)}
        if expected_version is not None:
            payload["expected_version"] = expected_version
        response = self._request("POST", common.match_path(match_id, "commands"), json=payload, token=token,
                                 params={"wait_s": wait_s}, wait_s=wait_s)
        return None if response.status_code == 202 else common.to_result(common.decode(response))

    def send(self, match_id: str, seat: int, token: str | None, type: str, body: Mapping[str, Any],
             command_id: str | None = None, expected_version: int | None = None) -> str:
        """Send a command without waiting for its result; returns its idempotency key (``command_id`` if
        given) for :meth:`wait_result`."""
        key = common.check_key(command_id or uuid.uuid4().hex)
        self._post_command(match_id, seat, token, type, body, key, expected_version, 0)
        return key

    def wait_result(self, match_id: str, command_id: str, timeout_s: float = 30.0,
                    token: str | None = None) -> CommandResult:
        """The result of the command sent with idempotency key ``command_id`` (by this client, or with
        ``token``), once the service has decided it."""
        token = token or self._sent.get((match_id, command_id)) or None
        deadline = time.monotonic() + timeout_s
        path = common.match_path(match_id, "commands", command_id)
        while True:
            remaining = deadline - time.monotonic()
            wait_s = common.wait_param(remaining)
            started = time.monotonic()
            response = self._request("GET", path, token=token, params={"wait_s": wait_s}, wait_s=wait_s)
            if response.status_code != 202:
                return common.to_result(common.decode(response))
            if time.monotonic() >= deadline:
                raise Timeout(f"no result for command {command_id} within {timeout_s:g}s")
            if time.monotonic() - started < 0.05:  # the gateway did not wait: do not spin
                time.sleep(min(0.05, max(deadline - time.monotonic(), 0)))

    def call(self, match_id: str, seat: int, token: str | None, type: str, body: Mapping[str, Any],
             timeout_s: float = 30.0, command_id: str | None = None,
             expected_version: int | None = None) -> CommandResult:
        """Send a command for ``seat`` (with its ``token``, or the one this client holds) and wait for its
        result. ``command_id`` is the idempotency key: sending the same key again returns the first result
        and never applies the command twice, so a call that failed on a lost connection can be repeated."""
        key = common.check_key(command_id or uuid.uuid4().hex)
        deadline = time.monotonic() + timeout_s
        result = self._post_command(match_id, seat, token, type, body, key, expected_version,
                                    common.wait_param(timeout_s))
        if result is not None:
            return result
        return self.wait_result(match_id, key, max(deadline - time.monotonic(), 0.0))

    # -- views -----------------------------------------------------------------------------------
    def _view(self, match_id: str, key: str, token: str | None, after_version: int | None,
              wait_s: int) -> ViewRecord | None:
        path = common.match_path(match_id, "views", "public" if key == "public" else "me")
        params: dict[str, Any] = {"wait_s": wait_s} if wait_s else {}
        if after_version is not None:
            params["after_version"] = after_version
        response = self._request("GET", path, token=self.tokens.for_key(match_id, key, token), params=params,
                                 wait_s=wait_s)
        return None if response.status_code == 204 else common.to_record(common.decode(response))

    def view(self, match_id: str, key: str | int = "public", token: str | None = None) -> ViewRecord | None:
        """The current view record: ``"public"``, or a seat's (with its token, or the one held); None if
        the service has none yet."""
        return self._view(match_id, common.view_key(key), token, None, 0)

    def wait_view(self, match_id: str, key: str | int = "public", min_version: int = 0,
                  timeout_s: float = 30.0, token: str | None = None) -> ViewRecord:
        """The view once it reflects at least ``min_version`` (long-polled); ``Timeout`` after ``timeout_s``."""
        key = common.view_key(key)
        deadline = time.monotonic() + timeout_s
        while True:
            remaining = deadline - time.monotonic()
            record = self._view(match_id, key, token, max(min_version - 1, 0), common.wait_param(remaining))
            if record is not None and record.version >= min_version:
                return record
            if time.monotonic() >= deadline:
                raise Timeout(f"view {key} of {match_id} did not reach version {min_version} in {timeout_s:g}s")
            if record is not None or remaining < 1:
                time.sleep(0.05)

    def subscribe(self, match_id: str, key: str | int = "public", after_version: int = 0,
                  timeout_s: float | None = None, token: str | None = None) -> Iterator[ViewRecord]:
        """Every new version of a view after ``after_version``, in order, each once (long-polled): one per
        command, at its last version, so versions may skip (docs/gateway.md); none while the match waits for
        players (its records have version 0). Stops after yielding the final view, or raises ``Timeout`` when
        nothing came within ``timeout_s``."""
        seen = after_version
        while True:
            record = self.wait_view(match_id, key, seen + 1, timeout_s if timeout_s is not None else 3600.0, token)
            seen = record.version
            yield record
            if record.finished:
                return

    def ladder(self, game: str) -> LadderAnswer:
        """The game's ladder: its rated players, best first (``GET /ladder/{game}``)."""
        return LadderAnswer.model_validate(self._get(f"/ladder/{game}"))

    def log(self, match_id: str, token: str | None = None, after_version: int = 0) -> LogAnswer:
        """The match's events after ``after_version`` as the token's seat may see them (see the gateway
        docs: a running match's log needs a seat token; a finished one is public)."""
        params = {"after_version": after_version} if after_version else {}
        return LogAnswer.model_validate(self._get(common.match_path(match_id, "log"), token=token, params=params))

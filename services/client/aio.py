"""The asynchronous gateway client: HTTP on ``httpx.AsyncClient``, view subscriptions on a WebSocket.

    async with AsyncGatewayClient("http://localhost:8000") as client:
        match = await client.create_match("nim", 2)
        seat, token = await client.join(match.match_id)
        async for record in client.subscribe(match.match_id, seat):
            ...

The methods and errors are those of :class:`services.client.http.GatewayClient`, as coroutines.
:meth:`AsyncGatewayClient.subscribe` holds a WebSocket open and, when it breaks, reconnects and subscribes
again after the last version it yielded (the gateway resumes without gap or repeat).
"""

from __future__ import annotations

import asyncio
import json
import time
import uuid
from collections.abc import AsyncIterator, Mapping
from types import TracebackType
from typing import Any

import httpx
import websockets
from websockets.asyncio.client import ClientConnection, connect

from schemas.envelopes import CommandResult, ViewRecord
from schemas.gateway import (
    GameInfo,
    GameList,
    LogAnswer,
    MatchList,
    MatchSummary,
    SeatToken,
    ViewMessage,
    view_fields,
)
from services.client import common
from services.client.errors import ClientError, RateLimited, Timeout, Unavailable, ws_error
from services.client.http import MAX_RATE_RETRIES, MAX_RETRY_AFTER_S, MAX_SENT
from services.logs import get_logger
from services.pipeline.backoff import reconnect_backoff

log = get_logger("client")

RECONNECTS = 20  # in a row: some 20-30 s of pauses (services.pipeline.backoff.reconnect_backoff) before giving up


class AsyncGatewayClient:
    """An asynchronous client of the gateway at ``url``; ``timeout_s`` bounds each request (long-polls get
    their wait on top) and each WebSocket handshake."""

    def __init__(self, url: str, timeout_s: float = 10.0, transport: httpx.AsyncBaseTransport | None = None,
                 reconnects: int = RECONNECTS) -> None:
        self.url = common.base_url(url)
        self.ws_url = common.ws_url(url)
        self.timeout_s = timeout_s
        self.reconnects = reconnects
        self.tokens = common.Tokens()
        self._sent: dict[tuple[str, str], str] = {}
        self._http = httpx.AsyncClient(base_url=self.url, timeout=timeout_s, transport=transport,
                                       headers={"Accept": "application/json"})

    async def aclose(self) -> None:
        await self._http.aclose()

    async def __aenter__(self) -> AsyncGatewayClient:
        return self

    async def __aexit__(self, kind: type[BaseException] | None, error: BaseException | None,
                        tb: TracebackType | None) -> None:
        await self.aclose()

    # -- transport -------------------------------------------------------------------------------
    async def _request(self, method: str, path: str, *, json: Any = None, params: Mapping[str, Any] | None = None,
                       token: str | None = None, wait_s: float = 0.0) -> httpx.Response:
        timeout = httpx.Timeout(self.timeout_s + wait_s, connect=self.timeout_s)
        for attempt in range(MAX_RATE_RETRIES + 1):
            try:
                response = await self._http.request(method, path, json=json, params=params, timeout=timeout,
                                                    headers=common.headers(token))
                return common.check(response)
            except RateLimited as e:
                if attempt == MAX_RATE_RETRIES:
                    raise
                log.info("rate limited; retrying", path=path, retry_after_s=e.retry_after_s)
                await asyncio.sleep(min(e.retry_after_s, MAX_RETRY_AFTER_S))
            except httpx.TransportError as e:
                raise common.unreachable(self.url, e) from e
        raise AssertionError("unreachable")  # pragma: no cover

    async def _get(self, path: str, **kwargs: Any) -> Any:
        return common.decode(await self._request("GET", path, **kwargs))

    # -- lobby -----------------------------------------------------------------------------------
    async def games(self) -> list[GameInfo]:
        return GameList.model_validate(await self._get("/games")).games

    async def matches(self, status: str | None = None, game: str | None = None,
                      limit: int | None = None) -> list[MatchSummary]:
        params = {k: v for k, v in {"status": status, "game": game, "limit": limit}.items() if v is not None}
        return MatchList.model_validate(await self._get("/matches", params=params)).matches

    async def create_match(self, game: str, seats: int, options: Mapping[str, Any] | None = None,
                           reveal_log: bool = True, *, seed: int | None = None,
                           match_id: str | None = None, clock: Mapping[str, Any] | None = None) -> MatchSummary:
        common.check_create(seed, match_id)
        body = common.create_body(game, seats, options, reveal_log, clock)
        return MatchSummary.model_validate(common.decode(await self._request("POST", "/matches", json=body)))

    async def match(self, match_id: str) -> MatchSummary:
        return MatchSummary.model_validate(await self._get(common.match_path(match_id)))

    async def join(self, match_id: str, seat: int | None = None) -> tuple[int, str]:
        body = {} if seat is None else {"seat": seat}
        answer = SeatToken.model_validate(common.decode(
            await self._request("POST", common.match_path(match_id, "seats"), json=body)))
        self.tokens.remember(match_id, answer.seat, answer.token)
        return answer.seat, answer.token

    # -- commands --------------------------------------------------------------------------------
    async def _post_command(self, match_id: str, seat: int, token: str | None, type: str,
                            body: Mapping[str, Any], key: str, expected_version: int | None,
                            wait_s: int) -> CommandResult | None:
        token = token or self.tokens.get(match_id, seat)
        self.tokens.remember(match_id, seat, token)
        self._sent[(match_id, key)] = token or ""
        while len(self._sent) > MAX_SENT:
            del self._sent[next(iter(self._sent))]
        payload: dict[str, Any] = {"idempotency_key": key, "type": type, "body": dict(body)}
        if expected_version is not None:
            payload["expected_version"] = expected_version
        response = await self._request("POST", common.match_path(match_id, "commands"), json=payload,
                                       token=token, params={"wait_s": wait_s}, wait_s=wait_s)
        return None if response.status_code == 202 else common.to_result(common.decode(response))

    async def send(self, match_id: str, seat: int, token: str | None, type: str, body: Mapping[str, Any],
                   command_id: str | None = None, expected_version: int | None = None) -> str:
        key = common.check_key(command_id or uuid.uuid4().hex)
        await self._post_command(match_id, seat, token, type, body, key, expected_version, 0)
        return key

    async def wait_result(self, match_id: str, command_id: str, timeout_s: float = 30.0,
                          token: str | None = None) -> CommandResult:
        token = token or self._sent.get((match_id, command_id)) or None
        deadline = time.monotonic() + timeout_s
        path = common.match_path(match_id, "commands", command_id)
        while True:
            wait_s = common.wait_param(deadline - time.monotonic())
            started = time.monotonic()
            response = await self._request("GET", path, token=token, params={"wait_s": wait_s}, wait_s=wait_s)
            if response.status_code != 202:
                return common.to_result(common.decode(response))
            if time.monotonic() >= deadline:
                raise Timeout(f"no result for command {command_id} within {timeout_s:g}s")
            if time.monotonic() - started < 0.05:
                await asyncio.sleep(min(0.05, max(deadline - time.monotonic(), 0)))

    async def call(self, match_id: str, seat: int, token: str | None, type: str, body: Mapping[str, Any],
                   timeout_s: float = 30.0, command_id: str | None = None,
                   expected_version: int | None = None) -> CommandResult:
        """As :meth:`services.client.http.GatewayClient.call`."""
        key = common.check_key(command_id or uuid.uuid4().hex)
        deadline = time.monotonic() + timeout_s
        result = await self._post_command(match_id, seat, token, type, body, key, expected_version,
                                          common.wait_param(timeout_s))
        if result is not None:
            return result
        return await self.wait_result(match_id, key, max(deadline - time.monotonic(), 0.0))

    # -- views -----------------------------------------------------------------------------------
    async def _view(self, match_id: str, key: str, token: str | None, after_version: int | None,
                    wait_s: int) -> ViewRecord | None:
        path = common.match_path(match_id, "views", "public" if key == "public" else "me")
        params: dict[str, Any] = {"wait_s": wait_s} if wait_s else {}
        if after_version is not None:
            params["after_version"] = after_version
        response = await self._request("GET", path, token=self.tokens.for_key(match_id, key, token),
                                       params=params, wait_s=wait_s)
        return None if response.status_code == 204 else common.to_record(common.decode(response))

    async def view(self, match_id: str, key: str | int = "public", token: str | None = None) -> ViewRecord | None:
        return await self._view(match_id, common.view_key(key), token, None, 0)

    async def wait_view(self, match_id: str, key: str | int = "public", min_version: int = 0,
                        timeout_s: float = 30.0, token: str | None = None) -> ViewRecord:
        key = common.view_key(key)
        deadline = time.monotonic() + timeout_s
        while True:
            remaining = deadline - time.monotonic()
            record = await self._view(match_id, key, token, max(min_version - 1, 0), common.wait_param(remaining))
            if record is not None and record.version >= min_version:
                return record
            if time.monotonic() >= deadline:
                raise Timeout(f"view {key} of {match_id} did not reach version {min_version} in {timeout_s:g}s")
            if record is not None or remaining < 1:
                await asyncio.sleep(0.05)

    async def subscribe(self, match_id: str, key: str | int = "public", after_version: int = 0,
                        timeout_s: float | None = None, token: str | None = None) -> AsyncIterator[ViewRecord]:
        """Every new version of a view after ``after_version``, in order, each once, pushed over a WebSocket
        (one per command, at its last version: versions may skip; none while the match waits for players);
        stops after yielding the final view. A broken connection is resumed (up to ``reconnects`` times in a
        row) after the last version yielded; ``Timeout`` when nothing came within ``timeout_s``; the
        gateway's refusals (unknown match, wrong token) raise as over HTTP."""
        key = common.view_key(key)
        token = self.tokens.for_key(match_id, key, token)
        seen = after_version
        failures = 0
        backoff = reconnect_backoff()
        while True:
            try:
                async with connect(self.ws_url, open_timeout=self.timeout_s) as ws:
                    request: dict[str, Any] = {"kind": "subscribe", "cid": "sub", "match_id": match_id,
                                               "after_version": seen}
                    if token:
                        request["token"] = token
                    await ws.send(json.dumps(request))
                    while True:
                        message = await self._receive(ws, timeout_s, match_id)
                        kind = message.get("kind")
                        if kind == "subscribed":
                            failures = 0
                            backoff.reset()
                        elif kind == "error":
                            raise ws_error(str(message.get("code")), str(message.get("message", "")))
                        elif kind == "view" and message.get("match_id") == match_id and str(message.get("key")) == key:
                            record = _record(message)
                            if record.version <= seen:
                                continue
                            seen = record.version
                            yield record
                            if record.finished:
                                return
            except ClientError:
                raise
            except (OSError, websockets.exceptions.WebSocketException) as e:
                failures += 1
                if failures > self.reconnects:
                    raise Unavailable(0, "unavailable", f"the gateway at {self.url} cannot be reached over "
                                                        f"WebSocket ({_reason(e)})") from e
                log.warning("subscription lost; resuming", match_id=match_id, after_version=seen, error=repr(e))
                await asyncio.sleep(backoff.next_s())

    async def _receive(self, ws: ClientConnection, timeout_s: float | None, match_id: str) -> dict[str, Any]:
        try:
            raw = await asyncio.wait_for(ws.recv(), timeout_s)
        except TimeoutError:
            raise Timeout(f"nothing new on {match_id} for {timeout_s:g}s") from None
        if isinstance(raw, bytes):  # binary frames carry msgpack
            from schemas.codec import unpack_obj

            message = unpack_obj(raw)
        else:
            message = json.loads(raw)
        return message if isinstance(message, dict) else {}

    async def log(self, match_id: str, token: str | None = None, after_version: int = 0) -> LogAnswer:
        params = {"after_version": after_version} if after_version else {}
        return LogAnswer.model_validate(await self._get(common.match_path(match_id, "log"), token=token,
                                                        params=params))


def _record(message: dict[str, Any]) -> ViewRecord:
    view = ViewMessage.model_validate(message)
    return ViewRecord(**view_fields(view))


def _reason(error: BaseException) -> str:
    text = str(error) or type(error).__name__
    return "connection refused" if "refused" in text.lower() or isinstance(error, ConnectionRefusedError) else text

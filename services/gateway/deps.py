"""What the gateway's route modules share, and nothing that assembles them (so no route module imports the app):
the routes' state (:class:`State`), the request dependencies (the address's and the seat token's limits, the seat
of a token), and the OpenAPI helpers for problem answers and bodies. ``services.gateway.app`` builds the app from
the route modules; each of them depends on this module only."""

from __future__ import annotations

import asyncio
import time
from typing import Annotated, Any

import redis.asyncio as aioredis
from fastapi import Depends, FastAPI, Path, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from pydantic import BaseModel

from schemas.gateway import IDEMPOTENCY_KEY, MATCH_ID, MatchSummary, Problem
from services.gateway.addresses import address_key, forwarded_client
from services.gateway.cache import Lru
from services.gateway.hub import Hubs
from services.gateway.limits import GatewayLimits, cost_of
from services.gateway.service import Gateway, Seat
from services.gateway.store import GatewayStore
from services.logs import get_logger
from services.settings import Settings

log = get_logger("gateway")
bearer = HTTPBearer(auto_error=False, description="The seat token from joining")
MatchId = Annotated[str, Path(pattern=MATCH_ID)]
LOBBY_TTL_S = 1.0
MAX_VERSION = 2**62  # versions are stream entry ids (<version>-0): 64-bit, with room for version + 1
Key = Annotated[str, Path(pattern=IDEMPOTENCY_KEY)]
DESCRIPTIONS = {400: "malformed request (the problem names the field)", 401: "missing or wrong seat token",
                403: "the token's seat may not do this",
                404: "unknown match", 409: "seat taken or match full (or, for a command, its idempotency key used "
                "for another command)", 413: "body too large",
                415: "a body neither application/json nor application/msgpack",
                422: "unknown game, bad seat count or options", 429: "rate limited (see Retry-After)",
                503: "Redis unavailable"}


def problems(*statuses: int) -> dict[int | str, dict[str, Any]]:
    """OpenAPI entries for the problem answers a route may give (besides 400, 429 and 503, which any may)."""
    return {s: {"model": Problem, "description": DESCRIPTIONS[s], "content": {"application/problem+json": {}}}
            for s in (400, 429, 503, *statuses)}


CREATE_QUOTA: dict[int | str, dict[str, Any]] = {429: {
    "model": Problem, "content": {"application/problem+json": {}},
    "description": "rate limited (`rate_limited`), or the creation quota of the address (without an API key) or of "
                   "the player (`X-Airship-Key`) is spent (`quota_exceeded`); see Retry-After (docs/gateway.md, "
                   "Quotas)"}}


def without_default_422(app: FastAPI) -> None:
    """FastAPI documents its own 422 for parameter errors; the gateway answers those with a 400 problem."""
    original = app.openapi

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            doc = original()
            for path in doc.get("paths", {}).values():
                for op in path.values():
                    entry = op.get("responses", {}).get("422", {})
                    if "HTTPValidationError" in str(entry):
                        del op["responses"]["422"]
                    if "requestBody" in op:  # every body is read by wire.read_body
                        op["responses"].setdefault("415", {"description": DESCRIPTIONS[415], "content": {
                            "application/problem+json": {"schema": {"$ref": "#/components/schemas/Problem"}}}})
            for name in ("HTTPValidationError", "ValidationError"):
                doc.get("components", {}).get("schemas", {}).pop(name, None)
            app.openapi_schema = doc
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]


def body_of(model: type[BaseModel]) -> dict[str, Any]:
    schema = model.model_json_schema()
    return {"requestBody": {"required": True, "content": {"application/json": {"schema": schema},
                                                          "application/msgpack": {"schema": schema}}}}


def hub_block_ms(settings: Settings) -> int:
    """How long a live reader's XREAD blocks when nothing comes."""
    return min(settings.block_ms * 5, 5000)


class State:
    """What the routes share: settings, the store, the hubs, the gateway, the limits and the open sockets.
    ``reader``: the client of the hubs' blocking reads (by default ``r``), whose socket timeout must be longer
    than their block (:func:`hub_block_ms`)."""

    def __init__(self, settings: Settings, r: aioredis.Redis, reader: aioredis.Redis | None = None) -> None:
        self.settings = settings
        self.redis = r
        self.store = GatewayStore(r, settings, reader)
        self.hubs = Hubs(self.store, block_ms=hub_block_ms(settings))
        self.gateway = Gateway(self.store, self.hubs)
        self.sessions: set[Any] = set()  # the open WebSocket sessions (services.gateway.ws.Session)
        self.stopping = False
        self.limits = GatewayLimits(r, settings)  # shared by every replica (services.gateway.shared_limits)
        self.encoded_logs: Lru[bytes] = Lru(16)  # finished matches' log answers, encoded (services.gateway.cache)
        self.lobby: Lru[list[MatchSummary]] = Lru(256, ttl_s=LOBBY_TTL_S)  # lobby pages, a second old at most
        self.store.on_change.append(self.lobby.clear)  # this gateway's own creations and joins show at once
        self.open_sockets = 0  # WebSockets admitted under AIRSHIP_GATEWAY_MAX_SOCKETS (services.gateway.ws)

    def address(self, request_headers: Any, client: Any) -> str:
        """The client's address key (:func:`address_key`: an IPv6 client per /64): the peer of the connection or,
        behind ``AIRSHIP_GATEWAY_TRUST_PROXY`` proxies, the ``X-Forwarded-For`` entry that many from the right
        (the entries left of it are the client's to choose)."""
        peer = str(client.host) if client else "unknown"
        hops = self.settings.gateway_trust_proxy
        forwarded = request_headers.getlist("x-forwarded-for") if hops > 0 else []
        return address_key(forwarded_client(forwarded, peer, hops))

    def waiting(self, request: Request, token: str | None) -> Any:
        """Hold one of the token's and the address's long-polls while the request waits (429 beyond)."""
        return self.limits.waiting(token, self.address(request.headers, request.client))

    async def shutdown(self, wait_s: float = 1.0) -> None:
        """The gateway is shutting down: every long-poll wakes and answers with what there is (a result or
        202, a newer view or 204), every hub stops, every WebSocket is closed with 1001 (going away) after the
        messages already queued for it. Waits up to ``wait_s`` for the sockets' sessions to end."""
        if self.stopping:
            return
        self.stopping = True
        self.hubs.stop()
        for session in list(self.sessions):
            session.going_away()
        deadline = time.monotonic() + wait_s
        while self.sessions and time.monotonic() < deadline:
            await asyncio.sleep(0.01)
        log.info("gateway stopping", sockets_left=len(self.sessions))


def state_of(request: Request) -> State:
    return request.app.state.airship  # type: ignore[no-any-return]


async def limited(request: Request) -> State:
    """Every API request counts against its address's rate, by what its route costs (``limits.COSTS``)."""
    st = state_of(request)
    await st.limits.address(st.address(request.headers, request.client), request_cost(request))
    return st


def request_cost(request: Request) -> int:
    route = request.scope.get("route")
    return cost_of(request.method, getattr(route, "path", ""))


async def seat_of(match_id: MatchId, request: Request,
                  auth: Annotated[HTTPAuthorizationCredentials | None, Depends(bearer)]) -> Seat:
    st = await limited(request)
    token = auth.credentials if auth else None
    seat = await st.gateway.authenticate(match_id, token)
    await st.limits.token(seat.token, request_cost(request))
    return seat


def optional_token(auth: Annotated[HTTPAuthorizationCredentials | None, Depends(bearer)]) -> str | None:
    return auth.credentials if auth else None

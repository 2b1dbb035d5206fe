"""The gateway's HTTP API (docs/gateway.md): lobby, commands, views, logs, health and metrics.

Every answer is JSON (or msgpack when asked for); every refusal a problem (``application/problem+json``).
Request bodies are read by :func:`services.gateway.wire.read_body` rather than by FastAPI, so that
msgpack bodies, the size cap and field-naming 400s work the same on every route; their schemas are
declared for the OpenAPI document.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Annotated, Any

import redis.asyncio as aioredis
import redis.exceptions
from fastapi import Depends, FastAPI, Path, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import Response
from prometheus_client import CONTENT_TYPE_LATEST, generate_latest
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.types import ASGIApp, Receive, Scope, Send

from schemas.clock import TimeControl, rated_clock
from schemas.envelopes import CommandResult
from schemas.game_schemas import MatchCreateBody
from schemas.gateway import (
    AbandonAnswer,
    CreateMatch,
    GameInfo,
    GameList,
    Health,
    JoinSeat,
    LogAnswer,
    MatchList,
    MatchSummary,
    OptionInfo,
    Pending,
    SeatToken,
    SendCommand,
    ViewAnswer,
    view_fields,
)
from services import metrics
from services.games import get_game
from services.games.errors import Rejected
from services.games.registry import REGISTRATIONS
from services.gateway.apidocs import add_docs
from services.gateway.deps import (
    CREATE_QUOTA,
    MAX_VERSION,
    Key,
    MatchId,
    State,
    body_of,
    hub_block_ms,
    limited,
    optional_token,
    problems,
    request_cost,
    seat_of,
    state_of,
    without_default_422,
)
from services.gateway.limits import LOG_EVENTS_PER_UNIT
from services.gateway.service import Seat, scoped_id, summary
from services.gateway.store import connect_async
from services.gateway.wire import (
    MSGPACK,
    Refused,
    check_options,
    encode,
    problem_response,
    read_body,
    store_refusal,
    wants_msgpack,
)
from services.logs import error_text, get_logger
from services.settings import Settings

log = get_logger("gateway")
# (the routes' shared state and dependencies, services.gateway.deps, re-exported for the app's importers)
__all__ = ["CREATE_QUOTA", "MAX_VERSION", "GatewayApp", "MatchId", "State", "body_of", "create_app", "hub_block_ms",
           "limited", "optional_token", "problems", "seat_of", "state_of"]
class GatewayApp(FastAPI):
    """FastAPI, except that a WebSocket to one of ``sockets``' paths goes straight to its bare ASGI endpoint,
    past the routing, the dependencies and the middleware (none of which does anything for a WebSocket): an
    open socket's task holds its call stack for its whole life, and through FastAPI that stack (with its
    exit stacks and exception handlers) was a fifth of what an idle subscribed socket cost (docs/performance.md,
    "Live delivery at scale")."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.sockets: dict[str, ASGIApp] = {}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "websocket":
            endpoint = self.sockets.get(scope["path"])
            if endpoint is not None:
                scope["app"] = self
                await endpoint(scope, receive, send)
                return
        await super().__call__(scope, receive, send)


def create_app(settings: Settings, r: aioredis.Redis | None = None) -> FastAPI:
    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        client = r or connect_async(settings.redis_url, settings.gateway_redis_connections)
        # the live readers' blocking reads wait their block time plus the reply's (redis-py's default 5 s is no
        # longer than the block: every idle read would time out); with ``r`` given, its timeout must allow for
        # them. One reader on one server, one per partition on a cluster: never more connections than that.
        reader = None if r is not None else connect_async(
            settings.redis_url, settings.partitions + 1,
            socket_timeout_s=hub_block_ms(settings) / 1000 + settings.redis_timeout_s)
        app.state.airship = State(settings, client, reader)
        app.state.airship.hubs.start()  # positions taken before the first request registers with a hub
        await app.state.airship.limits.start()
        log.info("gateway started", prefix=settings.key_prefix, partitions=settings.partitions)
        try:
            yield
        finally:
            await app.state.airship.shutdown(wait_s=0)
            await app.state.airship.hubs.close()
            await app.state.airship.limits.close()
            if r is None:
                await client.aclose()
            if reader is not None:
                await reader.aclose()

    app = GatewayApp(title="airship gateway", version="1", lifespan=lifespan, docs_url=None, redoc_url=None,
                  description="The one door for players: lobby, commands, views and logs (docs/gateway.md).")
    add_docs(app)  # a page of its own, no scripts and no CDN (services.gateway.apidocs)
    _handlers(app)
    _routes(app)
    without_default_422(app)
    from services.gateway.arena import add_arena_routes
    from services.gateway.bot_flags import add_bot_routes
    from services.gateway.players import add_player_routes
    from services.gateway.rematch import add_rematch_route
    from services.gateway.replays import add_replay_routes
    from services.gateway.ws import add_websocket
    from services.web import add_web

    add_websocket(app)
    add_bot_routes(app)
    add_player_routes(app)
    add_arena_routes(app)
    add_rematch_route(app)
    add_replay_routes(app)
    add_web(app)
    return app


def _handlers(app: FastAPI) -> None:
    @app.exception_handler(Refused)
    async def refused(request: Request, exc: Refused) -> Response:
        if exc.status == 429:
            metrics.GATEWAY_RATE_LIMITED.inc()
        return problem_response(request, exc)

    @app.exception_handler(Rejected)
    async def rejected(request: Request, exc: Rejected) -> Response:
        return problem_response(request, Refused(422, exc.code, exc.reason))

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException) -> Response:
        """Unknown routes (404) and methods (405) are problems too."""
        code = {404: "not_found", 405: "method_not_allowed"}.get(exc.status_code, "http_error")
        return problem_response(request, Refused(exc.status_code, code, str(exc.detail),
                                                 headers=dict(exc.headers or {})))

    @app.exception_handler(RequestValidationError)
    async def invalid(request: Request, exc: RequestValidationError) -> Response:
        first = exc.errors()[0] if exc.errors() else {"loc": (), "msg": "invalid request"}
        field = ".".join(str(p) for p in first.get("loc", ()))
        return problem_response(request, Refused(400, "bad_request", f"{field}: {first.get('msg')}", field))

    @app.exception_handler(redis.exceptions.RedisError)
    async def unavailable(request: Request, exc: redis.exceptions.RedisError) -> Response:
        log.warning("redis error", error=error_text(exc))
        return problem_response(request, store_refusal(exc))

    @app.middleware("http")
    async def measure(request: Request, call_next: Callable[[Request], Awaitable[Response]]) -> Response:
        started = time.perf_counter()
        try:
            response = await call_next(request)
        except Exception as e:  # never a traceback to the client
            log.exception("request failed", path=request.url.path, error=repr(e))
            response = problem_response(request, Refused(500, "internal", "internal error"))
        route = request.scope.get("route")
        name = getattr(route, "path", "other")
        metrics.GATEWAY_REQUESTS.labels(name, str(response.status_code)).inc()
        metrics.GATEWAY_REQUEST_SECONDS.labels(name).observe(time.perf_counter() - started)
        return response


def _routes(app: FastAPI) -> None:
    @app.get("/games", response_model=GameList, tags=["lobby"], responses=problems())
    async def games(request: Request, st: Annotated[State, Depends(limited)]) -> Response:
        infos = []
        for name, registered in sorted(REGISTRATIONS.items()):
            game, schemas = registered.game, registered.schemas
            options = [OptionInfo(name=k, default=f.default, description=f.description or "")
                       for k, f in game.Options.model_fields.items()]
            clock_fields = [OptionInfo(name=k, default=f.default, description=f.description or "")
                            for k, f in TimeControl.model_fields.items()]
            infos.append(GameInfo(name=name, title=game.title, board=registered.web_board_url,
                                  texts=registered.texts_url, rules=registered.rules_url,
                                  min_seats=game.min_seats, max_seats=game.max_seats,
                                  commands=sorted(schemas.commands) if schemas else [],
                                  secret_commands=sorted(registered.secret_commands), options=options,
                                  clock=clock_fields, rated_clock=rated_clock(st.settings.rated_clock_s)))
        return encode(request, GameList(games=infos))

    @app.get("/matches", response_model=MatchList, tags=["lobby"], responses=problems())
    async def matches(request: Request, st: Annotated[State, Depends(limited)],
                      status: Annotated[str | None, Query(pattern="^(open|running|finished)$")] = None,
                      game: Annotated[str | None, Query(max_length=40)] = None,
                      limit: Annotated[int, Query(ge=1, le=200)] = 50) -> Response:
        """The newest matches (of a status, of a game), a second old at most: the page is read from Redis once a
        second whatever the number of clients asking."""
        listed = st.lobby.get((status, game, limit))
        if listed is None:
            found = await st.store.list_matches(status, limit if game is None else 200)
            from services.gateway.bot_flags import with_bot_flags

            listed = [summary(m, v) for m, v in found if game is None or m.game == game][:limit]
            listed = st.lobby.put((status, game, limit), await with_bot_flags(st, listed))
        return encode(request, MatchList(matches=listed))

    @app.post("/matches", response_model=MatchSummary, status_code=201, tags=["lobby"],
              openapi_extra=body_of(CreateMatch), responses=problems(413, 422) | CREATE_QUOTA)
    async def create(request: Request, st: Annotated[State, Depends(limited)]) -> Response:
        body = await read_body(request, CreateMatch, st.settings.gateway_max_body)
        game = get_game(body.game)
        if not game.min_seats <= body.seats <= game.max_seats:
            raise Refused(422, "bad_options", f"{body.game} takes {game.min_seats} to {game.max_seats} seats")
        check_options(game.Options, game.title, body.options)
        from services.gateway.players import player_of  # (players imports this module)

        await st.limits.creation(st.address(request.headers, request.client), await player_of(st, request))
        clock = body.clock if body.clock is not None and body.clock.clocked else None
        meta = await st.gateway.create(MatchCreateBody(game=body.game, seats=body.seats, options=body.options,
                                                       reveal_log=body.reveal_log, clock=clock))
        log.info("match created", match_id=meta.match_id, game=meta.game, seats=meta.seats)
        return encode(request, summary(meta, await st.store.version(meta.match_id)), 201)

    @app.get("/matches/{match_id}", response_model=MatchSummary, tags=["lobby"], responses=problems(404))
    async def match(request: Request, match_id: MatchId, st: Annotated[State, Depends(limited)]) -> Response:
        from services.gateway.bot_flags import with_bot_flags

        meta = await st.gateway.meta(match_id, fresh=True)
        found = summary(meta, await st.gateway.version(match_id))
        return encode(request, (await with_bot_flags(st, [found]))[0])

    @app.post("/matches/{match_id}/seats", response_model=SeatToken, status_code=201, tags=["lobby"],
              openapi_extra=body_of(JoinSeat), responses=problems(401, 403, 404, 409, 413))
    async def join(request: Request, match_id: MatchId, st: Annotated[State, Depends(limited)]) -> Response:
        body = await read_body(request, JoinSeat, st.settings.gateway_max_body)
        meta = await st.gateway.meta(match_id, fresh=True)
        if body.seat is not None and body.seat >= meta.seats:
            raise Refused(400, "bad_request", f"seat {body.seat} does not exist; seats are 0 to {meta.seats - 1}",
                          "body.seat")
        from services.gateway.players import join_seat  # with an API key: the seat linked to its player

        taken = await join_seat(st, request, match_id, body.seat, meta)
        if taken is None:
            raise Refused(409, "conflict", f"seat {body.seat} is taken" if body.seat is not None
                          else "the match is full")
        log.info("seat joined", match_id=match_id, seat=taken[0])
        return encode(request, SeatToken(match_id=match_id, seat=taken[0], token=taken[1]), 201)

    @app.post("/matches/{match_id}/commands", response_model=CommandResult, tags=["play"],
              responses={202: {"model": Pending, "description": "not decided yet: ask again at `location`"},
                         **problems(401, 404, 409, 413)},
              openapi_extra=body_of(SendCommand))
    async def command(request: Request, match_id: MatchId, seat: Annotated[Seat, Depends(seat_of)],
                      wait_s: Annotated[float, Query(ge=0, le=30)] = 10.0) -> Response:
        st = state_of(request)
        body = await read_body(request, SendCommand, st.settings.gateway_max_body)
        if wait_s > 0:
            async with st.waiting(request, seat.token):
                result = await st.gateway.send(seat, body, wait_s)
        else:
            result = await st.gateway.send(seat, body, wait_s)
        return _result_or_pending(request, match_id, body.idempotency_key, result)

    @app.post("/matches/{match_id}/abandon", response_model=AbandonAnswer, tags=["play"],
              responses=problems(401, 404, 409))
    async def abandon(request: Request, match_id: MatchId, seat: Annotated[Seat, Depends(seat_of)]) -> Response:
        """The token's seat votes to end the match early (see ``schemas.gateway.abandon_agreed``)."""
        answer = await state_of(request).gateway.abandon(seat)
        if answer.abandoned:
            log.info("match abandoned", match_id=match_id, votes=answer.votes)
        return encode(request, answer)

    @app.get("/matches/{match_id}/commands/{key}", response_model=CommandResult, tags=["play"],
             responses={202: {"model": Pending, "description": "not decided yet"}, **problems(401, 404)})
    async def command_result(request: Request, match_id: MatchId, key: Key,
                             seat: Annotated[Seat, Depends(seat_of)],
                             wait_s: Annotated[float, Query(ge=0, le=30)] = 0.0) -> Response:
        st = state_of(request)
        if wait_s > 0:
            async with st.waiting(request, seat.token):
                result = await st.gateway.result(seat, key, wait_s)
        else:
            result = await st.gateway.result(seat, key, wait_s)
        if result is None and not await _maybe_pending(st, seat, key):
            raise Refused(404, "not_found", "no command with that idempotency key from this seat")
        return _result_or_pending(request, match_id, key, result)

    @app.get("/matches/{match_id}/views/me", response_model=ViewAnswer, tags=["play"],
             responses={204: {"description": "no newer version within wait_s"}, **problems(401, 404)})
    async def my_view(request: Request, match_id: MatchId, seat: Annotated[Seat, Depends(seat_of)],
                      after_version: Annotated[int | None, Query(ge=0, le=MAX_VERSION)] = None,
                      wait_s: Annotated[float, Query(ge=0, le=30)] = 0.0) -> Response:
        record = await _view_of(request, match_id, str(seat.seat), after_version, wait_s, seat.token)
        return _view(request, record)

    @app.get("/matches/{match_id}/views/seat/{seat}", response_model=ViewAnswer, tags=["play"],
             responses={204: {"description": "no newer version within wait_s"}, **problems(401, 403, 404)})
    async def seat_view(request: Request, match_id: MatchId, seat: Annotated[int, Path(ge=0, le=15)],
                        caller: Annotated[Seat, Depends(seat_of)],
                        after_version: Annotated[int | None, Query(ge=0, le=MAX_VERSION)] = None,
                        wait_s: Annotated[float, Query(ge=0, le=30)] = 0.0) -> Response:
        """The same as ``views/me`` when ``seat`` is the token's own; another seat's view is never given."""
        if seat != caller.seat:
            raise Refused(403, "forbidden", "a seat token reads only its own seat's view")
        record = await _view_of(request, match_id, str(seat), after_version, wait_s, caller.token)
        return _view(request, record)

    @app.get("/matches/{match_id}/views/public", response_model=ViewAnswer, tags=["play"],
             responses={204: {"description": "no newer version within wait_s"}, **problems(404)})
    async def public_view(request: Request, match_id: MatchId, st: Annotated[State, Depends(limited)],
                          after_version: Annotated[int | None, Query(ge=0, le=MAX_VERSION)] = None,
                          wait_s: Annotated[float, Query(ge=0, le=30)] = 0.0) -> Response:
        return _view(request, await _view_of(request, match_id, "public", after_version, wait_s, None))

    @app.get("/matches/{match_id}/log", response_model=LogAnswer, tags=["replay"], responses=problems(401, 404))
    async def match_log(request: Request, match_id: MatchId, st: Annotated[State, Depends(limited)],
                        token: Annotated[str | None, Depends(optional_token)],
                        after_version: Annotated[int, Query(ge=0, le=MAX_VERSION)] = 0) -> Response:
        if token:
            await st.limits.token(token, request_cost(request))
        meta = await st.gateway.meta(match_id)
        if not (meta.status == "finished" and any(
                st.gateway.finished_logs.peek((match_id, p, after_version)) is not None
                for p in ("full", "public", *(f"seat:{s}" for s in range(meta.seats))))):
            events = max(0, await st.gateway.version(match_id) - after_version)  # what reading it will cost
            if events >= LOG_EVENTS_PER_UNIT:
                await st.limits.address(st.address(request.headers, request.client), events // LOG_EVENTS_PER_UNIT)
        answer = await st.gateway.log(match_id, token, after_version)
        key = (match_id, answer.perspective, after_version)
        if st.gateway.finished_logs.peek(key) is not answer:  # a running match's: encoded for this request
            return encode(request, answer)
        packed = wants_msgpack(request)
        body = st.encoded_logs.get((*key, packed))  # a finished match's never changes: encoded once
        if body is None:
            body = st.encoded_logs.put((*key, packed), bytes(encode(request, answer).body))
        return Response(body, media_type=MSGPACK if packed else "application/json")

    @app.get("/healthz", response_model=Health, tags=["operations"])
    async def healthz(request: Request) -> Response:
        return encode(request, Health(status="ok"))

    @app.get("/readyz", response_model=Health, tags=["operations"], responses={503: {"model": Health}})
    async def readyz(request: Request) -> Response:
        """Ready while Redis answers and the live readers read (results and views reach their watchers)."""
        st = state_of(request)
        try:
            await asyncio.wait_for(st.store.ping(), st.settings.redis_timeout_s)
        except Exception as e:
            return encode(request, Health(status="unavailable", detail=type(e).__name__), 503)
        if st.hubs.failing:
            return encode(request, Health(status="unavailable", detail="live reads failing"), 503)
        return encode(request, Health(status="ok"))

    @app.get("/metrics", tags=["operations"], response_class=Response)
    async def prometheus() -> Response:
        return Response(generate_latest(), media_type=CONTENT_TYPE_LATEST)


async def _view_of(request: Request, match_id: str, key: str, after_version: int | None, wait_s: float,
                   token: str | None) -> Any:
    """The view record of ``key``; a request that waits for a newer one holds a long-poll of its token and address."""
    st = state_of(request)
    if after_version is None or wait_s <= 0:
        return await st.gateway.view(match_id, key, after_version, wait_s)
    async with st.waiting(request, token):
        return await st.gateway.view(match_id, key, after_version, wait_s)


async def _maybe_pending(st: State, seat: Seat, key: str) -> bool:
    """Whether a command with this key was published and waits for its result."""
    return await st.store.was_sent(seat.match_id, scoped_id(seat.seat, key))


def _result_or_pending(request: Request, match_id: str, key: str, result: CommandResult | None) -> Response:
    if result is not None:
        return encode(request, result)
    location = f"/matches/{match_id}/commands/{key}"
    return encode(request, Pending(idempotency_key=key, location=location), 202, headers={"Location": location})


def _view(request: Request, record: Any) -> Response:
    if record is None:
        return Response(status_code=204)
    return encode(request, ViewAnswer(**{**view_fields(record), "server_ms": int(time.time() * 1000)}))

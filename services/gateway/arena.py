"""The arena at the gateway (services.ratings.arena has the design): registered players queue for rated matches.

- ``POST /arena/{game}/queue`` (API key) ``{"seats": [...]}``: a ticket in the queue (201);
- ``GET /arena/{game}/queue/{ticket}?wait_s=`` (the same key): keeps the ticket alive, waits up to ``wait_s`` to be
  paired, and once matched answers the match, the seat and the seat's token;
- ``DELETE /arena/{game}/queue/{ticket}``: leave the queue;
- ``GET /arena/{game}``: how many tickets wait, per seat count.
"""

from __future__ import annotations

import asyncio
import time
from typing import Annotated, cast

from fastapi import FastAPI, Query, Request
from fastapi import Path as PathParam
from fastapi.responses import Response

from schemas.players import ArenaQueue, ArenaQueueCount, ArenaStatus, ArenaTicket
from services import metrics
from services.games import GAMES, get_game
from services.gateway.app import State, body_of, limited, problems
from services.gateway.players import _create_reserved, player_of
from services.gateway.wire import Refused, encode, read_body
from services.logs import get_logger
from services.pipeline.auth import hash_credential
from services.ratings import arena
from services.ratings.players import API_KEY_HEADER, claim_args, claim_keys, claim_player_seat_script

log = get_logger("gateway")
Game = Annotated[str, PathParam(max_length=40)]
Ticket = Annotated[str, PathParam(pattern=r"^[0-9a-f]{32}$")]
POLL_EVERY_S = 0.2  # how often a long poll looks at its ticket again


def _game(name: str) -> tuple[int, int]:
    if name not in GAMES:
        raise Refused(404, "not_found", f"no game {name}")
    game = get_game(name)
    return game.min_seats, game.max_seats


async def _player(st: State, request: Request) -> tuple[str, str]:
    """(player, API key) of the request; 401 without a key or with a wrong one."""
    player = await player_of(st, request)
    if player is None:
        raise Refused(401, "unauthorized", f"an API key is required ({API_KEY_HEADER})")
    return player, request.headers[API_KEY_HEADER]


def _now_ms() -> int:
    return int(time.time() * 1000)


async def _poll(st: State, ticket: str, player: str) -> arena.Matched | arena.Waiting | None:
    k = st.settings.keys
    script = st.redis.register_script(arena.POLL)
    reply = await script(keys=[k.arena("waiting")],
                         args=[arena.prefix(k), _now_ms(), ticket, player, int(arena.TICKET_TTL_S * 1000),
                               arena.new_match_id(), int(arena.MATCHED_TTL_S * 1000), arena.SCAN, arena.seat_order()])
    return arena.parse_poll(cast(list[object], reply))


async def _collect(st: State, game: str, player: str, api_key: str, matched: arena.Matched) -> str:
    """Make sure the matched tickets' match exists (whichever poll of the group comes first creates it: the create
    refuses an id that exists), then claim the player's seat with its derived token; returns the token."""
    k = st.settings.keys
    match_id = matched.match_id
    if not matched.created:
        if not await st.redis.exists(k.meta(match_id)):
            try:
                await _create_reserved(st, game, dict(enumerate(matched.players)), {}, True, match_id=match_id)
                metrics.ARENA_MATCHES.labels(game).inc()
                log.info("arena match created", match_id=match_id, game=game, players=matched.players)
            except Refused as e:
                if e.status != 409:  # 409: another gateway created it meanwhile
                    raise
        await st.redis.set(k.arena(f"created:{match_id}"), 1, px=int(arena.MATCHED_TTL_S * 1000))
    token = arena.seat_token(api_key, match_id, matched.seat)
    hashed = hash_credential(token)
    script = st.redis.register_script(claim_player_seat_script())
    reply = await script(keys=claim_keys(k, match_id),
                         args=claim_args(matched.seat, hashed, player, match_id, st.settings.updates_maxlen))
    if reply == -1:
        raise Refused(409, "conflict", f"seat {matched.seat} of {match_id} is reserved for another player")
    if not reply or reply == -2:  # taken: by this very token (a repeated poll), or by a join with the key
        held = await st.redis.hget(k.meta(match_id), f"cred:{matched.seat}")
        if held is None or cast(bytes, held).decode() != hashed:
            raise Refused(409, "conflict", f"your seat {matched.seat} of match {match_id} was taken by another "
                                           f"join with your API key; play it with that join's token")
    st.gateway.forget(match_id)
    return token


def _answer(game: str, player: str, ticket: str, seats: list[int], state: arena.Matched | arena.Waiting,
            token: str | None = None) -> ArenaTicket:
    location = f"/arena/{game}/queue/{ticket}"
    if isinstance(state, arena.Waiting):
        left = max(0.0, (state.deadline_ms - _now_ms()) / 1000)
        return ArenaTicket(ticket=ticket, game=game, player=player, status="waiting", seats=seats,
                           location=location, expires_in_s=round(left, 3))
    return ArenaTicket(ticket=ticket, game=game, player=player, status="matched", seats=seats, location=location,
                       match_id=state.match_id, seat=state.seat, token=token, players=state.players)


async def _seats_of(st: State, ticket: str) -> list[int]:
    raw = await st.redis.hget(st.settings.keys.arena(f"t:{ticket}"), "seats")
    return [int(n) for n in cast(bytes, raw).decode().split(",")] if raw else []


async def _wait(st: State, game: str, ticket: str, player: str, api_key: str, wait_s: float) -> ArenaTicket:
    seats = await _seats_of(st, ticket)
    deadline = time.monotonic() + wait_s
    while True:
        state = await _poll(st, ticket, player)
        if state is None:
            raise Refused(404, "not_found", "no such ticket of yours in the queue (it expired if it was not polled "
                                            f"for {arena.TICKET_TTL_S:g} s); queue again")
        if isinstance(state, arena.Matched):
            token = await _collect(st, game, player, api_key, state)
            return _answer(game, player, ticket, seats, state, token)
        if st.stopping or time.monotonic() + POLL_EVERY_S > deadline:
            return _answer(game, player, ticket, seats, state)
        await asyncio.sleep(POLL_EVERY_S)


def add_arena_routes(app: FastAPI) -> None:
    @app.post("/arena/{game}/queue", response_model=ArenaTicket, status_code=201, tags=["arena"],
              openapi_extra=body_of(ArenaQueue), responses=problems(401, 404, 413, 422))
    async def queue(request: Request, game: Game) -> Response:
        """Queue for a rated match of ``game`` (your API key): the answer is your ticket. Poll its ``location``
        (long poll with ``wait_s``) at least every ``expires_in_s``; once enough distinct players wait for one of
        your seat counts, the poll answers the match, your seat and its token. 429 when you already hold
        the most waiting tickets a player may, 503 when the queue is full."""
        st = await limited(request)
        lowest, highest = _game(game)
        body = await read_body(request, ArenaQueue, st.settings.gateway_max_body)
        player, api_key = await _player(st, request)
        seats = list(dict.fromkeys(body.seats)) if body.seats else list(range(highest, lowest - 1, -1))
        bad = [n for n in seats if not lowest <= n <= highest]
        if bad:
            raise Refused(422, "bad_options", f"{game} takes {lowest} to {highest} seats", "body.seats")
        k = st.settings.keys
        ticket = arena.new_ticket()
        script = st.redis.register_script(arena.ENQUEUE)
        done = await script(keys=[k.arena("waiting")],
                            args=[arena.prefix(k), _now_ms(), ticket, player, game, int(arena.TICKET_TTL_S * 1000),
                                  arena.TICKETS_PER_PLAYER, arena.MAX_WAITING, ",".join(map(str, seats))])
        if done in (-1, -2):
            metrics.ARENA_REFUSED.labels("player_limit" if done == -1 else "queue_full").inc()
        if done == -1:
            raise Refused(429, "rate_limited", f"{player} already holds {arena.TICKETS_PER_PLAYER} waiting tickets: "
                                               "poll them or leave the queue with one",
                          headers={"Retry-After": str(int(arena.TICKET_TTL_S))})
        if done == -2:
            raise Refused(503, "unavailable", "the arena's queue is full; try again later",
                          headers={"Retry-After": "5"})
        metrics.ARENA_TICKETS.labels(game).inc()
        log.info("arena ticket queued", game=game, player=player, seats=seats)
        return encode(request, await _wait(st, game, ticket, player, api_key, 0.0), 201)

    @app.get("/arena/{game}/queue/{ticket}", response_model=ArenaTicket, tags=["arena"],
             responses=problems(401, 404, 409))
    async def poll(request: Request, game: Game, ticket: Ticket,
                   wait_s: Annotated[float, Query(ge=0, le=30)] = 0.0) -> Response:
        """Your ticket (the API key that queued it): waits up to ``wait_s`` to be paired, keeping it in the queue.
        Once matched, the answer carries ``match_id``, ``seat`` and the seat's ``token`` (the same token
        however often you ask). 404 for a ticket that expired, left, or is not yours."""
        st = await limited(request)
        _game(game)
        player, api_key = await _player(st, request)
        if wait_s <= 0:
            return encode(request, await _wait(st, game, ticket, player, api_key, wait_s))
        async with st.waiting(request, api_key):  # a long-poll of the key (as of a seat token) and the address
            return encode(request, await _wait(st, game, ticket, player, api_key, wait_s))

    @app.delete("/arena/{game}/queue/{ticket}", status_code=204, tags=["arena"], responses=problems(401, 404, 409))
    async def leave(request: Request, game: Game, ticket: Ticket) -> Response:
        """Leave the queue (a waiting ticket of yours); 409 once it is matched: play the match."""
        st = await limited(request)
        _game(game)
        player, _ = await _player(st, request)
        k = st.settings.keys
        done = await st.redis.register_script(arena.LEAVE)(keys=[k.arena("waiting")],
                                                           args=[arena.prefix(k), _now_ms(), ticket, player])
        if done == 0:
            raise Refused(404, "not_found", "no such ticket of yours in the queue")
        if done == -1:
            raise Refused(409, "conflict", "the ticket is matched already: collect your seat with a poll")
        return Response(status_code=204)

    @app.get("/arena/{game}", response_model=ArenaStatus, tags=["arena"], responses=problems(404))
    async def status(request: Request, game: Game) -> Response:
        """How many tickets wait for each seat count of ``game`` (a ticket counts once per seat count it accepts)."""
        st = await limited(request)
        lowest, highest = _game(game)
        k = st.settings.keys
        counts = list(range(lowest, highest + 1))
        reply = await st.redis.register_script(arena.STATUS)(keys=[k.arena("waiting")],
                                                             args=[arena.prefix(k), _now_ms(), game, *counts])
        queues = [ArenaQueueCount(seats=n, waiting=int(w)) for n, w in zip(counts, cast(list[int], reply), strict=True)]
        return encode(request, ArenaStatus(game=game, queues=queues, ticket_ttl_s=arena.TICKET_TTL_S,
                                           tickets_per_player=arena.TICKETS_PER_PLAYER))

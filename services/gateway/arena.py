"""The arena at the gateway (services.ratings.pairing has the design): registered players queue for rated matches.

- ``POST /arena/{game}/queue`` (API key) ``{"seats": [...]}``: a ticket in the queue (201);
- ``GET /arena/{game}/queue/{ticket}?wait_s=`` (the same key): keeps the ticket alive, waits up to ``wait_s`` to be
  paired, and once matched answers the match, the seat and the seat's token;
- ``DELETE /arena/{game}/queue/{ticket}``: leave the queue;
- ``GET /arena/{game}``: how many tickets wait, per seat count.

A paired match begins only when every player collects its seat (polls its matched ticket) within
``AIRSHIP_ARENA_CLAIM_S``; past that (and :data:`services.ratings.pairing.SWEEP_GRACE_MS`) any gateway that serves
an arena request dissolves it (:func:`sweep`): the match is marked dissolved on its own hash slot (no seat is
claimed from then on) and left for the archiver to remove, then its tickets are settled on the ``{arena}`` slot
(the collected ones back at the queue's front, the others lapsed and their players barred for
``AIRSHIP_ARENA_NO_SHOW_S``). Both steps are scripts and idempotent, so several replicas may do it at once.
"""

from __future__ import annotations

import asyncio
import time
from typing import Annotated, Any, cast

from fastapi import FastAPI, Query, Request
from fastapi import Path as PathParam
from fastapi.responses import Response

from schemas.players import ArenaQueue, ArenaQueueCount, ArenaStatus, ArenaTicket
from services import metrics
from services.games import GAMES, get_game
from services.gateway.deps import State, body_of, limited, problems
from services.gateway.players import _create_reserved, player_of
from services.gateway.wire import Refused, encode, read_body
from services.logs import get_logger
from services.pipeline.auth import hash_credential
from services.ratings import pairing as arena
from services.ratings.players import API_KEY_HEADER

log = get_logger("gateway")
Game = Annotated[str, PathParam(max_length=40)]
Ticket = Annotated[str, PathParam(pattern=r"^[0-9a-f]{32}$")]
POLL_EVERY_S = 0.2  # how often a long poll looks at its ticket again
SWEEP_EVERY_S = 1.0  # how often a gateway looks for paired matches past their claim deadline (on arena requests)
SWEEP_BATCH = 20  # such matches settled per look
_swept: dict[int, float] = {}  # id(State) -> when this gateway last looked


def _problems(*statuses: int, **described: str) -> dict[int | str, dict[str, Any]]:
    """:func:`problems` with the arena's own descriptions (``s409="..."``) for some statuses."""
    answers = problems(*statuses)
    for key, text in described.items():
        answers[int(key[1:])] = {**answers[int(key[1:])], "description": text}
    return answers


QUEUE_429 = ("rate limited (Retry-After); `arena_ticket_limit`: you hold the most open tickets a player may "
             "(AIRSHIP_ARENA_TICKETS_PER_PLAYER, all games); `arena_no_show`: you did not collect a seat of an arena "
             "match in time and may not queue until Retry-After")
LAPSED_409 = ("`arena_seat_lapsed`: the ticket was matched but you did not collect your seat within the claim time: "
              "the match is dissolved and the ticket dropped; or `conflict`: your seat was taken by another join "
              "with your key")


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


def _claim_ms(st: State) -> int:
    return int(st.settings.arena_claim_s * 1000)


async def _poll(st: State, ticket: str, player: str) -> arena.Matched | arena.Waiting | arena.Lapsed | None:
    k = st.settings.keys
    script = st.redis.register_script(arena.POLL)
    reply = await script(keys=[k.arena("waiting")],
                         args=[arena.prefix(k), _now_ms(), ticket, player, int(arena.TICKET_TTL_S * 1000),
                               arena.new_match_id(), int(arena.MATCHED_TTL_S * 1000), arena.SCAN, arena.seat_order(),
                               _claim_ms(st)])
    return arena.parse_poll(cast(list[object], reply))


async def _settle(st: State, match_id: str, outcome: str, collected: str = "") -> list[tuple[str, str]]:
    """The SETTLE script for one match: (player, 'requeued'|'lapsed') for each ticket it changed."""
    k = st.settings.keys
    reply = await st.redis.register_script(arena.SETTLE)(
        keys=[k.arena("waiting")],
        args=[arena.prefix(k), _now_ms(), match_id, outcome, collected, int(arena.TICKET_TTL_S * 1000),
              int(st.settings.arena_no_show_s * 1000), arena.FRONT, int(arena.MATCHED_TTL_S * 1000)])
    flat = [x.decode() if isinstance(x, bytes) else str(x) for x in cast(list[object], reply)]
    return list(zip(flat[::2], flat[1::2], strict=True))


async def dissolve(st: State, match_id: str) -> bool:
    """Settle one paired match whose claim deadline passed: begun (its tickets stop counting), or dissolved (the
    match marked so, then its collected tickets requeued and the rest lapsed). False when it is not due yet on
    the match's side (its deadline, by this gateway's clock, has not passed)."""
    k = st.settings.keys
    reply = await st.redis.register_script(arena.DISSOLVE)(
        keys=[k.gw(match_id)], args=[match_id, _now_ms()])
    parts = [x.decode() if isinstance(x, bytes) else str(x) for x in cast(list[object], reply)]
    if parts[0] == "early":
        return False
    if parts[0] == "started":
        await _settle(st, match_id, "started")
        return True
    changed = await _settle(st, match_id, "dissolved", parts[1] if len(parts) > 1 else "")
    if changed:
        metrics.ARENA_DISSOLVED.inc()
        log.info("arena match dissolved: not every seat was collected in time", match_id=match_id,
                 requeued=[p for p, what in changed if what == "requeued"],
                 lapsed=[p for p, what in changed if what == "lapsed"])
    return True


async def sweep(st: State, force: bool = False) -> int:
    """Dissolve (or settle as begun) the paired matches past their claim deadline; at most once a
    :data:`SWEEP_EVERY_S` per gateway unless ``force``. Returns how many were settled."""
    now = time.monotonic()
    if not force and now - _swept.get(id(st), 0.0) < SWEEP_EVERY_S:
        return 0
    _swept[id(st)] = now
    due = await st.redis.zrangebyscore(st.settings.keys.arena("pending"), "-inf",
                                       _now_ms() - arena.SWEEP_GRACE_MS, start=0, num=SWEEP_BATCH)
    done = 0
    for raw in cast(list[bytes], due):
        done += await dissolve(st, raw.decode())
    return done


async def _collect(st: State, game: str, player: str, api_key: str, matched: arena.Matched) -> str:
    """Make sure the matched tickets' match exists (whichever poll of the group comes first has a worker create it:
    an identical ``match.create`` for an id that exists is answered as created), then have a worker give the
    player's seat its derived token (a repeated poll's join is answered as joined); returns the token."""
    k = st.settings.keys
    match_id = matched.match_id
    if matched.claim_by_ms and _now_ms() > matched.claim_by_ms:
        raise _lapsed(st, match_id)
    if not matched.created:
        if not await st.redis.exists(k.meta(match_id)):
            await _create_reserved(st, game, dict(enumerate(matched.players)), {}, True, match_id=match_id,
                                   claim_by_ms=matched.claim_by_ms or None)
            metrics.ARENA_MATCHES.labels(game).inc()
            log.info("arena match created", match_id=match_id, game=game, players=matched.players)
        await st.redis.set(k.arena(f"created:{match_id}"), 1, px=int(arena.MATCHED_TTL_S * 1000))
    token = arena.seat_token(api_key, match_id, matched.seat)
    taken_by_another = Refused(409, "conflict", f"your seat {matched.seat} of match {match_id} was taken by another "
                                                f"join with your API key; play it with that join's token")
    try:
        held = (await st.gateway.meta(match_id, fresh=True)).credential_hashes.get(matched.seat)
        joined = held == hash_credential(token) or await st.gateway.join(match_id, matched.seat, token, player)
    except Refused as e:
        if e.code == "arena_seat_lapsed":
            raise _lapsed(st, match_id) from None
        if e.code == "forbidden":
            raise Refused(409, "conflict",
                          f"seat {matched.seat} of {match_id} is reserved for another player") from None
        if e.code in ("conflict", "full"):  # the player holds a seat by another join; or it began without this one
            raise taken_by_another from None
        raise
    if not joined:
        raise taken_by_another
    if (await st.gateway.meta(match_id, fresh=True)).status != "open":  # every seat collected: the tickets stop
        await _settle(st, match_id, "started")  # counting as the players' open ones
    return token


def _lapsed(st: State, match_id: str) -> Refused:
    return Refused(409, "arena_seat_lapsed",
                   f"your seat of arena match {match_id} was not collected within {st.settings.arena_claim_s:g} s: "
                   f"the match is dissolved and your ticket dropped; you may queue again in "
                   f"{st.settings.arena_no_show_s:g} s", headers={"Retry-After": str(int(st.settings.arena_no_show_s))})


def _answer(game: str, player: str, ticket: str, seats: list[int], state: arena.Matched | arena.Waiting,
            token: str | None = None) -> ArenaTicket:
    location = f"/arena/{game}/queue/{ticket}"
    if isinstance(state, arena.Waiting):
        left = max(0.0, (state.deadline_ms - _now_ms()) / 1000)
        return ArenaTicket(ticket=ticket, game=game, player=player, status="waiting", seats=seats,
                           location=location, expires_in_s=round(left, 3), requeued=state.requeued)
    claim = round(max(0.0, (state.claim_by_ms - _now_ms()) / 1000), 3) if state.claim_by_ms else None
    return ArenaTicket(ticket=ticket, game=game, player=player, status="matched", seats=seats, location=location,
                       match_id=state.match_id, seat=state.seat, token=token, players=state.players,
                       claim_in_s=claim)


async def _seats_of(st: State, ticket: str) -> list[int]:
    raw = await st.redis.hget(st.settings.keys.arena(f"t:{ticket}"), "seats")
    return [int(n) for n in cast(bytes, raw).decode().split(",")] if raw else []


async def _wait(st: State, game: str, ticket: str, player: str, api_key: str, wait_s: float) -> ArenaTicket:
    seats = await _seats_of(st, ticket)
    deadline = time.monotonic() + wait_s
    while True:
        await sweep(st)
        state = await _poll(st, ticket, player)
        if state is None:
            raise Refused(404, "not_found", "no such ticket of yours in the queue (it expired if it was not polled "
                                            f"for {arena.TICKET_TTL_S:g} s); queue again")
        if isinstance(state, arena.Lapsed):
            raise _lapsed(st, state.match_id)
        if isinstance(state, arena.Matched):
            token = await _collect(st, game, player, api_key, state)
            return _answer(game, player, ticket, seats, state, token)
        if st.stopping or time.monotonic() + POLL_EVERY_S > deadline:
            return _answer(game, player, ticket, seats, state)
        await asyncio.sleep(POLL_EVERY_S)


def add_arena_routes(app: FastAPI) -> None:
    @app.post("/arena/{game}/queue", response_model=ArenaTicket, status_code=201, tags=["arena"],
              openapi_extra=body_of(ArenaQueue),
              responses=_problems(401, 404, 409, 413, 422, s429=QUEUE_429, s409=LAPSED_409))
    async def queue(request: Request, game: Game) -> Response:
        """Queue for a rated match of ``game`` (your API key): the answer is your ticket. Poll its ``location``
        (long poll with ``wait_s``) at least every ``expires_in_s``; once enough distinct players wait for one of
        your seat counts, the poll answers the match, your seat and its token. Every player of the match must
        collect its seat so (poll its matched ticket) within ``claim_in_s``, or the match is dissolved: the
        tickets whose seats were collected go back to the front of the queue (the same ticket answers
        ``waiting`` again), the others lapse (409 ``arena_seat_lapsed``) and their players may not queue for a
        while (429 ``arena_no_show``). 429 ``arena_ticket_limit`` when you already hold the most open tickets a
        player may (waiting, or matched to a match not begun: all games together), 503 when the queue is full."""
        st = await limited(request)
        lowest, highest = _game(game)
        body = await read_body(request, ArenaQueue, st.settings.gateway_max_body)
        player, api_key = await _player(st, request)
        seats = list(dict.fromkeys(body.seats)) if body.seats else list(range(highest, lowest - 1, -1))
        bad = [n for n in seats if not lowest <= n <= highest]
        if bad:
            raise Refused(422, "bad_options", f"{game} takes {lowest} to {highest} seats", "body.seats")
        k = st.settings.keys
        await sweep(st)
        ticket = arena.new_ticket()
        script = st.redis.register_script(arena.ENQUEUE)
        most = st.settings.arena_tickets_per_player
        done = await script(keys=[k.arena("waiting")],
                            args=[arena.prefix(k), _now_ms(), ticket, player, game, int(arena.TICKET_TTL_S * 1000),
                                  most, arena.MAX_WAITING, ",".join(map(str, seats))])
        if done in (-1, -2, -3):
            metrics.ARENA_REFUSED.labels({-1: "player_limit", -2: "queue_full", -3: "no_show"}[done]).inc()
        if done == -1:
            raise Refused(429, "arena_ticket_limit", f"{player} already holds {most} open arena tickets (waiting, "
                                                     "or matched to a match not begun; all games together): play, "
                                                     "poll them or leave the queue with one",
                          headers={"Retry-After": str(int(arena.TICKET_TTL_S))})
        if done == -3:
            until = await st.redis.get(k.arena(f"ban:{player}"))
            wait = max(1, -(-(int(until or 0) - _now_ms()) // 1000))
            raise Refused(429, "arena_no_show", f"{player} did not collect its seat of an arena match in time; it "
                                                f"may queue again in {wait} s", headers={"Retry-After": str(wait)})
        if done == -2:
            raise Refused(503, "unavailable", "the arena's queue is full; try again later",
                          headers={"Retry-After": "5"})
        metrics.ARENA_TICKETS.labels(game).inc()
        log.info("arena ticket queued", game=game, player=player, seats=seats)
        return encode(request, await _wait(st, game, ticket, player, api_key, 0.0), 201)

    @app.get("/arena/{game}/queue/{ticket}", response_model=ArenaTicket, tags=["arena"],
             responses=_problems(401, 404, 409, s409=LAPSED_409))
    async def poll(request: Request, game: Game, ticket: Ticket,
                   wait_s: Annotated[float, Query(ge=0, le=30)] = 0.0) -> Response:
        """Your ticket (the API key that queued it): waits up to ``wait_s`` to be paired, keeping it in the queue.
        Once matched, the answer carries ``match_id``, ``seat`` and the seat's ``token`` (the same token
        however often you ask): that poll collects your seat. Until the match begins, keep polling the ticket
        now and then: if some player did not collect its seat within ``claim_in_s``, the match is dissolved and
        your ticket answers ``waiting`` again (``requeued`` counts it), at the front of the queue. 404 for a
        ticket that expired, left, or is not yours; 409 ``arena_seat_lapsed`` when it was matched and you did
        not collect the seat in time."""
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
        await sweep(st)
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
        await sweep(st)
        counts = list(range(lowest, highest + 1))
        reply = await st.redis.register_script(arena.STATUS)(keys=[k.arena("waiting")],
                                                             args=[arena.prefix(k), _now_ms(), game, *counts])
        queues = [ArenaQueueCount(seats=n, waiting=int(w)) for n, w in zip(counts, cast(list[int], reply), strict=True)]
        return encode(request, ArenaStatus(game=game, queues=queues, ticket_ttl_s=arena.TICKET_TTL_S,
                                           tickets_per_player=st.settings.arena_tickets_per_player,
                                           claim_s=st.settings.arena_claim_s))

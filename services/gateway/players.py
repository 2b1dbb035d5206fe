"""Registered players, rated seats and the ladder at the gateway (services.ratings has the design):

- ``POST /players``: register a name, get its API key once;
- joining a seat with ``X-Airship-Key`` links it to the player (:func:`join_seat`, called by the join route);
- ``POST /ladder/{game}/matches``: a match whose seats are reserved for named players (the caller must be one);
- ``GET /ladder/{game}``, ``GET /ladder/{game}/players/{name}``: the standings and a player's history, read from
  the ratings read model.
"""

from __future__ import annotations

import time
from typing import Annotated, Any, cast

from fastapi import FastAPI, Request
from fastapi import Path as PathParam
from fastapi.responses import Response

from schemas.clock import rated_clock
from schemas.codec import pack_obj, unpack_obj
from schemas.envelopes import MatchMeta
from schemas.game_schemas import MatchCreateBody
from schemas.players import (
    NAME_PATTERN,
    CreateRatedMatch,
    HistoryEntry,
    LadderAnswer,
    PlayerHistory,
    PlayerKey,
    PlayerName,
    RegisterPlayer,
    Standing,
)
from services.games import GAMES, get_game
from services.gateway.deps import CREATE_QUOTA, State, body_of, limited, problems
from services.gateway.service import summary
from services.gateway.shared_limits import Limit
from services.gateway.wire import Refused, check_options, encode, read_body
from services.logs import get_logger
from services.pipeline.auth import new_token
from services.ratings.players import (
    API_KEY_HEADER,
    REGISTER,
    key_hash,
    key_is_players,
    new_api_key,
    player_record,
    well_formed_key,
)

log = get_logger("gateway")
Name = Annotated[str, PathParam(pattern=NAME_PATTERN)]
Game = Annotated[str, PathParam(max_length=40)]


async def player_of(st: State, request: Request) -> str | None:
    """The player whose API key the request carries (None: no key); 401 for a key that is not one."""
    api_key = request.headers.get(API_KEY_HEADER)
    if api_key is None:
        return None
    name = None
    if well_formed_key(api_key):
        digest = key_hash(api_key)
        name = await st.redis.hget(st.settings.keys.players("keys"), digest)
        if name is not None:  # the key is the player's only if its record names the key too
            record = await st.redis.hget(st.settings.keys.players("names"), name)
            if not key_is_players(unpack_obj(cast(bytes, record)) if record is not None else None, digest):
                log.warning("an API key whose player's record does not name it", player=cast(bytes, name).decode())
                name = None
    if name is None:
        raise Refused(401, "unauthorized", f"unknown API key ({API_KEY_HEADER})")
    return cast(bytes, name).decode()


async def join_seat(st: State, request: Request, match_id: str, seat: int | None,
                    meta: MatchMeta) -> tuple[int, str] | None:
    """Take ``seat`` (or the first free one the caller may take: with an API key its player's reserved seat, else
    one reserved for nobody): (seat, token), or None when none could be taken. With an API key the seat is linked
    to its player; without one, a seat reserved for a player is refused (403). A worker decides each try
    (``match.join``); a seat token names its seat, so each candidate gets its own."""
    player = await player_of(st, request)
    reserved: dict[int, str] = getattr(meta, "reserved", {})  # (the route's fresh GatewayMeta parsed them)
    if seat is not None and seat in reserved and reserved[seat] != player:
        raise Refused(403, "forbidden", f"seat {seat} is reserved for another player" if player else
                      f"seat {seat} is reserved for a rated player: join it with its API key ({API_KEY_HEADER})")
    mine = [s for s, name in reserved.items() if player is not None and name == player]
    candidates = [seat] if seat is not None else mine or [
        s for s in range(meta.seats) if s not in meta.credential_hashes and s not in reserved]
    for candidate in candidates:
        token = new_token(candidate)
        if await st.gateway.join(match_id, candidate, token, player):
            if player is not None:
                log.info("seat linked to a player", match_id=match_id, seat=candidate, player=player)
            return candidate, token
    return None


def registrations(per_hour: int) -> Limit:
    """The per-address registration quota (``AIRSHIP_GATEWAY_REGISTER_PER_HOUR``): ``per_hour`` at once at most,
    then refilled at ``per_hour`` an hour, in the gateways' shared limits (it holds across replicas)."""
    n = max(1, per_hour)
    return Limit("address_registrations", n, n / 3600, "address's player registrations")


def add_player_routes(app: FastAPI) -> None:
    @app.get("/players/me", response_model=PlayerName, tags=["players"], responses=problems(401))
    async def me(request: Request) -> Response:
        """The name of the player whose API key (``X-Airship-Key``) the request carries: 401 without one or for a
        key that is no player's. A client checks a key with it before keeping it (the web app's sign-in)."""
        st = await limited(request)
        name = await player_of(st, request)
        if name is None:
            raise Refused(401, "unauthorized", f"an API key is required ({API_KEY_HEADER})")
        return encode(request, PlayerName(name=name))

    @app.post("/players", response_model=PlayerKey, status_code=201, tags=["players"],
              openapi_extra=body_of(RegisterPlayer), responses={**problems(409, 413), 429: {
                  **problems()[429], "description": "`registration_quota`: this address (an IPv6 address: its /64) "
                  "registered AIRSHIP_GATEWAY_REGISTER_PER_HOUR players within the hour; see Retry-After"}})
    async def register(request: Request) -> Response:
        """Register a player (a bot or a person); the answer holds its API key, shown this once. Anyone may
        register, so each client address (an IPv6 address: its /64) may register only a few players an hour
        (``AIRSHIP_GATEWAY_REGISTER_PER_HOUR``, 20 by default): names are kept for good and must be neither a way
        to fill Redis nor a cheap supply of names (the arena's sybils). 429 ``registration_quota`` past it, with
        ``Retry-After``."""
        st = await limited(request)
        body = await read_body(request, RegisterPlayer, st.settings.gateway_max_body)
        quota = registrations(st.settings.gateway_register_per_hour)
        try:
            await st.limits.rate(quota, st.address(request.headers, request.client))
        except Refused as e:
            if e.status != 429:
                raise
            raise Refused(429, "registration_quota", f"this address registered its {quota.limit:g} players for "
                                                     "now; try again later", headers=e.headers) from None
        api_key = new_api_key()
        k = st.settings.keys
        record = pack_obj(player_record(int(time.time() * 1000), key_hash(api_key)))
        script = st.redis.register_script(REGISTER)
        if not await script(keys=[k.players("names"), k.players("keys")], args=[body.name, key_hash(api_key), record]):
            raise Refused(409, "conflict", f"the name {body.name} is taken")
        log.info("player registered", player=body.name)
        return encode(request, PlayerKey(name=body.name, api_key=api_key), 201)

    @app.post("/ladder/{game}/matches", status_code=201, tags=["players"], openapi_extra=body_of(CreateRatedMatch),
              responses=problems(401, 403, 404, 413, 422) | CREATE_QUOTA)
    async def create_rated(request: Request, game: Game) -> Response:
        """A rated match: seat i reserved for ``players[i]``, who joins it with its API key. The caller (its API
        key) must be one of the players."""
        st = await limited(request)
        body = await read_body(request, CreateRatedMatch, st.settings.gateway_max_body)
        caller = await player_of(st, request)
        if caller is None:
            raise Refused(401, "unauthorized", f"an API key is required ({API_KEY_HEADER})")
        if caller not in body.players:
            raise Refused(403, "forbidden", "you may only create rated matches you play in")
        if len(set(body.players)) != len(body.players):
            raise Refused(422, "bad_options", "a player takes one seat of a match")
        if game not in GAMES:
            raise Refused(404, "not_found", f"no game {game}")
        impl = get_game(game)
        if not impl.min_seats <= len(body.players) <= impl.max_seats:
            raise Refused(422, "bad_options", f"{game} takes {impl.min_seats} to {impl.max_seats} seats")
        check_options(impl.Options, impl.title, body.options)
        known = await st.redis.hmget(st.settings.keys.players("names"), body.players)
        unknown = [p for p, v in zip(body.players, known, strict=True) if v is None]
        if unknown:
            raise Refused(422, "bad_options", f"not registered: {', '.join(unknown)}")
        await st.limits.creation(st.address(request.headers, request.client), caller)
        meta = await _create_reserved(st, game, dict(enumerate(body.players)), body.options, body.reveal_log)
        log.info("rated match created", match_id=meta.match_id, game=game, players=body.players)
        return encode(request, summary(meta, await st.store.version(meta.match_id)), 201)

    @app.get("/ladder/{game}", response_model=LadderAnswer, tags=["players"], responses=problems(404))
    async def ladder(request: Request, game: Game) -> Response:
        st = await limited(request)
        if game not in GAMES:
            raise Refused(404, "not_found", f"no game {game}")
        data = await st.redis.get(st.settings.keys.ratings(f"{game}:standings"))
        rows = unpack_obj(cast(bytes, data)) if data else []
        return encode(request, LadderAnswer(game=game, standings=[Standing(**row) for row in rows]))

    @app.get("/ladder/{game}/players/{name}", response_model=PlayerHistory, tags=["players"], responses=problems(404))
    async def history(request: Request, game: Game, name: Name) -> Response:
        st = await limited(request)
        data = await st.redis.hget(st.settings.keys.ratings(f"{game}:history"), name)
        if data is None:
            raise Refused(404, "not_found", f"{name} has no rated match of {game}")
        rows: list[dict[str, Any]] = unpack_obj(cast(bytes, data))
        return encode(request, PlayerHistory(game=game, player=name, history=[HistoryEntry(**row) for row in rows]))


async def _create_reserved(st: State, game_name: str, players: dict[int, str], options: dict[str, Any],
                           reveal_log: bool, match_id: str | None = None, claim_by_ms: int | None = None) -> MatchMeta:
    """A match whose seats are reserved for these players, created by a worker (``match.create``) with the
    reservations among the meta fields it writes, so no seat is ever free of its reservation. ``match_id``: the id
    to create it under (the arena's, chosen when it paired the players: whichever gateway asks first creates it,
    the others' identical commands are answered as created); ``claim_by_ms``: an arena match's claim deadline.
    Every rated match is clocked (``schemas.clock.ARENA_CLOCK``), so no silent seat holds it forever."""
    body = MatchCreateBody(game=game_name, seats=len(players), options=options, reveal_log=reveal_log,
                           reserved=players, claim_by_ms=claim_by_ms,
                           clock=rated_clock(st.settings.rated_clock_s))  # rated: always clocked (#29)
    return await st.gateway.create(body, match_id)

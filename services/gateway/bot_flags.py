"""Seats for the service's bots (docs/web.md): a client flags free seats of an open match for the bots
(``POST /matches/{id}/bots``); the bots process (``airship bots``) asks which matches are ready for them
(``GET /bots/wanted``: open matches whose free seats are all flagged) and joins those seats through the lobby
like any client, with seat tokens of its own.

The flags are fields ``bot:<seat>`` of the match's meta hash, set by one script (``lua/flag_bots.lua``) that
checks the seats are free; the matches waiting for bots are listed in each partition's bots-wanted set
(:meth:`services.keys.Keys.bots_wanted`).

What an anonymous client could abuse is capped. Once a seat is taken, only a seated player may flag (with its
seat token), so nobody fills a table others are gathering at. Flag requests have their own rate per address
(``AIRSHIP_GATEWAY_BOT_FLAG_RPS``, on top of the address's request rate). At most :data:`MAX_WAITING` matches
wait for bots at once (a full list is a 503 with Retry-After), and a match whose people never come drops off
the list after :data:`WAIT_S`. The bots process caps the seats it plays at once and takes a match only when it
can seat every one of its bots, so a match whose other seats are still empty costs it nothing.
"""

from __future__ import annotations

import time
import weakref
from pathlib import Path
from typing import Annotated, Any

from fastapi import Depends, FastAPI, Query, Request
from fastapi import Path as PathParam
from fastapi.responses import Response

from schemas.gateway import MATCH_ID, BotSeats, BotsWanted, FlagBots, MatchSummary
from services.gateway.deps import State, body_of, limited, optional_token, problems
from services.gateway.shared_limits import Limit
from services.gateway.wire import Refused, encode, read_body
from services.logs import get_logger
from services.pipeline.redis_streams import text
from services.readmodels.sources import link_fields, links_from

log = get_logger("gateway")
MatchId = Annotated[str, PathParam(pattern=MATCH_ID)]
LUA = Path(__file__).with_name("lua") / "flag_bots.lua"
MAX_WAITING = 500  # matches with bot seats waiting at once, in the whole deployment
WAIT_S = 3600.0  # a match stays on the bots' list this long after its last flag
FLAG_BURST_S = 20  # flag requests per address come in bursts of this many seconds' worth (of gateway_bot_flag_rps)
REFUSALS = {-1: (404, "not_found", "no such match"),
            -2: (409, "conflict", "the match is not open for joining any more"),
            -3: (400, "bad_request", "seat {seat} does not exist"),
            -4: (409, "conflict", "seat {seat} is taken"),
            -5: (409, "conflict", "seat {seat} is flagged for bots already"),
            -6: (403, "forbidden", "seat {seat} is reserved for a registered player: only that player may take it")}


def bot_flags(meta_hash: dict[bytes, bytes]) -> dict[int, str]:
    """seat -> strength, from the fields ``bot:<seat>`` of a match's gw hash (HGETALL)."""
    return {int(k[4:]): v.decode() for k, v in meta_hash.items() if k.startswith(b"bot:") and k[4:].isdigit()}


def wire_flags(flags: dict[int, str]) -> dict[str, str]:
    return {str(seat): kind for seat, kind in sorted(flags.items())}


class BotSeatStore:
    """The flags and the bots-wanted sets in Redis, through the gateway's client."""

    def __init__(self, store: Any) -> None:
        self.r = store.r
        self.keys = store.keys
        self._flag = self.r.register_script(LUA.read_text())

    async def flags(self, match_ids: list[str]) -> dict[str, dict[int, str]]:
        """Each match's flags (one pipelined HGETALL of the gw hashes)."""
        if not match_ids:
            return {}
        pipe = self.r.pipeline(transaction=False)
        for match_id in match_ids:
            pipe.hgetall(self.keys.gw(match_id))
        replies = await pipe.execute()
        return {match_id: bot_flags(h or {}) for match_id, h in zip(match_ids, replies, strict=True)}

    async def waiting(self, limit: int) -> list[tuple[float, str]]:
        """(flagged at, match id) of up to ``limit`` matches on the bots' lists, oldest first."""
        pipe = self.r.pipeline(transaction=False)
        for p in range(self.keys.partitions):
            pipe.zrevrange(self.keys.bots_wanted(p), 0, limit - 1, withscores=True)
        replies = await pipe.execute()
        return sorted((float(score), text(mid)) for reply in replies for mid, score in reply)[:limit]

    async def flag(self, match_id: str, seats: list[int], kind: str) -> None:
        keys = [self.keys.gw(match_id), self.keys.bots_wanted(self.keys.partition(match_id))]
        code, seat = await self._flag(keys=keys, args=[kind, int(time.time() * 1000), *seats])
        if int(code) != 0:
            status, error, detail = REFUSALS[int(code)]
            raise Refused(status, error, detail.format(seat=int(seat)), "body.seats" if int(code) == -3 else None)

    async def wanted(self, limit: int) -> list[BotSeats]:
        """The matches ready for the bots: open, every free seat flagged. Entries of matches that are gone,
        no longer open or waited longer than :data:`WAIT_S` are dropped from the lists on the way."""
        found = await self.waiting(MAX_WAITING)
        if not found:
            return []
        pipe = self.r.pipeline(transaction=False)
        for _, match_id in found:
            pipe.hgetall(self.keys.meta(match_id))
            pipe.hgetall(self.keys.gw(match_id))
        replies = await pipe.execute()
        ready: list[BotSeats] = []
        stale: list[str] = []
        now_ms = time.time() * 1000
        for (flagged_ms, match_id), h, gw in zip(found, replies[::2], replies[1::2], strict=True):
            if not h or h.get(b"status") != b"open" or now_ms - flagged_ms > WAIT_S * 1000:
                stale.append(match_id)
                continue
            flags = bot_flags(gw or {})
            free = {s for s in range(int(h[b"seats"])) if f"cred:{s}".encode() not in h}
            if free and free <= set(flags) and len(ready) < limit:
                ready.append(BotSeats(match_id=match_id, game=h[b"game"].decode(),
                                      bots=wire_flags({s: flags[s] for s in sorted(free)})))
        if stale:
            for match_id in stale:
                pipe.zrem(self.keys.bots_wanted(self.keys.partition(match_id)), match_id)
            await pipe.execute()
        return ready


async def with_bot_flags(st: State, summaries: list[MatchSummary]) -> list[MatchSummary]:
    """The summaries with their seats flagged for bots and the registered players who took seats (one pipelined
    read of the gw hashes and the seat-players links; an archived match has neither)."""
    if not summaries:
        return summaries
    k = st.settings.keys
    pipe = st.redis.pipeline(transaction=False)
    for s in summaries:
        pipe.hgetall(k.gw(s.match_id))
        pipe.hmget(k.seat_players(k.partition(s.match_id)), link_fields(s.match_id, s.seats))
    replies = await pipe.execute()
    out = []
    for s, gw, links in zip(summaries, replies[::2], replies[1::2], strict=True):
        seated, _ = links_from(links)
        update: dict[str, Any] = {}
        if flags := bot_flags(gw or {}):
            update["bots"] = wire_flags(flags)
        if seated:
            update["players"] = {str(seat): name for seat, name in sorted(seated.items())}
        out.append(s.model_copy(update=update) if update else s)
    return out


def add_bot_routes(app: FastAPI) -> None:
    """``POST /matches/{id}/bots`` and ``GET /bots/wanted``."""
    stores: weakref.WeakKeyDictionary[State, BotSeatStore] = weakref.WeakKeyDictionary()

    def seat_store(st: State) -> BotSeatStore:
        if st not in stores:
            stores[st] = BotSeatStore(st.store)
        return stores[st]

    @app.post("/matches/{match_id}/bots", response_model=BotSeats, status_code=201, tags=["lobby"],
              openapi_extra=body_of(FlagBots), responses=problems(401, 404, 409, 413))
    async def flag_bots(request: Request, match_id: MatchId,
                        st: Annotated[State, Depends(limited)],
                        token: Annotated[str | None, Depends(optional_token)]) -> Response:
        """Give free seats of an open match to the service's bots (``airship bots``), of one strength. They
        join once every other seat is taken. Once a seat is taken, only a seated player may do this (with its
        seat token): nobody fills a table others are gathering at. 503 while too many matches wait for bots."""
        body = await read_body(request, FlagBots, st.settings.gateway_max_body)
        rps = st.settings.gateway_bot_flag_rps
        await st.limits.rate(Limit("address_bot_flags", max(1, int(rps * FLAG_BURST_S)), rps, "address's bot requests"),
                             st.address(request.headers, request.client))
        meta = await st.gateway.meta(match_id, fresh=True)
        if meta.credential_hashes or token:
            if not token:
                raise Refused(401, "unauthorized", "only a player seated at this match may give its free seats to "
                                                   "bots: send your seat token")
            await st.limits.token(token)
            await st.gateway.authenticate(match_id, token)  # 401 for a token of no seat of this match
        store = seat_store(st)
        flags = (await store.flags([match_id]))[match_id]
        if body.seats is None:  # every free seat the bots may take: not one reserved for a registered player
            reserved = getattr(meta, "reserved", {})
            seats = [s for s in range(meta.seats) if s not in meta.credential_hashes and s not in flags
                     and s not in reserved]
        else:
            seats = sorted(set(body.seats))
        if meta.status != "open":
            raise Refused(409, "conflict", "the match is not open for joining any more")
        if not seats:
            raise Refused(409, "conflict", "no free seat is left to give to bots")
        if len(await store.waiting(MAX_WAITING)) >= MAX_WAITING:
            raise Refused(503, "unavailable", "too many matches are waiting for bots; try again later",
                          headers={"Retry-After": "30"})
        await store.flag(match_id, seats, body.bot)
        log.info("seats flagged for bots", match_id=match_id, seats=seats, bot=body.bot)
        flags.update({s: body.bot for s in seats})
        return encode(request, BotSeats(match_id=match_id, game=meta.game, bots=wire_flags(flags)), 201)

    @app.get("/bots/wanted", response_model=BotsWanted, tags=["lobby"], responses=problems())
    async def bots_wanted(request: Request, st: Annotated[State, Depends(limited)],
                          limit: Annotated[int, Query(ge=1, le=200)] = 50) -> Response:
        """The matches ready for the bots (open, every free seat flagged), oldest first: what ``airship bots``
        takes. Public, as the lobby is: which seats are free is no secret."""
        return encode(request, BotsWanted(matches=await seat_store(st).wanted(limit)))

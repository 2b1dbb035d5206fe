"""``POST /matches/{id}/rematch``: the same match again, with the same seats (#30).

A seat of a finished match asks; the first ask creates the new match (the same game, seat count, options and log
setting; a rated match's seats reserved for the same players; the seats the service's bots played flagged for
them again) and records it in the old match's gw hash (``rematch``, written once: two seats asking at once get
the same new match). Every other seat finds it in the old match's summary (``rematch``) and takes its own seat
number in the new one. It counts against the asker's creation quota like ``POST /matches``.
"""

from __future__ import annotations

from typing import Annotated, cast

from fastapi import Depends, FastAPI, Request
from fastapi.responses import Response

from schemas.game_schemas import MatchCreateBody
from schemas.gateway import MatchSummary
from services.gateway.bot_flags import BotSeatStore, bot_flags
from services.gateway.deps import CREATE_QUOTA, MatchId, problems, seat_of, state_of
from services.gateway.service import Seat, summary
from services.gateway.wire import Refused, encode
from services.logs import get_logger

log = get_logger("gateway")
REMATCH = "rematch"  # gw hash field of a finished match: the id of its rematch


def add_rematch_route(app: FastAPI) -> None:
    @app.post("/matches/{match_id}/rematch", response_model=MatchSummary, status_code=201, tags=["lobby"],
              responses=problems(401, 404, 409) | CREATE_QUOTA)
    async def rematch(request: Request, match_id: MatchId, seat: Annotated[Seat, Depends(seat_of)]) -> Response:
        """The same match again with the same seats (your seat token of the finished match): 201 with the new
        match's summary, or 200 with the one another seat asked for first. Take your seat in it as in any match
        (``POST /matches/{new id}/seats`` with the same seat number); a rated match's seats are reserved for the
        same players, the bots' seats flagged for the bots again. 409 while the match is not over."""
        st = state_of(request)
        meta = await st.gateway.meta(match_id, fresh=True)
        if meta.status != "finished":
            raise Refused(409, "conflict", "the match has not ended; a rematch is offered once it has")
        k = st.settings.keys
        earlier = await st.redis.hget(k.gw(match_id), REMATCH)
        if earlier is None:
            from services.gateway.players import player_of

            await st.limits.creation(st.address(request.headers, request.client), await player_of(st, request))
            ended = await st.store.view(match_id, "public")  # the same time control as the match it follows
            body = MatchCreateBody(game=meta.game, seats=meta.seats, options=meta.options, reveal_log=meta.reveal_log,
                                   reserved=getattr(meta, "reserved", {}),
                                   clock=ended.clock.control if ended is not None and ended.clock else None)
            made = await st.gateway.create(body)
            if await st.redis.hsetnx(k.gw(match_id), REMATCH, made.match_id):
                bots = bot_flags(cast(dict[bytes, bytes], await st.redis.hgetall(k.gw(match_id))))
                for strength in sorted(set(bots.values())):
                    await BotSeatStore(st.store).flag(made.match_id, [s for s, b in bots.items() if b == strength],
                                                      strength)
                log.info("rematch created", match_id=match_id, rematch=made.match_id, seat=seat.seat)
                return encode(request, summary(made, await st.store.version(made.match_id)), 201)
            earlier = await st.redis.hget(k.gw(match_id), REMATCH)  # another seat's came first: ours stays open,
        new_id = earlier.decode() if isinstance(earlier, bytes) else str(earlier)  # nobody joins it, it expires
        again = await st.gateway.meta(new_id, fresh=True)
        return encode(request, summary(again, await st.gateway.version(new_id)), 200)

"""Replays of finished matches for the web (docs/web.md): ``GET /matches/{id}/replay`` (the versions, who may
be followed, each seat's score and money over the match, the log's verification) and
``GET /matches/{id}/replay/{version}?seat=`` (one version from one perspective: the view, the event in words,
and the step exactly as ``airship replay --at V --seat S`` prints it).

The gateway replays the whole log with the game's ``evolve`` (:class:`services.replay.stepper.Replay`) and
gives out only the perspective the caller may see: with ``reveal_log`` (the default) the finished log is
public, so every seat's; without it the public one, and a seat's own with its token. A running match has no
replay (409): it is watched live. Replays are built in a worker thread, a few at a time, and the last ones
kept (a finished log never changes). The verification is :func:`services.replay.verify.verify` without the
seed, which the gateway never reads: the versions run 1..n without a gap and every event applies; to decide
every command again, export the log with its seed and run ``airship replay --verify``.
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Annotated, Any

from fastapi import Depends, FastAPI, Query, Request
from fastapi import Path as PathParam
from fastapi.responses import Response

from schemas.envelopes import EventEnvelope, MatchMeta
from schemas.gateway import MATCH_ID, ReplayOverview, ReplayStep, Verification
from services.games.clock import MatchState
from services.games.registration import Numbers
from services.games.registry import registration_of
from services.gateway.deps import MAX_VERSION, State, limited, optional_token, problems
from services.gateway.wire import Refused, encode
from services.pipeline.states import to_event
from services.replay.files import MatchLog
from services.replay.render import describe_event
from services.replay.stepper import Replay, ReplayError
from services.replay.verify import verify

MatchId = Annotated[str, PathParam(pattern=MATCH_ID)]
KEPT = 16  # replays kept in memory
BUILDS = 2  # replays built at once


@dataclass
class Built:
    meta: MatchMeta
    replay: Replay
    scores: list[Numbers]
    money: list[Numbers] | None
    ok: bool
    checked: str
    failed_at: int | None


def build(meta: MatchMeta, events: list[EventEnvelope]) -> Built:
    """Replay and verify a finished match's whole log (CPU work: run in a thread)."""
    log = MatchLog(meta.model_copy(update={"seed": None, "credential_hashes": {}}), events)
    replay = Replay(log)
    game = replay.game
    standing = registration_of(meta.game).standing  # each seat's score as it stands (else: at the end only)
    report = verify(log)
    scores: list[Numbers] = []
    money: list[Numbers] = []
    state = game.initial()
    for version in range(replay.last + 1):
        if version:
            state = game.evolve(state, to_event(events[version - 1]))
        public = game.view(state, None) if version else {}
        outcome = public.get("outcome") if isinstance(public, Mapping) else None
        got: Numbers = [None] * meta.seats
        cash: Numbers | None = None
        if standing is not None and version:
            got, cash = standing(state.game if isinstance(state, MatchState) else state, public)
        if isinstance(outcome, Mapping) and isinstance(outcome.get("scores"), list):
            got = [float(s) for s in outcome["scores"]]
        scores.append(list(got))
        money.append(list(cash) if cash is not None else [None] * meta.seats)
    has_money = any(v is not None for row in money for v in row)
    lines = [line for line in report.summary().splitlines() if not line.startswith("no match header")]
    lines.append("The gateway never reads the seed: to decide every command again, export the log with its seed "
                 "and run `airship replay --verify`.")
    if not (report.ok or meta.reveal_log):  # the reason could quote a secret of a log that is not public
        lines = [f"FAILED at version {report.mismatch.version if report.mismatch else '?'}"]
    checked = "\n".join(lines)
    return Built(meta, replay, scores, money if has_money else None, report.ok, checked,
                 report.mismatch.version if report.mismatch else None)


class Replays:
    """The replays this gateway built lately, and the builds under way."""

    def __init__(self) -> None:
        self._kept: OrderedDict[str, Built] = OrderedDict()
        self._building: dict[str, asyncio.Task[Built]] = {}
        self._slots = asyncio.Semaphore(BUILDS)

    async def get(self, st: State, match_id: str) -> Built:
        if match_id in self._kept:
            self._kept.move_to_end(match_id)
            return self._kept[match_id]
        task = self._building.get(match_id)
        if task is None:
            task = self._building[match_id] = asyncio.create_task(self._build(st, match_id))
            task.add_done_callback(lambda _: self._building.pop(match_id, None))
        return await asyncio.shield(task)

    async def _build(self, st: State, match_id: str) -> Built:
        meta, events = await st.gateway.full_log(match_id)
        if meta.status != "finished":
            raise Refused(409, "conflict", "the match is still being played: watch it live; its replay opens "
                                           "when it ends")
        async with self._slots:
            try:
                built = await asyncio.to_thread(build, meta, events)
            except ReplayError as e:
                raise Refused(409, "conflict", f"the log cannot be replayed: {e}") from None
        self._kept[match_id] = built
        while len(self._kept) > KEPT:
            self._kept.popitem(last=False)
        return built


async def perspectives(st: State, built: Built, token: str | None) -> list[str]:
    """What the caller may follow: every seat when the log is public, else the public view and its own seat."""
    if built.meta.reveal_log:
        return ["public", *(str(s) for s in range(built.meta.seats))]
    if token:
        await st.limits.token(token)
        seat = await st.gateway.authenticate(built.meta.match_id, token)  # 401 when wrong (or archived)
        return ["public", str(seat.seat)]
    return ["public"]


def add_replay_routes(app: FastAPI) -> None:
    replays = Replays()

    @app.get("/matches/{match_id}/replay", response_model=ReplayOverview, tags=["replay"],
             responses=problems(401, 404, 409))
    async def replay_overview(request: Request, match_id: MatchId, st: Annotated[State, Depends(limited)],
                              token: Annotated[str | None, Depends(optional_token)]) -> Response:
        """A finished match for replaying: its last version, the perspectives the caller may follow, each
        seat's score (and money) at every version, and the log's verification."""
        built = await replays.get(st, match_id)
        return encode(request, ReplayOverview(
            match_id=match_id, game=built.meta.game, seats=built.meta.seats, last=built.replay.last,
            perspectives=await perspectives(st, built, token), scores=built.scores, money=built.money,
            verification=Verification(ok=built.ok, checked=built.checked, version=built.failed_at)))

    @app.get("/matches/{match_id}/replay/{version}", response_model=ReplayStep, tags=["replay"],
             responses=problems(401, 403, 404, 409))
    async def replay_step(request: Request, match_id: MatchId, version: Annotated[int, PathParam(ge=0, le=MAX_VERSION)],
                          st: Annotated[State, Depends(limited)],
                          token: Annotated[str | None, Depends(optional_token)],
                          seat: Annotated[int | None, Query(ge=0, le=15)] = None) -> Response:
        """One version of a finished match as ``seat`` (absent: a spectator) saw it: the view, the event in
        words and ``text``, which is what ``airship replay --at V --seat S`` prints."""
        built = await replays.get(st, match_id)
        allowed = await perspectives(st, built, token)
        if seat is not None and seat >= built.meta.seats:
            raise Refused(404, "not_found", f"no seat {seat}; this match has seats 0 to {built.meta.seats - 1}")
        if ("public" if seat is None else str(seat)) not in allowed:
            raise Refused(403, "forbidden", "this match's log is not public: a seat's replay is only for that seat")
        if version > built.replay.last:
            raise Refused(404, "not_found", f"no version {version}; this match has 0 to {built.replay.last}")
        step = await asyncio.to_thread(_step, built.replay, version, seat)
        return encode(request, ReplayStep(match_id=match_id, version=version, last=built.replay.last, seat=seat,
                                          **step))


def _step(replay: Replay, version: int, seat: int | None) -> dict[str, Any]:
    view = replay.view_at(version, seat)
    event = describe_event(replay.event(version), seat) if version else "(before the first event)"
    return {"event": event, "text": replay.render_step(version, seat), "view": view,
            "to_act": list(view.get("to_act") or []), "finished": bool(view.get("finished")),
            "outcome": view.get("outcome")}


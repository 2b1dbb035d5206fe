"""Creating matches and joining seats. A seat's credential is returned once and stored only as a hash.

Trusted embedded clients call :func:`create_match` and :func:`join` directly; the gateway publishes the system
commands ``match.create`` and ``match.join`` instead (#35), which a worker decides with :func:`create_from` and
:func:`join_from`: only the workers write metas, logs, feeds, seeds and credentials."""

from __future__ import annotations

import secrets
import time
import uuid
from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import ValidationError

from schemas.clock import CLOCK_STARTED, TimeControl
from schemas.envelopes import CommandEnvelope, CommandResult, MatchMeta
from schemas.game_schemas import CREATE_COMMAND, JOIN_COMMAND, MatchCreateBody, MatchJoinBody
from services.games import get_game
from services.games.base import Event, replay
from services.games.clock import clock_events, match_game
from services.games.errors import BadOptions
from services.games.rng import derive_rng
from services.pipeline.auth import hash_credential, new_token
from services.pipeline.ports import EventStore, Start
from services.pipeline.states import to_envelope, to_event

SYSTEM_COMMANDS = (CREATE_COMMAND, JOIN_COMMAND)
RESERVE = "reserve:"  # meta hash field per reserved seat: the player's name
ARENA_CLAIM_BY = "arena_claim_by"  # meta hash field of an arena match: its seats must be claimed by then (ms)
JOIN_REFUSALS = {  # join.lua's outcomes other than 'joined': the result's code and reason
    "unknown": ("not_found", "no such match"),
    "expired": ("expired", "the join was decided after the gateway had answered its client; join again"),
    "started": ("full", "the match is not open for joining any more"),
    "lapsed": ("arena_seat_lapsed", "this arena match was not collected in time: it is dissolved and will not "
                                    "begin"),
    "twice": ("conflict", "{player} already holds a seat of this match"),
    "no_seat": ("bad_request", "seat {seat} does not exist"),
    "reserved": ("forbidden", "seat {seat} is reserved for another player"),
    "taken": ("taken", "seat {seat} is taken"),
}


def create_match(
    store: EventStore,
    game_name: str,
    seats: int,
    options: Mapping[str, Any] | None = None,
    seed: int | None = None,
    match_id: str | None = None,
    reveal_log: bool = True,
    fields: Sequence[Any] = (),
    clock: TimeControl | None = None,
) -> MatchMeta:
    """Set the match up (its first events are written now) and open its seats for joining. ``fields``: more meta
    field/value pairs (:func:`service_fields`); ``clock``: its time control (#29; ``ClockSet`` ends the set-up)."""
    game = get_game(game_name)
    seed = secrets.randbits(63) if seed is None else seed
    match_id = match_id or uuid.uuid4().hex[:16]
    events = game.setup(dict(options or {}), seats, derive_rng(seed, 0)) + clock_events(clock)
    started = events[0].body.get("options", {}) if events else {}
    meta = MatchMeta(match_id=match_id, game=game_name, seats=seats, options=started, seed=seed, status="open",
                     reveal_log=reveal_log, clock=clock if clock is not None and clock.clocked else None)
    envelopes = [to_envelope(match_id, i + 1, e) for i, e in enumerate(events)]
    if not store.create_match(meta, envelopes, fields):
        raise BadOptions(f"match id '{match_id}' is taken")
    return meta


def join(store: EventStore, match_id: str, seat: int | None = None) -> tuple[int, str]:
    """Take a seat (the first free one if ``seat`` is None). Returns (seat, credential)."""
    meta = store.meta(match_id)
    if meta is None:
        raise BadOptions(f"no match '{match_id}'")
    candidates = [seat] if seat is not None else [s for s in range(meta.seats) if s not in meta.credential_hashes]
    for candidate in candidates:
        credential = new_token(candidate)
        if store.join(match_id, candidate, hash_credential(credential), start=clock_start(store, meta)).outcome \
                == "joined":
            return candidate, credential
    raise BadOptions(f"seat {seat} of match '{match_id}' is taken" if seat is not None else "the match is full")


def clock_start(store: EventStore, meta: MatchMeta | None) -> Start | None:
    """What the join that starts a clocked match appends: ``ClockStarted`` now, and the first deadline (None for
    a match without a clock, or one no longer open). Every join of an open match brings it: only the one that
    takes the last seat appends it (``lua/join.lua``)."""
    if meta is None or meta.status != "open" or meta.clock is None:  # (the meta names a clocked match's control)
        return None
    game = match_game(meta.game)
    log = store.read_log(meta.match_id)
    state = replay(game, [to_event(e) for e in log])
    if state.clock is None:
        return None
    event = Event(CLOCK_STARTED, {"at_ms": int(time.time() * 1000)})
    deadline = game.deadline(game.evolve(state, event))
    return Start(to_envelope(meta.match_id, len(log) + 1, event), deadline[0] if deadline else 0)


def service_fields(reserved: Mapping[int, str], claim_by_ms: int | None = None) -> list[Any]:
    """Meta hash field/value pairs reserving seats for players, and an arena match's claim deadline."""
    fields: list[Any] = [x for seat, name in sorted(reserved.items()) for x in (f"{RESERVE}{seat}", name)]
    return fields + ([ARENA_CLAIM_BY, claim_by_ms] if claim_by_ms else [])


def _result(env: CommandEnvelope, version: int, seat: int | None = None, code: str | None = None,
            reason: str | None = None) -> CommandResult:
    return CommandResult(command_id=env.command_id, match_id=env.match_id, seat=seat, version=version,
                         status="rejected" if code else "accepted", code=code, reason=reason)


def create_from(store: EventStore, env: CommandEnvelope) -> CommandResult:
    """Decide ``match.create``: set the match up under the envelope's match id, with a seed drawn here. A match id
    that exists already is answered as created: by this command delivered again, or by an identical one (an
    arena match is created by whichever gateway's poll comes first, each with the same body)."""
    try:
        body = MatchCreateBody.model_validate(env.body)
    except ValidationError as e:
        return _result(env, 0, code="bad_command", reason=f"malformed match.create ({e.error_count()} errors)")
    if store.meta(env.match_id) is None:
        try:
            create_match(store, body.game, body.seats, body.options, match_id=env.match_id,
                         reveal_log=body.reveal_log, fields=service_fields(body.reserved, body.claim_by_ms),
                         clock=body.clock)
        except (BadOptions, ValidationError) as e:
            if store.meta(env.match_id) is None:  # (else created meanwhile, by an identical command)
                reason = str(e) if isinstance(e, BadOptions) else f"bad options ({e.error_count()} errors)"
                return _result(env, 0, code="bad_options", reason=reason)
    return _result(env, store.version(env.match_id))


def join_from(store: EventStore, env: CommandEnvelope) -> CommandResult:
    """Decide ``match.join``: the seat the store's join gives (its result names it), or why none."""
    try:
        body = MatchJoinBody.model_validate(env.body)
    except ValidationError as e:
        return _result(env, store.version(env.match_id), code="bad_command",
                       reason=f"malformed match.join ({e.error_count()} errors)")
    joined = store.join(env.match_id, body.seat, body.credential_hash, body.player, body.until_ms,
                        clock_start(store, store.meta(env.match_id)))
    version = store.version(env.match_id)
    if joined.outcome == "joined" and joined.seat is not None:
        return _result(env, version, seat=joined.seat)
    code, reason = JOIN_REFUSALS[joined.outcome]
    return _result(env, version, code=code, reason=reason.format(seat=body.seat, player=body.player))


def join_deadline(wait_s: float) -> int:
    """A join's ``until_ms``: now plus how long its gateway waits for the result."""
    return int((time.time() + wait_s) * 1000)

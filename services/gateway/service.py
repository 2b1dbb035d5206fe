"""What the gateway does, apart from HTTP and WebSocket framing: authenticate seat tokens, publish
commands with the seat stamped and the id scoped to the seat, wait for results, serve views and logs
with exactly what the caller may see."""

from __future__ import annotations

import asyncio
import time
import uuid
from dataclasses import dataclass
from pathlib import Path

from schemas.envelopes import CommandEnvelope, CommandResult, EventEnvelope, MatchMeta, ViewRecord
from schemas.game_schemas import (
    ABANDON_COMMAND,
    CREATE_COMMAND,
    JOIN_COMMAND,
    MATCH_ABANDONED,
    MatchCreateBody,
    MatchJoinBody,
)
from schemas.gateway import (
    ABANDON_IDLE_S,
    AbandonAnswer,
    LogAnswer,
    MatchSummary,
    SendCommand,
    abandon_agreed,
    abandon_waiting_for,
)
from services import metrics
from services.archive.files import archive_path, read_archive
from services.archive.serve import ArchiveUnavailable, fetch_archive
from services.gateway.cache import Lru
from services.gateway.hub import ANY_KEY, Closing, Hubs, Update
from services.gateway.store import GatewayMeta, GatewayStore
from services.gateway.wire import Refused
from services.pipeline.auth import hash_credential, seat_authorized, token_seat
from services.pipeline.lobby import join_deadline
from services.replay.files import LogFileError, MatchLog

META_TTL_S = 1.0
ARCHIVE_CACHE = 64  # archived match logs kept in memory (an archive never changes)
ARCHIVED = "archived"  # the credential hash of an archived match's seats: no sha256 hex digest, so no token matches
MAX_WAIT_S = 30.0
FINISHED_LOGS = 32  # finished matches' log answers kept (per perspective and starting version)
ABANDON_WAIT_S = 10.0  # how long a vote that ends the match waits for a worker to decide the abandon command
LOBBY_WAIT_S = 10.0  # how long a creation or a join waits for a worker to decide it (match.create, match.join)
VIEW_WAIT_S = 2.0  # how long a creation then waits for the projector's first view of the match
NO_WORKER = "no worker decided it in time (the service is starting or overloaded); try again"
JOIN_STATUS = {"forbidden": 403, "not_found": 404, "bad_request": 400}  # else 409 (conflict, full, lapsed, expired)


@dataclass(frozen=True, slots=True)
class Seat:
    match_id: str
    seat: int
    token: str


def scoped_id(seat: int, key: str) -> str:
    """The stream command id of a seat's idempotency key: nobody else can use or pre-empt it."""
    return f"{seat}.{key}"


def for_client(result: CommandResult, seat: int | None = None) -> CommandResult:
    """A result as its sender sees it: the command id is the idempotency key it chose. ``seat``: the sender,
    when the result does not name it (a dead-lettered command's rejection is written without a seat)."""
    sender = result.seat if result.seat is not None else seat
    prefix = f"{sender}."
    if sender is not None and result.command_id.startswith(prefix):
        return result.model_copy(update={"command_id": result.command_id[len(prefix):], "seat": sender})
    return result


def _no_result(future: asyncio.Future[CommandResult | None]) -> None:
    if not future.done():
        future.set_result(None)


def _current_votes(meta: MatchMeta, version: int) -> dict[int, int]:
    """The abandon votes cast at the match's current version: seat -> when (ms)."""
    votes: dict[int, tuple[int, int]] = getattr(meta, "abandon_votes", {})
    return {s: ms for s, (v, ms) in votes.items() if v == version}


def preview(record: ViewRecord) -> ViewRecord:
    """A view record as it is served while its match waits for players: version 0 (nothing a seat can act on
    has happened; a client resuming from it waits for the match to begin), nobody to act, nothing legal. The
    game's ``view`` is left as set up (the deal, and who will act first)."""
    return record.model_copy(update={"version": 0, "to_act": [], "legal": []})


def summary(meta: MatchMeta, version: int) -> MatchSummary:
    free = [s for s in range(meta.seats) if s not in meta.credential_hashes]
    return MatchSummary(match_id=meta.match_id, game=meta.game, seats=meta.seats, seats_free=free,
                        status=meta.status, options=meta.options, version=version, reveal_log=meta.reveal_log,
                        clock=meta.clock, abandoned=getattr(meta, "abandoned", False),
                        reserved={str(s): name for s, name in sorted(getattr(meta, "reserved", {}).items())},
                        rematch=getattr(meta, "rematch", None))


class Gateway:
    def __init__(self, store: GatewayStore, hubs: Hubs) -> None:
        self.store = store
        self.hubs = hubs
        self._metas: dict[str, tuple[float, MatchMeta]] = {}
        self.finished_logs: Lru[LogAnswer] = Lru(FINISHED_LOGS)
        self._metas_swept_at = 1000  # entries at which the expired ones are dropped
        self._archives: dict[str, MatchLog] = {}

    # -- matches and tokens ----------------------------------------------------------------------
    async def meta(self, match_id: str, fresh: bool = False) -> MatchMeta:
        """The match's metadata (cached for a second: seats and tokens never change once set); 404 if none."""
        now = time.monotonic()
        cached = self._metas.get(match_id)
        if cached is not None and not fresh and now - cached[0] < META_TTL_S:
            return cached[1]
        meta, _ = await self._lookup(match_id)
        if len(self._metas) >= self._metas_swept_at:  # the expired ones go (a gateway may watch 10,000 matches)
            self._metas = {m: c for m, c in self._metas.items() if now - c[0] < META_TTL_S}
            self._metas_swept_at = max(1000, 2 * len(self._metas))
        self._metas[match_id] = (now, meta)
        return meta

    async def _lookup(self, match_id: str) -> tuple[MatchMeta, MatchLog | None]:
        """The metadata from Redis, else from the match's archive file (then with the archived log, without the
        seed, every seat taken by no token); 404 if neither has it."""
        meta = await self.store.meta(match_id)
        if meta is not None:
            return meta, None
        archived = await self._archived(match_id)
        if archived is None or archived.meta is None:
            raise Refused(404, "not_found", "no such match")
        taken = {seat: ARCHIVED for seat in range(archived.meta.seats)}  # every seat taken, no token matches
        abandoned = bool(archived.events) and archived.events[-1].type == MATCH_ABANDONED
        meta = GatewayMeta(**{**archived.meta.model_dump(), "seed": None, "credential_hashes": taken,
                              "status": "finished"}, abandoned=abandoned)
        return meta, archived

    async def full_log(self, match_id: str) -> tuple[MatchMeta, list[EventEnvelope]]:
        """The metadata and whole log of a match, secrets included (from Redis, else its archive), for the
        gateway's own use: what it gives out of them is up to the caller (services.gateway.replays)."""
        meta, archived = await self._lookup(match_id)
        if archived is not None:
            return meta, list(archived.events)
        return meta, await self.store.read_log(match_id, meta.game)

    async def _archived(self, match_id: str) -> MatchLog | None:
        """The archived match: from the archiver over HTTP (``AIRSHIP_ARCHIVE_URL``, the way on Kubernetes: the
        archive volume is the archiver's alone), else from ``AIRSHIP_ARCHIVE_DIR`` mounted here; None if none."""
        root = getattr(self.store.settings, "archive_dir", "")
        url = getattr(self.store.settings, "archive_url", "")
        if match_id in self._archives or not (root or url):
            return self._archives.get(match_id)
        try:
            if url:
                archived = await asyncio.to_thread(fetch_archive, url, match_id)
            else:
                path = archive_path(Path(root), match_id, self.store.keys.partitions)
                archived = await asyncio.to_thread(read_archive, path)
        except (ValueError, LogFileError):  # not a file name, or an unreadable file: as if there were none
            return None
        except ArchiveUnavailable as e:
            raise Refused(503, "unavailable", "the archive is unavailable", headers={"Retry-After": "5"}) from e
        if archived is not None:
            if len(self._archives) >= ARCHIVE_CACHE:
                self._archives.pop(next(iter(self._archives)))
            self._archives[match_id] = archived
        return archived

    async def version(self, match_id: str) -> int:
        """The match's version in Redis, else that of its archive's last event."""
        version = await self.store.version(match_id)
        if version:
            return version
        archived = await self._archived(match_id)
        return archived.events[-1].version if archived is not None and archived.events else 0

    def forget(self, match_id: str) -> None:
        self._metas.pop(match_id, None)

    async def authenticate(self, match_id: str, token: str | None) -> Seat:
        """The seat ``token`` acts for in this match: 401 for a missing or wrong token."""
        if not token:
            raise Refused(401, "unauthorized", "a seat token is required (Authorization: Bearer <token>)")
        seat = token_seat(token)
        if seat is None:
            raise Refused(401, "unauthorized", "malformed seat token")
        meta = await self.meta(match_id)
        if not seat_authorized(meta, seat, token):
            meta = await self.meta(match_id, fresh=True)  # the seat may have been joined a moment ago
            if not seat_authorized(meta, seat, token):
                metrics.GATEWAY_AUTH_FAILURES.inc()
                raise Refused(401, "unauthorized", "wrong seat token for this match")
        return Seat(match_id, seat, token)

    # -- commands --------------------------------------------------------------------------------
    async def send(self, seat: Seat, command: SendCommand, wait_s: float) -> CommandResult | None:
        """Publish the command for ``seat`` and wait up to ``wait_s`` for its result (None: still pending).
        A key already used returns its recorded result and publishes nothing."""
        command_id = scoped_id(seat.seat, command.idempotency_key)
        meta = await self.meta(seat.match_id)
        if meta.status == "open":  # the cached meta may predate the last join
            meta = await self.meta(seat.match_id, fresh=True)
        if meta.status == "open":  # nothing is published for a match still waiting for players
            return CommandResult(command_id=command.idempotency_key, match_id=seat.match_id, seat=seat.seat,
                                 status="rejected", version=await self.store.version(seat.match_id),
                                 code="not_your_turn", reason="the match is waiting for players to join")
        if meta.status == "finished" or getattr(meta, "abandoned", False):
            # Nothing is published for a finished match, and nothing is stored (no ``sent`` entry, no result): the
            # answer is its recorded result if the key was used before the end, else a rejection made here. (An
            # abandoned match may still be held as running by workers: refused here too.)
            earlier = await self.store.result(seat.match_id, command_id)
            return for_client(earlier, seat.seat) if earlier is not None else CommandResult(
                command_id=command.idempotency_key, match_id=seat.match_id, seat=seat.seat, status="rejected",
                version=await self.store.version(seat.match_id), code="game_over",
                reason="the match was abandoned by its players" if getattr(meta, "abandoned", False)
                else "the match is over")
        hub = await self.hubs.get(seat.match_id)
        future = hub.expect(command_id)
        try:
            # built from a validated SendCommand and an authenticated seat: no second validation per command
            envelope = CommandEnvelope.model_construct(command_id=command_id, match_id=seat.match_id, seat=seat.seat,
                                                       type=command.type, body=command.body,
                                                       expected_version=command.expected_version)
            earlier = await self.store.publish(envelope)
            metrics.GATEWAY_COMMANDS.inc()
            if earlier is not None:
                return for_client(earlier, seat.seat)
            if wait_s <= 0:  # not waiting: pending (202), whatever a worker may have decided meanwhile
                return None
            return await self._await(seat, command_id, future, wait_s)
        finally:
            hub.forget(command_id, future)

    async def abandon(self, seat: Seat, idle_after_s: float = ABANDON_IDLE_S) -> AbandonAnswer:
        """``seat`` votes to end the match early; it ends when :func:`schemas.gateway.abandon_agreed` says so.
        A vote counts at the version it was cast: a move since makes it void. 409 before the match begins."""
        meta = await self.meta(seat.match_id, fresh=True)
        if meta.status == "open":
            raise Refused(409, "conflict", "the match has not begun; nothing to abandon")
        version = await self.store.version(seat.match_id)
        if meta.status == "running" and seat.seat not in _current_votes(meta, version):  # a vote keeps its time
            await self.store.vote_abandon(seat.match_id, seat.seat, version, int(time.time() * 1000))
            meta = await self.meta(seat.match_id, fresh=True)
        version = await self.store.version(seat.match_id)
        votes = _current_votes(meta, version)
        record = await self.store.view(seat.match_id, "public")
        to_act = list(record.to_act) if record is not None else []
        idle_s = (time.time() * 1000 - min(votes.values())) / 1000 if votes else 0.0
        abandoned = bool(getattr(meta, "abandoned", False))
        agree = set(votes) | set(getattr(meta, "bots", ()))  # the service's bots never keep people in a match
        if meta.status == "running" and abandon_agreed(meta.seats, to_act, agree, idle_s, idle_after_s):
            rule = "all" if len(agree) == meta.seats else "idle"
            abandoned = await self._end_abandoned(seat, sorted(agree), rule, version)
            meta = await self.meta(seat.match_id, fresh=True)
        waiting = [] if abandoned or meta.status == "finished" else abandon_waiting_for(
            meta.seats, to_act, agree, idle_s, idle_after_s)
        return AbandonAnswer(match_id=seat.match_id, abandoned=abandoned, votes=sorted(votes),
                             waiting_for=waiting, idle_after_s=idle_after_s)

    async def decided(self, envelope: CommandEnvelope, wait_s: float) -> CommandResult | None:
        """Publish a system command and wait up to ``wait_s`` for a worker's result (None: none came; the recorded
        result is looked up once more at the end, in case the announcement was missed)."""
        hub = await self.hubs.get(envelope.match_id)
        future = hub.expect(envelope.command_id)
        try:
            result = await self.store.publish(envelope)
            if result is None:
                try:
                    result = await asyncio.wait_for(asyncio.shield(future), wait_s)
                except TimeoutError:
                    result = None
                if result is None:
                    result = await self.store.result(envelope.match_id, envelope.command_id)
        finally:
            hub.forget(envelope.command_id, future)
        return result

    async def create(self, body: MatchCreateBody, match_id: str | None = None) -> MatchMeta:
        """Have a worker set a match up (``match.create``, #35) and return its metadata: 503 when none decided it
        within :data:`LOBBY_WAIT_S` (the match may still be made later: nobody holds a seat of it, and the
        archiver removes it once open past ``AIRSHIP_OPEN_TTL_S``), 422 for options its set-up refused. An arena
        match's id is chosen by its pairing; any other's here."""
        match_id = match_id or uuid.uuid4().hex[:16]
        await self.store.check_open_room(match_id)
        envelope = CommandEnvelope(command_id="create", match_id=match_id, seat=0, type=CREATE_COMMAND,
                                   body=body.model_dump(mode="json", exclude_none=True))  # (no clock: as before)
        result = await self.decided(envelope, LOBBY_WAIT_S)
        if result is None:
            raise Refused(503, "unavailable", f"the match was not created: {NO_WORKER}", headers={"Retry-After": "1"})
        if result.status == "rejected":
            raise Refused(422 if result.code == "bad_options" else 409, result.code or "conflict",
                          result.reason or "the match was not created")
        self.store.changed()
        # Read your writes: the match's public view (the projector's) exists when the creation is answered, so a
        # client reading it next finds it (a few ms; the creation stands whether or not it came in time).
        deadline = asyncio.get_running_loop().time() + VIEW_WAIT_S
        while await self.store.view(match_id, "public") is None and asyncio.get_running_loop().time() < deadline:
            await asyncio.sleep(0.01)
        return await self.meta(match_id, fresh=True)

    async def join(self, match_id: str, seat: int, token: str, player: str | None = None) -> bool:
        """Have a worker give ``seat`` the token (``match.join``, #35; only its hash travels): True when it did,
        False when the seat was taken first (by another join); any other refusal raises its problem (403 reserved
        for another player, 409 not open, arena seat lapsed, a player seated twice; 503 when no worker decided in
        time)."""
        hashed = hash_credential(token)
        body = MatchJoinBody(seat=seat, credential_hash=hashed, player=player,
                             until_ms=join_deadline(LOBBY_WAIT_S))
        # one id per try (a token may be joined again: an arena seat's is derived, and its join answered as joined)
        envelope = CommandEnvelope(command_id=f"join-{hashed[:16]}-{uuid.uuid4().hex[:8]}", match_id=match_id,
                                   seat=seat, type=JOIN_COMMAND, body=body.model_dump(mode="json"))
        result = await self.decided(envelope, LOBBY_WAIT_S + 1)
        if result is None:
            raise Refused(503, "unavailable", f"the seat was not taken: {NO_WORKER}", headers={"Retry-After": "1"})
        self.forget(match_id)  # the cached meta says the seat is free (and the match open)
        if result.status == "accepted":
            self.store.changed()
            return True
        if result.code == "taken":
            return False
        code = result.code or "conflict"
        raise Refused(JOIN_STATUS.get(code, 409), code, result.reason or "the seat was not taken")

    async def _end_abandoned(self, seat: Seat, votes: list[int], rule: str, version: int) -> bool:
        """Publish the system command that ends the match (decided by a worker like any command: its
        ``MatchAbandoned`` event goes to the log, the views and the archive) and wait for its result. One command
        id per version, expected at that version: gateways agreeing at once publish it once, and a move made
        since the votes makes it stale (the votes are void then). False while no worker has decided it."""
        command_id = f"abandon-v{version}"  # never a seat's: those are "<seat>.<key>"
        envelope = CommandEnvelope(command_id=command_id, match_id=seat.match_id, seat=seat.seat,
                                   type=ABANDON_COMMAND, body={"votes": votes, "rule": rule}, expected_version=version)
        result = await self.decided(envelope, ABANDON_WAIT_S)
        if result is None or result.status != "accepted":
            return False
        await self.store.mark_abandoned(seat.match_id)
        self.forget(seat.match_id)
        return True

    async def result(self, seat: Seat, key: str, wait_s: float = 0.0) -> CommandResult | None:
        command_id = scoped_id(seat.seat, key)
        found = await self.store.result(seat.match_id, command_id)
        if found is not None or wait_s <= 0:
            return for_client(found, seat.seat) if found is not None else None
        hub = await self.hubs.get(seat.match_id)
        future = hub.expect(command_id)
        try:
            return await self._await(seat, command_id, future, wait_s)
        finally:
            hub.forget(command_id, future)

    async def _await(self, seat: Seat, command_id: str, future: asyncio.Future[CommandResult | None],
                     wait_s: float) -> CommandResult | None:
        """The result within ``wait_s``, else (or when the gateway shuts down first) the recorded one, if any.
        The future is this caller's own (:meth:`MatchHub.expect`): the deadline answers it with None, cheaper than
        ``wait_for`` (a timeout scope and a shield per command)."""
        deadline = asyncio.get_running_loop().call_later(min(wait_s, MAX_WAIT_S), _no_result, future)
        try:
            result = await future
        finally:
            deadline.cancel()
        if result is None:
            result = await self.store.result(seat.match_id, command_id)  # e.g. the results stream was trimmed
        return for_client(result, seat.seat) if result is not None else None

    # -- views -----------------------------------------------------------------------------------
    async def served(self, match_id: str, record: ViewRecord | None) -> ViewRecord | None:
        """``record`` as clients get it, over HTTP, long polls and the WebSocket alike: its :func:`preview`
        while the match waits for players. The match begins when its last seat is taken, which writes no event
        but announces every view of the match (claim_seat.lua): waiters look again and get the record itself."""
        if record is None or record.version == 0 or record.finished:
            return record
        return preview(record) if await self.waiting_for_players(match_id) else record

    async def waiting_for_players(self, match_id: str) -> bool:
        """Whether the match is open. A cached 'open' is read again (the last seat may have been taken a moment
        ago, by any gateway); 'running' and 'finished' never turn back."""
        if (await self.meta(match_id)).status != "open":
            return False
        return (await self.meta(match_id, fresh=True)).status == "open"

    async def view(self, match_id: str, key: str, after_version: int | None, wait_s: float) -> ViewRecord | None:
        """The view record of ``key`` as served (:meth:`served`); with ``after_version``, one newer than it,
        waiting up to ``wait_s`` (None: none came; the wait ends early when the gateway shuts down)."""
        await self.meta(match_id)
        if after_version is None or wait_s <= 0:
            record = await self.served(match_id, await self.store.view(match_id, key))
            return record if after_version is None or (record and record.version > after_version) else None
        hub = await self.hubs.get(match_id)
        async with hub.listen() as listener:
            record = await self.served(match_id, await hub.record(key))
            deadline = asyncio.get_running_loop().time() + min(wait_s, MAX_WAIT_S)
            while record is None or record.version <= after_version:
                left = deadline - asyncio.get_running_loop().time()
                if left <= 0:
                    return None
                try:
                    notice = await asyncio.wait_for(listener.queue.get(), left)
                except TimeoutError:
                    return None
                if isinstance(notice, Closing):  # shutting down: answer with what there is now
                    record = await self.served(match_id, await self.store.view(match_id, key))
                    return record if record is not None and record.version > after_version else None
                if isinstance(notice, Update) and notice.key in (key, ANY_KEY):
                    record = await self.served(match_id, await hub.record(key))
            return record

    # -- logs ------------------------------------------------------------------------------------
    async def log(self, match_id: str, token: str | None, after_version: int) -> LogAnswer:
        meta, archived = await self._lookup(match_id)
        if archived is not None:  # seat tokens cannot be checked once the meta is gone: no seat perspective
            shown = "full" if meta.reveal_log else "public"
            if (cached := self.finished_logs.get((match_id, shown, after_version))) is not None:
                return cached
            events = [e for e in archived.events if e.version > after_version]
            return self.finished_logs.put((match_id, shown, after_version), LogAnswer(
                match_id=match_id, game=meta.game, perspective=shown,
                events=events if meta.reveal_log else [e.for_seat(None) for e in events]))
        seat: int | None = None
        if token:
            seat = (await self.authenticate(match_id, token)).seat
        finished = meta.status == "finished"
        if not finished and seat is None:
            raise Refused(401, "unauthorized", "a running match's log is only given to its seats, as each sees it")
        perspective = "full" if finished and meta.reveal_log else "public" if seat is None else f"seat:{seat}"
        key = (match_id, perspective, after_version)
        if finished and (cached := self.finished_logs.get(key)) is not None:
            return cached  # a finished log never changes: read and filtered once
        events = await self.store.read_log(match_id, meta.game, after_version)
        if perspective != "full":
            events = [e.for_seat(seat) for e in events]
        answer = LogAnswer(match_id=match_id, game=meta.game, perspective=perspective, events=events)
        return self.finished_logs.put(key, answer) if finished else answer

    async def events_for(self, match_id: str, game: str, seat: int | None, after: int) -> list[EventEnvelope]:
        return [e.for_seat(seat) for e in await self.store.read_log(match_id, game, after)]

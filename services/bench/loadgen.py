"""The load-generator processes of ``airship bench pipeline`` (separate from the service's processes and from
the bench coordinator, :mod:`services.bench.pipeline`, which starts them with :mod:`multiprocessing` and
talks to them over a pipe).

- :func:`prefill`: creates and joins its share of the matches through the lobby
  (:class:`~services.pipeline.direct.DirectClient`), prepares every command (``tally`` adds, or the commands of
  random matches of a real game played out in memory beforehand, see :func:`preplay`), says ``ready``,
  and on ``go`` publishes them all with pipelined XADDs, each match's commands in order, the matches
  interleaved; then reports and exits.
- :func:`open_loop`: creates and joins its tally matches, warms every one up (one command each, through
  :meth:`DirectClient.call`), says ``ready``, then runs one phase per ``go`` message: commands at a fixed rate,
  each sent at its scheduled time whatever happened to the earlier ones, while the matches' results
  streams are read on a second connection (:func:`_phase`); the latency of a command is from its
  *scheduled* send time to the moment its result was read (no coordinated omission: a late send counts
  against the service's figure, and the report says how late the sender was); each match's results are read
  on a connection of its own, as its client would. Latencies go into a
  :class:`Histogram`.

Publishing is what :meth:`RedisBus.publish <services.pipeline.redis_streams.RedisBus.publish>` does (the
packed :class:`~schemas.envelopes.CommandEnvelope` in field ``e`` of the match's partition command stream),
pipelined; reading results is what :meth:`RedisStore.read_results
<services.pipeline.redis_backend.RedisStore.read_results>` does (the open loop: one blocking XREAD per match). The
open loop speaks to Redis through :class:`Resp`, which costs a few µs of CPU per
command where redis-py costs ~70 µs here (the generators share the machine with the service).
"""

from __future__ import annotations

import random
import select
import socket
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from typing import Any
from urllib.parse import urlparse

import hiredis

from schemas.codec import RESULT_FIELD, pack, result_entry
from schemas.envelopes import CommandEnvelope
from services.bench import register_tally
from services.bench.histogram import Histogram
from services.games import get_game
from services.games.base import Game
from services.games.rng import derive_rng
from services.pipeline.auth import seat_authorized
from services.pipeline.direct import DirectClient
from services.pipeline.redis_backend import RedisBackend
from services.pipeline.redis_streams import FIELD
from services.settings import Settings

PUBLISH_CHUNK = 1000  # XADDs per pipelined round trip when prefilling
XADD_REPLIES_READ = 256  # the open loop reads the XADD replies once this many are waiting
TALLY_COMMAND = ("add", {"n": 1})  # every tally add is legal: each is accepted


@dataclass(frozen=True, slots=True)
class Played:
    """A match played out in memory: its seed, seats and every command in order (seat, type, body)."""

    seed: int
    seats: int
    commands: list[tuple[int, str, dict[str, Any]]]
    setup_events: int
    version: int  # the version the match reaches once every command is applied


def preplay(game: Game[Any], seats: int, seed: int, pick: random.Random) -> Played:
    """A random match as the worker will decide it: the same setup and the same rng per version (derived
    from the match seed, as the lobby and the worker derive them), a random seat to act and a random legal
    command each step. Published in order, every command is accepted."""
    state = game.initial()
    events = game.setup({}, seats, derive_rng(seed, 0))
    for event in events:
        state = game.evolve(state, event)
    version = setup = len(events)
    commands = []
    while game.outcome(state) is None:
        seat = pick.choice(sorted(game.to_act(state)))
        command = pick.choice(game.legal_commands(state, seat))
        new = game.decide(state, command, derive_rng(seed, version))
        for event in new:
            state = game.evolve(state, event)
        version += len(new)
        commands.append((command.seat, command.type, dict(command.body)))
    return Played(seed, seats, commands, setup, version)


def _joined(client: DirectClient, game: str, seats: int, seed: int | None = None) -> tuple[str, dict[int, str]]:
    """A new match with every seat joined (it is running then); each credential checked as the trusted
    client checks it before publishing (the envelopes carry none)."""
    meta = client.create_match(game, seats, seed=seed)
    credentials = dict(client.join(meta.match_id, seat) for seat in range(seats))
    full = client.backend.store.meta(meta.match_id)
    if full is None or not all(seat_authorized(full, s, c) for s, c in credentials.items()):
        raise RuntimeError(f"seat credentials of {meta.match_id} refused")
    return meta.match_id, credentials


def _envelope(command_id: str, match_id: str, seat: int, type_: str, body: dict[str, Any]) -> bytes:
    return pack(CommandEnvelope(command_id=command_id, match_id=match_id, seat=seat, type=type_, body=body))


def _interleave(per_match: Sequence[Sequence[bytes]]) -> list[int]:
    """Round robin over the matches: the order in which their commands are published (each match's own
    commands stay in order)."""
    order, depth = [], max((len(c) for c in per_match), default=0)
    for step in range(depth):
        order += [m for m, commands in enumerate(per_match) if step < len(commands)]
    return order


def _reporting(body: Callable[[Connection, Settings, dict[str, Any]], None], conn: Connection, settings: Settings,
               job: dict[str, Any]) -> None:
    """Run a process body; an error goes to the coordinator, which reports it; the pipe is closed after."""
    try:
        body(conn, settings, job)
    except Exception as e:
        conn.send({"error": f"{type(e).__name__}: {e}"})
    finally:
        conn.close()


# -- prefill ---------------------------------------------------------------------------------------
def prefill(conn: Connection, settings: Settings, job: dict[str, Any]) -> None:
    """Process body (see the module doc). ``job``: game, matches, commands (tally: adds to spread over the
    matches; a real game: whole matches until there are at least this many commands and matches), tag,
    seats and seed (a real game)."""
    _reporting(_prefill, conn, settings, job)


def _prefill(conn: Connection, settings: Settings, job: dict[str, Any]) -> None:
    register_tally()
    backend = RedisBackend(settings)
    client = DirectClient(backend)
    keys = settings.keys
    tag, game_name = job["tag"], job["game"]
    per_match: list[list[bytes]] = []
    match_ids: list[str] = []
    expected: list[int] = []
    events = 0
    if game_name == "tally":
        for m in range(job["matches"]):
            match_ids.append(_joined(client, "tally", 1)[0])
            n = job["commands"] // job["matches"] + (1 if m < job["commands"] % job["matches"] else 0)
            per_match.append([_envelope(f"{tag}-{m}-{i}", match_ids[-1], 0, *TALLY_COMMAND) for i in range(n)])
            expected.append(1 + n)  # MatchStarted, then one event per add
            events += n
    else:
        game = get_game(game_name)
        seats = int(job["seats"])
        pick = random.Random(job["seed"])
        total = 0
        while total < job["commands"] or len(match_ids) < job["matches"]:
            played = preplay(game, seats, pick.randrange(1 << 62), pick)
            match_id = _joined(client, game_name, seats, played.seed)[0]
            m = len(match_ids)
            match_ids.append(match_id)
            per_match.append([_envelope(f"{tag}-{m}-{i}", match_id, seat, type_, body)
                              for i, (seat, type_, body) in enumerate(played.commands)])
            expected.append(played.version)
            total += len(played.commands)
            events += played.version - played.setup_events
    streams = [keys.commands(keys.partition(mid)) for mid in match_ids]
    conn.send({"ready": True, "matches": match_ids, "versions": expected,
               "commands": sum(len(c) for c in per_match), "events": events})
    if conn.recv() != "go":
        return
    order = _interleave(per_match)
    cursor = [0] * len(per_match)
    started = time.perf_counter()
    r = backend.redis
    for lo in range(0, len(order), PUBLISH_CHUNK):
        pipe = r.pipeline(transaction=False)
        for m in order[lo:lo + PUBLISH_CHUNK]:
            pipe.xadd(streams[m], {FIELD: per_match[m][cursor[m]]})
            cursor[m] += 1
        pipe.execute()
    conn.send({"published": len(order), "seconds": time.perf_counter() - started})
    backend.close()


# -- open loop -------------------------------------------------------------------------------------
@dataclass
class Phase:
    """What one open-loop phase of this process measured."""

    histogram: Histogram = field(default_factory=Histogram)
    statuses: Counter[str] = field(default_factory=Counter)
    sent: int = 0
    send_lag_s: float = 0.0  # the latest a command was sent after its scheduled time
    last_arrival: float = 0.0
    errors: list[str] = field(default_factory=list)


def open_loop(conn: Connection, settings: Settings, job: dict[str, Any]) -> None:
    """Process body (see the module doc). ``job``: matches, tag."""
    _reporting(_open_loop, conn, settings, job)


def _open_loop(conn: Connection, settings: Settings, job: dict[str, Any]) -> None:
    register_tally()
    backend = RedisBackend(settings)
    client = DirectClient(backend, poll_ms=50)
    keys = settings.keys
    joined = [_joined(client, "tally", 1) for _ in range(job["matches"])]
    match_ids = [match_id for match_id, _ in joined]
    for m, (match_id, credentials) in enumerate(joined):  # warm-up: every match in the workers' caches
        result = client.call(match_id, 0, credentials[0], *TALLY_COMMAND, timeout_s=60,
                             command_id=f"{job['tag']}-w{m}")
        if result.status != "accepted":
            raise RuntimeError(f"warm-up command rejected: {result.reason}")
    positions = {keys.results(mid): backend.store.results_end(mid).encode() for mid in match_ids}
    streams = [keys.commands(keys.partition(mid)) for mid in match_ids]
    conn.send({"ready": True, "matches": match_ids})
    while True:
        message = conn.recv()
        if message == "exit":
            break
        cpu = time.process_time()
        phase = _phase(settings.redis_url, match_ids, streams, positions, message)
        conn.send({"histogram": phase.histogram.as_dict(), "statuses": dict(phase.statuses), "sent": phase.sent,
                   "send_lag_s": phase.send_lag_s, "last_arrival": phase.last_arrival, "errors": phase.errors,
                   "cpu_s": time.process_time() - cpu})
    backend.close()


class Resp:
    """A minimal Redis connection for the open-loop hot path: commands encoded by hand (the sender's are
    encoded before the phase starts), replies parsed by hiredis. redis-py spends ~70 µs of CPU per call on
    this machine, about what a worker spends per command, and the load generators share the cores with the
    service; this costs a few µs. ``redis://`` URLs only (host, port, user, password, db)."""

    def __init__(self, url: str) -> None:
        u = urlparse(url)
        if u.scheme != "redis":
            raise ValueError(f"the open-loop load generator speaks redis:// only, not {u.scheme}://")
        self.sock = socket.create_connection((u.hostname or "127.0.0.1", u.port or 6379), timeout=120)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.reader = hiredis.Reader()
        if u.password:
            self.call("AUTH", *([u.username] if u.username else []), u.password)
        self.call("SELECT", (u.path or "/0").lstrip("/") or "0")

    @staticmethod
    def encode(*args: bytes | str) -> bytes:
        parts = [b"*%d\r\n" % len(args)]
        for arg in args:
            data = arg.encode() if isinstance(arg, str) else arg
            parts.append(b"$%d\r\n%s\r\n" % (len(data), data))
        return b"".join(parts)

    def send(self, data: bytes) -> None:
        self.sock.sendall(data)

    def reply(self) -> Any:
        while True:
            reply = self.reader.gets()
            if reply is not False:
                if isinstance(reply, hiredis.ReplyError):
                    raise reply
                return reply
            chunk = self.sock.recv(1 << 16)
            if not chunk:
                raise ConnectionError("Redis closed the connection")
            self.reader.feed(chunk)

    def call(self, *args: bytes | str) -> Any:
        self.send(self.encode(*args))
        return self.reply()

    def replies(self) -> list[Any]:
        """Read what has arrived (call when the socket is readable): the replies it completes."""
        chunk = self.sock.recv(1 << 16)
        if not chunk:
            raise ConnectionError("Redis closed the connection")
        self.reader.feed(chunk)
        out = []
        while (reply := self.reader.gets()) is not False:
            if isinstance(reply, hiredis.ReplyError):
                raise reply
            out.append(reply)
        return out

    def close(self) -> None:
        self.sock.close()


def _phase(url: str, match_ids: list[str], streams: list[str], positions: dict[str, bytes],
           order: dict[str, Any]) -> Phase:
    """Offer ``order["rate"]`` commands/s for ``order["seconds"]`` from monotonic time ``order["start"]``.

    One thread and ``select`` over one sending connection and one reading connection per match (each match's
    client waits on its own results stream, as a bot does: a blocking XREAD of one key costs Redis a tenth of
    one over all of this process's matches, which it would answer and be sent again for every result):
    sending is never held up by reading or the other way round (two threads would pass the GIL back and forth
    for every command), and the moment a result arrives is taken as soon as its connection is readable. Each
    command is sent once its scheduled time has come (with every other one due by then, in one write),
    whatever the results of the earlier ones."""
    rate, start, phase_offset = float(order["rate"]), float(order["start"]), float(order["offset"])
    total = max(1, round(rate * float(order["seconds"])))
    prefix = f"{order['tag']}-"
    data = [Resp.encode(b"XADD", streams[i % len(streams)], b"*", FIELD,
                        _envelope(f"{prefix}{i}", match_ids[i % len(match_ids)], 0, *TALLY_COMMAND))
            for i in range(total)]

    def due(i: int) -> float:
        return start + (i + phase_offset) / rate

    out = Phase()
    deadline = due(total) + float(order.get("timeout_s", 30.0))
    sending = Resp(url)
    readers: dict[socket.socket, tuple[Resp, str]] = {}
    received = unanswered = i = 0
    try:
        for key in positions:
            reader = Resp(url)
            readers[reader.sock] = (reader, key)

        def read_results(reader: Resp, key: str) -> None:
            reader.send(Resp.encode(b"XREAD", b"BLOCK", b"100", b"STREAMS", key, positions[key]))

        for reader, key in readers.values():
            read_results(reader, key)
        watch_results = list(readers)
        while received < total:
            now = time.monotonic()
            if now > deadline:
                break
            if i < total and due(i) <= now:
                end = i + 1
                while end < total and due(end) <= now:
                    end += 1
                out.send_lag_s = max(out.send_lag_s, now - due(i))
                sending.send(b"".join(data[i:end]))
                unanswered += end - i
                i = out.sent = end
                continue
            wait = due(i) - now if i < total else deadline - now
            # the XADD replies (the new entries' ids) are read in bulk, now and then: a read per command would
            # cost the load generator two more system calls per command
            watch = [*watch_results, sending.sock] if unanswered >= XADD_REPLIES_READ else watch_results
            readable, _, _ = select.select(watch, [], [], max(0.0, wait))
            arrival = time.monotonic()
            for sock in readable:
                if sock is sending.sock:
                    unanswered -= len(sending.replies())
                    continue
                reader, key = readers[sock]
                for reply in reader.replies():  # one at a time: each XREAD is sent once the last one answered
                    for _, entries in reply or []:
                        for entry_id, flat in entries:
                            positions[key] = entry_id
                            fields = dict(zip(flat[::2], flat[1::2], strict=True)) if flat else {}
                            if RESULT_FIELD not in fields:
                                continue
                            result = result_entry(fields, _match_of(key))
                            if not result.command_id.startswith(prefix):
                                continue
                            out.histogram.record((arrival - due(int(result.command_id[len(prefix):]))) * 1e6)
                            out.statuses[result.status] += 1
                            received += 1
                            out.last_arrival = arrival
                    read_results(reader, key)  # from the position this reply moved on
    finally:
        sending.close()
        for reader, _ in readers.values():
            reader.close()
    if received < total:
        out.errors.append(f"{total - received} of {total} results missing after the phase's timeout")
    return out


def _match_of(results_key: str) -> str:
    """The match id in a results stream's key (``<prefix>:{p}:match:<id>:results``)."""
    return results_key.rsplit(":", 2)[-2]

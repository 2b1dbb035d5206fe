"""A load-generator process of ``airship bench gateway``: many asyncio clients, each driving its own
match (seat 0 of a one-seat ``tally`` match), one command at a time, and timing each from just before it
is sent to its result.

``python -m services.bench.gateway.load``, talking JSON lines: it reads the job from its first stdin line,
connects and warms every client up, prints ``{"ready": ...}``, waits for a ``go`` line, then prints
``{"done": n}`` now and then and finally ``{"report": {...}}`` with every latency. Modes:

- ``direct``: as :meth:`services.pipeline.direct.DirectClient.call` does it, minus the gateway: take the match's
  results-stream end (XREVRANGE), XADD the packed :class:`~schemas.envelopes.CommandEnvelope` to the
  partition's command stream, then XREAD BLOCK the results stream until the command's result (looking in
  the seen hash if a whole wait brings nothing).
- ``gateway``: one WebSocket per client, subscribed with the seat token; ``command`` messages with unique
  idempotency keys, each awaiting the ``result`` with its ``cid`` (the ``view`` messages in between are read
  and dropped).
"""

from __future__ import annotations

import asyncio
import json
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

# tally: any seat may add 1-9 at any time, so every command is accepted
COMMAND: dict[str, Any] = {"type": "add", "body": {"n": 1}}
TIMEOUT_S = 30.0
PROGRESS_EVERY_S = 0.5


@dataclass(frozen=True, slots=True)
class Seat:
    match_id: str
    seat: int
    token: str


@dataclass(frozen=True, slots=True)
class Job:
    mode: str  # "direct" or "gateway"
    tag: str  # makes command ids unique across runs and processes
    seats: list[Seat]
    commands: list[int]  # how many commands each client sends (after the warm-up)
    warmup: int
    redis_url: str = ""
    prefix: str = ""
    partitions: int = 16
    ws_url: str = ""

    @classmethod
    def from_json(cls, obj: dict[str, Any]) -> Job:
        return cls(mode=obj["mode"], tag=obj["tag"], seats=[Seat(**s) for s in obj["seats"]],
                   commands=[int(n) for n in obj["commands"]], warmup=int(obj["warmup"]),
                   redis_url=obj.get("redis_url", ""), prefix=obj.get("prefix", ""),
                   partitions=int(obj.get("partitions", 16)), ws_url=obj.get("ws_url", ""))


@dataclass
class Tally:
    """What this process measured."""

    latencies_ms: list[float] = field(default_factory=list)
    statuses: Counter[str] = field(default_factory=Counter)
    errors: list[str] = field(default_factory=list)
    done: int = 0

    def record(self, status: str, started: float) -> None:
        self.latencies_ms.append((time.perf_counter() - started) * 1000)
        self.statuses[status] += 1
        self.done += 1

    def fail(self, message: str) -> None:
        self.statuses["error"] += 1
        if len(self.errors) < 10:
            self.errors.append(message[:300])


class Gate:
    """Clients wait here after the warm-up until the parent says go (all processes start together)."""

    def __init__(self) -> None:
        self.go = asyncio.Event()
        self.ready: set[int] = set()  # clients warmed up (or failed: they hold nobody back)
        self.finished = 0.0  # when the last client sent its last command's result home


# -- direct ----------------------------------------------------------------------------------------
async def run_direct(job: Job, gate: Gate, tally: Tally) -> None:
    import redis.asyncio as aioredis

    from services.keys import Keys

    r = aioredis.Redis.from_url(job.redis_url, decode_responses=False, max_connections=len(job.seats) * 2 + 4)
    keys = Keys(job.prefix, job.partitions)
    try:
        await asyncio.gather(*(_guarded(index, gate, tally, _direct_client(r, keys, job, index, gate, tally))
                               for index in range(len(job.seats))))
    finally:
        await r.aclose()


async def _direct_client(r: Any, keys: Any, job: Job, index: int, gate: Gate, tally: Tally) -> None:
    from schemas.codec import pack, result_entry, unpack_result
    from schemas.envelopes import CommandEnvelope

    seat = job.seats[index]
    results = keys.results(seat.match_id)
    stream = keys.commands(keys.partition(seat.match_id))
    seen = keys.seen(seat.match_id)

    async def call(command_id: str) -> str:
        newest = await r.xrevrange(results, count=1)
        position = newest[0][0] if newest else b"0-0"
        envelope = CommandEnvelope(command_id=command_id, match_id=seat.match_id, seat=seat.seat,
                                   type=COMMAND["type"], body=dict(COMMAND["body"]))
        await r.xadd(stream, {b"e": pack(envelope)})
        deadline = time.monotonic() + TIMEOUT_S
        while time.monotonic() < deadline:
            reply = await r.xread({results: position}, block=1000)
            if not reply:  # a whole wait brought nothing (or it was trimmed away): ask the record
                data = await r.hget(seen, command_id)
                if data is not None:
                    return unpack_result(data, seat.match_id, command_id).status
                continue
            for _, entries in reply:
                for entry_id, fields in entries:
                    position = entry_id
                    result = result_entry(fields, seat.match_id) if fields else None
                    if result is not None and result.command_id == command_id:
                        return result.status
        raise TimeoutError(f"no result for {command_id} within {TIMEOUT_S:g}s")

    await _drive(job, index, gate, tally, call)


# -- gateway ---------------------------------------------------------------------------------------
async def run_gateway(job: Job, gate: Gate, tally: Tally) -> None:
    await asyncio.gather(*(_guarded(index, gate, tally, _gateway_client(job, index, gate, tally))
                           for index in range(len(job.seats))))


async def _gateway_client(job: Job, index: int, gate: Gate, tally: Tally) -> None:
    from websockets.asyncio.client import connect

    seat = job.seats[index]
    async with connect(job.ws_url, open_timeout=TIMEOUT_S, max_size=1 << 22) as ws:
        await ws.send(json.dumps({"kind": "subscribe", "cid": "sub", "match_id": seat.match_id,
                                  "token": seat.token}))
        while True:
            message = json.loads(await asyncio.wait_for(ws.recv(), TIMEOUT_S))
            if message.get("kind") == "subscribed":
                break
            if message.get("kind") == "error":
                raise RuntimeError(f"subscribe refused: {message.get('code')}: {message.get('message')}")

        async def call(key: str) -> str:
            await ws.send(json.dumps({"kind": "command", "cid": key, "match_id": seat.match_id,
                                      "idempotency_key": key, **COMMAND}, separators=(",", ":")))
            while True:
                message = json.loads(await asyncio.wait_for(ws.recv(), TIMEOUT_S))
                if message.get("cid") != key:
                    continue  # a view (or the result of an earlier command sent another way)
                if message.get("kind") == "result":
                    result = message.get("result")
                    return str(result["status"]) if result else "pending"
                raise RuntimeError(f"{message.get('kind')}: {message.get('code')}: {message.get('message')}")

        await _drive(job, index, gate, tally, call)


# -- both ------------------------------------------------------------------------------------------
async def _guarded(index: int, gate: Gate, tally: Tally, client: Any) -> None:
    """A client that fails is reported; its commands not sent count as missing, and nobody waits for it."""
    try:
        await client
    except Exception as e:
        tally.fail(f"client {index}: {e!r}")
    finally:
        gate.ready.add(index)


async def _drive(job: Job, index: int, gate: Gate, tally: Tally, call: Any) -> None:
    seat = job.seats[index]
    for i in range(job.warmup):  # connections opened, hubs and caches warm: not measured
        await call(f"{job.tag}-w{index}-{i}" if job.mode == "gateway" else f"{seat.seat}.{job.tag}-w{index}-{i}")
    gate.ready.add(index)
    await gate.go.wait()
    for i in range(job.commands[index]):
        key = f"{job.tag}-{index}-{i}"
        t0 = time.perf_counter()
        try:
            status = await call(key if job.mode == "gateway" else f"{seat.seat}.{key}")
        except Exception as e:
            tally.fail(f"client {index} command {i}: {e!r}")
            continue
        tally.record(status, t0)
    gate.finished = max(gate.finished, time.monotonic())


def _say(obj: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(obj, separators=(",", ":")) + "\n")
    sys.stdout.flush()


async def _line() -> str:
    return await asyncio.get_running_loop().run_in_executor(None, sys.stdin.readline)


async def main_async() -> int:
    job = Job.from_json(json.loads(await _line()))
    gate, tally = Gate(), Tally()
    runner = run_direct if job.mode == "direct" else run_gateway
    work = asyncio.create_task(runner(job, gate, tally))
    while len(gate.ready) < len(job.seats) and not work.done():
        await asyncio.sleep(0.01)
    _say({"ready": len(gate.ready), "errors": tally.errors})
    if (await _line()).strip() != "go":
        work.cancel()
        return 1
    started, cpu = time.monotonic(), time.process_time()
    gate.go.set()
    while not work.done():
        await asyncio.wait({work}, timeout=PROGRESS_EVERY_S)
        _say({"done": tally.done})
    try:
        work.result()
    except Exception as e:
        tally.fail(f"{e!r}")
    _say({"report": {"latencies_ms": [round(x, 4) for x in tally.latencies_ms],
                     "statuses": dict(tally.statuses), "errors": tally.errors,
                     "started": started, "finished": max(gate.finished, started),
                     "cpu_s": time.process_time() - cpu}})
    return 0


def main() -> int:
    try:
        import uvloop
    except ImportError:  # pragma: no cover - uvloop comes with uvicorn[standard]
        return asyncio.run(main_async())
    return uvloop.run(main_async())


if __name__ == "__main__":
    sys.exit(main())

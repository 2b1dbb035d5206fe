"""Group commit for the gateway's Redis calls: the single commands asked for in one turn of the event loop
(publishing commands, reading view records, results and metadata, for every socket and request at once) go to
Redis in one pipeline, one write and one read for all of them, instead of one round trip each.

A socket write is the largest part of what a request costs the gateway (profiled with py-spy under
``airship bench gateway``: a quarter of its CPU was ``writelines`` to Redis, one per command and one per view
read). Batching adds no wait of its own: the pipeline leaves at the end of the turn in which the first call of it
was made, and turns follow each other at once while there is work. Each call gets its own reply or its own
error; a failed pipeline (Redis unreachable) fails every call in it, as it would have failed each alone.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

import redis.exceptions
from redis.commands.core import AsyncScript

from services import metrics

MAX_BATCH = 512  # calls per pipeline; more wait for the next one (in the same turn)

Call = tuple[tuple[Any, ...], "asyncio.Future[Any]", "AsyncScript | None"]


class Batcher:
    def __init__(self, r: Any) -> None:
        self.r = r
        self._queue: list[Call] = []
        self._scheduled = False
        self._sending: set[asyncio.Task[None]] = set()

    def call(self, *args: Any) -> asyncio.Future[Any]:
        """Queue one command (as ``execute_command`` takes it); its reply, parsed as redis-py parses it."""
        return self._queue_call(args, None)

    def script(self, script: AsyncScript, keys: Sequence[Any], args: Sequence[Any]) -> asyncio.Future[Any]:
        """Queue a script call, as EVALSHA; a server that does not know the script yet gets it loaded and the
        call made again on its own (NOSCRIPT: it did not run)."""
        return self._queue_call(("EVALSHA", script.sha, len(keys), *keys, *args), script)

    def _queue_call(self, args: tuple[Any, ...], script: AsyncScript | None) -> asyncio.Future[Any]:
        loop = asyncio.get_running_loop()
        future: asyncio.Future[Any] = loop.create_future()
        self._queue.append((args, future, script))
        if not self._scheduled:
            self._scheduled = True
            loop.call_soon(self._flush)
        return future

    def _flush(self) -> None:
        self._scheduled = False
        queue, self._queue = self._queue, []
        for i in range(0, len(queue), MAX_BATCH):
            task = asyncio.create_task(self._send(queue[i:i + MAX_BATCH]))
            self._sending.add(task)
            task.add_done_callback(self._sending.discard)

    async def _send(self, calls: list[Call]) -> None:
        metrics.GATEWAY_BATCH_CALLS.observe(len(calls))
        pipe = self.r.pipeline(transaction=False)
        for args, _, _ in calls:
            pipe.execute_command(*args)
        try:
            replies = await pipe.execute(raise_on_error=False)
        except Exception as e:  # the whole pipeline failed: so does each call, as it would have alone
            for _, future, _ in calls:
                if not future.done():
                    future.set_exception(e)
            return
        except BaseException as e:  # cancelled (the gateway is closing): nobody waits for an answer
            for _, future, _ in calls:
                if not future.done():
                    future.cancel()
            raise e
        for (args, future, script), reply in zip(calls, replies, strict=True):
            if future.done():  # its caller gave up (cancelled)
                continue
            if isinstance(reply, redis.exceptions.NoScriptError) and script is not None:
                self._spawn_again(args, future, script)
            elif isinstance(reply, Exception):
                future.set_exception(reply)
            else:
                future.set_result(reply)

    def _spawn_again(self, args: tuple[Any, ...], future: asyncio.Future[Any], script: AsyncScript) -> None:
        async def again() -> None:
            numkeys = int(args[2])
            keys, rest = list(args[3:3 + numkeys]), list(args[3 + numkeys:])
            try:
                reply = await script(keys=keys, args=rest)
            except Exception as e:
                if not future.done():
                    future.set_exception(e)
                return
            if not future.done():
                future.set_result(reply)

        task = asyncio.create_task(again())
        self._sending.add(task)
        task.add_done_callback(self._sending.discard)

    async def close(self) -> None:
        """Wait for the pipelines already sent (their callers get their answers)."""
        if self._sending:
            await asyncio.wait(list(self._sending), timeout=1.0)

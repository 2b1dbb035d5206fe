"""Helpers shared by the gateway attack, hidden-information and fuzz tests: a thin HTTP client for the
lobby, a WebSocket wrapper with timeouts, and snapshots of what Redis holds for a match (to prove a refused
request stored nothing)."""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import httpx
import redis
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import ClientConnection
from websockets.sync.client import connect as ws_connect

from services.keys import Keys
from tests.pipeline.redis_fixtures import wait_until

TIMEOUT_S = 30.0
PROBLEM = "application/problem+json"


def auth(token: str | None) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"} if token else {}


class PoliteTransport(httpx.HTTPTransport):
    """Waits out a 429 ``rate_limited`` (its ``Retry-After``) and sends the request again, as a well-behaved client
    does: for tests that make many requests from one address and are not about the limits."""

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        while True:
            response = super().handle_request(request)
            if response.status_code != 429:
                return response
            response.read()
            time.sleep(float(response.headers.get("Retry-After", "1")))


def from_address(url: str, address: str) -> httpx.Client:
    """A client whose connections come from ``address`` (a loopback address of its own: its own limits)."""
    return httpx.Client(base_url=url, timeout=30.0, trust_env=False,
                        transport=httpx.HTTPTransport(local_address=address))


def client(url: str, polite: bool = False, **kw: Any) -> httpx.Client:
    """An HTTP client of the gateway at ``url`` (``polite``: 429s waited out and sent again)."""
    if polite:
        kw.setdefault("transport", PoliteTransport())
    return httpx.Client(base_url=url, timeout=TIMEOUT_S, trust_env=False, **kw)


@dataclass
class Match:
    id: str
    game: str
    tokens: list[str] = field(default_factory=list)


def create_match(c: httpx.Client, game: str, seats: int, join: bool = True, **body: Any) -> Match:
    """A match (every seat joined when ``join``); waits until the projector has written every seat's view."""
    answer = c.post("/matches", json={"game": game, "seats": seats, **body})
    assert answer.status_code == 201, answer.text
    match = Match(answer.json()["match_id"], game)
    if join:
        for seat in range(seats):
            joined = c.post(f"/matches/{match.id}/seats", json={"seat": seat})
            assert joined.status_code == 201, joined.text
            match.tokens.append(joined.json()["token"])
        wait_until(lambda: all(c.get(f"/matches/{match.id}/views/me", headers=auth(t)).status_code == 200
                               for t in match.tokens))
        wait_until(lambda: c.get(f"/matches/{match.id}").json()["status"] == "running")
    return match




def assert_problem(answer: httpx.Response, *statuses: int) -> dict[str, Any]:
    """A documented refusal: one of ``statuses``, ``application/problem+json`` with a code and a detail."""
    assert answer.status_code in statuses, (answer.status_code, answer.text[:500])
    assert answer.headers.get("content-type", "").startswith(PROBLEM), (answer.headers, answer.text[:500])
    body = answer.json()
    assert isinstance(body, dict), body
    assert body.get("status") == answer.status_code, body
    assert isinstance(body.get("code"), str) and body["code"], body
    assert isinstance(body.get("detail"), str) and body["detail"], body
    return body


# -- what Redis holds ---------------------------------------------------------------------------------
def last_id(r: redis.Redis, stream: str) -> str:
    """The stream's last generated entry id: it changes exactly when something was added (trims do not
    change it, unlike XLEN)."""
    try:
        info = r.xinfo_stream(stream)
    except redis.ResponseError:  # no such key
        return "0-0"
    raw = info["last-generated-id"]
    return raw.decode() if isinstance(raw, bytes) else str(raw)


@dataclass(frozen=True)
class Stored:
    """Everything a command for a match could change."""

    log_len: int
    version: bytes | None
    seen: dict[bytes, bytes]
    sent: dict[bytes, bytes]
    results_last: str
    commands_last: str
    meta: dict[bytes, bytes]


def stored(r: redis.Redis, keys: Keys, match_id: str) -> Stored:
    return Stored(log_len=int(r.xlen(keys.log(match_id))), version=r.hget(keys.meta(match_id), "version"),
                  seen=dict(r.hgetall(keys.seen(match_id))), sent=dict(r.hgetall(keys.sent(match_id))),
                  results_last=last_id(r, keys.results(match_id)),
                  commands_last=last_id(r, keys.commands(keys.partition(match_id))), meta=dict(r.hgetall(
                      keys.meta(match_id))))


def all_commands_last(r: redis.Redis, keys: Keys) -> list[str]:
    return [last_id(r, keys.commands(p)) for p in range(keys.partitions)]


def dump_prefix(r: redis.Redis, prefix: str) -> Iterator[tuple[bytes, bytes]]:
    """Every key under ``prefix`` with everything it holds, as bytes (names, fields, members and values)."""
    for key in r.scan_iter(match=f"{prefix}:*", count=1000):
        kind = r.type(key)
        parts: list[bytes] = [key]
        if kind == b"string":
            parts.append(r.get(key) or b"")
        elif kind == b"hash":
            for f, v in r.hgetall(key).items():
                parts += [f, v]
        elif kind == b"stream":
            for entry_id, fields in r.xrange(key):
                parts.append(entry_id)
                for f, v in fields.items():
                    parts += [f, v]
        elif kind == b"zset":
            parts += [m for m, _ in r.zrange(key, 0, -1, withscores=True)]
        elif kind == b"set":
            parts += list(r.smembers(key))
        elif kind == b"list":
            parts += list(r.lrange(key, 0, -1))
        yield key, b"\x00".join(parts)


# -- WebSocket -----------------------------------------------------------------------------------------
class Socket:
    """A WebSocket client that keeps every message it received (``seen``)."""

    def __init__(self, ws_url: str, **kw: Any) -> None:
        self.ws: ClientConnection = ws_connect(ws_url, open_timeout=TIMEOUT_S, close_timeout=2, max_size=None,
                                               proxy=None, legacy=True, **kw)
        self.seen: list[dict[str, Any]] = []
        self.raw: list[str | bytes] = []
        self.closed: ConnectionClosed | None = None

    def send(self, message: dict[str, Any] | str | bytes) -> None:
        self.ws.send(json.dumps(message) if isinstance(message, dict) else message)

    def recv(self, timeout_s: float = TIMEOUT_S) -> dict[str, Any] | None:
        """The next message, or None when none came within ``timeout_s`` or the socket closed."""
        if self.closed is not None:
            return None
        try:
            raw = self.ws.recv(timeout=timeout_s)
        except TimeoutError:
            return None
        except ConnectionClosed as e:
            self.closed = e
            return None
        self.raw.append(raw)
        message = json.loads(raw) if isinstance(raw, str) else _unpack(raw)
        self.seen.append(message)
        return message

    def until(self, predicate: Callable[[dict[str, Any]], bool], timeout_s: float = TIMEOUT_S) -> dict[str, Any]:
        """Read until a message satisfies ``predicate``; fails after ``timeout_s``."""
        deadline = time.monotonic() + timeout_s
        while True:
            left = deadline - time.monotonic()
            message = self.recv(max(left, 0.01)) if left > 0 else None
            if message is not None and predicate(message):
                return message
            if message is None and (left <= 0 or self.closed is not None):
                raise AssertionError(f"no such message within {timeout_s}s (closed: {self.closed}); "
                                     f"last: {self.seen[-3:]}")

    def drain(self, quiet_s: float = 0.5) -> list[dict[str, Any]]:
        """Whatever arrives until the socket has been quiet for ``quiet_s``."""
        got = []
        while (message := self.recv(quiet_s)) is not None:
            got.append(message)
        return got

    def subscribe(self, match_id: str, token: str | None = None, **kw: Any) -> dict[str, Any]:
        self.send({"kind": "subscribe", "match_id": match_id, "token": token, "cid": "sub", **kw})
        return self.until(lambda m: m.get("cid") == "sub" and m["kind"] in ("subscribed", "error"))

    def close(self) -> None:
        self.ws.close()

    def __enter__(self) -> Socket:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _unpack(raw: bytes) -> dict[str, Any]:
    import msgpack

    obj = msgpack.unpackb(raw, raw=False)
    assert isinstance(obj, dict), obj
    return obj

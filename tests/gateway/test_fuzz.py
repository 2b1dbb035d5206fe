"""Bad input against a real gateway (worker, projector and gateway processes; the gateway with rate limits
high enough that fuzzing is not throttled): random and malformed HTTP bodies (JSON, bytes, msgpack, wrong
types, deep nesting, huge numbers, unicode), headers (Authorization, Content-Length, Accept), path and query
parameters, and WebSocket frames.

Every answer is a documented refusal — 400, 401, 404, 409, 413, 422 or 429 as a problem (code and detail;
msgpack when asked for) or a WebSocket ``error`` with a code — never a 5xx; the gateway stays alive; and
nothing is stored (every command stream, log, result record and the match list are as before).
"""

from __future__ import annotations

import contextlib
import json
import re
import socket
import string
import urllib.parse
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import httpx
import msgpack
import pytest
import redis
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from websockets.exceptions import ConnectionClosed

from schemas.gateway import CreateMatch, SendCommand
from services.games import GAMES
from services.gateway.wire import MSGPACK
from services.gateway.ws import REFUSALS_TO_CLOSE
from services.pipeline.redis_backend import connect, delete_prefix
from services.settings import Settings
from tests.gateway.attack_kit import (
    PROBLEM,
    Match,
    Socket,
    Stored,
    all_commands_last,
    auth,
    client,
    create_match,
    stored,
)
from tests.gateway.stack import GatewayStack, free_port, spawn_gateway, wait_ready
from tests.pipeline.redis_fixtures import spawn, stop

pytestmark = [pytest.mark.gateway, pytest.mark.redis]
REFUSALS = {400, 401, 403, 404, 409, 413, 422, 429}
FUZZ = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                          HealthCheck.data_too_large])


@pytest.fixture(scope="module")
def fuzz_stack(redis_url: str) -> Iterator[GatewayStack]:
    """Like ``gateway_stack``, with rate limits out of the way."""
    settings_ = Settings(redis_url=redis_url, key_prefix=f"airship-fz-{uuid.uuid4().hex[:8]}", partitions=4,
                         block_ms=50, claim_every_s=0.5)
    port = free_port()
    stack = GatewayStack(settings_, f"http://127.0.0.1:{port}")
    stack.procs = [spawn(settings_, "worker"), spawn(settings_, "projector"),
                   spawn_gateway(settings_, port, AIRSHIP_GATEWAY_TOKEN_RPS="100000",
                                 AIRSHIP_GATEWAY_ADDR_RPS="100000", AIRSHIP_GATEWAY_SOCKET_RPS="100000")]
    try:
        wait_ready(stack.url, stack.procs[-1])
        yield stack
    finally:
        for proc in stack.procs:
            stop(proc)
        delete_prefix(connect(redis_url), settings_.key_prefix)


@dataclass
class World:
    stack: GatewayStack
    http: httpx.Client
    r: redis.Redis
    running: Match  # a running nim match: commands go here
    full: Match  # every seat taken: joining is refused

    @property
    def port(self) -> int:
        return int(self.stack.url.rsplit(":", 1)[1])

    def frozen(self) -> tuple[list[str], Stored, Stored, int]:
        keys = self.stack.settings.keys
        listed = sum(int(self.r.zcard(keys.matches(p, s))) for p in range(keys.partitions)
                     for s in ("open", "running", "finished"))
        return (all_commands_last(self.r, keys), stored(self.r, keys, self.running.id),
                stored(self.r, keys, self.full.id), listed)

    def failures(self) -> list[str]:
        """The gateway's counts of 5xx answers, by route."""
        return [line for line in self.http.get("/metrics").text.splitlines()
                if line.startswith("airship_gateway_requests_total") and re.search(r'status="5\d\d"', line)]

    def assert_alive(self) -> None:
        assert self.stack.procs[-1].poll() is None, "the gateway died"
        assert self.http.get("/healthz").status_code == 200


@pytest.fixture(scope="module")
def world(fuzz_stack: GatewayStack) -> Iterator[World]:
    with client(fuzz_stack.url) as http:
        r = connect(fuzz_stack.settings.redis_url)
        running = create_match(http, "nim", 2)
        full = create_match(http, "nim", 3)
        yield World(fuzz_stack, http, r, running, full)
        r.close()


@pytest.fixture
def unchanged(world: World) -> Iterator[World]:
    """The test's world; afterwards nothing stored has changed and the gateway is alive and never failed."""
    before, failed = world.frozen(), world.failures()
    yield world
    world.assert_alive()
    assert world.failures() == failed, "the gateway answered with a 5xx"
    assert world.frozen() == before


def assert_refusal(answer: httpx.Response, allowed: set[int] = REFUSALS) -> dict[str, Any]:
    """A documented refusal: JSON problem, or msgpack with the same fields when the client accepts it."""
    assert answer.status_code in allowed, (answer.status_code, answer.text[:300])
    kind = answer.headers.get("content-type", "")
    if kind.startswith(MSGPACK):
        body = msgpack.unpackb(answer.content, raw=False)
    else:
        assert kind.startswith(PROBLEM), (kind, answer.text[:300])
        body = answer.json()
    assert isinstance(body, dict) and body["status"] == answer.status_code, body
    assert isinstance(body["code"], str) and body["code"], body
    assert isinstance(body["detail"], str) and body["detail"] and len(body["detail"]) <= 300, body
    if answer.status_code == 429:
        assert int(answer.headers["retry-after"]) >= 1
    return body


# -- strategies ------------------------------------------------------------------------------------------
scalars = (st.none() | st.booleans() | st.integers() | st.integers(min_value=2**63 - 2, max_value=2**70)
           | st.integers(min_value=-(2**70), max_value=-(2**63) + 2) | st.floats() | st.text(max_size=30))
json_values = st.recursive(scalars, lambda kids: st.lists(kids, max_size=4)
                           | st.dictionaries(st.text(max_size=12), kids, max_size=4), max_leaves=16)
BASE_COMMAND = {"idempotency_key": "fz", "type": "take", "body": {"n": 1}, "expected_version": 0}
wrong_types = st.builds(lambda k, v: {**BASE_COMMAND, k: v},
                        st.sampled_from([*BASE_COMMAND, "seat", "credential", "extra"]), json_values)
CONTENT_TYPES = ["application/json", MSGPACK, f"{MSGPACK}; charset=utf-8", "text/plain", "", "*/*",
                 "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", "application/json; x"]


def as_read(raw: bytes, content_type: str) -> Any:
    """What these bytes are as JSON or msgpack (chosen as the gateway does, by Content-Type); None when they
    are neither, or hold something that could not be stored as msgpack and given back as JSON. Independent
    of the gateway's own decoder, so a bug there is not taken for the truth."""
    media = content_type.split(";")[0].strip().lower()
    is_msgpack = media == MSGPACK
    if raw and media not in ("application/json", MSGPACK):  # refused as 415 whatever the bytes
        return None
    try:
        obj = (msgpack.unpackb(raw, raw=False) if is_msgpack else json.loads(raw)) if raw else {}
        msgpack.packb(obj, use_bin_type=True)
        json.dumps(obj, ensure_ascii=False).encode()
    except (ValueError, TypeError, OverflowError, RecursionError, msgpack.ExtraData):
        return None
    return obj


def would_be_valid(raw: bytes, content_type: str, model: type[Any]) -> Any:
    """The request as ``model`` when the gateway should accept it (None when it should refuse it)."""
    obj = as_read(raw, content_type)
    try:
        return model.model_validate(obj) if isinstance(obj, dict) else None
    except ValueError:
        return None


def encoded(value: Any, how: str) -> bytes:
    if how == "msgpack":
        try:
            return msgpack.packb(value, use_bin_type=True)  # type: ignore[no-any-return]
        except (OverflowError, ValueError, TypeError):
            return b"\xc1"
    return json.dumps(value, ensure_ascii=how == "ascii").encode("utf-8", "surrogatepass")


bodies = st.one_of(
    st.binary(max_size=300),
    st.text(max_size=200).map(lambda s: s.encode("utf-8", "surrogatepass")),
    st.builds(encoded, json_values | wrong_types, st.sampled_from(["ascii", "utf8", "msgpack"])),
    st.builds(encoded, st.dictionaries(st.text(max_size=20), json_values, max_size=6),
              st.sampled_from(["utf8", "msgpack"])),
)
DEEP = [b"[" * 10_000 + b"]" * 10_000, b'{"a":' * 10_000 + b"1" + b"}" * 10_000,
        b'{"idempotency_key": "d", "type": "take", "body": ' + b"[" * 40 + b"]" * 40 + b"}",
        b"\x91" * 10_000 + b"\xc0", b'{"idempotency_key": "n", "type": "take", "body": {"n": ' + b"9" * 4000 + b"}}",
        b'{"idempotency_key": "u", "type": "take", "body": {"n": "\\ud800"}}', b"\xef\xbb\xbf{}", b"\x00" * 100,
        b'{"idempotency_key": "f", "type": "take", "body": {"n": 1e999}, "expected_version": -1}',
        msgpack.packb({"idempotency_key": "b", "type": "take", "body": {"n": b"\xff"}}),
        msgpack.packb({"idempotency_key": "e", "type": "take", "body": {"n": msgpack.ExtType(1, b"x")}})]


# -- HTTP bodies -------------------------------------------------------------------------------------------
def test_fuzz_command_bodies(unchanged: World) -> None:
    w = unchanged
    url = f"/matches/{w.running.id}/commands"

    @FUZZ
    @given(raw=bodies, content_type=st.sampled_from(CONTENT_TYPES))
    @example(raw=DEEP[0], content_type="application/json")
    @example(raw=DEEP[3], content_type=MSGPACK)
    def run(raw: bytes, content_type: str) -> None:
        if would_be_valid(raw, content_type, SendCommand) is not None:
            return  # a valid command would rightly be sent
        headers = {**auth(w.running.tokens[0]), "Content-Type": content_type}
        assert_refusal(w.http.post(url, content=raw, headers=headers), {400, 413, 415})

    run()
    for raw in DEEP:
        for content_type in ("application/json", MSGPACK):
            if would_be_valid(raw, content_type, SendCommand) is None:
                answer = w.http.post(url, content=raw, headers={**auth(w.running.tokens[0]),
                                                                "Content-Type": content_type})
                assert_refusal(answer, {400, 413})


def test_fuzz_lobby_bodies(unchanged: World) -> None:
    w = unchanged

    @FUZZ
    @given(raw=bodies | st.builds(encoded, st.fixed_dictionaries(
        {"game": st.sampled_from([*GAMES, "", "nim ", "x" * 41]) | st.text(max_size=10),
         "seats": st.integers(-3, 20) | json_values, "options": json_values}), st.just("utf8")),
        content_type=st.sampled_from(CONTENT_TYPES), target=st.sampled_from(["create", "join"]))
    def run(raw: bytes, content_type: str, target: str) -> None:
        headers = {"Content-Type": content_type}
        if target == "create":
            valid = would_be_valid(raw, content_type, CreateMatch)
            if valid is not None and valid.game in GAMES:
                return  # might create a match
            assert_refusal(w.http.post("/matches", content=raw, headers=headers), {400, 413, 415, 422})
        else:  # every seat is taken: a valid request is a 409, nothing else is stored either way
            assert_refusal(w.http.post(f"/matches/{w.full.id}/seats", content=raw, headers=headers),
                           {400, 409, 413, 415})

    run()


# -- headers -----------------------------------------------------------------------------------------------
header_text = st.text(alphabet=string.printable.replace("\r", "").replace("\n", "").replace("\x0b", "")
                      .replace("\x0c", ""), max_size=120).map(str.strip)


def test_fuzz_authorization_and_accept(unchanged: World) -> None:
    w = unchanged
    m = f"/matches/{w.running.id}"
    good = json.dumps({**BASE_COMMAND, "idempotency_key": "hdr"}).encode()

    @FUZZ
    @given(authorization=(header_text | st.builds(lambda s: f"Bearer {s}", header_text)
                          | st.builds(lambda t, s: f"Bearer {t[:-1]}{s}", st.sampled_from(w.running.tokens),
                                      header_text)).map(str.strip),
           accept=st.sampled_from([MSGPACK, "application/json", "*/*", "text/html", f"{MSGPACK};q=0",
                                   "application/problem+json", ""]) | header_text,
           route=st.sampled_from(["command", "result", "me", "log"]))
    def run(authorization: str, accept: str, route: str) -> None:
        if authorization.removeprefix("Bearer ").strip() in w.running.tokens:
            return
        headers = {"Authorization": authorization, "Accept": accept}
        if route == "command":
            answer = w.http.post(f"{m}/commands", content=good, headers={**headers, "Content-Type": "application/json"})
        elif route == "result":
            answer = w.http.get(f"{m}/commands/hdr", headers=headers)
        else:
            answer = w.http.get(f"{m}/views/me" if route == "me" else f"{m}/log", headers=headers)
        body = assert_refusal(answer, {401})
        assert answer.headers["content-type"].startswith(MSGPACK) == (MSGPACK in accept), answer.headers
        assert body["code"] == "unauthorized"

    run()


def _raw_exchange(port: int, request: bytes, timeout_s: float = 5.0) -> bytes:
    """Send raw bytes; everything the server answers until it closes or goes quiet."""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout_s) as s:
        s.sendall(request)
        data = b""
        try:
            while chunk := s.recv(65536):
                data += chunk
                if _complete(data):
                    break
        except TimeoutError:
            pass
        return data


def _complete(data: bytes) -> bool:
    head, found, body = data.partition(b"\r\n\r\n")
    match = re.search(rb"content-length: (\d+)", head, re.I)
    return bool(found) and match is not None and len(body) >= int(match.group(1))


def _statuses(data: bytes) -> list[int]:
    return [int(s) for s in re.findall(rb"HTTP/1\.1 (\d{3}) ", data)]


def test_fuzz_content_length_lies(unchanged: World) -> None:
    w = unchanged
    path = f"/matches/{w.running.id}/commands"

    def request(declared: str, body: bytes, extra: str = "") -> bytes:
        head = (f"POST {path} HTTP/1.1\r\nHost: fuzz\r\nAuthorization: Bearer {w.running.tokens[0]}\r\n"
                f"Content-Type: application/json\r\n{extra}")
        if declared:
            head += f"Content-Length: {declared}\r\n"
        return head.encode() + b"\r\n" + body

    @FUZZ
    @given(body=bodies, cut=st.integers(0, 400) | st.integers(70_000, 10**12))
    def run(body: bytes, cut: int) -> None:
        if cut >= len(body) and cut < 70_000:
            cut = max(len(body) - 1, 0)  # a declared length longer than the body would only wait
        if would_be_valid(body[:cut], "application/json", SendCommand) is not None:
            return
        data = _raw_exchange(w.port, request(str(cut), body))
        statuses = _statuses(data)
        assert statuses and all(400 <= s < 500 for s in statuses), data[:500]
        if cut >= 70_000:
            assert statuses[0] == 413, data[:500]

    run()
    body = json.dumps(BASE_COMMAND).encode()
    for declared, extra in [("abc", ""), ("-1", ""), ("1e3", ""), (" 5", ""), ("5, 6", ""),
                            (str(len(body)), f"Content-Length: {len(body) + 1}\r\n"),
                            (str(len(body)), "Transfer-Encoding: chunked\r\n"), ("", "Transfer-Encoding: zip\r\n")]:
        data = _raw_exchange(w.port, request(declared, body, extra))
        assert _statuses(data) and all(400 <= s < 500 for s in _statuses(data)), (declared, extra, data[:300])
    # longer than what comes: the gateway waits for the rest, the client gives up; nothing breaks
    data = _raw_exchange(w.port, request(str(len(body) + 50), body), timeout_s=1.0)
    assert all(400 <= s < 500 for s in _statuses(data)), data[:300]


# -- path and query parameters -------------------------------------------------------------------------------
def _quote(segment: str) -> str:
    return urllib.parse.quote(segment.encode("utf-8", "surrogatepass"), safe="")


odd_ids = (st.text(min_size=1, max_size=300) | st.text(alphabet="abcdef0123456789-_.", min_size=60, max_size=70)
           | st.sampled_from(["%00", "%2e%2e", "..%2f", "a" * 65, "a" * 64, "0" * 16, "x;y", "*", "~", "a b"]))


def test_fuzz_path_and_query_parameters(unchanged: World) -> None:
    w = unchanged
    token = w.running.tokens[0]

    @FUZZ
    @given(match_id=odd_ids.filter(lambda s: s not in (".", "..") and not s.endswith("/")),
           key=st.text(min_size=1, max_size=100).filter(lambda s: s not in (".", "..") and not s.endswith("/")),
           route=st.sampled_from(["summary", "public", "me", "seat", "log", "command", "result", "join"]))
    def run(match_id: str, key: str, route: str) -> None:
        m = f"/matches/{_quote(match_id)}"
        if route == "summary":
            answer = w.http.get(m)
        elif route == "public":
            answer = w.http.get(f"{m}/views/public")
        elif route == "me":
            answer = w.http.get(f"{m}/views/me", headers=auth(token))
        elif route == "seat":  # the real match, an odd seat
            answer = w.http.get(f"/matches/{w.running.id}/views/seat/{_quote(key)}", headers=auth(token))
        elif route == "log":
            answer = w.http.get(f"{m}/log", headers=auth(token))
        elif route == "command":
            answer = w.http.post(f"{m}/commands", json=BASE_COMMAND, headers=auth(token))
        elif route == "join":
            answer = w.http.post(f"{m}/seats", json={})
        else:  # the real match, an odd key
            answer = w.http.get(f"/matches/{w.running.id}/commands/{_quote(key)}", headers=auth(token))
        if route == "seat" and answer.status_code == 200:
            assert answer.json()["key"] == "0", answer.text  # the token's own seat ("0", "00", ...), no other
            return
        assert_refusal(answer, {400, 401, 403, 404, 405})

    @FUZZ
    @given(name=st.sampled_from(["after_version", "wait_s", "status", "limit", "game", "x"]),
           value=st.text(max_size=40) | st.integers(-(10**30), 10**30).map(str) | st.floats().map(str),
           route=st.sampled_from(["/matches", "me", "seat", "public", "log", "result"]))
    def query(name: str, value: str, route: str) -> None:
        if name == "wait_s":
            try:
                if 0 < float(value) <= 30:
                    return  # a real long poll
            except ValueError:
                pass
        m = f"/matches/{w.running.id}"
        path = {"/matches": "/matches", "me": f"{m}/views/me", "seat": f"{m}/views/seat/0",
                "public": f"{m}/views/public", "log": f"{m}/log", "result": f"{m}/commands/never"}[route]
        answer = w.http.get(path, params={name: value}, headers=auth(token))
        if answer.status_code not in (200, 204):
            assert_refusal(answer, {400, 404})

    run()
    query()


# -- WebSocket frames --------------------------------------------------------------------------------------
def _answer_to(ws: Socket, timeout_s: float = 15.0) -> dict[str, Any]:
    """The answer to the last frame (views pushed in between are skipped)."""
    return ws.until(lambda m: m["kind"] != "view", timeout_s)


def _ws_valid_command(obj: Any) -> bool:
    if not isinstance(obj, dict) or obj.get("kind") != "command":
        return False
    from schemas.gateway import WsCommand

    try:
        WsCommand.model_validate(obj)
    except ValueError:
        return False
    return True


ws_messages = st.one_of(
    st.text(max_size=200).map(lambda s: ("text", s)),
    st.binary(max_size=200).map(lambda b: ("binary", b)),
    st.builds(lambda kind, fields: ("text", json.dumps({"kind": kind, **fields})),
              st.sampled_from(["subscribe", "command", "unsubscribe", "ping", "pong", "view", "result", "error", "",
                               "SUBSCRIBE"]) | json_values,
              st.dictionaries(st.sampled_from(["match_id", "token", "after_version", "events", "cid",
                                               "idempotency_key", "type", "body", "expected_version", "seat"])
                              | st.text(max_size=8), json_values, max_size=5)),
    st.builds(lambda v: ("binary", encoded(v, "msgpack")), json_values),
)


def _check_ws(ws: Socket, kind: str, payload: str | bytes) -> int:
    """Send the frame unless it is a valid command; check the answer. How many frames were sent."""
    raw = payload.encode("utf-8", "surrogatepass") if isinstance(payload, str) else payload
    obj = as_read(raw, MSGPACK if kind == "binary" else "application/json")
    if _ws_valid_command(obj):
        return 0  # would rightly be sent
    if isinstance(payload, str):
        try:
            payload.encode()
        except UnicodeEncodeError:
            return 0  # not sendable as a text frame
    ws.send(payload)
    answer = _answer_to(ws)
    assert answer["kind"] in ("error", "pong", "subscribed", "unsubscribed"), answer
    if answer["kind"] == "error":
        assert isinstance(answer["code"], str) and answer["code"] in (
            "bad_request", "unauthorized", "not_found", "too_large", "rate_limited"), answer
        assert len(answer["message"]) <= 300
    else:  # a well-formed ping, subscribe or unsubscribe, answered as such
        asked = {"pong": "ping", "subscribed": "subscribe", "unsubscribed": "unsubscribe"}[answer["kind"]]
        assert isinstance(obj, dict) and obj.get("kind") == asked, (obj, answer)
    return 1


def test_fuzz_websocket_frames(unchanged: World) -> None:
    w = unchanged
    sockets: list[Socket] = []

    def fresh() -> Socket:
        ws = Socket(w.stack.ws_url)
        sockets.append(ws)
        assert ws.subscribe(w.running.id, w.running.tokens[1])["kind"] == "subscribed"
        return ws

    current = [fresh()]
    sent = [0]
    total = [0]

    @FUZZ
    @given(message=ws_messages)
    @example(message=("text", "[" * 10_000 + "]" * 10_000))
    @example(message=("binary", b"\x91" * 10_000 + b"\xc0"))
    @example(message=("text", '{"kind": "command", "match_id": "' + "a" * 10 + '", "idempotency_key": "k", '
                               '"type": "take", "body": {"n": 1e999999}}'))
    def run(message: tuple[str, str | bytes]) -> None:
        if sent[0] >= REFUSALS_TO_CLOSE - 1:  # a socket is closed past that many refusals: a fresh one now and then
            current[0].close()
            current[0] = fresh()
            sent[0] = 0
        sent[0] += 1
        total[0] += _check_ws(current[0], *message)
        assert current[0].closed is None, current[0].closed

    try:
        run()
        assert total[0] >= 100, total  # (the rest were valid commands or not sendable)
        # oversized: over the gateway's cap an error, over the server's frame limit a close; never a crash
        ws = fresh()
        ws.send("x" * (w.stack.settings.gateway_max_body + 1))
        assert _answer_to(ws)["code"] == "too_large"
        ws.send(b"\x00" * (w.stack.settings.gateway_max_body + 1))
        assert _answer_to(ws)["code"] == "too_large"
        ws.send({"kind": "ping", "cid": "alive"})
        assert _answer_to(ws)["kind"] == "pong"
        with contextlib.suppress(ConnectionClosed):
            ws.send("y" * (4 << 20))
        assert ws.recv(15) is None and ws.closed is not None
        # a close frame "message too big", unless the server hung up while the client was still sending
        assert ws.closed.rcvd is None or ws.closed.rcvd.code in (1009, 1008), ws.closed
    finally:
        for ws in sockets:
            ws.close()



def test_msgpack_bodies_and_frames_are_read(world: World) -> None:
    """The counterpart of the refusals above: well-formed msgpack is read like JSON, over HTTP and WebSocket
    (so a 400 for the garbage is not a 400 for everything)."""
    w = world
    match = create_match(w.http, "nim", 2)
    command = msgpack.packb({"idempotency_key": "mp", "type": "take", "body": {"n": 1}})
    answer = w.http.post(f"/matches/{match.id}/commands", content=command,
                         headers={**auth(match.tokens[0]), "Content-Type": MSGPACK, "Accept": MSGPACK})
    assert answer.status_code == 200 and answer.headers["content-type"].startswith(MSGPACK), answer.content
    result = msgpack.unpackb(answer.content, raw=False)
    assert (result["status"], result["seat"], result["command_id"]) == ("accepted", 0, "mp"), result
    with Socket(w.stack.ws_url) as ws:
        ws.send(msgpack.packb({"kind": "subscribe", "match_id": match.id, "token": match.tokens[1], "cid": "s"}))
        assert ws.until(lambda m: m.get("cid") == "s")["kind"] == "subscribed"
        assert isinstance(ws.raw[-1], bytes)  # answered in msgpack
        ws.send(msgpack.packb({"kind": "command", "match_id": match.id, "idempotency_key": "mp2", "type": "take",
                               "body": {"n": 1}, "cid": "c"}))
        answer_ws = ws.until(lambda m: m.get("cid") == "c")
        assert answer_ws["kind"] == "result" and answer_ws["result"]["status"] == "accepted", answer_ws

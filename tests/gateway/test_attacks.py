"""The attacks an earlier review found, replayed against a real gateway (worker, projector and gateway as
processes on the test Redis): each is refused, nothing stored changes, other matches are not affected.

Stored state is compared through an admin Redis client: a match's log length, version, ``seen`` and
``sent`` hashes, results stream and meta, and the last entry id of every partition's command stream (which,
unlike XLEN, only changes when something is added).
"""

from __future__ import annotations

import hashlib
import json
import statistics
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
import redis

from schemas.codec import unpack_obj, unpack_result
from schemas.envelopes import CommandEnvelope
from schemas.logentry import load_slice
from services.keys import Keys
from services.pipeline.redis_streams import FIELD
from tests.gateway.attack_kit import (
    Match,
    Socket,
    all_commands_last,
    assert_problem,
    auth,
    client,
    create_match,
    dump_prefix,
    stored,
    wait_until,
)
from tests.gateway.stack import GatewayStack, gateway_stack  # noqa: F401  (the fixture)
from tests.pipeline.redis_fixtures import ROOT

pytestmark = [pytest.mark.gateway, pytest.mark.redis]
MAX_REASON = 200




@pytest.fixture
def http(stack: GatewayStack) -> Iterator[httpx.Client]:
    with client(stack.url) as c:
        yield c


def take(key: str, n: int = 1, **body: Any) -> dict[str, Any]:
    return {"idempotency_key": key, "type": "take", "body": {"n": n, **body}}


def post_command(http: httpx.Client, match: Match, seat: int, command: dict[str, Any],
                 **params: Any) -> httpx.Response:
    return http.post(f"/matches/{match.id}/commands", json=command, headers=auth(match.tokens[seat]),
                     params=params)


def key() -> str:
    return f"k-{uuid.uuid4().hex[:12]}"


def other_seat_token(token: str, seat: int) -> str:
    """The same secret with another seat number in front: still not that seat's token."""
    return f"{seat}.{token.partition('.')[2]}"


# -- tokens ----------------------------------------------------------------------------------------------
def test_without_a_valid_token_nothing_is_sent_read_or_stored(stack: GatewayStack, r: redis.Redis,
                                                             http: httpx.Client) -> None:
    keys = stack.settings.keys
    target = create_match(http, "nim", 3)
    other = create_match(http, "nim", 2)
    bad_tokens: dict[str, str | None] = {
        "none": None, "other match": other.tokens[0], "garbage": "garbage", "empty secret": "0.",
        "not hex": "0." + "g" * 48, "short": "0." + "a" * 47, "wrong secret": "0." + "0" * 48,
        "absent seat": "7." + "a" * 48, "seat swapped": other_seat_token(target.tokens[1], 0),
        "huge": "0." + "a" * 5000,
    }
    before, other_before, streams_before = (stored(r, keys, target.id), stored(r, keys, other.id),
                                            all_commands_last(r, keys))
    for name, token in bad_tokens.items():
        headers = auth(token)
        k = f"atk-{name.replace(' ', '-')}"
        answers = {
            "command": http.post(f"/matches/{target.id}/commands", json=take(k), headers=headers),
            "result": http.get(f"/matches/{target.id}/commands/{k}", headers=headers),
            "my view": http.get(f"/matches/{target.id}/views/me", headers=headers),
            "a seat's view": http.get(f"/matches/{target.id}/views/seat/0", headers=headers),
            "my view, long poll": http.get(f"/matches/{target.id}/views/me", headers=headers,
                                           params={"after_version": 1, "wait_s": 1}),
            "running log": http.get(f"/matches/{target.id}/log", headers=headers),
        }
        for what, answer in answers.items():
            problem = assert_problem(answer, 401)
            assert problem["code"] == "unauthorized", (name, what, problem)
            if token and len(token) > 20:
                assert token not in answer.text, (name, what)
    # other authorization schemes and a bare "Bearer" count as no token
    for header in ("Basic " + "a" * 20, "Bearer", "bearer " + "b" * 10, target.tokens[0]):
        answer = http.post(f"/matches/{target.id}/commands", json=take("atk-scheme"),
                           headers={"Authorization": header})
        assert_problem(answer, 401)
    # the WebSocket: a bad token cannot subscribe as a seat; without a seat subscription no command goes
    with Socket(stack.ws_url) as ws:
        for name, token in bad_tokens.items():
            if token is None:
                continue
            refused = ws.subscribe(target.id, token)
            assert refused["kind"] == "error" and refused["code"] in ("unauthorized", "bad_request"), (name, refused)
        ws.send({"kind": "command", "match_id": target.id, "idempotency_key": "atk-ws", "type": "take",
                 "body": {"n": 1}, "cid": "c1"})
        assert ws.until(lambda m: m.get("cid") == "c1")["code"] == "unauthorized"
        assert ws.subscribe(target.id)["kind"] == "subscribed"  # a spectator...
        ws.send({"kind": "command", "match_id": target.id, "idempotency_key": "atk-ws", "type": "take",
                 "body": {"n": 1}, "cid": "c2"})
        assert ws.until(lambda m: m.get("cid") == "c2")["code"] == "unauthorized"  # ...sends nothing
    time.sleep(0.3)  # anything wrongly published would have been decided by now
    assert stored(r, keys, target.id) == before
    assert stored(r, keys, other.id) == other_before
    assert all_commands_last(r, keys) == streams_before
    # and the match still plays for its real seats
    answer = post_command(http, target, 0, take(key()))
    assert answer.status_code == 200 and answer.json()["status"] == "accepted", answer.text


def test_a_token_acts_only_for_its_own_seat(stack: GatewayStack, r: redis.Redis, http: httpx.Client) -> None:
    keys = stack.settings.keys
    match = create_match(http, "nim", 3)  # seat 0 is to act
    # seat 1 names seat 0 in the command body: decided for seat 1, which is not to act
    answer = post_command(http, match, 1, take("as-zero", seat=0))
    result = answer.json()
    assert answer.status_code == 200, answer.text
    assert (result["seat"], result["status"], result["code"]) == (1, "rejected", "not_your_turn"), result
    # a top-level seat field is refused before anything is stored
    before = stored(r, keys, match.id)
    answer = http.post(f"/matches/{match.id}/commands", json={**take("top-seat"), "seat": 0},
                       headers=auth(match.tokens[1]))
    assert assert_problem(answer, 400)["field"] == "body.seat"
    answer = http.post(f"/matches/{match.id}/commands", json={**take("cred"), "credential": match.tokens[0]},
                       headers=auth(match.tokens[1]))
    assert_problem(answer, 400)
    assert stored(r, keys, match.id) == before
    # a seat reads only its own view
    own = http.get(f"/matches/{match.id}/views/seat/1", headers=auth(match.tokens[1]))
    assert own.status_code == 200 and own.json()["key"] == "1"
    for seat in (0, 2):
        refused = http.get(f"/matches/{match.id}/views/seat/{seat}", headers=auth(match.tokens[1]))
        assert assert_problem(refused, 403)["code"] == "forbidden"
        assert "secret" not in refused.text
    # seat 0 names seat 1: accepted, as seat 0's move
    answer = post_command(http, match, 0, take("as-one", seat=1))
    assert answer.json()["status"] == "accepted" and answer.json()["seat"] == 0, answer.text
    events = load_slice(match.id, r.xrange(keys.log(match.id)), "nim")[0]
    assert events[-1].seat == 0 and events[-1].command_id == "0.as-one"
    assert events[-1].body["seat"] == 0, events[-1]
    # what went onto the stream: the seat from the token, the id scoped to it, no credential
    envelopes = [CommandEnvelope.model_validate(unpack_obj(f[FIELD]))
                 for _, f in r.xrange(keys.commands(keys.partition(match.id)))]
    mine = {e.command_id: e for e in envelopes if e.match_id == match.id}
    assert mine["1.as-zero"].seat == 1 and mine["0.as-one"].seat == 0, mine
    # over the WebSocket too: a seat field is refused, another match's commands need its own subscription
    other = create_match(http, "nim", 2)
    before, other_before = stored(r, keys, match.id), stored(r, keys, other.id)
    with Socket(stack.ws_url) as ws:
        assert ws.subscribe(match.id, match.tokens[1])["seat"] == 1
        ws.send({"kind": "command", "match_id": match.id, "seat": 0, "cid": "c1", **take("ws-seat")})
        assert ws.until(lambda m: m.get("cid") == "c1")["code"] == "bad_request"
        ws.send({"kind": "command", "match_id": other.id, "cid": "c2", **take("ws-other")})
        assert ws.until(lambda m: m.get("cid") == "c2")["code"] == "unauthorized"
    time.sleep(0.3)
    assert stored(r, keys, match.id) == before and stored(r, keys, other.id) == other_before


def test_idempotency_keys_are_scoped_per_seat(stack: GatewayStack, r: redis.Redis, http: httpx.Client) -> None:
    keys = stack.settings.keys
    match = create_match(http, "nim", 3)
    first = post_command(http, match, 0, take("same")).json()
    assert (first["status"], first["seat"], first["command_id"]) == ("accepted", 0, "same"), first
    # seat 2 cannot read seat 0's result under the same key, and gets its own result for it
    assert_problem(http.get(f"/matches/{match.id}/commands/same", headers=auth(match.tokens[2])), 404)
    mine = post_command(http, match, 2, take("same")).json()
    assert (mine["status"], mine["seat"], mine["code"]) == ("rejected", 2, "not_your_turn"), mine
    # seat 1 (to act) uses the key too: its command is applied, not answered with seat 0's result
    ones = post_command(http, match, 1, take("same")).json()
    assert (ones["status"], ones["seat"]) == ("accepted", 1) and ones["version"] == first["version"] + 1, ones
    # each seat reads back its own result; seat 0 re-sending gets its first result and nothing is applied
    # (the copy may be published again: the worker answers it from the at-most-once record)
    for seat, expected in [(0, first), (1, ones), (2, mine)]:
        got = http.get(f"/matches/{match.id}/commands/same", headers=auth(match.tokens[seat]))
        assert got.json() == expected
    before = stored(r, keys, match.id)
    assert post_command(http, match, 0, take("same")).json() == first
    # the same key with another command is refused, not answered with the first command's result
    assert assert_problem(post_command(http, match, 0, take("same", n=3)), 409)["code"] == "idempotency_key_reused"
    time.sleep(0.3)
    after = stored(r, keys, match.id)
    assert (after.log_len, after.version, after.seen, after.sent) == (before.log_len, before.version, before.seen,
                                                                      before.sent)
    seen = r.hgetall(keys.seen(match.id))
    assert {b"0.same", b"1.same", b"2.same"} <= set(seen)
    assert {unpack_result(seen[f"{s}.same".encode()], match.id, f"{s}.same").seat for s in range(3)} == {0, 1, 2}
    # a key used first by seat 0 (not to act) does not pre-empt seat 2 (to act)
    pre = post_command(http, match, 0, take("pre")).json()
    assert (pre["status"], pre["code"]) == ("rejected", "not_your_turn"), pre
    assert post_command(http, match, 2, take("pre")).json()["status"] == "accepted"
    # a request with a wrong token creates no seen or sent record and no stream entry
    before, streams = stored(r, keys, match.id), all_commands_last(r, keys)
    for token in ("0." + "1" * 48, other_seat_token(match.tokens[0], 1)):
        answer = http.post(f"/matches/{match.id}/commands", json=take("ghost"), headers=auth(token))
        assert_problem(answer, 401)
    time.sleep(0.3)
    assert stored(r, keys, match.id) == before and all_commands_last(r, keys) == streams
    assert not any(b"ghost" in k for k in [*before.seen, *before.sent])


# -- the seed and the credentials ------------------------------------------------------------------------
def _every_get(http: httpx.Client, match: Match, used_key: str) -> list[httpx.Response]:
    """GET every route of the OpenAPI document (with and without the seat token), plus the documents."""
    doc = http.get("/openapi.json").json()
    answers = [http.get("/openapi.json"), http.get("/docs"), http.get("/redoc")]
    for path, ops in doc["paths"].items():
        if "get" not in ops:
            continue
        url = path.replace("{match_id}", match.id).replace("{key}", used_key).replace("{seat}", "0")
        for headers in (auth(match.tokens[0]), {}):
            answers.append(http.get(url, headers=headers))
            answers.append(http.get(url, headers=headers, params={"after_version": 0}))
    for status in ("open", "running", "finished"):
        answers.append(http.get("/matches", params={"status": status, "game": match.game}))
    return answers


def _play_nim_to_the_end(http: httpx.Client, match: Match) -> None:
    for _ in range(60):
        view = http.get(f"/matches/{match.id}/views/public").json()["view"]
        if view["finished"]:
            return
        seat = view["to_act"][0]
        record = http.get(f"/matches/{match.id}/views/me", headers=auth(match.tokens[seat])).json()
        if record["legal"]:
            post_command(http, match, seat, {"idempotency_key": key(), **record["legal"][-1]})
        else:
            time.sleep(0.05)
    raise AssertionError("nim did not finish")


def test_nothing_reaches_the_seed(stack: GatewayStack, r: redis.Redis, http: httpx.Client) -> None:
    keys = stack.settings.keys
    for game, seats in [("nim", 2), ("moderne-zeiten", 3), ("modern-world", 3), ("mad-zeppelin", 3)]:
        m = create_match(http, game, seats, join=False)
        assert b"seed" not in r.hgetall(keys.meta(m.id)), game
        assert r.type(keys.secret(m.id)) == b"string" and int(r.get(keys.secret(m.id)) or 0) > 0, game
    match = create_match(http, "nim", 2)
    seed = (r.get(keys.secret(match.id)) or b"").decode()
    assert seed.isdigit() and b"seed" not in r.hgetall(keys.meta(match.id))
    with Socket(stack.ws_url) as seat_ws, Socket(stack.ws_url) as spectator:
        assert seat_ws.subscribe(match.id, match.tokens[0], events=True)["seat"] == 0
        assert spectator.subscribe(match.id, events=True)["seat"] is None
        k = key()
        assert post_command(http, match, 0, take(k)).json()["status"] == "accepted"
        running = _every_get(http, match, k)
        _play_nim_to_the_end(http, match)
        finished = _every_get(http, match, k)
        seat_ws.until(lambda m: m["kind"] == "view" and m["view"]["finished"])
        spectator.until(lambda m: m["kind"] == "view" and m["view"]["finished"])
        sockets = [*seat_ws.raw, *spectator.raw]
    assert any(a.status_code == 200 and "/log" in str(a.url) for a in finished)  # the whole log, revealed
    assert len(sockets) > 4
    for answer in [*running, *finished]:
        assert answer.status_code < 500, (answer.url, answer.status_code)
        assert seed not in answer.text, answer.url
    for raw in sockets:
        assert seed not in (raw if isinstance(raw, str) else raw.decode(errors="replace"))


def test_no_credential_is_stored_or_exported(stack: GatewayStack, r: redis.Redis, http: httpx.Client) -> None:
    match = create_match(http, "nim", 3)
    forged = "1." + uuid.uuid4().hex + uuid.uuid4().hex[:16]
    # use every token every way: HTTP commands and reads, WebSocket subscriptions and commands
    with Socket(stack.ws_url) as ws:
        assert ws.subscribe(match.id, match.tokens[1])["seat"] == 1
        ws.send({"kind": "command", "match_id": match.id, "cid": "c", **take(key())})
        ws.until(lambda m: m.get("cid") == "c")
        for seat, token in enumerate(match.tokens):
            post_command(http, match, seat, take(key()))
            http.get(f"/matches/{match.id}/views/me", headers=auth(token))
            http.get(f"/matches/{match.id}/log", headers=auth(token))
        http.post(f"/matches/{match.id}/commands", json=take(key()), headers=auth(forged))
    time.sleep(0.3)
    dumps = dict(dump_prefix(r, stack.settings.key_prefix))
    everything = b"\x01".join(dumps.values())
    metrics = http.get("/metrics").text
    for token in [*match.tokens, forged]:
        secret = token.partition(".")[2]
        for needle in (token.encode(), secret.encode(), secret.upper().encode(), bytes.fromhex(secret)):
            leaks = [k for k, v in dumps.items() if needle in v]
            assert not leaks, (token, leaks)
        assert secret not in metrics and secret.upper() not in metrics
    # the scan does see what is stored: the hashes of the tokens (and only those) are there
    for token in match.tokens:
        assert hashlib.sha256(token.encode()).hexdigest().encode() in everything
    assert hashlib.sha256(forged.encode()).hexdigest().encode() not in everything


# -- no way to trim, delete or block a stream --------------------------------------------------------------
def test_no_route_trims_deletes_or_blocks(stack: GatewayStack, r: redis.Redis, http: httpx.Client) -> None:
    keys = stack.settings.keys
    match = create_match(http, "nim", 2)
    post_command(http, match, 0, take(key()))
    doc = http.get("/openapi.json").json()
    methods = {(path, m) for path, ops in doc["paths"].items() for m in ops}
    assert {m for _, m in methods} <= {"get", "post", "delete"}, methods
    assert {p for p, m in methods if m == "post"} == {"/matches", "/matches/{match_id}/seats",
                                                      "/matches/{match_id}/commands", "/matches/{match_id}/bots",
                                                      "/matches/{match_id}/abandon", "/players",
                                                      "/matches/{match_id}/rematch",
                                                      "/ladder/{game}/matches", "/arena/{game}/queue"}
    # the one DELETE: a player takes its own ticket out of the arena's queue (tests/ratings/test_arena.py)
    assert {p for p, m in methods if m == "delete"} == {"/arena/{game}/queue/{ticket}"}
    for word in ("trim", "delete", "admin", "stream", "secret", "seed", "flush", "block"):
        assert not any(word in p.lower() for p, _ in methods), word
    before, streams = stored(r, keys, match.id), all_commands_last(r, keys)
    lens = {k: r.xlen(k) for k in (keys.log(match.id), keys.commands(keys.partition(match.id)),
                                  keys.feed(keys.partition(match.id)))}
    m = f"/matches/{match.id}"
    for method, path in [("DELETE", m), ("DELETE", f"{m}/log"), ("DELETE", f"{m}/commands"), ("PUT", m),
                         ("PATCH", m), ("POST", f"{m}/log"), ("POST", f"{m}/trim"), ("DELETE", "/matches"),
                         ("POST", f"{m}/views/me"), ("DELETE", f"{m}/seats"), ("POST", "/streams/trim"),
                         ("GET", f"{m}/secret"), ("GET", f"{m}/seed")]:
        answer = http.request(method, path, headers=auth(match.tokens[0]), json={"maxlen": 0})
        assert answer.status_code in (404, 405), (method, path, answer.status_code)
        assert_problem(answer, 404, 405)
    with Socket(stack.ws_url) as ws:
        assert ws.subscribe(match.id, match.tokens[0])["kind"] == "subscribed"
        for kind in ("trim", "delete", "xtrim", "block", "admin"):
            ws.send({"kind": kind, "match_id": match.id, "maxlen": 0, "cid": kind})
            assert ws.until(lambda msg, kind=kind: msg.get("cid") == kind)["code"] == "bad_request"
    time.sleep(0.3)
    assert stored(r, keys, match.id) == before and all_commands_last(r, keys) == streams
    assert {k: r.xlen(k) for k in lens} == lens


def test_huge_bodies_are_refused_before_anything_is_stored(stack: GatewayStack, r: redis.Redis,
                                                           http: httpx.Client) -> None:
    keys = stack.settings.keys
    cap = stack.settings.gateway_max_body
    match = create_match(http, "nim", 2)
    open_match = create_match(http, "nim", 2, join=False)
    matches_before = sum(r.zcard(keys.matches(p, s)) for p in range(keys.partitions)
                         for s in ("open", "running", "finished"))
    before, open_before, streams = (stored(r, keys, match.id), stored(r, keys, open_match.id),
                                    all_commands_last(r, keys))
    huge = {**take("huge"), "body": {"n": 1, "pad": "x" * (cap + 10)}}
    very_huge = {**take("huge2"), "body": {"pad": "y" * (8 * cap)}}

    def chunks() -> Iterator[bytes]:  # no Content-Length: the cap holds while reading
        yield b'{"idempotency_key": "chunked", "type": "take", "body": {"pad": "'
        for _ in range(4 * cap // 8192):
            yield b"z" * 8192
        yield b'"}}'

    answers = [
        http.post(f"/matches/{match.id}/commands", json=huge, headers=auth(match.tokens[0])),
        http.post(f"/matches/{match.id}/commands", json=very_huge, headers=auth(match.tokens[0])),
        http.post(f"/matches/{match.id}/commands", content=chunks(), headers=auth(match.tokens[0])),
        http.post("/matches", json={"game": "nim", "seats": 2, "options": {"pad": "x" * (cap + 10)}}),
        http.post(f"/matches/{open_match.id}/seats", json={"seat": 0, "pad": "x" * (cap + 10)}),
    ]
    for answer in answers:
        assert assert_problem(answer, 413)["code"] == "too_large"
    with Socket(stack.ws_url) as ws:
        assert ws.subscribe(match.id, match.tokens[0])["kind"] == "subscribed"
        ws.send({"kind": "command", "match_id": match.id, "cid": "big", **huge})
        assert ws.until(lambda m: m.get("cid") == "big" or m["kind"] == "error")["code"] == "too_large"
        ws.send({"kind": "ping", "cid": "p"})
        assert ws.until(lambda m: m.get("cid") == "p")["kind"] == "pong"  # the socket still works
    time.sleep(0.3)
    assert stored(r, keys, match.id) == before and stored(r, keys, open_match.id) == open_before
    assert all_commands_last(r, keys) == streams
    assert sum(r.zcard(keys.matches(p, s)) for p in range(keys.partitions)
               for s in ("open", "running", "finished")) == matches_before


def _latency_s(http: httpx.Client, match: Match, seat: int) -> float:
    """One command's round trip (a rejection: it goes through the worker all the same)."""
    started = time.perf_counter()
    answer = post_command(http, match, seat, take(key()), wait_s=20)
    assert answer.status_code == 200 and answer.json()["code"] == "not_your_turn", answer.text
    return time.perf_counter() - started


def _decided(r: redis.Redis, keys: Keys, match_id: str) -> int:
    """How many of the match's seats' commands were decided: their results on its partition's live stream (not the
    creation's and the joins', whose ids are no seat's "<seat>.<key>")."""
    entries = r.xrange(keys.live(keys.partition(match_id)))
    return sum(1 for _, fields in entries if fields.get(b"m") == match_id.encode() and b"c" in fields
               and fields[b"c"][:1].isdigit())


def test_a_flood_from_one_token_is_rate_limited_and_others_keep_their_latency(
        stack: GatewayStack, r: redis.Redis, http: httpx.Client) -> None:
    keys = stack.settings.keys
    flooded = create_match(http, "nim", 2)
    victim = create_match(http, "nim", 2)
    for _ in range(3):  # warm up the victim's hub and the connection
        _latency_s(http, victim, 1)
    before = statistics.median(_latency_s(http, victim, 1) for _ in range(9))
    burst = stack.settings.gateway_token_rps * 4
    seconds = 6.0
    started = time.monotonic()
    proc = subprocess.Popen([sys.executable, "-m", "tests.gateway.attack_flood", stack.url, flooded.id,
                             flooded.tokens[1], str(seconds), "4"], cwd=ROOT, stdout=subprocess.PIPE)
    try:
        # once the token's burst is spent the flood is refused; measure while it goes on
        wait_until(lambda: _decided(r, keys, flooded.id) >= burst, timeout_s=30)
        time.sleep(1.0)
        during = statistics.median(_latency_s(http, victim, 1) for _ in range(9))
        assert time.monotonic() - started < seconds, "the flood ended before the latency was measured"
        out, _ = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    elapsed = time.monotonic() - started
    flood = json.loads(out.decode().strip().splitlines()[-1])
    statuses: list[int] = flood["statuses"]
    assert set(statuses) <= {200, 202, 429}, set(statuses)
    assert statuses.count(429) >= 20 and flood["limited"], statuses.count(429)
    for answer in flood["limited"]:
        assert answer["content_type"].startswith("application/problem+json"), answer
        assert answer["body"]["code"] == "rate_limited" and answer["body"]["status"] == 429, answer
        assert int(answer["retry_after"]) >= 1, answer
    # what reached the stream is bounded by the token's burst and rate: every command not refused was decided
    # (its result is on the partition's live stream), and nothing else (`sent` and `seen` keep only some
    # rejections: they no longer count what was published)
    published = len([s for s in statuses if s != 429])
    assert published <= burst + stack.settings.gateway_token_rps * elapsed + 10, (published, elapsed)
    assert during <= 3 * before + 0.03, (before, during)
    # once the flood is decided, the flooded match and the victim are fine
    wait_until(lambda: _decided(r, keys, flooded.id) >= published, timeout_s=60)
    # (`sent` keeps a digest exactly as long as `seen` keeps the result: never more entries than it)
    assert _decided(r, keys, flooded.id) == published
    assert r.hlen(keys.sent(flooded.id)) <= r.hlen(keys.seen(flooded.id))
    assert post_command(http, flooded, 0, take(key()), wait_s=20).json()["status"] == "accepted"
    assert post_command(http, victim, 0, take(key()), wait_s=20).json()["status"] == "accepted"


# -- rejection reasons -------------------------------------------------------------------------------------
def test_rejection_reasons_are_bounded_and_go_only_to_the_sender(stack: GatewayStack, r: redis.Redis,
                                                                http: httpx.Client) -> None:
    keys = stack.settings.keys
    match = create_match(http, "mad-zeppelin", 3)
    public = http.get(f"/matches/{match.id}/views/public").json()["view"]
    actor = public["awaiting"]["seat"]
    onlooker = (actor + 1) % 3
    with Socket(stack.ws_url) as actor_ws, Socket(stack.ws_url) as onlooker_ws:
        assert actor_ws.subscribe(match.id, match.tokens[actor], events=True)["seat"] == actor
        assert onlooker_ws.subscribe(match.id, match.tokens[onlooker], events=True)["seat"] == onlooker
        long_value = "Q" * 30_000
        sent = {
            "long-value": {"type": "draft", "body": {"traitor": long_value}},
            "long-field": {"type": "draft", "body": {"traitor": "x", long_value: 1}},
            "long-type": {"type": "T" * 40, "body": {"x": long_value}},
        }
        results = {}
        for k, command in sent.items():
            answer = post_command(http, match, actor, {"idempotency_key": k, **command})
            assert answer.status_code == 200, answer.text[:300]
            results[k] = answer.json()
        for k, result in results.items():
            assert result["status"] == "rejected" and result["seat"] == actor, result
            assert result["reason"] and len(result["reason"]) <= MAX_REASON, (k, len(result["reason"]))
            stored_result = unpack_result(r.hget(keys.seen(match.id), f"{actor}.{k}") or b"", match.id,
                                          f"{actor}.{k}")
            assert stored_result.reason is not None and len(stored_result.reason) <= MAX_REASON
        assert "'traitor'" in results["long-value"]["reason"]  # the reason names the field (never echoes the value)
        # a legal move of the actor, and a rejected command of the onlooker's own
        legal = http.get(f"/matches/{match.id}/views/me", headers=auth(match.tokens[actor])).json()["legal"]
        assert post_command(http, match, actor, {"idempotency_key": "legal", **legal[0]}).json()["status"] \
            == "accepted"
        own = post_command(http, match, onlooker, {"idempotency_key": "mine", "type": "draft",
                                                   "body": {"traitor": "nobody"}}).json()
        assert own["status"] == "rejected"
        # the actor's socket is pushed its own results (the positive control), the onlooker only its own
        actor_ws.until(lambda m: m["kind"] == "result" and m["result"]["command_id"] == "legal")
        onlooker_ws.until(lambda m: m["kind"] == "result" and m["result"]["command_id"] == "mine")
        actor_ws.drain(0.5)
        onlooker_ws.drain(0.5)
        got = [m["result"] for m in onlooker_ws.seen if m["kind"] == "result"]
        assert [g["command_id"] for g in got] == ["mine"] and got[0]["seat"] == onlooker, got
        assert not any("QQQQ" in str(m) for m in onlooker_ws.seen)
        pushed = {m["result"]["command_id"]: m["result"] for m in actor_ws.seen if m["kind"] == "result"}
        assert set(pushed) == {*sent, "legal"}, set(pushed)
        assert all(len(p["reason"] or "") <= MAX_REASON for p in pushed.values())
        # the log never holds rejections or the onlooker's secrets for the actor
        for m in onlooker_ws.seen:
            if m["kind"] == "event":
                assert m["event"]["command"] is None or m["event"]["seat"] == onlooker, m


def test_a_token_may_hold_at_most_four_sockets(stack: GatewayStack, http: httpx.Client) -> None:
    match = create_match(http, "nim", 2)
    limit = stack.settings.gateway_sockets
    assert limit == 4
    sockets = [Socket(stack.ws_url) for _ in range(limit)]
    extra: list[Socket] = []
    try:
        for s in sockets:
            assert s.subscribe(match.id, match.tokens[0])["kind"] == "subscribed"
        fifth = Socket(stack.ws_url)
        extra.append(fifth)
        fifth.send({"kind": "subscribe", "match_id": match.id, "token": match.tokens[0], "cid": "sub"})
        with pytest.raises(AssertionError):
            fifth.until(lambda m: m["kind"] == "subscribed", timeout_s=10)
        assert fifth.closed is not None and fifth.closed.rcvd is not None, fifth.closed
        assert fifth.closed.rcvd.code == 1008, fifth.closed
        # the other seat and spectators are not affected, nor are the four open sockets
        other = Socket(stack.ws_url)
        extra.append(other)
        assert other.subscribe(match.id, match.tokens[1])["kind"] == "subscribed"
        for s in sockets:
            s.send({"kind": "ping", "cid": "p"})
            assert s.until(lambda m: m.get("cid") == "p")["kind"] == "pong"
        # a closed socket gives its place back
        sockets.pop().close()

        def reopened() -> bool:
            s = Socket(stack.ws_url)
            extra.append(s)
            return s.subscribe(match.id, match.tokens[0]).get("kind") == "subscribed" if s.closed is None \
                else False

        wait_until(_safe(reopened), timeout_s=20, every_s=0.2)
    finally:
        for s in [*sockets, *extra]:
            s.close()


def _safe(predicate: Any) -> Any:
    def call() -> bool:
        try:
            return bool(predicate())
        except AssertionError:
            return False

    return call

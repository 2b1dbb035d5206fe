"""Connections no client can hoard, against a real gateway process (services/gateway/conns.py, docs/gateway.md
"Connections and timeouts"): a request head must come within the header timeout and an idle keep-alive
connection is closed; one address holds at most its share of the process's file descriptors, the excess closed
at once, while another address connects and plays at its usual latency; past AIRSHIP_GATEWAY_MAX_SOCKETS a
WebSocket is closed with 1013, counted; every count is released when its connection closes, upgrades included.

The hoarder connects from 127.0.0.1, everyone else from 127.0.0.2 (all of 127.0.0.0/8 is local on Linux)."""

from __future__ import annotations

import os
import statistics
import time
import uuid
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from websockets.exceptions import InvalidStatus
from websockets.sync.client import connect as ws_connect

from tests.gateway.attack_kit import Match, Socket, auth, client, create_match
from tests.gateway.conn_kit import (
    HOARDER,
    OTHER,
    closed_within,
    metric,
    open_conn,
    read_response,
    request,
    seconds_until_closed,
    settled,
)
from tests.gateway.stack import GatewayStack, running_stack, stack_settings
from tests.pipeline.redis_fixtures import wait_until

pytestmark = pytest.mark.redis

TIMEOUT_S = 1.0  # the timed stack's header, keep-alive and socket idle timeouts
MAX_SOCKETS = 5
NOFILE = 512  # the capped stack's file-descriptor limit: per address max(64, 512 / 16) = 64
PER_ADDRESS = 64


@pytest.fixture(scope="module")
def timed(redis_url: str) -> Iterator[GatewayStack]:
    with running_stack(stack_settings(redis_url, "gwtimed"), AIRSHIP_GATEWAY_HEADER_TIMEOUT_S=str(TIMEOUT_S),
                       AIRSHIP_GATEWAY_IDLE_TIMEOUT_S=str(int(TIMEOUT_S)), AIRSHIP_GATEWAY_WS_IDLE_S=str(TIMEOUT_S),
                       AIRSHIP_GATEWAY_MAX_SOCKETS=str(MAX_SOCKETS)) as stack:
        yield stack


@pytest.fixture(scope="module")
def capped(redis_url: str) -> Iterator[GatewayStack]:
    """A gateway whose caps come from its file-descriptor limit (NOFILE), with a header timeout long enough
    that the hoarded connections stay for the whole test."""
    with running_stack(stack_settings(redis_url, "gwcap"), nofile=NOFILE,
                       AIRSHIP_GATEWAY_HEADER_TIMEOUT_S="60") as stack:
        yield stack


def other_client(stack: GatewayStack) -> httpx.Client:
    """An HTTP client connecting from OTHER (the address that is not hoarding)."""
    return client(stack.url, transport=httpx.HTTPTransport(local_address=OTHER))


def latency_s(http: httpx.Client, match: Match) -> float:
    """One command's round trip: out of turn, so rejected, after going through the worker all the same."""
    command = {"idempotency_key": f"k-{uuid.uuid4().hex[:12]}", "type": "take", "body": {"n": 1}}
    started = time.perf_counter()
    answer = http.post(f"/matches/{match.id}/commands", json=command, params={"wait_s": 20},
                       headers=auth(match.tokens[1]))
    assert answer.status_code == 200 and answer.json()["code"] == "not_your_turn", answer.text
    return time.perf_counter() - started


def median_latency_s(stack: GatewayStack, match: Match) -> float:
    with other_client(stack) as http:  # a new connection
        for _ in range(3):
            latency_s(http, match)
        return statistics.median(latency_s(http, match) for _ in range(20))


def open_connections(stack: GatewayStack) -> float:
    """Open connections the gateway counts, less the scrape's own."""
    return metric(stack.url, "airship_gateway_connections") - 1


# -- (1) timeouts ------------------------------------------------------------------------------------------
def test_a_slowloris_head_and_a_silent_connection_are_closed_after_the_header_timeout(timed: GatewayStack) -> None:
    before = metric(timed.url, "airship_gateway_connections_timed_out_total", kind="header")
    silent = open_conn(timed.url, OTHER)
    slow = open_conn(timed.url, OTHER)
    slow.sendall(b"GET /healthz HT")  # half a request line, then one more byte every 0.2 s, never the end
    took = seconds_until_closed(slow, 10.0, trickle=b"TP/1.1\r\nHost: gateway\r\nX-Slow: " + b"a" * 100)
    assert TIMEOUT_S * 0.8 <= took <= TIMEOUT_S + 2.0, took
    assert closed_within(silent, 2.0) is not None
    assert metric(timed.url, "airship_gateway_connections_timed_out_total", kind="header") - before >= 2
    # a later request on a kept-alive connection has the same limit on its head
    kept = open_conn(timed.url, OTHER)
    kept.sendall(request("/healthz"))
    assert b" 200 " in read_response(kept).split(b"\r\n", 1)[0]
    kept.sendall(b"GET /healthz HTTP/1.1\r\n")
    assert seconds_until_closed(kept, 10.0, trickle=b"X-Slow: " + b"a" * 100) <= TIMEOUT_S + 2.0


def test_an_idle_keep_alive_connection_is_closed_after_the_idle_timeout(timed: GatewayStack) -> None:
    before = metric(timed.url, "airship_gateway_connections_timed_out_total", kind="idle")
    conn = open_conn(timed.url, OTHER)
    for _ in range(3):  # keep-alive works while requests come within the idle timeout
        conn.sendall(request("/healthz"))
        assert b'"ok"' in read_response(conn)
        time.sleep(TIMEOUT_S / 2)
    took = seconds_until_closed(conn, 10.0)
    assert took <= TIMEOUT_S + 2.0, took
    assert metric(timed.url, "airship_gateway_connections_timed_out_total", kind="idle") - before >= 1


def test_requests_in_progress_and_subscribed_sockets_outlive_the_timeouts(timed: GatewayStack) -> None:
    with other_client(timed) as http:
        match = create_match(http, "nim", 2)
        version = http.get(f"/matches/{match.id}").json()["version"]
        with Socket(timed.ws_url) as watcher:
            assert watcher.subscribe(match.id)["kind"] == "subscribed"
            watcher.drain(0.3)
            started = time.monotonic()  # a long poll of 3 s: longer than every timeout, answered 204
            answer = http.get(f"/matches/{match.id}/views/me", headers=auth(match.tokens[0]),
                              params={"after_version": version, "wait_s": 3})
            assert answer.status_code == 204 and time.monotonic() - started >= 2.9
            # the subscribed socket outlived the header and socket idle timeouts, and still gets views
            command = {"idempotency_key": "k1", "type": "take", "body": {"n": 1}}
            assert http.post(f"/matches/{match.id}/commands", json=command, params={"wait_s": 20},
                             headers=auth(match.tokens[0])).json()["status"] == "accepted"
            assert watcher.until(lambda m: m["kind"] == "view" and m["version"] > version)


def test_a_websocket_without_a_subscription_is_closed_after_its_idle_limit(timed: GatewayStack) -> None:
    before = metric(timed.url, "airship_gateway_connections_timed_out_total", kind="websocket")
    with Socket(timed.ws_url) as idle:
        started = time.monotonic()
        assert idle.recv(10.0) is None and idle.closed is not None
        took = time.monotonic() - started
    assert idle.closed.rcvd is not None and idle.closed.rcvd.code == 1000, idle.closed
    assert "no subscription" in idle.closed.rcvd.reason
    assert TIMEOUT_S * 0.8 <= took <= TIMEOUT_S + 2.0, took
    assert metric(timed.url, "airship_gateway_connections_timed_out_total", kind="websocket") - before == 1


# -- (3) the process's WebSocket capacity ------------------------------------------------------------------
def test_past_max_sockets_a_new_socket_is_closed_with_1013_and_counted(timed: GatewayStack) -> None:
    with other_client(timed) as http:
        match = create_match(http, "nim", 2, join=False)
    before = metric(timed.url, "airship_gateway_websockets_refused_total")
    held = [Socket(timed.ws_url) for _ in range(MAX_SOCKETS)]
    try:
        for sock in held:  # spectators: subscribed, so the idle limit leaves them open
            assert sock.subscribe(match.id)["kind"] == "subscribed"
        with Socket(timed.ws_url) as extra:
            assert extra.recv(5.0) is None and extra.closed is not None
        assert extra.closed.rcvd is not None and extra.closed.rcvd.code == 1013, extra.closed
        assert "try again later" in extra.closed.rcvd.reason
        assert metric(timed.url, "airship_gateway_websockets_refused_total") - before == 1
        held.pop().close()  # room for one again, once the gateway has seen it go

        def one_more() -> bool:
            with Socket(timed.ws_url) as again:
                return bool(again.subscribe(match.id)["kind"] == "subscribed")

        wait_until(_survives(one_more), timeout_s=10)
    finally:
        for sock in held:
            sock.close()


def _survives(attempt: Any) -> Any:
    def call() -> bool:
        try:
            return bool(attempt())
        except AssertionError:
            return False
    return call


# -- (2) one address's cap ---------------------------------------------------------------------------------
def test_one_address_cannot_hoard_connections_and_others_keep_their_latency(capped: GatewayStack) -> None:
    with other_client(capped) as http:
        match = create_match(http, "nim", 2)
    unloaded = median_latency_s(capped, match)
    wait_until(lambda: open_connections(capped) == 0, timeout_s=10)
    refused_before = metric(capped.url, "airship_gateway_connections_refused_total", reason="address")
    hoard = [open_conn(capped.url, HOARDER, reset=True) for _ in range(PER_ADDRESS * 4)]
    try:
        started = time.monotonic()
        answers = settled(hoard)
        closed = [a for a in answers if a is not None]
        still = [a for a in answers if a is None]
        # the excess was closed at once, with a 503 that says why; the first PER_ADDRESS are open
        assert len(still) == PER_ADDRESS, (len(still), len(closed))
        assert all(a.startswith(b"HTTP/1.1 503 ") and b"too many open connections from this address" in a
                   for a in closed), closed[:2]
        assert answers[:PER_ADDRESS] == [None] * PER_ADDRESS
        assert time.monotonic() - started < 5.0
        late = open_conn(capped.url, HOARDER)
        assert (closed_within(late, 1.0) or b"").startswith(b"HTTP/1.1 503 ")
        late.close()
        try:  # a WebSocket from the hoarder: refused the same way
            ws_connect(capped.ws_url, open_timeout=5, proxy=None).close()
        except InvalidStatus as e:
            assert e.response.status_code == 503
        except Exception:  # the refusal crossed the handshake on the wire: a reset, not the 503
            pass
        else:
            raise AssertionError("a WebSocket from the hoarding address was accepted")
        refused = metric(capped.url, "airship_gateway_connections_refused_total", reason="address") - refused_before
        assert refused == len(closed) + 2, (refused, len(closed))
        assert open_connections(capped) == PER_ADDRESS
        # another address connects as usual and plays at its usual latency
        loaded = median_latency_s(capped, match)
        assert loaded <= max(2 * unloaded, unloaded + 0.05), (unloaded, loaded)
        assert settled(hoard[:PER_ADDRESS], 0) == [None] * PER_ADDRESS  # still held
    finally:
        for conn in hoard:
            conn.close()


# -- (4) counts are released -------------------------------------------------------------------------------
def test_counts_are_released_when_connections_close_upgrades_included(capped: GatewayStack) -> None:
    with other_client(capped) as http:
        match = create_match(http, "nim", 2, join=False)
    for round_ in range(3):
        for _ in range(PER_ADDRESS // 4):  # requests that ask the gateway to close: they come and go
            conn = open_conn(capped.url, HOARDER)
            conn.sendall(b"GET /healthz HTTP/1.1\r\nHost: gateway\r\nConnection: close\r\n\r\n")
            assert closed_within(conn, 5.0) is not None
            conn.close()
        opened: list[Any] = []
        for i in range(PER_ADDRESS):  # every kind of held connection, up to the cap, from the hoarder's address
            kind = i % 3
            if kind == 0:  # idle, closed by the client with a RST
                opened.append(open_conn(capped.url, HOARDER, reset=True))
            elif kind == 1:  # a request, kept alive
                conn = open_conn(capped.url, HOARDER)
                conn.sendall(request("/healthz"))
                assert b'"ok"' in read_response(conn)
                opened.append(conn)
            else:  # a WebSocket (an upgraded HTTP connection), subscribed in all rounds but one
                sock = Socket(capped.ws_url)
                if round_ != 1:
                    assert sock.subscribe(match.id)["kind"] == "subscribed"
                opened.append(sock)
        extra = open_conn(capped.url, HOARDER)  # past the cap, refused
        assert (closed_within(extra, 1.0) or b"").startswith(b"HTTP/1.1 503 ")
        extra.close()
        for thing in opened:
            thing.close()
        wait_until(lambda: open_connections(capped) == 0, timeout_s=15)
    # the cap is whole again: exactly PER_ADDRESS idle connections are accepted, not one more, not one less
    again = [open_conn(capped.url, HOARDER, reset=True) for _ in range(PER_ADDRESS + 1)]
    try:
        answers = settled(again)
        assert answers[:PER_ADDRESS] == [None] * PER_ADDRESS
        assert (answers[PER_ADDRESS] or b"").startswith(b"HTTP/1.1 503 ")
    finally:
        for conn in again:
            conn.close()


# -- the process's connection cap --------------------------------------------------------------------------
def test_many_addresses_fill_the_process_cap_short_of_its_file_descriptor_limit(capped: GatewayStack) -> None:
    total = NOFILE - 64  # the default: the fd limit less a tenth of it, at least 64, of headroom
    gateway = capped.procs[-1].pid
    wait_until(lambda: open_connections(capped) == 0, timeout_s=10)
    before = metric(capped.url, "airship_gateway_connections_refused_total", reason="capacity")
    crowd = [open_conn(capped.url, f"127.0.0.{3 + i // 60}", reset=True) for i in range(total + 32)]  # 60 each
    try:
        answers = settled(crowd)
        assert answers[:total] == [None] * total
        assert all((a or b"").startswith(b"HTTP/1.1 503 ") and b"try again later" in (a or b"")
                   for a in answers[total:]), answers[total:][:2]
        assert len(os.listdir(f"/proc/{gateway}/fd")) < NOFILE - 16  # the headroom is left for Redis and the rest
        for conn in crowd[:10]:
            conn.close()
        # room again (the scrape itself was refused while the process was full): served, never out of descriptors
        wait_until(_survives(lambda: open_connections(capped) < total - 5), timeout_s=10)
        assert metric(capped.url, "airship_gateway_connections_refused_total", reason="capacity") - before >= 32
        with other_client(capped) as http:
            assert http.get("/readyz").status_code == 200
    finally:
        for conn in crowd:
            conn.close()

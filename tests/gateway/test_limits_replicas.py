"""Three ``airship gateway`` processes on one Redis prefix, as replicas behind a balancer, and one client (one
address, one seat token) going round-robin over them: the limits hold across the three, not per process.

The gateways trust one proxy hop (``AIRSHIP_GATEWAY_TRUST_PROXY=1``), so each phase takes its own address from
``X-Forwarded-For``; entries left of the last one are the client's to choose and must change nothing. No worker
or projector runs: the views are long-polled for versions that never come, and commands wait for results that
never come, which is what holding a long-poll means.
"""

from __future__ import annotations

import contextlib
import subprocess
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families
from websockets.exceptions import ConnectionClosed

from services.pipeline.redis_backend import connect, delete_prefix
from services.settings import Settings
from tests.gateway.attack_kit import PROBLEM, Socket, auth, client
from tests.gateway.stack import free_port, spawn_gateway, stack_settings, wait_ready
from tests.pipeline.redis_fixtures import spawn, stop, wait_until

pytestmark = [pytest.mark.gateway, pytest.mark.redis]
RPS, BURST = 10, 40  # per token and per address (bursts of 4 s worth)
ADDR_SOCKETS, TOKEN_SOCKETS, ADDR_LONGPOLLS, TOKEN_LONGPOLLS = 6, 4, 6, 2
NEVER = 10**9  # a version no match reaches here


@dataclass
class Replicas:
    settings: Settings
    urls: list[str]
    match_id: str = ""
    tokens: list[str] = field(default_factory=list)
    procs: list[subprocess.Popen[bytes]] = field(default_factory=list)

    def ws_url(self, i: int) -> str:
        return self.urls[i % 3].replace("http://", "ws://") + "/ws"


@pytest.fixture(scope="module")
def replicas(redis_url: str) -> Iterator[Replicas]:
    settings = stack_settings(redis_url, "limits")
    env = {"AIRSHIP_GATEWAY_TRUST_PROXY": "1", "AIRSHIP_GATEWAY_TOKEN_RPS": str(RPS),
           "AIRSHIP_GATEWAY_ADDR_RPS": str(RPS), "AIRSHIP_GATEWAY_ADDR_SOCKETS": str(ADDR_SOCKETS),
           "AIRSHIP_GATEWAY_SOCKETS": str(TOKEN_SOCKETS), "AIRSHIP_GATEWAY_ADDR_LONGPOLLS": str(ADDR_LONGPOLLS),
           "AIRSHIP_GATEWAY_LONGPOLLS": str(TOKEN_LONGPOLLS), "AIRSHIP_GATEWAY_LIMITS_IDLE_MS": "300"}
    ports = [free_port() for _ in range(3)]
    stack = Replicas(settings, [f"http://127.0.0.1:{p}" for p in ports])
    stack.procs = [spawn_gateway(settings, port, **env) for port in ports]
    worker = spawn(settings)  # creates the match and takes its seats (match.create/join), then goes: no command of
    try:  # the tests below is decided (they wait on them)
        for url, proc in zip(stack.urls, stack.procs, strict=True):
            wait_ready(url, proc)
        with client(stack.urls[0], headers={"X-Forwarded-For": "10.9.0.1"}) as http:
            created = http.post("/matches", json={"game": "nim", "seats": 2})
            assert created.status_code == 201, created.text
            stack.match_id = created.json()["match_id"]
            for seat in range(2):
                joined = http.post(f"/matches/{stack.match_id}/seats", json={"seat": seat})
                assert joined.status_code == 201, joined.text
                stack.tokens.append(joined.json()["token"])
        stop(worker)
        yield stack
    finally:
        stop(worker)
        for proc in stack.procs:
            stop(proc)
        delete_prefix(connect(settings.redis_url), settings.key_prefix)


def flood(stack: Replicas, path: str, headers: dict[str, str], seconds: float,
          spoof: bool = False, rotate: bool = False) -> tuple[int, list[httpx.Response], float]:
    """GET ``path`` as fast as one client can, round-robin over the three gateways, for ``seconds``: how many
    were admitted, the refusals, and the time it took. ``spoof``: a different made-up leftmost X-Forwarded-For
    entry each time (the client's own, before the proxy's); ``rotate``: a different address each time (as the
    proxy saw it: a token used from many addresses). A refusal is held back until the client could have been
    admitted (the tarpit), so a flood is paced much as a polite client."""
    clients = [client(url) for url in stack.urls]
    admitted, refused = 0, []
    started = time.monotonic()
    i = 0
    try:
        while time.monotonic() - started < seconds:
            sent = dict(headers)
            if spoof:
                sent["X-Forwarded-For"] = f"198.51.100.{i % 250}, {headers['X-Forwarded-For']}"
            if rotate:
                sent["X-Forwarded-For"] = f"10.2.{i % 250}.1"
            answer = clients[i % 3].get(path, headers=sent)
            if answer.status_code == 429:
                refused.append(answer)
            else:
                assert answer.status_code in (200, 204), answer.text
                admitted += 1
            i += 1
    finally:
        for c in clients:
            c.close()
    return admitted, refused, time.monotonic() - started


def test_one_client_gets_its_rate_once_not_once_per_gateway(replicas: Replicas) -> None:
    """An address (views/public, no token) and a seat token (views/me, from another address) flooded over the
    three gateways at once for 3 s: each is admitted at most burst + rate * time (the limits are exact while
    Redis answers; three gateways limiting alone would admit three times that), and refused with 429."""
    views = f"/matches/{replicas.match_id}/views"
    with ThreadPoolExecutor(2) as pool:
        by_address = pool.submit(flood, replicas, f"{views}/public", {"X-Forwarded-For": "10.1.0.1"}, 3.0, True)
        by_token = pool.submit(flood, replicas, f"{views}/me",
                               {"X-Forwarded-For": "10.1.0.2", **auth(replicas.tokens[0])}, 3.0, rotate=True)
        results = {"address": by_address.result(), "token": by_token.result()}
    registry = replicas.settings.keys.limits("gateways")
    assert connect(replicas.settings.redis_url).zcard(registry) == 3  # the three share one registry
    for kind, (admitted, refused, elapsed) in results.items():
        allowed = BURST + RPS * elapsed
        assert len(refused) >= 5, (kind, "the client was not refused: it sent too little to tell", admitted)
        # at most what one gateway would admit (3x: ~210; 2x: ~140); at least half the burst (on a loaded machine
        # a flush may miss its deadline, and the request is then decided with this gateway's share, 1/3)
        assert BURST / 2 <= admitted <= allowed + 1, (kind, admitted, allowed)
        for answer in refused[:20]:
            assert answer.headers["content-type"].startswith(PROBLEM) and answer.json()["code"] == "rate_limited"
            assert int(answer.headers["Retry-After"]) >= 1
            assert replicas.settings.key_prefix not in answer.text


def test_a_request_spends_its_address_budget_by_what_it_costs(replicas: Replicas) -> None:
    """Two addresses flood the gateways for 2 s, one with a cheap route (a match's summary, cost 1), the other
    with a dear one (the lobby page, cost 3: services.gateway.limits.COSTS): each gets its budget in units, so
    the dear route is admitted about a third as often, and both within burst + rate * time units."""
    cheap, _, cheap_s = flood(replicas, f"/matches/{replicas.match_id}", {"X-Forwarded-For": "10.1.0.7"}, 2.0)
    dear, refused, dear_s = flood(replicas, "/matches", {"X-Forwarded-For": "10.1.0.8"}, 2.0)
    assert BURST <= cheap <= BURST + RPS * cheap_s + 1, cheap
    assert (BURST - 2) / 3 <= dear <= (BURST + RPS * dear_s) / 3 + 1, dear
    assert refused and refused[0].json()["code"] == "rate_limited"


def _socket(stack: Replicas, i: int, address: str) -> Socket:
    return Socket(stack.ws_url(i), additional_headers={"X-Forwarded-For": address})


def _alive(s: Socket) -> bool:
    """Whether the socket answers a ping (False once the gateway closed it; ``s.closed`` then says how)."""
    with contextlib.suppress(ConnectionClosed):  # closed already: recv records how
        s.send({"kind": "ping", "cid": "p"})
    return (s.recv(10) or {}).get("kind") == "pong"


def test_one_address_holds_its_sockets_once_across_the_gateways(replicas: Replicas) -> None:
    """Nine sockets from one address, round-robin: six stay open, three are closed with 1008; one closed at a
    gateway lets the address open one at another."""
    sockets = [_socket(replicas, i, "10.1.0.3") for i in range(9)]
    try:
        alive = [_alive(s) for s in sockets]
        assert alive == [True] * ADDR_SOCKETS + [False] * 3, alive
        for s in sockets[ADDR_SOCKETS:]:
            assert s.closed is not None and s.closed.rcvd is not None and s.closed.rcvd.code == 1008, s.closed
        sockets[0].close()  # at gateway 0: its slot goes back once that gateway has no use for it

        def reopened_at_gateway_1() -> bool:
            s = _socket(replicas, 1, "10.1.0.3")
            sockets.append(s)
            return _alive(s)

        wait_until(reopened_at_gateway_1, timeout_s=10, every_s=0.2)
        assert all(_alive(s) for s in sockets[1:ADDR_SOCKETS])
    finally:
        for s in sockets:
            s.close()


def test_one_token_holds_its_subscriptions_once_across_the_gateways(replicas: Replicas) -> None:
    sockets = [_socket(replicas, i, "10.1.0.4") for i in range(TOKEN_SOCKETS + 1)]
    try:
        answers = [s.subscribe(replicas.match_id, replicas.tokens[1]).get("kind") for s in sockets[:TOKEN_SOCKETS]]
        assert answers == ["subscribed"] * TOKEN_SOCKETS
        last = sockets[-1]
        last.send({"kind": "subscribe", "match_id": replicas.match_id, "token": replicas.tokens[1], "cid": "sub"})
        assert last.recv(10) is None and last.closed is not None and last.closed.rcvd is not None
        assert last.closed.rcvd.code == 1008, last.closed
    finally:
        for s in sockets:
            s.close()


def _long_poll(url: str, path: str, headers: dict[str, str], **params: Any) -> tuple[int, float, dict[str, Any]]:
    started = time.monotonic()
    with client(url) as http:
        answer = http.get(path, headers=headers, params=params)
    body = answer.json() if answer.headers.get("content-type", "").startswith(PROBLEM) else {}
    return answer.status_code, time.monotonic() - started, body


def test_one_address_holds_its_long_polls_once_across_the_gateways(replicas: Replicas) -> None:
    """Eighteen long-polls from one address at once, six per gateway: six wait (204 after wait_s), twelve are
    refused with 429."""
    path = f"/matches/{replicas.match_id}/views/public"
    headers = {"X-Forwarded-For": "10.1.0.5"}
    with ThreadPoolExecutor(18) as pool:
        polls = list(pool.map(lambda i: _long_poll(replicas.urls[i % 3], path, headers, after_version=NEVER,
                                                   wait_s=2), range(18)))
    waited = [p for p in polls if p[0] == 204]
    refused = [p for p in polls if p[0] == 429]
    assert len(waited) == ADDR_LONGPOLLS and len(refused) == 18 - ADDR_LONGPOLLS, polls
    assert all(seconds >= 1.9 for _, seconds, _ in waited), waited  # they waited: a refusal is not a 204
    assert all(body["code"] == "rate_limited" for _, _, body in refused), refused


def test_one_token_holds_its_long_polls_once_and_commands_waiting_count(replicas: Replicas) -> None:
    """The token's two long-polls are held at two gateways; a third, at the third gateway, is refused, and so
    are a command waiting for its result and a result long-polled; once they end, a command may wait again."""
    token = replicas.tokens[1]
    headers = {"X-Forwarded-For": "10.1.0.6", **auth(token)}
    me = f"/matches/{replicas.match_id}/views/me"
    held: list[tuple[int, float, dict[str, Any]]] = []
    threads = [threading.Thread(target=lambda i=i: held.append(_long_poll(
        replicas.urls[i], me, headers, after_version=NEVER, wait_s=3))) for i in range(TOKEN_LONGPOLLS)]
    for t in threads:
        t.start()
    time.sleep(0.8)
    with client(replicas.urls[2]) as http:
        assert _long_poll(replicas.urls[2], me, headers, after_version=NEVER, wait_s=1)[0] == 429
        command = {"idempotency_key": "k1", "type": "take", "body": {"n": 1}}
        waiting = http.post(f"/matches/{replicas.match_id}/commands", params={"wait_s": 1}, headers=headers,
                            json=command)
        assert waiting.status_code == 429 and waiting.json()["code"] == "rate_limited", waiting.text
        result = http.get(f"/matches/{replicas.match_id}/commands/k1", params={"wait_s": 1}, headers=headers)
        assert result.status_code == 429, result.text
        for t in threads:
            t.join()
        assert [status for status, _, _ in held] == [204] * TOKEN_LONGPOLLS
        # the ended polls' slots go back at once (the token is at its limit): a command may wait at gateway 2

        def waits() -> bool:
            started = time.monotonic()
            later = http.post(f"/matches/{replicas.match_id}/commands", params={"wait_s": 0.5}, headers=headers,
                              json=command)
            assert later.status_code in (202, 429), later.text
            return later.status_code == 202 and time.monotonic() - started >= 0.45  # it waited (no worker here)

        wait_until(waits, timeout_s=3)


def test_the_refusals_of_the_tests_above_are_counted_per_limit(replicas: Replicas) -> None:
    """(After the tests above, which ran into every limit: the module's tests run in order, in one process.)"""
    refusals: dict[str, float] = {}
    for url in replicas.urls:
        text = httpx.get(f"{url}/metrics", timeout=10).text
        for family in text_string_to_metric_families(text):
            for sample in family.samples:
                if sample.name == "airship_gateway_limit_refusals_total":
                    refusals[sample.labels["limit"]] = refusals.get(sample.labels["limit"], 0) + sample.value
    for limit in ("token_rate", "address_rate", "token_sockets", "address_sockets", "token_longpolls",
                  "address_longpolls"):
        assert refusals.get(limit, 0) > 0, refusals

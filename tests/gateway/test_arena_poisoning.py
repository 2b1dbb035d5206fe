"""Arena queue poisoning (issue #35), replayed against a real stack (worker, projector and gateway processes on the
test Redis): five free names queued for a 6-seat Mad Zeppelin match and never collecting their seats capture the
next real player only for the claim time; the match is then dissolved (nothing rated, it never begins), the real
player's ticket goes back to the *front* of the queue and is matched with real players into a match that begins,
and the sybils lose their tickets and may not queue for a while. Beside it: registration is limited per client
address (another address still registers), and a player cannot hold tickets in many games at once."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
import redis

from services.ratings.players import API_KEY_HEADER
from tests.gateway.stack import GatewayStack, running_stack, stack_settings

pytestmark = [pytest.mark.gateway, pytest.mark.redis]
GAME = "mad-zeppelin"
CLAIM_S = 3.0  # AIRSHIP_ARENA_CLAIM_S of the stack (60 s by default)
SWEEP_S = 3.0 + 1.0  # the sweep's grace for the gateways' clocks (SWEEP_GRACE_MS) and its period (SWEEP_EVERY_S)
NO_SHOW_S = 120  # AIRSHIP_ARENA_NO_SHOW_S of the stack
REGISTER_PER_HOUR = 12


@pytest.fixture(scope="module")
def arena_stack(redis_url: str) -> Iterator[GatewayStack]:
    settings = stack_settings(redis_url, "arena")
    with running_stack(settings, AIRSHIP_ARENA_CLAIM_S=str(CLAIM_S), AIRSHIP_ARENA_NO_SHOW_S=str(NO_SHOW_S),
                       AIRSHIP_GATEWAY_REGISTER_PER_HOUR=str(REGISTER_PER_HOUR)) as stack:
        yield stack


@pytest.fixture(scope="module")
def stack(arena_stack: GatewayStack) -> GatewayStack:
    """This module's stack: the conftest's ``r`` looks at it."""
    return arena_stack


def http_from(url: str, address: str = "127.0.0.1") -> httpx.Client:
    """A client whose connections come from ``address`` (any 127.x address reaches the loopback gateway): another
    client address as the gateway's per-address limits count them."""
    return httpx.Client(base_url=url, timeout=40, transport=httpx.HTTPTransport(local_address=address))


def register(http: httpx.Client, name: str) -> str:
    answer = http.post("/players", json={"name": name})
    assert answer.status_code == 201, answer.text
    return str(answer.json()["api_key"])


def queue(http: httpx.Client, key: str, seats: list[int], game: str = GAME) -> httpx.Response:
    return http.post(f"/arena/{game}/queue", json={"seats": seats}, headers={API_KEY_HEADER: key})


def poll(http: httpx.Client, ticket: dict[str, Any], key: str, wait_s: float = 0.0) -> httpx.Response:
    return http.get(ticket["location"], params={"wait_s": wait_s}, headers={API_KEY_HEADER: key})


def until(predicate: Any, timeout_s: float, what: str) -> Any:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what}")


def test_five_sybils_capture_a_real_player_only_for_the_claim_time(arena_stack: GatewayStack,
                                                                     r: redis.Redis) -> None:
    k = arena_stack.settings.keys
    with http_from(arena_stack.url, "127.0.0.3") as sybil_http, http_from(arena_stack.url, "127.0.0.4") as http:
        sybils = {f"sybil{i}": register(sybil_http, f"sybil{i}") for i in range(5)}
        real = {f"real{i}": register(http, f"real{i}") for i in range(7)}
        for name, key in sybils.items():  # queued for 6 seats only; they never poll again (never collect)
            answer = queue(sybil_http, key, [6])
            assert answer.status_code == 201 and answer.json()["status"] == "waiting", (name, answer.text)
        sybil_tickets = [t.decode() for t in r.zrange(k.arena(f"q:{GAME}:6"), 0, -1)]
        assert len(sybil_tickets) == 5

        # The real player arrives: paired at once with the five sybils, its own seat collected by that answer.
        captured_at = time.monotonic()
        first = queue(http, real["real0"], [6]).json()
        assert first["status"] == "matched" and sorted(first["players"]) == sorted([*sybils, "real0"]), first
        assert first["token"] and 0 < first["claim_in_s"] <= CLAIM_S
        poisoned = first["match_id"]
        summary = http.get(f"/matches/{poisoned}").json()
        assert summary["status"] == "open"  # five seats never collected: it cannot begin
        assert http.post(f"/matches/{poisoned}/abandon",
                         headers={"Authorization": f"Bearer {first['token']}"}).status_code == 409
        # The pending match counts among real0's open tickets, so it may hold one more, not more.
        late = queue(http, real["real1"], [6]).json()  # another real player, queued while real0 is captured
        assert late["status"] == "waiting"

        # Within the claim time (and the sweep's grace), a poll of the ticket answers it waiting again.
        def requeued() -> dict[str, Any] | None:
            answer = poll(http, first, real["real0"], wait_s=1.0).json()
            return answer if answer["status"] == "waiting" else None

        again = until(requeued, CLAIM_S + SWEEP_S + 5, "real0's ticket back in the queue")
        captured_s = time.monotonic() - captured_at
        assert captured_s <= CLAIM_S + SWEEP_S + 2, captured_s
        assert again["ticket"] == first["ticket"] and again["requeued"] == 1 and again["match_id"] is None

        # At the front: ahead of real1, who queued before the dissolution.
        front = [t.decode() for t in r.zrange(k.arena(f"q:{GAME}:6"), 0, -1)]
        assert front == [first["ticket"], late["ticket"]], front
        # The poisoned match is dissolved: nobody can take a seat, it never begins, it goes at the archiver's pass.
        assert r.hget(k.meta(poisoned), "status") == b"open" and r.hexists(k.gw(poisoned), "arena_dissolved")
        assert r.zscore(k.match_matches(poisoned, "open"), poisoned) == 1
        refused = sybil_http.post(f"/matches/{poisoned}/seats", headers={API_KEY_HEADER: sybils["sybil0"]}, json={})
        assert refused.status_code == 409 and refused.json()["code"] == "arena_seat_lapsed", refused.text
        assert not r.hexists(k.ratings(f"{GAME}:history"), "real0")  # nothing rated

        # The sybils lost their tickets and may not queue again for a while.
        lapsed = poll(sybil_http, {"location": f"/arena/{GAME}/queue/{sybil_tickets[0]}"}, sybils["sybil0"])
        assert lapsed.status_code == 409 and lapsed.json()["code"] == "arena_seat_lapsed", lapsed.text
        barred = queue(sybil_http, sybils["sybil1"], [6])
        assert barred.status_code == 429 and barred.json()["code"] == "arena_no_show", barred.text
        assert NO_SHOW_S - 10 <= int(barred.headers["retry-after"]) <= NO_SHOW_S

        # Four more real players: real0 (at the front) and real1 are matched with them, and the match begins.
        tickets = {"real0": again, "real1": late}
        for name in ("real2", "real3", "real4", "real5"):
            tickets[name] = queue(http, real[name], [6]).json()
        assert tickets["real5"]["status"] == "matched" and "real0" in tickets["real5"]["players"]
        answers = {name: poll(http, t, real[name]).json() for name, t in tickets.items()}
        match_id = answers["real0"]["match_id"]
        assert {a["match_id"] for a in answers.values()} == {match_id} and match_id != poisoned
        assert sorted(answers["real0"]["players"]) == sorted(tickets)
        until(lambda: http.get(f"/matches/{match_id}").json()["status"] == "running", 10, "the real match to begin")
        assert r.zcard(k.arena("pending")) == 0  # settled as begun: nobody's tickets count as open any more
        assert all(r.zcard(k.arena(f"p:{name}")) == 0 for name in tickets)
        assert queue(http, real["real6"], [6]).json()["status"] == "waiting"  # the queue goes on


def test_registration_is_limited_per_address(arena_stack: GatewayStack) -> None:
    with http_from(arena_stack.url, "127.0.0.5") as one, http_from(arena_stack.url, "127.0.0.6") as other:
        for i in range(REGISTER_PER_HOUR):
            register(one, f"quota{i}")
        refused = one.post("/players", json={"name": "quota-over"})
        assert refused.status_code == 429 and refused.json()["code"] == "registration_quota", refused.text
        assert int(refused.headers["retry-after"]) >= 3600 // REGISTER_PER_HOUR - 1
        assert register(other, "quota-other")  # another address registers
        assert one.post("/players", json={"name": "quota-over"}).status_code == 429  # still not the first


def test_a_player_cannot_hold_tickets_in_many_games(arena_stack: GatewayStack, r: redis.Redis) -> None:
    k = arena_stack.settings.keys
    with http_from(arena_stack.url, "127.0.0.7") as http:
        key, other = register(http, "many"), register(http, "many-other")
        assert http.get(f"/arena/{GAME}").json()["tickets_per_player"] == 2  # AIRSHIP_ARENA_TICKETS_PER_PLAYER
        first = queue(http, key, [5], game="modern-world").json()
        assert first["status"] == "waiting"
        assert queue(http, key, [5], game="moderne-zeiten").json()["status"] == "waiting"
        over = queue(http, key, [5])  # a third game: refused, all games together
        assert over.status_code == 429 and over.json()["code"] == "arena_ticket_limit", over.text
        assert int(over.headers["retry-after"]) >= 1
        # A ticket matched to a match that has not begun still counts; once it begins, it does not.
        assert http.delete(first["location"], headers={API_KEY_HEADER: key}).status_code == 204
        mine = queue(http, key, [2]).json()
        assert mine["status"] == "waiting"
        theirs = queue(http, other, [2]).json()
        assert theirs["status"] == "matched"  # paired with "many": its seat collected, "many"'s not yet
        assert queue(http, key, [3]).status_code == 429
        assert poll(http, mine, key).json()["status"] == "matched"  # collected: the match begins
        until(lambda: http.get(f"/matches/{theirs['match_id']}").json()["status"] == "running", 10, "the match")
        assert r.zcard(k.arena("p:many")) == 1  # the moderne-zeiten ticket only
        assert queue(http, key, [3]).json()["status"] == "waiting"

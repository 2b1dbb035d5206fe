"""The arena (services.ratings.pairing, services.gateway.arena) on the test Redis: the pairing scripts on their own,
then through the gateway in process: queue, long poll, a rated match with its seats reserved and the poller's
seat claimed, expiry, limits, and keys that cannot act for other players."""

from __future__ import annotations

import threading
import time
from typing import Any, cast

import httpx
import pytest
import redis
from fastapi.testclient import TestClient
from prometheus_client import REGISTRY

from services.pipeline.auth import hash_credential
from services.ratings import pairing as arena
from services.ratings.players import API_KEY_HEADER, reservations
from services.settings import Settings
from tests.ratings.arena_kit import Scripts
from tests.ratings.conftest import join, register

pytestmark = pytest.mark.redis


# -- the scripts on their own ---------------------------------------------------------------------------------
@pytest.fixture
def scripts(r: redis.Redis, settings: Settings) -> Scripts:
    return Scripts(r, settings.keys)


def test_pairing_takes_distinct_players_oldest_first(scripts: Scripts) -> None:
    assert scripts.enqueue("a1", "ann", "3") == 1
    assert scripts.enqueue("a2", "ann", "3") == 1  # the same player twice: never in one match
    assert isinstance(scripts.poll("a1", "ann"), arena.Waiting)
    scripts.now += 1
    assert scripts.enqueue("b1", "bob", "3") == 1
    assert isinstance(scripts.poll("b1", "bob"), arena.Waiting)  # ann + bob: 2 distinct of 3
    scripts.now += 1
    assert scripts.enqueue("c1", "cy", "3,2") == 1
    scripts.now += 1
    assert scripts.enqueue("d1", "dee", "3") == 1
    found = scripts.poll("c1", "cy", "m7")
    assert isinstance(found, arena.Matched) and found.match_id == "m7" and not found.created
    assert sorted(found.players) == ["ann", "bob", "cy"]  # cy's first choice, 3 seats, with the oldest two
    assert found.players[found.seat] == "cy"
    for ticket, player in (("a1", "ann"), ("b1", "bob")):  # every ticket of the group says the same
        same = scripts.poll(ticket, player, "other")
        assert isinstance(same, arena.Matched) and same.match_id == "m7" and same.players == found.players
        assert same.players[same.seat] == player
    assert isinstance(scripts.poll("a2", "ann"), arena.Waiting)  # ann's second ticket still waits
    assert isinstance(scripts.poll("d1", "dee"), arena.Waiting)  # ann (a2) and dee: 2 of 3
    assert scripts.r.zcard(scripts.keys.arena("q:nim:3")) == 2
    assert scripts.r.zcard(scripts.keys.arena("q:nim:2")) == 0  # cy's other queue forgot it too


def test_one_player_cannot_fill_a_match(scripts: Scripts) -> None:
    for i in range(4):
        assert scripts.enqueue(f"t{i}", "eve") == 1
    for i in range(4):
        assert isinstance(scripts.poll(f"t{i}", "eve"), arena.Waiting)
    assert scripts.enqueue("t4", "eve") == -1  # a fifth waiting ticket: over the player's limit
    assert scripts.enqueue("b", "bob", limit=4, most=4) == -2  # the queue's own limit
    assert scripts.enqueue("b", "bob") == 1
    found = scripts.poll("b", "bob")
    assert isinstance(found, arena.Matched) and sorted(found.players) == ["bob", "eve"]


def test_unpolled_tickets_expire_and_another_player_cannot_poll_or_leave(scripts: Scripts) -> None:
    assert scripts.enqueue("a", "ann") == 1
    assert scripts.poll("a", "bob") is None and scripts.leave("a", "bob") == 0  # not bob's
    scripts.now += 20_000
    assert isinstance(scripts.poll("a", "ann"), arena.Waiting)  # polled: 30 s more
    scripts.now += 29_000
    assert scripts.enqueue("b", "bob") == 1
    assert isinstance(scripts.poll("b", "bob"), arena.Matched)  # ann's ticket is still alive
    assert scripts.enqueue("c", "cy") == 1
    scripts.now += 31_000
    assert scripts.enqueue("d", "dee") == 1  # cy's ticket expired meanwhile: removed by this very call
    assert isinstance(scripts.poll("d", "dee"), arena.Waiting)
    assert scripts.poll("c", "cy") is None
    assert scripts.r.exists(scripts.keys.arena("t:c")) == 0 and scripts.r.zcard(scripts.keys.arena("p:cy")) == 0
    assert scripts.leave("d", "dee") == 1 and scripts.poll("d", "dee") is None
    assert scripts.leave("b", "bob") == -1  # matched: too late to leave


def test_racing_polls_pair_each_ticket_once(r: redis.Redis, settings: Settings) -> None:
    """Many clients (as many gateway replicas would) poll at once: each ticket lands in exactly one match, every
    match has distinct players, and the tickets of a group agree on it."""
    players = [f"p{i}" for i in range(12)]
    s = Scripts(r, settings.keys)
    for player in players:
        for j in range(2):
            assert s.enqueue(f"{player}t{j}", player, "3,2", limit=4) == 1
    found: dict[str, arena.Matched] = {}
    lock = threading.Lock()

    def run(player: str, ticket: str) -> None:
        client = redis.Redis.from_url(settings.redis_url)
        mine = Scripts(client, settings.keys)
        for _ in range(200):
            got = mine.poll(ticket, player, arena.new_match_id())
            if isinstance(got, arena.Matched):
                with lock:
                    found[ticket] = got
                break
        client.close()

    threads = [threading.Thread(target=run, args=(p, f"{p}t{j}")) for p in players for j in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    groups: dict[str, set[str]] = {}
    for ticket, m in found.items():
        groups.setdefault(m.match_id, set()).add(ticket)
        assert len(set(m.players)) == len(m.players)
    for match_id, tickets in groups.items():
        players_of = {found[t].players[found[t].seat] for t in tickets}
        sample = found[next(iter(tickets))]
        assert len(tickets) == len(sample.players) and players_of == set(sample.players), match_id
        assert sorted(found[t].seat for t in tickets) == list(range(len(sample.players)))
    assert len(found) >= 22  # at most a leftover that found no partner: 24 tickets of 12 players


# -- through the gateway ------------------------------------------------------------------------------------
def queue(http: TestClient, key: str, seats: list[int] | None = None, game: str = "nim") -> httpx.Response:
    answer: httpx.Response = http.post(f"/arena/{game}/queue", json={} if seats is None else {"seats": seats},
                                       headers={API_KEY_HEADER: key})
    return answer


def poll(http: TestClient, location: str, key: str, wait_s: float = 0) -> httpx.Response:
    answer: httpx.Response = http.get(location, params={"wait_s": wait_s}, headers={API_KEY_HEADER: key})
    return answer


def test_queue_pairs_players_into_a_rated_match_with_their_tokens(gateway: TestClient, r: redis.Redis,
                                                                  settings: Settings) -> None:
    keys = {name: register(gateway, name) for name in ("ann", "bob", "cy")}
    before = {name: REGISTRY.get_sample_value(f"airship_arena_{name}_total", {"game": "nim"}) or 0.0
              for name in ("tickets", "matches")}
    first = queue(gateway, keys["ann"], [2])
    assert first.status_code == 201, first.text
    ticket = first.json()
    assert ticket["status"] == "waiting" and ticket["seats"] == [2] and 0 < ticket["expires_in_s"] <= 30
    assert ticket["location"] == f"/arena/nim/queue/{ticket['ticket']}" and ticket["token"] is None
    status = gateway.get("/arena/nim").json()
    assert {q["seats"]: q["waiting"] for q in status["queues"]} == {2: 1, 3: 0, 4: 0}

    result: dict[str, Any] = {}
    waiter = threading.Thread(target=lambda: result.update(poll(gateway, ticket["location"], keys["ann"], 10).json()))
    started = time.monotonic()
    waiter.start()
    time.sleep(0.5)
    second = queue(gateway, keys["bob"])  # bob accepts any seat count (largest first): 2 is there
    waiter.join()
    assert time.monotonic() - started < 5  # the long poll answered when bob came, not at its end
    assert second.status_code == 201, second.text
    bob = second.json()
    assert bob["status"] == "matched" and bob["seats"] == [4, 3, 2]
    assert result["status"] == "matched" and result["match_id"] == bob["match_id"]
    after = {name: REGISTRY.get_sample_value(f"airship_arena_{name}_total", {"game": "nim"}) for name in before}
    assert after == {"tickets": before["tickets"] + 2, "matches": before["matches"] + 1}  # the gateway's metrics
    match_id = bob["match_id"]
    assert sorted(bob["players"]) == ["ann", "bob"] and bob["players"] == result["players"]
    assert {bob["players"][bob["seat"]], result["players"][result["seat"]]} == {"ann", "bob"}

    # the rated-match code path: seats reserved for the players
    meta = cast(dict[bytes, bytes], r.hgetall(settings.keys.meta(match_id)))
    assert reservations(meta) == dict(enumerate(bob["players"]))
    assert meta[b"status"] == b"running"  # both seats claimed by the polls
    for answer in (bob, result):
        assert meta[f"cred:{answer['seat']}".encode()].decode() == hash_credential(answer["token"])
        view = gateway.get(f"/matches/{match_id}/views/me", headers={"Authorization": f"Bearer {answer['token']}"})
        assert view.status_code in (200, 204)  # the token is its seat's (no projector runs here: 204, no view yet)
    again = poll(gateway, ticket["location"], keys["ann"]).json()  # a repeated poll: the same seat and token
    assert (again["match_id"], again["seat"], again["token"]) == (match_id, result["seat"], result["token"])
    links = r.hgetall(settings.keys.seat_players(settings.keys.partition(match_id)))
    assert links[f"{match_id}.{result['seat']}".encode()] == b"ann"
    summary = gateway.get(f"/matches/{match_id}").json()
    assert summary["game"] == "nim" and summary["seats"] == 2 and summary["seats_free"] == []
    # a third player's key cannot take or poll their places, nor leave their tickets
    assert poll(gateway, ticket["location"], keys["cy"]).status_code == 404
    assert gateway.delete(ticket["location"], headers={API_KEY_HEADER: keys["cy"]}).status_code == 404
    assert gateway.delete(ticket["location"], headers={API_KEY_HEADER: keys["ann"]}).status_code == 409


def test_a_key_cannot_act_for_another_players_seat(gateway: TestClient, r: redis.Redis, settings: Settings) -> None:
    keys = {name: register(gateway, name) for name in ("ann", "bob", "eve")}
    ann = queue(gateway, keys["ann"], [2]).json()
    bob = queue(gateway, keys["bob"], [2]).json()
    assert bob["status"] == "matched"
    match_id, ann_seat = bob["match_id"], 1 - bob["seat"]
    # ann has not collected her seat yet: nobody else can take it, neither with another key nor without one
    assert join(gateway, match_id, ann_seat, keys["eve"]).status_code == 403
    assert join(gateway, match_id, ann_seat, keys["bob"]).status_code in (403, 409)
    assert join(gateway, match_id, ann_seat).status_code == 403
    assert poll(gateway, ann["location"], keys["bob"]).status_code == 404  # bob's key: not his ticket
    assert poll(gateway, ann["location"], "ak_" + "0" * 48).status_code == 401
    assert gateway.get(ann["location"]).status_code == 401  # no key
    # bob's token acts for bob's seat only
    token = bob["token"]
    assert gateway.get(f"/matches/{match_id}/views/seat/{ann_seat}",
                       headers={"Authorization": f"Bearer {token}"}).status_code == 403
    mine = poll(gateway, ann["location"], keys["ann"]).json()
    assert mine["seat"] == ann_seat and mine["token"] != token
    assert r.hget(settings.keys.meta(match_id), "status") == b"running"


def test_expiry_limits_and_bad_requests(gateway: TestClient, monkeypatch: pytest.MonkeyPatch) -> None:
    keys = {name: register(gateway, name) for name in ("ann", "bob", "cy")}
    tickets = [queue(gateway, keys["ann"], [3]) for _ in range(arena.TICKETS_PER_PLAYER)]
    assert all(t.status_code == 201 and t.json()["status"] == "waiting" for t in tickets)
    refused = REGISTRY.get_sample_value("airship_arena_refused_total", {"reason": "player_limit"}) or 0.0
    over = queue(gateway, keys["ann"], [3])
    assert over.status_code == 429 and over.json()["code"] == "arena_ticket_limit"  # one key cannot fill it
    assert REGISTRY.get_sample_value("airship_arena_refused_total", {"reason": "player_limit"}) == refused + 1
    assert gateway.delete(tickets[0].json()["location"], headers={API_KEY_HEADER: keys["ann"]}).status_code == 204
    assert queue(gateway, keys["ann"], [3]).status_code == 201  # a place again
    assert queue(gateway, keys["ann"]).status_code == 429
    assert queue(gateway, keys["bob"], [3]).json()["status"] == "waiting"  # ann + bob: 2 of 3, never ann twice
    assert queue(gateway, keys["bob"], [7]).status_code == 422
    assert queue(gateway, keys["bob"], [2], game="no-such-game").status_code == 404
    assert gateway.post("/arena/nim/queue", json={"seats": [2]}).status_code == 401
    assert gateway.post("/arena/nim/queue", json={"seats": [2], "x": 1},
                        headers={API_KEY_HEADER: keys["bob"]}).status_code == 400

    monkeypatch.setattr(arena, "TICKET_TTL_S", 0.5)  # tickets not polled within half a second expire
    short = queue(gateway, keys["bob"], [2]).json()
    kept = poll(gateway, short["location"], keys["bob"], wait_s=0.8).json()  # a long poll keeps it alive
    assert kept["status"] == "waiting"
    time.sleep(0.7)
    assert poll(gateway, short["location"], keys["bob"]).status_code == 404
    assert queue(gateway, keys["cy"], [2]).json()["status"] == "waiting"  # bob's ticket is gone: nobody to meet


# -- the client (services.bots.arena_player) and ``airship arena`` -----------------------------------------------------
class Shared:
    """The test's gateway client lent to an Arena loop (which closes its own client when it ends)."""

    def __init__(self, http: TestClient) -> None:
        self.http = http

    def request(self, *args: Any, **kwargs: Any) -> httpx.Response:
        return self.http.request(*args, **kwargs)

    def close(self) -> None:
        pass


def test_the_arena_client_queues_waits_and_leaves(gateway: TestClient) -> None:
    from services.bots.arena_player import Arena, ArenaSettings

    keys = {name: register(gateway, name) for name in ("ann", "bob")}

    def arena_of(name: str) -> Arena:
        return Arena(ArenaSettings(url="http://testserver", game="nim", api_key=keys[name], seats=(2,), wait_s=0.5))

    ann, bob = arena_of("ann"), arena_of("bob")
    found: dict[str, Any] = {}
    waiter = threading.Thread(target=lambda: found.update(ann=ann._matched(cast(httpx.Client, Shared(gateway)))))
    waiter.start()
    deadline = time.monotonic() + 10
    while gateway.get("/arena/nim").json()["queues"][0]["waiting"] == 0 and time.monotonic() < deadline:
        time.sleep(0.05)
    mine = bob._matched(cast(httpx.Client, Shared(gateway)))
    waiter.join(10)
    assert mine is not None and found["ann"] is not None
    assert mine["match_id"] == found["ann"]["match_id"] and {mine["seat"], found["ann"]["seat"]} == {0, 1}
    assert mine["token"] and found["ann"]["token"] and mine["token"] != found["ann"]["token"]

    # stopping while waiting takes the ticket out of the queue
    waiter = threading.Thread(target=lambda: found.update(stopped=ann._matched(cast(httpx.Client, Shared(gateway)))))
    waiter.start()
    while gateway.get("/arena/nim").json()["queues"][0]["waiting"] == 0 and time.monotonic() < deadline:
        time.sleep(0.05)
    ann.stop()
    waiter.join(10)
    assert found["stopped"] is None
    assert gateway.get("/arena/nim").json()["queues"][0]["waiting"] == 0


def test_arena_cli_refuses_bad_flags(tmp_path: Any) -> None:
    import os
    import subprocess
    import sys

    from tests.pipeline.redis_fixtures import ROOT

    env = {k: v for k, v in os.environ.items() if k != "AIRSHIP_API_KEY"}
    key_file = tmp_path / "key"
    key_file.write_text("ak_" + "0" * 48 + "\n")

    def run(*flags: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "services.cli", "arena", *flags], capture_output=True,
                              text=True, cwd=ROOT, env=env, timeout=60)

    for flags, said in [(("--game", "mad-zeppelin"), "API key"), (("--game", "chess", "--key-file", str(key_file)),
                                                                   "no game chess"),
                        (("--game", "mad-zeppelin", "--key-file", str(key_file), "--seats", "2,x"), "--seats"),
                        (("--game", "mad-zeppelin", "--key-file", str(key_file), "--parallel", "9"), "--parallel"),
                        (("--game", "mad-zeppelin", "--key-file", str(tmp_path / "none")), "cannot read")]:
        done = run(*flags)
        assert done.returncode == 2 and said in done.stderr and not done.stdout, (flags, done.stderr)


def test_a_group_paired_by_a_gateway_that_died_is_created_by_the_next_poll(gateway: TestClient, r: redis.Redis,
                                                                           settings: Settings) -> None:
    """The pairing script ran (the tickets say matched) but its gateway died before creating the match: the next
    poll of any ticket of the group, through any gateway, creates it (once) and hands out the seat."""
    cy_key, dee_key = register(gateway, "cy"), register(gateway, "dee")
    cy = queue(gateway, cy_key, [2]).json()
    dee_ticket = arena.new_ticket()
    scripts = Scripts(r, settings.keys)
    scripts.now = int(time.time() * 1000)
    assert scripts.enqueue(dee_ticket, "dee", "2") == 1
    paired = scripts.poll(dee_ticket, "dee", "deadbeef00000001")  # the script alone: no match created
    assert isinstance(paired, arena.Matched) and not r.exists(settings.keys.meta("deadbeef00000001"))
    got = poll(gateway, cy["location"], cy_key).json()  # cy's poll creates it and claims cy's seat
    assert got["status"] == "matched" and got["match_id"] == "deadbeef00000001"
    meta = cast(dict[bytes, bytes], r.hgetall(settings.keys.meta("deadbeef00000001")))
    assert reservations(meta) == dict(enumerate(paired.players)) and meta[b"status"] == b"open"
    dee = poll(gateway, f"/arena/nim/queue/{dee_ticket}", dee_key).json()  # dee's: the same match, not a new one
    assert dee["match_id"] == "deadbeef00000001" and dee["seat"] == paired.seat
    assert r.hget(settings.keys.meta("deadbeef00000001"), "status") == b"running"


def test_a_dissolved_match_requeues_the_collected_tickets_at_the_front_once(scripts: Scripts, r: redis.Redis,
                                                                             settings: Settings) -> None:
    """SETTLE run twice (two gateways noticing the same deadline) changes the queue once; DISSOLVE on the match's
    slot answers the same collected seats however often it runs, and refuses to act before the deadline."""
    k = settings.keys
    for ticket, player in (("s1", "syb"), ("a1", "ann")):
        assert scripts.enqueue(ticket, player, "2") == 1
    found = scripts.poll("a1", "ann", "mx", claim_ms=5_000)
    assert isinstance(found, arena.Matched) and found.claim_by_ms == scripts.now + 5_000
    assert r.zscore(k.arena("pending"), "mx") == scripts.now + 5_000
    assert scripts.enqueue("a2", "ann", limit=2) == 1  # the matched ticket counts among ann's open ones:
    assert scripts.enqueue("a3", "ann", limit=2) == -1

    meta, open_set = k.meta("mx"), k.match_matches("mx", "open")
    seat = found.seat
    r.hset(meta, mapping={"status": "open", "seats": 2, "arena_claim_by": found.claim_by_ms, f"cred:{seat}": "h"})
    r.zadd(open_set, {"mx": scripts.now})
    dissolve = r.register_script(arena.DISSOLVE)
    assert dissolve(keys=[k.gw("mx")], args=["mx", scripts.now + 4_000]) == [b"early"]
    answers = [dissolve(keys=[k.gw("mx")], args=["mx", scripts.now + 6_000 + i]) for i in range(2)]
    assert answers == [[b"dissolved", str(seat).encode()]] * 2 and r.zscore(open_set, "mx") == 1
    assert r.hget(k.gw("mx"), "arena_dissolved") == str(scripts.now + 6_000).encode()  # the first one's mark

    scripts.now += 6_000
    settled = scripts.settle("mx", "dissolved", str(seat))  # (player, what) in seat order
    assert sorted(zip(settled[::2], settled[1::2], strict=True)) == [("ann", "requeued"), ("syb", "lapsed")]
    assert scripts.settle("mx", "dissolved", str(seat)) == []  # the second gateway: nothing left to do
    assert r.zrange(k.arena("q:nim:2"), 0, -1) == [b"a1", b"a2"]  # ann's requeued ticket ahead of her newer one
    again = scripts.poll("a1", "ann")
    assert isinstance(again, arena.Waiting) and again.requeued == 1
    assert scripts.poll("s1", "syb") == arena.Lapsed("mx")
    assert scripts.enqueue("s2", "syb", "2") == -3  # barred for a while
    scripts.now += 600_001
    assert scripts.enqueue("s2", "syb", "3") == 1

"""Players and rated seats at the gateway (in process, on the test Redis): API keys stored hashed, a seat
linked at join, a rated seat refused without its key, a key that cannot act for another player's seat."""

from __future__ import annotations

import pytest
import redis
from fastapi.testclient import TestClient

from services.ratings.players import key_hash
from services.settings import Settings
from tests.ratings.conftest import join, rated_match, register

pytestmark = pytest.mark.redis


def test_key_shown_once_and_stored_hashed(gateway: TestClient, r: redis.Redis, settings: Settings) -> None:
    key = register(gateway, "ann")
    assert gateway.post("/players", json={"name": "ann"}).status_code == 409
    assert gateway.post("/players", json={"name": "no spaces"}).status_code == 400
    stored = r.hgetall(settings.keys.players("keys"))
    assert stored == {key_hash(key).encode(): b"ann"}
    everything = b"".join(r.dump(k) or b"" for k in r.scan_iter(f"{settings.key_prefix}:*"))
    assert key.encode() not in everything


def test_rated_seat_refused_without_its_key(gateway: TestClient, r: redis.Redis, settings: Settings) -> None:
    ann, bob = register(gateway, "ann"), register(gateway, "bob")
    match_id = rated_match(gateway, "nim", ["ann", "bob"], ann)
    for seat in (0, 1):
        answer = join(gateway, match_id, seat)
        assert answer.status_code == 403 and "API key" in answer.json()["detail"]
    assert join(gateway, match_id).status_code == 409  # no free seat that is not reserved
    assert join(gateway, match_id, 0, "ak_" + "0" * 48).status_code == 401  # not a key of anyone
    joined = join(gateway, match_id, None, bob)  # bob's own reserved seat
    assert joined.status_code == 201 and joined.json()["seat"] == 1
    links = r.hgetall(settings.keys.seat_players(settings.keys.partition(match_id)))
    assert links[f"{match_id}.1".encode()] == b"bob" and f"{match_id}.0".encode() not in links


def test_a_rated_match_offers_no_seat_to_bots_or_strangers(gateway: TestClient) -> None:
    """#30's blocker from the gateway's side: a visitor's two clicks ("fill empty seats with bots" on a rated match)
    are refused, so nothing the bots may not take reaches /bots/wanted; the lobby names the seats' players."""
    ann = register(gateway, "ann")
    register(gateway, "bob")
    match_id = rated_match(gateway, "nim", ["ann", "bob"], ann)
    summary = gateway.get(f"/matches/{match_id}").json()
    assert summary["reserved"] == {"0": "ann", "1": "bob"} and summary["seats_free"] == [0, 1]
    for body, status in (({"bot": "heuristic"}, 409), ({"bot": "random", "seats": [1]}, 403)):
        answer = gateway.post(f"/matches/{match_id}/bots", json=body)
        assert answer.status_code == status, answer.text
    assert gateway.get("/bots/wanted").json()["matches"] == []
    assert gateway.get(f"/matches/{match_id}").json()["bots"] == {}
    open_match = gateway.post("/matches", json={"game": "nim", "seats": 2}).json()["match_id"]
    assert gateway.post(f"/matches/{open_match}/bots", json={"bot": "random"}).status_code == 201
    assert [m["match_id"] for m in gateway.get("/bots/wanted").json()["matches"]] == [open_match]


def test_api_key_cannot_act_for_another_players_seat(gateway: TestClient) -> None:
    ann, bob = register(gateway, "ann"), register(gateway, "bob")
    match_id = rated_match(gateway, "nim", ["ann", "bob"], bob)
    assert join(gateway, match_id, 1, ann).status_code == 403  # bob's seat, ann's key
    assert join(gateway, match_id, 0, ann).status_code == 201
    assert join(gateway, match_id, 0, ann).status_code == 409  # taken
    bob_token = join(gateway, match_id, 1, bob).json()["token"]
    command = {"type": "take", "body": {"n": 1}, "idempotency_key": "k1"}
    for credential in (ann, bob):  # an API key is no seat token, not even for its own player's seat
        answer = gateway.post(f"/matches/{match_id}/commands", json=command,
                              headers={"Authorization": f"Bearer {credential}"})
        assert answer.status_code == 401
    mine = gateway.get(f"/matches/{match_id}/views/seat/0", headers={"Authorization": f"Bearer {bob_token}"})
    assert mine.status_code == 403  # bob's seat token reads no other seat either


def test_rated_match_creation_rules(gateway: TestClient) -> None:
    ann, _ = register(gateway, "ann"), register(gateway, "bob")
    assert gateway.post("/ladder/nim/matches", json={"players": ["ann", "bob"]}).status_code == 401
    cy = register(gateway, "cy")
    assert rated_match_status(gateway, ["ann", "bob"], cy) == 403  # only a player of the match creates it
    assert rated_match_status(gateway, ["ann", "ann"], ann) == 422
    assert rated_match_status(gateway, ["ann", "nobody"], ann) == 422
    assert rated_match_status(gateway, ["ann", "bob", "cy", "dan", "eve"], ann) == 422  # nim takes 2 to 4


def test_anonymous_match_links_a_keyed_seat_once(gateway: TestClient) -> None:
    ann = register(gateway, "ann")
    match_id = gateway.post("/matches", json={"game": "nim", "seats": 3}).json()["match_id"]
    assert join(gateway, match_id, None).status_code == 201  # anonymous seats stay possible
    assert join(gateway, match_id, None, ann).json()["seat"] == 1
    assert join(gateway, match_id, None, ann).status_code == 409  # one seat per player and match


def rated_match_status(gateway: TestClient, players: list[str], key: str) -> int:
    from services.ratings.players import API_KEY_HEADER

    answer = gateway.post("/ladder/nim/matches", json={"players": players}, headers={API_KEY_HEADER: key})
    return int(answer.status_code)


def test_one_address_cannot_register_players_without_end(gateway: TestClient) -> None:
    quota = Settings().gateway_register_per_hour  # the default, per address and hour (AIRSHIP_GATEWAY_REGISTER_...)
    statuses = [gateway.post("/players", json={"name": f"flood-{i}"}).status_code for i in range(quota + 2)]
    assert statuses[:quota] == [201] * quota and statuses[quota:] == [429, 429], statuses
    refused = gateway.post("/players", json={"name": "flood-late"})
    assert refused.status_code == 429 and refused.json()["code"] == "registration_quota"
    assert int(refused.headers["retry-after"]) >= 60  # one registration an hour / quota: minutes, not seconds


def test_a_key_authenticates_only_if_its_players_record_names_it() -> None:
    """#35: an entry ``keys[hash] = name`` added for an existing name (the insert-only write the gateway's user
    keeps) opens nothing: the name's record holds the hash of its own key. Records from before (no ``key``) accept
    the name's key as they did."""
    from services.ratings.players import key_hash, key_is_players, new_api_key, player_record

    mine, forged = new_api_key(), new_api_key()
    record = player_record(1, key_hash(mine))
    assert key_is_players(record, key_hash(mine))
    assert not key_is_players(record, key_hash(forged)) and not key_is_players(None, key_hash(mine))
    assert key_is_players({"created": 1}, key_hash(forged))  # registered before records held their key

"""The synchronous gateway client against a real stack (worker, projector and gateway processes)."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import pytest

from services.client import (
    Conflict,
    Forbidden,
    GatewayClient,
    InvalidOptions,
    NotFound,
    Timeout,
    Unauthorized,
    Unavailable,
)
from tests.client.helpers import dead_url, run_threads
from tests.gateway.stack import GatewayStack

pytestmark = [pytest.mark.redis, pytest.mark.gateway]


@pytest.fixture
def client(gateway_stack: GatewayStack) -> Iterator[GatewayClient]:
    with GatewayClient(gateway_stack.url, timeout_s=10) as c:
        yield c


def _nim(client: GatewayClient, **options: int) -> tuple[str, list[str]]:
    """A running 2-seat nim match joined by ``client``: (match id, tokens by seat)."""
    match = client.create_match("nim", 2, options)
    tokens = [client.join(match.match_id, seat)[1] for seat in range(2)]
    return match.match_id, tokens


def test_games_create_join_and_list(client: GatewayClient) -> None:
    assert "nim" in {g.name for g in client.games()}
    match = client.create_match("nim", 2, {"max_take": 2})
    assert match.status == "open" and match.seats_free == [0, 1] and match.options["max_take"] == 2
    assert match.match_id in {m.match_id for m in client.matches(status="open", game="nim")}
    seat, token = client.join(match.match_id)
    assert seat == 0 and token.startswith("0.")
    assert client.tokens.get(match.match_id, 0) == token
    assert client.join(match.match_id)[0] == 1
    assert client.match(match.match_id).status == "running"


def test_call_with_an_idempotency_key_applies_once(client: GatewayClient) -> None:
    match_id, tokens = _nim(client)
    key = f"k-{uuid.uuid4().hex[:8]}"
    first = client.call(match_id, 0, tokens[0], "take", {"n": 1}, command_id=key)
    assert first.status == "accepted" and first.command_id == key and first.seat == 0, first
    again = client.call(match_id, 0, tokens[0], "take", {"n": 1}, command_id=key)
    assert again == first, "the same key gives the same result"
    log = client.log(match_id, tokens[0])
    assert [e.command_id for e in log.events if e.type == "Taken"] == [key] or \
        len([e for e in log.events if e.type == "Taken"]) == 1
    assert client.wait_result(match_id, key, 5) == first


def test_rejections_come_back_as_results(client: GatewayClient) -> None:
    match_id, tokens = _nim(client)
    result = client.call(match_id, 1, tokens[1], "take", {"n": 1})
    assert result.status == "rejected" and result.code == "not_your_turn"
    bad = client.call(match_id, 0, tokens[0], "take", {"n": 99})
    assert bad.status == "rejected" and bad.code in ("bad_command", "illegal_move")


def test_send_then_wait_result(client: GatewayClient) -> None:
    match_id, tokens = _nim(client)
    key = client.send(match_id, 0, tokens[0], "take", {"n": 2})
    result = client.wait_result(match_id, key, 10)
    assert result.status == "accepted" and result.command_id == key


def test_views_long_poll_and_subscribe(client: GatewayClient) -> None:
    match_id, tokens = _nim(client)
    public = client.wait_view(match_id, "public", client.match(match_id).version, 10)
    mine = client.wait_view(match_id, 0, public.version, 10)  # the held token
    assert mine.key == "0" and mine.legal and mine.view["secret"] is not None
    assert public.view["secret"] is None
    with pytest.raises(Timeout):
        client.wait_view(match_id, "public", public.version + 1, 1.0)

    def play() -> None:
        with GatewayClient(client.url) as player:
            version = public.version
            while not (now := player.wait_view(match_id, "public", version, 10)).view["finished"]:
                seat = now.view["to_act"][0]
                record = player.wait_view(match_id, seat, now.version, 10, token=tokens[seat])
                version = player.call(match_id, seat, tokens[seat], "take", record.legal[-1]["body"], 10).version

    def watch() -> list[int]:
        with GatewayClient(client.url) as spectator:
            return [r.version for r in spectator.subscribe(match_id, "public", public.version, timeout_s=20)]

    versions, _ = run_threads([watch, play])
    assert not isinstance(versions, BaseException), versions
    assert versions == sorted(set(versions)) and versions[0] > public.version
    final = client.view(match_id, "public")
    assert final is not None and final.view["finished"] and final.version == versions[-1]


def test_log_as_each_seat_sees_it(client: GatewayClient) -> None:
    match_id, tokens = _nim(client)
    mine = client.log(match_id, tokens[0])
    assert mine.perspective == "seat:0"
    secrets = {e.body.get("seat"): e.body for e in mine.events if e.type == "SecretDealt"}
    assert "secret" in secrets[0] and "secret" not in secrets[1]
    with pytest.raises((Unauthorized, Forbidden)):
        client.log(match_id)  # a running match's log needs a seat token
    later = client.log(match_id, tokens[0], after_version=2)
    assert [e.version for e in later.events] == [e.version for e in mine.events if e.version > 2]


def test_errors_are_typed_and_one_line(client: GatewayClient) -> None:
    with pytest.raises(NotFound) as missing:
        client.match("no-such-match")
    assert missing.value.status == 404 and missing.value.code == "not_found" and "\n" not in str(missing.value)
    with pytest.raises(NotFound):
        client.view("no-such-match")
    with pytest.raises(NotFound):
        client.wait_view("no-such-match", "public", 1, 2)
    with pytest.raises(InvalidOptions):
        client.create_match("no-such-game", 2)
    with pytest.raises(InvalidOptions):
        client.create_match("nim", 2, seed=3)
    match_id, _ = _nim(client)
    with pytest.raises(Conflict):
        client.join(match_id, 0)
    wrong = "0." + "0" * 48
    with pytest.raises(Unauthorized):
        client.call(match_id, 0, wrong, "take", {"n": 1})
    with pytest.raises(Unauthorized):
        client.view(match_id, 0, token=wrong)
    _, other_tokens = _nim(client)
    with pytest.raises((Forbidden, Unauthorized)):
        client.call(match_id, 0, other_tokens[0], "take", {"n": 1})


def test_a_dead_gateway_is_unavailable() -> None:
    with GatewayClient(dead_url(), timeout_s=2) as dead:
        with pytest.raises(Unavailable) as e:
            dead.games()
        assert "cannot be reached" in str(e.value) and isinstance(e.value, ConnectionError)
        with pytest.raises(Unavailable):
            dead.call("m", 0, "0." + "0" * 48, "take", {"n": 1})

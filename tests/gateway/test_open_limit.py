"""Creating matches nobody joins cannot fill Redis: the gateway holds at most ``AIRSHIP_MAX_OPEN_MATCHES`` open
matches (per partition its share), refusing more with 503 and Retry-After, and makes room again as soon as one
begins (the archiver removes the ones never filled: tests/archive/test_expiry.py)."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from tests.gateway.stack import GatewayStack, running_stack, stack_settings

pytestmark = pytest.mark.redis

LIMIT = 8  # 4 partitions: 2 open matches each


@pytest.fixture(scope="module")
def small_stack(redis_url: str) -> Iterator[GatewayStack]:
    with running_stack(stack_settings(redis_url, "gwopen"), AIRSHIP_MAX_OPEN_MATCHES=str(LIMIT)) as stack:
        yield stack


def test_open_matches_are_bounded_and_room_comes_back(small_stack: GatewayStack) -> None:
    with httpx.Client(base_url=small_stack.url, timeout=30.0) as http:
        created: list[str] = []
        refusals = []
        for _ in range(60):  # far more than the limit: every partition fills up
            answer = http.post("/matches", json={"game": "nim", "seats": 2})
            if answer.status_code == 201:
                created.append(answer.json()["match_id"])
            else:
                refusals.append(answer)
        assert len(created) == LIMIT, len(created)
        assert refusals and all(a.status_code == 503 for a in refusals)
        assert refusals[0].headers["Retry-After"] == "60"
        assert "waiting for players already" in refusals[0].json()["detail"]
        open_now = http.get("/matches", params={"status": "open", "limit": 200}).json()["matches"]
        assert sorted(m["match_id"] for m in open_now) == sorted(created)

        for seat in range(2):  # one match begins: its partition has room for one more
            assert http.post(f"/matches/{created[0]}/seats", json={"seat": seat}).status_code == 201
        again = [http.post("/matches", json={"game": "nim", "seats": 2}) for _ in range(60)]
        assert sum(a.status_code == 201 for a in again) == 1

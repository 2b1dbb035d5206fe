"""The bot SDK drives seats over the client library, with a worker and a projector running in threads."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any

import pytest

from services.bots.base import RandomBot
from services.bots.sdk import SeatRunner
from services.pipeline.direct import DirectClient
from services.pipeline.memory import MemoryBackend
from tests.pipeline.threaded import running_service


@pytest.fixture
def service() -> Iterator[MemoryBackend]:
    with running_service() as backend:
        yield backend


def _play(client: DirectClient, runners_for: Any) -> tuple[str, list[SeatRunner]]:
    meta = client.create_match("nim", 2, seed=9)
    runners = [runners_for(meta.match_id, seat, client.join(meta.match_id, seat)[1]) for seat in range(2)]
    threads = [threading.Thread(target=r.run, daemon=True) for r in runners]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert not any(t.is_alive() for t in threads), "a bot did not finish"
    return meta.match_id, runners


def test_bots_play_a_match_to_the_end(service: MemoryBackend) -> None:
    client = DirectClient(service, poll_ms=20)
    match_id, runners = _play(client, lambda m, s, c: SeatRunner(client, m, s, c, RandomBot(s), timeout_s=10))
    assert all(r.final is not None and r.final.view["finished"] for r in runners)
    accepted = sum(1 for r in runners for res in r.stats.results if res.status == "accepted")
    taken = [e for e in service.store.read_log(match_id) if e.type == "Taken"]
    assert accepted == len(taken)


class FlakyClient(DirectClient):
    """Drops the 'connection' right after sending every third command: the result never arrives."""

    def __init__(self, backend: MemoryBackend) -> None:
        super().__init__(backend, poll_ms=20)
        self.sent = 0

    def call(self, *args: Any, **kwargs: Any) -> Any:
        command_id = self.send(*args[:5], command_id=kwargs.get("command_id"))
        self.sent += 1
        if self.sent % 3 == 0:
            raise ConnectionError("connection reset")
        return self.wait_result(args[0], command_id, kwargs.get("timeout_s", args[5] if len(args) > 5 else 10))


def test_reconnecting_bots_neither_lose_nor_repeat_a_decision(service: MemoryBackend) -> None:
    client = DirectClient(service, poll_ms=20)

    def make(match_id: str, seat: int, credential: str) -> SeatRunner:
        flaky = FlakyClient(service)
        return SeatRunner(flaky, match_id, seat, credential, RandomBot(seat), timeout_s=10,
                          reconnect=lambda: FlakyClient(service))

    match_id, runners = _play(client, make)
    assert all(r.final is not None for r in runners)
    assert sum(r.stats.reconnects for r in runners) >= 1
    log = service.store.read_log(match_id)
    takes = [e for e in log if e.type == "Taken"]
    ids = [e.command_id for e in takes]
    assert len(ids) == len(set(ids)), "a decision was applied twice"
    rejected = [res for r in runners for res in r.stats.results if res.status != "accepted"]
    assert not rejected, rejected


class EveryOtherLost(DirectClient):
    """Drops the 'connection' right after sending every other command of a seat, counted over all its connections
    (``sent``, shared): never two lost in a row, many over a match."""

    def __init__(self, backend: MemoryBackend, sent: list[int]) -> None:
        super().__init__(backend, poll_ms=20)
        self.sent = sent

    def call(self, *args: Any, **kwargs: Any) -> Any:
        result = super().call(*args, **kwargs)
        self.sent[0] += 1
        if self.sent[0] % 2:
            raise ConnectionError("connection reset")
        return result


def test_separate_outages_do_not_add_up_to_giving_up(service: MemoryBackend) -> None:
    """``max_reconnects`` counts lost connections in a row: a seat that loses one every other command, many in all
    over a match, plays on (it counted them over the whole match, and gave up at the limit)."""
    client = DirectClient(service, poll_ms=20)

    def make(match_id: str, seat: int, credential: str) -> SeatRunner:
        sent = [0]
        return SeatRunner(EveryOtherLost(service, sent), match_id, seat, credential, RandomBot(seat), timeout_s=10,
                          reconnect=lambda: EveryOtherLost(service, sent), max_reconnects=1)

    _, runners = _play(client, make)
    assert all(r.final is not None for r in runners), "a seat gave up"
    assert max(r.stats.reconnects for r in runners) >= 2


class TakenNotAppliedClient(DirectClient):
    """Every third command is taken by the service, as the gateway takes it (its key and its command recorded),
    and the connection drops before it is published, as if the worker that would apply it had died: the view does
    not move, so the seat answers the same version again. Like the gateway, an id sent again must carry the same
    command (409 idempotency_key_reused otherwise)."""

    taken: dict[str, tuple[str, Any]] = {}

    def __init__(self, backend: MemoryBackend) -> None:
        super().__init__(backend, poll_ms=20)
        self.calls = 0

    def call(self, match_id: str, seat: int, credential: str | None, type: str, body: Any, timeout_s: float = 10.0,
             command_id: str | None = None) -> Any:
        first = self.taken.setdefault(f"{match_id}/{command_id}", (type, dict(body)))
        assert first == (type, dict(body)), f"{command_id} sent again as another command: {first}, then {type} {body}"
        self.calls += 1
        if self.calls % 3 == 0:
            raise ConnectionError("connection reset")
        return super().call(match_id, seat, credential, type, body, timeout_s, command_id)


def test_a_resend_after_a_lost_answer_is_the_same_command(service: MemoryBackend) -> None:
    """A bot that would choose otherwise the second time (a random one) sends the command in hand again."""
    client = DirectClient(service, poll_ms=20)
    TakenNotAppliedClient.taken = {}

    def make(match_id: str, seat: int, credential: str) -> SeatRunner:
        return SeatRunner(TakenNotAppliedClient(service), match_id, seat, credential, RandomBot(seat), timeout_s=10,
                          reconnect=lambda: TakenNotAppliedClient(service))

    _, runners = _play(client, make)
    assert all(r.final is not None for r in runners), "a seat gave up (a key sent again as another command)"
    assert sum(r.stats.reconnects for r in runners) >= 2


def test_play_seat_joins_a_free_seat_and_plays_it_to_the_end(service: MemoryBackend) -> None:
    from services.bots.examples.greedy import Greedy
    from services.bots.sdk import play_seat

    client = DirectClient(service, poll_ms=20)
    meta = client.create_match("nim", 2, seed=4)
    threads = [threading.Thread(target=play_seat, args=(client, meta.match_id, bot), kwargs={"timeout_s": 10},
                                daemon=True) for bot in (Greedy(), RandomBot(1))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert not any(t.is_alive() for t in threads)
    final = client.view(meta.match_id, "public")
    assert final is not None and final.view["finished"]


def test_play_seat_waits_until_every_seat_is_taken(service: MemoryBackend) -> None:
    from services.bots.sdk import play_seat

    client = DirectClient(service, poll_ms=20)
    meta = client.create_match("nim", 2, seed=5)
    first = threading.Thread(target=play_seat, args=(client, meta.match_id, RandomBot(0)), kwargs={"timeout_s": 10},
                             daemon=True)
    first.start()
    first.join(0.3)
    assert first.is_alive()  # waiting for the second player, not burning its attempts on rejections
    play_seat(client, meta.match_id, RandomBot(1), timeout_s=10)
    first.join(10)
    assert not first.is_alive()
    final = client.view(meta.match_id, "public")
    assert final is not None and final.view["finished"]


class LaggingViews:
    """A client whose seat view lags behind the match: the stale view (version 5) still offers a move that
    the service, already at version 7 (another seat acted first), rejects."""

    def __init__(self) -> None:
        from schemas.envelopes import ViewRecord

        self.asked: list[int] = []
        self.stale = ViewRecord(match_id="m", key="0", version=5, view={"finished": False},
                                legal=[{"type": "take", "body": {"n": 1}}])
        self.final = ViewRecord(match_id="m", key="0", version=7, view={"finished": True})

    def wait_view(self, match_id: str, key: Any, min_version: int = 0, timeout_s: float = 30.0,
                  token: str | None = None) -> Any:
        self.asked.append(min_version)
        return self.stale if min_version <= 5 else self.final

    def call(self, *args: Any, **kwargs: Any) -> Any:
        from schemas.envelopes import CommandResult

        return CommandResult(command_id=kwargs["command_id"], match_id="m", seat=0, status="rejected", version=7,
                             code="not_your_turn", reason="it is not your turn")


def test_after_a_rejection_the_bot_decides_on_the_view_the_service_judged_by() -> None:
    client = LaggingViews()
    runner = SeatRunner(client, "m", 0, "cred", RandomBot(0))  # type: ignore[arg-type]
    final = runner.run()
    assert final.version == 7 and runner.stats.rejected == 1
    assert client.asked == [1, 7], "after the rejection it waits for version 7, not the stale view again"

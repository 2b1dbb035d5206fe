"""The backend contract: one test suite, run against every backend by subclasses that only say how to
make one (a ``backend`` fixture). The in-process backend and Redis must behave the same."""

from __future__ import annotations

import time
from typing import Any

import pytest
from prometheus_client import REGISTRY

from schemas.codec import pack, unpack
from schemas.envelopes import CommandEnvelope, CommandResult, EventEnvelope, MatchMeta, ViewRecord
from services.pipeline.direct import DirectClient
from services.pipeline.lobby import create_match, join
from services.pipeline.ports import AppendStatus, Backend
from services.pipeline.projector import Projector
from services.pipeline.worker import Worker, WorkerSettings


def meta(match_id: str = "m1", seats: int = 2) -> MatchMeta:
    return MatchMeta(match_id=match_id, game="nim", seats=seats, seed=1, status="open")


def event(match_id: str, version: int, **body: Any) -> EventEnvelope:
    return EventEnvelope(match_id=match_id, version=version, type="Noted", body=body)


def accepted(command_id: str, match_id: str, version: int) -> CommandResult:
    return CommandResult(command_id=command_id, match_id=match_id, status="accepted", version=version)


def command(match_id: str, seat: int, n: int = 1, cid: str = "c1", type: str = "take") -> bytes:
    """An envelope as the gateway publishes it: the seat authenticated and stamped, no credential."""
    return pack(CommandEnvelope(command_id=cid, match_id=match_id, seat=seat, type=type, body={"n": n}))


def sample(name: str) -> float:
    return REGISTRY.get_sample_value(name) or 0.0


class BackendContract:
    """Subclasses provide the ``backend`` fixture and :meth:`add_raw`."""

    def add_raw(self, backend: Any, stream: str, match_id: str, data: bytes | None) -> None:
        """Add an entry to the match's partition ``stream`` ("commands" or "feed") as something other than
        the pipeline might: ``data`` as its payload, or (None) an entry without the payload field."""
        raise NotImplementedError

    def _dead(self, backend: Any, feed: bool = False) -> list[tuple[bytes, str]]:
        letters = backend.store.feed_dead_letters if feed else backend.bus.dead_letters
        return [letter for p in range(backend.store.partitions) for letter in letters(p)]

    def _pending(self, backend: Any, feed: bool = False) -> int:
        pending = backend.store.feed_pending() if feed else backend.bus.pending()
        return sum(p.count for p in pending.values())

    # -- command bus ---------------------------------------------------------------------------
    def test_published_commands_are_read_once_by_the_group(self, backend: Backend) -> None:
        backend.bus.publish("m1", b"a")
        backend.bus.publish("m2", b"b")
        first = backend.bus.read("w1", 10, 100)
        assert sorted(d.data for d in first) == [b"a", b"b"]
        assert backend.bus.read("w2", 10, 50) == []

    def test_unacknowledged_commands_are_claimed_by_another_consumer(self, backend: Backend) -> None:
        backend.bus.publish("m1", b"a")
        (taken,) = backend.bus.read("dead-worker", 10, 100)
        (claimed,) = backend.bus.claim_stale("live-worker", 0, 10)
        assert claimed.data == b"a" and claimed.deliveries == 2
        backend.bus.ack(claimed)
        assert backend.bus.claim_stale("third", 0, 10) == []
        del taken

    def test_claim_leaves_recent_pending_commands_alone(self, backend: Backend) -> None:
        backend.bus.publish("m1", b"a")
        backend.bus.read("w1", 10, 100)
        assert backend.bus.claim_stale("w2", 60_000, 10) == []

    def test_lag_counts_undelivered_commands(self, backend: Backend) -> None:
        for i in range(3):
            backend.bus.publish("m1", bytes([i]))
        assert sum(backend.bus.lag().values()) == 3
        backend.bus.read("w1", 2, 100)
        assert sum(backend.bus.lag().values()) == 1

    # -- event store ---------------------------------------------------------------------------
    def test_create_match_refuses_a_taken_id(self, backend: Backend) -> None:
        assert backend.store.create_match(meta(), [event("m1", 1)])
        assert not backend.store.create_match(meta(), [])
        assert backend.store.version("m1") == 1

    def test_seats_are_claimed_once_and_the_match_runs_when_full(self, backend: Backend) -> None:
        backend.store.create_match(meta(), [])
        first = backend.store.claim_seat("m1", 0, "h0")
        assert first is not None and first.status == "open"
        assert backend.store.claim_seat("m1", 0, "other") is None
        full = backend.store.claim_seat("m1", 1, "h1")
        assert full is not None and full.status == "running"
        assert full.credential_hashes == {0: "h0", 1: "h1"}
        assert backend.store.claim_seat("m1", 5, "h") is None

    def test_append_checks_the_expected_version(self, backend: Backend) -> None:
        backend.store.create_match(meta(), [event("m1", 1)])
        conflict = backend.store.append("m1", 0, [event("m1", 1)], accepted("c1", "m1", 1))
        assert conflict.status is AppendStatus.CONFLICT and conflict.version == 1
        ok = backend.store.append("m1", 1, [event("m1", 2), event("m1", 3)], accepted("c1", "m1", 3))
        assert ok.status is AppendStatus.APPENDED and ok.version == 3
        assert [e.version for e in backend.store.read_log("m1")] == [1, 2, 3]
        assert [e.version for e in backend.store.read_log("m1", after=1, limit=1)] == [2]

    def test_append_returns_the_earlier_result_for_a_seen_command(self, backend: Backend) -> None:
        backend.store.create_match(meta(), [])
        backend.store.append("m1", 0, [event("m1", 1)], accepted("c1", "m1", 1))
        again = backend.store.append("m1", 1, [event("m1", 2)], accepted("c1", "m1", 2))
        assert again.status is AppendStatus.DUPLICATE
        assert again.result == accepted("c1", "m1", 1)
        assert backend.store.version("m1") == 1
        assert backend.store.result("m1", "c1") == accepted("c1", "m1", 1)

    def test_results_are_streamed_per_match(self, backend: Backend) -> None:
        backend.store.create_match(meta(), [])
        backend.store.append("m1", 0, [event("m1", 1)], accepted("c1", "m1", 1))
        backend.store.append("m1", 1, [event("m1", 2)], accepted("c2", "m1", 2))
        results = backend.store.read_results("m1", "0", 100)
        assert [r.command_id for _, r in results] == ["c1", "c2"]
        assert backend.store.read_results("m1", results[-1][0], 10) == []

    def test_finishing_append_marks_the_match_finished(self, backend: Backend) -> None:
        backend.store.create_match(meta(), [])
        backend.store.append("m1", 0, [event("m1", 1)], accepted("c1", "m1", 1), finished=True)
        found = backend.store.meta("m1")
        assert found is not None and found.status == "finished"
        assert [m.match_id for m in backend.store.list_matches("finished")] == ["m1"]

    def test_appended_events_reach_the_feed_in_order(self, backend: Backend) -> None:
        backend.store.create_match(meta(), [event("m1", 1)])
        backend.store.append("m1", 1, [event("m1", 2)], accepted("c1", "m1", 2))
        feed = backend.store.read_feed("p1", 10, 100)
        assert [unpack(EventEnvelope, d.data).version for d in feed] == [1, 2]
        for delivery in feed:
            backend.store.ack_feed(delivery)
        assert backend.store.claim_stale_feed("p2", 0, 10) == []

    # -- views ---------------------------------------------------------------------------------
    def test_views_are_written_only_when_newer_and_announced(self, backend: Backend) -> None:
        backend.store.create_match(meta(), [])
        newer = ViewRecord(match_id="m1", key="public", version=2, view={"x": 2})
        older = ViewRecord(match_id="m1", key="public", version=1, view={"x": 1})
        backend.views.put_views("m1", [newer])
        backend.views.put_views("m1", [older])
        assert backend.views.get_view("m1", "public") == newer
        updates = backend.views.read_updates("m1", "0", 100)
        assert [(key, version) for _, key, version in updates] == [("public", 2)]

    # -- the whole pipeline ----------------------------------------------------------------------
    def _running(self, backend: Backend, seats: int = 2) -> tuple[str, list[str]]:
        m = create_match(backend.store, "nim", seats, seed=3, match_id="nim1")
        return m.match_id, [join(backend.store, m.match_id, s)[1] for s in range(seats)]

    def _work(self, backend: Backend, worker: Worker | None = None) -> None:
        worker = worker or Worker(backend.bus, backend.store, "w", WorkerSettings(block_ms=10))
        while worker.run_once(block_ms=10):
            pass

    def test_a_command_is_applied_at_most_once(self, backend: Backend) -> None:
        match_id, _ = self._running(backend)
        before = backend.store.version(match_id)
        backend.bus.publish(match_id, command(match_id, 0, cid="same"))
        backend.bus.publish(match_id, command(match_id, 0, cid="same"))
        self._work(backend)
        assert backend.store.version(match_id) == before + 1

    def test_a_worker_killed_before_ack_loses_nothing(self, backend: Backend) -> None:
        match_id, _ = self._running(backend)
        before = backend.store.version(match_id)
        backend.bus.publish(match_id, command(match_id, 0))
        backend.bus.read("killed", 10, 100)  # taken, never handled
        survivor = Worker(backend.bus, backend.store, "survivor",
                          WorkerSettings(block_ms=10, claim_idle_ms=0, claim_every_s=0))
        survivor.run_once(block_ms=10)
        assert backend.store.version(match_id) == before + 1
        result = backend.store.result(match_id, "c1")
        assert result is not None and result.status == "accepted"

    def test_a_worker_killed_after_append_applies_nothing_twice(self, backend: Backend) -> None:
        match_id, _ = self._running(backend)
        backend.bus.publish(match_id, command(match_id, 0))
        first = Worker(backend.bus, backend.store, "first", WorkerSettings(block_ms=10))
        (delivery,) = backend.bus.read("first", 10, 100)
        first.handle(delivery.data)  # appended, but the worker dies before acknowledging
        version = backend.store.version(match_id)
        second = Worker(backend.bus, backend.store, "second",
                        WorkerSettings(block_ms=10, claim_idle_ms=0, claim_every_s=0))
        second.run_once(block_ms=10)
        assert backend.store.version(match_id) == version
        assert sum(backend.bus.lag().values()) == 0 and backend.bus.claim_stale("x", 0, 10) == []

    def test_a_command_failing_repeatedly_goes_to_dead_letters_with_a_rejection(self, backend: Backend) -> None:
        match_id, _ = self._running(backend)
        before = backend.store.version(match_id)
        backend.bus.publish(match_id, command(match_id, 0, type="explode"))
        worker = Worker(backend.bus, backend.store, "w",
                        WorkerSettings(block_ms=10, claim_idle_ms=0, claim_every_s=0, max_deliveries=3))
        for _ in range(6):
            worker.run_once(block_ms=10)
        result = backend.store.result(match_id, "c1")
        assert result is not None and result.status == "rejected" and result.code == "failed"
        assert backend.store.version(match_id) == before
        assert backend.bus.claim_stale("x", 0, 10) == []

    @pytest.mark.parametrize("credential_of", [1, None, "mangled"])
    def test_a_trusted_client_publishes_nothing_for_a_wrong_credential(
        self, backend: Backend, credential_of: int | str | None
    ) -> None:
        match_id, creds = self._running(backend)
        before = backend.store.version(match_id)
        credential = creds[credential_of] if isinstance(credential_of, int) else credential_of
        if credential_of == "mangled":
            credential = creds[0][:-1] + ("0" if creds[0][-1] != "0" else "1")
        result = DirectClient(backend, poll_ms=20).call(match_id, 0, credential, "take", {"n": 1}, 5)
        assert result.status == "rejected" and result.code == "unauthorized"
        assert sum(backend.bus.lag().values()) == 0, "nothing reached the command stream"
        assert backend.store.version(match_id) == before

    @pytest.mark.parametrize(
        ("seat", "cid_type", "code"),
        [
            (1, "take", "not_your_turn"),
            (0, "jump", "bad_command"),
            (7, "take", "bad_command"),
        ],
    )
    def test_bad_commands_are_rejected_and_change_nothing(
        self, backend: Backend, seat: int, cid_type: str, code: str
    ) -> None:
        match_id, _ = self._running(backend)
        before = backend.store.version(match_id)
        backend.bus.publish(match_id, command(match_id, seat, type=cid_type))
        self._work(backend)
        result = backend.store.result(match_id, "c1")
        assert result is not None and result.status == "rejected" and result.code == code, result
        assert result.reason
        assert backend.store.version(match_id) == before

    def test_a_stale_expected_version_is_a_conflict_rejection(self, backend: Backend) -> None:
        match_id, _ = self._running(backend)
        before = backend.store.version(match_id)
        stale = CommandEnvelope(command_id="c1", match_id=match_id, seat=0, type="take", body={"n": 1},
                                expected_version=before - 1)
        backend.bus.publish(match_id, pack(stale))
        self._work(backend)
        result = backend.store.result(match_id, "c1")
        assert result is not None and result.status == "rejected" and result.code == "conflict", result
        assert backend.store.version(match_id) == before

    def test_a_future_expected_version_is_its_own_rejection(self, backend: Backend) -> None:
        match_id, _ = self._running(backend)
        before = backend.store.version(match_id)
        ahead = CommandEnvelope(command_id="c1", match_id=match_id, seat=0, type="take", body={"n": 1},
                                expected_version=before + 1)
        backend.bus.publish(match_id, pack(ahead))
        self._work(backend)
        result = backend.store.result(match_id, "c1")
        assert result is not None and result.status == "rejected" and result.code == "future_version", result
        assert result.reason == f"the match is at version {before}; expected_version {before + 1} has not happened"
        assert backend.store.version(match_id) == before

    def test_garbage_never_stops_the_worker(self, backend: Backend) -> None:
        match_id, _ = self._running(backend)
        for junk in [b"", b"\xc1\xff", pack(CommandEnvelope(command_id="x", match_id="nope", seat=0, type="t")),
                     b"\x93\x01\x02\x03", b'\x82\xa8match_id\xa4nim1\xaacommand_id\xa3bad']:
            backend.bus.publish(match_id, junk)
        backend.bus.publish(match_id, command(match_id, 0, cid="good"))
        self._work(backend)
        good = backend.store.result(match_id, "good")
        assert good is not None and good.status == "accepted"
        bad = backend.store.result(match_id, "bad")
        assert bad is not None and bad.code == "bad_envelope"
        assert sum(backend.bus.lag().values()) == 0 and backend.bus.claim_stale("x", 0, 10) == []

    def test_projected_views_match_a_replay_and_never_leak_secrets(self, backend: Backend) -> None:
        match_id, creds = self._running(backend)
        client = DirectClient(backend, poll_ms=20)
        worker = Worker(backend.bus, backend.store, "w", WorkerSettings(block_ms=10))
        projector = Projector(backend.store, backend.views, "p", block_ms=10)
        while True:
            projector.run_once(block_ms=10)
            public = client.wait_view(match_id, "public", backend.store.version(match_id), 5)
            if public.view["finished"]:
                break
            seat = public.view["to_act"][0]
            mine = client.wait_view(match_id, seat, public.version, 5)
            assert mine.legal, "the seat to act is told its legal commands"
            cid = client.send(match_id, seat, creds[seat], mine.legal[0]["type"], mine.legal[0]["body"])
            worker.run_once(block_ms=10)
            assert client.wait_result(match_id, cid, 5).status == "accepted"
        from services.games.base import replay
        from services.pipeline.states import to_event
        from tests.pipeline.nim import NIM

        state = replay(NIM, [to_event(e) for e in backend.store.read_log(match_id)])
        assert public.view == NIM.view(state, None)
        assert public.view["secret"] is None
        for seat in range(2):
            record = client.view(match_id, seat)
            assert record is not None and record.view == NIM.view(state, seat)
            assert record.view["secret"] == state.secrets[seat]

    # -- poison entries, pending entries, failure sorting in the projector ----------------------------
    def test_pending_entries_are_counted_with_the_age_of_the_oldest(self, backend: Backend) -> None:
        assert self._pending(backend) == 0
        assert all(p.oldest_s == 0 for p in backend.bus.pending().values())
        backend.bus.publish("m1", b"a")
        backend.bus.publish("m1", b"b")
        (first, second) = backend.bus.read("w1", 10, 100)
        time.sleep(0.05)
        assert self._pending(backend) == 2
        assert 0.04 <= max(p.oldest_s for p in backend.bus.pending().values()) < 30
        backend.bus.ack_many([first, second])
        assert self._pending(backend) == 0

    def test_a_command_entry_without_a_payload_is_dead_lettered_and_strands_nothing(self, backend: Backend) -> None:
        match_id, _ = self._running(backend)
        backend.bus.publish(match_id, command(match_id, 0, cid="before"))
        self.add_raw(backend, "commands", match_id, None)
        backend.bus.publish(match_id, command(match_id, 1, cid="after"))
        worker = Worker(backend.bus, backend.store, "w",
                        WorkerSettings(block_ms=10, claim_idle_ms=0, claim_every_s=0, max_deliveries=3))
        worker.run_once(block_ms=10)
        for cid in ("before", "after"):
            result = backend.store.result(match_id, cid)
            assert result is not None and result.status == "accepted", (cid, result)
        assert self._dead(backend) == [] and self._pending(backend) == 1, "retried before it is given up"
        for _ in range(4):
            worker.run_once(block_ms=10)
        ((data, error),) = self._dead(backend)
        assert data == b"" and "'e'" in error
        assert self._pending(backend) == 0 and backend.bus.claim_stale("x", 0, 10) == []

    def test_unreadable_feed_entries_are_dead_lettered_and_strand_nothing(self, backend: Backend) -> None:
        match_id, _ = self._running(backend)
        self.add_raw(backend, "feed", match_id, None)
        self.add_raw(backend, "feed", match_id, b"\xc1 junk")
        before = sample("airship_feed_dead_letters_total")
        projector = Projector(backend.store, backend.views, "p", block_ms=10, claim_idle_ms=0, claim_every_s=0,
                              max_deliveries=2)
        projector.run_once(block_ms=10, claim=True)
        public = backend.views.get_view(match_id, "public")
        assert public is not None and public.version == backend.store.version(match_id)
        assert self._dead(backend, feed=True) == [] and self._pending(backend, feed=True) == 2
        for _ in range(3):
            projector.run_once(block_ms=10, claim=True)
        dead = self._dead(backend, feed=True)
        assert sorted(data for data, _ in dead) == [b"", b"\xc1 junk"]
        assert all("unreadable" in error for _, error in dead)
        assert self._pending(backend, feed=True) == 0
        assert sample("airship_feed_dead_letters_total") == before + 2

    def test_a_match_whose_views_fail_is_retried_then_parked_without_holding_back_others(
        self, backend: Backend
    ) -> None:
        from tests.pipeline.poison import VIEW_ERROR

        for match_id in ("bad", "good"):
            create_match(backend.store, "poison", 1, seed=1, match_id=match_id)
            join(backend.store, match_id, 0)
        worker = Worker(backend.bus, backend.store, "w", WorkerSettings(block_ms=10))
        projector = Projector(backend.store, backend.views, "p", block_ms=10, claim_idle_ms=0, claim_every_s=0,
                              max_deliveries=3)
        errors = sample("airship_projector_errors_total")

        def version(match_id: str) -> int:
            record = backend.views.get_view(match_id, "public")
            return record.version if record else 0

        def project() -> None:
            for _ in range(6):
                projector.run_once(block_ms=10, claim=True)

        project()
        assert version("bad") == backend.store.version("bad") == 1
        backend.bus.publish("bad", command("bad", 0, cid="b1", type="break-view"))
        backend.bus.publish("good", command("good", 0, cid="g1", type="add"))
        self._work(backend, worker)
        projector.run_once(block_ms=10)
        assert version("good") == 2 and version("bad") == 1, "the failing match holds back no other"
        assert self._pending(backend, feed=True) == 1 and backend.store.parked_matches() == {}
        project()
        parked = backend.store.parked_matches()
        assert list(parked) == ["bad"] and VIEW_ERROR in parked["bad"]["error"], parked
        assert self._pending(backend, feed=True) == 0
        assert sample("airship_projector_errors_total") >= errors + 3
        # Later events of the parked match are acknowledged without building; the others go on.
        backend.bus.publish("bad", command("bad", 0, cid="b2", type="fix-view"))
        backend.bus.publish("good", command("good", 0, cid="g2", type="add"))
        self._work(backend, worker)
        project()
        assert version("good") == 3 and version("bad") == 1 and self._pending(backend, feed=True) == 0
        # An operator retries it: its views are rebuilt from the log.
        assert backend.store.unpark("bad") and not backend.store.unpark("bad")
        project()
        assert version("bad") == backend.store.version("bad") == 3
        assert backend.store.parked_matches() == {} and self._pending(backend, feed=True) == 0

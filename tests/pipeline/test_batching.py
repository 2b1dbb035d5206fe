"""The batching worker, on both backends: a batch gives exactly the results of one command at a time, chains
stop at the first command not appended, and workers racing on the same matches with mixed legal, illegal
and duplicate commands apply each command once, leave no version gap, and every result is what the game
decides on the state at its version."""

from __future__ import annotations

import random
import threading
import time
from collections import Counter
from typing import Any

import pytest

from schemas.codec import pack
from schemas.envelopes import CommandEnvelope, CommandResult
from services.games import get_game
from services.games.base import Command
from services.games.errors import Rejected
from services.games.rng import derive_rng
from services.pipeline.lobby import create_match, join
from services.pipeline.memory import MemoryBackend
from services.pipeline.ports import AppendItem, AppendStatus, Backend
from services.pipeline.states import to_event
from services.pipeline.worker import Worker, WorkerSettings
from tests.pipeline import nim  # noqa: F401  (registers nim)
from tests.pipeline.contract import accepted, event, sample


@pytest.fixture(params=["memory", pytest.param("redis", marks=pytest.mark.redis)])
def backend(request: pytest.FixtureRequest) -> Backend:
    if request.param == "memory":
        return MemoryBackend(partitions=4)
    return request.getfixturevalue("redis_backend")  # type: ignore[no-any-return]


def running(backend: Backend, match_id: str, seed: int, seats: int = 3) -> str:
    create_match(backend.store, "nim", seats, seed=seed, match_id=match_id, options={"max_take": 4})
    for seat in range(seats):
        join(backend.store, match_id, seat)
    return match_id


Spec = tuple[int, int, str, int]  # command number, seat, type, n


def mixed_commands(rng: random.Random, count: int, seats: int = 3) -> list[Spec]:
    """Takes by any seat of 0-5 (illegal: out of turn, too many, zero), unknown types, and repeats of an
    earlier command (same id, same body, as a retrying client sends it)."""
    out: list[Spec] = []
    for i in range(count):
        if out and rng.random() < 0.15:
            out.append(rng.choice(out))
        else:
            out.append((i, rng.randrange(seats), "take" if rng.random() < 0.9 else "steal", rng.randrange(6)))
    return out


def envelope(match_id: str, spec: Spec) -> CommandEnvelope:
    number, seat, kind, n = spec
    return CommandEnvelope(command_id=f"{match_id}-c{number}", match_id=match_id, seat=seat, type=kind,
                           body={"n": n})


def drain(workers: list[Worker]) -> None:
    """Run the workers (threads when several) until none finds anything more to do."""
    def loop(worker: Worker) -> None:
        idle = 0
        while idle < 3:
            idle = 0 if worker.run_once(block_ms=20) else idle + 1

    threads = [threading.Thread(target=loop, args=(w,)) for w in workers]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert not any(t.is_alive() for t in threads)


def outcome(result: CommandResult | None) -> tuple[Any, ...]:
    assert result is not None
    return result.status, result.code, result.version, result.events


def test_a_batch_gives_the_results_of_one_command_at_a_time(backend: Backend) -> None:
    rng = random.Random(11)
    for round_ in range(3):
        batched, single = running(backend, f"b{round_}", seed=round_), running(backend, f"s{round_}", seed=round_)
        commands = mixed_commands(rng, 60)
        for spec in commands:
            backend.bus.publish(batched, pack(envelope(batched, spec)))
        one_at_a_time = Worker(backend.bus, backend.store, "single", WorkerSettings())
        for spec in commands:
            one_at_a_time.handle(pack(envelope(single, spec)))
        drain([Worker(backend.bus, backend.store, "batched", WorkerSettings(batch_size=64))])
        for number, *_ in commands:
            assert outcome(backend.store.result(batched, f"{batched}-c{number}")) == outcome(
                backend.store.result(single, f"{single}-c{number}"))
        logs = [[(e.version, e.type, e.body, e.seat) for e in backend.store.read_log(m)] for m in (batched, single)]
        assert logs[0] == logs[1]
        assert [v for v, *_ in logs[0]] == list(range(1, len(logs[0]) + 1))
        assert {outcome(backend.store.result(batched, f"{batched}-c{n}"))[0] for n, *_ in commands} == {
            "accepted", "rejected"}


def test_a_chain_decided_on_a_stale_cache_conflicts_and_is_decided_again(backend: Backend) -> None:
    match_id = running(backend, "stale", seed=4, seats=2)
    stale = Worker(backend.bus, backend.store, "stale", WorkerSettings(batch_size=64))
    fresh = Worker(backend.bus, backend.store, "fresh", WorkerSettings(batch_size=64))
    game = get_game("nim")
    first = min(game.to_act(_state(backend, match_id)))
    stale.cache.load(backend.store.meta(match_id))  # type: ignore[arg-type]  # cached at the current version
    fresh.handle(pack(envelope(match_id, (0, first, "take", 1))))  # the match moves on without it
    conflicts = sample("airship_version_conflicts_total")
    for spec in [(1, 1 - first, "take", 1), (2, first, "take", 1)]:  # legal only after command 0
        backend.bus.publish(match_id, pack(envelope(match_id, spec)))
    assert stale.run_once(block_ms=20) == 2
    assert sample("airship_version_conflicts_total") == conflicts + 1
    results = [backend.store.result(match_id, f"{match_id}-c{n}") for n in range(3)]
    assert [outcome(r)[0] for r in results] == ["accepted"] * 3  # decided again on the fresh state
    assert [e.version for e in backend.store.read_log(match_id)] == list(range(1, results[2].version + 1))  # type: ignore[union-attr]


def test_a_chain_stops_at_the_first_command_not_appended(backend: Backend) -> None:
    match_id = running(backend, "chain", seed=1)
    v = backend.store.version(match_id)
    outcomes = backend.store.append_chains({match_id: [
        AppendItem(v, [event(match_id, v + 1)], accepted("a", match_id, v + 1)),
        AppendItem(v + 1, [], CommandResult(command_id="r", match_id=match_id, status="rejected", version=v + 1,
                                            code="illegal", reason="no")),
        AppendItem(v + 5, [event(match_id, v + 6)], accepted("b", match_id, v + 6)),  # a stale version
        AppendItem(v + 1, [event(match_id, v + 2)], accepted("c", match_id, v + 2)),  # not tried
    ]})[match_id]
    assert [o.status for o in outcomes] == [AppendStatus.APPENDED, AppendStatus.APPENDED, AppendStatus.CONFLICT]
    assert backend.store.version(match_id) == v + 1 and backend.store.result(match_id, "c") is None
    stale_rejection = AppendItem(v, [], CommandResult(command_id="late", match_id=match_id, status="rejected",
                                                      version=v, code="illegal", reason="decided on version v"))
    again = backend.store.append_chains({match_id: [
        AppendItem(v + 1, [event(match_id, v + 2)], accepted("a", match_id, v + 2)),  # seen: a duplicate
        AppendItem(v + 1, [event(match_id, v + 2)], accepted("d", match_id, v + 2)),  # not tried after it
    ], "chain-missing": []})
    assert [o.status for o in again[match_id]] == [AppendStatus.DUPLICATE]
    assert backend.store.result(match_id, "d") is None
    assert [o.status for o in backend.store.append_chains({match_id: [stale_rejection]})[match_id]] == [
        AppendStatus.CONFLICT]  # a rejection is checked against its version too


def test_the_chains_of_several_matches_are_settled_each_on_its_own(backend: Backend) -> None:
    """One append of many matches' chains (on one server: one script call): a chain that stops (a conflict, a
    duplicate) stops only its own match; the chains after it, of other matches, are still tried."""
    ids = [running(backend, f"multi{i}", seed=i) for i in range(4)]
    v = {m: backend.store.version(m) for m in ids}
    a, b, c, d = ids
    backend.store.append_chains({c: [AppendItem(v[c], [event(c, v[c] + 1)], accepted("seen", c, v[c] + 1))]})
    outcomes = backend.store.append_chains({
        a: [AppendItem(v[a], [event(a, v[a] + 1)], accepted("a1", a, v[a] + 1)),
            AppendItem(v[a] + 1, [event(a, v[a] + 2)], accepted("a2", a, v[a] + 2))],
        b: [AppendItem(v[b] + 3, [event(b, v[b] + 4)], accepted("b1", b, v[b] + 4)),  # a stale version
            AppendItem(v[b], [event(b, v[b] + 1)], accepted("b2", b, v[b] + 1))],  # not tried
        c: [AppendItem(v[c] + 1, [event(c, v[c] + 2)], accepted("seen", c, v[c] + 2))],  # seen: a duplicate
        d: [AppendItem(v[d], [event(d, v[d] + 1)], accepted("d1", d, v[d] + 1))],
    })
    assert {m: [o.status for o in outcomes[m]] for m in ids} == {
        a: [AppendStatus.APPENDED, AppendStatus.APPENDED], b: [AppendStatus.CONFLICT],
        c: [AppendStatus.DUPLICATE], d: [AppendStatus.APPENDED]}
    assert outcomes[c][0].result is not None and outcomes[c][0].result.version == v[c] + 1  # the earlier result
    assert [backend.store.version(m) - v[m] for m in ids] == [2, 0, 1, 1]
    assert backend.store.result(b, "b2") is None and backend.store.result(d, "d1") is not None


@pytest.mark.parametrize("workers", [2, 4])
def test_racing_batch_workers_apply_each_command_once(backend: Backend, workers: int) -> None:
    rng = random.Random(workers)
    matches = [running(backend, f"r{i}", seed=i) for i in range(3)]
    sent: dict[str, CommandEnvelope] = {}
    for spec in mixed_commands(rng, 150):
        for match_id in matches:
            env = envelope(match_id, spec)
            sent[env.command_id] = env
            backend.bus.publish(match_id, pack(env))
    drain([Worker(backend.bus, backend.store, f"w{i}", WorkerSettings(batch_size=8, claim_idle_ms=60_000))
           for i in range(workers)])
    game = get_game("nim")
    for match_id in matches:
        log = backend.store.read_log(match_id)
        assert [e.version for e in log] == list(range(1, len(log) + 1))
        applied = Counter(e.command_id for e in log if e.command is not None)
        assert all(n == 1 for n in applied.values())
        states = [game.initial()]
        for logged in log:
            states.append(game.evolve(states[-1], to_event(logged)))
        seed = backend.store.seed(match_id) or 0
        for cid, env in sent.items():
            if env.match_id != match_id:
                continue
            result = backend.store.result(match_id, cid)
            assert result is not None, cid
            assert (result.status == "accepted") == (cid in applied), (cid, result)
            before = result.version - result.events
            state = states[before]
            try:
                events = game.decide(state, Command(env.seat, env.type, env.body), derive_rng(seed, before))
            except Rejected as err:
                assert (result.status, result.code) == ("rejected", err.code), (cid, result)
            else:
                assert result.status == "accepted", (cid, result)
                assert [(e.type, e.body) for e in events] == [
                    (e.type, e.body) for e in log[before:result.version]], cid


def test_a_command_that_fails_unexpectedly_leaves_the_rest_of_its_batch_applied(backend: Backend) -> None:
    match_id = running(backend, "boom", seed=2, seats=2)
    state = backend.store.version(match_id)
    to_act = get_game("nim").to_act(_state(backend, match_id))
    seat = min(to_act)
    for i, kind in enumerate(["explode", "take", "explode"]):
        backend.bus.publish(match_id, pack(CommandEnvelope(command_id=f"x{i}", match_id=match_id, seat=seat,
                                                           type=kind, body={"n": 1})))
    worker = Worker(backend.bus, backend.store, "w", WorkerSettings(batch_size=64))
    assert worker.run_once(block_ms=20) == 3
    assert backend.store.version(match_id) == state + 1  # the take, though a bug broke its neighbours
    assert backend.store.result(match_id, "x0") is None and backend.store.result(match_id, "x2") is None
    assert sum(p.count for p in backend.bus.pending().values()) == 2  # the failures, left for a retry


def _state(backend: Backend, match_id: str) -> Any:
    game = get_game("nim")
    state = game.initial()
    for logged in backend.store.read_log(match_id):
        state = game.evolve(state, to_event(logged))
    return state


def test_serving_workers_split_the_partitions_and_never_conflict(backend: Backend) -> None:
    settings = WorkerSettings(batch_size=8, block_ms=20, claim_every_s=0.2, claim_idle_ms=60_000)
    workers = [Worker(backend.bus, backend.store, f"split{i}", settings) for i in range(2)]
    threads = [threading.Thread(target=w.run, daemon=True) for w in workers]
    for t in threads:
        t.start()
    # (while the shares change a partition may be nobody's for a renewal period, never two workers')
    _wait(lambda: all(w._owned for w in workers)
          and set().union(*(w._owned or () for w in workers)) == set(range(backend.bus.partitions)))
    shares = [set(w._owned or ()) for w in workers]
    assert shares[0].isdisjoint(shares[1]) and shares[0] | shares[1] == set(range(backend.bus.partitions))
    matches = [running(backend, f"split-m{i}", seed=i) for i in range(8)]
    conflicts = sample("airship_version_conflicts_total")
    rng = random.Random(3)
    specs = mixed_commands(rng, 40)
    for spec in specs:
        for match_id in matches:
            backend.bus.publish(match_id, pack(envelope(match_id, spec)))
    _wait(lambda: all(backend.store.result(m, f"{m}-c{n}") for m in matches for n, *_ in specs))
    assert sample("airship_version_conflicts_total") == conflicts  # one worker per match: no conflict
    workers[0].stop()
    threads[0].join(5)
    _wait(lambda: workers[1]._owned == list(range(backend.bus.partitions)))  # it took over the whole
    late = running(backend, "split-late", seed=9)
    backend.bus.publish(late, pack(envelope(late, (99, 0, "take", 1))))
    _wait(lambda: backend.store.result(late, f"{late}-c99") is not None)
    workers[1].stop()
    threads[1].join(5)


def _wait(condition: Any, timeout_s: float = 20.0) -> None:
    deadline = time.monotonic() + timeout_s
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.02)


def test_withdrawn_and_long_dead_workers_are_forgotten(backend: Backend) -> None:
    assert backend.bus.members("a", True, 3000) == ["a"]
    assert backend.bus.members("b", True, 3000) == ["a", "b"]
    assert backend.bus.members("a", False, 3000) == ["b"]  # a clean stop: gone at once
    if isinstance(backend, MemoryBackend):
        return
    r, key = backend.redis, backend.settings.keys.members()  # type: ignore[attr-defined]
    r.hset(key, "ghost", 1)  # a heartbeat from long ago (a worker killed and never back)
    assert backend.bus.members("b", True, 3000) == ["b"]
    assert set(r.hkeys(key)) == {b"b"}  # the ghost and the withdrawn worker are deleted, not only ignored

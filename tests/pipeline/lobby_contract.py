"""``match.create`` and ``match.join`` (#35), decided by a worker, the same on every backend: what the gateway
publishes instead of writing metas, logs, feeds, seeds and credentials itself. Mixed into the backend contract's
subclasses (``tests/pipeline/test_memory_backend.py``, ``test_redis_backend.py``)."""

from __future__ import annotations

import time
from typing import Any

from schemas.codec import pack
from schemas.envelopes import CommandEnvelope, CommandResult
from schemas.game_schemas import CREATE_COMMAND, JOIN_COMMAND
from services.pipeline.auth import hash_credential
from services.pipeline.lobby import join_deadline
from services.pipeline.ports import Backend
from services.pipeline.worker import Worker, WorkerSettings

HASHES = [hash_credential(f"{seat}.token") for seat in range(4)]


def create(match_id: str, seats: int = 2, **body: Any) -> bytes:
    return pack(CommandEnvelope(command_id="create", match_id=match_id, seat=0, type=CREATE_COMMAND,
                                body={"game": "nim", "seats": seats, **body}))


def join(match_id: str, seat: int, hashed: str, cid: str | None = None, player: str | None = None,
         until_ms: int | None = None) -> bytes:
    body = {"seat": seat, "credential_hash": hashed, "player": player,
            "until_ms": join_deadline(10) if until_ms is None else until_ms}
    return pack(CommandEnvelope(command_id=cid or f"join-{hashed[:8]}-{seat}", match_id=match_id, seat=seat,
                                type=JOIN_COMMAND, body=body))


class LobbyContract:
    def _decide(self, backend: Backend, *data: bytes) -> list[CommandResult | None]:
        worker = Worker(backend.bus, backend.store, "w", WorkerSettings(block_ms=10))
        return [worker.handle(item) for item in data]  # as it handles a delivery

    def test_a_worker_creates_the_match_with_a_seed_of_its_own(self, backend: Backend) -> None:
        (result,) = self._decide(backend, create("lc1", 3, options={}))
        meta = backend.store.meta("lc1")
        assert meta is not None and meta.game == "nim" and meta.seats == 3 and meta.status == "open"
        assert result is not None and result.status == "accepted" and result.command_id == "create"
        assert result.version == backend.store.version("lc1") > 0  # the set-up's events are in the log
        assert backend.store.seed("lc1") is not None
        assert backend.store.result("lc1", "create") == result  # recorded like any command's result

    def test_a_create_delivered_again_creates_nothing_more(self, backend: Backend) -> None:
        first, again = self._decide(backend, create("lc2"), create("lc2"))
        assert first == again and backend.store.version("lc2") == first.version  # type: ignore[union-attr]
        assert len(backend.store.read_log("lc2")) == first.version  # type: ignore[union-attr]

    def test_a_create_with_bad_options_is_refused_and_makes_nothing(self, backend: Backend) -> None:
        bad, malformed = self._decide(backend, create("lc3", 2, options={"pile": "many"}),
                                      create("lc4", 2, unexpected=1))
        assert bad is not None and bad.status == "rejected" and bad.code == "bad_options"
        assert malformed is not None and malformed.code == "bad_command"
        assert backend.store.meta("lc3") is None and backend.store.meta("lc4") is None

    def test_joins_take_free_seats_once_and_the_last_starts_the_match(self, backend: Backend) -> None:
        self._decide(backend, create("lj1"))
        first, again, other, second = self._decide(
            backend, join("lj1", 0, HASHES[0], cid="a"), join("lj1", 0, HASHES[0], cid="a"),
            join("lj1", 0, HASHES[2], cid="b"), join("lj1", 1, HASHES[1], cid="c"))
        assert first is not None and first.status == "accepted" and first.seat == 0
        assert again == first  # the same join delivered again: its recorded result, nothing claimed twice
        assert other is not None and other.status == "rejected" and other.code == "taken"
        assert second is not None and second.status == "accepted" and second.seat == 1
        meta = backend.store.meta("lj1")
        assert meta is not None and meta.status == "running" and meta.credential_hashes == {0: HASHES[0], 1: HASHES[1]}
        (late,) = self._decide(backend, join("lj1", 1, HASHES[3], cid="d"))
        assert late is not None and late.code == "full"

    def test_a_join_whose_seat_holds_its_hash_already_is_answered_as_joined(self, backend: Backend) -> None:
        """A join delivered again after a worker died between the claim and the result (a new command id too: a
        gateway asking again with an arena seat's derived token)."""
        self._decide(backend, create("lj2"))
        assert backend.store.join("lj2", 1, HASHES[1]).outcome == "joined"
        (result,) = self._decide(backend, join("lj2", 1, HASHES[1], cid="e"))
        assert result is not None and result.status == "accepted" and result.seat == 1
        assert backend.store.meta("lj2").credential_hashes == {1: HASHES[1]}  # type: ignore[union-attr]

    def test_a_join_past_its_deadline_or_to_no_seat_takes_nothing(self, backend: Backend) -> None:
        self._decide(backend, create("lj3"))
        past = int(time.time() * 1000) - 1
        expired, nowhere, unknown = self._decide(backend, join("lj3", 0, HASHES[0], until_ms=past),
                                                 join("lj3", 5, HASHES[0]), join("nosuch", 0, HASHES[0]))
        assert expired is not None and expired.code == "expired"
        assert nowhere is not None and nowhere.code == "bad_request"
        assert unknown is not None and unknown.code == "not_found"
        assert backend.store.meta("lj3").credential_hashes == {}  # type: ignore[union-attr]

    def test_reserved_seats_are_for_their_players_and_a_player_sits_once(self, backend: Backend) -> None:
        self._decide(backend, create("lj4", 3, reserved={"0": "ann", "1": "bob"}))
        anon, eve, ann, twice, bob = self._decide(
            backend, join("lj4", 0, HASHES[0], cid="f"), join("lj4", 1, HASHES[1], cid="g", player="eve"),
            join("lj4", 0, HASHES[0], cid="h", player="ann"), join("lj4", 2, HASHES[2], cid="i", player="ann"),
            join("lj4", 1, HASHES[1], cid="j", player="bob"))
        assert anon is not None and anon.code == "forbidden" and eve is not None and eve.code == "forbidden"
        assert ann is not None and ann.seat == 0 and bob is not None and bob.seat == 1
        assert twice is not None and twice.code == "conflict"

    def test_an_arena_match_past_its_claim_deadline_takes_no_player(self, backend: Backend) -> None:
        self._decide(backend, create("lj5", 2, reserved={"0": "ann", "1": "bob"},
                                     claim_by_ms=int(time.time() * 1000) - 1))
        (lapsed,) = self._decide(backend, join("lj5", 0, HASHES[0], player="ann"))
        assert lapsed is not None and lapsed.code == "arena_seat_lapsed"

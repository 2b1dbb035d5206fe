"""How the gateway shows a result to its sender (no stack needed)."""

from __future__ import annotations

from schemas.envelopes import CommandResult
from services.gateway.service import for_client, scoped_id


def result(command_id: str, seat: int | None) -> CommandResult:
    return CommandResult(command_id=command_id, match_id="m1", seat=seat, status="rejected", version=3,
                         code="failed", reason="failed repeatedly")


def test_the_sender_sees_its_own_key() -> None:
    shown = for_client(result(scoped_id(2, "k.1"), 2))
    assert shown.command_id == "k.1" and shown.seat == 2


def test_a_dead_letter_rejection_without_a_seat_still_shows_the_key() -> None:
    shown = for_client(result(scoped_id(1, "move-7"), None), seat=1)
    assert shown.command_id == "move-7" and shown.seat == 1


def test_another_seats_prefix_is_never_stripped() -> None:
    assert for_client(result(scoped_id(0, "x"), None), seat=1).command_id == "0.x"

"""The bots process's own rules, without a network: what it takes on (whole matches, within its seats), what it
skips, and its state file (tokens kept 0600, seats played on after a restart)."""

from __future__ import annotations

import stat
from pathlib import Path
from typing import Any

from schemas.gateway import BotSeats
from services.bots.server import BotHost, Held, HostSettings
from services.client.errors import Conflict, Forbidden


class Lobby:
    """The part of the gateway client the host's loop uses."""

    def __init__(self, wanted: list[BotSeats], taken: set[tuple[str, int]] = frozenset(),  # type: ignore[assignment]
                 reserved: set[tuple[str, int]] = frozenset()) -> None:  # type: ignore[assignment]
        self.wanted = wanted
        self.taken = set(taken)
        self.reserved = set(reserved)
        self.joined: list[tuple[str, int]] = []

    def bots_wanted(self, limit: int = 50) -> list[BotSeats]:
        return self.wanted[:limit]

    def join(self, match_id: str, seat: int | None = None) -> tuple[int, str]:
        assert seat is not None
        if (match_id, seat) in self.taken:
            raise Conflict(409, "conflict", f"seat {seat} is taken")
        if (match_id, seat) in self.reserved:
            raise Forbidden(403, "forbidden", f"seat {seat} is reserved for a rated player")
        self.joined.append((match_id, seat))
        return seat, f"{seat}." + "ab" * 24

    def close(self) -> None:
        pass


def host(lobby: Lobby, tmp_path: Path | None = None, **settings: Any) -> BotHost:
    state = tmp_path / "bots.json" if tmp_path is not None else None
    h = BotHost(HostSettings(url="http://unused", state_file=state, **settings), client_factory=lambda: lobby)  # type: ignore[arg-type, return-value]
    h._start = lambda held: h.held.__setitem__((held.match_id, held.seat), held)  # type: ignore[method-assign]
    return h


def wanted(match_id: str, seats: int) -> BotSeats:
    return BotSeats(match_id=match_id, game="mad-zeppelin", bots={str(s): "random" for s in range(seats)})


def test_takes_whole_matches_within_its_seats() -> None:
    lobby = Lobby([wanted("a", 3), wanted("b", 2), wanted("c", 1)])
    h = host(lobby, max_seats=4)
    assert h.poll_once() == 4  # a (3 seats) and c (1); b (2 more) would pass the cap: it waits
    assert lobby.joined == [("a", 0), ("a", 1), ("a", 2), ("c", 0)]
    assert h.poll_once() == 0  # matches in hand are not taken twice; b still does not fit
    h.held.clear()  # a and c ended (and run no more: the gateway lists only open matches)
    lobby.wanted = [w for w in lobby.wanted if w.match_id == "b"]
    assert h.poll_once() == 2 and lobby.joined[-2:] == [("b", 0), ("b", 1)]


def test_a_seat_someone_else_took_is_skipped() -> None:
    lobby = Lobby([wanted("a", 2)], taken={("a", 0)})
    h = host(lobby)
    assert h.poll_once() == 1 and lobby.joined == [("a", 1)]


def test_a_seat_the_bots_may_not_take_holds_up_no_other_match() -> None:
    """#30's blocker: a rated match's seats flagged for bots (before the gateway refused that, or by anything else
    the gateway answers 403 to) are oldest in /bots/wanted; the bots skip them and serve every later match."""
    lobby = Lobby([wanted("rated", 2), wanted("b", 2)], reserved={("rated", 0), ("rated", 1)})
    h = host(lobby)
    assert h.poll_once() == 2 and lobby.joined == [("b", 0), ("b", 1)]
    assert h.poll_once() == 0  # the rated match is tried again and skipped again; nothing else is held up


def test_the_state_file_keeps_the_seats_for_a_restart(tmp_path: Path) -> None:
    h = host(Lobby([]), tmp_path)
    held = Held("m1", "mad-zeppelin", 1, "1." + "cd" * 24, "heuristic")
    with h._lock:
        h.held[(held.match_id, held.seat)] = held
        h._save()
    path = tmp_path / "bots.json"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600  # it holds seat tokens
    again = host(Lobby([]), tmp_path)
    assert again._load() == [held]
    path.write_text("{not json")
    assert again._load() == []


def test_the_command_needs_the_gateway(monkeypatch: Any, capsys: Any) -> None:
    from services.cli import main

    monkeypatch.delenv("AIRSHIP_URL", raising=False)
    assert main(["bots"]) == 2
    assert "airship: give the gateway's address with --url or AIRSHIP_URL" in capsys.readouterr().err
    assert main(["bots", "--url", "http://127.0.0.1:9", "--max-seats", "0"]) == 2

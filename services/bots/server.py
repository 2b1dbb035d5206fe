"""The service's bots (``airship bots``): a long-running process that plays the seats players gave to the bots.

A player flags free seats of an open match for bots of a strength (``POST /matches/{id}/bots``, the lobby
page's "fill empty seats with bots"). This process asks the gateway which matches are ready for bots
(``GET /bots/wanted``: open, every free seat flagged), joins those seats through the lobby like any client,
and plays each seat with the bot of its strength (:func:`services.bots.plugins.make_bot`), driven by the SDK's
:class:`~services.bots.sdk.SeatRunner` (its command ids make a resent decision count once). It holds seat
tokens, never Redis credentials.

What one process takes on is capped: at most ``max_seats`` seats at once, a match only when every one of its
bot seats fits, so a burst of requests waits in the gateway's list (itself capped) instead of piling up here.
A seat whose match has not moved for ``idle_timeout_s`` (a person who left) is given up. ``pace_s`` spaces the
bots' moves so that people can follow them. With ``state_file`` the seats in play (and their tokens) are kept
in a file (mode 0600), and a restarted process plays them on; without it, a restart leaves them unplayed.
"""

from __future__ import annotations

import json
import os
import secrets
import threading
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path

from schemas.gateway import BotSeats
from services.bots.plugins import make_bot
from services.bots.sdk import SeatRunner
from services.client.errors import ClientError, GatewayError, RateLimited, Timeout, Unauthorized, Unavailable
from services.client.http import GatewayClient
from services.logs import error_text, get_logger

log = get_logger("bots")
WAIT_S = 10.0  # one long poll for a view: how soon a seat notices that the process is stopping


@dataclass(frozen=True)
class HostSettings:
    url: str
    max_seats: int = 24
    poll_s: float = 1.0
    idle_timeout_s: float = 900.0
    pace_s: float = 0.0
    ismcts_iterations: int = 0  # the search of the 'ismcts' strength: playouts a move; 0 = each game's own budget
    state_file: Path | None = None


@dataclass(frozen=True)
class Held:
    """A seat this process plays."""

    match_id: str
    game: str
    seat: int
    token: str
    bot: str


class BotHost:
    def __init__(self, settings: HostSettings, client_factory: Callable[[], GatewayClient] | None = None) -> None:
        self.settings = settings
        self._client_factory = client_factory or (lambda: GatewayClient(settings.url))
        self.lobby = self._client_factory()
        self.stopping = threading.Event()
        self._lock = threading.Lock()
        self.held: dict[tuple[str, int], Held] = {}
        self.threads: dict[tuple[str, int], threading.Thread] = {}
        self.finished = 0
        self.given_up = 0
        self._full_logged = False
        self.heartbeat: Callable[[], None] = lambda: None  # the health endpoint's liveness, beaten every poll
        self.problem: str | None = "the gateway was not asked yet"  # readiness: None once the last poll worked

    # -- the loop ----------------------------------------------------------------------------------
    def run(self) -> None:
        """Resume the seats of the state file, then take new ones until :meth:`stop`."""
        for held in self._load():
            self._start(held)
        while not self.stopping.is_set():
            try:
                self.poll_once()
                self.problem = None
            except ClientError as e:
                if self.problem is None:
                    log.warning("the gateway did not answer the bots' poll", error=error_text(e))
                self.problem = f"the gateway does not answer: {error_text(e)}"
            self.heartbeat()
            self.stopping.wait(self.settings.poll_s)
        self._join_threads()

    def stop(self) -> None:
        self.stopping.set()

    def close(self) -> None:
        self.lobby.close()

    @property
    def busy(self) -> int:
        with self._lock:
            return len(self.held)

    def poll_once(self) -> int:
        """Take the matches ready for bots that fit; returns the number of seats taken."""
        taken = 0
        for wanted in self.lobby.bots_wanted(limit=50):
            if self.stopping.is_set():
                break
            with self._lock:
                mine = any(match_id == wanted.match_id for match_id, _ in self.held)
            if mine:
                continue
            if self.busy + len(wanted.bots) > self.settings.max_seats:
                if not self._full_logged:
                    log.info("bots at capacity; matches wait", busy=self.busy, max_seats=self.settings.max_seats)
                    self._full_logged = True
                continue
            self._full_logged = False
            taken += self.take(wanted)
        return taken

    def take(self, wanted: BotSeats) -> int:
        """Join the match's flagged seats and play them. A seat the gateway refuses for this match's sake (someone
        else took it meanwhile, the match is gone or began, the seat is reserved for a registered player: 403) is
        skipped and the next one tried: one bad match never holds up the others. Only a refusal that is the
        service's own state (unavailable, rate-limited) ends this poll, to be tried again at the next."""
        taken = 0
        for seat_text, kind in wanted.bots.items():
            try:
                seat, token = self.lobby.join(wanted.match_id, int(seat_text))
            except (Unavailable, RateLimited):
                raise
            except GatewayError as e:
                log.info("bot seat not taken", match_id=wanted.match_id, seat=seat_text, error=error_text(e))
                continue
            self._start(Held(wanted.match_id, wanted.game, seat, token, kind))
            taken += 1
        if taken:
            log.info("bots joined", match_id=wanted.match_id, game=wanted.game, seats=taken)
        return taken

    # -- one seat ----------------------------------------------------------------------------------
    def _start(self, held: Held) -> None:
        with self._lock:
            self.held[(held.match_id, held.seat)] = held
            self._save()
        thread = threading.Thread(target=self._play, args=(held,), name=f"bot-{held.match_id}-{held.seat}",
                                  daemon=True)
        self.threads[(held.match_id, held.seat)] = thread
        thread.start()

    def _play(self, held: Held) -> None:
        client = self._client_factory()
        outcome = "gave up"
        try:
            spec = held.bot
            if held.bot == "ismcts" and self.settings.ismcts_iterations > 0:
                spec = f"ismcts:{self.settings.ismcts_iterations}"
            bot = make_bot(spec, held.game, secrets.randbits(31))
            outcome = self._seat_loop(client, held, SeatRunner(client, held.match_id, held.seat, held.token, bot,
                                                               timeout_s=WAIT_S))
        except Unauthorized:
            log.warning("a bot's seat token was refused (the match is gone?)", match_id=held.match_id, seat=held.seat)
        except Exception as e:  # a bot or the service failing for this seat must not end the process
            log.error("a bot stopped", match_id=held.match_id, seat=held.seat, error=error_text(e))
        finally:
            client.close()
            with self._lock:
                self.held.pop((held.match_id, held.seat), None)
                self.threads.pop((held.match_id, held.seat), None)
                if outcome == "finished":
                    self.finished += 1
                elif outcome != "stopped":
                    self.given_up += 1
                if outcome != "stopped":  # a stopping process keeps the seat in its file, to play it on
                    self._save()
            log.info("bot seat done", match_id=held.match_id, seat=held.seat, outcome=outcome)

    def _seat_loop(self, client: GatewayClient, held: Held, runner: SeatRunner) -> str:
        seen = 0
        idle_until = time.monotonic() + self.settings.idle_timeout_s
        while client.match(held.match_id).status == "open":  # a flagged seat someone else took: wait for them
            if time.monotonic() > idle_until:
                return "idle"
            if self.stopping.wait(min(self.settings.poll_s, 1.0)):
                return "stopped"
        while not self.stopping.is_set():
            try:
                record = client.wait_view(held.match_id, held.seat, seen + 1, WAIT_S, token=held.token)
            except Timeout:
                if time.monotonic() > idle_until:
                    return "idle"
                continue
            except (ConnectionError, OSError) as e:  # the gateway restarting: try again shortly
                log.warning("a bot lost the gateway; retrying", match_id=held.match_id, error=error_text(e))
                if self.stopping.wait(1.0) or time.monotonic() > idle_until:
                    break
                continue
            idle_until = time.monotonic() + self.settings.idle_timeout_s
            if record.finished:
                return "finished"
            seen = record.version
            if not record.legal:
                continue
            if self.settings.pace_s and self.stopping.wait(self.settings.pace_s):
                break
            try:
                result = runner.answer(record)
            except (ConnectionError, OSError, GatewayError) as e:
                log.warning("a bot's command was not answered; deciding again", match_id=held.match_id,
                            error=error_text(e))
                seen = max(seen - 1, 0)  # the same view again: the same command id, so it counts once
                continue
            if result.status == "rejected":
                seen = max(result.version, record.version) - 1
        return "stopped"

    def _join_threads(self, wait_s: float = 2.0) -> None:
        """A moment for the seats to finish the command in hand; one blocked in a long poll is left (daemon thread):
        its seat stays in the state file, and a resent decision counts once."""
        deadline = time.monotonic() + wait_s
        for thread in list(self.threads.values()):
            thread.join(max(0.0, deadline - time.monotonic()))

    # -- the state file ----------------------------------------------------------------------------
    def _save(self) -> None:
        path = self.settings.state_file
        if path is None:
            return
        tmp = path.with_name(path.name + ".tmp")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w") as out:
            json.dump([asdict(h) for h in self.held.values()], out)
        os.replace(tmp, path)

    def _load(self) -> list[Held]:
        path = self.settings.state_file
        if path is None or not path.exists():
            return []
        try:
            return [Held(**item) for item in json.loads(path.read_text())]
        except (ValueError, TypeError) as e:
            log.error("the bots' state file is unreadable; starting without it", path=str(path), error=error_text(e))
            return []

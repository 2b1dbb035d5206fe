"""``airship arena``: a registered bot that keeps playing rated matches: it queues in the gateway's arena with its
API key, waits to be paired (a long poll on its ticket, which keeps the ticket alive), plays the seat it is given
with a bot (:class:`~services.bots.sdk.SeatRunner`), and queues again, until it has played ``matches`` (0: until
stopped). With ``parallel`` > 1 it holds that many tickets, so plays that many matches at once (the gateway lets a
player hold ``AIRSHIP_ARENA_TICKETS_PER_PLAYER`` open tickets, 2 by default; it never pairs two of them into one
match).

It holds an API key and seat tokens, never Redis credentials. A match that does not move for ``idle_timeout_s``
(an opponent who left) is given up: the bot votes to abandon it (an abandoned match is not rated) and queues again.
A match whose seats are not all collected in the gateway's claim time (``claim_in_s`` of the matched answer) is
dissolved by the gateway, which puts this bot's ticket back at the front of the queue: the bot polls its ticket
while it waits for the match to begin, and goes back to waiting on the same ticket when it answers ``waiting``.

    arena = Arena(ArenaSettings(url="http://127.0.0.1:8000", game="mad-zeppelin", api_key=KEY, bot="heuristic"))
    report = arena.run()  # until stopped (arena.stop(), from another thread or a signal handler)
"""

from __future__ import annotations

import secrets
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import httpx

from services.bots.plugins import make_bot
from services.bots.sdk import SeatRunner
from services.client import common
from services.client.errors import (
    BadRequest,
    ClientError,
    Conflict,
    Forbidden,
    GatewayError,
    InvalidOptions,
    NotFound,
    RateLimited,
    Timeout,
    Unauthorized,
    Unavailable,
)
from services.client.http import GatewayClient
from services.logs import error_text, get_logger
from services.ratings.players import API_KEY_HEADER

log = get_logger("arena")


@dataclass(frozen=True)
class ArenaSettings:
    url: str
    game: str
    api_key: str
    bot: str = "heuristic"
    seats: tuple[int, ...] | None = None  # accepted seat counts, in order of preference (None: any)
    matches: int = 0  # how many to play (0: until stopped)
    parallel: int = 1  # matches at once
    wait_s: float = 20.0  # one long poll of the ticket (at most 30; the ticket lives 30 s past each poll)
    idle_timeout_s: float = 300.0  # a match that does not move for this long is abandoned
    ismcts_iterations: int = 200


@dataclass(frozen=True)
class Played:
    match_id: str
    seat: int
    players: list[str]
    outcome: str  # "won", "lost", "abandoned" or "failed"
    score: int | None = None


@dataclass
class ArenaReport:
    played: list[Played] = field(default_factory=list)

    @property
    def wins(self) -> int:
        return sum(p.outcome == "won" for p in self.played)

    def as_dict(self) -> dict[str, Any]:
        counts: dict[str, int] = {}
        for p in self.played:
            counts[p.outcome] = counts.get(p.outcome, 0) + 1
        return {"matches": len(self.played), **counts}


class Arena:
    def __init__(self, settings: ArenaSettings, http_factory: Callable[[], httpx.Client] | None = None,
                 client_factory: Callable[[], GatewayClient] | None = None,
                 on_played: Callable[[Played], None] | None = None) -> None:
        self.settings = settings
        self._http_factory = http_factory or (lambda: httpx.Client(base_url=common.base_url(settings.url),
                                                                   timeout=settings.wait_s + 10))
        self._client_factory = client_factory or (lambda: GatewayClient(settings.url))
        self.on_played = on_played
        self.stopping = threading.Event()
        self.report = ArenaReport()
        self._lock = threading.Lock()
        self._started = 0
        self.error: ClientError | None = None  # what stopped it: a refused key, an unknown game, bad seat counts

    def stop(self) -> None:
        self.stopping.set()

    def run(self) -> ArenaReport:
        """Play matches (``parallel`` at once) until ``matches`` are played or :meth:`stop`; raises what the
        gateway refused for good (a wrong key, an unknown game, bad seat counts)."""
        threads = [threading.Thread(target=self._loop, name=f"arena-{i}", daemon=True)
                   for i in range(max(1, self.settings.parallel))]
        for t in threads:
            t.start()
        for t in threads:
            while t.is_alive():
                t.join(0.5)
        if self.error is not None:
            raise self.error
        return self.report

    def _next(self) -> bool:
        with self._lock:
            if self.stopping.is_set() or (self.settings.matches and self._started >= self.settings.matches):
                return False
            self._started += 1
            return True

    def _loop(self) -> None:
        http = self._http_factory()
        client = self._client_factory()
        try:
            while self._next():
                try:
                    matched = self._matched(http)
                    while matched is not None:
                        begun = self._begun(client, matched, http)
                        if begun is True or begun is False:
                            break
                        log.info("arena: the match was dissolved (a seat was not collected); queued again",
                                 match_id=matched.get("match_id"))
                        matched = self._matched(http, begun)
                except (Unauthorized, Forbidden, InvalidOptions, BadRequest, NotFound) as e:
                    self.error = e
                    self.stop()
                    break
                if matched is None:
                    break
                played = self.play(client, matched, begun is True)
                with self._lock:
                    self.report.played.append(played)
                if self.on_played is not None:
                    self.on_played(played)
        finally:
            http.close()
            client.close()

    # -- the queue ---------------------------------------------------------------------------------------------
    def _request(self, http: httpx.Client, method: str, path: str, **kwargs: Any) -> Any:
        response = http.request(method, path, headers={API_KEY_HEADER: self.settings.api_key}, **kwargs)
        return common.decode(common.check(response))

    def queue(self, http: httpx.Client) -> dict[str, Any]:
        """A ticket in the queue (as the gateway answered: possibly matched already)."""
        body = {"seats": list(self.settings.seats)} if self.settings.seats else {}
        return dict(self._request(http, "POST", f"/arena/{self.settings.game}/queue", json=body))

    def _matched(self, http: httpx.Client, ticket: dict[str, Any] | None = None) -> dict[str, Any] | None:
        """Queue (or wait on ``ticket``) until matched: the ticket with ``match_id``, ``seat``, ``token`` and
        ``players``. None when stopping (the ticket is taken out of the queue)."""
        failures = 0
        while not self.stopping.is_set():
            try:
                if ticket is None:
                    ticket = self.queue(http)
                else:
                    ticket = dict(self._request(http, "GET", ticket["location"],
                                                params={"wait_s": min(self.settings.wait_s, 30.0)}))
                failures = 0
                if ticket["status"] == "matched":
                    return ticket
            except NotFound:  # expired (not polled in time) or gone: queue again; an unknown game stops it
                if ticket is None:
                    raise
                ticket = None
            except Conflict as e:  # the seat was taken by another join with this key, or was not collected in time
                log.warning("arena: the seat paired for this ticket was taken otherwise or lapsed; queueing again",
                            error=error_text(e))
                ticket = None
            except RateLimited as e:
                log.info("arena: waiting before queueing again", error=error_text(e))
                self.stopping.wait(min(max(e.retry_after_s, 1.0), 30.0))
            except (Unavailable, httpx.TransportError, GatewayError) as e:
                failures += 1
                log.warning("arena: the gateway did not answer; retrying", error=error_text(e))
                self.stopping.wait(min(0.5 * failures, 5.0))
        if ticket is not None and ticket.get("status") == "waiting":
            try:
                self._request(http, "DELETE", ticket["location"])
            except Conflict:  # paired meanwhile: the others count on this seat, so it is played
                try:
                    return dict(self._request(http, "GET", ticket["location"]))
                except (ClientError, httpx.TransportError) as e:
                    log.warning("arena: a seat paired while stopping was not collected", error=error_text(e))
            except (ClientError, httpx.TransportError) as e:
                log.info("arena: ticket not taken out of the queue; it expires", error=error_text(e))
        return None

    # -- a match -----------------------------------------------------------------------------------------------
    def play(self, client: GatewayClient, matched: dict[str, Any], begun: bool = True) -> Played:
        match_id, seat, token = str(matched["match_id"]), int(matched["seat"]), str(matched["token"])
        players = list(matched.get("players") or [])
        spec = f"ismcts:{self.settings.ismcts_iterations}" if self.settings.bot == "ismcts" else self.settings.bot
        bot = make_bot(spec, self.settings.game, secrets.randbits(31))
        runner = SeatRunner(client, match_id, seat, token, bot, timeout_s=self.settings.idle_timeout_s)
        if not begun:  # an opponent never collected its seat and the gateway did not dissolve the match
            log.warning("arena: the match did not begin; giving it up", match_id=match_id)
            return Played(match_id, seat, players, "abandoned")
        for attempt in range(20):
            if self.stopping.is_set() and attempt:
                break
            try:
                final = runner.run()
            except Timeout:
                log.warning("arena: the match does not move; voting to abandon it", match_id=match_id)
                try:
                    client.abandon(match_id, token)
                except ClientError as e:
                    log.info("arena: abandon vote not taken", match_id=match_id, error=error_text(e))
                return Played(match_id, seat, players, "abandoned")
            except (ConnectionError, OSError) as e:
                log.warning("arena: lost the gateway; playing on", match_id=match_id, error=error_text(e))
                self.stopping.wait(min(0.5 * (attempt + 1), 5.0))
                continue
            except Exception as e:  # a bot or the service failing for this seat must not end the loop
                log.error("arena: the bot stopped", match_id=match_id, error=error_text(e))
                return Played(match_id, seat, players, "failed")
            outcome = final.outcome or {}
            scores = outcome.get("scores") or []
            won = seat in (outcome.get("winners") or [])
            if not outcome or (outcome.get("detail") or {}).get("abandoned"):  # ended by its players' votes
                return Played(match_id, seat, players, "abandoned")
            return Played(match_id, seat, players, "won" if won else "lost",
                          scores[seat] if seat < len(scores) else None)
        return Played(match_id, seat, players, "failed")

    def _begun(self, client: GatewayClient, matched: dict[str, Any],
               http: httpx.Client | None = None) -> bool | dict[str, Any]:
        """Wait until every seat is taken (commands are refused before), at most ``idle_timeout_s``: True once
        begun, False when it never did, or the ticket (``waiting`` again) when the gateway dissolved the match
        because a seat was not collected in time (asked once its claim time has passed)."""
        match_id = str(matched["match_id"])
        start = time.monotonic()
        deadline = start + self.settings.idle_timeout_s
        claim_by = start + float(matched.get("claim_in_s") or 0.0)
        asked = 0.0
        while time.monotonic() < deadline:
            try:
                if client.match(match_id).status != "open":
                    return True
            except (ConnectionError, OSError, GatewayError) as e:
                log.info("arena: the match's summary did not come; asking again", error=error_text(e))
            now = time.monotonic()
            if http is not None and matched.get("location") and now > claim_by and now - asked >= 1.0:
                asked = now
                try:
                    ticket = dict(self._request(http, "GET", str(matched["location"])))
                    if ticket.get("status") == "waiting":
                        return ticket
                except (ClientError, httpx.TransportError) as e:
                    log.info("arena: the ticket did not answer; asking again", error=error_text(e))
            time.sleep(0.2)  # (not stopping.wait: a stopping arena still plays the matches it was paired into)
        return False


def wait_ready(url: str, timeout_s: float = 30.0) -> None:
    """Until the gateway answers ``/readyz`` (a bot started with the service waits for it)."""
    deadline = time.monotonic() + timeout_s
    while True:
        try:
            if httpx.get(common.base_url(url) + "/readyz", timeout=5).status_code == 200:
                return
        except httpx.TransportError:
            pass
        if time.monotonic() > deadline:
            raise Unavailable(503, "unavailable", f"the gateway at {url} is not ready")
        time.sleep(0.5)

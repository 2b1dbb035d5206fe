"""Watching the deadlines of clocked matches (#29): each worker sweeps the partitions it serves.

The append script keeps, per partition, a sorted set of the clocked matches by their next deadline
(``{p}:clocks``, :meth:`~services.pipeline.ports.EventStore.due_clocks`), written in the same script as the events,
so it always agrees with the log and survives any process (and, with the shipped AOF config, Redis) restarting.
A worker looks at it every ``sweep_s`` for the partitions it leases (all of them when it is not serving), and for
each match whose deadline passed it decides the system command ``match.timeout`` itself, at the match's version,
with the command id ``timeout-v<version>-s<seat>``: the append refuses it if the match moved on (the seat acted
first: exactly one of them wins) and answers a second try with the first's result, so a deadline is applied at most
once whatever the number of workers. Nothing is removed by the sweep: the timeout's own append writes the match's
next deadline (or removes it), so a worker killed mid-sweep leaves the deadline due for the next one.

The move made for a seat that timed out is the game's heuristic bot's (its registration's plug-in), chosen from
the seat's view here and carried in the command's body, so replay and verify need no bot to decide it again.
"""

from __future__ import annotations

import time
from typing import Any

from schemas.clock import FORFEITED, TIMEOUT_COMMAND, timeout_id
from schemas.envelopes import CommandEnvelope, MatchMeta
from services import metrics
from services.games.clock import ClockedGame
from services.games.errors import Rejected
from services.games.registry import registration_of
from services.logs import error_text, get_logger
from services.pipeline.decision import decide, now_ms
from services.pipeline.ports import AppendStatus, EventStore
from services.pipeline.states import StateCache

log = get_logger("clocks")
SWEEP_S = 0.2
DUE_LIMIT = 200  # deadlines taken per partition and sweep


def stand_in_move(game: str, view: dict[str, Any], legal: list[dict[str, Any]], seed: int) -> dict[str, Any] | None:
    """The game's heuristic bot's choice for a seat that timed out; None (the first legal move is taken) when the
    game has none or it fails."""
    plugin = registration_of(game).bot
    if plugin is None or plugin.heuristic is None or not legal:
        return None
    try:
        return dict(plugin.heuristic(seed).choose(view, legal))
    except Exception as e:  # a bot's failure never stops a worker: the first legal move is taken instead
        log.warning("stand-in bot failed", game=game, error=error_text(e))
        return None


class ClockSweep:
    def __init__(self, store: EventStore, cache: StateCache, sweep_s: float = SWEEP_S) -> None:
        self.store = store
        self.cache = cache
        self.sweep_s = sweep_s
        self._last = 0.0

    def due(self, partitions: list[int] | None, meta_of: Any) -> int:
        """Decide the timeouts due in ``partitions`` (None: all), at most every ``sweep_s``; returns how many were
        applied. ``meta_of(match_id)``: the match's metadata with its seed (the worker's cached look-up)."""
        now = time.monotonic()
        if now - self._last < self.sweep_s or partitions == []:
            return 0
        self._last = now
        applied = 0
        for match_id, _ in self.store.due_clocks(partitions, now_ms(), DUE_LIMIT):
            try:
                applied += self.fire(meta_of(match_id))
            except Exception as e:  # one match's failure never stops the sweep (nor the worker)
                metrics.WORKER_ERRORS.inc()
                log.warning("timeout failed", match_id=match_id, error=error_text(e))
        return applied

    def fire(self, meta: MatchMeta | None) -> int:
        """Decide the timeout of the match's passed deadline, if one passed; 1 when it was appended."""
        if meta is None or meta.status != "running":
            return 0
        loaded = self.cache.load(meta)
        game, state, version = loaded.game, loaded.state, loaded.version
        if not isinstance(game, ClockedGame):
            return 0
        due = game.deadline(state)
        at = now_ms()
        if due is None or due[0] > at:
            return 0
        deadline, seat = due
        legal = [{"type": c.type, "body": c.body} for c in game.legal_commands(state, seat)]
        move = stand_in_move(meta.game, game.view(state, seat), legal, (meta.seed or 0) ^ version)
        env = CommandEnvelope(command_id=timeout_id(version, seat), match_id=meta.match_id, seat=seat,
                              type=TIMEOUT_COMMAND, body={"deadline_ms": deadline, "move": move},
                              expected_version=version)
        try:
            decided = decide(game, state, env, meta.seed or 0, version, at)
        except Rejected as e:
            log.info("timeout not applied", match_id=meta.match_id, seat=seat, version=version, reason=e.reason)
            return 0
        item = decided.item
        outcome = self.store.append(meta.match_id, version, item.events, item.result, item.finished, item.deadline)
        if outcome.status is not AppendStatus.APPENDED:  # the seat acted first, or another worker applied it
            self.cache.forget(meta.match_id)
            return 0
        loaded.state, loaded.version, loaded.top = decided.state, outcome.version, None
        forfeit = any(e.type == FORFEITED for e in item.events)
        metrics.CLOCK_TIMEOUTS.labels(meta.game, "forfeit" if forfeit else "stand_in").inc()
        metrics.CLOCK_LATE_SECONDS.observe(max(0, at - deadline) / 1000)
        log.info("timeout", match_id=meta.match_id, seat=seat, version=version, forfeit=forfeit,
                 late_ms=at - deadline)
        return 1

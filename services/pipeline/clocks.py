"""Watching the deadlines of clocked matches (#29): each worker sweeps the partitions it serves.

The append script keeps, per partition, a sorted set of the clocked matches by their next deadline
(``{p}:clocks``, :meth:`~services.pipeline.ports.EventStore.due_clocks`), written in the same script as the events,
so it always agrees with the log and survives any process (and, with the shipped AOF config, Redis) restarting.
A worker looks at it every ``sweep_s`` for the partitions it leases (all of them when it is not serving), and for
each match whose deadline passed it decides the system command ``match.timeout`` itself, at the match's version,
with the command id ``timeout-v<version>-s<seat>``, all of a sweep's timeouts appended in one round trip (as a
batch of commands is): the append refuses it if the match moved on (the seat acted
first: exactly one of them wins) and answers a second try with the first's result, so a deadline is applied at most
once whatever the number of workers. Nothing is removed by the sweep: the timeout's own append writes the match's
next deadline (or removes it), so a worker killed mid-sweep leaves the deadline due for the next one.

The move made for a seat that timed out is the game's heuristic bot's (its registration's plug-in), chosen from
the seat's view here and carried in the command's body, so replay and verify need no bot to decide it again.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from schemas.clock import FORFEITED, TIMEOUT_COMMAND, timeout_id
from schemas.envelopes import CommandEnvelope, MatchMeta
from services import metrics
from services.games.clock import ClockedGame
from services.games.errors import Rejected
from services.games.registry import builtin_games, registration_of
from services.logs import error_text, get_logger
from services.pipeline.decision import Decided, decide, now_ms
from services.pipeline.ports import AppendItem, AppendStatus, EventStore
from services.pipeline.states import Loaded, StateCache

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
        for game in builtin_games():  # exported from the start at 0, so rates and alerts see them
            for outcome in ("stand_in", "forfeit"):
                metrics.CLOCK_TIMEOUTS.labels(game, outcome)

    def due(self, partitions: list[int] | None, meta_of: Callable[[str], MatchMeta | None]) -> int:
        """Decide the timeouts due in ``partitions`` (None: all), at most every ``sweep_s``, and append them in one
        round trip; returns how many deadlines were due (the caller reads again at once when there were).
        ``meta_of(match_id)``: the match's metadata with its seed (the worker's cached look-up)."""
        now = time.monotonic()
        if now - self._last < self.sweep_s or partitions == []:
            return 0
        self._last = now
        try:
            due = self.store.due_clocks(partitions, now_ms(), DUE_LIMIT)
        except Exception as e:  # the sweep never stops the worker's commands (Redis away, an ACL without {p}:clocks)
            metrics.WORKER_ERRORS.inc()
            log.warning("clock sweep failed", error=error_text(e))
            return 0
        chains: dict[str, list[AppendItem]] = {}
        decided: dict[str, tuple[Loaded, Decided, str]] = {}
        for match_id, _ in due:
            try:
                found = self._decide(meta_of(match_id))
            except Exception as e:  # one match's failure never stops the sweep (nor the worker)
                metrics.WORKER_ERRORS.inc()
                log.warning("timeout failed", match_id=match_id, error=error_text(e))
                continue
            if found is not None:
                chains[match_id] = [found[1].item]
                decided[match_id] = found
        if chains:
            try:
                outcomes = self.store.append_chains(chains)
            except Exception as e:  # nothing appended that we know of: the deadlines stay due for the next sweep
                metrics.WORKER_ERRORS.inc()
                log.warning("timeouts not appended", error=error_text(e), matches=len(chains))
                for match_id in chains:
                    self.cache.forget(match_id)
                return len(due)
            for match_id, (loaded, made, game) in decided.items():
                got = outcomes.get(match_id) or []
                if got and got[0].status is AppendStatus.APPENDED:
                    loaded.state, loaded.version, loaded.top = made.state, got[0].version, None
                    self._count(game, made)
                else:  # the seat acted first, or another worker applied it: the next sweep sees the new state
                    self.cache.forget(match_id)
        return len(due)

    def _decide(self, meta: MatchMeta | None) -> tuple[Loaded, Decided, str] | None:
        """The timeout of the match's passed deadline, decided on the worker's state of it (the append refuses it
        if that state is behind: the match is then loaded afresh for the next sweep); None when none passed."""
        if meta is None or meta.status != "running":
            return None
        loaded = self.cache.get(meta.match_id) or self.cache.load(meta)
        game, state, version = loaded.game, loaded.state, loaded.version
        if not isinstance(game, ClockedGame):
            return None
        due = game.deadline(state)
        at = now_ms()
        if due is None or due[0] > at:
            return None
        deadline, seat = due
        legal = [{"type": c.type, "body": c.body} for c in game.legal_commands(state, seat)]
        move = stand_in_move(meta.game, game.view(state, seat), legal, (meta.seed or 0) ^ version)
        env = CommandEnvelope(command_id=timeout_id(version, seat), match_id=meta.match_id, seat=seat,
                              type=TIMEOUT_COMMAND, body={"deadline_ms": deadline, "move": move},
                              expected_version=version)
        try:
            return loaded, decide(game, state, env, meta.seed or 0, version, at), meta.game
        except Rejected as e:
            log.info("timeout not applied", match_id=meta.match_id, seat=seat, version=version, reason=e.reason)
            return None

    @staticmethod
    def _count(game: str, made: Decided) -> None:
        events = made.item.events
        forfeit = any(e.type == FORFEITED for e in events)
        metrics.CLOCK_TIMEOUTS.labels(game, "forfeit" if forfeit else "stand_in").inc()
        first = events[0].body if events else {}
        late = int(first.get("at_ms", 0)) - int(first.get("deadline_ms", 0))
        metrics.CLOCK_LATE_SECONDS.observe(max(0, late) / 1000)
        log.debug("timeout", match_id=made.item.result.match_id, seat=made.item.result.seat, forfeit=forfeit,
                  late_ms=late)

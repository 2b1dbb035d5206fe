"""One command decided on a match's state: its events as log envelopes, its result, the state it leaves, and the
match's next deadline (#29). The worker's batched and one-at-a-time paths and the clocks' sweep all decide here."""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from schemas.envelopes import CommandEnvelope, CommandResult
from services.games.base import Command, Game
from services.games.clock import ClockedGame, clock_of, decide_match
from services.games.rng import derive_rng
from services.pipeline.ports import AppendItem
from services.pipeline.states import to_envelope


@dataclass(slots=True)
class Decided:
    state: Any
    item: AppendItem
    events: int


def now_ms() -> int:
    """The server time a command is decided at (ms since the epoch): what a clocked match's events record."""
    return int(time.time() * 1000)


def next_deadline(game: Game[Any], state: Any) -> int:
    """What the append keeps for the clocks' sweep: the match's next deadline (ms), 0 for none, -1: no clock."""
    if clock_of(state) is None or not isinstance(game, ClockedGame):
        return -1
    due = game.deadline(state)
    return due[0] if due is not None else 0


def decide(game: Game[Any], state: Any, env: CommandEnvelope, seed: int, version: int,
           at_ms: int | None = None) -> Decided:
    """Decide ``env`` at ``version`` (raises the game's ``Rejected``). A clocked match's command is decided at
    ``at_ms`` (default: now), which its clock event records (verify decides it again at that time)."""
    clock = clock_of(state)
    at = (at_ms or now_ms()) if clock is not None and clock.started else None
    events = decide_match(game, state, Command(env.seat, env.type, env.body), derive_rng(seed, version), at)
    after = state
    for event in events:
        after = game.evolve(after, event)
    recorded = {"type": env.type, "body": env.body}  # (a clocked command's last event records ``at``)
    envelopes = [to_envelope(env.match_id, version + i + 1, e, env.command_id, env.seat,
                             recorded if i == 0 else None) for i, e in enumerate(events)]
    result = CommandResult.model_construct(command_id=env.command_id, match_id=env.match_id, seat=env.seat,
                                           status="accepted", version=version + len(events), events=len(events),
                                           code=None, reason=None)  # from checked values: not validated again
    item = AppendItem(version, envelopes, result, game.outcome(after) is not None, next_deadline(game, after))
    return Decided(after, item, len(events))

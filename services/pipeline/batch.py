"""A match's commands of one worker batch, decided in memory one after another and appended as one chain.

Each command is decided on the state its predecessor in the chain left (the first on the worker's cached
state, which may be behind the store: the chain's first expected version then conflicts, and nothing of
the chain is applied). The store applies a chain atomically in order and stops at the first command it
does not append, so every command appended was decided on exactly the state at its version.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from services.pipeline.ports import AppendItem, AppendOutcome, AppendStatus, Delivery
from services.pipeline.states import Loaded


@dataclass(slots=True)
class Chain:
    loaded: Loaded
    """The worker's cache entry: moved on to the last appended state once the outcomes are in."""
    state: Any
    version: int
    deliveries: list[Delivery] = field(default_factory=list)
    items: list[AppendItem] = field(default_factory=list)
    after: list[tuple[Any, int]] = field(default_factory=list)
    unsettled: list[Delivery] = field(default_factory=list)
    """Deliveries the chain did not settle (conflict, or not tried after a duplicate or conflict)."""
    command_ids: set[str] = field(default_factory=set)
    conflicted: bool = False
    """The store found the match at another version than the chain expected (another worker moved it)."""

    @classmethod
    def start(cls, loaded: Loaded) -> Chain:
        return cls(loaded, loaded.state, loaded.version)

    def add(self, delivery: Delivery, item: AppendItem, state: Any, version: int) -> None:
        """The command's append, and the state and version it leaves."""
        self.deliveries.append(delivery)
        self.command_ids.add(item.result.command_id)
        self.items.append(item)
        self.after.append((state, version))
        self.state, self.version = state, version

    def settle(self, outcomes: Sequence[AppendOutcome]) -> list[tuple[Delivery, AppendItem, AppendOutcome]]:
        """Sort the store's outcomes: returns the commands settled (appended, or duplicates that got their
        earlier result) and moves the cache entry on to the last appended state; the rest go to
        :attr:`unsettled`."""
        settled = []
        for i, delivery in enumerate(self.deliveries):
            outcome = outcomes[i] if i < len(outcomes) else None
            if outcome is None or outcome.status is AppendStatus.CONFLICT:
                self.conflicted = self.conflicted or outcome is not None
                self.unsettled.append(delivery)
                continue
            settled.append((delivery, self.items[i], outcome))
            if outcome.status is AppendStatus.APPENDED:
                self.loaded.state, self.loaded.version = self.after[i]
                self.loaded.top = None  # (known only when folded from the log or the feed)
        return settled

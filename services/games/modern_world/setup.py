"""Setting a match up: ``MatchStarted``, the shuffled decks, the leader, then the nations or the deal."""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

import services.games.modern_world.flow as flow
from services.games.base import Event
from services.games.kit import check_options
from services.games.modern_world.codec import event_names, market_names, res_names
from services.games.modern_world.data import EVENTS, MARKETS, RESOURCE_COPIES, RESOURCES
from services.games.modern_world.schemas import Options
from services.games.modern_world.state import Phase, State

NAME = "modern-world"
TITLE = "Modern World"
MIN_SEATS, MAX_SEATS = 2, 6


def setup(options: Mapping[str, Any], seats: int, rng: random.Random) -> list[Event]:
    opts = check_options(Options, TITLE, MIN_SEATS, MAX_SEATS, options, seats)
    resources = [i for i in range(len(RESOURCES)) for _ in range(RESOURCE_COPIES)]
    markets = list(range(len(MARKETS)))
    events = list(range(len(EVENTS)))
    rng.shuffle(resources)
    rng.shuffle(markets)
    rng.shuffle(events)
    tape = flow.new_tape(State(), rng)
    tape.emit("MatchStarted", {"game": NAME, "seats": seats, "options": opts.model_dump()})
    counts = [len(resources), len(markets), len(events)]
    tape.emit(
        "DecksShuffled",
        {
            "resource": res_names(resources),
            "market": market_names(markets),
            "events": event_names(events),
            "counts": counts,
        },
        visible_to=(),
        redacted={"counts": list(counts)},
    )
    leader = rng.randrange(seats)
    tape.emit("LeaderChosen", {"seat": leader})
    if opts.national_identity:
        tape.emit("PhaseStarted", {"phase": Phase.NATIONS.value, "order": list(tape.state.order_from(leader))})
    else:
        flow.deal_tableau(tape)
        flow.start_turn(tape)
    return tape.events

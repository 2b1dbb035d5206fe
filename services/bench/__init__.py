"""The benchmarks of ``airship bench`` (:mod:`services.cli.bench` parses their flags):

- :mod:`.pipeline`: commands per second end to end through Redis with 1, 2, 4... worker processes;
- :mod:`.reducers`: decide+evolve steps per second of each built-in game (no Redis);
- :mod:`.replay`: events per second rebuilding states from exported logs (no Redis);
- :mod:`.memory`: Redis bytes per event and per finished match;
- :mod:`.gateway`: commands per second and latency through the gateway's WebSocket, beside the same load
  published straight to the command streams.

The pipeline and gateway benchmarks play the ``tally`` game (:mod:`services.pipeline.bench_game`), whose
rules cost nothing, so they measure the pipeline. It is not a built-in game: :func:`register_tally`
registers it in this process, and the worker and projector processes they start are given it through
``AIRSHIP_GAME_MODULES`` (:data:`TALLY_MODULES`).
"""

from __future__ import annotations

from typing import Any

from services.games import register
from services.games.base import Game

TALLY_MODULES = "services.pipeline.bench_game:TALLY"
"""``AIRSHIP_GAME_MODULES`` of the processes a benchmark starts: the tally game, registered there."""


def register_tally() -> Game[Any]:
    """Register the tally game in this process (a benchmark's lobby must know it)."""
    from services.pipeline.bench_game import TALLY

    return register(TALLY)

"""The benchmarks of ``airship bench`` (:mod:`services.cli.bench` parses their flags):

- :mod:`.pipeline`: drain rate of a prefilled command queue with 1, 2, 4... worker processes (tally and real
  games), open-loop command-to-result latency at fixed rates, beside redis-benchmark XADD;
- :mod:`.reducers`: decide+evolve and whole random-playout steps per second of each built-in game (no Redis);
- :mod:`.replay`: events per second rebuilding states from exported logs (no Redis);
- :mod:`.memory`: Redis bytes per event and per finished match;
- :mod:`.gateway`: commands per second and latency through the gateway's WebSocket, beside the same load
  published straight to the command streams.

The gateway benchmark and the pipeline benchmark's tally runs play the ``tally`` game
(:mod:`services.pipeline.bench_game`), whose rules cost nothing, so they measure the pipeline. It is not a
built-in game: :func:`register_tally` registers it in this process, and the worker and projector processes
they start are given it through ``AIRSHIP_GAME_MODULES`` (:data:`TALLY_MODULES`).
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

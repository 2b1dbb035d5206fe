"""Per-game plug-ins for the bots, and the bot factory.

Everything in ``services/bots`` is generic over the game contract; what only a game can know lives in
its :class:`GamePlugin`, the ``bot`` of its registration (:mod:`services.games.registration`; by
convention the module ``bot.py`` of the game's package):

- ``resample(view, seat, rng) -> state``: a full state consistent with that seat's view, the hidden parts
  drawn at random (a pure function in the game's package). Information-set MCTS needs it.
- ``heuristic(seed) -> Bot``: the game's hand-written bot.
- ``encode(view) -> list[float]`` of length ``obs_size``: the observation vector for learning agents
  (without it, :func:`flatten_numbers` is used), and ``max_actions``: the bound on the legal command
  list that the PettingZoo action space offers.
- ``rollout(state, seat, rng) -> Command | None``: an optional cheap playout policy for ISMCTS that
  builds a legal command without enumerating them all (None: pick uniformly among the legal commands);
  ``evaluate(state) -> Outcome``: the standing of an unfinished match, so playouts may stop after
  ``rollout_steps`` commands (0: play to the end); ``rank(view, legal) -> values``: how promising
  each legal command looks to the heuristic, so ISMCTS searches only the best few at its root.
- ISMCTS's guided search (see :mod:`services.bots.ismcts`), which plays the heuristic in its playouts:
  ``search_when(view, legal) -> bool`` (None: always) says which decisions are worth a search (the others
  take the heuristic's choice); ``playout_commands(state, seat) -> list[Command] | None`` gives the playout
  heuristic a short list where the full one is long and costly (None: the full one); ``guided_width``
  candidates, playouts of ``guided_rollout_steps`` commands (0: to the end), and the bar another
  candidate must clear to replace the heuristic's (``guided_margin`` in reward, ``guided_confidence``
  standard errors); ``guided_score_weight`` of the reward is the score margin, the rest the win;
  ``guided_halving`` spends the playouts by successive halving (the worse half of the
  challengers dropped after each stage);
  ``search_iterations``: the playouts a move of ``ismcts`` without a number; ``playout_stream(state) -> int``
  (None: the step's number) names the random stream of a playout step by where the match is (a turn and
  who acts, say), so the dice stay alike across the candidates even when their playouts take a different
  number of commands to get there.

Adding a game: write ``resample`` in the game's package (tested by ``tests/bots/test_plugins.py``, which
loops over every registered plug-in), a heuristic bot and optionally an encoder in the package's
``bot.py`` defining ``PLUGIN = GamePlugin(...)``, and name it in the game's registration (``bot=PLUGIN``).
The tournament, ISMCTS and PettingZoo code need nothing more.

A bot kind is named ``kind`` or ``kind:parameter`` (``ismcts:400`` is ISMCTS with 400 iterations; bare
``ismcts`` uses the plug-in's ``search_iterations``, else 200).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from services.bots.base import Bot, CommandDict, RandomBot
from services.games.base import Command, Outcome
from services.games.errors import BadOptions
from services.games.registry import REGISTRATIONS, registration_of

Resample = Callable[[Mapping[str, Any], int, random.Random], Any]
Encode = Callable[[Mapping[str, Any]], list[float]]
Rollout = Callable[[Any, int, random.Random], Command | None]
Evaluate = Callable[[Any], Outcome]
Rank = Callable[[Mapping[str, Any], Sequence[CommandDict]], list[float]]
SearchWhen = Callable[[Mapping[str, Any], Sequence[CommandDict]], bool]
PlayoutCommands = Callable[[Any, int], list[Command] | None]
PlayoutStream = Callable[[Any], int]

DEFAULT_OBS_SIZE = 64
DEFAULT_MAX_ACTIONS = 64


@dataclass(frozen=True)
class GamePlugin:
    game: str
    resample: Resample | None = None
    heuristic: Callable[[int], Bot] | None = None
    encode: Encode | None = None
    obs_size: int = DEFAULT_OBS_SIZE
    max_actions: int = DEFAULT_MAX_ACTIONS
    rollout: Rollout | None = None
    evaluate: Evaluate | None = None
    rollout_steps: int = 0
    rank: Rank | None = None
    search_when: SearchWhen | None = None
    playout_commands: PlayoutCommands | None = None
    search_iterations: int | None = None
    guided_width: int = 4
    guided_rollout_steps: int = 0
    guided_margin: float = 0.02
    guided_confidence: float = 1.5
    guided_score_weight: float = 0.3
    guided_halving: bool = False
    playout_stream: PlayoutStream | None = None


def plugins() -> dict[str, GamePlugin]:
    """Game name -> its plug-in, for every registered game that has one."""
    return {name: r.bot for name, r in REGISTRATIONS.items() if r.bot is not None}


def plugin_for(game: str) -> GamePlugin:
    """The game's plug-in; a bare one (random bots, generic encoder) for a game without its own."""
    return registration_of(game).bot or GamePlugin(game)  # an unknown game is a clear error


def flatten_numbers(view: Mapping[str, Any], size: int) -> list[float]:
    """Every number and boolean in the view, depth first in key order, cut or zero-padded to ``size``."""
    out: list[float] = []

    def walk(value: Any) -> None:
        if len(out) >= size:
            return
        if isinstance(value, bool | int | float):
            out.append(float(value))
        elif isinstance(value, Mapping):
            for key in sorted(value, key=str):
                walk(value[key])
        elif isinstance(value, list | tuple):
            for item in value:
                walk(item)

    walk(view)
    return (out + [0.0] * size)[:size]


def encoder_for(game: str) -> tuple[Encode, int]:
    plugin = plugin_for(game)
    if plugin.encode is not None:
        return plugin.encode, plugin.obs_size
    size = plugin.obs_size
    return (lambda view: flatten_numbers(view, size)), size


BOT_KINDS = ("random", "heuristic", "ismcts")


def make_bot(spec: str, game: str, seed: int) -> Bot:
    """A bot from its name: ``random``, ``heuristic``, ``ismcts`` or ``ismcts:<iterations>``."""
    kind, _, param = spec.strip().partition(":")
    plugin = plugin_for(game)
    if kind == "random":
        return RandomBot(seed)
    if kind == "heuristic":
        if plugin.heuristic is None:
            raise BadOptions(f"no heuristic bot for {game} yet")
        return plugin.heuristic(seed)
    if kind == "ismcts":
        from services.bots.ismcts import ISMCTSBot

        if plugin.resample is None:
            raise BadOptions(f"ISMCTS needs {game} to resample hidden state; it does not yet")
        try:
            iterations = int(param) if param else plugin.search_iterations or ISMCTSBot.default_iterations
        except ValueError:
            raise BadOptions(f"'{spec}': the ISMCTS parameter is a number of iterations") from None
        return ISMCTSBot(game, seed, iterations=iterations)
    raise BadOptions(f"unknown bot '{spec}'; known: {', '.join(BOT_KINDS)} (ismcts:<iterations>)")

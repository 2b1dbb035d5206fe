"""One object per game: everything of it that the layers need, named by one entry point.

A game package ``services/games/<game>/`` ends in a ``REGISTRATION = Registration(...)`` and
``pyproject.toml`` names it once::

    [project.entry-points."airship.games"]
    moderne-zeiten = "services.games.moderne_zeiten.registration:REGISTRATION"

The gateway, the web app, chat, replay, the bots and the tests read a game from here and nowhere else:
the rules (``game``), the wire shapes (``schemas``), the title, the bot plug-in, the chat adapter, the text
board, the web board (a JS module served at ``/web/games/<game>.js``), the replay chart's standings, the
conformance candidates, the secrecy perturber, the secret commands and the parameters of the whole-stack tests.
Everything but ``game`` is optional (``upcasters``: a function registering the game's event upcasters,
:mod:`schemas.upcast`): a bare game is played by random bots, in chat with the generic adapter, shown as its
view's fields, and its secrecy is checked with a perturber drawn from its ``resample`` (a game with neither
fails that test). ``logs`` names the folder of the game's checked-in old match logs, which CI verifies forever.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from services.games.base import Game

if TYPE_CHECKING:
    from schemas.game_schemas import GameSchemas
    from schemas.upcast import Upcasters
    from services.bots.plugins import GamePlugin
    from services.chat.adapter import ChatAdapter

Numbers = list[float | None]
Standing = Callable[[Any, Mapping[str, Any]], tuple[Numbers, "Numbers | None"]]
"""``standing(state, public_view) -> (scores, money)``: each seat's score as it stands, from public
information only, and its money (None: the game has none), for the replay chart."""
Candidates = Callable[[Any, int], list[tuple[str, dict[str, Any]]]]
"""``candidates(state, seat) -> [(type, body)]``: a broad superset of what a seat might send (legal or not),
for the conformance suite's legal-completeness check."""
Perturb = Callable[[Any, "int | None", random.Random], Any]
"""``perturb(state, seat, rng) -> state``: the state with everything hidden from ``seat`` (None: a
spectator) changed; that seat's view must not change."""
Texts = Callable[[], Mapping[str, Mapping[str, str]]]
"""``texts() -> {kind: {name: words}}``: the game's pieces (cards, Traitors, events) explained for people, built
from its data tables: the web board's card texts and tooltips (served at ``/web/games/<game>/texts.json``)."""
Renderer = Callable[[Mapping[str, Any]], str]
"""``render(view) -> text``: the game's board as text (replay, CLI)."""


@dataclass(frozen=True)
class TestParameters:
    """How the whole-stack, browser, JS-client and arena tests play the game.

    ``seats``: the table they use (None: the smallest); ``browser_bot``: the bot that plays the other seats
    in the browser test; ``stack_steps``: commands played in the whole-stack secrecy test (None: to the end);
    ``arena_matches`` / ``arena_stack_matches``: matches of the rating-convergence test in process / through
    the stack, and ``heuristic_wins``: the least share of those the heuristic bot wins against random ones.
    """

    __test__ = False  # not a pytest test class

    seats: int | None = None
    browser_bot: str = "random"
    stack_steps: int | None = None
    arena_matches: int = 100
    arena_stack_matches: int = 6
    heuristic_wins: float = 0.8


@dataclass(frozen=True)
class Registration:
    """Everything of one game; see the module docstring. ``web_board`` is the path of its JS module, ``texts`` its
    pieces in words and ``rules`` the path of its rules in short (Markdown, the web app's rules page)."""

    game: Game[Any]
    schemas: GameSchemas | None = None
    bot: GamePlugin | None = None
    chat: ChatAdapter | None = None
    board: Renderer | None = None
    web_board: Path | None = None
    texts: Texts | None = None
    rules: Path | None = None
    standing: Standing | None = None
    candidates: Candidates | None = None
    perturb: Perturb | None = None
    tests: TestParameters = field(default_factory=TestParameters)
    upcasters: Callable[[Upcasters], None] | None = None
    logs: Path | None = None
    """The folder of the game's checked-in match logs (``*.jsonl.gz``, as ``airship play --save-log`` writes and
    the archive keeps them): kept forever, each read, replayed and verified by CI against the current code
    (tests/conformance/test_old_logs.py), so a change that old matches no longer replay through fails."""
    secret_commands: frozenset[str] = frozenset()
    """The command types whose choice the rules keep hidden from (some of) the other players until it is revealed
    (a draft pick, a card given, a trade offered to one player): a client must send them privately. A chat table
    refuses them in its channel and asks for them by private message. Each must be one of ``schemas.commands``;
    the conformance suite (``tests/conformance/test_secret_commands.py``) checks that each hides something and
    that every command whose own choice lands in a hidden part of its events is named here."""

    def __post_init__(self) -> None:
        if self.schemas is not None:
            unknown = set(self.secret_commands) - set(self.schemas.commands)
            if unknown:
                raise ValueError(f"{self.game.name}: secret_commands names no command of the game: {sorted(unknown)}")

    @property
    def name(self) -> str:
        return self.game.name

    @property
    def title(self) -> str:
        return self.game.title

    @property
    def web_board_url(self) -> str | None:
        """Where the gateway serves the web board (``services.web``), None for the generic one."""
        return f"/web/games/{self.name}.js" if self.web_board is not None else None

    @property
    def texts_url(self) -> str | None:
        """Where the gateway serves the game's pieces in words (``services.web``), None: it has none."""
        return f"/web/games/{self.name}/texts.json" if self.texts is not None else None

    @property
    def rules_url(self) -> str | None:
        """Where the gateway serves the game's rules in short, None: it has none."""
        return f"/web/games/{self.name}/rules.md" if self.rules is not None else None

    def table_seats(self) -> int:
        """The seats of the table the whole-stack tests use."""
        return self.tests.seats or self.game.min_seats

    def perturber(self) -> Perturb | None:
        """The game's perturber, else one drawn from its bot plug-in's ``resample``: a fresh state drawn from
        what a seat sees (seat 0 for a spectator, who sees less than any seat) differs from the true one only
        in what that seat may not see. None when the game has neither."""
        if self.perturb is not None:
            return self.perturb
        resample = self.bot.resample if self.bot is not None else None
        if resample is None:
            return None
        view = self.game.view

        def perturb(state: Any, seat: int | None, rng: random.Random) -> Any:
            observer = 0 if seat is None else seat
            return resample(view(state, observer), observer, rng)

        return perturb


def bare(game: Game[Any]) -> Registration:
    """The registration of a game with nothing but its rules (a test game, the benchmark game)."""
    return Registration(game)

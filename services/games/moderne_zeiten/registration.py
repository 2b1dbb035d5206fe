"""Moderne Zeiten, as the layers see it: one registration, named by the entry point ``moderne-zeiten`` of
``airship.games`` in ``pyproject.toml``."""

from __future__ import annotations

from pathlib import Path

from services.games.moderne_zeiten import GAME
from services.games.moderne_zeiten.board import render, standing
from services.games.moderne_zeiten.bot import PLUGIN
from services.games.moderne_zeiten.candidates import candidates
from services.games.moderne_zeiten.chat import ModerneZeitenAdapter
from services.games.moderne_zeiten.resample import perturb
from services.games.moderne_zeiten.schemas import SCHEMAS
from services.games.moderne_zeiten.texts import texts
from services.games.registration import Registration, TestParameters

REGISTRATION = Registration(
    game=GAME,
    schemas=SCHEMAS,
    bot=PLUGIN,
    chat=ModerneZeitenAdapter(),
    board=render,
    web_board=Path(__file__).with_name("board.js"),
    logs=Path(__file__).with_name("logs"),
    texts=texts,
    rules=Path(__file__).with_name("rules.md"),
    standing=standing,
    candidates=candidates,
    perturb=perturb,
    tests=TestParameters(seats=3, browser_bot="heuristic", arena_matches=130, arena_stack_matches=6,
                         heuristic_wins=0.78),
)

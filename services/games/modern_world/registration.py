"""Modern World, as the layers see it: one registration, named by the entry point ``modern-world`` of
``airship.games`` in ``pyproject.toml`` (its secrecy perturber is drawn from the bot plug-in's ``resample``)."""

from __future__ import annotations

from pathlib import Path

from services.games.modern_world import GAME
from services.games.modern_world.board import render, standing
from services.games.modern_world.bot import PLUGIN
from services.games.modern_world.candidates import candidates
from services.games.modern_world.chat import ModernWorldAdapter
from services.games.modern_world.schemas import SCHEMAS, SECRET_COMMANDS
from services.games.modern_world.texts import texts
from services.games.registration import Registration, TestParameters

REGISTRATION = Registration(
    game=GAME,
    schemas=SCHEMAS,
    bot=PLUGIN,
    chat=ModernWorldAdapter(),
    board=render,
    web_board=Path(__file__).with_name("board.js"),
    logs=Path(__file__).with_name("logs"),
    texts=texts,
    rules=Path(__file__).with_name("rules.md"),
    standing=standing,
    candidates=candidates,
    secret_commands=SECRET_COMMANDS,
    tests=TestParameters(seats=2, browser_bot="random", stack_steps=60, arena_matches=70, arena_stack_matches=3,
                         heuristic_wins=0.9),
)

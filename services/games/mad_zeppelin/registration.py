"""Mad Zeppelin, as the layers see it: one registration, named by the entry point ``mad-zeppelin`` of
``airship.games`` in ``pyproject.toml`` (its secrecy perturber is drawn from the bot plug-in's ``resample``)."""

from __future__ import annotations

from pathlib import Path

from services.games.mad_zeppelin import GAME
from services.games.mad_zeppelin.board import render, standing
from services.games.mad_zeppelin.bot import PLUGIN
from services.games.mad_zeppelin.candidates import candidates
from services.games.mad_zeppelin.chat import MadZeppelinAdapter
from services.games.mad_zeppelin.schemas import SCHEMAS, SECRET_COMMANDS
from services.games.mad_zeppelin.texts import texts
from services.games.registration import Registration, TestParameters

REGISTRATION = Registration(
    game=GAME,
    schemas=SCHEMAS,
    bot=PLUGIN,
    chat=MadZeppelinAdapter(),
    board=render,
    web_board=Path(__file__).with_name("board.js"),
    logs=Path(__file__).with_name("logs"),
    texts=texts,
    rules=Path(__file__).with_name("rules.md"),
    standing=standing,
    candidates=candidates,
    secret_commands=SECRET_COMMANDS,
    tests=TestParameters(seats=2, browser_bot="heuristic", arena_matches=100, arena_stack_matches=12,
                         heuristic_wins=0.9),
)

"""Shared fixtures. Redis tests use their own key prefix per run and clean up after themselves."""

from __future__ import annotations

import os

from hypothesis import settings

import tests.bots.nim_plugin  # (registers the test game's bot plug-in)
import tests.pipeline.nim  # noqa: F401  (registers the test game)
from services.games import register
from tests.games.liars_dice.game import REGISTRATION as LIARS_DICE

register(LIARS_DICE)  # the test game built the way a game is added: the shared suites run over it (tests/registered.py)

# CI runs the property tests derandomized, so a run is reproducible and a failure is never luck;
# locally they explore new examples every run.
settings.register_profile("ci", derandomize=True)
if os.environ.get("CI"):
    settings.load_profile("ci")

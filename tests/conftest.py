"""Shared fixtures. Redis tests use their own key prefix per run and clean up after themselves."""

from __future__ import annotations

import tests.bots.nim_plugin  # (registers the test game's bot plug-in)
import tests.pipeline.nim  # noqa: F401  (registers the test game)

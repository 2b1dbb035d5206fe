"""What every test run shares, wherever the test lives (tests/, and each game's own tests in
services/games/<game>/tests/): CI runs the property tests derandomized, so a run is reproducible and a failure is
never luck; locally they explore new examples every run. The rest of the shared fixtures are in tests/conftest.py."""

from __future__ import annotations

import os

from hypothesis import settings

settings.register_profile("ci", derandomize=True)
if os.environ.get("CI"):
    settings.load_profile("ci")

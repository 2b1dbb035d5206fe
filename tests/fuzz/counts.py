"""How many fuzz inputs each kind of test pushed through the worker, and how they ended."""

from __future__ import annotations

import os
from collections import Counter

from hypothesis import HealthCheck, settings

COUNTS: Counter[str] = Counter()
MAX_EXAMPLES = int(os.environ.get("AIRSHIP_FUZZ_EXAMPLES", "150"))

FUZZ = settings(max_examples=MAX_EXAMPLES, deadline=None,
                suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow,
                                       HealthCheck.data_too_large])

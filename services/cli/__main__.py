"""``python -m services.cli ...``: the ``airship`` command without its console script (how processes start
other airship processes: the worker and projector of a benchmark, the chaos run's workers, the stack)."""

from __future__ import annotations

import sys

from services.cli import main

sys.exit(main())

"""Test-only fault injection, for the crash tests of real processes.

``AIRSHIP_FAULT=<point>[:<n>]`` makes the process die at once (``os._exit``, as abrupt as SIGKILL: no
cleanup, no acknowledgement) the n-th time (default: the first) it passes ``fault_point(<point>)``.
Points: ``after_read`` (a command was read, nothing done yet) and ``after_append`` (appended, not yet
acknowledged). Unset, a fault point costs one string comparison.
"""

from __future__ import annotations

import os
from collections import Counter

EXIT_CODE = 86
_SPEC = os.environ.get("AIRSHIP_FAULT", "")
_NAME, _, _NTH = _SPEC.partition(":")
_passed: Counter[str] = Counter()


def fault_point(name: str) -> None:
    if name != _NAME:
        return
    _passed[name] += 1
    if _passed[name] >= int(_NTH or 1):
        os._exit(EXIT_CODE)

"""Test-only fault injection, for the crash tests of real processes.

``AIRSHIP_FAULT=<point>[:<n>]`` makes the process die at once (``os._exit``, as abrupt as SIGKILL: no
cleanup, no acknowledgement) the n-th time (default: the first) it passes ``fault_point(<point>)``.
Points: ``after_read`` (a command was read, nothing done yet), ``decided`` (a batch decided in memory,
nothing appended), ``between_appends`` (half of a batch's appends sent, the rest not), ``after_append``
(appended, not yet acknowledged). Unset, a fault point costs one string comparison.
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


def armed(name: str) -> bool:
    """Whether ``fault_point(name)`` may fire in this process (code that must act differently to reach
    the point, e.g. split a round trip in two, asks this first)."""
    return name == _NAME

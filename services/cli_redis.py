"""CLI commands of the Redis service: worker, projector, lobby. (Filled in by the pipeline work.)"""

from __future__ import annotations

import argparse
from collections.abc import Callable

Handler = Callable[[argparse.Namespace], int]
COMMANDS: dict[str, Handler] = {}


def add_parsers(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    return None

"""The rejection family: every way a command can be refused, with a reason a player understands.

`decide` raises one of these (starting with ``services.games.skeleton.prologue``, which words the common cases
the same for every game); the worker turns it into a rejected command result. A rejection never
changes state. The `code` is stable and machine-readable; the message is for people.
"""

from __future__ import annotations

GAME_OVER = "the match is over"
"""The one wording of :class:`GameOver` (``services.games.skeleton.prologue``, ``services.games.abandon``)."""
NOT_STARTED = "the match has not started"


class Rejected(Exception):
    """A command was refused. Nothing changed."""

    code = "rejected"

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class BadCommand(Rejected):
    """The command is malformed: unknown type, missing or ill-typed fields."""

    code = "bad_command"


class NotYourTurn(Rejected):
    """The seat may not act now."""

    code = "not_your_turn"


class IllegalMove(Rejected):
    """Well-formed and in turn, but the rules forbid it (too little money, cards not in hand...)."""

    code = "illegal_move"


class GameOver(Rejected):
    """The match has ended; no command is accepted any more."""

    code = "game_over"


class BadOptions(Rejected):
    """Match options or seat count the game does not support."""

    code = "bad_options"


class Unauthorized(Rejected):
    """The seat credential is missing or wrong."""

    code = "unauthorized"


class StaleVersion(Rejected):
    """The command named an ``expected_version`` the match has moved past: decide again on the new view."""

    code = "conflict"


class FutureVersion(Rejected):
    """The command named an ``expected_version`` the match has not reached: the client counts versions wrongly
    (it never saw a view at that version), so deciding again on a newer view will not help by itself."""

    code = "future_version"


def version_mismatch(version: int, expected: int) -> Rejected:
    """The rejection of a command expecting ``expected`` when the match is at ``version`` (they differ):
    :class:`StaleVersion` when the match is past it, :class:`FutureVersion` when it has not got there."""
    if expected < version:
        return StaleVersion(f"the match is at version {version}, past expected_version {expected}")
    return FutureVersion(f"the match is at version {version}; expected_version {expected} has not happened")

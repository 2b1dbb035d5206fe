"""The rejection family: every way a command can be refused, with a reason a player understands.

`decide` raises one of these; the worker turns it into a rejected command result. A rejection never
changes state. The `code` is stable and machine-readable; the message is for people.
"""

from __future__ import annotations


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

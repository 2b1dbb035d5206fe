"""Structured logs: JSON lines on stderr carrying match id, command id and version where known."""

from __future__ import annotations

import logging
import sys
from typing import TextIO, cast

import structlog


class _Stderr:
    """Whatever ``sys.stderr`` is when a line is written, not when logging was configured: a stream that was
    replaced and closed since (a test's captured output) would make every later log call raise."""

    def write(self, text: str) -> int:
        return sys.stderr.write(text)

    def flush(self) -> None:
        sys.stderr.flush()


def configure(level: str = "info", json: bool = True) -> None:
    processors: list[structlog.typing.Processor] = [
        structlog.contextvars.merge_contextvars,
        structlog.processors.add_log_level,
        structlog.processors.TimeStamper(fmt="iso", utc=True),
        structlog.processors.format_exc_info,
        structlog.processors.JSONRenderer() if json else structlog.dev.ConsoleRenderer(colors=False),
    ]
    structlog.configure(
        processors=processors,
        wrapper_class=structlog.make_filtering_bound_logger(getattr(logging, level.upper(), logging.INFO)),
        logger_factory=structlog.PrintLoggerFactory(file=cast(TextIO, _Stderr())),
        cache_logger_on_first_use=True,
    )


def get_logger(component: str) -> structlog.typing.FilteringBoundLogger:
    return structlog.get_logger(component=component)  # type: ignore[no-any-return]


def error_text(e: BaseException) -> str:
    """An exception for a log line: its type and its message. (``repr`` of a redis-py 8 error is only
    ``server:ResponseError``, dropping the server's message, e.g. the NOPERM saying which command was refused.)"""
    message = str(e)
    return f"{type(e).__name__}: {message}" if message else type(e).__name__

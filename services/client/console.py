"""Command-line helpers for the commands that go through the gateway: the ``--url`` option and one-line
errors (``airship: <what went wrong>`` on stderr and a non-zero exit, never a traceback)."""

from __future__ import annotations

import argparse
import functools
import os
import sys
from collections.abc import Callable

from services.client.errors import ClientError, Timeout
from services.client.http import GatewayClient

URL_ENV = "AIRSHIP_URL"
Handler = Callable[[argparse.Namespace], int]

EXIT_TIMEOUT = 1
EXIT_ERROR = 2


def add_url(p: argparse.ArgumentParser, help: str | None = None) -> None:
    """``--url``: the gateway, default ``$AIRSHIP_URL``."""
    p.add_argument("--url", default=os.environ.get(URL_ENV) or None,
                   help=help or f"the gateway URL, e.g. http://localhost:8000 (default: ${URL_ENV})")


def client_for(args: argparse.Namespace) -> GatewayClient:
    """The gateway client for ``--url``; a missing URL is a one-line error."""
    if not args.url:
        raise ClientError(f"name the gateway with --url URL or ${URL_ENV}")
    return GatewayClient(args.url, timeout_s=getattr(args, "http_timeout_s", 10.0))


def say_error(message: object) -> None:
    print(f"airship: {' '.join(str(message).split())}", file=sys.stderr, flush=True)


def one_line_errors(handler: Handler) -> Handler:
    """Run a command handler; a client error becomes one line on stderr and exit 2 (1 for a timeout)."""

    @functools.wraps(handler)
    def run(args: argparse.Namespace) -> int:
        try:
            return handler(args)
        except Timeout as e:
            say_error(e)
            return EXIT_TIMEOUT
        except (ClientError, ValueError) as e:
            say_error(e)
            return EXIT_ERROR
        except KeyboardInterrupt:
            return 130

    return run

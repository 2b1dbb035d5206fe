"""``airship gateway``: the HTTP + WebSocket door for players (docs/gateway.md), served by uvicorn."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import TypeAlias

Handler = Callable[[argparse.Namespace], int]
SubParsers: TypeAlias = "argparse._SubParsersAction[argparse.ArgumentParser]"


def add_parsers(sub: SubParsers) -> None:
    p = sub.add_parser("gateway", help="serve the HTTP + WebSocket API for players (the only door to Redis)")
    p.add_argument("--redis", default=None, help="Redis URL (default: $AIRSHIP_REDIS_URL or the local server)")
    p.add_argument("--prefix", default=None, help="key prefix (default: $AIRSHIP_KEY_PREFIX or 'airship')")
    p.add_argument("--partitions", type=int, default=None, help="partitions P (default: $AIRSHIP_PARTITIONS or 16)")
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (0.0.0.0 in a container)")
    p.add_argument("--port", type=int, default=8000)


def cmd_gateway(args: argparse.Namespace) -> int:
    import uvicorn

    from services.cli_redis import settings_from
    from services.gateway.app import create_app

    args.metrics_port = None
    settings = settings_from(args)
    app = create_app(settings)
    uvicorn.run(app, host=args.host, port=args.port, log_level="warning", access_log=False,
                ws_max_size=max(settings.gateway_max_body * 4, 1 << 20), timeout_graceful_shutdown=10,
                proxy_headers=bool(settings.gateway_trust_proxy), server_header=False,
                ws_per_message_deflate=False)  # messages are a few hundred bytes: compressing them costs more
    return 0


COMMANDS: dict[str, Handler] = {"gateway": cmd_gateway}

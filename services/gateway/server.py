"""Serving the gateway with uvicorn (``airship gateway``), and stopping it promptly.

On SIGTERM (or SIGINT) uvicorn stops accepting connections and then waits, up to its graceful timeout, for
the requests in progress to finish before it runs the application's shutdown. A gateway's requests are long
polls (up to 30 s) and WebSockets (for ever), so that wait would always run out and end in cancelled
requests and tracebacks. :class:`GatewayServer` first lets the gateway wind down (:meth:`State.shutdown
<services.gateway.app.State.shutdown>`): every long poll answers at once with what there is, every
WebSocket is closed with 1001 (going away), the hubs stop. Then uvicorn's own shutdown finds little to wait
for, and the process exits with 0.

Connections are counted and timed by the protocol classes of :mod:`services.gateway.conns` (per-address and
process caps, header and keep-alive timeouts); WebSockets are pinged every ``AIRSHIP_GATEWAY_WS_PING_S``.
"""

from __future__ import annotations

import signal
import socket
from types import FrameType

import uvicorn
from fastapi import FastAPI
from uvicorn.config import STARTUP_FAILURE

from services.gateway.app import create_app
from services.gateway.conns import ConnectionGuard, GatewayConfig, connection_limits, raise_fd_limit
from services.logs import get_logger
from services.settings import Settings

log = get_logger("gateway")

GRACEFUL_S = 10  # uvicorn's limit for what is still running after the gateway wound down (little, or nothing)


class GatewayServer(uvicorn.Server):
    def __init__(self, config: uvicorn.Config, app: FastAPI) -> None:
        super().__init__(config)
        self.gateway_app = app

    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
        state = getattr(self.gateway_app.state, "airship", None)  # None: stopped before the start-up ran
        if state is not None:
            await state.shutdown()
        await super().shutdown(sockets)


def serve(settings: Settings, host: str, port: int) -> None:
    """Serve the gateway on ``host``:``port`` until SIGTERM or SIGINT."""
    app = create_app(settings)
    nofile = raise_fd_limit()
    limits = connection_limits(settings, nofile)
    ping_s = settings.gateway_ws_ping_s or None
    config = GatewayConfig(app, ConnectionGuard(limits), host=host, port=port, log_level="warning", access_log=False,
                           ws_max_size=max(settings.gateway_max_body * 4, 1 << 20),
                           timeout_graceful_shutdown=GRACEFUL_S, proxy_headers=bool(settings.gateway_trust_proxy),
                           server_header=False, timeout_keep_alive=settings.gateway_idle_timeout_s,
                           ws_ping_interval=ping_s, ws_ping_timeout=ping_s,
                           ws_per_message_deflate=False)  # messages are a few hundred bytes: compressing costs more
    log.info("gateway connection limits", fd_limit=nofile, max_connections=limits.total,
             per_address=limits.per_address, header_timeout_s=limits.header_timeout_s,
             idle_timeout_s=settings.gateway_idle_timeout_s, max_sockets=settings.gateway_max_sockets)
    server = GatewayServer(config, app)

    def after_uvicorn(signum: int, frame: FrameType | None) -> None:
        """Uvicorn passes the SIGTERM it handled on to the handler it found once it has shut down (the default
        one would end the process by the signal); by then the gateway stopped cleanly. Before uvicorn took
        over, the signal stops the process here."""
        if not server.should_exit:
            raise SystemExit(0)

    previous = signal.signal(signal.SIGTERM, after_uvicorn)
    try:
        server.run()
    except KeyboardInterrupt:  # the SIGINT uvicorn passes on once it has shut down (as uvicorn.run does)
        pass
    finally:
        signal.signal(signal.SIGTERM, previous)
    if not server.started:  # the application's start-up failed (as uvicorn.run says it)
        raise SystemExit(STARTUP_FAILURE)

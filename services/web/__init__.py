"""The web app the gateway serves at ``/`` (docs/web.md): lobby, table, spectator and replay pages, as plain
HTML, ES modules and SVG shipped in ``static/`` (no CDN, no build step). The page is a client of the gateway
like any other: the lobby and replay over HTTP, a seat or a spectator over the WebSocket (``/ws``), a seat
token kept in the browser's local storage.

Every answer carries a strict Content-Security-Policy (the page's own scripts, styles and the gateway's
WebSocket only), ``nosniff`` and no referrer, so a match id or a name shown in the page cannot run script.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from fastapi import FastAPI
from fastapi.responses import FileResponse, Response
from starlette.staticfiles import StaticFiles
from starlette.types import Scope

STATIC = Path(__file__).with_name("static")
HEADERS = {
    "Content-Security-Policy": "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
                               "connect-src 'self'; object-src 'none'; base-uri 'none'; "
                               "frame-ancestors 'none'; form-action 'self'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "X-Frame-Options": "DENY",
}


class Assets(StaticFiles):
    """The app's files, with the security headers; revalidated on each load (they change with a release)."""

    async def get_response(self, path: str, scope: Scope) -> Response:
        response = await super().get_response(path, scope)
        response.headers.update({**HEADERS, "Cache-Control": "no-cache"})
        return response


def add_web(app: FastAPI) -> None:
    """``GET /``: the page; ``/web/...``: its scripts, styles and pictures."""

    @app.get("/", include_in_schema=False)
    async def index() -> Any:
        return FileResponse(STATIC / "index.html", headers={**HEADERS, "Cache-Control": "no-cache"})

    app.mount("/web", Assets(directory=STATIC), name="web")

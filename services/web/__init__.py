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
from fastapi.responses import FileResponse, JSONResponse, Response
from starlette.exceptions import HTTPException
from starlette.staticfiles import StaticFiles
from starlette.types import Scope

from services.games.registry import REGISTRATIONS

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
    """``GET /``: the page; ``/web/...``: its scripts, styles and pictures; ``/web/games/<game>.js``: the web
    board a game's registration names (it lives in the game's package; ``GET /games`` gives its URL);
    ``/web/games/<game>/texts.json`` and ``/rules.md``: its pieces in words and its rules in short."""

    @app.get("/", include_in_schema=False)
    async def index() -> Any:
        return FileResponse(STATIC / "index.html", headers={**HEADERS, "Cache-Control": "no-cache"})

    @app.get("/web/games/{game}.js", include_in_schema=False)
    async def board(game: str) -> Any:
        registration = REGISTRATIONS.get(game)
        if registration is None or registration.web_board is None:
            raise HTTPException(404, "no such web board")  # (a problem, as every other 404)
        return FileResponse(registration.web_board, media_type="text/javascript",
                            headers={**HEADERS, "Cache-Control": "no-cache"})

    @app.get("/web/games/{game}/texts.json", include_in_schema=False)
    async def texts(game: str) -> Any:
        """The game's pieces in words (its registration's ``texts``, built from its data tables)."""
        registration = REGISTRATIONS.get(game)
        if registration is None or registration.texts is None:
            raise HTTPException(404, "no texts for this game")
        return JSONResponse(registration.texts(), headers={**HEADERS, "Cache-Control": "no-cache"})

    @app.get("/web/games/{game}/rules.md", include_in_schema=False)
    async def rules(game: str) -> Any:
        """The game's rules in short, as its package keeps them (Markdown; the page renders it as text)."""
        registration = REGISTRATIONS.get(game)
        if registration is None or registration.rules is None:
            raise HTTPException(404, "no rules for this game")
        return FileResponse(registration.rules, media_type="text/markdown; charset=utf-8",
                            headers={**HEADERS, "Cache-Control": "no-cache"})

    app.mount("/web", Assets(directory=STATIC), name="web")

"""``GET /docs``: the HTTP API as one page, rendered on the server from the gateway's own OpenAPI document.

FastAPI's interactive pages (``/docs``, ``/redoc``) load scripts from a CDN, unpinned, into the origin that
holds the players' seat tokens, and may be framed. This page runs no script at all and loads nothing from
anywhere: its Content-Security-Policy allows only its own inline style, and no page may frame it. The machine
-readable document stays at ``/openapi.json`` (and in the repository, ``schemas/openapi.json``).
"""

from __future__ import annotations

import html
from typing import Any

from fastapi import FastAPI
from fastapi.responses import HTMLResponse

CSP = ("default-src 'none'; style-src 'unsafe-inline'; img-src 'none'; base-uri 'none'; form-action 'none'; "
       "frame-ancestors 'none'")
HEADERS = {"Content-Security-Policy": CSP, "X-Frame-Options": "DENY", "X-Content-Type-Options": "nosniff",
           "Referrer-Policy": "no-referrer", "Cache-Control": "public, max-age=300"}
METHODS = ("get", "post", "put", "patch", "delete")
STYLE = """body{font:15px/1.5 system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;color:#222}
h2{margin-top:2rem;border-bottom:1px solid #ccc}h3{margin-bottom:.2rem}code{background:#f3f3f3;padding:0 .2rem}
.m{display:inline-block;min-width:4rem;font-weight:bold}.get{color:#16a}.post{color:#4a2}.delete{color:#b33}
table{border-collapse:collapse;margin:.3rem 0}td,th{border:1px solid #ddd;padding:.15rem .5rem;text-align:left}
p.d{white-space:pre-wrap;margin:.2rem 0}"""


def _e(value: Any) -> str:
    return html.escape(str(value), quote=True)


def _schema_name(schema: dict[str, Any]) -> str:
    if "anyOf" in schema:  # an optional parameter: its type or null
        return " | ".join(_schema_name(s) for s in schema["anyOf"] if s.get("type") != "null")
    ref = str(schema.get("$ref") or (schema.get("items") or {}).get("$ref") or "")
    if ref:
        return ref.rsplit("/", 1)[-1] + ("[]" if "items" in schema else "")
    return str(schema.get("type", ""))


def _operation(path: str, method: str, op: dict[str, Any]) -> str:
    parts = [f'<h3><span class="m {method}">{method.upper()}</span> <code>{_e(path)}</code></h3>']
    if op.get("summary"):
        parts.append(f"<p><b>{_e(op['summary'])}</b></p>")
    if op.get("description"):
        parts.append(f'<p class="d">{_e(op["description"])}</p>')
    params = op.get("parameters", [])
    if params:
        rows = "".join(f"<tr><td><code>{_e(p.get('name'))}</code></td><td>{_e(p.get('in'))}</td>"
                       f"<td>{_e(_schema_name(p.get('schema', {})))}</td><td>{'yes' if p.get('required') else ''}"
                       f"</td></tr>" for p in params)
        parts.append(f"<table><tr><th>parameter</th><th>in</th><th>type</th><th>required</th></tr>{rows}</table>")
    body = (op.get("requestBody") or {}).get("content", {})
    if body:
        kinds = ", ".join(_e(k) for k in body)
        schema = next(iter(body.values())).get("schema", {})
        parts.append(f"<p>body ({kinds}): <code>{_e(schema.get('title') or _schema_name(schema))}</code></p>")
    answers = op.get("responses", {})
    if answers:
        rows = "".join(f"<tr><td>{_e(code)}</td><td>{_e(a.get('description', ''))}</td></tr>"
                       for code, a in sorted(answers.items()))
        parts.append(f"<table><tr><th>status</th><th>when</th></tr>{rows}</table>")
    return "\n".join(parts)


def render(doc: dict[str, Any]) -> str:
    info = doc.get("info", {})
    by_tag: dict[str, list[str]] = {}
    for path, ops in doc.get("paths", {}).items():
        for method in METHODS:
            if method in ops:
                tag = (ops[method].get("tags") or ["other"])[0]
                by_tag.setdefault(tag, []).append(_operation(path, method, ops[method]))
    sections = "".join(f"<h2>{_e(tag)}</h2>{''.join(ops)}" for tag, ops in by_tag.items())
    return (f"<!doctype html><html lang=en><head><meta charset=utf-8><title>{_e(info.get('title', 'API'))}</title>"
            f"<meta name=viewport content='width=device-width'><style>{STYLE}</style></head><body>"
            f"<h1>{_e(info.get('title', 'API'))} {_e(info.get('version', ''))}</h1>"
            f"<p>{_e(info.get('description', ''))} The machine-readable document: <a href=/openapi.json>"
            f"/openapi.json</a>. Errors are <code>application/problem+json</code> with a stable <code>code</code>."
            f"</p>{sections}</body></html>")


def add_docs(app: FastAPI) -> None:
    page: list[str] = []

    @app.get("/docs", include_in_schema=False)
    async def docs() -> HTMLResponse:
        if not page:
            page.append(render(app.openapi()))
        return HTMLResponse(page[0], headers=HEADERS)

"""Every page and state of the web app (#30), at 1366 x 768 and on a 390 x 844 phone: axe-core (pinned in
tests/web/js) finds no violation, and each is photographed. ``make screenshots`` (AIRSHIP_UPDATE_SCREENSHOTS=1)
writes the photographs to docs/screenshots/<page>-<desktop|phone>.png; otherwise they go to the test artefacts."""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.gateway.stack import GatewayStack
from tests.web.conftest import save_screenshot
from tests.web.test_lobby_api import bearer, create, finish_with_bots, join, wait_status

pytestmark = [pytest.mark.gateway, pytest.mark.browser, pytest.mark.redis]
AXE = Path(__file__).with_name("js") / "node_modules" / "axe-core" / "axe.min.js"
SIZES = {"desktop": (1366, 768), "phone": (390, 844)}
AXE_JS = """async () => {
  const found = await axe.run(document, { resultTypes: ['violations'] });
  return found.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help,
    nodes: v.nodes.slice(0, 4).map((n) => n.target.join(' ') + ' :: ' + n.failureSummary) }));
}"""


@pytest.fixture(scope="module")
def http(web_stack: GatewayStack) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=web_stack.url, timeout=30) as client:
        yield client


@pytest.fixture(scope="module")
def scene(web_stack: GatewayStack, http: httpx.Client) -> dict[str, Any]:
    """The matches the pages show: a finished one, one running per game (seat 0 held here), an open one."""
    if not AXE.exists():
        pytest.fail("no axe-core: run 'bash infra/dev/ensure-node.sh' (make test does)")
    name = f"pat{uuid.uuid4().hex[:5]}"
    key = http.post("/players", json={"name": name}).json()["api_key"]
    finished, finished_token = finish_with_bots(web_stack, http)
    running: dict[str, tuple[str, dict[str, str]]] = {}
    for game, seats in {"modern-world": 2, "mad-zeppelin": 3, "moderne-zeiten": 3}.items():
        match_id = create(http, game, seats)
        tokens = {str(s): join(http, match_id, s) for s in range(seats)}
        running[game] = (match_id, tokens)
    waiting = create(http, "moderne-zeiten", 3)
    first = join(http, waiting, 0)
    assert http.post(f"/matches/{waiting}/bots", json={"seats": [2], "bot": "heuristic"},
                     headers=bearer(first)).status_code == 201
    wait_status(http, finished, "finished")
    to_act = {}
    for game, (match_id, _) in running.items():
        view = http.get(f"/matches/{match_id}/views/public").json()
        to_act[game] = view["to_act"][0]
    return {"player": (name, key), "finished": (finished, finished_token), "running": running, "open": waiting,
            "to_act": to_act}


def holding(match_id: str, tokens: dict[str, str]) -> Callable[[Any], None]:
    """What puts a match's seat tokens in the browser, as taking the seats there would have."""
    def hold(page: Any) -> None:
        page.evaluate("([key, value]) => localStorage.setItem(key, value)",
                      [f"airship.match.{match_id}", json.dumps(tokens)])
    return hold


Page = tuple[str, str, str, Callable[[Any], None] | None]


def confirming(page: Any) -> None:
    """A consequential move asked to be confirmed: a bid of all one's money."""
    row = page.locator("#controls .choice[data-type='bid']")
    row.locator("input[name=amount]").fill(row.locator("input[name=amount]").get_attribute("max") or "0")
    row.locator("button.send").click()
    page.wait_for_selector("#controls .confirming:not([hidden]) button.confirm")


def pages(url: str, scene: dict[str, Any]) -> list[Page]:
    """(name, address, what to wait for, what to do first) of every page and state."""
    finished, finished_token = scene["finished"]
    out: list[Page] = [
        ("lobby", "#/", f"tr[data-match='{scene['open']}']", None),
        ("help", "#/help", "main h1", None),
        ("me", "#/me", "#sign-out", None),
        ("ladder", "#/ladder/mad-zeppelin", "#rated", None),
        *[(f"rules-{game}", f"#/rules/{game}", "#rules h2", None) for game in scene["running"]],
        ("unknown-match", "#/match/nosuchmatch0/watch", "#notice:not([hidden])", None),
        ("no-token", f"#/match/{scene['running']['modern-world'][0]}/seat/1", "#notice:not([hidden])", None),
        ("finished-table", f"#/match/{finished}/seat/0", "#placing", holding(finished, {"0": finished_token})),
        ("replay", f"#/match/{finished}/replay?v=5&p=public", "#moves .move[aria-current]", None),
    ]
    for game, (match_id, tokens) in scene["running"].items():
        seat = scene["to_act"][game]  # the seat whose move it is: its controls shown
        table = f"#/match/{match_id}/seat/{seat}"
        out.append((f"table-{game}", table, "#controls .choice", holding(match_id, tokens)))
        out.append((f"watch-{game}", f"#/match/{match_id}/watch", "#board[data-version] svg", None))
    return out


def test_every_page_passes_axe_and_is_photographed(web_stack: GatewayStack, browser: Any,
                                                   scene: dict[str, Any]) -> None:
    name, key = scene["player"]
    found: dict[str, Any] = {}
    shots = 0
    for size, (width, height) in SIZES.items():
        context = browser.new_context(viewport={"width": width, "height": height}, bypass_csp=True,
                                      is_mobile=size == "phone", has_touch=size == "phone")
        try:
            page = context.new_page()

            def sign_in(page: Any) -> None:
                page.evaluate("(me) => localStorage.setItem('airship.player', me)",
                              json.dumps({"name": name, "key": key}))
                page.reload()  # (the header says who is signed in)

            signed_out: list[Page] = [("sign-in", "#/me", "#sign-up", None),
                                      ("lobby-signed-out", "#/", "#create", None),
                                      ("ladder-signed-out", "#/ladder/moderne-zeiten", "#rated", None)]
            for label, address, ready, first in [*signed_out, *pages(web_stack.url, scene)]:
                if label == "lobby":
                    sign_in(page)
                if first is not None:
                    first(page)
                page.goto(f"{web_stack.url}/{address}")
                page.wait_for_selector(ready)
                page.wait_for_timeout(250)
                if label.startswith("table-") and size == "desktop":  # the pieces explained, open
                    page.locator("#glossary summary").click()
                if label == "table-moderne-zeiten":  # and a move that asks to be confirmed
                    confirming(page)
                page.add_script_tag(path=str(AXE))
                violations = page.evaluate(AXE_JS)
                if violations:
                    found[f"{label}-{size}"] = violations
                save_screenshot(page, f"{label}-{size}")
                shots += 1
        finally:
            context.close()
    assert not found, json.dumps(found, indent=1)[:6000]
    assert shots == 2 * (len(pages(web_stack.url, scene)) + 3)

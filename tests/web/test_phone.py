"""The web app on a phone (390 x 844, #30): no page is wider than the screen, controls are large enough to tap."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from tests.gateway.stack import GatewayStack
from tests.web.conftest import save_screenshot
from tests.web.test_lobby_api import create, join

pytestmark = [pytest.mark.gateway, pytest.mark.browser, pytest.mark.redis]
WIDTH, HEIGHT = 390, 844
WIDER = ("() => [...document.querySelectorAll('body *')]"
         ".filter((e) => e.getBoundingClientRect().right > innerWidth + 0.5)"
         ".map((e) => e.tagName + '.' + (e.className.baseVal ?? e.className))")


@pytest.fixture(scope="module")
def http(web_stack: GatewayStack) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=web_stack.url, timeout=30) as client:
        yield client


def test_no_page_is_wider_than_a_phone(web_stack: GatewayStack, http: httpx.Client, browser: Any) -> None:
    match_id = create(http, "modern-world", 3)
    for seat in range(3):
        join(http, match_id, seat)
    context = browser.new_context(viewport={"width": WIDTH, "height": HEIGHT}, has_touch=True, is_mobile=True)
    try:
        page = context.new_page()
        for fragment, ready in [("#/", "#create"), ("#/ladder/moderne-zeiten", "main h1"), ("#/help", "main h1"),
                                (f"#/match/{match_id}/watch", "#board[data-version]")]:
            page.goto(f"{web_stack.url}/{fragment}")
            page.wait_for_selector(ready)
            page.wait_for_timeout(300)
            width = page.evaluate("() => document.documentElement.scrollWidth")
            assert width <= WIDTH, (fragment, page.evaluate(WIDER))
        page.goto(f"{web_stack.url}/#/")
        page.wait_for_selector("#create")
        small = page.evaluate("() => [...document.querySelectorAll('main button, main select')]"
                              ".filter((e) => e.offsetParent && e.getBoundingClientRect().height < 36).length")
        assert small == 0, "controls smaller than a finger"
    finally:
        context.close()


def test_a_clock_warning_is_seen_on_a_phone(web_stack: GatewayStack, http: httpx.Client, browser: Any) -> None:
    """A clocked table on a phone (#29): the warning that time is short is on the first screen, no wider than it,
    and the clocks' text as large as the page's."""
    match_id = create(http, "nim", 2, clock={"kind": "move", "seconds": 3, "increment": 0, "timeouts": 3})
    token = join(http, match_id, 0)
    context = browser.new_context(viewport={"width": WIDTH, "height": HEIGHT}, has_touch=True, is_mobile=True)
    try:
        page = context.new_page()
        page.goto(f"{web_stack.url}/#/")
        page.evaluate("([key, value]) => localStorage.setItem(key, value)",
                      [f"airship.match.{match_id}", json.dumps({"0": token})])
        page.goto(f"{web_stack.url}/#/match/{match_id}/seat/0")
        page.wait_for_selector("#clock-seats li[data-seat='0']")
        join(http, match_id, 1)  # the match starts: seat 0 is on the clock
        page.wait_for_selector("#clock-warning:not([hidden])", timeout=10_000)
        width = page.evaluate("() => document.documentElement.scrollWidth")
        assert width <= WIDTH, page.evaluate(WIDER)
        box = page.locator("#clock-warning").bounding_box()
        assert box is not None and box["y"] + box["height"] <= HEIGHT, box  # seen without scrolling
        sizes = page.evaluate("() => ['#clock-warning', '#clock-seats .who', '#clock-seats .left'].map((s) =>"
                              " parseFloat(getComputedStyle(document.querySelector(s)).fontSize))")
        assert min(sizes) >= 15, sizes  # (the page's text is 15 px)
        save_screenshot(page, "clock-warning-phone", docs=False)
    finally:
        context.close()


BOARD_TEXT_JS = """() => {
  const svg = document.querySelector('#board svg');
  const box = svg.getBoundingClientRect();
  const out = [];
  for (const text of svg.querySelectorAll('text')) {
    if (!text.textContent.trim()) continue;
    const size = parseFloat(getComputedStyle(text).fontSize) * text.getScreenCTM().a;  // as drawn, in CSS px
    const r = text.getBoundingClientRect();
    out.push({ text: text.textContent, size, left: r.left - box.left, right: box.right - r.right });
  }
  return { texts: out, width: box.width, page: document.documentElement.scrollWidth };
}"""
LATER_JS = """async ([game, views, seat]) => {  // the board of later views, drawn as the table draws it

  const { boardFor } = await import('/web/boards/index.js');
  const { boardWidthOf } = await import('/web/explain.js');
  const kind = await boardFor(game);
  const board = document.getElementById('board');
  const results = [];
  for (const view of views) {
    board.replaceChildren(kind.board(view, seat, boardWidthOf(board)));
    results.push((MEASURE)());
  }
  return results;
}""".replace("MEASURE", BOARD_TEXT_JS)


def unreadable(measured: dict[str, Any]) -> list[Any]:
    """The board's texts drawn under 12 px or cut by its edges, and the page's width past the phone's."""
    bad: list[Any] = [t for t in measured["texts"] if t["size"] < 11.99 or t["left"] < -1 or t["right"] < -1]
    return bad + ([("page", measured["page"])] if measured["page"] > WIDTH else [])


@pytest.mark.parametrize("game", ["modern-world", "mad-zeppelin", "moderne-zeiten"])
def test_boards_are_readable_on_a_phone(web_stack: GatewayStack, http: httpx.Client, browser: Any, game: str) -> None:
    """Every text of a game's board at 390 x 844 is drawn at 12 px or more and inside the board (the board is drawn
    to its width: its pieces flow onto more rows), at the start of a live table and at later states of a seeded
    playout; no page is wider than the phone."""
    from tests.web.test_controls import GAMES, samples

    seats = GAMES[game]
    match_id = create(http, game, seats)
    tokens = {str(s): join(http, match_id, s) for s in range(seats)}
    context = browser.new_context(viewport={"width": WIDTH, "height": HEIGHT}, has_touch=True, is_mobile=True)
    try:
        page = context.new_page()
        page.goto(f"{web_stack.url}/#/")
        page.evaluate("([key, value]) => localStorage.setItem(key, value)",
                      [f"airship.match.{match_id}", json.dumps(tokens)])
        page.goto(f"{web_stack.url}/#/match/{match_id}/seat/0")
        page.wait_for_selector("#board[data-version] svg")
        page.wait_for_timeout(300)
        measured = page.evaluate(BOARD_TEXT_JS)
        assert measured["texts"] and measured["width"] <= WIDTH, measured["width"]
        assert not unreadable(measured), unreadable(measured)
        save_screenshot(page, f"phone-{game}", docs=False)
        later = [view for _, _, view, _ in samples(game, seats, seed=11, steps=300)][::3][:12]
        for view, drawn in zip(later, page.evaluate(LATER_JS, [game, later, 0]), strict=True):
            assert not unreadable(drawn), (view.get("phase"), unreadable(drawn)[:5])
    finally:
        context.close()

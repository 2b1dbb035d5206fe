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

"""The web app on a phone (390 x 844, #30): no page is wider than the screen, controls are large enough to tap."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from tests.gateway.stack import GatewayStack
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

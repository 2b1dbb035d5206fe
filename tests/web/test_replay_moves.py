"""The replay's move list (#30): every version of a finished match's log in words, a mark where each turn begins,
and a click on a move shows the board of that version (the view the gateway's replay gives for it); the version
shown, whichever way it was reached, is the one marked in the list."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from tests.gateway.stack import GatewayStack
from tests.web.test_lobby_api import finish_with_bots

pytestmark = [pytest.mark.gateway, pytest.mark.browser, pytest.mark.redis]


@pytest.fixture(scope="module")
def http(web_stack: GatewayStack) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=web_stack.url, timeout=30) as client:
        yield client


def test_a_move_list_with_turn_marks_shows_each_version(web_stack: GatewayStack, http: httpx.Client,
                                                         browser: Any) -> None:
    match_id, _ = finish_with_bots(web_stack, http)
    events = http.get(f"/matches/{match_id}/log").json()["events"]
    turns = [e for e in events if e["type"] == "TurnStarted"]
    assert turns, "a finished match has turns"
    context = browser.new_context(viewport={"width": 1366, "height": 768})
    try:
        page = context.new_page()
        page.goto(f"{web_stack.url}/#/match/{match_id}/replay?v=0&p=public")
        page.wait_for_selector("#moves .move")
        assert page.locator("#moves .move").count() == len(events) + 1  # the set-up, then every version
        assert [int(v) for v in page.locator("#moves .move").evaluate_all("(b) => b.map((x) => x.dataset.version)")] \
            == list(range(len(events) + 1))
        marks = page.locator("#moves .turn-mark")
        assert marks.all_inner_texts() == [f"Turn {e['body']['turn']}" for e in turns]
        follows = page.locator("#moves .turn-mark").evaluate_all(
            "(m) => m.map((x) => Number(x.nextElementSibling.querySelector('.move').dataset.version))")
        assert follows == [e["version"] for e in turns]  # each mark heads its turn's first event
        assert page.locator("#moves .move[aria-current]").get_attribute("data-version") == "0"
        rng = random.Random(match_id)
        for version in [*rng.sample(range(1, len(events) + 1), 3), turns[-1]["version"]]:
            page.locator(f"#moves .move[data-version='{version}']").click()
            page.wait_for_function("(v) => document.getElementById('board').dataset.version === String(v)",
                                   arg=version)
            step = http.get(f"/matches/{match_id}/replay/{version}").json()
            assert json.loads(page.locator("#board").get_attribute("data-view")) == step["view"]
            assert page.locator("#event").get_attribute("data-event") == step["event"]
            assert page.locator("#moves .move[aria-current]").get_attribute("data-version") == str(version)
            assert f"v={version}" in page.url
        page.keyboard.press("ArrowLeft")  # the keys move the mark too
        page.wait_for_function("(v) => document.querySelector('#moves .move[aria-current]').dataset.version"
                               " === String(v)", arg=turns[-1]["version"] - 1)
    finally:
        context.close()

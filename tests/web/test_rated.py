"""Rated play from the web (#30), against a stack with the ratings projector: two signed-in people and a bot play a
rated match that one of them created on the ladder page (the other takes the seat kept for them from the lobby, the
bot joins with its API key), and the ladder counts it for all three; two people queue in the arena from the ladder
page, are paired and find their seats at the table; a person who leaves the queue is out of it."""

from __future__ import annotations

import json
import random
import threading
import uuid
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from services.bots.base import RandomBot
from services.bots.sdk import SeatRunner
from services.client.http import GatewayClient
from services.ratings.players import API_KEY_HEADER
from tests.gateway.stack import GatewayStack
from tests.pipeline.redis_fixtures import wait_until
from tests.ratings.conftest import register, stack_with_ratings
from tests.web.pages import send_row

pytestmark = [pytest.mark.gateway, pytest.mark.browser, pytest.mark.redis]


@pytest.fixture(scope="module")
def rated_stack(redis_url: str) -> Iterator[GatewayStack]:
    with stack_with_ratings(redis_url, "rated") as stack:
        yield stack


@pytest.fixture(scope="module")
def http(rated_stack: GatewayStack) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=rated_stack.url, timeout=30) as client:
        yield client


def signed_in(browser: Any, url: str, name: str, key: str) -> Any:
    """A browser of its own for a person signed in with their name and key (as the page keeps them)."""
    page = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
    page.goto(f"{url}/#/help")
    page.evaluate("(me) => localStorage.setItem('airship.player', me)", json.dumps({"name": name, "key": key}))
    return page


def play_until_over(pages: list[Any], rng: random.Random, timeout_s: float = 90) -> None:
    """Each person clicks a move whenever their table offers one, until every table says the match is over."""
    import time

    from playwright.sync_api import Error as PlaywrightError

    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if all(p.locator("#status.over").count() for p in pages):
            return
        for page in pages:
            rows = page.locator("#controls .choice")
            try:
                if rows.count():
                    send_row(rows.nth(rng.randrange(rows.count())))
            except PlaywrightError:
                pass  # (redrawn under the pointer by a newer view)
        pages[0].wait_for_timeout(150)
    raise AssertionError("the rated match did not end")


def test_two_people_and_a_bot_play_a_rated_match_from_the_web(rated_stack: GatewayStack, http: httpx.Client,
                                                               browser: Any) -> None:
    tag = uuid.uuid4().hex[:5]
    ann, bob, bot = f"ann{tag}", f"bob{tag}", f"bot{tag}"
    keys = {name: register(http, name) for name in (ann, bob, bot)}
    ann_page = signed_in(browser, rated_stack.url, ann, keys[ann])
    bob_page = signed_in(browser, rated_stack.url, bob, keys[bob])
    try:
        ann_page.goto(f"{rated_stack.url}/#/ladder/nim")
        ann_page.fill("#rated-players", f"{ann}, {bob}, {bot}")
        ann_page.locator("#rated-create button[type=submit]").click()
        ann_page.wait_for_url("**/seat/0")
        match_id = ann_page.url.split("/match/")[1].split("/")[0]
        summary = http.get(f"/matches/{match_id}").json()
        assert summary["reserved"] == {"0": ann, "1": bob, "2": bot} and summary["players"] == {"0": ann}

        bob_page.goto(f"{rated_stack.url}/#/")
        bob_page.locator(f"tr[data-match='{match_id}'] button[data-join='1']", has_text="take your seat").click()
        bob_page.wait_for_url("**/seat/1")
        joined = http.post(f"/matches/{match_id}/seats", json={"seat": 2}, headers={API_KEY_HEADER: keys[bot]})
        assert joined.status_code == 201, joined.text
        runner = threading.Thread(target=lambda: SeatRunner(GatewayClient(rated_stack.url), match_id, 2,
                                                            joined.json()["token"], RandomBot(3), timeout_s=60).run(),
                                  daemon=True)
        runner.start()
        play_until_over([ann_page, bob_page], random.Random(tag))
        runner.join(timeout=30)
        assert http.get(f"/matches/{match_id}").json()["players"] == {"0": ann, "1": bob, "2": bot}
        wait_until(lambda: {r["player"] for r in http.get("/ladder/nim").json()["standings"]} >= {ann, bob, bot},
                   timeout_s=30)
        history = http.get(f"/ladder/nim/players/{bob}").json()["history"]
        assert [h["match_id"] for h in history] == [match_id] and history[0]["players"] == [ann, bob, bot]
        assert ann_page.locator("#placing").inner_text().startswith("You finished")
        ann_page.goto(f"{rated_stack.url}/#/ladder/nim")
        ann_page.wait_for_selector(f"#standings tr[data-player='{bob}']")
    finally:
        ann_page.context.close()
        bob_page.context.close()


def test_people_queue_in_the_arena_from_the_ladder_page(rated_stack: GatewayStack, http: httpx.Client,
                                                        browser: Any) -> None:
    tag = uuid.uuid4().hex[:5]
    people = [f"cy{tag}", f"di{tag}", f"ed{tag}"]
    keys = {name: register(http, name) for name in people}
    pages = [signed_in(browser, rated_stack.url, name, keys[name]) for name in people]
    try:
        for page in pages:
            page.goto(f"{rated_stack.url}/#/ladder/nim")
            page.wait_for_selector("#rated .seat-counts input")
            for box in page.locator("#rated .seat-counts input").all():  # two seats only
                box.set_checked(box.get_attribute("value") == "2")
        # ed queues and leaves: out of the queue
        pages[2].locator("#arena-queue").click()
        pages[2].wait_for_selector("#arena-leave:not([hidden])")
        wait_until(lambda: http.get("/arena/nim").json()["queues"][0]["waiting"] == 1, timeout_s=10)
        pages[2].locator("#arena-leave").click()
        wait_until(lambda: http.get("/arena/nim").json()["queues"][0]["waiting"] == 0, timeout_s=10)
        pages[2].wait_for_function("() => document.getElementById('rated-said').textContent === 'You left the queue.'")
        pages[2].wait_for_timeout(300)  # (a long poll that answers after it does not undo it)
        assert pages[2].locator("#rated-said").inner_text() == "You left the queue."
        assert pages[2].locator("#arena-queue").is_visible() and not pages[2].locator("#arena-leave").is_visible()
        # cy and di queue: paired, each at their own seat of the same rated match
        pages[0].locator("#arena-queue").click()
        pages[0].wait_for_function("() => document.getElementById('rated-said').textContent.includes('queue')")
        pages[1].locator("#arena-queue").click()
        for page in pages[:2]:
            page.wait_for_url("**/seat/*", timeout=30_000)
            page.wait_for_selector("#board[data-version]")
        ids = {page.url.split("/match/")[1].split("/")[0] for page in pages[:2]}
        seats = {int(page.url.rsplit("/", 1)[1]) for page in pages[:2]}
        assert len(ids) == 1 and seats == {0, 1}
        match_id = ids.pop()
        summary = http.get(f"/matches/{match_id}").json()
        assert set(summary["reserved"].values()) == set(people[:2]) and summary["status"] == "running"
        play_until_over(pages[:2], random.Random(tag))
    finally:
        for page in pages:
            page.context.close()

"""A complete match of each game on a phone (390 x 844, #30), played as a person plays: each move chosen by the
words its button shows and found again by them alone, the board and controls never wider than the screen, and
the end said in words ("You finished 2nd of 3", each player's place and score), and every seat's marks on the board
(its tag, pawns, claims) of one shape of its own, so seats are told apart without colour."""

from __future__ import annotations

import random
from typing import Any

import pytest
import redis

from tests import registered
from tests.gateway.hidden_truth import Truth
from tests.gateway.stack import GatewayStack
from tests.web.conftest import save_screenshot
from tests.web.pages import play_by_clicking
from tests.web.test_browser import SEAT, create_in_lobby
from tests.web.test_phone import HEIGHT, WIDER, WIDTH

pytestmark = [pytest.mark.gateway, pytest.mark.browser, pytest.mark.redis]


@pytest.mark.parametrize("game", registered.GAMES)
def test_a_whole_match_on_a_phone_by_the_moves_names(web_stack: GatewayStack, admin: redis.Redis, browser: Any,
                                                     game: str) -> None:
    seats, strength = registered.smallest_table(game), registered.parameters(game).browser_bot
    context = browser.new_context(viewport={"width": WIDTH, "height": HEIGHT}, has_touch=True, is_mobile=True)
    try:
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        match_id = create_in_lobby(page, web_stack.url, game, seats, strength)
        truth = Truth(admin, web_stack.settings.keys, match_id, game, seats)
        wider: list[Any] = []

        def on_step(clicks: int, version: int) -> None:
            if clicks % 10 == 1 and page.evaluate("() => document.documentElement.scrollWidth") > WIDTH:
                wider.append((version, page.evaluate(WIDER)))

        try:
            played = play_by_clicking(page, truth, SEAT, random.Random(f"phone-{game}"), on_step=on_step,
                                      by_name=True)
        except Exception:
            save_screenshot(page, f"failed-phone-{game}-table", docs=False)
            raise
        assert played["clicks"] > 3 and len(set(played["names"])) > 3, played["names"]
        assert not wider, wider[:3]
        page.wait_for_selector("#placing")
        placing = page.locator("#placing").inner_text()
        assert placing.startswith("You finished") and f"of {seats}" in placing, placing
        assert page.locator("#ending .placings li").count() == seats
        assert page.evaluate("() => document.documentElement.scrollWidth") <= WIDTH, page.evaluate(WIDER)
        # seats told apart without colour: each seat's marks (tags, pawns, claims) have one shape, its own
        marks = page.evaluate("() => [...document.querySelectorAll('#board [data-shape]')]"
                              ".map((m) => [Number(m.dataset.seat), m.dataset.shape])")
        shapes = {seat: {shape for s, shape in marks if s == seat} for seat, _ in marks}
        assert set(shapes) == set(range(seats)) and all(len(v) == 1 for v in shapes.values()), shapes
        assert len({next(iter(v)) for v in shapes.values()}) == seats, shapes
        assert not errors, errors
    finally:
        context.close()

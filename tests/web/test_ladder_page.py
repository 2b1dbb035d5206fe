"""The ladder page (services/web/static/ladder.js) in headless Chromium, against a real stack (worker, projector,
gateway and ratings projector processes): three registered players are paired by the arena into rated nim matches
and play them over HTTP; the page's standings (rank, player, rating, matches, wins) are the gateway's
``/ladder/nim``, a player's page lists its rated matches as ``/ladder/nim/players/<name>`` has them (newest first,
with the rating before and after), another game's tab shows an empty ladder, and the page runs under the app's
Content-Security-Policy without a single error."""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from services.ratings.players import API_KEY_HEADER
from tests.gateway.stack import GatewayStack
from tests.pipeline.redis_fixtures import wait_until
from tests.ratings.conftest import play_nim, register, stack_with_ratings
from tests.web.conftest import save_screenshot

pytestmark = [pytest.mark.gateway, pytest.mark.browser, pytest.mark.redis]
PAIRS = [("ann", "bob"), ("ann", "cy"), ("bob", "cy"), ("ann", "bob"), ("ann", "cy")]


@pytest.fixture(scope="module")
def ladder_stack(redis_url: str) -> Iterator[GatewayStack]:
    with stack_with_ratings(redis_url, "ladder") as stack:
        yield stack


def arena_match(http: httpx.Client, keys: dict[str, str], first: str, second: str, rng: random.Random) -> str:
    """``first`` and ``second`` queue in the arena, are paired, collect their seats and play nim (``first`` well)."""
    waiting = http.post("/arena/nim/queue", json={"seats": [2]}, headers={API_KEY_HEADER: keys[first]}).json()
    assert waiting["status"] == "waiting", waiting
    matched = http.post("/arena/nim/queue", json={"seats": [2]}, headers={API_KEY_HEADER: keys[second]}).json()
    assert matched["status"] == "matched", matched
    mine = http.get(waiting["location"], headers={API_KEY_HEADER: keys[first]}).json()
    tokens = {mine["seat"]: mine["token"], matched["seat"]: matched["token"]}
    play_nim(http, matched["match_id"], tokens, {mine["seat"]}, rng)  # type: ignore[arg-type]
    return str(matched["match_id"])


def test_the_ladder_page_shows_the_standings_and_a_players_matches(ladder_stack: GatewayStack, browser: Any) -> None:
    url = ladder_stack.url
    rng = random.Random(11)
    with httpx.Client(base_url=url, timeout=30) as http:
        keys = {name: register(http, name) for name in ("ann", "bob", "cy")}
        played = [arena_match(http, keys, a, b, rng) for a, b in PAIRS]
        wait_until(lambda: sum(r["games"] for r in http.get("/ladder/nim").json()["standings"]) == 2 * len(PAIRS),
                   timeout_s=30)
        standings = http.get("/ladder/nim").json()["standings"]
        history = http.get("/ladder/nim/players/ann").json()["history"]
    assert {h["match_id"] for h in history} <= set(played) and len(history) == 4

    context = browser.new_context(viewport={"width": 1280, "height": 800})
    try:
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)  # CSP refusals too
        page.goto(f"{url}/")
        page.click("header nav a[href='#/ladder']")
        page.wait_for_url("**/#/ladder/*")  # the first game's ladder
        page.goto(f"{url}/#/ladder/nim")
        page.wait_for_selector("#standings tbody tr[data-player]")
        cells = page.eval_on_selector_all("#standings tbody tr",
                                          "rows => rows.map(r => [...r.cells].map(c => c.textContent.trim()))")
        assert [c[:2] for c in cells] == [[str(i + 1), row["player"]] for i, row in enumerate(standings)]
        assert [c[2] for c in cells] == [f"{row['rating']:.2f}" for row in standings]
        assert [(int(c[5]), int(c[6])) for c in cells] == [(row["games"], row["wins"]) for row in standings]
        assert "waiting" in page.inner_text("#arena") or "nobody" in page.inner_text("#arena")
        rated = httpx.get(f"{url}/games").json()["games"][0]["rated_clock"]  # (#29: every rated match is clocked)
        assert page.inner_text("#rated-clock").startswith(
            f"Rated matches are clocked: {rated['seconds']:g} s per move; when it runs out the service's bot moves")
        save_screenshot(page, "ladder")

        page.click("#standings a.player:text-is('ann')")
        page.wait_for_selector("#history tbody tr[data-match]")
        assert "#/ladder/nim/player/ann" in page.url
        shown = page.eval_on_selector_all("#history tbody tr", "rows => rows.map(r => r.dataset.match)")
        assert shown == [h["match_id"] for h in reversed(history)]  # newest first
        newest = history[-1]
        first_row = page.eval_on_selector("#history tbody tr", "r => [...r.cells].map(c => c.textContent.trim())")
        assert first_row[5] == f"{newest['before']:.2f} → {newest['after']:.2f}"
        assert first_row[2].startswith(str(newest["rank"] + 1))
        save_screenshot(page, "ladder-player", docs=False)

        page.click("#ladder a[href='#/ladder/nim']")
        page.wait_for_selector("#standings")
        page.click("#games a[data-game='mad-zeppelin']")
        page.wait_for_selector("#no-standings")
        assert "airship arena --game mad-zeppelin" in page.inner_text("#no-standings")
        assert not errors, errors
    finally:
        context.close()

"""The web app in headless Chromium, against a real stack with the bots process (docs/web.md).

For each game a person creates a match in the lobby page, takes the first seat, gives the others to the
service's bots and plays the match to its end by clicking the controls the page shows; a spectator page
follows the same match live; everything the seat's page received over the network, and its DOM, is checked for
the other seats' hidden cards; then the replay page is compared, at random versions and perspectives, with
``airship replay --at V --seat S``. Screenshots of each page are saved (tests/web/conftest.py)."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from typing import Any

import pytest
import redis

from tests import registered
from tests.gateway.hidden_truth import Truth, normal
from tests.gateway.stack import GatewayStack
from tests.gateway.test_hidden import assert_no_secret_words
from tests.web.conftest import ROOT, save_screenshot
from tests.web.pages import Wiretap, check_frames, dom_words_leaked, play_by_clicking, secret_values, shown_view

pytestmark = [pytest.mark.gateway, pytest.mark.browser, pytest.mark.redis]

VIEWPORT = {"width": 1366, "height": 768}
SEAT = 0


def create_in_lobby(page: Any, url: str, game: str, seats: int, bots: str) -> str:
    page.goto(f"{url}/#/")
    page.wait_for_selector(f"#game option[value='{game}']", state="attached")
    page.select_option("#game", game)
    page.fill("#seats", str(seats))
    page.select_option("#me", "first")
    page.select_option("#others", bots)
    page.click("#create-button")
    page.wait_for_url("**/#/match/*/seat/*")
    parts = page.url.split("#/match/")[1].split("/")
    assert parts[1:] == ["seat", str(SEAT)], page.url
    return parts[0]


def replay_cli(stack: GatewayStack, match_id: str, version: int, seat: int | None) -> str:
    env = {**os.environ, "AIRSHIP_KEY_PREFIX": stack.settings.key_prefix,
           "AIRSHIP_PARTITIONS": str(stack.settings.partitions)}
    cmd = [sys.executable, "-m", "services.cli", "replay", "--redis", stack.settings.redis_url, "--match", match_id,
           "--at", str(version), *(["--seat", str(seat)] if seat is not None else [])]
    done = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=120, check=True)
    return done.stdout


def replay_view(stack: GatewayStack, match_id: str, version: int, seat: int | None) -> Any:
    from services.pipeline.redis_backend import RedisBackend
    from services.replay.stepper import Replay
    from services.replay.transfer import load_match

    backend = RedisBackend(stack.settings)
    try:
        return normal(Replay(load_match(backend.store, match_id)).view_at(version, seat))
    finally:
        backend.close()


@pytest.mark.parametrize("game", registered.GAMES)
def test_play_watch_and_replay_in_the_browser(web_stack: GatewayStack, admin: redis.Redis, browser: Any,
                                              game: str) -> None:
    # the smallest table the game allows, so the match stays short; the other seats played by its test bot
    seats, strength = registered.smallest_table(game), registered.parameters(game).browser_bot
    rng = random.Random(f"web-{game}")
    player_context = browser.new_context(viewport=VIEWPORT)
    watcher_context = browser.new_context(viewport=VIEWPORT)
    try:
        page = player_context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        wiretap = Wiretap()
        wiretap.attach(page)
        match_id = create_in_lobby(page, web_stack.url, game, seats, strength)
        truth = Truth(admin, web_stack.settings.keys, match_id, game, seats)

        watcher = watcher_context.new_page()
        watcher.on("pageerror", lambda e: errors.append(str(e)))
        watcher.goto(f"{web_stack.url}/#/match/{match_id}/watch")
        watched: list[int] = []
        doms: list[str] = []

        def on_step(clicks: int, version: int) -> None:
            if watcher.locator("#board[data-version]").count():
                watched.append(int(watcher.locator("#board").get_attribute("data-version")))
            if clicks % 15 == 1:
                doms.append(page.content())
            if clicks == 6:
                save_screenshot(page, f"{game}-table")
                save_screenshot(watcher, f"{game}-spectate")

        try:
            played = play_by_clicking(page, truth, SEAT, rng, on_step=on_step, by_name=True)
        except Exception:
            save_screenshot(page, f"failed-{game}-table", docs=False)
            raise
        truth.refresh()
        doms.append(page.content())
        assert played["version"] == truth.version and truth.game.outcome(truth.states[-1]) is not None
        assert "Match over" in played["status"]
        if played["typed_past_range"]:  # an amount past its range was typed: the rejection was shown
            assert played["rejections_seen"] >= 1, played

        # the spectator followed the match live, version by version, to its end, with the public view
        watcher.wait_for_function("(v) => Number(document.getElementById('board').dataset.version) === v",
                                  arg=truth.version, timeout=30_000)
        version, view = shown_view(watcher)
        assert normal(view) == truth.view(version, None)
        assert watched == sorted(watched) and len(set(watched)) >= 5, watched

        # the seat's page never got another seat's hidden cards: over the network it got exactly its own view
        # and events (checked frame by frame), no text only found in others' secrets, and not in its DOM either
        assert check_frames(wiretap.socket_messages(), truth, SEAT) >= played["clicks"]
        # what happened, in the game's words with the players' names (not "Seat 1: sequence ended — seat 1")
        lines = page.locator("#events li").all_text_contents()
        assert lines and not [line for line in lines if " — " in line], lines[:20]
        assert any("(you)" in line or ", you)" in line for line in lines), lines[:20]  # the reader's own seat
        assert_no_secret_words(wiretap.messages(), truth, SEAT)
        secret = secret_values(truth, SEAT)
        for html in doms:
            assert not dom_words_leaked(html, secret), dom_words_leaked(html, secret)
        assert not errors, errors

        # replay: random versions and perspectives, as `airship replay --at V --seat S` shows them
        replay = player_context.new_page()
        replay.on("pageerror", lambda e: errors.append(str(e)))
        perspectives: list[int | None] = [None, *range(seats)]
        picks = [(rng.randint(0, truth.version), rng.choice(perspectives)) for _ in range(3)]
        for version, seat in picks:
            p = "public" if seat is None else str(seat)
            replay.goto(f"{web_stack.url}/#/match/{match_id}/replay?v={version}&p={p}")
            replay.reload()  # (the same page with another fragment would only change the fragment)
            replay.wait_for_selector(f"#board[data-version='{version}'][data-perspective='{p}']", timeout=30_000)
            shown = json.loads(replay.locator("#board").get_attribute("data-view"))
            assert shown == replay_view(web_stack, match_id, version, seat), (version, seat)
            printed = replay_cli(web_stack, match_id, version, seat)
            assert replay.locator("#replay-text").text_content() + "\n" == printed, (version, seat)
        assert replay.locator("#verify").get_attribute("data-ok") == "true"

        # keys: a step on, the next perspective; the address follows and opens the same step again
        version, seat = picks[-1]
        replay.keyboard.press("End")
        replay.wait_for_selector(f"#board[data-version='{truth.version}']")
        replay.keyboard.press("ArrowLeft")
        replay.wait_for_selector(f"#board[data-version='{truth.version - 1}']")
        replay.keyboard.press("v")
        replay.keyboard.press("p")
        replay.wait_for_selector("#board[data-perspective='0']")
        assert replay.url.endswith(f"/replay?v={truth.version - 1}&p=0"), replay.url
        shared = replay.url
        other = watcher_context.new_page()
        other.goto(shared)
        other.wait_for_selector(f"#board[data-version='{truth.version - 1}'][data-perspective='0']")
        assert other.locator("#board").get_attribute("data-view") == replay.locator("#board").get_attribute("data-view")
        replay.keyboard.press("Home")
        replay.wait_for_selector("#board[data-version='0']")
        replay.keyboard.press("End")
        replay.wait_for_selector(f"#board[data-version='{truth.version}']")
        assert replay.locator("#chart polyline[data-series='score']").count() == seats
        save_screenshot(replay, f"{game}-replay")
        assert not errors, errors

        lobby = player_context.new_page()
        lobby.goto(f"{web_stack.url}/#/")
        lobby.wait_for_selector(f"tr[data-match='{match_id}'][data-status='finished'] a.replay")
        if game == registered.GAMES[0]:
            save_screenshot(lobby, "lobby")
    finally:
        player_context.close()
        watcher_context.close()

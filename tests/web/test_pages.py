"""Bad input in the browser: a stale token, no token, an unknown match, a running match's replay, a finished
match, a dropped connection. Each gives a clear message in the page and a way on. And a table that tells the truth:
no turn before the match begins, a refusal in a tab that was behind said and kept."""

from __future__ import annotations

import contextlib
import json
import random
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from playwright.sync_api import Error as PlaywrightError

from schemas.legal import choices_from_wire, sample
from services.gateway.launch import wait_ready
from tests.gateway.stack import GatewayStack, free_port, spawn_gateway
from tests.pipeline.redis_fixtures import stop
from tests.web.test_lobby_api import create, finish_with_bots, join, wait_status

pytestmark = [pytest.mark.gateway, pytest.mark.browser, pytest.mark.redis]


@pytest.fixture(scope="module")
def http(web_stack: GatewayStack) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=web_stack.url, timeout=30) as client:
        yield client


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    yield page
    context.close()
    assert not errors, errors


def notice(page: Any) -> str:
    page.wait_for_selector("#notice:not([hidden]) #notice-text")
    return str(page.locator("#notice-text").inner_text())


def act(page: Any, label: str) -> None:
    """Click one of the ways on the message bar offers."""
    page.locator("#notice .action", has_text=label).click()


def hold(page: Any, url: str, match_id: str, seat: int, token: str) -> None:
    """Put a seat token in the browser's storage, as joining from the lobby does."""
    page.goto(f"{url}/#/")
    page.evaluate("([key, value]) => localStorage.setItem(key, value)",
                  [f"airship.match.{match_id}", json.dumps({str(seat): token})])


def test_a_stale_token_says_so_and_offers_ways_on(web_stack: GatewayStack, http: httpx.Client, page: Any) -> None:
    match_id = create(http, "mad-zeppelin", 2)
    join(http, match_id, 0)
    hold(page, web_stack.url, match_id, 1, "1." + "ab" * 24)  # a token this service never issued
    join(http, match_id, 1)
    page.goto(f"{web_stack.url}/#/match/{match_id}/seat/1")
    assert "token for seat 1 is not accepted" in notice(page)
    actions = page.locator("#notice .action").all_inner_texts()
    assert {"Watch instead", "Back to the lobby", "Forget this token"} <= set(actions), actions
    act(page, "Watch instead")
    page.wait_for_selector("#board[data-key='public']")
    assert "spectating" in page.locator("h1").inner_text()


def test_no_token_in_this_browser(web_stack: GatewayStack, http: httpx.Client, page: Any) -> None:
    match_id = create(http, "moderne-zeiten", 3)
    page.goto(f"{web_stack.url}/#/match/{match_id}/seat/2")
    assert "no token for seat 2" in notice(page)
    act(page, "Take seat 2")  # the seat is free: taking it here keeps its token here
    page.wait_for_selector("#board[data-key='2']")
    assert json.loads(page.evaluate(f"() => localStorage.getItem('airship.match.{match_id}')")).keys() == {"2"}
    assert "Waiting for players" in page.locator("#side").inner_text()


def test_unknown_match_and_a_running_match_replay(web_stack: GatewayStack, http: httpx.Client, page: Any) -> None:
    page.goto(f"{web_stack.url}/#/match/no-such-match/watch")
    assert "There is no match no-such-match" in notice(page)
    assert "Back to the lobby" in page.locator("#notice").inner_text()
    match_id = create(http, "mad-zeppelin", 2)
    page.goto(f"{web_stack.url}/#/match/{match_id}/replay")
    page.reload()
    assert "cannot be replayed" in notice(page) and "still being played" in notice(page)
    act(page, "Watch it live")
    page.wait_for_selector("#board[data-key='public']")


def test_a_finished_match_leads_to_its_replay(web_stack: GatewayStack, http: httpx.Client, page: Any) -> None:
    match_id, token = finish_with_bots(web_stack, http)
    hold(page, web_stack.url, match_id, 0, token)
    page.goto(f"{web_stack.url}/#/match/{match_id}/seat/0")
    page.wait_for_selector("#status.over")
    assert "Match over" in page.locator("#status").inner_text()
    assert "This match has ended" in notice(page)
    # the end, for people: your place, everyone's score, the tab says it
    outcome = http.get(f"/matches/{match_id}/views/public").json()["outcome"]
    ranked = sorted(range(len(outcome["scores"])), key=lambda s: (-outcome["scores"][s], s))
    place = 1 + sum(1 for s in ranked if outcome["scores"][s] > outcome["scores"][0])
    assert page.locator("#placing").inner_text().startswith(f"You finished {place}")
    assert page.locator(".placings li").count() == len(outcome["scores"])
    assert page.title().startswith("Match over")
    assert "running" not in page.locator("#side").inner_text()  # the side panel followed the match
    # a rematch with the same seats: seat 0 here, seat 1 the service's bots again
    page.locator("#rematch").click()
    page.wait_for_function("(old) => !location.hash.includes(old) && location.hash.endsWith('/seat/0')", arg=match_id)
    again = page.evaluate("() => location.hash.split('/')[2]")
    summary = wait_status(http, again, "running")  # the bots took seat 1 again
    assert summary["game"] == "mad-zeppelin" and summary["seats"] == 2
    asked = http.post(f"/matches/{match_id}/rematch", headers={"Authorization": f"Bearer {token}"})
    assert asked.status_code == 200 and asked.json()["match_id"] == again  # once: the same rematch for every seat
    assert http.get(f"/matches/{match_id}").json()["rematch"] == again
    new_token = page.evaluate("(id) => JSON.parse(localStorage.getItem('airship.match.' + id))['0']", again)
    early = http.post(f"/matches/{again}/rematch", headers={"Authorization": f"Bearer {new_token}"})
    assert early.status_code == 409, early.text  # not over yet
    page.goto(f"{web_stack.url}/#/match/{match_id}/seat/0")
    page.wait_for_selector("#status.over")
    act(page, "Replay it")
    page.wait_for_selector("#board[data-perspective='0']")
    assert page.locator("#verify").get_attribute("data-ok") == "true"


def test_a_dropped_connection_is_said_and_resumed(web_stack: GatewayStack, http: httpx.Client, page: Any) -> None:
    """The page talks to a second gateway of the same service; it stops (the page says so, and offers to
    reconnect) and comes back on the same address: the page resumes from the version it had, without a gap."""
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    gateway = spawn_gateway(web_stack.settings, port)
    try:
        wait_ready(url, gateway)
        match_id = create(http, "mad-zeppelin", 2)
        token = join(http, match_id, 0)
        flagged = http.post(f"/matches/{match_id}/bots", json={"bot": "random"},
                            headers={"Authorization": f"Bearer {token}"})
        assert flagged.status_code == 201, flagged.text
        wait_status(http, match_id, "running")
        hold(page, url, match_id, 0, token)
        page.goto(f"{url}/#/match/{match_id}/seat/0")
        page.wait_for_selector("#controls .choice")
        before = int(page.locator("#board").get_attribute("data-version"))
        stop(gateway)
        assert "connection to the service dropped" in notice(page)
        assert page.locator("#conn").inner_text() == "disconnected"
        assert {"Reconnect now", "Back to the lobby"} <= set(page.locator("#notice .action").all_inner_texts())
        # meanwhile the match goes on through the other gateway
        choice = http.get(f"/matches/{match_id}/views/me", headers={"Authorization": f"Bearer {token}"}).json()
        legal = next(c for c in choice["legal"] if not c.get("free"))
        sent = http.post(f"/matches/{match_id}/commands", headers={"Authorization": f"Bearer {token}"},
                         json={"idempotency_key": "while-away", "type": legal["type"], "body": legal["body"]})
        assert sent.json()["status"] == "accepted", sent.text
        gateway = spawn_gateway(web_stack.settings, port)
        wait_ready(url, gateway)
        with contextlib.suppress(PlaywrightError):  # (unless it came back by itself first)
            page.locator("#notice .action", has_text="Reconnect now").click(timeout=2_000)
        page.wait_for_function("(v) => Number(document.getElementById('board').dataset.version) > v", arg=before)
        page.wait_for_selector("#conn.live")
        assert "Connection lost" not in page.locator("#status").inner_text()  # the status follows the connection
        versions = [int(v) for v in page.locator("#events li").evaluate_all("els => els.map(e => e.dataset.version)")]
        assert sorted(versions) == list(range(1, max(versions) + 1)), "events missing or twice after resuming"
    finally:
        stop(gateway)


def _move(http: httpx.Client, match_id: str, tokens: dict[int, str], key: str) -> int:
    """A move (a legal command drawn at random) of whichever seat is to act, through the API; the version after."""
    for seat, token in tokens.items():
        view = http.get(f"/matches/{match_id}/views/me", headers={"Authorization": f"Bearer {token}"}).json()
        if view["legal"]:
            kind, body = sample(choices_from_wire(view["legal"]), random.Random(key))
            sent = http.post(f"/matches/{match_id}/commands", headers={"Authorization": f"Bearer {token}"},
                             json={"idempotency_key": f"{key}-{seat}", "type": kind, "body": body,
                                   "expected_version": view["version"]})
            assert sent.json()["status"] == "accepted", sent.text
            return int(sent.json()["version"])
    raise AssertionError("no seat has a move")


def test_the_table_tells_the_truth(web_stack: GatewayStack, http: httpx.Client, browser: Any) -> None:
    """#30, "a truthful table": no turn before every seat is taken; a move refused in a tab whose view was behind
    (the player moved in another tab) is said, and stays said when the board is redrawn; the side panel follows the
    match."""
    match_id = create(http, "mad-zeppelin", 2)
    tokens = {0: join(http, match_id, 0)}
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    try:
        first = context.new_page()
        hold(first, web_stack.url, match_id, 0, tokens[0])
        first.goto(f"{web_stack.url}/#/match/{match_id}/seat/0")
        first.wait_for_function("() => document.getElementById('status').textContent.includes('Waiting for players')")
        assert first.locator("#controls .choice").count() == 0
        assert "Nothing to do until every seat is taken" in first.locator("#commands").inner_text()

        tokens[1] = join(http, match_id, 1)
        first.wait_for_function("() => !document.getElementById('status').textContent.includes('Waiting for players')")
        assert "running" in first.locator("#side").inner_text()
        mine = first.locator("#controls .choice").count() > 0  # the tab's title and the panel say whose turn it is
        assert first.title().startswith("▶ Your turn") == mine
        assert first.locator("#move.myturn").count() == int(mine)
        assert "version" not in first.locator("#status").inner_text().lower()

        # A second tab whose views stop coming (frozen), as a tab in the background may be behind.
        frozen = {"on": False}
        second = context.new_page()

        def relay(ws: Any) -> None:
            server = ws.connect_to_server()
            server.on_message(lambda m: None if frozen["on"] and '"kind":"view"' in str(m).replace(" ", "")
                              else ws.send(m))
            ws.on_message(lambda m: server.send(m))

        second.route_web_socket("**/ws", relay)
        second.goto(f"{web_stack.url}/#/match/{match_id}/seat/0")
        second.wait_for_selector("#board[data-version]")
        before = int(second.locator("#board").get_attribute("data-version"))
        frozen["on"] = True
        for i in range(12):  # until seat 0 has a move to click in the frozen tab, then the match moves on without it
            if second.locator("#controls .choice button.send").count():
                break
            _move(http, match_id, tokens, f"pre{i}")
            frozen["on"] = False
            second.wait_for_function("(v) => Number(document.getElementById('board').dataset.version) > v",
                                     arg=before)
            before = int(second.locator("#board").get_attribute("data-version"))
            frozen["on"] = True
        assert second.locator("#controls .choice button.send").count(), "seat 0 never had a move"
        _move(http, match_id, tokens, "elsewhere")  # the move "in another tab"
        second.locator("#controls .choice button.send").first.click()
        second.wait_for_function("() => document.getElementById('refusal').textContent.length > 0")
        assert "too late" in second.locator("#refusal").inner_text()
        frozen["on"] = False
        _move(http, match_id, tokens, "after")
        second.wait_for_function("(v) => Number(document.getElementById('board').dataset.version) > v", arg=before)
        assert "too late" in second.locator("#refusal").inner_text()  # kept across the redraw

        # Resign: a vote to abandon, after a confirm step; the others' agreement ends the match
        second.on("dialog", lambda dialog: dialog.accept())
        second.locator("#resign").click()
        second.wait_for_selector("#notice:not([hidden]) #notice-text")
        assert "Your vote counts" in second.locator("#notice-text").inner_text()
        voted = http.post(f"/matches/{match_id}/abandon", headers={"Authorization": f"Bearer {tokens[1]}"})
        assert voted.json()["abandoned"] is True, voted.text
        first.wait_for_selector("#status.over")
        assert "without a winner" in first.locator("#placing").inner_text()
    finally:
        context.close()

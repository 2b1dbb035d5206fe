"""Turn clocks at the table (#29), in headless Chromium against a real stack: a time control chosen in the lobby's
form reaches the match and the table's header; a seat's countdown runs down live and warns its own player when
little time is left; a seat whose player closed the tab times out, the service's bot moves for it and every table
says so; the third timeout in a row forfeits the match, and the end screen says who forfeited and why."""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from tests.gateway.stack import GatewayStack
from tests.web.conftest import save_screenshot
from tests.web.pages import send_row

pytestmark = [pytest.mark.gateway, pytest.mark.browser, pytest.mark.redis]
VIEWPORT = {"width": 1366, "height": 900}
MOVE_S = 3  # the move clock of the forfeit test: short, and long enough for a page to be read within it
LEFT_MS = ("(seat) => { const li = document.querySelector(`#clock-seats li.running[data-seat='${seat}']`);"
           " return li && li.dataset.leftMs !== '' ? Number(li.dataset.leftMs) : null; }")


@pytest.fixture(scope="module")
def http(web_stack: GatewayStack) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=web_stack.url, timeout=30) as client:
        yield client


def person(browser: Any, http: httpx.Client, name: str) -> Any:
    """A browser signed in as a new player ``name`` (its key kept in local storage, as the #/me page keeps it)."""
    key = http.post("/players", json={"name": name}).json()["api_key"]
    context = browser.new_context(viewport=VIEWPORT)
    kept = json.dumps(json.dumps({"name": name, "key": key}))
    context.add_init_script(f"localStorage.setItem('airship.player', {kept});")
    return context


def create_clocked(page: Any, url: str, game: str, seats: int, others: str, kind: str, seconds: float,
                   increment: float = 0, timeouts: int = 3) -> str:
    """Create a match in the lobby's form with a time control; the page goes to the table of seat 0."""
    page.goto(f"{url}/#/")
    page.wait_for_selector(f"#game option[value='{game}']", state="attached")
    page.select_option("#game", game)
    page.fill("#seats", str(seats))
    page.select_option("#me", "first")
    page.select_option("#others", others)
    page.select_option("#clock-kind", kind)
    page.fill("#clock-seconds", str(seconds))
    if kind == "bank":
        page.fill("#clock-increment", str(increment))
        assert page.locator("#clock-timeouts").is_hidden()
    else:
        page.fill("#clock-timeouts", str(timeouts))
        assert page.locator("#clock-increment").is_hidden()
    page.click("#create-button")
    page.wait_for_url("**/#/match/*/seat/0")
    return str(page.url.split("#/match/")[1].split("/")[0])


def errors_of(page: Any, errors: list[str]) -> Any:
    page.on("pageerror", lambda e: errors.append(str(e)))
    return page


def test_timeouts_in_a_row_forfeit_at_the_table(web_stack: GatewayStack, http: httpx.Client, browser: Any) -> None:
    alice, bob = f"alice{uuid.uuid4().hex[:6]}", f"bob{uuid.uuid4().hex[:6]}"
    errors: list[str] = []
    alices, bobs = person(browser, http, alice), person(browser, http, bob)
    try:
        page = errors_of(alices.new_page(), errors)
        match_id = create_clocked(page, web_stack.url, "nim", 2, "people", "move", MOVE_S, timeouts=3)
        page.wait_for_selector("#clock-seats li[data-seat='1']")
        assert page.locator("#table-clock").inner_text().strip() == f"· {MOVE_S} s per move"
        assert page.locator("#time-control").inner_text() == f"{MOVE_S} s per move"
        assert "not started" in page.locator("#clock-seats li[data-seat='0']").inner_text()

        # bob takes seat 1 from the lobby: the match starts, seat 0 (alice) is to act and on the clock
        other = errors_of(bobs.new_page(), errors)
        other.goto(f"{web_stack.url}/#/")
        other.locator(f"tr[data-match='{match_id}'] button[data-join='1']").click(timeout=15_000)
        other.wait_for_url(f"**/#/match/{match_id}/seat/1")

        # alice's own countdown runs down (from the record's server time), and warns her near its end
        first = page.wait_for_function(LEFT_MS, arg=0, timeout=10_000).json_value()
        page.wait_for_timeout(250)
        later = page.evaluate(LEFT_MS, 0)
        assert later is not None and 0 <= later < first <= MOVE_S * 1000, (first, later)
        page.wait_for_selector("#clock-warning:not([hidden])", timeout=MOVE_S * 1000)
        warning = page.locator("#clock-warning").inner_text()
        assert "left — act or the service's bot moves for you" in warning, warning
        assert page.locator("#clock-seats li[data-seat='0'].low").count() == 1
        save_screenshot(page, "clock-warning", docs=False)
        # ... which she does not: the service's bot moves for her, and her table says so
        page.wait_for_function("() => document.getElementById('clock-news').textContent.includes('Time ran out')",
                               timeout=15_000)
        assert page.locator("#clock-news").inner_text().startswith(
            "Time ran out for you: the service's bot played in your place (1 in a row; the 3rd forfeits)")
        assert page.locator("#clock-warning").is_hidden()
        page.close()  # alice leaves: her seat stays on the clock

        # bob plays on; alice's seat times out twice more with her tab closed: bob's table says so each time
        for _ in range(20):
            other.wait_for_function("() => document.querySelector('#controls .choice button.send')"
                                    " || document.querySelector('#status.over')", timeout=30_000)
            if other.locator("#status.over").count():
                break
            before = int(other.locator("#board").get_attribute("data-version"))
            try:
                send_row(other.locator("#controls .choice").first, timeout_ms=2_000)
            except Exception:  # (redrawn under the pointer by a newer view: look again)
                continue
            other.wait_for_function("(v) => Number(document.getElementById('board').dataset.version) > v", arg=before)
        assert other.locator("#status.over").count(), "the match did not end"
        timed_out = other.locator("#events li[data-type='TimedOut']", has_text=alice).all_inner_texts()
        assert timed_out[::-1] == [
            f"Time ran out for {alice} (seat 0): the service's bot played in that seat's place ({n} in a row; the 3rd "
            "forfeits)." for n in (1, 2)], timed_out
        stand_ins = other.locator("#events li", has_text=f"{alice} (seat 0), by the service's bot as time ran out")
        assert stand_ins.count() == 2, other.locator("#events").inner_text()
        assert other.locator("#events li[data-type='MoveTimed']").count() == 0  # (one after every move: not listed)

        # the third in a row forfeits: the match is over, bob won, and his end screen says why
        placing = other.locator("#placing").inner_text()
        assert placing == f"You won: {alice} (seat 0) forfeited (ran out of time: 3 timeouts in a row).", placing
        assert other.locator(".placings li").all_inner_texts() == ["1st: you — won",
                                                                   f"2nd: {alice} (seat 0) — forfeited"]
        assert "forfeited" in other.locator("#events li[data-type='Forfeited']").inner_text()
        assert other.locator("#status").inner_text() == "Match over: seat 0 forfeited (ran out of time); seat 1 won."
        assert other.locator("#clock-seats li[data-seat='0'].forfeited").count() == 1
        assert other.locator("#clock-seats li.running").count() == 0
        assert other.locator("#clock-seats li[data-seat='0']").get_attribute("data-timeouts") == "3"
        save_screenshot(other, "clock-forfeit", docs=False)
        summary = http.get(f"/matches/{match_id}/views/public").json()
        assert summary["outcome"]["detail"] == {"forfeited": [0], "reason": "timeouts"}, summary["outcome"]

        ended = other.locator("#ending").inner_text()
        assert "null" not in ended and "[object" not in ended, ended
        watcher = errors_of(bobs.new_page(), errors)  # a spectator's end screen: who forfeited, who won
        watcher.goto(f"{web_stack.url}/#/match/{match_id}/watch")
        watcher.wait_for_function("(name) => (document.getElementById('placing') || {}).textContent?.includes(name)",
                                  arg=alice)
        assert watcher.locator("#placing").inner_text() == (f"{alice} (seat 0) forfeited (ran out of time: 3 timeouts "
                                                            f"in a row). {bob} (seat 1) won.")
        assert "null" not in watcher.locator("#ending").inner_text()

        # alice comes back: her own end screen
        back = errors_of(alices.new_page(), errors)
        back.goto(f"{web_stack.url}/#/match/{match_id}/seat/0")
        back.wait_for_selector("#status.over")
        assert back.locator("#placing").inner_text() == "You forfeited (ran out of time: 3 timeouts in a row)."
        assert not errors, errors
    finally:
        alices.close()
        bobs.close()


def test_a_bank_runs_out_against_a_bot(web_stack: GatewayStack, http: httpx.Client, browser: Any) -> None:
    """A bank clock chosen in the lobby (the header says it); the bank left shows; an empty bank forfeits."""
    errors: list[str] = []
    context = browser.new_context(viewport=VIEWPORT)
    try:
        page = errors_of(context.new_page(), errors)
        page.goto(f"{web_stack.url}/#/")
        page.wait_for_selector("#clock-kind")
        assert page.locator("#clock-kind").input_value() == "none" and page.locator("#clock-seconds").is_hidden()
        page.select_option("#clock-kind", "bank")
        assert page.locator("#clock-seconds").input_value() == "300"  # a bank starts sensible: 5 min + 5 s
        assert page.locator("#clock-said").inner_text().startswith("Each seat has 5 min in all, plus 5 s for each")
        save_screenshot(page, "clock-lobby", docs=False)
        match_id = create_clocked(page, web_stack.url, "nim", 2, "heuristic", "bank", 2.5, increment=1)
        page.wait_for_selector("#clock-seats li[data-seat='1']")
        assert page.locator("#table-clock").inner_text().strip() == "· 2.5 s + 1 s"
        page.wait_for_selector("#status.over", timeout=30_000)  # seat 0 acts first and never does
        assert page.locator("#placing").inner_text() == "You forfeited (ran out of time: the bank was empty)."
        assert page.locator("#clock-seats li[data-seat='1']").inner_text().startswith("seat 1")
        assert "left" in page.locator("#clock-seats li[data-seat='1'] .left").inner_text()  # its bank: never ran
        outcome = http.get(f"/matches/{match_id}/views/public").json()["outcome"]
        assert outcome["detail"] == {"forfeited": [0], "reason": "bank"} and outcome["winners"] == [1]
        assert not errors, errors
    finally:
        context.close()

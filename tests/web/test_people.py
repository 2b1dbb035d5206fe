"""People by name in the web app (#30): sign up in the page (the API key kept by the browser), seats taken there
linked to the name, names in the lobby and at the table, a rated seat opening to its player; sign in with a key."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from tests.gateway.stack import GatewayStack

pytestmark = [pytest.mark.gateway, pytest.mark.browser, pytest.mark.redis]


@pytest.fixture(scope="module")
def http(web_stack: GatewayStack) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=web_stack.url, timeout=30) as client:
        yield client


def test_a_person_plays_under_a_name(web_stack: GatewayStack, http: httpx.Client, browser: Any) -> None:
    carol, dave = f"carol{uuid.uuid4().hex[:6]}", f"dave{uuid.uuid4().hex[:6]}"
    dave_key = http.post("/players", json={"name": dave}).json()["api_key"]
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    try:
        page = context.new_page()
        page.goto(f"{web_stack.url}/#/me")
        page.fill("#name", carol)
        page.locator("#sign-up button[type=submit]").click()
        page.wait_for_selector("#sign-out")
        assert page.locator("#whoami").inner_text() == carol
        key = page.evaluate("() => JSON.parse(localStorage.getItem('airship.player')).key")
        assert http.get("/players/me", headers={"X-Airship-Key": key}).json() == {"name": carol}
        assert http.get("/players/me").status_code == 401

        # a rated match with a seat kept for carol: the lobby offers it to her (and to nobody else)
        rated = http.post("/ladder/mad-zeppelin/matches", json={"players": [dave, carol]},
                          headers={"X-Airship-Key": dave_key})
        assert rated.status_code == 201, rated.text
        match_id = rated.json()["match_id"]
        page.goto(f"{web_stack.url}/#/")
        row = page.locator(f"tr[data-match='{match_id}']")
        row.locator("button[data-join='1']", has_text="take your seat").click()
        page.wait_for_selector("#status")
        joined = http.post(f"/matches/{match_id}/seats", json={"seat": 0}, headers={"X-Airship-Key": dave_key})
        assert joined.status_code == 201, joined.text
        summary = http.get(f"/matches/{match_id}").json()
        assert summary["players"] == {"0": dave, "1": carol} and summary["status"] == "running"
        page.goto(f"{web_stack.url}/#/match/{match_id}/seat/1")
        page.wait_for_selector("#people")
        assert f"{dave} (seat 0)" in page.locator("#people").inner_text()
        page.goto(f"{web_stack.url}/#/")
        chips = page.locator(f"tr[data-match='{match_id}'] .seatchips").inner_text()
        assert dave in chips and f"you ({carol})" in chips

        # the same person in another browser: signs in with the key
        other = browser.new_context().new_page()
        other.goto(f"{web_stack.url}/#/me")
        other.fill("#key", key)
        other.locator("#sign-in button[type=submit]").click()
        other.wait_for_selector("#sign-out")
        assert other.locator("#whoami").inner_text() == carol
        other.context.close()
    finally:
        context.close()

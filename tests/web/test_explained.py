"""The game explained where it is played (#30): every card, Traitor, event, die and industry on a game's table says
what it does, in the words of the game's own texts (built from its data tables, served through its registration),
on hover (an SVG <title> or an HTML title), on a tap (the line under the board) and in the list of the pieces on the
table; Mad Zeppelin's leader, bans and Captain's watches are on the table; each game's rules in short are a page
reachable from the table."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from services.games.registry import REGISTRATIONS
from tests.gateway.stack import GatewayStack
from tests.web.conftest import save_screenshot
from tests.web.test_lobby_api import create, join

pytestmark = [pytest.mark.gateway, pytest.mark.browser, pytest.mark.redis]
GAMES = {"modern-world": 2, "mad-zeppelin": 3, "moderne-zeiten": 3}
PIECES_JS = """() => [...document.querySelectorAll('#board [data-explain], #hand [data-explain]')].map((n) => ({
  explain: n.dataset.explain, name: n.dataset.name, tag: n.tagName.toLowerCase(),
  title: n instanceof SVGElement ? (n.querySelector(':scope > title') || {}).textContent : n.title,
  text: n.textContent, attrs: Object.fromEntries([...n.attributes].map((a) => [a.name, a.value]))}))"""


@pytest.fixture(scope="module")
def http(web_stack: GatewayStack) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=web_stack.url, timeout=30) as client:
        yield client


def test_each_game_serves_its_words_and_rules(http: httpx.Client) -> None:
    listed = {g["name"]: g for g in http.get("/games").json()["games"]}
    for game in GAMES:
        registration = REGISTRATIONS[game]
        assert registration.texts is not None and registration.rules is not None
        info = listed[game]
        assert info["texts"] == f"/web/games/{game}/texts.json" and info["rules"] == f"/web/games/{game}/rules.md"
        served = http.get(info["texts"])
        assert served.status_code == 200 and served.headers["content-security-policy"]
        assert served.json() == json.loads(json.dumps(registration.texts()))  # the game's own tables, as built
        rules = http.get(info["rules"])
        assert rules.status_code == 200 and rules.headers["content-type"].startswith("text/markdown")
        assert rules.text == registration.rules.read_text() and rules.text.startswith("# ")
    assert listed["nim"]["texts"] is None and listed["nim"]["rules"] is None  # a game without words has none
    assert http.get("/web/games/nim/texts.json").status_code == 404
    assert http.get("/web/games/nope/rules.md").status_code == 404
    words = REGISTRATIONS["modern-world"].texts()  # type: ignore[misc]
    assert words["resource"]["Culture"].startswith("In play: produces 2 victory")  # data.py: Culture (2, 0, ...)
    assert words["market"]["Asian Tiger"].startswith("Reward: 13 money")
    assert words["event"]["Trade War"] == "Everyone skips the trade phase this turn."
    mz = REGISTRATIONS["mad-zeppelin"].texts()  # type: ignore[misc]
    assert "blue" in mz["traitor"]["captain"] and "Search: take 2 Gold and no Cargo" in mz["traitor"]["shadow"]
    assert mz["cargo"]["steel"] == "Level 2. 5 points. Costs 3 Gold to throw."


def open_seat(page: Any, url: str, match_id: str, tokens: dict[str, str], seat: int) -> None:
    page.goto(f"{url}/#/")
    page.evaluate("([key, value]) => localStorage.setItem(key, value)",
                  [f"airship.match.{match_id}", json.dumps(tokens)])
    page.goto(f"{url}/#/match/{match_id}/seat/{seat}")
    page.wait_for_selector("#board[data-version] svg")
    page.wait_for_function("() => document.querySelectorAll('#board [data-explain]').length > 0")


def every_piece_explained(pieces: list[dict[str, Any]], texts: dict[str, dict[str, str]]) -> None:
    known = {text for kind in texts.values() for text in kind.values()}
    for piece in pieces:
        assert any(piece["explain"].startswith(text) for text in known), piece  # the game's words, never made up
        assert piece["title"] == f"{piece['name']}: {piece['explain']}", piece  # said on hover
        assert piece["attrs"].get("tabindex") == "0", piece  # reachable with the keyboard


@pytest.mark.parametrize("game", list(GAMES))
def test_the_table_explains_its_pieces(web_stack: GatewayStack, http: httpx.Client, browser: Any, game: str) -> None:
    texts = REGISTRATIONS[game].texts()  # type: ignore[misc]
    match_id = create(http, game, GAMES[game])
    tokens = {str(s): join(http, match_id, s) for s in range(GAMES[game])}
    context = browser.new_context(viewport={"width": 1366, "height": 768})
    try:
        page = context.new_page()
        open_seat(page, web_stack.url, match_id, tokens, 0)
        view = json.loads(page.locator("#board").get_attribute("data-view"))
        pieces = page.evaluate(PIECES_JS)
        every_piece_explained(pieces, texts)
        by = lambda attr: [p for p in pieces if attr in p["attrs"]]  # noqa: E731
        if game == "modern-world":
            tableau = by("data-tableau")
            assert [p["attrs"]["data-card"] for p in tableau] == [s["card"] for s in view["tableau"]] and tableau
            for p, slot in zip(tableau, view["tableau"], strict=True):
                assert p["explain"] == texts["resource"][slot["card"]]
                first_gain = texts["resource_short"][slot["card"]].split(" +")[0]
                assert first_gain in p["text"] and f"price {slot['price']}" in p["text"]  # on the card itself
            for p, name in zip(by("data-market"), view["market_row"], strict=True):
                assert p["explain"] == texts["market"][name] and texts["market_short"][name] in p["text"]
            if view["current_event"]:
                event = by("data-event")[0]
                assert event["explain"] == texts["event"][view["current_event"]] and event["explain"] in event["text"]
            assert len(by("data-token")) == 7 * GAMES[game]
        elif game == "mad-zeppelin":
            leader = by("data-leader")
            assert leader and leader[0]["explain"] == texts["board"]["leader"]
            assert f"seat {view['leader']}" in leader[0]["text"]
            assert len(by("data-die")) == len(view["dice"])
            own = [p for p in by("data-traitor") if p["tag"] == "span"]  # the seat's own Traitors, in its hand
            dealt = [t["traitor"] for t in view["traitors"] or []] + (view["draft_pool"] or [])
            assert [p["attrs"]["data-traitor"] for p in own] == dealt
            for p in own:
                key = p["attrs"]["data-traitor"]
                assert p["explain"] == texts["traitor"][key] and texts["traitor_short"][key] in p["text"]
            # bans and the Captain's watches (mid-turn only): the board shows what a view with them says
            shown = page.evaluate("""async ([view, texts]) => {
                const m = await import('/web/games/mad-zeppelin.js');
                const v = {...view, named_unplayable: ['doctor'], captain_watches: [{seat: 1, traitor: 'guard'}]};
                const node = m.board(v, 0, texts);
                const bans = node.querySelector('[data-bans]');
                const watches = node.querySelector('[data-watches]');
                return [bans.textContent, watches.textContent, bans.dataset.explain, watches.dataset.explain];
            }""", [view, texts])
            assert "Cannot be played this turn: Doctor" in shown[0] and "seat 1 on the Guard" in shown[1]
            assert shown[2:] == [texts["board"]["bans"], texts["board"]["watches"]]
        else:
            industries = by("data-industry")
            assert sorted(p["attrs"]["data-industry"] for p in industries) == sorted(texts["industry"])
            assert all(p["explain"] == texts["industry"][p["attrs"]["data-industry"]] for p in industries)
            assert sorted(p["attrs"]["data-city"] for p in by("data-city")) == sorted(texts["city"])
            assert by("data-crash")[0]["explain"] == texts["board"]["crash"]
            assert len(by("data-space")) == len(view["track"])
            hand = [p for p in pieces if p["tag"] == "span"]
            assert sorted(p["attrs"]["data-card"] for p in hand) == sorted(k for k, n in view["hand"].items() if n)
            assert all(p["explain"] == texts["card"][p["attrs"]["data-card"]] for p in hand)

        # a tap says it under the board; the list names every piece on the table
        first = page.locator("#board [data-explain]").first
        first.click()
        said = page.locator("#explain").inner_text()
        assert said == f"{first.get_attribute('data-name')}: {first.get_attribute('data-explain')}"
        save_screenshot(page, f"explained-{game}", docs=False)
        page.locator("#glossary summary").click()
        listed = page.locator("#glossary dd").all_inner_texts()
        assert set(listed) == {p["explain"] for p in page.evaluate(PIECES_JS)}

        # the rules in short, from the table
        link = page.locator("#rules-link")
        assert link.get_attribute("href") == f"#/rules/{game}"
        page.goto(f"{web_stack.url}/{link.get_attribute('href')}")
        page.wait_for_selector(f"#rules[data-game='{game}'] h2")
        source = REGISTRATIONS[game].rules.read_text()  # type: ignore[union-attr]
        headings = [line[3:] for line in source.splitlines() if line.startswith("## ")]
        assert page.locator("#rules h2").all_inner_texts() == headings
        assert page.locator("main h1").inner_text() == source.splitlines()[0][2:]
        lines = source.splitlines()
        assert page.locator("#rules li").count() == sum(bool(re.match(r"\s*(-|\d+\.)\s", line)) for line in lines)
        rows = [line for line in lines if line.startswith("|") and not set(line) <= set("|-: ")]
        assert page.locator("#rules tr").count() == len(rows)
        assert page.locator("#rules").inner_text().count("**") == 0  # Markdown shown as text, never its marks
    finally:
        context.close()

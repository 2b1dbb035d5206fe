"""Driving the web app in Chromium as a person would, and recording what a page received from the network."""

from __future__ import annotations

import contextlib
import json
import random
import re
from dataclasses import dataclass, field
from typing import Any

from schemas.envelopes import EventEnvelope
from services.games.registry import registration_of
from tests.gateway.hidden_truth import WIRE_WORDS, Truth, leaves, normal

STATE_JS = """(last) => {
  const board = document.getElementById('board');
  const status = document.getElementById('status');
  if (!board || !board.dataset.version) return null;
  const version = Number(board.dataset.version);
  const view = JSON.parse(board.dataset.view);
  const rows = document.querySelectorAll('#controls .choice');
  const rejected = document.querySelector('#controls .choice[data-rejected]');
  if (view.finished || (version > last && rows.length) || rejected) {
    return {version, finished: !!view.finished, rows: rows.length, rejected: !!rejected,
            status: status ? status.textContent : ''};
  }
  return null;
}"""


FILL_JS = """(row) => {  // what a person does before sending: every editor the page left empty given a legal value
  for (const input of row.querySelectorAll('input[type=number]:not([data-key])')) {
    if (input.value === '') input.value = input.min || '0';
  }
  for (const select of row.querySelectorAll('select')) {
    if (select.value === '' && select.options.length > 1) select.selectedIndex = 1;
  }
  for (const counts of row.querySelectorAll('.counts[data-min-total]')) {
    let left = Number(counts.dataset.minTotal);
    for (const input of counts.querySelectorAll('input[data-key]')) {
      const n = Math.min(Number(input.max), left);
      input.value = String(n);
      left -= n;
    }
  }
}"""


def send_row(row: Any, timeout_ms: int = 1_500) -> bool:
    """Fill a control row's empty editors with legal values, click its button and, when the move asks to be
    confirmed (a consequential one), confirm it. True when it asked."""
    row.evaluate(FILL_JS)
    row.locator("button.send").click(timeout=timeout_ms)
    confirm = row.locator("button.confirm")
    if confirm.count() and confirm.is_visible():
        confirm.click(timeout=timeout_ms)
        return True
    return False


@dataclass
class Wiretap:
    """Every WebSocket frame and every HTTP answer (but the app's own files) a page received."""

    frames: list[str] = field(default_factory=list)
    answers: list[str] = field(default_factory=list)

    def attach(self, page: Any) -> None:
        page.on("websocket", lambda ws: ws.on("framereceived", self._frame))

        def route(route: Any) -> None:
            from playwright.sync_api import Error as PlaywrightError

            try:
                response = route.fetch()
            except PlaywrightError:  # the page closed with a request in flight ("Request context disposed"): it got
                with contextlib.suppress(PlaywrightError):  # no answer, so nothing it received goes unrecorded (a
                    route.abort()                           # page still open sees a network error, as it would)
                return
            self.answers.append(response.text())
            route.fulfill(response=response)

        def api(url: str) -> bool:  # every HTTP answer but the app's own files (and not the WebSocket)
            path = url.split("://", 1)[-1].split("/", 1)[-1].split("#")[0]
            return not (path.startswith("web/") or path in ("", "ws") or path.startswith("ws?"))

        page.route(api, route)

    def _frame(self, payload: Any) -> None:
        self.frames.append(payload if isinstance(payload, str) else payload.decode("utf-8", "replace"))

    def socket_messages(self) -> list[Any]:
        return [json.loads(text) for text in self.frames]

    def messages(self) -> list[Any]:
        out: list[Any] = []
        for text in [*self.frames, *self.answers]:
            try:
                out.append(json.loads(text))
            except ValueError:
                out.append(text)
        return out


def check_frames(messages: list[Any], truth: Truth, seat: int) -> int:
    """Every WebSocket message a seat's page received is what the seat may see, exactly: each view the seat's
    own view of that version (with its own legal commands), each event as the seat sees it, each result its
    own. Returns the number of views."""
    truth.refresh()
    expected_events = truth.events_for(seat)
    views = 0
    subscribed_at = 0
    for m in messages:
        assert isinstance(m, dict), m
        if m["kind"] == "view" and m["version"] == 0:  # the match waited for players: its record as dealt, served
            assert m["key"] == str(seat) and m["view"] == truth.view(subscribed_at, seat), m  # with nobody to act
            assert m["legal"] == [] and m["to_act"] == [], m
        elif m["kind"] == "view":
            views += 1
            assert m["key"] == str(seat) and m["view"] == truth.view(m["version"], seat), m["version"]
            assert m["legal"] == truth.legal(m["version"], seat), m["version"]
        elif m["kind"] == "event":
            assert m["event"] == expected_events[m["event"]["version"] - 1], m["event"]["version"]
            adapter = registration_of(truth.game_name).chat
            if adapter is not None:  # the page asks for the game's words: those of the event as the seat sees it
                said = adapter.render_event(EventEnvelope.model_validate(m["event"]))
                assert m["text"] == (said or ""), (m["event"], m["text"])
        elif m["kind"] == "result":
            assert m["result"]["seat"] == seat, m
        elif m["kind"] == "subscribed":
            assert m["seat"] == seat, m
            subscribed_at = m["version"]
        else:
            raise AssertionError(f"unexpected message {m}")
    return views


def shown_view(page: Any) -> tuple[int, Any]:
    """The version and view the page shows (read at once: a newer view may replace them any moment)."""
    version, view = page.evaluate("() => { const b = document.getElementById('board');"
                                  " return [Number(b.dataset.version), b.dataset.view]; }")
    return version, json.loads(view)


NAMES_JS = "(bs) => bs.map((b) => (b.getAttribute('aria-label') || b.textContent).trim())"


def by_visible_name(page: Any, rows: Any, rng: random.Random, chosen: list[str]) -> Any:
    """As a person chooses: read the moves' buttons as the page names them (their accessible names), pick one by
    its words, and find the control again by that name alone. Every move's name must be there, and say which move
    it is: two controls of one name would leave a person guessing. None when the controls were redrawn meanwhile
    (a newer version: look again)."""
    names = rows.locator("button.send").evaluate_all(NAMES_JS)
    assert all(names), f"a move without a name: {names}"
    assert len(set(names)) == len(names), f"two moves of one name: {sorted(n for n in names if names.count(n) > 1)}"
    name = rng.choice(names)
    button = page.get_by_role("button", name=name, exact=True)
    found = button.count()
    # (its row by position: a locator through the name would lose the row once the button changes, as a confirm
    # step changes it)
    index = button.evaluate("(b) => [...document.querySelectorAll('#controls .choice')].indexOf(b.closest('.choice'))"
                            ) if found == 1 else -1
    if index < 0:
        assert rows.locator("button.send").evaluate_all(NAMES_JS) != names, (name, found)  # else: really not there
        return None
    chosen.append(name)
    return rows.nth(index)


def play_by_clicking(page: Any, truth: Truth, seat: int, rng: random.Random, *, on_step: Any = None,
                     max_clicks: int = 2000, timeout_ms: int = 60_000, by_name: bool = False) -> dict[str, Any]:
    """Play the seat's page to the end by clicking the controls it shows (a random one each time: with
    ``by_name``, chosen and found by its visible name, :func:`by_visible_name`); once, type an amount past its range
    into a number field and check the rejection is shown in that row. Each time, the page shows exactly the seat's
    view of that version."""
    from playwright.sync_api import Error as PlaywrightError

    last = 0
    clicks = rejections_seen = 0
    tried_bad = False
    names: list[str] = []  # the moves chosen by name
    while clicks < max_clicks:
        state = page.wait_for_function(STATE_JS, arg=last, timeout=timeout_ms).json_value()
        version, view = shown_view(page)
        assert normal(view) == truth.refresh().view(version, seat), f"the page's view of version {version}"
        if state["finished"]:
            return {"clicks": clicks, "version": version, "rejections_seen": rejections_seen, "status": state["status"],
                    "typed_past_range": tried_bad, "names": names}
        if state["rejected"]:  # (a command that lost a race with another seat's, in phases where several act)
            page.evaluate("() => document.querySelectorAll('#controls .choice[data-rejected]')"
                          ".forEach(r => r.removeAttribute('data-rejected'))")
        rows = page.locator("#controls .choice")
        try:
            if not tried_bad and page.locator("#controls .choice input[type=number][max]").count():
                tried_bad = True
                field_ = page.locator("#controls .choice input[type=number][max]").first
                row = field_.locator("xpath=ancestor::div[contains(@class,'choice')]")
                row.evaluate(FILL_JS)
                field_.fill(str(int(field_.get_attribute("max") or 0) + 1000))
                row.locator("button.send").click()
                if row.locator("button.confirm").count():  # (past the range is past what one has: confirm it)
                    row.locator("button.confirm").click()
                page.wait_for_function("(row) => row.dataset.rejected || !row.isConnected", arg=row.element_handle(),
                                       timeout=timeout_ms)
                if row.count() and row.get_attribute("data-rejected"):
                    assert row.locator(".why").inner_text().startswith("Refused:")
                    rejections_seen += 1
                    field_.fill(field_.get_attribute("min") or "0")
                    page.evaluate("() => document.querySelectorAll('#controls .choice[data-rejected]')"
                                  ".forEach(r => r.removeAttribute('data-rejected'))")
                continue
            count = rows.count()
            if not count:  # a newer view without a decision came in meanwhile
                last = min(last, version)
                continue
            row = by_visible_name(page, rows, rng, names) if by_name else rows.nth(rng.randrange(count))
            if row is None:  # redrawn by a newer version while it was read: look again
                last = min(last, version - 1)
                continue
            send_row(row)
        except PlaywrightError:  # the controls were redrawn under the pointer by a newer version: look again
            last = min(last, version - 1)
            continue
        clicks += 1
        last = version
        if on_step is not None:
            on_step(clicks, version)
    raise AssertionError(f"the match did not end after {max_clicks} clicks")


def values(obj: Any) -> set[str]:
    """Every text value of a JSON-like value (keys left out: they name fields)."""
    if isinstance(obj, str):
        return {obj}
    if isinstance(obj, dict):
        return {s for v in obj.values() for s in values(v)}
    if isinstance(obj, list | tuple):
        return {s for v in obj for s in values(v)}
    return set()


def spelled(word: str) -> str:
    """A name as the page spells it (static/dom.js ``words``): underscores and camel humps become spaces."""
    return re.sub(r"([a-z])([A-Z])", r"\1 \2", word.replace("_", " ")).lower()


def allowed_text(truth: Truth, seat: int | None) -> set[str]:
    """Every word the seat may see (its events and the game's sentences for them, its views and legal commands at
    every version, the public views), as the page spells it, one word at a time."""
    seen = leaves(truth.events_for(seat)) | WIRE_WORDS
    adapter = registration_of(truth.game_name).chat
    said: set[str] = set()  # the game's sentences for those events ("the tenth Journey card"): check_frames shows
    if adapter is not None:  # that the page got exactly these, made from the events as the seat sees them
        said = {w for e in truth.log for w in re.findall(r"[a-z0-9]+", (adapter.render_event(e.for_seat(seat))
                                                                         or "").lower())}
    for v in range(truth.version + 1):
        seen |= leaves(truth.view(v, None))
        if seat is not None:
            seen |= leaves(truth.view(v, seat)) | leaves(truth.legal(v, seat))
    return {token for leaf in seen for token in spelled(leaf).split()} | said


def secret_values(truth: Truth, seat: int | None) -> set[str]:
    """The secrets kept from ``seat`` (:meth:`Truth.secret_words`) that are values, not field names, and that the
    page could not show for another reason: a word that, as the page spells it, is also a word of something the
    seat may see ("journey" of "JourneyEnded") cannot tell a leak from a label, so the network check (exact text)
    is the one that covers it."""
    hidden = {w for e in truth.hidden_from(seat) for w in values(e.body)}
    allowed = allowed_text(truth, seat)
    return {w for w in truth.secret_words(seat) & hidden if not set(spelled(w).split()) <= allowed}


def dom_words_leaked(html: str, secret: set[str]) -> set[str]:
    """The secret words found in the page, as the page spells them, as whole words."""
    low = html.lower()
    return {w for w in secret
            if re.search(rf"(?<![a-z0-9_]){re.escape(spelled(w))}(?![a-z0-9_])", low)
            or re.search(rf"(?<![a-z0-9_]){re.escape(w.lower())}(?![a-z0-9_])", low)}


__all__ = [
    "FILL_JS",
    "Wiretap",
    "check_frames",
    "dom_words_leaked",
    "leaves",
    "play_by_clicking",
    "secret_values",
    "send_row",
    "shown_view",
]

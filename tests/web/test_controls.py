"""Controls that name what they do (#30): for states met in seeded playouts of each game, the seat's legal moves as
the page draws them (controls.js with the game's describe, in Chromium) name their object ("buy Culture for 3",
"throw coal (2 Gold)", "re-roll the green die"), reach every legal command once (no two controls do the same; a
throw's aliases left out), start every editor empty with an accessible name that says what it is for; and a
consequential move (a play that crashes the market, a move to Finish, a bid of all one has, a throw of all one's
Gold) is said and sent only once confirmed."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from typing import Any

import pytest

from schemas.legal import Choice
from services.games.base import commands_of, replay
from services.games.mad_zeppelin.rules import throw_cost
from services.games.registry import REGISTRATIONS
from tests.gateway.stack import GatewayStack

pytestmark = [pytest.mark.gateway, pytest.mark.browser, pytest.mark.redis]
GAMES = {"modern-world": 2, "mad-zeppelin": 3, "moderne-zeiten": 3}
RENDER_JS = """async ([game, samples]) => {
  const { controls } = await import('/web/controls.js');
  const { boardFor } = await import('/web/boards/index.js');
  const kind = await boardFor(game);
  return samples.map(({ view, legal }) => {
    const box = controls(legal, () => null, (c) => kind.describe(c, view, legal));
    return [...box.querySelectorAll('.choice')].map((row) => ({
      label: row.querySelector('button.send').textContent,
      indices: row.dataset.merged ? row.dataset.merged.split(' ').map(Number) : row.querySelector('select.pay')
        ? [...row.querySelectorAll('select.pay option')].map((o) => Number(o.dataset.index))
        : [Number(row.dataset.index)],
      editors: [...row.querySelectorAll('input, select:not(.pay)')].map((e) => ({
        tag: e.tagName, type: e.type || '', value: e.type === 'checkbox' ? String(e.checked) : e.value,
        key: e.dataset.key || null, name: e.getAttribute('aria-label') || '' })),
      pay: row.querySelector('select.pay') ? row.querySelector('select.pay').getAttribute('aria-label') : null,
    }));
  });
}"""


def samples(game: str, seats: int, seed: int, steps: int = 500) -> list[tuple[Any, int, dict[str, Any], list[Any]]]:
    """(state, seat, view, legal) at states of a seeded random playout: the first three of each command type met."""
    g = REGISTRATIONS[game].game
    rng = random.Random(seed)
    state = replay(g, g.setup({}, seats, rng))
    out: list[tuple[Any, int, dict[str, Any], list[Any]]] = []
    seen: dict[str, int] = {}
    for _ in range(steps):
        if g.outcome(state) is not None:
            break
        seat = min(g.to_act(state))
        choices = g.legal(state, seat)
        new = {c.type for c in choices if seen.get(c.type, 0) < 3}
        if new:
            for t in new:
                seen[t] = seen.get(t, 0) + 1
            out.append((state, seat, json.loads(json.dumps(g.view(state, seat))), [c.wire() for c in choices]))
        command = rng.choice(commands_of(choices, seat, 4))
        for event in g.decide(state, command, rng):
            state = g.evolve(state, event)
    return out


def commands(choice: dict[str, Any]) -> set[str]:
    """A choice's commands, each in one form (the games' aliases: a throw's ``crates: []`` is leaving them out, a
    conversion's count left out is a count of 1, so a conversion is known by what it gains, a buy's payment left out
    is 0); a field that is not a
    list of values (a number, counts, an order) stands for itself."""
    def canon(body: dict[str, Any]) -> str:
        if choice["type"] == "buy":
            body = {"action": 0, "research": 0, **body}
        return json.dumps({k: v for k, v in body.items() if not (k == "crates" and v == [])}, sort_keys=True)
    free = choice.get("free") or {}
    listed = {k: v for k, v in free.items() if v["kind"] == "one_of"}
    opaque = {k: v for k, v in free.items() if k not in listed and not (choice["type"] == "convert" and k == "count")}
    bodies = [dict(choice["body"])]
    for name, spec in listed.items():
        bodies = [{**b, name: value} for b in bodies for value in spec["values"]]
    return {f"{choice['type']} {canon(b)} {json.dumps(opaque, sort_keys=True)}" for b in bodies}


@pytest.fixture(scope="module")
def page(web_stack: GatewayStack, browser: Any) -> Iterator[Any]:
    context = browser.new_context(viewport={"width": 1366, "height": 768})
    page = context.new_page()
    page.goto(f"{web_stack.url}/#/help")
    page.wait_for_selector("main h1")
    yield page
    context.close()


@pytest.mark.parametrize("game", list(GAMES))
def test_controls_name_their_moves_once_each(page: Any, game: str) -> None:
    found = samples(game, GAMES[game], seed=7)
    assert len({c["type"] for _, _, _, legal in found for c in legal}) >= 4, "too few kinds of move met"
    drawn = page.evaluate(RENDER_JS, [game, [{"view": v, "legal": legal} for _, _, v, legal in found]])
    schemas = REGISTRATIONS[game].schemas
    assert schemas is not None
    generic = {t.replace("_", " ") for t in schemas.commands}
    for (state, seat, view, legal), rows in zip(found, drawn, strict=True):
        labels = [r["label"].rstrip(" ▸") for r in rows]
        assert len(labels) == len(set(labels)), labels  # no two controls alike
        covered = [i for r in rows for i in r["indices"]]
        every = set().union(*(commands(c) for c in legal))
        reached = [commands(legal[i]) for i in covered]
        assert set().union(*reached) == every, "a legal move has no control"
        assert sum(len(r) for r in reached) == len(set().union(*reached)), "two controls send the same move"
        for row in rows:
            choice = legal[row["indices"][0]]
            label = row["label"]
            if choice["type"] not in ("pass", "done", "draw"):
                assert label.rstrip(" ▸") not in generic, label  # a move's own words, not its command's name
            for ed in row["editors"]:  # nothing chosen for the player; every editor says what it is for
                assert ed["value"] in ("", "0" if ed["key"] else "", "false"), (label, ed)
                assert ed["name"].endswith(label.rstrip(" ▸")) or (ed["key"] and label.rstrip(" ▸") in ed["name"]), ed
            body = choice["body"]
            if choice["type"] == "buy":
                card = next(s["card"] for s in view["tableau"] if s["price"] == body["position"])
                assert label.startswith(f"buy {card} for {body['position']}"), label
                assert row["pay"] in (None, f"pay with: {label}")  # (a select where there is more than one way)
            elif choice["type"] == "build":
                assert label.startswith(f"build {body['card']} ("), label
            elif choice["type"] == "throw" and body["card"] != "alcohol":
                assert label == f"throw {body['card'].replace('_', ' ')} ({throw_cost(state, seat, body['card'])} Gold)"
            elif choice["type"] == "reroll":
                assert label.startswith(f"re-roll the {view['dice'][body['die']]} die"), label
            elif choice["type"] in ("draft", "play_traitor"):
                assert body["traitor"] in label.lower(), label
            elif choice["type"] == "move" and body["to"] not in (None, "finish"):
                nxt = next(s for s in view["track"] if s["space"] > view["players"][seat]["position"]
                           and s["industry"] == body["to"] and s["claimed_by"] is None)
                assert label.startswith(f"move to space {nxt['space']} ("), label


CONFIRM_JS = """async ([game, view, legal, type, fill]) => {
  const { controls } = await import('/web/controls.js');
  const { boardFor } = await import('/web/boards/index.js');
  const kind = await boardFor(game);
  const sent = [];
  const send = async (t, body) => { sent.push([t, body]); return {}; };
  const box = controls(legal, send, (c) => kind.describe(c, view, legal));
  document.querySelector('main').replaceChildren(box);
  const row = box.querySelector(`.choice[data-type='${type}']`);
  for (const [sel, value] of fill) row.querySelector(sel).value = value;
  row.querySelector('button.send').click();
  const asked = row.querySelector('.confirming:not([hidden]) .warning')?.textContent || null;
  const before = sent.length;
  row.querySelector('button.cancel')?.click();
  const afterCancel = sent.length;
  row.querySelector('button.send').click();
  row.querySelector('button.confirm')?.click();
  await new Promise((r) => setTimeout(r, 10));
  return { asked, before, afterCancel, sent };
}"""


def confirm(page: Any, game: str, view: dict[str, Any], legal: list[dict[str, Any]], kind: str,
            fill: list[tuple[str, str]]) -> dict[str, Any]:
    return page.evaluate(CONFIRM_JS, [game, view, legal, kind, fill])  # type: ignore[no-any-return]


def test_consequential_moves_ask_first(page: Any) -> None:
    mz_view = {"seat": 0, "to_act": [0], "counter": 20, "crash_limit": 21, "track": [], "auction": None,
               "players": [{"seat": 0, "money": 9, "position": 0}, {"seat": 1, "money": 4, "position": 0}]}
    play = Choice.model_validate({"type": "play", "body": {}, "free": {"cards": {
        "kind": "counts", "max": {"shipping": 2, "telecom": 1}, "min_total": 1, "max_total": 3}}}).wire()
    crash = confirm(page, "moderne-zeiten", mz_view, [play], "play", [("input[data-key=shipping]", "2")])
    assert crash["asked"] and "crash counter to 22, above 21: the market crashes" in crash["asked"]
    assert crash["before"] == crash["afterCancel"] == 0  # nothing sent before it is confirmed, nor on Cancel
    assert crash["sent"] == [["play", {"cards": {"shipping": 2}}]]
    safe = confirm(page, "moderne-zeiten", mz_view, [play], "play", [("input[data-key=telecom]", "1")])
    assert safe["asked"] is None and safe["sent"] == [["play", {"cards": {"telecom": 1}}]]  # no crash: no question
    to_finish = {"type": "move", "body": {"to": "finish"}, "free": {}}
    finish = confirm(page, "moderne-zeiten", mz_view, [to_finish], "move", [])
    assert finish["asked"] == "Moving to Finish ends the game now and scores it. " and len(finish["sent"]) == 1
    bid = {"type": "bid", "body": {}, "free": {"amount": {"kind": "int", "min": 3, "max": 9}}}
    everything = confirm(page, "moderne-zeiten", {**mz_view, "auction": {"cards": {"aviation": 2}}}, [bid], "bid",
                         [("input[name=amount]", "9")])
    assert everything["asked"] == "This bid is all your money ($9). " and everything["sent"] == [["bid", {"amount": 9}]]
    less = confirm(page, "moderne-zeiten", mz_view, [bid], "bid", [("input[name=amount]", "5")])
    assert less["asked"] is None and less["sent"] == [["bid", {"amount": 5}]]

    mw_view = {"seat": 0, "to_act": [0], "phase": "investment", "tableau": [], "auction": None,
               "players": [{"seat": 0, "tokens": {"money": 6}, "hand": ["Culture", "Media"], "in_play": []}]}
    invest = {"type": "invest", "body": {}, "free": {"cards": {"kind": "multiset", "max": {"Culture": 1, "Media": 1},
                                                               "min_total": 1, "max_total": 2}}}
    all_in = confirm(page, "modern-world", mw_view, [invest], "invest",
                     [("input[data-key=Culture]", "1"), ("input[data-key=Media]", "1")])
    assert all_in["asked"] == "This invests every card in your hand. "
    assert all_in["sent"] == [["invest", {"cards": ["Culture", "Media"]}]]

    zeppelin = {"seat": 0, "to_act": [0], "awaiting": {"seat": 0}, "dice": ["blue"], "sequence": {"seat": 0},
                "players": [{"seat": 0, "gold": 3, "current": "captain", "front": []}]}
    throw = {"type": "throw", "body": {"card": "steel"}, "free": {}}
    broke = confirm(page, "mad-zeppelin", zeppelin, [throw], "throw", [])
    assert broke["asked"] == "This throw takes all your Gold (3). " and broke["sent"] == [["throw", {"card": "steel"}]]
    rich = confirm(page, "mad-zeppelin", {**zeppelin, "players": [{**zeppelin["players"][0], "gold": 8}]}, [throw],
                   "throw", [])
    assert rich["asked"] is None and len(rich["sent"]) == 1


def test_a_trade_is_one_control_with_its_sides(page: Any) -> None:
    """Modern World's proposals (one legal choice per combination of sides) are one row: the sides left empty are
    left out of the command, and the command is the choice with exactly the sides given."""
    found = next((v, legal) for _, _, v, legal in samples("modern-world", 2, seed=7)
                 if sum(c["type"] == "propose_trade" for c in legal) > 1)
    view, legal = found
    trade = """async ([view, legal]) => {
      const { controls } = await import('/web/controls.js');
      const { boardFor } = await import('/web/boards/index.js');
      const kind = await boardFor('modern-world');
      const sent = [];
      const send = async (t, body) => { sent.push([t, body]); return {}; };
      const box = controls(legal, send, (c) => kind.describe(c, view, legal));
      document.querySelector('main').replaceChildren(box);
      const rows = box.querySelectorAll(".choice[data-type='propose_trade']");
      const row = rows[0];
      row.querySelector('button.send').click();
      const empty = row.querySelector('.why').textContent;
      row.querySelector("select[name=to]").selectedIndex = 1;
      row.querySelector("[data-field=give_tokens] input[data-key=victory]").value = '1';
      row.querySelector("[data-field=get_tokens] input[data-key=money]").value = '2';
      row.querySelector('button.send').click();
      return { rows: rows.length, empty, sent };
    }"""
    got = page.evaluate(trade, [view, legal])
    assert got["rows"] == 1 and got["empty"].startswith("First")
    [(kind, body)] = got["sent"]
    assert kind == "propose_trade" and body == {"to": 1, "give_tokens": {"victory": 1}, "get_tokens": {"money": 2}}
    assert any(set(c["free"]) == set(body) for c in legal if c["type"] == "propose_trade")

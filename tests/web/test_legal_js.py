"""The web client's check of a command against ``legal`` (``services/web/static/legal.js``, run in Node.js) says
what ``schemas/legal.py``'s ``covers`` says and what the game's ``decide`` does, in random states of every game:
for each choice's commands, the same with one value of the wrong type (bool, float, str, at any depth), and
each game's broad set of conformance candidates (the ``candidates`` of its registration).

A JavaScript number has no int/float distinction: the JSON the client sends is what is compared (Python's
``2.0`` reaches it as ``2``, which it sends as ``2``, a whole number the service takes)."""

from __future__ import annotations

import json
import random
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from schemas.legal import Choice, covered
from services.games import get_game
from services.games.base import Command, Event, Game
from tests.conformance.test_games import _accepts, candidates_for, mutations, playout, seat_counts
from tests.registered import SUITE_GAMES

SCRIPT = Path(__file__).with_name("legal_js.mjs")
PER_SEAT = 40  # cases per acting seat and state
STATES = 60  # per match: every third step's, up to this many


def cases_of(game: Game[Any], seed: int) -> tuple[list[Any], list[tuple[Any, int, int, str, dict[str, Any]]]]:
    """Random states of one match: their legal lists (wire form) and cases (state, seat, legal index, type, body)."""
    legals: list[Any] = []
    cases: list[tuple[Any, int, int, str, dict[str, Any]]] = []
    candidates = candidates_for(game)

    steps = [0]

    def visit(state: Any, log: list[Event]) -> None:
        steps[0] += 1
        if steps[0] % 3 or len(legals) >= STATES:
            return
        rng = random.Random(len(log))
        for seat in sorted(game.to_act(state)):
            choices: list[Choice] = game.legal(state, seat)
            bodies: list[tuple[str, dict[str, Any]]] = []
            for choice in rng.sample(choices, min(len(choices), 8)):
                body = rng.choice(choice.spread(6))
                bodies.append((choice.type, body))
                bodies += [(choice.type, {**body, f: changed}) for f in body for changed in mutations(body[f])]
            bodies += candidates(state, seat)
            legals.append([c.wire() for c in choices])
            for kind, body in rng.sample(bodies, min(len(bodies), PER_SEAT)):
                cases.append((state, seat, len(legals) - 1, kind, body))

    playout(game, seat_counts(game)[seed % len(seat_counts(game))], seed, visit)
    return legals, cases


@pytest.fixture(scope="module")
def node() -> str:
    found = shutil.which("node")
    if found is None:
        pytest.skip("node is not installed: the JavaScript client's checks need Node.js >= 20")
    return found


@pytest.mark.parametrize("name", SUITE_GAMES)
def test_legal_js_covers_agrees_with_python_and_decide(node: str, name: str) -> None:
    game = get_game(name)
    counted = {"cases": 0, "covered": 0, "float_to_whole": 0}
    for seed in (300, 301):
        legals, cases = cases_of(game, seed)
        payload = json.dumps({"legals": legals, "cases": [[i, kind, body] for _, _, i, kind, body in cases]})
        done = subprocess.run([node, str(SCRIPT)], input=payload, capture_output=True, text=True, timeout=120,
                              check=False)
        assert done.returncode == 0, done.stderr[-4000:]
        answers = json.loads(done.stdout)
        assert len(answers) == len(cases)
        for (state, seat, i, kind, body), (js_covered, sent) in zip(cases, answers, strict=True):
            as_sent = json.loads(sent)  # the body as the client sends it (a float 2.0 becomes 2 in JavaScript)
            choices = [Choice.model_validate(c) for c in legals[i]]
            py_covered = covered(choices, kind, as_sent)
            accepted = _accepts(game, state, Command(seat, kind, as_sent), 0)
            assert js_covered == py_covered == accepted, (name, seat, kind, body, js_covered, py_covered, accepted)
            counted["cases"] += 1
            counted["covered"] += js_covered
            counted["float_to_whole"] += json.dumps(as_sent) != json.dumps(body)
    assert counted["cases"] > 500 and 50 < counted["covered"] < counted["cases"] - 50, counted
    assert counted["float_to_whole"] > 0, counted

"""Hidden information over every path of the gateway, for each built-in game.

A 3-seat match is played with random legal commands (each chosen from the acting seat's ``legal`` in
``views/me``). At several points everything seat A can get is collected — over HTTP its view, the public
view, its commands' results, the log, the match summary, the match list and refusals; over a WebSocket
subscribed with ``events: true`` every message — and compared with the truth an admin reads from Redis
(``hidden_truth.Truth``: the whole log, states folded with the game's ``evolve``):

- A's events are exactly ``event.for_seat(A)``; A's views are exactly ``game.view(state, A)`` at their
  version and its ``legal`` exactly the game's; public views are ``game.view(state, None)``;
- no text that only appears in secrets kept from A (and nowhere A may look) turns up in anything A got;
- without a token: only public data, and no log while the match runs;
- a finished match's log: the whole log for everyone with ``reveal_log`` (the default), otherwise each
  seat's own perspective (and the public one without a token).
"""

from __future__ import annotations

import random
import threading
import uuid
from dataclasses import dataclass, field
from typing import Any

import httpx
import pytest
import redis

from schemas.codec import unpack_result
from schemas.envelopes import EventEnvelope
from schemas.legal import Choice
from services.games.registry import registration_of
from tests import registered
from tests.gateway.attack_kit import Match, Socket, assert_problem, auth, client, create_match, wait_until
from tests.gateway.hidden_truth import Truth, leaves, normal
from tests.gateway.stack import GatewayStack, gateway_stack  # noqa: F401  (the fixture)

pytestmark = [pytest.mark.gateway, pytest.mark.redis]
A = 1  # the seat whose point of view is checked
SUMMARY_FIELDS = {"match_id", "game", "seats", "seats_free", "status", "options", "version", "reveal_log", "bots",
                  "abandoned", "players", "reserved", "rematch", "clock"}  # (names of registered players are public)
MAX_STEPS = 700




class Listening:
    """A WebSocket subscription read by a thread (so that the server never waits for us)."""

    def __init__(self, ws_url: str, match_id: str, token: str | None, texts: bool = False) -> None:
        self.socket = Socket(ws_url)
        answer = self.socket.subscribe(match_id, token, events=True, texts=texts)
        assert answer["kind"] == "subscribed", answer
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.is_set() and self.socket.closed is None:
            self.socket.recv(0.2)

    def stop(self) -> list[dict[str, Any]]:
        self._stop.set()
        self._thread.join(10)
        self.socket.drain(0.3)
        self.socket.close()
        return self.socket.seen


@dataclass
class Seen:
    """Everything seat A (or a client without a token) got over HTTP, as parsed bodies."""

    views: list[dict[str, Any]] = field(default_factory=list)
    public: list[dict[str, Any]] = field(default_factory=list)
    logs: list[dict[str, Any]] = field(default_factory=list)
    results: list[dict[str, Any]] = field(default_factory=list)
    other: list[Any] = field(default_factory=list)  # summaries, lists, problems

    def everything(self) -> list[Any]:
        return [*self.views, *self.public, *self.logs, *self.results, *self.other]


class Play:
    def __init__(self, http: httpx.Client, match: Match, truth: Truth, rnd: random.Random) -> None:
        self.http = http
        self.match = match
        self.truth = truth
        self.rnd = rnd
        self.version = 0
        self.steps = 0
        self.finished = False
        self.a_keys: list[str] = []

    def public(self) -> dict[str, Any]:
        answer = self.http.get(f"/matches/{self.match.id}/views/public",
                               params={"after_version": max(self.version - 1, 0), "wait_s": 10})
        assert answer.status_code == 200, answer.text
        return answer.json()  # type: ignore[no-any-return]

    def step(self) -> None:
        """One random legal command of a seat that is to act."""
        public = self.public()
        if public["view"].get("finished"):
            self.finished = True
            return
        seat = self.rnd.choice(public["view"]["to_act"])
        mine = self.http.get(f"/matches/{self.match.id}/views/me", headers=auth(self.match.tokens[seat]),
                             params={"after_version": public["version"] - 1, "wait_s": 10}).json()
        if not mine["legal"]:
            return
        choice = Choice.model_validate(self.rnd.choice(mine["legal"]))
        command = {"type": choice.type, "body": choice.sample(self.rnd)}
        k = f"s{self.steps}-{uuid.uuid4().hex[:6]}"
        answer = self.http.post(f"/matches/{self.match.id}/commands", headers=auth(self.match.tokens[seat]),
                                json={"idempotency_key": k, "expected_version": mine["version"], **command})
        assert answer.status_code == 200, answer.text
        result = answer.json()
        if seat == A:
            self.a_keys.append(k)
        assert result["status"] == "accepted" or result["code"] == "conflict", (command, result)
        self.version = max(self.version, result["version"])
        self.steps += 1

    def until(self, steps: int) -> None:
        guard = 0
        while self.steps < steps and not self.finished:
            self.step()
            guard += 1
            assert guard < 3 * MAX_STEPS, "no progress"


def collect_as_a(http: httpx.Client, match: Match, play: Play, other_match: Match) -> Seen:
    """Every HTTP answer seat A gets, on every route it may use (and some it may not)."""
    token = match.tokens[A]
    m = f"/matches/{match.id}"
    seen = Seen()
    seen.views.append(http.get(f"{m}/views/me", headers=auth(token)).json())
    seen.views.append(http.get(f"{m}/views/seat/{A}", headers=auth(token)).json())
    seen.public.append(http.get(f"{m}/views/public", headers=auth(token)).json())
    log = http.get(f"{m}/log", headers=auth(token))
    assert log.status_code == 200, log.text
    seen.logs.append(log.json())
    later = http.get(f"{m}/log", headers=auth(token), params={"after_version": max(play.version - 3, 0)})
    seen.logs.append(later.json())
    for k in play.a_keys[-3:]:
        seen.results.append(http.get(f"{m}/commands/{k}", headers=auth(token)).json())
    # a command A may not send now: its result too
    bad = http.post(f"{m}/commands", headers=auth(token),
                    json={"idempotency_key": f"bad-{uuid.uuid4().hex[:6]}", "type": "peek", "body": {"all": True}})
    assert bad.status_code == 200 and bad.json()["status"] == "rejected", bad.text
    seen.results.append(bad.json())
    seen.other.append(http.get(m, headers=auth(token)).json())
    seen.other.append(http.get("/matches", params={"game": match.game}, headers=auth(token)).json())
    refusals = [
        http.get(f"/matches/{other_match.id}/views/me", headers=auth(token)),
        http.get(f"{m}/views/seat/{(A + 1) % 3}", headers=auth(token)),
        http.get(f"{m}/views/seat/{(A + 2) % 3}", headers=auth(token), params={"after_version": 0, "wait_s": 1}),
        http.get(f"/matches/{other_match.id}/log", headers=auth(token)),
        http.get(f"{m}/commands/never-sent", headers=auth(token)),
        http.post(f"{m}/commands", headers={**auth(token), "Content-Type": "application/json"}, content=b"{nope"),
        http.post(f"{m}/seats", json={}, headers=auth(token)),
        http.post(f"{m}/seats", json={"seat": (A + 1) % 3}, headers=auth(token)),
        http.get(f"{m}/views/me", headers=auth(token), params={"after_version": "x"}),
        http.get(f"{m}/views/me", headers=auth(token), params={"after_version": 10**9, "wait_s": 0}),
    ]
    for answer in refusals:
        if answer.status_code == 204:
            assert answer.content == b""
            continue
        seen.other.append(assert_problem(answer, 400, 401, 403, 404, 409))
    return seen


def check_a(seen: Seen, truth: Truth, match: Match) -> None:
    truth.refresh()
    for record in seen.views:
        assert record["key"] == str(A)
        assert record["view"] == truth.view(record["version"], A), record["version"]
        assert record["legal"] == truth.legal(record["version"], A), record["version"]
    for record in seen.public:
        assert record["key"] == "public" and record["legal"] == []
        assert record["view"] == truth.view(record["version"], None)
    mine = truth.events_for(A)
    finished, reveal = seen.other[0]["status"] == "finished", seen.other[0]["reveal_log"]
    for log in seen.logs:
        assert log["perspective"] == ("full" if finished and reveal else f"seat:{A}")
        events = log["events"]
        start = events[0]["version"] if events else 1
        assert events == (truth.full() if log["perspective"] == "full" else mine)[start - 1:start - 1 + len(events)]
    for result in seen.results:
        assert result["seat"] == A, result
        raw = truth.r.hget(truth.keys.seen(match.id), f"{A}.{result['command_id']}")
        if raw is None:  # only rejections may go unkept (past AIRSHIP_REJECTED_KEPT, or to a finished match)
            assert result["status"] == "rejected", result
        else:
            stored = unpack_result(raw, match.id, f"{A}.{result['command_id']}")
            assert result == normal({**stored.model_dump(mode="json"), "command_id": result["command_id"]})
        assert len(result["reason"] or "") <= 200
    summary, listing = seen.other[0], seen.other[1]
    assert set(summary) == SUMMARY_FIELDS and summary["seats_free"] == [], summary
    assert all(set(s) == SUMMARY_FIELDS for s in listing["matches"]), listing
    listed = [s for s in listing["matches"] if s["match_id"] == match.id]
    assert len(listed) == 1 and {k: listed[0][k] for k in ("game", "seats", "options", "reveal_log")} == \
        {k: summary[k] for k in ("game", "seats", "options", "reveal_log")}
    if not (finished and reveal):  # else the whole log is public, secrets included
        assert_no_secret_words(seen.everything(), truth, A)


def assert_no_secret_words(got: list[Any], truth: Truth, seat: int | None) -> None:
    words = truth.secret_words(seat)
    if not words:
        return
    found = leaves(normal(got)) & words
    assert not found, f"seat {seat} got text only found in secrets kept from it: {sorted(found)[:10]}"


def check_socket(messages: list[dict[str, Any]], truth: Truth, seat: int | None, match: Match,
                 texts: bool = False) -> None:
    """Every message of a subscription (seat or spectator, with events) against the truth. With ``texts``, each
    event's sentence is the game's chat words for the event as the seat may see it, and so tells it no more."""
    adapter = registration_of(match.game).chat if texts else None
    truth.refresh()
    expected_events = truth.events_for(seat)
    kinds = [m["kind"] for m in messages]
    assert kinds[0] == "subscribed" and messages[0]["seat"] == seat
    assert "error" not in kinds, [m for m in messages if m["kind"] == "error"]
    event_versions: list[int] = []
    view_versions: list[int] = []
    for m in messages[1:]:
        if m["kind"] == "event":
            event = m["event"]
            event_versions.append(event["version"])
            assert event == expected_events[event["version"] - 1], event["version"]
            if adapter is None:
                assert "text" not in m, m
            else:
                said = adapter.render_event(EventEnvelope.model_validate(expected_events[event["version"] - 1]))
                assert m["text"] == (said or ""), (event, m["text"])
        elif m["kind"] == "view":
            assert m["key"] == ("public" if seat is None else str(seat))
            view_versions.append(m["version"])
            assert m["view"] == truth.view(m["version"], seat), m["version"]
            assert m["legal"] == ([] if seat is None else truth.legal(m["version"], seat)), m["version"]
            assert event_versions and event_versions[-1] == m["version"], "a view before its events"
        elif m["kind"] == "result":
            assert seat is not None and m["result"]["seat"] == seat, m
        else:
            raise AssertionError(f"unexpected message {m}")
    assert event_versions == list(range(1, len(event_versions) + 1)), "events with a gap or out of order"
    assert view_versions == sorted(set(view_versions)), "a view twice or out of order"
    assert event_versions and event_versions[-1] == truth.version, (event_versions[-1:], truth.version)
    assert_no_secret_words(messages, truth, seat)


def check_public_only(http: httpx.Client, match: Match, truth: Truth, running: bool) -> None:
    m = f"/matches/{match.id}"
    public = http.get(f"{m}/views/public").json()
    truth.refresh()
    assert public["view"] == truth.view(public["version"], None)
    assert_problem(http.get(f"{m}/views/me"), 401)
    for seat in range(3):
        assert_problem(http.get(f"{m}/views/seat/{seat}"), 401)
    if running:
        assert_problem(http.get(f"{m}/log"), 401)
    assert_no_secret_words([public, http.get(m).json()], truth, None)


def check_finished_log(http: httpx.Client, match: Match, truth: Truth, reveal: bool) -> None:
    truth.refresh()
    m = f"/matches/{match.id}/log"
    spectator = http.get(m)
    assert spectator.status_code == 200, spectator.text
    if reveal:
        assert spectator.json()["perspective"] == "full" and spectator.json()["events"] == truth.full()
        for token in match.tokens:
            answer = http.get(m, headers=auth(token)).json()
            assert answer["perspective"] == "full" and answer["events"] == truth.full()
        return
    assert spectator.json()["perspective"] == "public"
    assert spectator.json()["events"] == truth.events_for(None)
    assert truth.hidden_from(None), "the match had no secrets: nothing was tested"
    for seat, token in enumerate(match.tokens):
        answer = http.get(m, headers=auth(token)).json()
        assert answer["perspective"] == f"seat:{seat}"
        assert answer["events"] == truth.events_for(seat)
        assert answer["events"] != truth.full()
        assert_no_secret_words([answer], truth, seat)


# every built-in game; the games take turns with and without a public finished log, so both paths are covered
GAMES = [pytest.param(game, i % 2 == 0, id=f"{game}-{'revealed' if i % 2 == 0 else 'unrevealed'}")
         for i, game in enumerate(registered.GAMES)]


@pytest.mark.parametrize(("game", "reveal"), GAMES)
def test_hidden_information_over_every_path(stack: GatewayStack, r: redis.Redis, game: str, reveal: bool) -> None:
    steps, seats = registered.parameters(game).stack_steps, registered.stack_seats(game)  # steps None: to the end
    with client(stack.url, polite=True) as http:  # many requests from one address: 429s are waited out
        other = create_match(http, "nim", 2)
        match = create_match(http, game, seats, reveal_log=reveal)
        truth = Truth(r, stack.settings.keys, match.id, game, seats).refresh()
        assert truth.hidden_from(A), f"{game} dealt nothing secret from seat {A}: nothing would be tested"
        seat_ws = Listening(stack.ws_url, match.id, match.tokens[A], texts=True)
        spectator_ws = Listening(stack.ws_url, match.id, None)
        try:
            play = Play(http, match, truth, random.Random(f"{game}-{reveal}"))
            checkpoints = [0, 5, 15, 30] + ([steps] if steps else [60, 120, 200, 300, 400, 500, MAX_STEPS])
            for point in checkpoints:
                play.until(point)
                # (the command that ended the match may be the checkpoint's last: its view has not been read yet,
                # but the match's status is written with its events, and nothing else moves the match now)
                if play.finished or http.get(f"/matches/{match.id}").json()["status"] == "finished":
                    break
                check_a(collect_as_a(http, match, play, other), truth, match)
                check_public_only(http, match, truth, running=True)
            if steps is None:
                play.until(MAX_STEPS)
                assert play.finished, f"{game} did not finish within {MAX_STEPS} commands"
                wait_until(lambda: http.get(f"/matches/{match.id}").json()["status"] == "finished")
            truth.refresh()
            for listening in (seat_ws, spectator_ws):
                wait_until(lambda listening=listening: any(  # type: ignore[misc]
                    m["kind"] == "view" and m["version"] == truth.version for m in listening.socket.seen))
        finally:
            a_messages = seat_ws.stop()
            public_messages = spectator_ws.stop()
        check_socket(a_messages, truth, A, match, texts=True)
        check_socket(public_messages, truth, None, match)
        assert any(m["kind"] == "result" for m in a_messages), "A's own results were not pushed"
        if steps is None:
            check_a(collect_as_a(http, match, play, other), truth, match)
            check_finished_log(http, match, truth, reveal)
        else:
            check_public_only(http, match, truth, running=True)

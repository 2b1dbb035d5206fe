"""The player commands as subprocesses through the gateway: ``lobby``, ``send``, ``watch`` and
``tournament --url``, including their one-line errors for an unknown match, a wrong token and a dead gateway.
(``chat`` and ``irc --url`` are played through the gateway in tests/chat/test_chat_cli.py.)"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from services.client import GatewayClient
from tests.client.helpers import dead_url
from tests.gateway.stack import GatewayStack
from tests.pipeline.redis_fixtures import ROOT

pytestmark = [pytest.mark.redis, pytest.mark.gateway]

WRONG_TOKEN = "0." + "ab" * 24


def airship(*args: str, url: str | None = None, timeout_s: float = 60, stdin: str | None = None,
            ) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "AIRSHIP_GAME_MODULES": "tests.pipeline.nim"}
    env.pop("AIRSHIP_URL", None)
    if url is not None:
        env["AIRSHIP_URL"] = url
    return subprocess.run([sys.executable, "-m", "services.cli", "--log-level", "error", *args], env=env, cwd=ROOT,
                          capture_output=True, text=True, timeout=timeout_s, input=stdin)


def one_line_error(proc: subprocess.CompletedProcess[str], *words: str) -> None:
    assert proc.returncode != 0, proc
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("airship: "), proc.stderr
    assert "Traceback" not in proc.stderr
    for word in words:
        assert word in lines[0], lines[0]


def test_lobby_send_and_watch(gateway_stack: GatewayStack) -> None:
    url = gateway_stack.url
    created = airship("lobby", "create", "--url", url, "--game", "nim", "--seats", "2", "-o", "max_take=3")
    assert created.returncode == 0, created.stderr
    match = json.loads(created.stdout)
    assert match["status"] == "open" and match["game"] == "nim"
    joined = [json.loads(airship("lobby", "join", match["match_id"], url=url).stdout) for _ in range(2)]  # env URL
    assert [j["seat"] for j in joined] == [0, 1] and all(j["token"].startswith(f"{j['seat']}.") for j in joined)
    listed = airship("lobby", "list", "--url", url, "--game", "nim")
    assert match["match_id"] in {json.loads(line)["match_id"] for line in listed.stdout.splitlines()}

    with GatewayClient(url) as client:  # the gateway may take a moment to see the match running
        client.wait_view(match["match_id"], "public", client.match(match["match_id"]).version, 10)
    sent = airship("send", match["match_id"], "--url", url, "--token", joined[0]["token"], "--type", "take",
                   "--body", '{"n": 1}', "--key", "cli-1")
    assert sent.returncode == 0, sent.stderr
    result = json.loads(sent.stdout)
    assert result["status"] == "accepted" and result["command_id"] == "cli-1"
    again = airship("send", match["match_id"], "--url", url, "--token", joined[0]["token"], "--type", "take",
                    "--body", '{"n": 1}', "--key", "cli-1")
    assert json.loads(again.stdout) == result, "the same key: the same result"
    refused = airship("send", match["match_id"], "--url", url, "--token", joined[0]["token"], "--type", "take",
                      "--body", '{"n": 1}')
    assert refused.returncode == 1 and json.loads(refused.stdout)["code"] == "not_your_turn"

    with GatewayClient(url) as client:  # play it out, then watch it from the start
        for seat, token in enumerate(j["token"] for j in joined):
            client.tokens.remember(match["match_id"], seat, token)
        while not (public := client.wait_view(match["match_id"], "public", 1, 10)).view["finished"]:
            seat = public.view["to_act"][0]
            record = client.wait_view(match["match_id"], seat, public.version, 10)
            client.call(match["match_id"], seat, None, "take", record.legal[-1]["body"], 10)
            client.wait_view(match["match_id"], "public", public.version + 1, 10)
    watched = airship("watch", match["match_id"], "--url", url, "--idle-timeout-s", "10")
    assert watched.returncode == 0, watched.stderr
    records = [json.loads(line) for line in watched.stdout.splitlines()]
    assert records and records[-1]["view"]["finished"] and records[-1]["version"] == public.version


def test_one_line_errors(gateway_stack: GatewayStack) -> None:
    url = gateway_stack.url
    one_line_error(airship("send", "no-such-match", "--url", url, "--token", WRONG_TOKEN, "--type", "take"))
    one_line_error(airship("watch", "no-such-match", "--url", url, "--idle-timeout-s", "5"), "no such match")
    one_line_error(airship("lobby", "join", "no-such-match", "--url", url))
    one_line_error(airship("lobby", "create", "--url", url, "--game", "no-such-game", "--seats", "2"))
    match = json.loads(airship("lobby", "create", "--url", url, "--game", "nim", "--seats", "2").stdout)
    one_line_error(airship("send", match["match_id"], "--url", url, "--token", WRONG_TOKEN, "--type", "take"),
                   "token")
    dead = dead_url()
    for args in (["send", "m", "--token", WRONG_TOKEN, "--type", "take"], ["watch", "m"], ["lobby", "list"],
                 ["lobby", "create", "--game", "nim", "--seats", "2"]):  # chat: tests/chat/test_chat_cli.py
        one_line_error(airship(*args, "--url", dead), "cannot be reached")
    one_line_error(airship("watch", "m"), "--url")  # no URL at all


def test_tournament_through_the_gateway(gateway_stack: GatewayStack) -> None:
    proc = airship("tournament", "--url", gateway_stack.url, "--game", "moderne-zeiten", "--bots", "random",
                   "--players", "3", "--matches", "2", "--json", "--quiet", timeout_s=240)
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout)
    assert result["matches"] == 2 and sum(t["played"] for t in result["seats_table"]) == 6
    one_line_error(airship("tournament", "--url", dead_url(), "--game", "moderne-zeiten", "--bots", "random",
                           "--players", "3", "--matches", "1", "--quiet"), "cannot be reached")

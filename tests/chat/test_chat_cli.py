"""The chat commands as a user runs them: ``airship irc`` (its own in-process service, or through a gateway)
with IRC players on a real server, and ``airship chat`` through a gateway with a worker and a projector in
processes of their own."""

from __future__ import annotations

import os
import queue
import subprocess
import sys
import threading
from collections.abc import Iterator

import pytest

from services.bots.base import RandomBot
from services.bots.sdk import SeatRunner
from services.client import GatewayClient
from tests.chat.ircd import IrcPlayer, miniircd
from tests.chat.test_irc_bridge import play_out
from tests.gateway.stack import GatewayStack, gateway_stack
from tests.pipeline.redis_fixtures import ROOT, redis_url, stop

__all__ = ["gateway_stack", "redis_url"]  # fixtures of the gateway tests


@pytest.fixture
def irc_port() -> Iterator[int]:
    with miniircd() as port:
        yield port


@pytest.mark.parametrize("through", ["in-process", pytest.param("gateway", marks=[pytest.mark.redis,
                                                                                   pytest.mark.gateway])])
def test_airship_irc_serves_a_channel_until_stopped(irc_port: int, through: str,
                                                    request: pytest.FixtureRequest) -> None:
    env = {**os.environ, "AIRSHIP_GAME_MODULES": "tests.pipeline.nim"}
    env.pop("AIRSHIP_URL", None)
    url = ["--url", request.getfixturevalue("gateway_stack").url] if through == "gateway" else []
    bridge = subprocess.Popen([sys.executable, "-m", "services.cli", "--log-level", "error", "irc", "--server",
                               f"127.0.0.1:{irc_port}", "--channel", "#cli", "--nick", "airship",
                               "--line-interval-s", "0", "--poll-s", "0.05", *url], env=env, cwd=ROOT)
    players = [IrcPlayer(irc_port, nick) for nick in ("dora", "emil")]
    try:
        for player in players:
            player.join("#cli")
        for _ in range(100):  # until the bot has joined and answers
            players[0].say("#cli", "!games")
            try:
                players[0].wait_for("Games: .*nim", timeout_s=0.2, sender="airship")
                break
            except AssertionError:
                continue
        players[0].say("#cli", "!new nim 2 max_take=2")
        players[0].wait_for("New match", sender="airship")
        players[0].say("#cli", "!join")  # the first free seat: 0
        players[0].wait_for("dora takes seat 0", sender="airship")
        players[1].say("#cli", "!join")
        players[0].wait_for("All seats taken", sender="airship")
        players[1].say("airship", "hello")  # not a seat's command: helpful, private
        play_out(players, "#cli")
        assert any("take n=2" in t for p in players for t in p.texts("airship", private=True))
    finally:
        for player in players:
            player.close()
        assert stop(bridge) in (0, -15)


@pytest.mark.redis
@pytest.mark.gateway
def test_airship_chat_plays_a_seat_through_the_gateway(gateway_stack: GatewayStack) -> None:
    with GatewayClient(gateway_stack.url) as client:
        match = client.create_match("nim", 2)
        tokens = [client.join(match.match_id, seat)[1] for seat in range(2)]
        env = {**os.environ, "AIRSHIP_URL": gateway_stack.url}  # the URL from the environment
        chat = subprocess.Popen([sys.executable, "-m", "services.cli", "--log-level", "error", "chat", "--match",
                                 match.match_id, "--token", tokens[0]], env=env, cwd=ROOT, stdin=subprocess.PIPE,
                                stdout=subprocess.PIPE, text=True, bufsize=1)
        try:
            bot = SeatRunner(client, match.match_id, 1, tokens[1], RandomBot(1), timeout_s=20)
            threading.Thread(target=bot.run, daemon=True).start()
            lines: queue.Queue[str] = queue.Queue()
            assert chat.stdout is not None and chat.stdin is not None
            out = chat.stdout
            threading.Thread(target=lambda: [lines.put(line) for line in out], daemon=True).start()
            seen = []
            while True:
                line = lines.get(timeout=20)
                seen.append(line)
                if line.startswith("Your move."):
                    chat.stdin.write("take 1\n")
                if line.startswith("The match is over."):
                    break
            chat.stdin.close()
            assert chat.wait(10) == 0
        finally:
            if chat.poll() is None:
                chat.kill()
        text = "".join(seen)
        assert text.startswith(f"Match {match.match_id} (nim), you are seat 0.")
        assert "OK: take n=1" in text and "seat 1" in text
        record = client.view(match.match_id, "public")
        assert record is not None and record.view["finished"]

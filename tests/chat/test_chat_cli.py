"""The chat commands as a user runs them: ``airship irc`` (its own in-process service, or through a gateway)
with IRC players on a real server, and ``airship chat`` through a gateway with a worker and a projector in
processes of their own."""

from __future__ import annotations

import os
import queue
import stat
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

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
def test_airship_irc_serves_a_channel_until_stopped(irc_port: int, through: str, tmp_path: Path,
                                                    request: pytest.FixtureRequest) -> None:
    env = {**os.environ, "AIRSHIP_GAME_MODULES": "tests.pipeline.nim", "XDG_STATE_HOME": str(tmp_path)}
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
        players[0].wait_for("All seats taken", sender="airship", keep_others=True)  # a prompt may come first
        players[1].say("airship", "hello")  # not a seat's command: helpful, private
        play_out(players, "#cli")
        assert any("take n=2" in t for p in players for t in p.texts("airship", private=True))
        store = tmp_path / "airship" / "irc-tables.json"  # the default store, with a gateway only
        assert store.exists() == (through == "gateway")
        if through == "gateway":
            assert stat.S_IMODE(store.stat().st_mode) == 0o600
    finally:
        for player in players:
            player.close()
        assert stop(bridge) in (0, -15)


@pytest.mark.redis
@pytest.mark.gateway
def test_airship_chat_plays_a_seat_through_the_gateway(gateway_stack: GatewayStack, tmp_path: Path) -> None:
    with GatewayClient(gateway_stack.url) as client:
        match = client.create_match("nim", 2)
        tokens = [client.join(match.match_id, seat)[1] for seat in range(2)]
        env = {**os.environ, "AIRSHIP_URL": gateway_stack.url}  # the URL from the environment
        env.pop("AIRSHIP_TOKEN", None)
        command = [sys.executable, "-m", "services.cli", "--log-level", "error", "chat", "--match", match.match_id]
        refused = subprocess.run([*command, "--token", tokens[0]], env=env, cwd=ROOT, capture_output=True, text=True,
                                 stdin=subprocess.DEVNULL, timeout=60)
        assert refused.returncode == 2 and "--token" in refused.stderr  # never on the command line
        missing = subprocess.run(command, env=env, cwd=ROOT, capture_output=True, text=True, timeout=60,
                                 stdin=subprocess.DEVNULL)
        assert missing.returncode == 2 and "AIRSHIP_TOKEN" in missing.stderr
        dead = subprocess.run([*command, "--url", "http://127.0.0.1:9"], env={**env, "AIRSHIP_TOKEN": tokens[0]},
                              cwd=ROOT, capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
        assert dead.returncode == 2 and "cannot be reached" in dead.stderr  # the token from the environment
        token_file = tmp_path / "seat0.token"
        token_file.write_text(tokens[0] + "\n")
        token_file.chmod(0o600)
        chat = subprocess.Popen([*command, "--token-file", str(token_file)], env=env, cwd=ROOT, stdin=subprocess.PIPE,
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
        assert text.count("pile: ") == 1, "the board once at the start, then only what changes"
        record = client.view(match.match_id, "public")
        assert record is not None and record.view["finished"]

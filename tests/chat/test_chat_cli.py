"""The chat commands as a user runs them: ``airship irc`` (its own in-process service) with IRC players on a
real server, and ``airship chat`` on Redis against a worker and a projector in processes of their own."""

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
from services.pipeline.client import Client
from services.pipeline.redis_backend import RedisBackend
from services.settings import Settings
from tests.chat.ircd import IrcPlayer, miniircd
from tests.chat.test_irc_bridge import play_out
from tests.pipeline.redis_fixtures import ROOT, redis_backend, redis_settings, redis_url, spawn, stop

__all__ = ["redis_backend", "redis_settings", "redis_url"]  # fixtures of the Redis test


@pytest.fixture
def irc_port() -> Iterator[int]:
    with miniircd() as port:
        yield port


def test_airship_irc_serves_a_channel_until_stopped(irc_port: int) -> None:
    env = {**os.environ, "AIRSHIP_GAME_MODULES": "tests.pipeline.nim"}
    bridge = subprocess.Popen([sys.executable, "-m", "services.cli", "--log-level", "error", "irc", "--server",
                               f"127.0.0.1:{irc_port}", "--channel", "#cli", "--nick", "airship",
                               "--line-interval-s", "0", "--poll-s", "0.05"], env=env, cwd=ROOT)
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
def test_airship_chat_plays_a_seat_on_redis(redis_settings: Settings, redis_backend: RedisBackend) -> None:
    services = [spawn(redis_settings, "worker"), spawn(redis_settings, "projector")]
    try:
        client = Client(redis_backend, poll_ms=50)
        meta = client.create_match("nim", 2, seed=5)
        creds = dict(client.join(meta.match_id, seat) for seat in range(2))
        env = {**os.environ, "AIRSHIP_KEY_PREFIX": redis_settings.key_prefix,
               "AIRSHIP_PARTITIONS": str(redis_settings.partitions)}
        chat = subprocess.Popen([sys.executable, "-m", "services.cli", "--log-level", "error", "chat", "--redis",
                                 redis_settings.redis_url, "--match", meta.match_id, "--seat", "0",
                                 "--credential", creds[0]], env=env, cwd=ROOT, stdin=subprocess.PIPE,
                                stdout=subprocess.PIPE, text=True, bufsize=1)
        bot = SeatRunner(client, meta.match_id, 1, creds[1], RandomBot(1), timeout_s=20)
        threading.Thread(target=bot.run, daemon=True).start()
        lines: queue.Queue[str] = queue.Queue()
        assert chat.stdout is not None and chat.stdin is not None
        threading.Thread(target=lambda: [lines.put(line) for line in chat.stdout], daemon=True).start()  # type: ignore[union-attr]
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
        text = "".join(seen)
        assert text.startswith(f"Match {meta.match_id} (nim), you are seat 0.")
        assert "OK: take n=1" in text and "seat 1" in text
        record = client.view(meta.match_id, "public")
        assert record is not None and record.view["finished"]
    finally:
        for service in services:
            stop(service)

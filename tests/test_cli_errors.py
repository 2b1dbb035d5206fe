"""Every way a user can get an ``airship`` command wrong, run as a subprocess: the error is one line on
stderr, ``airship: ...``, with a non-zero exit, never a traceback. None of these needs Redis or a gateway:
the dead ones are ``127.0.0.1:9`` (nothing listens), the silent one a socket that accepts and never answers.
Output piped into a reader that stops early (``airship replay log | head -1``) ends quietly."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DEAD_URL = "http://127.0.0.1:9"
DEAD_REDIS = "redis://127.0.0.1:9/0"
TOKEN = "0." + "ab" * 24


def env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if k not in ("AIRSHIP_URL", "AIRSHIP_REDIS_URL", "PYTHONUNBUFFERED")}


def airship(*args: str, timeout_s: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "services.cli", *args], env=env(), cwd=ROOT,
                          capture_output=True, text=True, timeout=timeout_s)


def assert_one_line(proc: subprocess.CompletedProcess[str], *words: str, prefix: str = "airship: ") -> str:
    assert "Traceback" not in proc.stderr + proc.stdout, proc.stderr
    assert proc.returncode != 0, proc
    lines = proc.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith(prefix), proc.stderr
    for word in words:
        assert word in lines[0], lines[0]
    return lines[0]


@pytest.fixture(scope="module")
def silent_gateway() -> Iterator[str]:
    """A gateway that takes connections and never answers."""
    server = socket.create_server(("127.0.0.1", 0))
    held: list[socket.socket] = []

    def accept() -> None:
        while True:
            try:
                held.append(server.accept()[0])
            except OSError:  # closed
                return

    threading.Thread(target=accept, daemon=True).start()
    yield f"http://127.0.0.1:{server.getsockname()[1]}"
    server.close()
    for conn in held:
        conn.close()


@pytest.fixture(scope="module")
def logs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A real match log (``play --save-log``), a corrupt one, a cut one and a directory."""
    d = tmp_path_factory.mktemp("logs")
    done = airship("play", "--seed", "7", "--quiet", "--save-log", str(d / "match.jsonl"))
    assert done.returncode == 0, done.stderr
    (d / "corrupt.jsonl").write_text("garbage{not json\n")
    (d / "cut.jsonl").write_bytes((d / "match.jsonl").read_bytes()[:300])
    (d / "a-file").write_text("x")
    return d


CASES: list[tuple[list[str], list[str]]] = [
    # (arguments, words the error line must contain)
    (["nosuchcmd"], ["invalid choice", "nosuchcmd"]),
    (["games", "extra"], ["unrecognized arguments"]),
    (["schemas"], ["schemas", "required: action"]),
    (["play", "--game", "nosuch"], ["unknown game 'nosuch'", "known games", "moderne-zeiten"]),
    (["play", "--players", "abc"], ["--players", "abc"]),
    (["play", "--players", "9", "--quiet"], ["3 to 5 players"]),
    (["play", "--players", "1", "--quiet"], ["3 to 5 players"]),
    (["play", "-o", "forced_move=maybe", "--quiet"], ["forced_move", "boolean"]),
    (["play", "-o", "nosuch=1", "--quiet"], ["unknown option 'nosuch'", "forced_move"]),
    (["play", "--game", "mad-zeppelin", "-o", "mode=fast", "--quiet"], ["mode", "run"]),
    (["play", "-o", "bad"], ["name=value"]),
    (["play", "--bots", "zzz", "--quiet"], ["unknown bot 'zzz'"]),
    (["play", "--redis", DEAD_REDIS, "--quiet"], ["Redis at redis://127.0.0.1:9/0 cannot be reached"]),
    (["tournament", "--game", "nosuch"], ["unknown game 'nosuch'", "known games", "moderne-zeiten"]),
    (["tournament", "--matches", "1", "--quiet", "-o", "forced_move=maybe"], ["forced_move"]),
    (["tournament", "--matches", "1", "--quiet", "--bots", "random,random"], ["3 to 5 players"]),
    (["tournament", "--matches", "1", "--quiet", "--url", DEAD_URL], ["cannot be reached"]),
    (["lobby", "create", "--game", "moderne-zeiten", "--seats", "3"], ["--url"]),
    (["lobby", "create", "--url", DEAD_URL, "--game", "moderne-zeiten", "--seats", "3"], ["cannot be reached"]),
    (["lobby", "create", "--url", DEAD_URL, "--game", "moderne-zeiten", "--seats", "3", "-o", "nosuch=1"],
     ["unknown option 'nosuch'"]),
    (["lobby", "join", "m1", "--url", DEAD_URL], ["cannot be reached"]),
    (["lobby", "list", "--url", DEAD_URL], ["cannot be reached"]),
    (["send", "m1", "--url", DEAD_URL, "--token", TOKEN, "--type", "take"], ["cannot be reached"]),
    (["send", "m1", "--url", DEAD_URL, "--token", TOKEN, "--type", "take", "--body", "notjson"], ["--body"]),
    (["send", "m1", "--url", DEAD_URL, "--token", "x", "--type", "take"], ["--seat"]),
    (["send", "m1", "--url", DEAD_URL, "--type", "take"], ["--token"]),
    (["watch", "m1", "--url", DEAD_URL], ["cannot be reached"]),
    (["chat", "--url", DEAD_URL, "--match", "m1", "--token", TOKEN], ["--token is not taken", "--token-file"]),
    (["chat", "--url", DEAD_URL, "--match", "m1"], ["AIRSHIP_TOKEN"]),
    (["replay"], ["name a log file"]),
    (["replay", "--redis", DEAD_REDIS, "--match", "m1"], ["cannot be reached"]),
    (["export", "--redis", DEAD_REDIS, "--match", "m1", "--out", "/tmp/never-written.jsonl"], ["cannot be reached"]),
    (["parked", "list", "--redis", DEAD_REDIS], ["cannot be reached"]),
    (["dead-letters", "list", "--redis", "redis://u:secret@127.0.0.1:9/0"], ["u:***@", "cannot be reached"]),
    (["dead-letters", "list", "--redis", "not-a-url"], ["Redis URL"]),
    (["chaos", "--game", "nosuch", "--matches", "1"], ["unknown game 'nosuch'"]),
    (["chaos", "--redis", DEAD_REDIS, "--matches", "1"], ["cannot be reached"]),
    (["bench", "pipeline", "--redis", DEAD_REDIS], ["cannot be reached"]),
    (["bench", "reducers", "--game", "nosuch"], ["unknown game 'nosuch'"]),
]


@pytest.fixture(scope="module")
def ran() -> dict[tuple[str, ...], subprocess.CompletedProcess[str]]:
    """Every case's process, run a few at a time (each is mostly interpreter start-up)."""
    with ThreadPoolExecutor(max_workers=6) as pool:
        return dict(zip([tuple(a) for a, _ in CASES], pool.map(lambda c: airship(*c[0]), CASES), strict=True))


@pytest.mark.parametrize("args,words", CASES, ids=[" ".join(a)[:60] for a, _ in CASES])
def test_one_line_error(args: list[str], words: list[str],
                        ran: dict[tuple[str, ...], subprocess.CompletedProcess[str]]) -> None:
    line = assert_one_line(ran[tuple(args)], *words)
    assert "secret" not in line


def test_files(logs: Path, tmp_path: Path) -> None:
    assert_one_line(airship("replay", str(logs / "missing.jsonl")), "missing.jsonl", "No such file")
    assert_one_line(airship("replay", str(logs / "corrupt.jsonl")), "line 1", "not JSON")
    assert_one_line(airship("replay", str(logs / "cut.jsonl")), "not JSON")
    assert_one_line(airship("replay", str(logs)), "Is a directory")
    assert_one_line(airship("replay", str(logs / "match.jsonl"), "--seat", "9"), "seat 9 does not exist")
    assert_one_line(airship("import", "--redis", DEAD_REDIS, "--in", str(logs / "missing.jsonl")))
    assert_one_line(airship("schemas", "export", "--out", str(logs / "a-file" / "json")), "a-file")
    assert_one_line(airship("stack", "up", "--file", str(tmp_path / "missing.yml"), "--dir", str(tmp_path / "st")),
                    "missing.yml")
    assert_one_line(airship("stack", "status", "--dir", str(tmp_path / "none")), "no stack")


def test_send_to_a_gateway_that_never_answers(silent_gateway: str) -> None:
    started = time.monotonic()
    done = airship("send", "m1", "--url", silent_gateway, "--token", TOKEN, "--type", "take", "--timeout-s", "1")
    assert_one_line(done, "did not answer in time")
    assert time.monotonic() - started < 9, "--timeout-s bounds the wait for the answer"


@pytest.mark.parametrize("args", [["replay", "{log}"], ["games"]], ids=["replay", "games"])
def test_a_reader_that_stops_early_ends_quietly(args: list[str], logs: Path) -> None:
    """``airship replay log | head -1``: no BrokenPipeError traceback."""
    argv = [a.format(log=logs / "match.jsonl") for a in args]
    proc = subprocess.Popen([sys.executable, "-m", "services.cli", *argv], env=env(), cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdout is not None and proc.stderr is not None
    if args[0] == "replay":
        assert proc.stdout.readline()  # head -1
    proc.stdout.close()
    err = proc.stderr.read().decode()
    proc.wait(timeout=60)
    assert "Traceback" not in err and "BrokenPipe" not in err and err == "", err


def test_the_example_bot_says_how_to_run_it() -> None:
    greedy = [sys.executable, "-m", "services.bots.examples.greedy"]
    done = subprocess.run(greedy, env=env(), cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert_one_line(done, "GATEWAY_URL", "MATCH", prefix="usage: python -m services.bots.examples.greedy")
    done = subprocess.run([*greedy, DEAD_URL, "m1"], env=env(), cwd=ROOT, capture_output=True, text=True,
                          timeout=60)
    assert_one_line(done, "cannot be reached", prefix="greedy: ")

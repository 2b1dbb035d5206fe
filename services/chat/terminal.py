"""``airship chat``: one seat of a match on a terminal (lines from stdin, replies on stdout).

The seat token comes from a file (``--token-file``) or the environment (``AIRSHIP_TOKEN``), never from the
command line, where ``ps`` shows it to every user of the machine. The terminal shows the board once at the
start, then what changes (the events, the lines of the seat's own view that changed, and ``Your move...``);
``board`` shows it all again. With ``prompt`` a prompt waits for input (``your move>`` on the seat's turn).
"""

from __future__ import annotations

import os
import stat
import sys
import threading
from typing import TextIO

from services.chat.session import ChatSession
from services.client.errors import GatewayError
from services.client.protocol import GameClient
from services.games.errors import Rejected

QUIT_WORDS = {"quit", "exit", "/quit"}
PROMPT = "> "
YOUR_MOVE_PROMPT = "your move> "


def read_token(path: str | None, environment: str | None) -> str:
    """The seat token from the file at ``path``, else from the environment's value; raises ``ValueError``
    saying where to put it. Warns on stderr when the file is readable by others."""
    if path:
        try:
            with open(path, encoding="utf-8") as f:
                mode = os.fstat(f.fileno()).st_mode
                token = f.read().strip()
        except OSError as e:
            raise ValueError(f"cannot read the token file {path}: {e.strerror or e}") from None
        if mode & (stat.S_IRWXG | stat.S_IRWXO):
            print(f"airship: warning: {path} is readable by others; 'chmod 600 {path}' keeps the seat yours",
                  file=sys.stderr)
        if not token:
            raise ValueError(f"the token file {path} is empty")
        return token
    if environment and environment.strip():
        return environment.strip()
    raise ValueError("give the seat token in a file (--token-file PATH) or in AIRSHIP_TOKEN")


def run_chat(client: GameClient, match_id: str, seat: int, credential: str | None, inp: TextIO, out: TextIO,
             follow: bool = True, poll_s: float = 1.0, prompt: bool = False) -> int:
    """Play ``seat`` from ``inp``/``out`` until the match ends, ``quit`` or end of input.

    With ``follow`` a background thread shows other players' moves as they happen (for a live backend);
    without it updates are shown after each line (for a client that pumps an in-process backend, which
    must stay on one thread).
    """
    try:
        session = ChatSession(client, match_id, seat, credential)
        first = session.updates()
    except Rejected as e:
        out.write(f"{e.reason}\n")
        return 2
    lock = threading.Lock()
    stop = threading.Event()

    def prompt_text() -> str:
        if not prompt or session.finished:
            return ""
        return YOUR_MOVE_PROMPT if session.legal else PROMPT

    def say(lines: list[str], again: bool = False) -> None:
        if lines or again:
            with lock:
                text = "\n".join(lines) + "\n" if lines else ""
                shown = prompt_text()
                if prompt and lines:
                    text = "\r\x1b[K" + text  # over the prompt the reader is waiting at
                out.write(text + shown)
                out.flush()

    def watch() -> None:
        while not stop.is_set() and not session.finished:
            try:
                say(session.wait_updates(poll_s))
            except (GatewayError, ConnectionError) as e:  # the gateway went away: say so, keep trying
                say([f"(no news from the service: {e})"])
                stop.wait(poll_s)

    say(first, again=True)
    watcher = threading.Thread(target=watch, name="chat-updates", daemon=True) if follow else None
    if watcher is not None:
        watcher.start()
    try:
        while not session.finished:
            line = inp.readline()
            if not line or line.strip().lower() in QUIT_WORDS:
                break
            say(session.handle(line), again=True)
            if watcher is None:
                say(session.updates())
    finally:
        stop.set()
        if watcher is not None:
            watcher.join(timeout=poll_s + 1)
    return 0

"""``airship chat``: one seat of a match on a terminal (lines from stdin, replies on stdout)."""

from __future__ import annotations

import threading
from typing import TextIO

from services.chat.session import ChatSession
from services.client.errors import GatewayError
from services.client.protocol import GameClient
from services.games.errors import Rejected

QUIT_WORDS = {"quit", "exit", "/quit"}


def run_chat(client: GameClient, match_id: str, seat: int, credential: str | None, inp: TextIO, out: TextIO,
             follow: bool = True, poll_s: float = 1.0) -> int:
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

    def say(lines: list[str]) -> None:
        if lines:
            with lock:
                out.write("\n".join(lines) + "\n")
                out.flush()

    def watch() -> None:
        while not stop.is_set() and not session.finished:
            try:
                say(session.wait_updates(poll_s))
            except (GatewayError, ConnectionError) as e:  # the gateway went away: say so, keep trying
                say([f"(no news from the service: {e})"])
                stop.wait(poll_s)

    say(first)
    watcher = threading.Thread(target=watch, name="chat-updates", daemon=True) if follow else None
    if watcher is not None:
        watcher.start()
    try:
        while not session.finished:
            line = inp.readline()
            if not line or line.strip().lower() in QUIT_WORDS:
                break
            say(session.handle(line))
            if watcher is None:
                say(session.updates())
    finally:
        stop.set()
        if watcher is not None:
            watcher.join(timeout=poll_s + 1)
    return 0

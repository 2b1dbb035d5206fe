"""A real IRC server for the tests (miniircd, from the dev extra) and IRC players over raw sockets.

The players are deliberately not built on :mod:`services.chat.irc`: they speak the protocol themselves, so
the bridge is tested against independent clients.
"""

from __future__ import annotations

import importlib.util
import os
import queue
import random
import re
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from typing import IO

import pytest

from schemas.envelopes import EventEnvelope
from services.chat.adapter import get_adapter
from services.games import get_game
from services.pipeline.states import to_event

LINE_RE = re.compile(r"^(?::(?P<prefix>\S+) )?(?P<command>\S+)(?P<rest>.*)$")


def ensure_miniircd() -> None:
    """miniircd is in the dev extra (``make test`` installs it); install it now if missing, or fail clearly."""
    if importlib.util.find_spec("miniircd") is not None:
        return
    done = subprocess.run([sys.executable, "-m", "pip", "install", "-q", "miniircd>=2.3"], capture_output=True,
                          text=True, timeout=300)
    if done.returncode != 0 or importlib.util.find_spec("miniircd") is None:
        pytest.fail("The IRC tests need the miniircd server from PyPI (in the dev extra: pip install -e '.[dev]', "
                    f"which 'make test' runs); installing it failed:\n{done.stderr[-2000:]}")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def miniircd() -> Iterator[int]:
    """A miniircd on a free loopback port; yields the port."""
    with IrcServer() as server:
        yield server.port


class IrcServer:
    """A miniircd on a free loopback port that a test may restart (on the same port) mid-game."""

    def __init__(self) -> None:
        ensure_miniircd()
        self.port = free_port()
        self._log: IO[bytes] = tempfile.TemporaryFile()  # noqa: SIM115 (closed in __exit__)
        self._process: subprocess.Popen[bytes] | None = None

    def __enter__(self) -> IrcServer:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()
        self._log.close()

    def start(self) -> None:
        command = [sys.executable, "-m", "miniircd", "--listen", "127.0.0.1", "--ports", str(self.port)]
        if os.geteuid() == 0:  # miniircd refuses root unless told (CI runs as root)
            command += ["--setuid", "root"]
        self._process = subprocess.Popen(command, stdout=self._log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 15
        while True:
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
                return
            except OSError:
                if self._process.poll() is not None or time.monotonic() > deadline:
                    self._log.seek(0)
                    output = self._log.read().decode(errors="replace")
                    pytest.fail(f"miniircd did not start on port {self.port}: {output[-2000:]}")
                time.sleep(0.05)

    def stop(self) -> None:
        server, self._process = self._process, None
        if server is None:
            return
        server.terminate()
        try:
            server.wait(5)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait(5)

    def restart(self, down_s: float = 0.5) -> None:
        self.stop()
        time.sleep(down_s)
        self.start()


@dataclass(frozen=True)
class Said:
    sender: str
    target: str
    text: str
    at: float = field(default_factory=time.monotonic)  # when it arrived


@dataclass
class IrcPlayer:
    """A person on IRC: registers, joins channels, and records every PRIVMSG it receives."""

    port: int
    nick: str
    user: str | None = None  # the user name of user@host (default: the nick)
    received: list[Said] = field(default_factory=list)
    inbox: queue.Queue[Said] = field(default_factory=queue.Queue)

    def __post_init__(self) -> None:
        self.channels: set[str] = set()
        self._joined = threading.Condition()
        self._lock = threading.Lock()
        self._backlog: list[Said] = []  # texts a wait_for(keep_others=True) passed over, read first next time
        self.lost = threading.Event()  # the server closed the connection
        self.connect()

    def connect(self) -> None:
        """Connect (again) with the same nick and user."""
        self.sock = socket.create_connection(("127.0.0.1", self.port), timeout=10)
        self.welcomed = threading.Event()
        self.lost.clear()
        self.channels = set()
        self._reader = threading.Thread(target=self._read, daemon=True, name=f"irc-{self.nick}")
        self._reader.start()
        self.raw(f"NICK {self.nick}")
        self.raw(f"USER {self.user or self.nick} 0 * :{self.nick} the player")
        assert self.welcomed.wait(10), f"{self.nick} was not welcomed by the server"

    def reconnect(self, channels: list[str], timeout_s: float = 15.0) -> None:
        """After the server went away: connect again as soon as it answers, and join ``channels``."""
        deadline = time.monotonic() + timeout_s
        with suppress(OSError):
            self.sock.close()
        while True:
            try:
                self.connect()
                break
            except (OSError, AssertionError):
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.1)
        for channel in channels:
            self.join(channel)

    def raw(self, line: str) -> None:
        with self._lock:
            self.sock.sendall(line.encode() + b"\r\n")

    def join(self, channel: str) -> None:
        self.raw(f"JOIN {channel}")
        with self._joined:
            assert self._joined.wait_for(lambda: channel.lower() in self.channels, 10), f"{self.nick} not in {channel}"

    def say(self, target: str, text: str) -> None:
        self.raw(f"PRIVMSG {target} :{text}")

    def close(self) -> None:
        with suppress(OSError):
            self.raw("QUIT :done")
        self.sock.close()

    def wait_for(self, pattern: str, timeout_s: float = 15.0, sender: str | None = None,
                 keep_others: bool = False) -> re.Match[str]:
        """The next received text matching ``pattern``. The texts before it are consumed, or with
        ``keep_others`` kept for the next wait (the bridge's threads may send a private 'Legal now' before
        the channel line a set-up step waits for)."""
        deadline = time.monotonic() + timeout_s
        skipped: list[Said] = []
        try:
            while True:
                if self._backlog:
                    said = self._backlog.pop(0)
                else:
                    try:
                        said = self.inbox.get(timeout=max(deadline - time.monotonic(), 0.01))
                    except queue.Empty:
                        raise AssertionError(f"{self.nick} never heard /{pattern}/") from None
                found = re.search(pattern, said.text)
                if found and (sender is None or said.sender == sender):
                    return found
                if keep_others:
                    skipped.append(said)
        finally:
            self._backlog[:0] = skipped

    def next_said(self, timeout_s: float) -> Said | None:
        """The next text received (those a ``wait_for(keep_others=True)`` passed over first), or None."""
        if self._backlog:
            return self._backlog.pop(0)
        try:
            return self.inbox.get(timeout=timeout_s)
        except queue.Empty:
            return None

    def texts(self, sender: str, private: bool | None = None) -> list[str]:
        return [s.text for s in self.received if s.sender == sender and
                (private is None or (s.target == self.nick) == private)]

    def _read(self) -> None:
        buffer = b""
        sock = self.sock
        while True:
            try:
                data = sock.recv(4096)
            except TimeoutError:
                continue
            except OSError:
                data = b""
            if not data:
                if sock is self.sock:  # not an old connection's reader noticing its end late
                    self.lost.set()
                return
            buffer += data
            while b"\n" in buffer:
                raw, _, buffer = buffer.partition(b"\n")
                self._on_line(raw.rstrip(b"\r").decode(errors="replace"))

    def _on_line(self, line: str) -> None:
        match = LINE_RE.match(line)
        if not match:
            return
        prefix, command, rest = match["prefix"] or "", match["command"].upper(), match["rest"]
        head, _, trailing = rest.partition(" :")
        params = head.split() + ([trailing] if _ else [])
        if command == "PING":
            self.raw(f"PONG :{params[0] if params else ''}")
        elif command == "001":
            self.welcomed.set()
        elif command == "JOIN" and prefix.split("!")[0] == self.nick:
            with self._joined:
                self.channels.add(params[0].lower())
                self._joined.notify_all()
        elif command == "PRIVMSG" and len(params) >= 2:
            said = Said(prefix.split("!")[0], params[0], params[1])
            self.received.append(said)
            self.inbox.put(said)


def choose(help_text: str, rng: random.Random) -> str:
    """A command picked from the bridge's 'Legal now: a | b | c' help, as a person would write it."""
    listed = help_text.split("Legal now: ", 1)[1]
    listed = re.sub(r" \((write one|or any other)[^)]*\)$", "", listed)
    options = [re.sub(r"^\d+\) ", "", option) for option in listed.split(" | ")]
    option = rng.choice(options)
    bids = re.fullmatch(r"bid (\d+)(?:(?:\.\.| to )(\d+))?(?: \(millions\))?", option)
    if bids:
        return f"bid {rng.randint(int(bids[1]), int(bids[2] or bids[1]))}"
    play = re.fullmatch(r"play any cards from your hand: (.*)", option)
    if play:  # one kind of card from the hand, as many as a person might put down
        count, industry = rng.choice([part.split(" ", 1) for part in play[1].split(", ")])
        return f"play {rng.randint(1, int(count))} {industry}"
    return option


def contained(needles: set[str], texts: set[str]) -> set[str]:
    """The needles found inside any of the texts as whole words (``secret: 3`` is not in ``secret: 31``): the
    bridge joins a move's lines into one, so a line is looked for inside what was heard."""
    found = set()
    for needle in needles:
        pattern = re.compile(rf"(?<!\w){re.escape(needle)}(?!\w)")
        if any(pattern.search(text) for text in texts):
            found.add(needle)
    return found


SEAT_RE = re.compile(r"\bseat (\d+)\b")


def lines_by_reader(events: Iterable[EventEnvelope], game_name: str, seats: int,
                    nicks: list[str] | None = None) -> dict[int | None, set[str]]:
    """Every line the bridge may render for each reader (None: the public) at any version of a match's log,
    with the players' nicks for their seats as the bridge writes them (when ``nicks`` is given)."""
    game, adapter = get_game(game_name), get_adapter(game_name)
    state = game.initial()
    names = nicks

    def name(line: str) -> str:
        return SEAT_RE.sub(lambda m: names[int(m[1])], line) if names else line

    lines: dict[int | None, set[str]] = {s: set() for s in [None, *range(seats)]}
    for envelope in events:
        state = game.evolve(state, to_event(envelope))
        for reader, seen in lines.items():
            seen.update(name(x) for x in adapter.render_view(game.view(state, reader)))
            line = adapter.render_event(envelope.for_seat(reader))
            if line:
                seen.add(name(line))
    return lines

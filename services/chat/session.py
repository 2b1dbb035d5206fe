"""One seat of a match, played in chat text over a client (a gateway client, or the embedded one).

``handle(text)`` answers a line the player wrote (a command is parsed, sent, and its result told;
``help``, ``board`` and ``moves`` are answered directly). ``updates()`` returns the text for whatever
happened since it was last called: the events as this seat may see them, the seat's view, and the
legal commands when it is this seat's turn. Safe to use from a reader thread and a writer thread.

A session's ``feed`` says how much ``updates`` tells: ``"all"`` (a terminal: every event, and the view after
every change) or ``"private"`` (a chat network where the public events go to a shared channel: only the
events with secrets for this seat, and the view when one arrived, when the seat must act, and at the end).
"""

from __future__ import annotations

import threading
from typing import Any

from schemas.envelopes import ViewRecord
from services.chat.adapter import ChatAdapter, ChatError, get_adapter
from services.client.errors import GatewayError, NotFound
from services.client.protocol import GameClient
from services.games.errors import BadOptions
from services.pipeline.client import Timeout

HELP_WORDS = {"help", "?", "h"}
BOARD_WORDS = {"board", "view", "look"}
MOVES_WORDS = {"moves", "legal", "options"}
FEEDS = ("all", "private")


class ChatSession:
    def __init__(self, client: GameClient, match_id: str, seat: int, credential: str | None,
                 adapter: ChatAdapter | None = None, timeout_s: float = 30.0, feed: str = "all") -> None:
        """``credential``: the seat's token on a gateway client. Raises ``BadOptions`` for an unknown match
        or seat."""
        if feed not in FEEDS:
            raise ValueError(f"feed must be one of {FEEDS}, not {feed!r}")
        try:
            meta = client.match(match_id)
        except NotFound:
            raise BadOptions(f"no match '{match_id}'") from None
        if not 0 <= seat < meta.seats:
            raise BadOptions(f"seat {seat} does not exist; this match has seats 0 to {meta.seats - 1}")
        self.client = client
        self.match_id = match_id
        self.seat = seat
        self.credential = credential
        self.game = meta.game
        self.adapter = adapter or get_adapter(meta.game)
        self.timeout_s = timeout_s
        self.feed = feed
        self.shown_version: int | None = None  # None: nothing shown yet
        self.record: ViewRecord | None = None
        self._lock = threading.RLock()

    @property
    def finished(self) -> bool:
        return bool(self.record and self.record.finished)

    @property
    def legal(self) -> list[dict[str, Any]]:
        return list(self.record.legal) if self.record else []

    # -- text out --------------------------------------------------------------------------------
    def updates(self) -> list[str]:
        """Text for what happened since the last call (the first call: a greeting and the view)."""
        with self._lock:
            record = self.client.view(self.match_id, self.seat, token=self.credential)
            if record is None or (self.shown_version is not None and record.version <= self.shown_version):
                return []
            lines: list[str] = []
            first = self.shown_version is None
            if self.shown_version is None:
                lines.append(f"Match {self.match_id} ({self.game}), you are seat {self.seat}. Write 'help' for help.")
            else:
                events = self.client.log(self.match_id, self.credential, after_version=self.shown_version).events
                for envelope in events[: record.version - self.shown_version]:
                    if self.feed == "private" and not (envelope.visible_to and self.seat in envelope.visible_to):
                        continue
                    line = self.adapter.render_event(envelope.for_seat(self.seat))
                    if line:
                        lines.append(line)
            self.record, self.shown_version = record, record.version
            if self.feed == "all" or first or lines or self.legal or self.finished:
                lines += self.adapter.render_view(record.view)
                lines += self._prompt()
            return lines

    def wait_updates(self, timeout_s: float) -> list[str]:
        """Block until the seat's view changes (or ``timeout_s`` passes), then :meth:`updates`."""
        after = self.shown_version or 0
        try:
            self.client.wait_view(self.match_id, self.seat, after + 1, timeout_s, token=self.credential)
        except Timeout:
            return []
        return self.updates()

    def _prompt(self) -> list[str]:
        if self.finished:
            outcome = self.record.outcome if self.record else None
            return [f"The match is over. {_outcome_text(outcome, self.seat)}".strip()]
        if self.legal:
            return [f"Your move. {self.adapter.describe_legal(self.legal)}"]
        return []

    # -- text in ---------------------------------------------------------------------------------
    def handle(self, text: str) -> list[str]:
        """The reply to one line from the player, followed by any updates it caused."""
        text = text.strip()
        if not text:
            return []
        with self._lock:
            if self.record is None:
                self.updates()
            word = text.split()[0].lower()
            types = {c["type"].lower() for c in self.legal}
            game_words: frozenset[str] = getattr(self.adapter, "command_words", frozenset())
            if word not in types and not (word in game_words and len(text.split()) > 1):  # "look seat 1" is a move
                if word in HELP_WORDS:
                    legal = self.adapter.describe_legal(self.legal) if self.legal else ""
                    return [_help(legal, getattr(self.adapter, "help_text", None))]
                if word in BOARD_WORDS and self.record is not None:
                    return self.adapter.render_view(self.record.view) + self._prompt()
                if word in MOVES_WORDS:
                    return [self.adapter.describe_legal(self.legal) if self.legal else self._waiting()]
            if self.finished:
                return [self._prompt()[0]]
            if not self.legal:
                return [self._waiting()]
            parsed = self.adapter.parse(text, self.legal)
            if isinstance(parsed, ChatError):
                return [parsed.message]
            return self._send(parsed)

    def _send(self, command: dict[str, Any]) -> list[str]:
        shown = self.adapter.format_command(command)
        try:
            result = self.client.call(self.match_id, self.seat, self.credential, command["type"],
                                      command.get("body") or {}, self.timeout_s)
        except (Timeout, ConnectionError):
            return [f"No answer to '{shown}' within {self.timeout_s:g}s; the service may be down. Try again later."]
        except GatewayError as e:
            return [f"Refused '{shown}': {e}."]
        if result.status == "rejected":
            self.record = self.client.view(self.match_id, self.seat, token=self.credential) or self.record
            help_ = self.adapter.describe_legal(self.legal) if self.legal else self._waiting()
            return [f"Refused '{shown}': {result.reason}. {help_}"]
        lines = [f"OK: {shown}"]
        try:
            self.client.wait_view(self.match_id, self.seat, result.version, self.timeout_s, token=self.credential)
        except (Timeout, ConnectionError):
            return [*lines, "(the board has not caught up yet)"]
        return lines + self.updates()

    def _waiting(self) -> str:
        to_act = self.record.to_act if self.record else None
        if to_act:
            return f"It is not your turn; waiting for seat {', '.join(map(str, to_act))}."
        return "It is not your turn."


def _help(legal: str, game_help: str | None = None) -> str:
    if game_help:
        return f"{game_help} 'board' shows the board, 'moves' what you may do. {legal}".strip()
    return ("Write a command as 'type name=value ...' (lists as a,b,c; maps as a:1,b:2); a command with one "
            "value takes it alone (e.g. 'take 2'); a number picks from the numbered list. 'board' shows the board, "
            f"'moves' what you may do. {legal}").strip()


def _outcome_text(outcome: Any, seat: int) -> str:
    if not isinstance(outcome, dict):
        return ""
    winners = outcome.get("winners") or []
    scores = outcome.get("scores") or []
    verdict = "You won!" if seat in winners else ("Nobody won." if not winners else
                                                 f"Won by seat {', '.join(map(str, winners))}.")
    return f"{verdict} Scores: {', '.join(f'seat {s}: {p}' for s, p in enumerate(scores))}".strip()

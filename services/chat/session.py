"""One seat of a match, played in chat text over a client (a gateway client, or the embedded one).

``handle(text)`` answers a line the player wrote (a command is parsed, sent, and its result told;
``help``, ``board`` and ``moves`` are answered directly). ``news()`` returns what happened since it was last
called, in two parts: the prompt (``Your move...`` when this seat must act, or the end of the match), which a
chat network sends before other players' news, and the rest: the events as this seat may see them and the
lines of the seat's own view that changed and that the public does not see (a hand). The whole board only
comes on request (``board``). Safe to use from a reader thread and a writer thread.

A session's ``feed`` says which events ``news`` tells: ``"all"`` (a terminal: every event) or ``"private"``
(a chat network where the public events go to a shared channel: only the events with secrets for this seat).
``names`` turns a seat number into how players know it (their nick on IRC); every line the session makes
says ``seat N`` through it.

A clocked match (#29): the prompt says the time left (``Your move (20 s left)``), ``board`` ends with every seat's
clock, the service's clock events are told in words (:mod:`services.chat.clocks`: a timeout, never the bookkeeping),
and the end of a forfeited match says who forfeited and why. ``now_ms``: this machine's time in ms since the epoch,
used only where a view record carries no ``server_ms`` (the embedded service).

Secret commands (#33; the game's ``secret_commands``: a draft pick, a card given, a trade offered to one player): a
session on a shared channel (``private_to``: how a player writes to the bridge privately, ``/msg airship``) refuses
them when written where everyone reads (``answer(text, public=True)``), without repeating what was written, and its
prompt for such a decision says to answer privately.
"""

from __future__ import annotations

import difflib
import re
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from schemas.envelopes import ViewRecord
from services.chat import clocks
from services.chat.adapter import ChatAdapter, ChatError, get_adapter, secret_commands
from services.client.errors import GatewayError, NotFound
from services.client.protocol import GameClient
from services.games.abandon import ended_text, is_abandoned
from services.games.errors import BadOptions
from services.pipeline.direct import Timeout

HELP_WORDS = {"help", "?", "h"}
BOARD_WORDS = {"board", "view", "look"}
MOVES_WORDS = {"moves", "legal", "options"}
SESSION_WORDS = HELP_WORDS | BOARD_WORDS | MOVES_WORDS
FEEDS = ("all", "private")
SEAT_RE = re.compile(r"\bseat (\d+)\b")
GENERIC_HELP = ("Write a command as 'type name=value ...' (lists as a,b,c; maps as a:1,b:2). A command with one "
                "value takes it alone (e.g. 'take 2'), and a number picks from the numbered list.")
SESSION_HELP = "'board' shows the board, 'moves' what you may do now, 'help' this help."
NEAR_MISS_CUTOFF = 0.6
VERSION_TRIES = 3  # reads to find the seat's and the public view at one version
PUBLIC_WAIT_S = 1.0


@dataclass
class News:
    """What a seat is told after a change: ``prompt`` first (its move, or the end), then ``lines``."""

    prompt: list[str] = field(default_factory=list)
    lines: list[str] = field(default_factory=list)

    def __bool__(self) -> bool:
        return bool(self.prompt or self.lines)

    def all(self) -> list[str]:
        return [*self.lines, *self.prompt]


@dataclass
class Answer:
    """The reply to one line, and whether it sent a command that was accepted."""

    lines: list[str]
    accepted: bool = False
    secret: bool = False  # refused: a secret command written where everyone reads it


def seat_words(seat: int) -> str:
    return f"seat {seat}"


class ChatSession:
    def __init__(self, client: GameClient, match_id: str, seat: int, credential: str | None,
                 adapter: ChatAdapter | None = None, timeout_s: float = 30.0, feed: str = "all",
                 names: Callable[[int], str] | None = None, greeting: bool = True,
                 game: str | None = None, seats: int | None = None,
                 now_ms: Callable[[], int] = clocks.wall_ms, private_to: Callable[[], str] | None = None) -> None:
        """``credential``: the seat's token on a gateway client. ``game`` and ``seats``, when the caller
        knows them, save asking the service. ``private_to``: on a shared channel, how to write privately (``/msg
        airship``). Raises ``BadOptions`` for an unknown match or seat."""
        if feed not in FEEDS:
            raise ValueError(f"feed must be one of {FEEDS}, not {feed!r}")
        if game is None or seats is None:
            try:
                meta = client.match(match_id)
            except NotFound:
                raise BadOptions(f"no match '{match_id}'") from None
            game, seats = meta.game, meta.seats
        if not 0 <= seat < seats:
            raise BadOptions(f"seat {seat} does not exist; this match has seats 0 to {seats - 1}")
        self.client = client
        self.match_id = match_id
        self.seat = seat
        self.credential = credential
        self.game = game
        self.adapter = adapter or get_adapter(game)
        self.timeout_s = timeout_s
        self.feed = feed
        self.names = names or seat_words
        self.greeting = greeting
        self.now_ms = now_ms
        self.private_to = private_to
        self.secret = secret_commands(game)
        self.shown_version: int | None = None  # None: nothing shown yet
        self.record: ViewRecord | None = None
        self._private_shown: list[str] = []
        self._prompted_version: int | None = None
        self._reprompt = False
        self._note: str | None = None  # said before the prompt told again (the bridge was away: write it again)
        self._lock = threading.RLock()

    @property
    def finished(self) -> bool:
        return bool(self.record and self.record.finished)

    @property
    def legal(self) -> list[dict[str, Any]]:
        return list(self.record.legal) if self.record else []

    def named(self, text: str) -> str:
        """``seat N`` in a line as players know that seat."""
        if self.names is seat_words:
            return text
        return SEAT_RE.sub(lambda m: self.names(int(m[1])), text)

    @property
    def wants_prompt(self) -> bool:
        """Something is owed to the seat even if the match did not move: its first news, or a prompt again."""
        return self._reprompt or self.shown_version is None

    def reprompt(self, note: str | None = None) -> None:
        """Tell the prompt again at the next :meth:`news` (a player came back, or the bridge did); ``note``, if
        the seat has a prompt then, goes before it (``I was away...: write it again``)."""
        with self._lock:
            self._reprompt = True
            self._note = note or self._note

    # -- text out --------------------------------------------------------------------------------
    def news(self, public: ViewRecord | None = None) -> News:
        """What happened since the last call (the first call: a greeting, the seat's own lines, or on a
        terminal the whole board, and the prompt). ``public``: the public view record, when the caller has it."""
        with self._lock:
            record = self.client.view(self.match_id, self.seat, token=self.credential)
            if record is None:
                return News()
            fresh = self.shown_version is None or record.version > self.shown_version
            if not fresh and not self._reprompt:
                return News()
            news = News()
            first = self.shown_version is None
            if first and self.greeting:
                news.lines.append(f"Match {self.match_id} ({self.game}), you are {self.names(self.seat)}. "
                                  f"Write 'help' for help.")
            elif fresh and self.shown_version is not None:
                news.lines += self._events(record)
            if fresh:
                private = self._changed_private_lines(record, public)
                news.lines += self.adapter.render_view(record.view) if first and self.feed == "all" else private
            self.record, self.shown_version = record, record.version
            if self._reprompt or (fresh and self._prompted_version != record.version):
                news.prompt = self._prompt()
                self._prompted_version = record.version
                if self._reprompt and self._note and news.prompt and self.legal:
                    news.prompt.insert(0, self._note)
            self._reprompt, self._note = False, None
            return News([self.named(x) for x in news.prompt], [self.named(x) for x in news.lines])

    def updates(self) -> list[str]:
        """:meth:`news` as one list of lines, the prompt last."""
        return self.news().all()

    def wait_updates(self, timeout_s: float) -> list[str]:
        """Block until the seat's view changes (or ``timeout_s`` passes), then :meth:`updates`."""
        after = self.shown_version or 0
        try:
            self.client.wait_view(self.match_id, self.seat, after + 1, timeout_s, token=self.credential)
        except Timeout:
            return []
        return self.updates()

    def _events(self, record: ViewRecord) -> list[str]:
        assert self.shown_version is not None
        events = self.client.log(self.match_id, self.credential, after_version=self.shown_version).events
        lines = []
        control = record.clock.control if record.clock is not None else None
        for envelope in events[: record.version - self.shown_version]:
            if clocks.is_clock_event(envelope):  # the service's: told the same in every game, the bookkeeping not
                mine = envelope.body.get("seat") == self.seat
                text = clocks.event_text(envelope, seat_words, control, me=self.seat)
                if text and (self.feed == "all" or mine):
                    lines.append(text)
                continue
            if self.feed == "private" and not (envelope.visible_to and self.seat in envelope.visible_to):
                continue
            line = self.adapter.render_event(envelope.for_seat(self.seat))
            if line:
                lines.append(line)
        return lines

    def _changed_private_lines(self, record: ViewRecord, public: ViewRecord | None) -> list[str]:
        """The lines of the seat's view that the public view of the same version does not have (its hand...),
        those that changed."""
        for _ in range(VERSION_TRIES):
            if public is not None and public.version == record.version:
                break
            if public is None or public.version < record.version:
                try:
                    public = self.client.wait_view(self.match_id, "public", record.version, PUBLIC_WAIT_S)
                except Timeout:
                    break
            else:
                record = self.client.view(self.match_id, self.seat, token=self.credential) or record
        if public is None or public.version != record.version:
            return []  # no public view to tell the private lines apart: told with the next change
        public_lines = set(self.adapter.render_view(public.view))
        private = [line for line in self.adapter.render_view(record.view) if line not in public_lines]
        changed = [line for line in private if line not in self._private_shown]
        self._private_shown = private
        return changed

    def _prompt(self) -> list[str]:
        if self.finished:
            outcome = self.record.outcome if self.record else None
            return [f"The match is over. {self._outcome_text(outcome)}".strip()]
        if self.legal:
            left = clocks.times_left(self.record, [self.seat], self.now_ms).get(self.seat)
            hint = self._secret_hint()  # its own line, first: the legal commands stay the end of the prompt
            return [*([hint] if hint else []),
                    f"Your move{f' ({left} left)' if left else ''}. {self.adapter.describe_legal(self.legal)}"]
        return []

    def secret_now(self) -> list[str]:
        """The secret command types legal now."""
        return [c["type"] for c in self.legal if c["type"] in self.secret]

    def _secret_hint(self) -> str:
        secret = self.secret_now()
        if not secret or self.private_to is None:
            return ""
        return (f"Secret: answer me privately ({self.private_to()} {self._verb(secret[0])} ...), not in the "
                f"channel, where everyone reads it.")

    def _verb(self, type_: str) -> str:
        """How a command type is written in chat: the first of the adapter's ``verbs`` for it, else the type."""
        verbs: dict[str, str] = getattr(self.adapter, "verbs", {})
        return next((word for word, t in verbs.items() if t == type_), type_)

    def _secret_refusal(self, parsed: dict[str, Any] | ChatError, word: str) -> Answer | None:
        """The refusal of a line written where everyone reads it that is (or tries to be) a secret command."""
        secret = self.secret_now()
        if self.private_to is None or not secret:
            return None
        verbs = {w for w, t in getattr(self.adapter, "verbs", {}).items() if t in secret} | {t.lower() for t in secret}
        if isinstance(parsed, dict):
            if parsed["type"] not in self.secret:
                return None
            type_ = parsed["type"]
        elif word in verbs or len(secret) == len(self.legal):  # a mistyped secret tells as much
            type_ = secret[0]
        else:
            return None
        return Answer([f"Not here: everyone can read it. Write it to me privately: {self.private_to()} "
                       f"{self._verb(type_)} ..."], secret=True)

    def clock_lines(self) -> list[str]:
        """Every seat's clock (none for a match without a clock)."""
        line = clocks.clocks_line(self.record, seat_words, self.now_ms)
        return [line] if line else []

    # -- text in ---------------------------------------------------------------------------------
    def handle(self, text: str) -> list[str]:
        """The reply to one line from the player (on a terminal, followed by any updates it caused)."""
        return self.answer(text).lines

    def answer(self, text: str, public: bool = False) -> Answer:
        """``public``: written where everyone reads it (a channel): a secret command is refused there."""
        text = text.strip()
        if not text:
            return Answer([])
        with self._lock:
            if self.record is None:
                self.record = self.client.view(self.match_id, self.seat, token=self.credential)
            word = text.split()[0].lower()
            types = {c["type"].lower() for c in self.legal}
            game_words: frozenset[str] = getattr(self.adapter, "command_words", frozenset())
            if word not in types and not (word in game_words and len(text.split()) > 1):  # "look seat 1" is a move
                if word in HELP_WORDS:
                    return Answer(self.help_lines())
                if word in BOARD_WORDS and self.record is not None:  # fresh: the clocks count from its time
                    self.record = self.client.view(self.match_id, self.seat, token=self.credential) or self.record
                    return Answer([self.named(x) for x in self.adapter.render_view(self.record.view)
                                   + self.clock_lines() + self._prompt()])
                if word in MOVES_WORDS:
                    return Answer([self.named(self.adapter.describe_legal(self.legal) if self.legal
                                              else self._waiting())])
            if self.finished:
                return Answer([self.named(self._prompt()[0])])
            if not self.legal:
                return Answer([self._waiting()])
            parsed = self.adapter.parse(text, self.legal)
            refusal = self._secret_refusal(parsed, word) if public else None
            if refusal is not None:
                return refusal
            if isinstance(parsed, ChatError):
                return Answer([self.named(self._with_near_miss(word, parsed.message))])
            return self._send(parsed)

    def help_lines(self) -> list[str]:
        """The game's own help (its command words), then the session's words, then what is legal now: each
        a whole line, so no sentence is cut."""
        game_help: str | None = getattr(self.adapter, "help_text", None)
        lines = [game_help or GENERIC_HELP, SESSION_HELP]
        clock = clocks.clock_of(self.record)
        if clock is not None:
            lines.append(f"This match has a clock: {clocks.control_text(clock.control)}. When your time runs out "
                         f"{'the service moves for you' if clock.control.kind == 'move' else 'you forfeit'}; "
                         f"'board' shows every clock.")
        if self.legal:
            lines.append(self.named(self.adapter.describe_legal(self.legal)))
        elif not self.finished:
            lines.append(self._waiting())
        return lines

    def _with_near_miss(self, word: str, message: str) -> str:
        """A reply to an unknown word, with the closest command words when it looks like a typo of one."""
        if "Did you mean" in message or not message.startswith("Unknown command"):
            return message
        close = near_misses(word, self.command_words())
        if not close:
            return message
        head, sep, rest = message.partition(". ")
        return f"{head}; did you mean {' or '.join(repr(c) for c in close)}?{' ' + rest if sep else ''}"

    def command_words(self) -> list[str]:
        """The words a command may start with now: the legal types, the game's own verbs, the session's."""
        words = [c["type"] for c in self.legal]
        words += sorted(getattr(self.adapter, "command_words", ()))
        return list(dict.fromkeys(w.lower() for w in words))

    def _send(self, command: dict[str, Any]) -> Answer:
        shown = self.named(self.adapter.format_command(command))
        try:
            result = self.client.call(self.match_id, self.seat, self.credential, command["type"],
                                      command.get("body") or {}, self.timeout_s)
        except (Timeout, ConnectionError):
            return Answer([f"No answer to '{shown}' within {self.timeout_s:g}s; the service may be down. "
                           f"Try again later."])
        except GatewayError as e:
            return Answer([f"Refused '{quoted(shown)}': {e}."])
        if result.status == "rejected":
            self.record = self.client.view(self.match_id, self.seat, token=self.credential) or self.record
            help_ = self.adapter.describe_legal(self.legal) if self.legal else self._waiting()
            return Answer([self.named(f"Refused '{quoted(shown)}': {result.reason}. {help_}")])
        lines = [f"OK: {shown}"]
        if self.feed == "private":  # a chat network: the poster tells what follows
            return Answer(lines, accepted=True)
        try:
            self.client.wait_view(self.match_id, self.seat, result.version, self.timeout_s, token=self.credential)
        except (Timeout, ConnectionError):
            return Answer([*lines, "(the board has not caught up yet)"], accepted=True)
        return Answer(lines + self.updates(), accepted=True)

    def _waiting(self) -> str:
        to_act = self.record.to_act if self.record else None
        if to_act:
            return f"It is not your turn; waiting for {', '.join(self.names(s) for s in to_act)}."
        return "It is not your turn."

    def _outcome_text(self, outcome: Any) -> str:
        if not isinstance(outcome, dict):
            return ""
        if is_abandoned(outcome):
            return ended_text(outcome)
        if clocks.is_forfeit(outcome):
            control = self.record.clock.control if self.record and self.record.clock else None
            return clocks.forfeit_text(outcome, self.names, control, me=self.seat)
        winners = outcome.get("winners") or []
        scores = outcome.get("scores") or []
        verdict = "You won!" if self.seat in winners else ("Nobody won." if not winners else
                                                         f"Won by {', '.join(self.names(w) for w in winners)}.")
        return f"{verdict} Scores: {', '.join(f'{self.names(s)}: {p}' for s, p in enumerate(scores))}.".strip()


def quoted(text: str, most: int = 30) -> str:
    """What someone wrote, as a reply quotes it: at most ``most`` characters (a flood of text is not echoed)."""
    return text if len(text) <= most else text[: most - 1] + "…"


def near_misses(word: str, words: Sequence[str], n: int = 2) -> list[str]:
    """The words ``word`` is most likely a typo of (none when nothing is close)."""
    word = word.lower()
    if len(word) < 2 or word in words:
        return []
    return difflib.get_close_matches(word, list(words), n=n, cutoff=NEAR_MISS_CUTOFF)

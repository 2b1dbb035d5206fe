"""What the IRC bridge does with what people write, and what it tells them; no sockets here.

A channel is a match table. In the channel: ``!new <game> <players> [name=value ...]`` sets a match up,
``!join [seat]`` takes a seat (bound to the writer as :mod:`.seats` says, with a private claim code; the
seat token stays in the bridge and is never shown), ``!seats``, ``!board``, ``!games``, ``!abandon`` (a
vote: the match ends when the others agree, see ``schemas.gateway.abandon_agreed``) and ``!help``.

Once every seat is taken the match begins. After each change the player to act gets his prompt first
(``Your move...``, an urgent line), the channel gets the events in words and who is next, and each other
player privately only what changed for him that the channel does not show (his hand); the whole board only
on request (``board``, ``!board``), at most once per ``board_every_s`` per player and per channel. A seated
player plays by writing a command in the channel (``bid 5``) or to the bridge privately (``#table bid 5``
picks the table when he sits at more than one; his private lines then carry the table's name). A line in
the channel from a seated player that is nearly a command (``pas``, ``bdi 5``) gets a private reply with the
closest legal forms; anything else there is talk. Players leaving and coming back are announced; a player
coming back is prompted again when it is his move.

A match may have a clock (#29): ``!new <game> <players> 30s`` (30 s a move) or ``5m+5s`` (a bank plus an increment
a move). The turn line then says the time left (``ann: your move — 20 s left.``), ``!board`` and ``!seats`` every
seat's clock, the seat to act is reminded privately once a decision when little time is left (a line that expires
with the deadline, so a slow outbox never delivers it late), the channel hears in plain words when the service's
bot played for someone whose time ran out, and a forfeit ends the match in words (``bob forfeited: out of time...``).

With a :class:`~services.chat.irc.store.TableStore` the tables (match, seats, tokens, identities, how far the
channel was told) survive a restart of the bridge. Every method returns :class:`~.outbox.Line` objects for
the bridge's send queue; one lock keeps the tables consistent between its reader and poster threads.
"""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from schemas.clock import TimeControl
from schemas.envelopes import ViewRecord
from schemas.gateway import ABANDON_IDLE_S, abandon_agreed, abandon_waiting_for
from services.chat import clocks
from services.chat.adapter import ChatAdapter, get_adapter
from services.chat.chatform import ChatFormError, Shape, read_plain
from services.chat.irc import table_bots, table_extras
from services.chat.irc.outbox import Cooldowns, Line
from services.chat.irc.seats import (
    Sender,
    claim_hash,
    claim_matches,
    is_seated,
    network_quit,
    new_claim_code,
    same_nick,
)
from services.chat.irc.store import SeatRecord, StoreError, TableRecord, TableStore
from services.chat.session import HELP_WORDS, SESSION_WORDS, ChatSession, near_misses, quoted
from services.client.errors import GatewayError, NotFound
from services.client.protocol import GameClient
from services.games import GAMES
from services.games.abandon import EXPIRED, is_abandoned
from services.games.errors import BadOptions, Rejected
from services.logs import get_logger
from services.pipeline.client import Timeout

log = get_logger("irc")
SEAT_RE = re.compile(r"\bseat (\d+)\b")
GAME_OVER_RE = re.compile(r"^(Game over|The match is over)\b")
BOARD_EVERY_S = 30.0
CLAIM_EVERY_S = 2.0  # after a wrong claim code, the next try from that user@host waits 2 s: guessing takes ages
MAX_FAILED_CLAIMS = 10_000
REVOTE_EVERY_S = 15.0  # a pending abandon vote is put again this often (the timeout rule is judged on a vote)
MAX_TALK_WORDS = 5  # a near-miss of a command is a short line
IDLE_REMIND_S = 120.0  # a player to move who lets the table wait this long is reminded (privately and in the channel)
AWAY_NOTE = "I was away for a moment (restarted, or cut off from the server): anything you wrote to me meanwhile " \
            "was lost. If you wrote your move, write it again."

TABLE_HELP = [
    "Tables: '!new <game> <players> [clock] [option=value ...]' sets up a match here, '!join [seat]' takes a seat, "
    "'!seats' shows who sits where (and the clocks), '!board' the board, '!games' the games.",
    f"A clock is optional: {clocks.CLOCK_EXAMPLES}; '30s/2' makes 2 timeouts in a row forfeit (3 if not said). "
    "When a player's time runs out, the service's bot plays for him; too many timeouts, or an empty bank, forfeit.",
    "'!abandon' votes to end the match early: it ends when the other players agree (or, if the players to move "
    "stay silent for a while, when everybody else agrees). '!bots [random|heuristic|ismcts]' gives the free seats "
    "to the service's bots (they agree to end early). '!top [game] [n]' shows the best rated players.",
    "Seated players play by writing commands here or to me privately, e.g. 'bid 5' or 'take 2'. 'help' (to me "
    "privately) lists your game's commands; '#channel command' picks the table when you sit at more than one.",
]


@dataclass
class Player:
    record: SeatRecord
    session: ChatSession
    present: bool = True  # seen on IRC since the bridge connected: only then is he told anything privately
    in_channel: bool = True  # whether he was last seen in the table's channel

    @property
    def nick(self) -> str:
        return self.record.nick

    @property
    def seat(self) -> int:
        return self.record.seat

    @property
    def token(self) -> str:
        return self.record.token


@dataclass
class Table:
    channel: str
    match_id: str
    game: str
    seats: int
    adapter: ChatAdapter
    players: dict[int, Player] = field(default_factory=dict)
    shown: int = 0  # the version up to which the channel has been told the events
    announced_to_act: tuple[int, ...] = ()
    finished: bool = False
    abandon_votes: set[int] = field(default_factory=set)
    last_vote_s: float = 0.0
    clock_seen: dict[int, int] = field(default_factory=dict)  # seat -> the deadline of its decision seen last
    reminded: dict[int, int] = field(default_factory=dict)  # seat -> the deadline it was reminded of (or needs not)
    bots: dict[int, str] = field(default_factory=dict)  # seat -> strength: seats given to the service's bots (!bots)
    idle_version: int = -1  # the version whose decision is being waited for (idle reminders)
    idle_since: float = 0.0
    idle_told: set[int] = field(default_factory=set)  # seats reminded of that decision
    returned: bool = False  # the bridge came back (restarted, or connected again): those to move hear it once
    bots_since: float | None = None  # when the bots were asked for and have not sat down yet (monotonic s)
    lock: threading.RLock = field(default_factory=threading.RLock, repr=False)  # the poster's news vs votes

    @property
    def key(self) -> str:
        return self.channel.lower()

    @property
    def full(self) -> bool:
        """Every seat is a player's or given to the service's bots."""
        return len(self.players) + len(self.bots) == self.seats

    def player_of(self, sender: Sender) -> Player | None:
        return next((p for p in self.players.values() if is_seated(p.record, sender)), None)

    def nick_of(self, seat: int) -> str:
        player = self.players.get(seat)
        return player.nick if player else bot_name(seat) if seat in self.bots else f"seat {seat}"

    def who(self, seat: int) -> str:
        """A seat for the channel: the nick, marked when the player is away."""
        player = self.players.get(seat)
        if player is None:
            return bot_name(seat) if seat in self.bots else f"seat {seat}"
        return f"{player.nick} (away)" if player.record.away else player.nick

    def seats_for_nicks(self, text: str) -> str:
        """A player's line with the seated players' nicks after its first word as seats (``offer bob: ...`` reads
        ``offer seat 1: ...``), so commands may name players by nick."""
        first, sep, rest = text.partition(" ")
        for player in self.players.values():
            rest = re.sub(rf"(?<![\w#]){re.escape(player.nick)}(?![\w])", f"seat {player.seat}", rest, flags=re.I)
        return first + sep + rest

    def named(self, line: str) -> str:
        """A line with each seated player's nick for his seat."""
        return SEAT_RE.sub(lambda m: self.nick_of(int(m[1])), line)

    def to_record(self) -> TableRecord:
        return TableRecord(self.channel, self.match_id, self.game, self.seats, self.shown,
                           [p.record for _, p in sorted(self.players.items())], sorted(self.abandon_votes),
                           {str(s): kind for s, kind in sorted(self.bots.items())})


def bot_name(seat: int) -> str:
    """How the channel names a seat the service's bots play."""
    return f"bot{seat}"


class Tables:
    def __init__(self, client: GameClient, timeout_s: float = 30.0, store: TableStore | None = None,
                 board_every_s: float = BOARD_EVERY_S, clock: Callable[[], float] = time.monotonic,
                 abandon_idle_s: float = ABANDON_IDLE_S, now_ms: Callable[[], int] = clocks.wall_ms,
                 idle_remind_s: float = IDLE_REMIND_S, colour: bool = False) -> None:
        """``clock``: monotonic seconds (cooldowns, votes, when a reminder expires); ``now_ms``: this machine's
        time in ms since the epoch, used for the match clocks only where a view record has no ``server_ms``.
        ``idle_remind_s``: remind a player to move after this long (0: never); ``colour``: nicks in mIRC colours."""
        self.client = client
        self.timeout_s = timeout_s
        self.store = store
        self.clock = clock
        self.abandon_idle_s = abandon_idle_s
        self.now_ms = now_ms
        self.idle_remind_s = idle_remind_s
        self.colour = colour
        self.me = "airship"  # the bridge's nick (the bridge sets it on connecting): "/msg <me> ..." for secrets
        self.tables: dict[str, Table] = {}  # by channel, lower case
        self._boards = Cooldowns(board_every_s, clock)
        self._notices = Cooldowns(board_every_s, clock)  # one "not so often" notice per nick per period
        self._failed_claims: dict[str, float] = {}  # sender -> when his last wrong claim code came
        self._lock = threading.RLock()  # what people write, and the tables they change (the reader)
        self._store_lock = threading.Lock()
        self._votes_cast_at: dict[str, float] = {}  # local votes (embedded service): table -> first vote time
        if store is not None:
            self._restore(store)

    # -- durability ------------------------------------------------------------------------------
    def _restore(self, store: TableStore) -> None:
        for saved in store.load():
            table = Table(saved.channel, saved.match_id, saved.game, saved.seats, get_adapter(saved.game),
                          shown=saved.shown, abandon_votes=set(saved.abandon_votes),
                          bots={int(s): kind for s, kind in saved.bots.items() if s.isdigit()})
            try:
                if self.client.match(saved.match_id).abandoned:
                    continue
            except (NotFound, BadOptions):  # the service forgot the match (an embedded one restarted)
                log.warning("table not restored: no such match", channel=saved.channel, match_id=saved.match_id)
                continue
            except (GatewayError, ConnectionError, Timeout) as e:  # unreachable now: keep the table, try later
                log.warning("match not checked", channel=saved.channel, match_id=saved.match_id, error=str(e))
            for record in saved.players:
                table.players[record.seat] = Player(record, self._session(table, record), False, False)
            for player in table.players.values():
                player.session.reprompt(AWAY_NOTE)
            table.returned = True
            self.tables[table.key] = table
        log.info("tables restored", tables=len(self.tables))

    def _save(self) -> None:
        if self.store is None:
            return
        with self._store_lock:  # a leaf lock: the poster saves without the tables' lock
            try:
                self.store.save([t.to_record() for t in list(self.tables.values()) if not t.finished])
            except StoreError as e:  # the game goes on; the operators see why a restart would lose it
                log.error("table store not saved", error=str(e))

    def _session(self, table: Table, record: SeatRecord) -> ChatSession:
        return ChatSession(self.client, table.match_id, record.seat, record.token, table.adapter, self.timeout_s,
                           feed="private", names=table.nick_of, greeting=False, game=table.game, seats=table.seats,
                           now_ms=self.now_ms, private_to=lambda: f"/msg {self.me}")

    # -- people come and go ----------------------------------------------------------------------
    def on_join(self, channel: str, sender: Sender) -> list[Line]:
        """Someone joined a channel (or was found there after the bridge connected)."""
        with self._lock:
            table = self.tables.get(channel.lower())
            if table is None or table.finished:
                return []
            player = table.player_of(sender)
            if player is not None:
                back = not player.in_channel
                player.in_channel = True
                self._learn(player, sender)
                return [self._line(table, table.channel, f"{player.nick} is back.")] if back and table.full else []
            waiting = [p for p in table.players.values() if p.record.away and same_nick(p.nick, sender.nick)]
            if waiting:
                return [Line(sender.nick, f"{sender.nick}: a seat at {table.channel} waits for its player. If that "
                                          f"is you, write 'claim <code>' to me with the code I gave you when you "
                                          f"sat down.", table.key)]
            if self._notices.wait_s(f"greet:{sender.nick.lower()}:{table.key}") > 0:
                return []  # greeted a moment ago: a join/part loop gets one line a period
            free = table.seats - len(table.players)
            state = (f"{free} of {table.seats} seats free: '!join' takes one" if free
                     else f"the match is on ({', '.join(p.nick for _, p in sorted(table.players.items()))}): "
                          f"'!board' shows it")
            return [Line(sender.nick, f"Welcome to {table.channel}: a match of {table.game}, {state}; '!help' for "
                                      f"the rest.", table.key)]

    def on_seen(self, channel: str, sender: Sender) -> None:
        """The bridge (re)connected and found ``sender`` in ``channel`` (a WHO reply): no announcement."""
        with self._lock:
            table = self.tables.get(channel.lower())
            player = table.player_of(sender) if table else None
            if player is not None:
                player.in_channel = True
                self._learn(player, sender)

    def on_part(self, channel: str, sender: Sender) -> list[Line]:
        with self._lock:
            table = self.tables.get(channel.lower())
            player = table.player_of(sender) if table else None
            if table is None or player is None or table.finished:
                return []
            player.in_channel = False
            return [self._line(table, table.channel, f"{player.nick} left {table.channel}; the seat is kept, and "
                                                     f"commands to me privately still play it.")]

    def on_quit(self, sender: Sender, reason: str = "") -> list[Line]:
        """A seated player left IRC: his seat waits for his account, for him as he was (the same nick and
        user@host, for :data:`RECONNECT_S`), or his claim code. A QUIT the network caused (a netsplit, the server
        going down) keeps the seat as it is."""
        with self._lock:
            out: list[Line] = []
            cut_off = network_quit(reason)
            for table in self.tables.values():
                player = table.player_of(sender)
                if player is None or table.finished:
                    continue
                player.in_channel = player.present = False
                if cut_off:
                    out.append(self._line(table, table.channel, f"{player.nick} was cut off by the network; the "
                                                                f"seat is kept."))
                    continue
                if player.record.account is None:
                    player.record.away, player.record.away_since = True, time.time()
                out.append(self._line(table, table.channel, f"{player.nick} left IRC; the seat waits for "
                                                            f"{player.nick} to come back."))
            if out:
                self._save()
            return out

    def on_nick(self, sender: Sender, new: str) -> list[Line]:
        """A seated player changed nick: the seat follows."""
        with self._lock:
            out: list[Line] = []
            for table in self.tables.values():
                player = table.player_of(sender)
                if player is not None:
                    player.record.nick = new
                    out.append(self._line(table, table.channel, f"{sender.nick} is now {new}, still seated."))
            if out:
                self._save()
            return out

    def on_reconnect(self, first: bool = False) -> None:
        """The bridge's connection is new: everyone is prompted again once seen (the last prompt may be lost), and
        unless it is the bridge's first connection, whoever is to move hears that what he wrote meanwhile was missed
        (IRC keeps no history for the bridge to read back)."""
        with self._lock:
            for table in self.tables.values():
                for player in table.players.values():
                    player.in_channel = player.present = False
                    if not first:
                        player.session.reprompt(AWAY_NOTE)
                table.returned = table.returned or not first

    def channels(self) -> list[str]:
        with self._lock:
            return [t.channel for t in self.tables.values()]

    def _back_line(self, table: Table, record: ViewRecord) -> list[Line]:
        """Once after the bridge came back: the players to move, nick first, that a move written meanwhile was
        missed."""
        table.returned = False
        to_act = [s for s in record.to_act if s in table.players]
        if not to_act or record.finished:
            return []
        nicks = ", ".join(table.nick_of(s) for s in to_act)
        return [Line(table.channel, f"{nicks}: I was away for a moment and heard nothing meanwhile; if you wrote your "
                                    f"move then, write it again.", table.key, whole=True)]

    def _learn(self, player: Player, sender: Sender) -> None:
        """The player is on IRC now (prompted again if he was not known to be); keep the user@host he is seen
        with, for the store."""
        if not player.present:
            player.present = True
            player.session.reprompt()
        changed = False
        if player.record.away:  # back as he left (is_seated): the seat is his again
            player.record.away, player.record.away_since, changed = False, 0.0, True
        if sender.userhost and player.record.userhost != sender.userhost and player.record.account is None:
            player.record.userhost, changed = sender.userhost, True
        if changed:
            self._save()

    # -- input -----------------------------------------------------------------------------------
    def on_channel(self, channel: str, sender: Sender | str, text: str) -> list[Line]:
        sender = sender if isinstance(sender, Sender) else Sender(sender)
        text = text.strip()
        with self._lock:
            if text.startswith("!"):
                return self._table_command(channel, sender, text[1:])
            table = self.tables.get(channel.lower())
            if table is None or not text:
                return []
            player = table.player_of(sender)
            if player is None:
                return self._stranger(table, sender, text)
            self._learn(player, sender)
            kind = self._command_kind(table, player, text)
            if kind is None:
                return []  # people talking
            return self._play(table, player, text, private=False)

    def on_private(self, sender: Sender | str, text: str) -> list[Line]:
        sender = sender if isinstance(sender, Sender) else Sender(sender)
        text = text.strip()
        with self._lock:
            if text.startswith("!"):
                return [Line(sender.nick, line) for line in ["Table commands ('!new', '!join'...) work in a channel.",
                                                             *TABLE_HELP]]
            words = text.split()
            if words and words[0].lower() == "claim":
                return self._claim(sender, " ".join(words[1:]))
            seated = [(t, p) for t in self.tables.values() if not t.finished and (p := t.player_of(sender))]
            if text.startswith(("#", "&")):  # "#table bid 5" picks the table
                name, _, text = text.partition(" ")
                seated = [(t, p) for t, p in seated if t.key == name.lower()]
                if not seated:
                    return [Line(sender.nick, f"You have no seat at {name}. If you sat there before, write 'claim "
                                              f"<code>' to me with the code I gave you; else '!join' in {name}.")]
                if not text.strip():
                    return [Line(sender.nick, f"Write a command after the table, like '{name} help'.")]
            if not seated:
                return [Line(sender.nick, self._no_seat_text(sender))]
            if len(seated) > 1:
                acting = [(t, p) for t, p in seated if p.session.legal]
                if len(acting) != 1:
                    names = " and ".join(t.channel for t, _ in seated)
                    return [Line(sender.nick, f"You sit at {names}; start with the table, like "
                                              f"'{seated[0][0].channel} {text.split()[0] if text else 'help'}'.")]
                seated = acting
            table, player = seated[0]
            self._learn(player, sender)
            return self._play(table, player, text, private=True)

    def _stranger(self, table: Table, sender: Sender, text: str) -> list[Line]:
        """A line in the channel from someone without a seat: talk, unless he has the nick of an away player
        and writes a command (somebody else with that nick, or the player back without his code)."""
        away = [p for p in table.players.values() if p.record.away and same_nick(p.nick, sender.nick)]
        if not away or self._command_kind(table, away[0], text) is None:
            return []
        return [Line(sender.nick, self._no_seat_text(sender), table.key, urgent=True)]

    def _no_seat_text(self, sender: Sender) -> str:
        waiting = [t.channel for t in self.tables.values() if not t.finished
                   for p in t.players.values() if p.record.away and same_nick(p.nick, sender.nick)]
        if waiting:
            return (f"The seat of {sender.nick} at {', '.join(waiting)} waits for the player who left IRC. If that "
                    f"is you, write 'claim <code>' to me with the code I gave you when you sat down.")
        return ("You have no seat. If you had one, write 'claim <code>' to me with the code I gave you when you sat "
                "down; else join a match in its channel with '!join' ('!help' there).")

    def _claim(self, sender: Sender, code: str) -> list[Line]:
        tried = f"claim:{(sender.userhost or sender.nick).lower()}"  # a wrong code slows its own sender down
        if self.clock() - self._failed_claims.get(tried, float("-inf")) < CLAIM_EVERY_S:
            return [Line(sender.nick, f"Too many tries; wait {CLAIM_EVERY_S:g} s before the next claim.")]
        out: list[Line] = []
        for table in self.tables.values():
            for player in table.players.values():
                if table.finished or not code or not claim_matches(player.record, code):
                    continue
                old = player.nick
                record = player.record
                record.nick, record.userhost, record.account, record.away = (sender.nick, sender.userhost,
                                                                             sender.account, False)
                player.in_channel = player.present = True
                player.session.reprompt()
                out.append(self._line(table, sender.nick, f"Welcome back: you sit at {table.channel} again.",
                                      urgent=True))
                renamed = f" (was {old})" if not same_nick(old, sender.nick) else ""
                out.append(self._line(table, table.channel, f"{sender.nick}{renamed} is back in the seat."))
        if not out:
            if len(self._failed_claims) > MAX_FAILED_CLAIMS:
                self._failed_claims.clear()
            self._failed_claims[tried] = self.clock()
            return [Line(sender.nick, "That is no claim code of a seat I keep. Write 'claim <code>' with the code I "
                                      "gave you privately when you took the seat.")]
        self._save()
        return out

    def _command_kind(self, table: Table, player: Player, text: str) -> str | None:
        """``"command"`` for a line that starts like a command, ``"near"`` for a short line that nearly does (a
        typo: answered privately), None for talk."""
        words = text.lower().split()
        if not words:
            return None
        known = {c["type"].lower() for p in table.players.values() for c in p.session.legal}
        known |= set(getattr(table.adapter, "command_words", ()))
        if words[0] in known | SESSION_WORDS or (words[0].isascii() and words[0].isdigit() and len(words) == 1):
            return "command"
        if len(words) <= MAX_TALK_WORDS and near_misses(words[0], sorted(known)):
            return "near"
        return None

    def _play(self, table: Table, player: Player, text: str, private: bool) -> list[Line]:
        if not table.full:
            return [self._line(table, player.nick, f"The match has not begun: waiting for "
                                                   f"{table.seats - len(table.players)} more player(s) to '!join' "
                                                   f"in {table.channel}.", urgent=True)]
        if table.finished:
            return [self._line(table, player.nick, f"The match at {table.channel} is over.", urgent=True)]
        if not text.split():
            return []
        word = text.split()[0].lower()
        if word in {"board", "view"} and (wait := self._boards.wait_s(f"board:{player.nick.lower()}")) > 0:
            return self._not_so_often(table, player.nick, f"You saw the board {self._boards.period_s - wait:.0f} s "
                                                          f"ago; ask again in {wait:.0f} s.")
        answer = player.session.answer(table.seats_for_nicks(text), public=not private)
        if answer.secret:  # a secret choice written in the channel: refused there, nothing of it repeated
            return [Line(table.channel, f"{player.nick}: {x}", table.key, urgent=True) for x in answer.lines]
        lines = answer.lines
        if word in HELP_WORDS and self._tables_of(player.nick) > 1:
            lines = [*lines, f"You sit at more than one table: start a private command with the table, like "
                             f"'{table.channel} {word}'."]
        if answer.accepted and not private:
            lines = [x for x in lines if not x.startswith("OK: ")]  # the channel shows the move
        return [self._line(table, player.nick, x, urgent=True) for x in lines]

    def _not_so_often(self, table: Table, nick: str, text: str) -> list[Line]:
        if self._notices.wait_s(f"notice:{nick.lower()}") > 0:
            return []  # told once already: a flood gets no more lines
        return [self._line(table, nick, text)]

    def _line(self, table: Table, target: str, text: str, urgent: bool = False) -> Line:
        """A line of ``table``: to a player, tagged with the table when he sits at more than one."""
        if not target.startswith(("#", "&")) and self._tables_of(target) > 1:
            text = f"[{table.channel}] {text}"
        return Line(target, text, table.key, urgent)

    def _tables_of(self, nick: str) -> int:
        return sum(1 for t in list(self.tables.values()) if not t.finished
                   and any(same_nick(p.nick, nick) for p in list(t.players.values())))

    # -- table commands --------------------------------------------------------------------------
    def _table_command(self, channel: str, sender: Sender, text: str) -> list[Line]:
        word, _, rest = text.strip().partition(" ")
        handlers: dict[str, Callable[[str, Sender, list[str]], list[Line]]] = {
            "new": self._new, "join": self._join, "seats": self._seats, "who": self._seats, "board": self._board,
            "games": self._games, "abandon": self._abandon, "help": self._help,
            "bots": lambda c, s, a: table_bots.bots_command(self, c, s, a),
            "top": lambda c, s, a: table_extras.top_command(self, c, s, a)}
        handler = handlers.get(word.lower())
        key = channel.lower()
        if handler is None:
            close = near_misses(word, sorted(handlers))
            hint = f" Did you mean {' or '.join('!' + c for c in close)}?" if close else " '!help' lists them."
            return [Line(channel, f"{sender.nick}: I do not know '!{quoted(word)}'.{hint}", key)]
        try:
            return handler(channel, sender, rest.split())
        except Rejected as e:
            return [Line(channel, f"{sender.nick}: {e.reason}", key)]
        except (Timeout, ConnectionError):
            return [Line(channel, f"{sender.nick}: the game service did not answer in time; try again later.", key)]
        except GatewayError as e:  # through a gateway: an unknown game, a taken seat...
            return [Line(channel, f"{sender.nick}: {e}", key)]

    def _help(self, channel: str, sender: Sender, args: list[str]) -> list[Line]:
        return [Line(channel, line, channel.lower()) for line in TABLE_HELP]

    def _games(self, channel: str, sender: Sender, args: list[str]) -> list[Line]:
        games = ", ".join(f"{name} ({g.min_seats}-{g.max_seats} players)" for name, g in sorted(GAMES.items()))
        return [Line(channel, f"Games: {games}. Start one with '!new <game> <players>'.", channel.lower())]

    def _new(self, channel: str, sender: Sender, args: list[str]) -> list[Line]:
        key, nick = channel.lower(), sender.nick
        current = self.tables.get(key)
        if current is not None and not current.finished:
            return [Line(channel, f"{nick}: a match is on here ({current.game}); '!abandon' votes to end it.", key)]
        control: TimeControl | None = None
        rest: list[str] = []
        for i, arg in enumerate(args):  # a clock (30s, 5m+5s, clock=30s) may come anywhere after the game
            name, sep, raw = arg.partition("=")
            if i and (clocks.looks_like_clock(arg) or (sep and name.lower() == "clock")):
                if control is not None:
                    return [Line(channel, f"{nick}: give one clock, not two.", key)]
                parsed = clocks.parse_clock(raw if sep else arg)
                if isinstance(parsed, str):
                    return [Line(channel, f"{nick}: {parsed}.", key)]
                control = parsed
            else:
                rest.append(arg)
        args = rest
        count = next((i for i, a in enumerate(args) if a.isascii() and a.isdigit()), None)
        if not count:  # (none, or no game before it)
            return [Line(channel, f"{nick}: write '!new <game> <players> [option=value ...]'; '!games' lists the "
                                  f"games.", key)]
        game, seats = "-".join(args[:count]).lower(), int(args[count][:3])  # "moderne zeiten" is moderne-zeiten
        args = [game, *args[count:]]
        if game not in GAMES:
            close = near_misses(game, sorted(GAMES))
            hint = f" Did you mean {' or '.join(close)}?" if close else " '!games' lists them."
            return [Line(channel, f"{nick}: I do not know the game '{quoted(game)}'.{hint}", key)]
        options: dict[str, object] = {}
        seed: int | None = None
        for arg in args[2:]:
            name, sep, raw = arg.partition("=")
            if not sep or not name or not raw:
                return [Line(channel, f"{nick}: options look like name=value, not '{quoted(arg)}'; a clock looks "
                                      f"like 30s or 5m+5s.", key)]
            try:
                value = read_plain(raw, Shape())
            except ChatFormError as e:
                return [Line(channel, f"{nick}: option {name}: {e}.", key)]
            if name == "seed" and isinstance(value, int) and not isinstance(value, bool):
                seed = value
            else:
                options[name] = value
        clocked = control is not None and control.clocked
        wire = clocks.clock_wire(control) if control is not None and clocked else None
        meta = (self.client.create_match(game, seats, options, seed=seed, clock=wire) if wire is not None
                else self.client.create_match(game, seats, options, seed=seed))
        version = self.client.match(meta.match_id).version
        self.tables[key] = Table(channel, meta.match_id, game, seats, get_adapter(game), shown=version)
        self._save()
        timed = f", {clocks.control_text(control)}" if control is not None and clocked else ""
        return [Line(channel, f"New match of {game} for {seats} players{timed}. Write '!join' to take a seat "
                              f"(0/{seats}).", key)]

    def _join(self, channel: str, sender: Sender, args: list[str]) -> list[Line]:
        key, nick = channel.lower(), sender.nick
        table = self.tables.get(key)
        if table is None or table.finished:
            return [Line(channel, f"{nick}: no match is open here; start one with '!new <game> <players>'.", key)]
        mine = table.player_of(sender)
        if mine is not None:
            return [Line(channel, f"{nick}: you already sit here (seat {mine.seat}).", key)]
        if any(same_nick(p.nick, nick) for p in table.players.values()):
            return [Line(nick, self._no_seat_text(sender), key)]
        if table.full:
            return [Line(channel, f"{nick}: every seat is taken.", key)]
        wanted: int | None = None
        if args:
            if not (args[0].isascii() and args[0].isdigit()):
                return [Line(channel, f"{nick}: write '!join' or '!join <seat>' (seats 0 to {table.seats - 1}).",
                             key)]
            wanted = int(args[0][:3])
            if not 0 <= wanted < table.seats:
                return [Line(channel, f"{nick}: there are seats 0 to {table.seats - 1}.", key)]
        seat, token = self.client.join(table.match_id, wanted)
        code = new_claim_code()
        record = SeatRecord(seat, token, nick, sender.userhost, sender.account, claim_hash(code))
        table.players[seat] = Player(record, self._session(table, record))
        self._save()
        out = [Line(channel, f"{nick} takes seat {seat} ({len(table.players)}/{table.seats}).", key),
               self._line(table, nick, f"You sit in seat {seat} at {table.channel} ({table.game}). Your claim code is "
                                       f"{code}: keep it. If you leave IRC, write 'claim {code}' to me to sit again.",
                          urgent=True)]
        if table.full:
            seated = ", ".join(table.nick_of(s) for s in sorted(table.players))
            out.append(Line(channel, f"All seats taken: {seated}. The match begins! Whoever is to move hears it "
                                     f"from me privately; write your commands here or to me.", key))
            out += self._board_lines(table)
        return out

    def _seats(self, channel: str, sender: Sender, args: list[str]) -> list[Line]:
        key = channel.lower()
        table = self.tables.get(key)
        if table is None:
            return [Line(channel, "No match here. '!new <game> <players>' starts one.", key)]
        seats = ", ".join(f"{table.who(s)} (seat {s})" if s in table.players else
                          f"{table.who(s)} (seat {s}, {table.bots[s]})" if s in table.bots else f"seat {s} free"
                          for s in range(table.seats))
        state = "over" if table.finished else ("on" if table.full else "waiting for players")
        out = [Line(channel, f"{table.game} (match {table.match_id}, {state}): {seats}.", key)]
        if not table.finished:
            clock = clocks.clocks_line(self.client.view(table.match_id, "public"), table.who, self.now_ms)
            out += [Line(channel, clock, key)] if clock else []
        return out

    def _board(self, channel: str, sender: Sender, args: list[str]) -> list[Line]:
        key = channel.lower()
        table = self.tables.get(key)
        if table is None:
            return [Line(channel, "No board to show here yet.", key)]
        wait = self._boards.wait_s(f"!board:{key}", f"!board:{sender.nick.lower()}")
        if wait > 0:
            return self._not_so_often(table, sender.nick, f"The board was shown in {table.channel} moments ago; "
                                                          f"ask again in {wait:.0f} s.")
        lines = self._board_lines(table)
        return lines or [Line(channel, "No board to show here yet.", key)]

    def _board_lines(self, table: Table) -> list[Line]:
        record = self.client.view(table.match_id, "public")
        if record is None:
            return []
        clock = clocks.clocks_line(record, table.who, self.now_ms)
        return [Line(table.channel, table.named(line), table.key, whole=True)
                for line in [*table.adapter.render_view(record.view), *([clock] if clock else [])]]

    def _abandon(self, channel: str, sender: Sender, args: list[str]) -> list[Line]:
        key, nick = channel.lower(), sender.nick
        table = self.tables.get(key)
        if table is None:
            return [Line(channel, "No match here.", key)]
        player = table.player_of(sender)
        waiting_bots = table_bots.waiting_for_bots(self, table)
        if table.finished or ((not table.full or waiting_bots) and (player is not None or not table.players)):
            del self.tables[key]  # an open table (or one over): whoever sits there, or anyone if nobody does
            self._save()
            return [Line(channel, "The table is cleared. '!new' starts another match.", key)]
        if player is None:
            return [Line(channel, f"{nick}: only a seated player may vote to end the match.", key)]
        with table.lock:
            table.abandon_votes.add(player.seat)
            self._save()
            return self._judge_abandon(table, voter=player)

    def _judge_abandon(self, table: Table, voter: Player | None) -> list[Line]:
        """Put the vote to the service (a gateway judges it); the embedded service has no vote: judge it here."""
        table.last_vote_s = self.clock()
        vote: Callable[[str, str], Any] | None = getattr(self.client, "abandon", None)
        if vote is not None:  # the voter's vote, or (judging again) one already cast: the service keeps its time
            seat = voter.seat if voter is not None else min(table.abandon_votes)
            answer = vote(table.match_id, table.players[seat].token)
            table.abandon_votes = set(answer.votes)
            abandoned, waiting = bool(answer.abandoned), list(answer.waiting_for)
        else:
            record = self.client.view(table.match_id, "public")
            to_act = list(record.to_act) if record else []
            first = self._votes_cast_at.setdefault(table.key, self.clock())
            idle = self.clock() - first
            abandoned = abandon_agreed(table.seats, to_act, table.abandon_votes, idle, self.abandon_idle_s)
            waiting = abandon_waiting_for(table.seats, to_act, table.abandon_votes, idle, self.abandon_idle_s)
        if abandoned:
            return self._end_abandoned(table)
        self._save()
        if voter is None:
            return []
        agree = ", ".join(table.nick_of(s) for s in sorted(table.abandon_votes))
        missing = ", ".join(table.nick_of(s) for s in waiting)
        return [Line(table.channel, f"{voter.nick} votes to end the match early ({agree} agree). It ends when "
                                    f"{missing} agree{'s' if len(waiting) == 1 else ''} with '!abandon'; if the "
                                    f"players to move stay silent for {self.abandon_idle_s / 60:g} minutes, the "
                                    f"others' votes suffice. A move voids the votes.", table.key)]

    def _end_abandoned(self, table: Table) -> list[Line]:
        table.finished = True
        self._votes_cast_at.pop(table.key, None)
        self._save()
        return [Line(table.channel, "The match is abandoned by its players' agreement: it ends without a winner. "
                                    "'!new' starts another.", table.key)]

    # -- output ----------------------------------------------------------------------------------
    def poll(self) -> list[Line]:
        """What happened since the last poll, table by table: the prompt of whoever is to act first, then the
        events and who is next to the channel, then each other player's private news. Runs without the lock of
        what people write (it asks the service a lot): each table has a lock of its own."""
        out: list[Line] = []
        for table in list(self.tables.values()):
            with table.lock:
                if table.full and not table.finished:
                    try:
                        out += table_bots.late_bots(self, table)
                        out += self._news(table)
                    except (Rejected, GatewayError, ConnectionError, Timeout) as e:
                        log.warning("table news failed", channel=table.channel, error=str(e))
        return [replace(line, keep=True) for line in out]  # the match's lines: never dropped for room

    def _news(self, table: Table) -> list[Line]:
        record = self.client.view(table.match_id, "public")
        if record is None:
            return []
        if table.abandon_votes and self.clock() - table.last_vote_s >= REVOTE_EVERY_S:
            if record.version > table.shown:  # a move voids the votes
                table.abandon_votes.clear()
                self._votes_cast_at.pop(table.key, None)
            else:
                ended = self._judge_abandon(table, voter=None)
                if table.finished:
                    return ended
        moved = record.version > table.shown
        reminders = self._reminders(table, record)
        if table.returned:
            reminders = [*self._back_line(table, record), *reminders]
        reminders += table_extras.idle_reminders(self, table, record)
        if not moved and not any(p.session.wants_prompt and p.present for p in table.players.values()):
            return reminders
        channel = self._public_news(table, record) if moved else []
        prompts: list[Line] = []
        private: list[Line] = []
        for _, player in sorted(table.players.items()):
            if player.record.away or not player.present:  # told when he is back (the session keeps its place)
                continue
            news = player.session.news(record)
            if news.prompt:  # the player to act: his news and prompt before anything else of the table
                prompts += [self._line(table, player.nick, x, urgent=True) for x in news.all()]
            else:
                private += [self._line(table, player.nick, x) for x in news.lines]
        if moved and table.abandon_votes:
            table.abandon_votes.clear()
            self._votes_cast_at.pop(table.key, None)
        if moved:
            self._save()
        return [*prompts, *reminders, *channel, *private]

    def _reminders(self, table: Table, record: ViewRecord) -> list[Line]:
        """A private reminder to each seat to act whose time is running short, once a decision (a decision that
        starts short already is not: its prompt and turn line say the time). Each expires at its deadline."""
        clock = clocks.clock_of(record)
        if clock is None or not clock.started or record.finished:
            return []
        now = clocks.server_now(record, self.now_ms)
        out: list[Line] = []
        for entry in clock.seats:
            seat, deadline = entry.seat, entry.deadline_ms
            threshold = clocks.reminder_threshold_ms(clock, seat)
            if deadline is None or threshold is None:
                continue
            ms = deadline - now
            first_sight = table.clock_seen.get(seat) != deadline
            table.clock_seen[seat] = deadline
            if table.reminded.get(seat) == deadline or ms > threshold:
                continue
            table.reminded[seat] = deadline  # once a decision, whether told now or not
            player = table.players.get(seat)
            if first_sight or ms < clocks.MIN_REMIND_MS or player is None or not player.present \
                    or player.record.away:
                continue
            where = "" if self._tables_of(player.nick) > 1 else table.channel  # (else the line starts with it)
            line = self._line(table, player.nick, clocks.reminder_text(clock, seat, ms, where), urgent=True)
            out.append(Line(line.target, line.text, line.table, line.urgent, expires=self.clock() + ms / 1000))
        return out

    def _public_news(self, table: Table, record: ViewRecord) -> list[Line]:
        # A running match's log is read with a seated player's token (a gateway shows it to seats only);
        # what the channel gets is its public part.
        token = next(iter(list(table.players.values()))).token
        events = self.client.log(table.match_id, token, after_version=table.shown).events
        control = record.clock.control if record.clock is not None else None
        lines = [table.named(line) for e in events[: record.version - table.shown]
                 if (line := (clocks.event_text(e, table.nick_of, control) if clocks.is_clock_event(e)
                              else table.adapter.render_event(e.for_seat(None))))]
        table.shown = record.version
        if record.finished:
            table.finished = True
            lines = [x for x in lines if not GAME_OVER_RE.match(x)]  # one game-over line, ours
            lines.append(f"The match is over. {self._outcome(table, record.outcome, control)}")
            return [Line(table.channel, x, table.key) for x in lines]
        to_act = tuple(record.to_act)
        out = [Line(table.channel, table_extras.coloured(table, x) if self.colour else x, table.key) for x in lines]
        if to_act and to_act != table.announced_to_act:  # nick first, a line of its own: clients highlight it
            out.append(Line(table.channel, self._turn_text(table, record, list(to_act)), table.key, whole=True))
        table.announced_to_act = to_act
        return out

    def _turn_text(self, table: Table, record: ViewRecord, to_act: list[int]) -> str:
        """``ann: your move.``, with a clock ``ann: your move — 20 s left.`` (``ann (20 s), bob (1:35): your
        move.`` when the seats to act have different times left)."""
        times = clocks.times_left(record, to_act, self.now_ms)
        if times and len(set(times.values())) > 1:
            return f"{', '.join(f'{table.who(s)} ({times[s]})' if s in times else table.who(s) for s in to_act)}: " \
                   f"your move."
        shown = f" — {next(iter(times.values()))} left" if times else ""
        return f"{', '.join(table.who(s) for s in to_act)}: your move{shown}."

    @staticmethod
    def _outcome(table: Table, outcome: object, control: TimeControl | None = None) -> str:
        if not isinstance(outcome, dict):
            return ""
        if clocks.is_forfeit(outcome):
            return clocks.forfeit_text(outcome, table.nick_of, control)
        if is_abandoned(outcome):
            if (outcome.get("detail") or {}).get("rule") == EXPIRED:
                return "Ended by the service: nobody moved in it for too long. Nobody won."
            return "Abandoned by its players' agreement: nobody won."
        winners = outcome.get("winners") or []
        scores = outcome.get("scores") or []
        won = f"Won by {' and '.join(table.nick_of(w) for w in winners)}." if winners else "Nobody won."
        return f"{won} Scores: {', '.join(f'{table.nick_of(s)} {p}' for s, p in enumerate(scores))}."


"""The core of the IRC bridge's tables (:class:`~.tables.Tables` is this, its table commands
(:mod:`.table_commands`) and what it tells (:mod:`.table_news`)): the state, durability, people coming and
going, and what people write."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

from schemas.gateway import ABANDON_IDLE_S
from services.chat import clocks
from services.chat.adapter import get_adapter
from services.chat.irc.outbox import Cooldowns, Line
from services.chat.irc.seats import (
    Sender,
    claim_matches,
    network_quit,
    same_nick,
)
from services.chat.irc.store import SeatRecord, StoreError, TableStore
from services.chat.irc.table import Player, Table
from services.chat.session import HELP_WORDS, SESSION_WORDS, ChatSession, near_misses
from services.client.errors import GatewayError, NotFound
from services.client.protocol import GameClient
from services.games.errors import BadOptions
from services.logs import get_logger
from services.pipeline.direct import Timeout

log = get_logger("irc")
BOARD_EVERY_S = 30.0
CLAIM_EVERY_S = 2.0  # after a wrong claim code, the next try from that user@host waits 2 s: guessing takes ages
MAX_FAILED_CLAIMS = 10_000
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


class TablesCore:
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
            table.returned = table.full  # a match on: whoever is to move hears that the bridge was away
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
                table.returned = table.returned or (not first and table.full and not table.finished)

    def channels(self) -> list[str]:
        with self._lock:
            return [t.channel for t in self.tables.values()]

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

    def _table_command(self, channel: str, sender: Sender, text: str) -> list[Line]:
        """A ``!command`` in a channel (:class:`~.table_commands.TableCommands`)."""
        raise NotImplementedError

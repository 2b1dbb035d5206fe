"""What the IRC bridge does with what people write, and what it tells them; no sockets here.

A channel is a match table. In the channel: ``!new <game> <players> [name=value ...]`` sets a match up,
``!join [seat]`` takes a seat for the writer's nick (the seat credential stays in the bridge's memory and is
never shown), ``!seats``, ``!board``, ``!games``, ``!abandon`` and ``!help``. Once every seat is taken the
match begins: public events and whose turn it is go to the channel; each seat gets its private view by
private message when something secret reaches it and when it must act (with what is legal now). A seated
player plays by writing a command in the channel (``bid 5``) or to the bridge privately; anything that is
not a legal command gets a private reply saying why and what is legal now.

Every method returns the lines to send as ``(target, text)`` pairs; one lock keeps the tables consistent
between the thread reading IRC and the thread posting updates.
"""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass, field

from services.chat.adapter import ChatAdapter, get_adapter
from services.chat.chatform import ChatFormError, Shape, read_plain
from services.chat.session import BOARD_WORDS, HELP_WORDS, MOVES_WORDS, ChatSession
from services.client.errors import GatewayError
from services.client.protocol import GameClient
from services.games import GAMES
from services.games.errors import Rejected
from services.pipeline.client import Timeout

Reply = tuple[str, str]  # (target: a channel or a nick, text)
SEAT_RE = re.compile(r"\bseat (\d+)\b")

TABLE_HELP = ("Tables: '!new <game> <players> [option=value ...]' sets up a match here, '!join [seat]' takes a seat, "
              "'!seats' shows who sits where, '!board' the board, '!games' the games, '!abandon' ends the match "
              "here. Seated players play by writing commands here or to me privately, e.g. 'bid 5' or 'take 2'; "
              "'help' and 'moves' (privately) say more.")


@dataclass
class Player:
    nick: str
    seat: int
    session: ChatSession


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

    @property
    def full(self) -> bool:
        return len(self.players) == self.seats

    def seat_of(self, nick: str) -> Player | None:
        return next((p for p in self.players.values() if p.nick.lower() == nick.lower()), None)

    def who(self, seat: int) -> str:
        player = self.players.get(seat)
        return f"{player.nick} (seat {seat})" if player else f"seat {seat}"

    def seats_for_nicks(self, text: str) -> str:
        """A player's line with the seated players' nicks after its first word as seats (``offer bob: ...`` reads
        ``offer seat 1: ...``), so commands may name players by nick."""
        first, sep, rest = text.partition(" ")
        for player in self.players.values():
            rest = re.sub(rf"(?<![\w#]){re.escape(player.nick)}(?![\w])", f"seat {player.seat}", rest, flags=re.I)
        return first + sep + rest

    def named(self, line: str) -> str:
        """A line for the channel, with each seated player's nick beside the seat."""
        return SEAT_RE.sub(lambda m: self.who(int(m[1])) if int(m[1]) in self.players else m[0], line)


class Tables:
    def __init__(self, client: GameClient, timeout_s: float = 30.0) -> None:
        self.client = client
        self.timeout_s = timeout_s
        self.tables: dict[str, Table] = {}  # by channel, lower case
        self._last_table: dict[str, str] = {}  # nick (lower case) -> the channel it last played in
        self._lock = threading.RLock()

    # -- input -----------------------------------------------------------------------------------
    def on_channel(self, channel: str, nick: str, text: str) -> list[Reply]:
        text = text.strip()
        with self._lock:
            if text.startswith("!"):
                return self._table_command(channel, nick, text[1:])
            table = self.tables.get(channel.lower())
            player = table.seat_of(nick) if table else None
            if table is None or player is None or not self._looks_like_command(table, player, text):
                return []  # people talking
            return self._play(table, player, text)

    def on_private(self, nick: str, text: str) -> list[Reply]:
        text = text.strip()
        with self._lock:
            if text.startswith("!"):
                return [(nick, "Table commands ('!new', '!join'...) work in a channel. " + TABLE_HELP)]
            seated = [(t, p) for t in self.tables.values() if (p := t.seat_of(nick)) is not None]
            if text.startswith(("#", "&")) and " " in text:  # "#table bid 5" picks the table
                name, _, text = text.partition(" ")
                seated = [(t, p) for t, p in seated if t.channel.lower() == name.lower()]
            if not seated:
                return [(nick, "You have no seat. Join a match in its channel with '!join' ('!help' there).")]
            if len(seated) > 1:
                acting = [(t, p) for t, p in seated if p.session.legal]
                last = self._last_table.get(nick.lower())
                seated = acting or [(t, p) for t, p in seated if t.channel.lower() == last] or seated
            table, player = seated[0]
            return self._play(table, player, text)

    def on_nick(self, old: str, new: str) -> list[Reply]:
        """A seated player changed nick: the seat follows."""
        with self._lock:
            out: list[Reply] = []
            for table in self.tables.values():
                player = table.seat_of(old)
                if player is not None:
                    player.nick = new
                    out.append((table.channel, f"{old} is now {new}, still in seat {player.seat}."))
            if old.lower() in self._last_table:
                self._last_table[new.lower()] = self._last_table.pop(old.lower())
            return out

    def _looks_like_command(self, table: Table, player: Player, text: str) -> bool:
        words = text.lower().split()
        if not words:
            return False
        known = {c["type"].lower() for p in table.players.values() for c in p.session.legal}
        known |= HELP_WORDS | BOARD_WORDS | MOVES_WORDS
        known |= set(getattr(table.adapter, "command_words", ()))
        return words[0] in known or (words[0].isascii() and words[0].isdigit() and len(words) == 1)

    def _play(self, table: Table, player: Player, text: str) -> list[Reply]:
        self._last_table[player.nick.lower()] = table.channel.lower()
        if not table.full:
            return [(player.nick, f"The match has not begun: waiting for {table.seats - len(table.players)} more "
                                  f"player(s) to '!join' in {table.channel}.")]
        return [(player.nick, line) for line in player.session.handle(table.seats_for_nicks(text))]

    # -- table commands --------------------------------------------------------------------------
    def _table_command(self, channel: str, nick: str, text: str) -> list[Reply]:
        word, _, rest = text.strip().partition(" ")
        handlers = {"new": self._new, "join": self._join, "seats": self._seats, "who": self._seats,
                    "board": self._board, "games": self._games, "abandon": self._abandon, "help": self._help}
        handler = handlers.get(word.lower())
        if handler is None:
            return [(channel, f"{nick}: I do not know '!{word}'. {TABLE_HELP}")]
        try:
            return handler(channel, nick, rest.split())
        except Rejected as e:
            return [(channel, f"{nick}: {e.reason}")]
        except (Timeout, ConnectionError):
            return [(channel, f"{nick}: the game service did not answer in time; try again later.")]
        except GatewayError as e:  # through a gateway: an unknown game, a taken seat...
            return [(channel, f"{nick}: {e}")]

    def _help(self, channel: str, nick: str, args: list[str]) -> list[Reply]:
        return [(channel, TABLE_HELP)]

    def _games(self, channel: str, nick: str, args: list[str]) -> list[Reply]:
        games = ", ".join(f"{name} ({g.min_seats}-{g.max_seats} players)" for name, g in sorted(GAMES.items()))
        return [(channel, f"Games: {games}. Start one with '!new <game> <players>'.")]

    def _new(self, channel: str, nick: str, args: list[str]) -> list[Reply]:
        current = self.tables.get(channel.lower())
        if current is not None and not current.finished:
            return [(channel, f"{nick}: a match is on here ({current.game}, {current.match_id}); "
                              f"'!abandon' it first.")]
        if len(args) < 2 or not args[1].isascii() or not args[1].isdigit():
            return [(channel, f"{nick}: write '!new <game> <players> [option=value ...]'; '!games' lists the games.")]
        game, seats = args[0].lower(), int(args[1][:3])
        options: dict[str, object] = {}
        seed: int | None = None
        for arg in args[2:]:
            name, sep, raw = arg.partition("=")
            if not sep or not name or not raw:
                return [(channel, f"{nick}: options look like name=value, not '{arg}'.")]
            try:
                value = read_plain(raw, Shape())
            except ChatFormError as e:
                return [(channel, f"{nick}: option {name}: {e}.")]
            if name == "seed" and isinstance(value, int) and not isinstance(value, bool):
                seed = value
            else:
                options[name] = value
        meta = self.client.create_match(game, seats, options, seed=seed)
        version = self.client.match(meta.match_id).version
        self.tables[channel.lower()] = Table(channel, meta.match_id, game, seats, get_adapter(game), shown=version)
        return [(channel, f"New match {meta.match_id}: {game} for {seats} players. Write '!join' to take a seat "
                          f"(0/{seats}).")]

    def _join(self, channel: str, nick: str, args: list[str]) -> list[Reply]:
        table = self.tables.get(channel.lower())
        if table is None or table.finished:
            return [(channel, f"{nick}: no match is open here; start one with '!new <game> <players>'.")]
        mine = table.seat_of(nick)
        if mine is not None:
            return [(channel, f"{nick}: you already sit in seat {mine.seat}.")]
        wanted: int | None = None
        if args:
            if not (args[0].isascii() and args[0].isdigit()):
                return [(channel, f"{nick}: write '!join' or '!join <seat>' (seats 0 to {table.seats - 1}).")]
            wanted = int(args[0][:3])
            if not 0 <= wanted < table.seats:
                return [(channel, f"{nick}: there are seats 0 to {table.seats - 1}.")]
        seat, credential = self.client.join(table.match_id, wanted)
        session = ChatSession(self.client, table.match_id, seat, credential, table.adapter, self.timeout_s,
                              feed="private")
        table.players[seat] = Player(nick, seat, session)
        self._last_table[nick.lower()] = channel.lower()
        out: list[Reply] = [(channel, f"{nick} takes seat {seat} ({len(table.players)}/{table.seats}).")]
        if table.full:
            seated = ", ".join(table.who(s) for s in sorted(table.players))
            out.append((channel, f"All seats taken: {seated}. The match begins! I tell each of you your hand and "
                                 f"your options privately; write your commands here or to me."))
            out += self._board(channel, nick, [])
        return out

    def _seats(self, channel: str, nick: str, args: list[str]) -> list[Reply]:
        table = self.tables.get(channel.lower())
        if table is None:
            return [(channel, "No match here.")]
        seats = ", ".join(table.who(s) if s in table.players else f"seat {s} free" for s in range(table.seats))
        return [(channel, f"{table.game} {table.match_id}: {seats}.")]

    def _board(self, channel: str, nick: str, args: list[str]) -> list[Reply]:
        table = self.tables.get(channel.lower())
        record = self.client.view(table.match_id, "public") if table else None
        if table is None or record is None:
            return [(channel, "No board to show here yet.")]
        return [(channel, table.named(line)) for line in table.adapter.render_view(record.view)]

    def _abandon(self, channel: str, nick: str, args: list[str]) -> list[Reply]:
        table = self.tables.get(channel.lower())
        if table is None:
            return [(channel, "No match here.")]
        if table.players and table.seat_of(nick) is None and not table.finished:
            return [(channel, f"{nick}: only a seated player may abandon the match.")]
        del self.tables[channel.lower()]
        return [(channel, f"Match {table.match_id} is no longer played here. '!new' starts another.")]

    # -- output ----------------------------------------------------------------------------------
    def poll(self) -> list[Reply]:
        """What happened since the last poll: events and whose turn it is to each channel, each seat's
        private news to its nick."""
        with self._lock:
            out: list[Reply] = []
            for table in list(self.tables.values()):
                if table.full and not table.finished:
                    out += self._public_news(table)
                    for seat in sorted(table.players):
                        player = table.players[seat]
                        out += [(player.nick, line) for line in player.session.updates()]
            return out

    def _public_news(self, table: Table) -> list[Reply]:
        record = self.client.view(table.match_id, "public")
        if record is None or record.version <= table.shown:
            return []
        # A running match's log is read with a seated player's token (a gateway shows it to seats only);
        # what the channel gets is its public part.
        token = next(iter(table.players.values())).session.credential if table.players else None
        events = self.client.log(table.match_id, token, after_version=table.shown).events
        out = [(table.channel, table.named(line)) for e in events[: record.version - table.shown]
               if (line := table.adapter.render_event(e.for_seat(None)))]
        table.shown = record.version
        if record.finished:
            table.finished = True
            out.append((table.channel, f"The match is over. {self._outcome(table, record.outcome)}"))
            return out
        to_act = tuple(record.to_act)
        if to_act and to_act != table.announced_to_act:
            out.append((table.channel, f"Next: {', '.join(table.who(s) for s in to_act)}."))
        table.announced_to_act = to_act
        return out

    @staticmethod
    def _outcome(table: Table, outcome: object) -> str:
        if not isinstance(outcome, dict):
            return ""
        winners = outcome.get("winners") or []
        scores = outcome.get("scores") or []
        won = f"Won by {', '.join(table.who(w) for w in winners)}." if winners else "Nobody won."
        return f"{won} Scores: {', '.join(f'{table.who(s)} {p}' for s, p in enumerate(scores))}."

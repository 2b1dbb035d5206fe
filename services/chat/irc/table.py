"""A table of the IRC bridge: its channel, its match and who sits where (:class:`Table`), and a seated player
(:class:`Player`: his stored record and his chat session)."""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass, field

from services.chat.adapter import ChatAdapter
from services.chat.irc.seats import Sender, is_seated
from services.chat.irc.store import SeatRecord, TableRecord
from services.chat.session import ChatSession

SEAT_RE = re.compile(r"\bseat (\d+)\b")


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

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

from services.chat.irc.table import SEAT_RE, Player, Table, bot_name
from services.chat.irc.table_core import (
    AWAY_NOTE,
    BOARD_EVERY_S,
    CLAIM_EVERY_S,
    IDLE_REMIND_S,
    MAX_FAILED_CLAIMS,
    MAX_TALK_WORDS,
    TABLE_HELP,
)
from services.chat.irc.table_news import GAME_OVER_RE, REVOTE_EVERY_S, TableNews

__all__ = ["AWAY_NOTE", "BOARD_EVERY_S", "CLAIM_EVERY_S", "GAME_OVER_RE", "IDLE_REMIND_S", "MAX_FAILED_CLAIMS",
           "MAX_TALK_WORDS", "REVOTE_EVERY_S", "SEAT_RE", "TABLE_HELP", "Player", "Table", "Tables", "bot_name"]


class Tables(TableNews):
    """The bridge's tables: see the module docstring (the parts: :mod:`.table_core`, :mod:`.table_commands`,
    :mod:`.table_news`)."""

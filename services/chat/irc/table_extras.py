"""Courtesies of a table (#33): ``!top`` (the service's ladder), reminders to a player who lets the table wait, and
optional colour for the players' nicks in the channel.

- ``!top [game] [n]``: the best ``n`` (5 if not said, at most 10) rated players of the table's game (or the game
  named), from the service's ladder (``GET /ladder/{game}``); a bridge on its own in-process service has none.
- Idle reminders: a seated player to move who has not moved for ``idle_remind_s`` is reminded once a decision,
  privately and, nick first, in the channel (``ann: still your move (2 min).``). 0 turns them off.
- Colour (off by default): each seated player's nick in the channel's event lines in an mIRC colour of its own
  (``\\x03NN``...``\\x03``); the line saying who is to move keeps the nick plain, so clients still highlight it.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from schemas.envelopes import ViewRecord
from services.chat.irc.outbox import Line
from services.chat.irc.seats import Sender
from services.chat.session import near_misses, quoted
from services.games import GAMES

if TYPE_CHECKING:
    from services.chat.irc.table import Table
    from services.chat.irc.table_core import TablesCore

TOP_DEFAULT = 5
TOP_MOST = 10
COLOURS = (3, 4, 6, 7, 10, 12, 13, 2)  # mIRC: green, red, purple, orange, teal, blue, pink, navy (readable on both)
COLOUR, PLAIN = "\x03", "\x0f"


def top_command(tables: TablesCore, channel: str, sender: Sender, args: list[str]) -> list[Line]:
    key, nick = channel.lower(), sender.nick
    table = tables.tables.get(key)
    words = [a for a in args if not (a.isascii() and a.isdigit())]
    numbers = [a for a in args if a.isascii() and a.isdigit()]
    game = "-".join(words).lower() if words else (table.game if table is not None else None)
    if game is None:
        return [Line(channel, f"{nick}: write '!top <game>' ('!games' lists them), or '!top' at a table.", key)]
    if game not in GAMES:
        close = near_misses(game, sorted(GAMES))
        hint = f" Did you mean {' or '.join(close)}?" if close else " '!games' lists them."
        return [Line(channel, f"{nick}: I do not know the game '{quoted(game)}'.{hint}", key)]
    if len(numbers) > 1 or (numbers and not 1 <= int(numbers[0][:3]) <= TOP_MOST):
        return [Line(channel, f"{nick}: '!top [game] [n]' shows the best n players (1 to {TOP_MOST}).", key)]
    n = int(numbers[0][:3]) if numbers else TOP_DEFAULT
    ladder: Callable[[str], Any] | None = getattr(tables.client, "ladder", None)
    if ladder is None:
        return [Line(channel, f"{nick}: this bridge plays on its own service, which keeps no ratings.", key)]
    standings = list(ladder(game).standings)[:n]
    if not standings:
        return [Line(channel, f"No rated players of {game} yet: rated matches are made on the service's ladder.",
                     key)]
    rows = ", ".join(f"{i}. {s.player} {s.rating:.1f} ({s.games} games, {s.wins} won)"
                     for i, s in enumerate(standings, 1))
    return [Line(channel, f"Best of {game}: {rows}.", key)]


def idle_reminders(tables: TablesCore, table: Table, record: ViewRecord) -> list[Line]:
    """The reminders due now to the seated players to move who let the table wait ``idle_remind_s``: once a
    decision (a version), privately and nick first in the channel."""
    if tables.idle_remind_s <= 0 or record.finished:
        return []
    now = tables.clock()
    if table.idle_version != record.version:
        table.idle_version, table.idle_since, table.idle_told = record.version, now, set()
        return []
    waited = now - table.idle_since
    if waited < tables.idle_remind_s:
        return []
    due = [s for s in record.to_act if s in table.players and s not in table.idle_told
           and table.players[s].present and not table.players[s].record.away]
    if not due:
        return []
    table.idle_told |= set(due)
    took = f"{waited / 60:.0f} min" if waited >= 90 else f"{waited:.0f} s"
    nicks = ", ".join(table.nick_of(s) for s in due)
    out = [Line(table.channel, f"{nicks}: still your move ({took}).", table.key, whole=True)]
    for seat in due:
        player = table.players[seat]
        where = "" if tables._tables_of(player.nick) > 1 else f" at {table.channel}"
        out.append(tables._line(table, player.nick, f"The table waits for you{where}: still your move ({took}). "
                                                    f"'moves' lists what you may do.", urgent=True))
    return out


def coloured(table: Table, line: str) -> str:
    """``line`` with each seated player's nick in his colour (seat order picks it)."""
    for seat, player in table.players.items():
        code = COLOURS[seat % len(COLOURS)]
        line = re.sub(rf"(?<![\w\x03]){re.escape(player.nick)}(?![\w])", f"{COLOUR}{code:02d}{player.nick}{PLAIN}",
                      line)
    return line

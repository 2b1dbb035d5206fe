"""``!bots [random|heuristic|ismcts]``: a table's free seats played by the service's bots (#33).

A seated player gives the free seats of his table's open match to the service's bots (``airship bots``) through the
gateway (``POST /matches/{id}/bots``, the web lobby's "fill empty seats with bots", with his seat token: once a seat
is taken only a seated player may), and the table counts them as taken: the match begins when the bots sit down,
and the channel names them ``bot<seat>``. If they have not sat down after :data:`BOTS_LATE_S` (no bots process
runs), the channel is told once, and ``!abandon`` clears the table. The service's bots agree to end a match early:
the players' votes suffice. A bridge on its own in-process service (no ``--url``) has no bots and says so.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from services.chat.irc.outbox import Line
from services.chat.irc.seats import Sender
from services.chat.session import quoted
from services.client.errors import GatewayError, NotFound
from services.logs import get_logger
from services.pipeline.direct import Timeout

if TYPE_CHECKING:
    from services.chat.irc.table import Table
    from services.chat.irc.table_core import TablesCore

log = get_logger("irc")
KINDS = ("random", "heuristic", "ismcts")
DEFAULT_KIND = "heuristic"
BOTS_LATE_S = 60.0


def bots_command(tables: TablesCore, channel: str, sender: Sender, args: list[str]) -> list[Line]:
    key, nick = channel.lower(), sender.nick
    table = tables.tables.get(key)
    if table is None or table.finished:
        return [Line(channel, f"{nick}: no match is open here; start one with '!new <game> <players>', take a "
                              f"seat with '!join', then '!bots' fills the others.", key)]
    kind = args[0].lower() if args else DEFAULT_KIND
    if len(args) > 1 or kind not in KINDS:
        return [Line(channel, f"{nick}: write '!bots' or '!bots <strength>' with one of {', '.join(KINDS)}, not "
                              f"'{quoted(' '.join(args))}'.", key)]
    player = table.player_of(sender)
    if player is None:
        return [Line(channel, f"{nick}: only a seated player may give the free seats to bots: '!join' first.", key)]
    if table.full:
        return [Line(channel, f"{nick}: no seat is free here.", key)]
    flag: Callable[..., Any] | None = getattr(tables.client, "flag_bots", None)
    if flag is None:
        return [Line(channel, f"{nick}: this bridge plays on its own service, which has no bots (start it with "
                              f"--url and 'airship bots' beside the gateway).", key)]
    answer = flag(table.match_id, None, kind, token=player.token)
    flagged = {int(s): k for s, k in answer.bots.items() if s.isdigit() and int(s) not in table.players}
    table.bots.update(flagged)
    table.bots_since = tables.clock()
    tables._save()
    names = ", ".join(f"{table.nick_of(s)} (seat {s})" for s in sorted(flagged))
    out = [Line(channel, f"The service's {kind} bots take the free seats: {names}.", key)]
    if table.full:
        seated = ", ".join(table.nick_of(s) for s in range(table.seats))
        out.append(Line(channel, f"All seats taken: {seated}. The match begins when the bots sit down; whoever is to "
                                 f"move hears it from me privately.", key))
    return out


def waiting_for_bots(tables: TablesCore, table: Table) -> bool:
    """Whether the table's match still waits for its bots to sit down (then it is cleared like an open table)."""
    if not table.bots or table.finished:
        return False
    try:
        return tables.client.match(table.match_id).status == "open"
    except (NotFound, GatewayError, ConnectionError, Timeout):
        return False


def late_bots(tables: TablesCore, table: Table) -> list[Line]:
    """Once, when the bots asked for have not sat down after :data:`BOTS_LATE_S`: say so in the channel."""
    if table.bots_since is None:
        return []
    if not waiting_for_bots(tables, table):
        table.bots_since = None  # they sat down (or the match is gone): nothing to wait for
        return []
    if tables.clock() - table.bots_since < BOTS_LATE_S:
        return []
    table.bots_since = None
    log.warning("bots did not sit down", channel=table.channel, match_id=table.match_id)
    return [Line(table.channel, f"The service's bots have not sat down after {BOTS_LATE_S:g} s (is 'airship bots' "
                                f"running?). '!abandon' clears the table.", table.key)]

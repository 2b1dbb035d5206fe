"""The table commands of the IRC bridge (``!new``, ``!join``, ``!seats``, ``!board``, ``!games``, ``!abandon``,
``!help``, and ``!bots``, ``!top`` from :mod:`.table_bots` and :mod:`.table_extras`): a layer of
:class:`~.tables.Tables` over :class:`~.table_core.TablesCore`, split to keep each file readable."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from schemas.clock import TimeControl
from schemas.gateway import abandon_agreed, abandon_waiting_for
from services.chat import clocks
from services.chat.adapter import get_adapter
from services.chat.chatform import ChatFormError, Shape, read_plain
from services.chat.irc import table_bots, table_extras
from services.chat.irc.outbox import Line
from services.chat.irc.seats import Sender, claim_hash, new_claim_code, same_nick
from services.chat.irc.store import SeatRecord
from services.chat.irc.table import Player, Table
from services.chat.irc.table_core import TABLE_HELP, TablesCore
from services.chat.session import near_misses, quoted
from services.client.errors import GatewayError
from services.games import GAMES
from services.games.errors import Rejected
from services.pipeline.direct import Timeout


class TableCommands(TablesCore):
    """The tables' ``!commands`` (see the module docstring)."""

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

"""What the IRC bridge tells after each change (:meth:`TableNews.poll`): the prompt of whoever is to act first,
then the events and who is next to the channel, then each other player's private news; clock reminders, idle
reminders and the word that the bridge was away. The last layer of :class:`~.tables.Tables` (over
:class:`~.table_commands.TableCommands` over :class:`~.table_core.TablesCore`), split to keep each file readable."""

from __future__ import annotations

import re
from dataclasses import replace

from schemas.clock import TimeControl
from schemas.envelopes import ViewRecord
from services.chat import clocks
from services.chat.irc import table_bots, table_extras
from services.chat.irc.outbox import Line
from services.chat.irc.table import Table
from services.chat.irc.table_commands import TableCommands
from services.client.errors import GatewayError
from services.games.abandon import EXPIRED, is_abandoned
from services.games.errors import Rejected
from services.logs import get_logger
from services.pipeline.direct import Timeout

log = get_logger("irc")
GAME_OVER_RE = re.compile(r"^(Game over|The match is over)\b")
REVOTE_EVERY_S = 15.0  # a pending abandon vote is put again this often (the timeout rule is judged on a vote)


class TableNews(TableCommands):
    """The tables' news (see the module docstring)."""

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

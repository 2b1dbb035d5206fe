"""A table's courtesies (#33) without a network: idle reminders (privately and nick first in the channel, once a
decision), '!top' refusals and a bridge without ratings, and optional colour for the nicks. '!top' from the
service's ladder is in ``test_irc_tables_live.py``."""

from __future__ import annotations

from services.chat.irc.seats import Sender
from services.chat.irc.table_extras import COLOUR, PLAIN
from tests.chat.test_irc_tables import ANN, BOB, Clock, seated_nim, tables, texts


def test_a_player_who_lets_the_table_wait_is_reminded_once_a_decision() -> None:
    clock = Clock()
    t = seated_nim(tables(clock=clock, idle_remind_s=120))
    first = t.poll()
    mover = "ann" if any(x.target == "ann" and "Your move" in x.text for x in first) else "bob"
    clock.now += 119
    assert t.poll() == []
    clock.now += 2
    reminded = t.poll()
    assert texts(reminded, "#t") == [f"{mover}: still your move (2 min)."]  # nick first: clients highlight it
    assert texts(reminded, mover) == ["The table waits for you at #t: still your move (2 min). 'moves' lists what "
                                      "you may do."]
    assert reminded[0].whole and reminded[1].urgent
    clock.now += 300
    assert t.poll() == [], "once a decision"
    t.on_private(ANN if mover == "ann" else BOB, "take 1")
    t.poll()
    clock.now += 130
    other = "bob" if mover == "ann" else "ann"
    assert texts(t.poll(), "#t") == [f"{other}: still your move (2 min)."], "the next decision is waited for anew"


def test_no_idle_reminders_when_turned_off() -> None:
    clock = Clock()
    t = seated_nim(tables(clock=clock, idle_remind_s=0))
    t.poll()
    clock.now += 10_000
    assert t.poll() == []


def test_top_refuses_what_it_cannot_show_and_a_bridge_without_ratings_says_so() -> None:
    t = tables()
    zed = Sender("zed", "zed@h")
    assert texts(t.on_channel("#t", zed, "!top")) == ["zed: write '!top <game>' ('!games' lists them), or '!top' at "
                                                     "a table."]
    assert texts(t.on_channel("#t", zed, "!top chess")) == ["zed: I do not know the game 'chess'. '!games' lists "
                                                           "them."]
    assert "Did you mean nim?" in texts(t.on_channel("#t", zed, "!top nmi"))[0]
    assert texts(t.on_channel("#t", zed, "!top nim 99")) == ["zed: '!top [game] [n]' shows the best n players (1 to "
                                                            "10)."]
    assert texts(t.on_channel("#t", zed, "!top nim 3")) == ["zed: this bridge plays on its own service, which keeps "
                                                           "no ratings."]


def test_colour_marks_the_nicks_in_event_lines_and_leaves_the_turn_line_plain() -> None:
    plain = seated_nim(tables())
    plain.poll()
    coloured = seated_nim(tables(colour=True))
    coloured.poll()
    for t in (plain, coloured):
        table = t.tables["#t"]
        mover = next(p for p in table.players.values() if p.session.legal)
        t.on_private(ANN if mover.nick == "ann" else BOB, "take 1")
    said_plain, said = texts(plain.poll(), "#t"), texts(coloured.poll(), "#t")
    assert not any(COLOUR in x for x in said_plain), "off by default"
    event = next(x for x in said if "Taken" in x)
    assert f"{COLOUR}" in event and PLAIN in event
    assert any(f"{COLOUR}{code:02d}{nick}{PLAIN}" in event for code in range(16) for nick in ("ann", "bob"))
    turn = next(x for x in said if x.endswith("your move."))
    assert COLOUR not in turn and turn.split(":")[0] in ("ann", "bob")

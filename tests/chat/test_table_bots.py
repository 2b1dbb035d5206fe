"""'!bots' without a network (#33): what it refuses, and a bridge on its own in-process service, which has no bots.
The bots themselves play in ``test_irc_tables_live.py`` (the service's bots process beside the gateway)."""

from __future__ import annotations

from services.chat.irc.seats import Sender
from tests.chat.test_irc_tables import tables, texts

ANN = Sender("ann", "ann@10.0.0.1")
BOB = Sender("bob", "bob@10.0.0.2")


def test_bots_are_refused_where_they_cannot_sit() -> None:
    t = tables()
    assert texts(t.on_channel("#t", ANN, "!bots"))[0].startswith("ann: no match is open here")
    t.on_channel("#t", ANN, "!new nim 3")
    assert "only a seated player" in texts(t.on_channel("#t", BOB, "!bots"))[0]
    t.on_channel("#t", ANN, "!join")
    assert texts(t.on_channel("#t", ANN, "!bots clever " + "x" * 200)) == [
        "ann: write '!bots' or '!bots <strength>' with one of random, heuristic, ismcts, not 'clever "
        "xxxxxxxxxxxxxxxxxxxxxx…'."]  # what was written, cut to 30 characters
    assert "its own service, which has no bots" in texts(t.on_channel("#t", ANN, "!bots random"))[0]
    assert t.tables["#t"].bots == {} and not t.tables["#t"].full  # nothing changed
    t.on_channel("#t", BOB, "!join")
    t.on_channel("#t", Sender("cid", "cid@h"), "!join")
    assert texts(t.on_channel("#t", ANN, "!bots")) == ["ann: no seat is free here."]

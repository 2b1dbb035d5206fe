"""Secret choices stay private by construction (#33): a command the game's contract marks secret
(``Registration.secret_commands``: Mad Zeppelin's draft, a card given, the Hold's order; Modern World's trade
offers) is refused when written in a channel, without repeating it; its prompt says to answer privately; written
privately it plays. On the chat session and on the bridge's tables (no network; the live test is
``test_irc_live.py``)."""

from __future__ import annotations

from typing import Any

from services.chat.irc.seats import Sender
from services.chat.session import ChatSession
from services.games.registry import registration_of
from services.pipeline.direct import DirectClient
from services.pipeline.inprocess import InProcess
from tests.chat.test_irc_tables import tables, texts

ANN = Sender("ann", "ann@10.0.0.1")
BOB = Sender("bob", "bob@10.0.0.2")
PRIVATE = "/msg airship"


def zeppelin(seed: int = 3) -> tuple[DirectClient, dict[int, str], int]:
    """A 2-seat Mad Zeppelin match in its draft; the seat to draft."""
    client = InProcess(partitions=2).client()
    client.create_match("mad-zeppelin", 2, seed=seed, match_id="mz")
    credentials = dict(client.join("mz", s) for s in range(2))
    record = client.wait_view("mz", "public", 2)
    for _ in range(50):
        record = client.view("mz", "public")
        if record is not None and record.to_act:
            break
        client.wait_view("mz", "public", (record.version if record else 0) + 1, 1.0)
    assert record is not None and record.view["phase"] == "draft" and len(record.to_act) == 1
    return client, credentials, record.to_act[0]


def draft_pool(session: ChatSession) -> list[Any]:
    assert session.record is not None
    pool = session.record.view["draft_pool"]
    assert pool
    return list(pool)


def test_the_games_contract_names_its_secret_commands() -> None:
    assert registration_of("mad-zeppelin").secret_commands == {"draft", "give", "arrange_hold"}
    assert registration_of("modern-world").secret_commands == {"propose_trade"}
    assert registration_of("moderne-zeiten").secret_commands == frozenset()


def test_a_secret_command_written_in_public_is_refused_without_repeating_it() -> None:
    client, creds, seat = zeppelin()
    session = ChatSession(client, "mz", seat, creds[seat], feed="private", private_to=lambda: PRIVATE,
                          game="mad-zeppelin", seats=2)
    prompt = session.news().prompt
    assert prompt and "Secret: answer me privately (/msg airship draft ...)" in prompt[0]
    traitor = draft_pool(session)[0]
    version = client.view("mz", "public").version  # type: ignore[union-attr]
    for text in (f"draft {traitor}", f"DRAFT   {traitor}", "draft", f"drft {traitor}", f"traitor {traitor}"):
        answer = session.answer(text, public=True)
        assert answer.secret and not answer.accepted, text
        assert answer.lines == ["Not here: everyone can read it. Write it to me privately: /msg airship draft ..."]
        assert traitor not in " ".join(answer.lines)
    assert client.view("mz", "public").version == version  # type: ignore[union-attr]  # nothing was sent
    for text in ("board", "help", "moves"):  # no choice in them: answered (privately, by the bridge)
        assert not session.answer(text, public=True).secret
    played = session.answer(f"draft {traitor}")  # privately: played
    assert played.accepted and not played.secret


def test_a_terminal_session_has_no_channel_and_no_refusal() -> None:
    client, creds, seat = zeppelin()
    session = ChatSession(client, "mz", seat, creds[seat], game="mad-zeppelin", seats=2)
    assert "Secret" not in " ".join(session.news().prompt)
    traitor = draft_pool(session)[0]
    answer = session.answer(f"draft {traitor}", public=True)
    assert answer.accepted and not answer.secret


def test_a_public_command_of_a_game_with_secrets_plays_in_public() -> None:
    """Modern World: a bid is public; only the trade offers are secret."""
    client = InProcess(partitions=2).client()
    client.create_match("modern-world", 2, seed=1, match_id="mw")
    creds = dict(client.join("mw", s) for s in range(2))
    record = client.wait_view("mw", "public", 2)
    for _ in range(50):
        record = client.view("mw", "public")
        if record is not None and record.to_act:
            break
        client.wait_view("mw", "public", (record.version if record else 0) + 1, 1.0)
    assert record is not None
    seat = record.to_act[0]
    session = ChatSession(client, "mw", seat, creds[seat], feed="private", private_to=lambda: PRIVATE,
                          game="modern-world", seats=2)
    assert "Secret" not in " ".join(session.news().prompt)  # no secret choice now
    answer = session.answer("pass", public=True)
    assert answer.accepted and not answer.secret
    offer = session.answer("offer seat 1: 2 money for 2 labor", public=True)
    assert not offer.secret  # not legal now (no trade phase): a secret is refused only while it is a choice


def test_the_table_refuses_a_secret_in_its_channel_and_takes_it_privately() -> None:
    t = tables()
    t.me = "zepbot"
    t.on_channel("#z", ANN, "!new mad-zeppelin 2 seed=3")
    t.on_channel("#z", ANN, "!join 0")
    t.on_channel("#z", BOB, "!join 1")
    first = t.poll()
    table = t.tables["#z"]
    acting = next(p for p in table.players.values() if p.session.legal)
    other = next(p for p in table.players.values() if p is not acting)
    prompt = " ".join(texts(first, acting.nick))
    assert "Secret: answer me privately (/msg zepbot draft ...)" in prompt
    traitor = draft_pool(acting.session)[0]
    sender = ANN if acting.nick == "ann" else BOB
    version = table.shown
    refused = t.on_channel("#z", sender, f"draft {traitor}")
    assert [(line.target, line.text) for line in refused] == [
        ("#z", f"{acting.nick}: Not here: everyone can read it. Write it to me privately: /msg zepbot draft ...")]
    assert t.poll() == [] and t.tables["#z"].shown == version  # nothing played, nothing told
    played = t.on_private(sender, f"draft {traitor}")
    assert texts(played, acting.nick)[0].startswith("OK: draft")
    told = t.poll()
    assert not any(traitor in line.text for line in told if line.target in ("#z", other.nick)), \
        "the pick reaches neither the channel nor the other player"
    assert t.tables["#z"].shown > version

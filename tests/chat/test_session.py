"""A seat played in chat text over the client library, on the in-process pipeline."""

from __future__ import annotations

import io
import threading
import time

import pytest

from services.bots.base import RandomBot
from services.bots.sdk import concrete_legal
from services.chat.session import ChatSession
from services.chat.terminal import run_chat
from services.games.errors import BadOptions
from services.pipeline.direct import DirectClient
from services.pipeline.inprocess import InProcess
from services.pipeline.worker import WorkerSettings


def nim_match(seed: int = 4) -> tuple[DirectClient, dict[int, str]]:
    client = InProcess(partitions=2).client()
    client.create_match("nim", 2, seed=seed, match_id="chat")
    credentials = dict(client.join("chat", s) for s in range(2))
    client.wait_view("chat", "public", 4)
    return client, credentials


def test_a_seat_is_greeted_with_its_view_and_its_options() -> None:
    client, creds = nim_match()
    lines = ChatSession(client, "chat", 0, creds[0]).updates()
    assert lines[0] == "Match chat (nim), you are seat 0. Write 'help' for help."
    assert any(line.startswith("pile: ") for line in lines)
    assert lines[-1] == "Your move. Legal now: 1) take n=1 | 2) take n=2 | 3) take n=3 (write one, or just its number)"
    other = ChatSession(client, "chat", 1, creds[1]).updates()
    assert "Your move" not in "\n".join(other)


def test_a_command_is_sent_and_both_seats_hear_of_it_without_the_others_secret() -> None:
    client, creds = nim_match()
    me, them = ChatSession(client, "chat", 0, creds[0]), ChatSession(client, "chat", 1, creds[1])
    me.updates()
    them.updates()
    pile = me.record.view["pile"] if me.record else 0
    reply = me.handle("take 2")
    assert reply[0] == "OK: take n=2"
    assert "seat 0 (take n=2): Taken seat=0 n=2" in reply
    assert not any(line.startswith("pile:") for line in reply), "the board is not shown again, only what changed"
    assert f"pile: {pile - 2}" in me.handle("board")  # unless asked
    heard = them.updates()
    assert heard[0] == "seat 0: Taken seat=0 n=2" and heard[-1].startswith("Your move.")
    secret_0 = client.backend.store.read_log("chat")[2].body["secret"]
    assert f"secret: {secret_0}" not in "\n".join(heard)
    assert them.updates() == []  # nothing new: nothing told


def test_private_news_tells_the_prompt_apart_and_names_seats_as_players_know_them() -> None:
    client, creds = nim_match()
    names = {0: "ann", 1: "bob"}.__getitem__
    me = ChatSession(client, "chat", 0, creds[0], feed="private", names=names, greeting=False)
    them = ChatSession(client, "chat", 1, creds[1], feed="private", names=names, greeting=False)
    first = me.news()
    assert first.prompt == ["Your move. Legal now: 1) take n=1 | 2) take n=2 | 3) take n=3 (write one, or just its "
                            "number)"]
    assert any(line.startswith("secret: ") for line in first.lines)  # the seat's own line the public lacks
    assert not any(line.startswith("pile: ") for line in first.lines)  # the public board is the channel's
    assert them.news().prompt == []
    assert them.handle("take 1") == ["It is not your turn; waiting for ann."]
    assert me.answer("take 1").accepted
    assert me.news().prompt == [] and them.news().prompt[0].startswith("Your move.")
    assert them.news().prompt == []  # told once per change
    them.reprompt()
    assert them.news().prompt[0].startswith("Your move.")  # ...unless asked to tell it again


def test_help_is_whole_lines_and_typos_get_the_closest_command() -> None:
    client, creds = nim_match()
    me = ChatSession(client, "chat", 0, creds[0])
    help_ = me.handle("help")
    assert help_[0].startswith("Write a command as 'type name=value ...'") and help_[0].endswith(".")
    assert help_[-1].startswith("Legal now: ")
    assert "did you mean 'take'" in me.handle("tkae 1")[0].lower()


def test_refusals_and_mistakes_are_answered_with_what_is_legal() -> None:
    client, creds = nim_match()
    me, them = ChatSession(client, "chat", 0, creds[0]), ChatSession(client, "chat", 1, creds[1])
    assert them.handle("take 1") == ["It is not your turn; waiting for seat 0."]
    refused = me.handle("take 7")
    assert refused[0].startswith("Refused 'take n=7': 'n' must be at most 3, got 7. Legal now: 1) take n=1")
    assert "Did you mean 'take'?" in me.handle("tke 1")[0]
    assert me.handle("moves")[0].startswith("Legal now:")
    assert me.handle("help")[0].startswith("Write a command as 'type name=value ...'")
    assert me.handle("help")[1].startswith("'board' shows the board")
    assert any(line.startswith("pile: ") for line in me.handle("board"))
    assert me.handle("   ") == []


def test_a_wrong_credential_is_refused_politely() -> None:
    client, _ = nim_match()
    reply = ChatSession(client, "chat", 0, "wrong").handle("take 1")
    assert reply[0].startswith("Refused 'take n=1': wrong or missing seat credential")


def test_unknown_match_or_seat_is_refused() -> None:
    client, _ = nim_match()
    with pytest.raises(BadOptions, match="no match 'nope'"):
        ChatSession(client, "nope", 0, None)
    with pytest.raises(BadOptions, match="seat 5 does not exist"):
        ChatSession(client, "chat", 5, None)


class BotPlaysTheOtherSeat(io.StringIO):
    """stdin for seat 0 that lets a bot move for seat 1 whenever it is its turn, then picks option 1."""

    def __init__(self, client: DirectClient, credential: str) -> None:
        super().__init__()
        self.client, self.credential, self.bot = client, credential, RandomBot(1)

    def readline(self, size: int | None = -1) -> str:
        record = self.client.wait_view("chat", 1)
        if record.legal:
            choice = self.bot.choose(record.view, concrete_legal(record.legal))
            self.client.call("chat", 1, self.credential, choice["type"], choice["body"])
            return "board\n"
        return "1\n"


def test_the_terminal_client_plays_a_whole_match() -> None:
    client, creds = nim_match(seed=8)
    out = io.StringIO()
    assert run_chat(client, "chat", 0, creds[0], BotPlaysTheOtherSeat(client, creds[1]), out, follow=False) == 0
    text = out.getvalue()
    assert text.startswith("Match chat (nim), you are seat 0.")
    assert "OK: take n=1" in text and "seat 1: Taken" in text
    assert text.rstrip().splitlines()[-1].startswith("The match is over.")
    assert client.view("chat", "public").view["finished"]  # type: ignore[union-attr]


def test_the_terminal_client_stops_at_quit_or_end_of_input() -> None:
    client, creds = nim_match()
    out = io.StringIO()
    assert run_chat(client, "chat", 0, creds[0], io.StringIO("take 1\nquit\ntake 1\n"), out, follow=False) == 0
    assert out.getvalue().count("OK: take n=1") == 1
    assert run_chat(client, "nope", 0, None, io.StringIO(""), out, follow=False) == 2


def test_the_terminal_client_follows_other_players_live() -> None:
    """A live backend (worker and projector on their own threads): moves of others appear unprompted."""
    embedded = InProcess(partitions=2)
    embedded.worker.settings = WorkerSettings(block_ms=20)
    embedded.projector.block_ms = 20
    threads = [threading.Thread(target=embedded.worker.run, daemon=True),
               threading.Thread(target=embedded.projector.run, daemon=True)]
    for thread in threads:
        thread.start()
    try:
        client = DirectClient(embedded.backend, poll_ms=20)
        client.create_match("nim", 2, seed=4, match_id="chat")
        creds = dict(client.join("chat", s) for s in range(2))
        client.wait_view("chat", "public", 4, timeout_s=5)
        out = io.StringIO()

        class Script(io.StringIO):
            calls = 0

            def readline(self, size: int | None = -1) -> str:
                self.calls += 1
                if self.calls == 1:
                    return "take 1\n"
                client.call("chat", 1, creds[1], "take", {"n": 2}, timeout_s=5)
                deadline = time.monotonic() + 5
                while "seat 1: Taken seat=1 n=2" not in out.getvalue() and time.monotonic() < deadline:
                    time.sleep(0.02)
                return "quit\n"

        assert run_chat(client, "chat", 0, creds[0], Script(), out, follow=True, poll_s=0.05) == 0
        assert "seat 1: Taken seat=1 n=2" in out.getvalue()
        assert out.getvalue().count("seat 1: Taken") == 1
    finally:
        embedded.worker.stop()
        embedded.projector.stop()
        for thread in threads:
            thread.join(timeout=5)


def test_a_game_s_own_help_and_its_command_words_win_over_the_session_words() -> None:
    client = InProcess(partitions=2).client()
    client.create_match("mad-zeppelin", 2, seed=3, match_id="mad")
    credentials = dict(client.join("mad", s) for s in range(2))
    client.wait_view("mad", "public", 1)
    session = ChatSession(client, "mad", 0, credentials[0])
    session.updates()
    assert session.handle("help")[0].startswith("Commands: draft igor | colour 2 red | play captain")
    assert session.handle("look")[0].startswith("Turn 1, round 0: seat ")  # 'look' alone shows the board
    answer = session.handle("look seat 1")[0]  # with more words it is the Clairvoyant's move, for the adapter
    assert answer.startswith(("You cannot look now.", "It is not your turn")), answer

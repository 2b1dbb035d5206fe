"""IRC lines: parsing, writing, and splitting long text to fit a line."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from services.chat.irc.bridge import BridgeSettings
from services.chat.irc.protocol import Message, ProtocolError, format_message, is_channel, parse, split_text


def test_parse_reads_prefix_command_middle_and_trailing_parameters() -> None:
    assert parse(":alice!a@host PRIVMSG #airship :bid 5 now\r\n") == \
        Message("PRIVMSG", ("#airship", "bid 5 now"), "alice!a@host")
    assert parse(":alice!a@host PRIVMSG #airship :bid 5").nick == "alice"
    assert parse("PING :irc.local") == Message("PING", ("irc.local",))
    assert parse(":srv 001 airship :Welcome to IRC").param(0) == "airship"
    assert parse("@time=2024 :srv NOTICE * :hi") == Message("NOTICE", ("*", "hi"), "srv", (("time", "2024"),))
    tagged = parse("@account=al\\sice;time=1 :alice!a@host PRIVMSG #a :hi")
    assert tagged.tag("account") == "al ice" and tagged.userhost == "a@host" and tagged.tag("nope") is None
    assert parse(":srv NOTICE * :hi").userhost is None
    assert parse("join #a").command == "JOIN"
    assert parse(":srv 353 me = #a :x y").params == ("me", "=", "#a", "x y")
    for bad in ("", ":prefix-only", "   "):
        with pytest.raises(ProtocolError):
            parse(bad)


def test_format_puts_spaces_and_colons_in_the_trailing_parameter_and_strips_line_breaks() -> None:
    assert format_message("PRIVMSG", "#a", "bid 5") == "PRIVMSG #a :bid 5"
    assert format_message("NICK", "airship") == "NICK airship"
    assert format_message("PRIVMSG", "bob", ":)") == "PRIVMSG bob ::)"
    assert format_message("PRIVMSG", "bob", "a\r\nQUIT") == "PRIVMSG bob :a  QUIT"
    with pytest.raises(ProtocolError):
        format_message("PRIVMSG", "two words", "x")


@given(st.text(max_size=2000))
def test_split_text_keeps_every_piece_within_the_limit_and_loses_only_spacing(text: str) -> None:
    pieces = split_text(text, limit=50)
    assert all(len(p.encode()) <= 50 for p in pieces)
    assert all("\n" not in p and "\r" not in p for p in pieces)
    squeeze = lambda s: "".join(s.split())  # noqa: E731
    # only spacing is lost, and a list separator ' | ' where the text was cut
    assert squeeze("".join(pieces)).replace("|", "") == squeeze(text.replace("\0", "")).replace("|", "")


def test_split_text_cuts_at_spaces() -> None:
    assert split_text("aaa bbb ccc", limit=8) == ["aaa bbb", "ccc"]
    assert split_text("", limit=8) == [""]


def test_split_text_cuts_between_sentences_then_between_list_items() -> None:
    help_ = "You may bid or pass now, as you like. Name players by nick, like bob. Legal now: a | b"
    assert split_text(help_, limit=60) == ["You may bid or pass now, as you like.",
                                           "Name players by nick, like bob. Legal now: a | b"]
    assert split_text("Legal now: bid 4 to 15 | pass | play any cards", limit=30) == [
        "Legal now: bid 4 to 15 | pass", "play any cards"]


def test_channels_and_addresses() -> None:
    assert is_channel("#airship") and is_channel("&x") and not is_channel("bob") and not is_channel("#")
    assert BridgeSettings.from_address("irc.example:6697").port == 6697
    assert BridgeSettings.from_address("localhost").port == 6667
    with pytest.raises(ValueError):
        BridgeSettings.from_address("host:port")

"""IRC protocol lines: parsing and writing messages (RFC 2812 framing; IRCv3 message tags are read)."""

from __future__ import annotations

from dataclasses import dataclass

MAX_LINE_BYTES = 512  # including CR LF
TEXT_BYTES = 400  # room left for ":nick!user@host PRIVMSG #target :" when a server relays the text
CTCP = "\x01"


class ProtocolError(ValueError):
    """A line that is not an IRC message."""


@dataclass(frozen=True, slots=True)
class Message:
    command: str  # upper case, or a three-digit numeric reply
    params: tuple[str, ...] = ()
    prefix: str | None = None  # "nick!user@host" or a server name
    tags: tuple[tuple[str, str], ...] = ()  # IRCv3 message tags (e.g. ("account", "alice") with account-tag)

    @property
    def nick(self) -> str | None:
        """The sender's nick, when the prefix names a user."""
        if self.prefix is None:
            return None
        return self.prefix.split("!", 1)[0]

    @property
    def userhost(self) -> str | None:
        """The sender's ``user@host``, when the prefix carries it."""
        if self.prefix is None or "!" not in self.prefix or "@" not in self.prefix:
            return None
        return self.prefix.split("!", 1)[1]

    def tag(self, name: str) -> str | None:
        return next((value for key, value in self.tags if key == name), None)

    def param(self, index: int, default: str = "") -> str:
        return self.params[index] if index < len(self.params) else default


def parse(line: str) -> Message:
    """One line (without CR LF) as a :class:`Message`; raises :class:`ProtocolError` when empty or malformed."""
    line = line.rstrip("\r\n")
    tags: tuple[tuple[str, str], ...] = ()
    if line.startswith("@"):  # IRCv3 message tags
        raw_tags, _, line = line.partition(" ")
        tags = tuple(_tag(t) for t in raw_tags[1:].split(";") if t)
    prefix = None
    if line.startswith(":"):
        prefix, _, line = line[1:].partition(" ")
    line = line.lstrip(" ")
    if not line:
        raise ProtocolError("no command")
    head, sep, trailing = line.partition(" :")
    parts = head.split()
    if not parts:
        raise ProtocolError("no command")
    params = parts[1:] + ([trailing] if sep else [])
    return Message(parts[0].upper(), tuple(params), prefix or None, tags)


TAG_ESCAPES = {"\\:": ";", "\\s": " ", "\\\\": "\\", "\\r": "\r", "\\n": "\n"}


def _tag(raw: str) -> tuple[str, str]:
    key, _, value = raw.partition("=")
    out, i = [], 0
    while i < len(value):
        pair = value[i:i + 2]
        if pair in TAG_ESCAPES:
            out.append(TAG_ESCAPES[pair])
            i += 2
        else:
            out.append(value[i] if value[i] != "\\" else "")
            i += 1
    return key, "".join(out)


def clean(text: str) -> str:
    """Text safe inside one line: no CR, LF or NUL."""
    return text.replace("\r", " ").replace("\n", " ").replace("\0", "")


def format_message(command: str, *params: str) -> str:
    """A line (without CR LF); the last parameter becomes trailing (``:``) when it needs to."""
    params = tuple(clean(p) for p in params)
    for p in params[:-1]:
        if not p or " " in p or p.startswith(":"):
            raise ProtocolError(f"middle parameter {p!r} may not be empty, contain spaces or start with ':'")
    if params and (not params[-1] or " " in params[-1] or params[-1].startswith(":")):
        params = (*params[:-1], ":" + params[-1])
    return " ".join((command, *params))


BREAKS = (". ", "; ", " | ", ": ", ", ")  # where a long text is cut, best first: sentences, then list items


def split_text(text: str, limit: int = TEXT_BYTES) -> list[str]:
    """Text in pieces of at most ``limit`` UTF-8 bytes, cut after a sentence where one ends in the second half
    of the piece, else between list items, else at a space (never inside a character)."""
    text = clean(text)
    pieces: list[str] = []
    while len(text.encode()) > limit:
        cut = len(text.encode()[:limit].decode(errors="ignore"))
        skip = 0
        for mark in BREAKS:
            at = text.rfind(mark, 0, cut + (len(mark) if mark.startswith(" ") else 1))
            if at > cut // 2:  # a list separator (" | ") is dropped where the text is cut; punctuation stays
                cut, skip = (at, len(mark)) if mark.startswith(" ") else (at + len(mark.rstrip()), 0)
                break
        else:
            space = text.rfind(" ", 0, cut + 1)
            if space > cut // 2:
                cut = space
        pieces.append(text[:cut].rstrip())
        text = text[cut + skip:].lstrip()
    if text or not pieces:
        pieces.append(text)
    return pieces


def is_channel(target: str) -> bool:
    return target[:1] in "#&+!" and len(target) > 1

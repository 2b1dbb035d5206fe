"""IRC protocol lines: parsing and writing messages (RFC 2812 framing; IRCv3 tags are skipped)."""

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

    @property
    def nick(self) -> str | None:
        """The sender's nick, when the prefix names a user."""
        if self.prefix is None:
            return None
        return self.prefix.split("!", 1)[0]

    def param(self, index: int, default: str = "") -> str:
        return self.params[index] if index < len(self.params) else default


def parse(line: str) -> Message:
    """One line (without CR LF) as a :class:`Message`; raises :class:`ProtocolError` when empty or malformed."""
    line = line.rstrip("\r\n")
    if line.startswith("@"):  # IRCv3 message tags
        _, _, line = line.partition(" ")
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
    return Message(parts[0].upper(), tuple(params), prefix or None)


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


def split_text(text: str, limit: int = TEXT_BYTES) -> list[str]:
    """Text in pieces of at most ``limit`` UTF-8 bytes, cut at spaces where possible (never inside a character)."""
    text = clean(text)
    pieces: list[str] = []
    while len(text.encode()) > limit:
        cut = len(text.encode()[:limit].decode(errors="ignore"))
        space = text.rfind(" ", 0, cut + 1)
        if space > cut // 2:
            cut = space
        pieces.append(text[:cut].rstrip())
        text = text[cut:].lstrip()
    if text or not pieces:
        pieces.append(text)
    return pieces


def is_channel(target: str) -> bool:
    return target[:1] in "#&+!" and len(target) > 1

"""Who sits in a seat: an identity stronger than a nick.

A seat is bound to the person who took it, as the IRC server shows him:

- his **services account**, where the server names one (IRCv3 ``account-tag`` or ``extended-join``): then
  the account alone decides, whatever the nick;
- otherwise his **nick and user@host** while he stays on IRC (a nick change is followed). Once he leaves IRC
  (QUIT) the seat is *away*: the same nick from the same user@host gets it back for :data:`RECONNECT_S` (a
  dropped connection, a server restart: he reconnects as he was); after that somebody else may have the nick,
  even from the same host, so only his **claim code** gives the seat back: a private code handed to him when he
  sat down, kept by the bridge only as its SHA-256. A QUIT the network caused (a netsplit, the server going
  down: :func:`network_quit`) does not make the seat away at all.
"""

from __future__ import annotations

import hashlib
import re
import secrets
import time
from dataclasses import dataclass

from services.chat.irc.store import SeatRecord

CLAIM_ALPHABET = "abcdefghjkmnpqrstuvwxyz23456789"  # no 0/o, 1/i/l
CLAIM_GROUPS = 3
CLAIM_GROUP_LEN = 4  # 31 ** 12: about 2 ** 59 codes
RECONNECT_S = 900.0  # a player who left IRC sits again as the same nick and user@host within this long
# QUIT reasons the network gives, not the player: a netsplit ("hub.example.net leaf.example.net") or the server
# going down or restarting (the wordings of ircd-hybrid, InspIRCd, UnrealIRCd, ngircd, miniircd)
_SPLIT = re.compile(r"^[\w-]+(\.[\w-]+)+ [\w-]+(\.[\w-]+)+$")
_SERVER = re.compile(r"server (is )?(shutting|going) down|server terminating|restart|\*\.net \*\.split", re.I)


@dataclass(frozen=True, slots=True)
class Sender:
    """Who wrote a line, as the server named him."""

    nick: str
    userhost: str | None = None
    account: str | None = None


def new_claim_code() -> str:
    """``abcd-efgh-jkmn``: easy to copy, hard to guess."""
    return "-".join("".join(secrets.choice(CLAIM_ALPHABET) for _ in range(CLAIM_GROUP_LEN))
                    for _ in range(CLAIM_GROUPS))


def claim_hash(code: str) -> str:
    normal = "".join(c for c in code.lower() if c.isalnum())
    return hashlib.sha256(normal.encode()).hexdigest()


def claim_matches(record: SeatRecord, code: str) -> bool:
    return bool(record.claim_hash) and secrets.compare_digest(record.claim_hash, claim_hash(code))


def same_nick(a: str, b: str) -> bool:
    return irc_lower(a) == irc_lower(b)


def irc_lower(nick: str) -> str:
    """Nicks compare without case, ``[]\\~`` being the upper case of ``{}|^`` (RFC 1459)."""
    return nick.lower().translate(str.maketrans("[]\\~", "{}|^"))


def network_quit(reason: str) -> bool:
    """Whether a QUIT's reason says the network, not the player, ended his connection."""
    return bool(_SPLIT.match(reason.strip()) or _SERVER.search(reason))


def is_seated(record: SeatRecord, sender: Sender, now: float | None = None) -> bool:
    """Whether ``sender`` is the person sitting in ``record``'s seat (``now``: seconds since the epoch)."""
    if record.account is not None:
        return sender.account is not None and sender.account.lower() == record.account.lower()
    if not same_nick(record.nick, sender.nick):
        return False
    if record.away:  # back as he left, soon enough: the same nick and user@host
        since = (time.time() if now is None else now) - record.away_since
        return record.userhost is not None and sender.userhost == record.userhost and since <= RECONNECT_S
    return record.userhost is None or sender.userhost is None or record.userhost == sender.userhost

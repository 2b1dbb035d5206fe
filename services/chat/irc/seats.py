"""Who sits in a seat: an identity stronger than a nick.

A seat is bound to the person who took it, as the IRC server shows him:

- his **services account**, where the server names one (IRCv3 ``account-tag`` or ``extended-join``): then
  the account alone decides, whatever the nick;
- otherwise his **nick and user@host** while he stays on IRC (a nick change is followed). Once he leaves IRC
  (QUIT) the seat is *away*: somebody else may take the nick, even from the same host, so only his **claim
  code** gives the seat back: a private code handed to him when he sat down, kept by the bridge only as its
  SHA-256.
"""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass

from services.chat.irc.store import SeatRecord

CLAIM_ALPHABET = "abcdefghjkmnpqrstuvwxyz23456789"  # no 0/o, 1/i/l
CLAIM_GROUPS = 3
CLAIM_GROUP_LEN = 4  # 31 ** 12: about 2 ** 59 codes


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


def is_seated(record: SeatRecord, sender: Sender) -> bool:
    """Whether ``sender`` is the person sitting in ``record``'s seat."""
    if record.account is not None:
        return sender.account is not None and sender.account.lower() == record.account.lower()
    if record.away or not same_nick(record.nick, sender.nick):
        return False
    return record.userhost is None or sender.userhost is None or record.userhost == sender.userhost

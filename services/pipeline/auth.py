"""Seat credentials (the gateway's seat tokens): made once when a seat is joined, kept only as a hash."""

from __future__ import annotations

import hashlib
import hmac
import secrets

from schemas.envelopes import MatchMeta


def hash_credential(credential: str) -> str:
    return hashlib.sha256(credential.encode()).hexdigest()


def new_token(seat: int) -> str:
    """``<seat>.<48 hex digits>``: the seat is readable, the secret is 192 random bits."""
    return f"{seat}.{secrets.token_hex(24)}"


def token_seat(token: str) -> int | None:
    """The seat a well-formed token names (None for anything else)."""
    head, _, secret = token.partition(".")
    if not (head.isdigit() and len(head) <= 2 and len(secret) == 48):
        return None
    try:
        int(secret, 16)
    except ValueError:
        return None
    return int(head)


def seat_authorized(meta: MatchMeta, seat: int, credential: str | None) -> bool:
    """Whether ``credential`` is the one given to ``seat`` of this match (constant-time comparison)."""
    expected = meta.credential_hashes.get(seat)
    if expected is None or not credential:
        return False
    return hmac.compare_digest(expected, hash_credential(credential))

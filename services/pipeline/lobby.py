"""Creating matches and joining seats. A seat's credential is returned once and stored only as a hash."""

from __future__ import annotations

import secrets
import uuid
from collections.abc import Mapping
from typing import Any

from schemas.envelopes import MatchMeta
from services.games import get_game
from services.games.errors import BadOptions
from services.games.rng import derive_rng
from services.pipeline.auth import hash_credential, new_token
from services.pipeline.ports import EventStore
from services.pipeline.states import to_envelope


def create_match(
    store: EventStore,
    game_name: str,
    seats: int,
    options: Mapping[str, Any] | None = None,
    seed: int | None = None,
    match_id: str | None = None,
    reveal_log: bool = True,
) -> MatchMeta:
    """Set the match up (its first events are written now) and open its seats for joining."""
    game = get_game(game_name)
    seed = secrets.randbits(63) if seed is None else seed
    match_id = match_id or uuid.uuid4().hex[:16]
    events = game.setup(dict(options or {}), seats, derive_rng(seed, 0))
    started = events[0].body.get("options", {}) if events else {}
    meta = MatchMeta(match_id=match_id, game=game_name, seats=seats, options=started, seed=seed, status="open",
                     reveal_log=reveal_log)
    envelopes = [to_envelope(match_id, i + 1, e) for i, e in enumerate(events)]
    if not store.create_match(meta, envelopes):
        raise BadOptions(f"match id '{match_id}' is taken")
    return meta


def join(store: EventStore, match_id: str, seat: int | None = None) -> tuple[int, str]:
    """Take a seat (the first free one if ``seat`` is None). Returns (seat, credential)."""
    meta = store.meta(match_id)
    if meta is None:
        raise BadOptions(f"no match '{match_id}'")
    candidates = [seat] if seat is not None else [s for s in range(meta.seats) if s not in meta.credential_hashes]
    for candidate in candidates:
        credential = new_token(candidate)
        if store.claim_seat(match_id, candidate, hash_credential(credential)) is not None:
            return candidate, credential
    raise BadOptions(f"seat {seat} of match '{match_id}' is taken" if seat is not None else "the match is full")

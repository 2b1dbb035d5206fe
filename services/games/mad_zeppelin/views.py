"""What a seat (or a spectator) may see: its own hand and Traitors, everyone's public facts."""

from __future__ import annotations

from typing import Any

from services.games.mad_zeppelin.data import STANDING
from services.games.mad_zeppelin.legal import expected
from services.games.mad_zeppelin.rules import identity, is_banned, score
from services.games.mad_zeppelin.state import Phase, State


def view(state: State, seat: int | None) -> dict[str, Any]:
    own = seat is not None and 0 <= seat < state.seats
    me = state.players[seat] if own and seat is not None else None
    who, types, what = expected(state)
    phase = state.phase
    return {
        "mode": state.mode,
        "target": state.target,
        "phase": str(phase),  # the plain string, never the enum
        "turn": state.turn,
        "round": state.round,
        "leader": state.leader,
        "current_seat": state.seat if phase in (Phase.PLAY, Phase.ACTIONS) else None,
        "awaiting": {"seat": who, "commands": sorted(types), "what": what} if who >= 0 else None,
        "safe": state.safe,
        "hold_count": len(state.hold),
        "removed_count": len(state.removed),
        "journeys": state.journeys,
        "discard": list(state.discard),
        "dice": list(state.dice),
        "airsick_count": len(state.airsick),
        "unused_count": len(state.pool),
        "players": [_player(state, s) for s in range(state.seats)],
        "plays": [{"seat": p.seat, "traitor": p.traitor, "identity": p.identity, "colour": p.colour}
                  for p in state.plays],
        "named_unplayable": [t for t, _ in state.bans],
        "captain_watches": [{"seat": s, "traitor": t} for s, t in state.watches],
        "sequence": _sequence(state),
        "hand": list(me.hand) if me else None,
        "traitors": ([{"traitor": t, "playable": not is_banned(state, seat, t)} for t in me.traitors]
                     if me and seat is not None else None),
        "draft_pool": list(state.pool) if own and phase == Phase.DRAFT and state.seat == seat else None,
        "knowledge": ([{"kind": k, "of": None if of < 0 else of, "cards": list(cards)}
                       for k, of, cards in state.notes[seat]] if own and seat is not None else None),
    }


def _player(state: State, seat: int) -> dict[str, Any]:
    p = state.players[seat]
    who = identity(state, seat)
    return {
        "seat": seat,
        "gold": p.gold,
        "hand_count": len(p.hand),
        "front": list(p.front),
        "points": score(p.front),
        "unplayed_traitors": len(p.traitors),
        "current": who,
        "standing_ability": who if who in STANDING else None,
        "rerolls_used": p.rerolls,
    }


def _sequence(state: State) -> dict[str, Any] | None:
    seq = state.seq
    if seq is None:
        return None
    return {
        "seat": seq.seat,
        "searched": seq.searched,
        "ability_used": seq.ability_used,
        "copied_ability_pending": seq.copied,
        "throws_left": (2 if identity(state, seq.seat) == "opportunist" else 1) if seq.throw == 0
        else 1 if seq.throw == 1 else 0,
        "thrown": seq.throw > 0,
        "arranging": seq.arrange,
        "giving_seat": seq.give if seq.give >= 0 else None,
        "stealing_seats": list(seq.steals),
    }

"""Every command ``decide`` accepts now for a seat, ability targets and payments included."""

from __future__ import annotations

from itertools import permutations

from services.games.base import Command
from services.games.errors import IllegalMove
from services.games.mad_zeppelin.abilities import ability_now, may_reroll
from services.games.mad_zeppelin.acting import expected
from services.games.mad_zeppelin.data import (
    ALCOHOL,
    BLACK,
    COLOURS,
    THROWABLE,
    TRAITOR_KEYS,
    WHITE,
)
from services.games.mad_zeppelin.flow import give_options
from services.games.mad_zeppelin.rules import (
    crates_redundant,
    current_play,
    dice_colours,
    playable,
    played_traitors,
    steal_protection,
    taster_protected,
    throw_cost,
)
from services.games.mad_zeppelin.state import Sequence, State


def legal_commands(state: State, seat: int) -> list[Command]:
    who, types, _ = expected(state)
    if seat != who:
        return []
    if "draft" in types:
        return [Command(seat, "draft", {"traitor": t}) for t in state.pool]
    if "choose_colour" in types:
        return [Command(seat, "choose_colour", {"die": d, "colour": c})
                for d, face in enumerate(state.dice) if face == WHITE for c in COLOURS]
    if "play_traitor" in types:
        return [Command(seat, "play_traitor", {"traitor": t}) for t in playable(state, seat)]
    seq = state.seq
    if seq is None:
        return []
    if "steal" in types:
        return [Command(seat, "steal", {"take": "gold"}), Command(seat, "steal", {"take": "cargo"})]
    if "give" in types:
        return [Command(seat, "give", {"what": "gold"} if o == "gold" else {"what": "cargo", "card": o})
                for o in give_options(state, seat)]
    if "arrange_hold" in types:
        return [Command(seat, "arrange_hold", {"order": list(p)}) for p in permutations(range(seq.arrange))]
    return [*_abilities(state, seat), *_rerolls(state, seat, seq), *_throws(state, seat, seq),
            Command(seat, "end_sequence", {})]


def _dice_in(state: State) -> list[int]:
    return [d for d, face in enumerate(state.dice) if face != BLACK]


def _abilities(state: State, seat: int) -> list[Command]:
    try:
        ability = ability_now(state, seat)
    except IllegalMove:
        return []
    bodies: list[dict[str, object]] = []
    others = [s for s in range(state.seats) if s != seat]
    if ability in ("captain", "doctor"):
        bodies = [{"traitor": t} for t in TRAITOR_KEYS]
    elif ability == "stowaway":
        played = played_traitors(state)
        bodies = [{"traitor": t} for t in TRAITOR_KEYS if t not in played]
    elif ability == "shadow":
        index = state.players[seat].current
        if index > 0 and state.plays[index - 1].identity != "shadow":
            bodies = [{}]
    elif ability == "lookout":
        if state.seq is not None and may_reroll(state, seat, state.seq, True) is None:
            bodies = [{"die": d} for d in _dice_in(state)]
    elif ability == "anarchist":
        bodies = [{"die": d} for d in _dice_in(state)]
    elif ability == "clairvoyant":
        bodies = [{"look": "unused"}]
        bodies += [{"look": "player", "seat": s} for s in others if not taster_protected(state, s)]
    elif ability == "negotiator":
        bodies = [{"seat": s} for s in others if steal_protection(state, s) is None]
    elif ability == "geologist":
        bodies = [{}]
    return [Command(seat, "use_ability", body) for body in bodies]


def _rerolls(state: State, seat: int, seq: Sequence) -> list[Command]:
    if may_reroll(state, seat, seq, False) is not None:
        return []
    return [Command(seat, "reroll", {"die": d}) for d in _dice_in(state)]


def _throws(state: State, seat: int, seq: Sequence) -> list[Command]:
    if seq.throw == 2:
        return []
    player = state.players[seat]
    kinds = sorted(set(player.hand))
    out = [Command(seat, "throw", {"card": ALCOHOL}) for k in kinds if k == ALCOHOL]
    play = current_play(state, seat)
    if play is None or play.colour not in dice_colours(state):
        return out
    smalls, bigs = player.hand.count("small_crate"), player.hand.count("big_crate")
    for card in kinds:
        if card not in THROWABLE:
            continue
        cost = throw_cost(state, seat, card)
        for b in range(min(bigs, 2) + 1):
            for s in range(min(smalls, 4) + 1):
                crates = ["big_crate"] * b + ["small_crate"] * s
                if crates_redundant(crates, cost) or max(0, cost - 2 * b - s) > player.gold:
                    continue
                body: dict[str, object] = {"card": card}
                if crates:
                    body["crates"] = crates
                out.append(Command(seat, "throw", body))
    return out

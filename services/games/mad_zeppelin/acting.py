"""Who must act now and which command types they may send."""

from __future__ import annotations

from typing import Final

from services.games.mad_zeppelin.data import WHITE
from services.games.mad_zeppelin.state import State

ACTIONS: Final = frozenset({"use_ability", "reroll", "throw", "end_sequence"})
COMMAND_TYPES: Final = frozenset({
    "draft", "choose_colour", "play_traitor", "steal", "give", "arrange_hold", *ACTIONS,
})


def expected(state: State) -> tuple[int, frozenset[str], str]:
    """(seat that must act or -1, command types it may send, what it must do in words)."""
    phase = state.phase
    if phase == "draft":
        return state.seat, frozenset({"draft"}), "draft a Traitor"
    if phase == "colours":
        return state.leader, frozenset({"choose_colour"}), "choose a colour for each white die"
    if phase == "play":
        return state.seat, frozenset({"play_traitor"}), "play a Traitor"
    seq = state.seq
    if phase != "actions" or seq is None:
        return -1, frozenset(), "wait"
    if seq.steals:
        return seq.steals[0], frozenset({"steal"}), f"choose to steal Gold or Cargo from seat {seq.seat}"
    if seq.give >= 0:
        return seq.give, frozenset({"give"}), f"give seat {seq.seat} 1 Gold or 1 Cargo card"
    if WHITE in state.dice:
        return seq.seat, frozenset({"choose_colour"}), "choose a colour for the re-rolled white die"
    if seq.arrange:
        return seq.seat, frozenset({"arrange_hold"}), "put the cards you looked at back on the Hold"
    return seq.seat, ACTIONS, "take your actions (use_ability, reroll, throw) or end_sequence"


def to_act(state: State) -> frozenset[int]:
    seat = expected(state)[0]
    return frozenset({seat}) if seat >= 0 else frozenset()

"""Who must act now and which command types they may send."""

from __future__ import annotations

from typing import Final

from services.games.mad_zeppelin.data import WHITE
from services.games.mad_zeppelin.state import State

ACTIONS: Final = frozenset({"use_ability", "reroll", "throw", "end_sequence"})
COMMAND_TYPES: Final = frozenset({
    "draft", "choose_colour", "play_traitor", "steal", "give", "arrange_hold", *ACTIONS,
})
_DRAFT: Final = frozenset({"draft"})
_COLOUR: Final = frozenset({"choose_colour"})
_PLAY: Final = frozenset({"play_traitor"})
_STEAL: Final = frozenset({"steal"})
_GIVE: Final = frozenset({"give"})
_ARRANGE: Final = frozenset({"arrange_hold"})
_NONE: Final[frozenset[str]] = frozenset()


def expected(state: State) -> tuple[int, frozenset[str], str]:
    """(seat that must act or -1, command types it may send, what it must do in words)."""
    phase = state.phase
    if phase == "draft":
        return state.seat, _DRAFT, "draft a Traitor"
    if phase == "colours":
        return state.leader, _COLOUR, "choose a colour for each white die"
    if phase == "play":
        return state.seat, _PLAY, "play a Traitor"
    seq = state.seq
    if phase != "actions" or seq is None:
        return -1, _NONE, "wait"
    if seq.steals:
        return seq.steals[0], _STEAL, f"choose to steal Gold or Cargo from seat {seq.seat}"
    if seq.give >= 0:
        return seq.give, _GIVE, f"give seat {seq.seat} 1 Gold or 1 Cargo card"
    if WHITE in state.dice:
        return seq.seat, _COLOUR, "choose a colour for the re-rolled white die"
    if seq.arrange:
        return seq.seat, _ARRANGE, "put the cards you looked at back on the Hold"
    return seq.seat, ACTIONS, "take your actions (use_ability, reroll, throw) or end_sequence"


def to_act(state: State) -> frozenset[int]:
    seat = expected(state)[0]
    return frozenset({seat}) if seat >= 0 else frozenset()

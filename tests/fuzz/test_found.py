"""Inputs the fuzzer found that a game did not reject cleanly (each failed with an unexpected exception
in ``decide``, so the worker retried it to the dead-letter stream instead of answering at once)."""

from __future__ import annotations

import pytest

from services.games.errors import BadCommand
from services.games.moderne_zeiten.tests.helpers import act, turn_state


@pytest.mark.parametrize("to", [[], {}, ["aviation"], {"aviation": 1}])
def test_moderne_zeiten_move_to_an_unhashable_value_is_a_bad_command(to: object) -> None:
    state = turn_state(4, 0, hands={0: {"aviation": 1, "shipping": 1}})
    state, _ = act(state, 0, "play", {"cards": {"aviation": 1, "shipping": 1}})
    with pytest.raises(BadCommand, match=r"'to': Input should be"):
        act(state, 0, "move", {"to": to})

"""Liar's Dice on the wire: options, commands, events (full and redacted) and the view. Imports nothing from
``services/``."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from schemas.game_schemas import (
    MATCH_ABANDONED,
    Body,
    CommandBody,
    GameSchemas,
    GameView,
    MatchAbandonedEvent,
    ViewModel,
)

GAME_NAME = "liars-dice"
FACES = 6
SAY_MAX = 40


class Options(BaseModel):
    model_config = ConfigDict(extra="forbid")
    dice: int = Field(default=5, ge=1, le=5, description="The dice each player starts with.")


class BidCommand(CommandBody):
    count: int = Field(ge=1, description="At least this many dice on the table show the face...")
    face: int = Field(ge=1, le=FACES, description="...this one.")


class CallCommand(CommandBody):
    """The last bid is a lie: show every die."""

    say: str = Field(default="", max_length=SAY_MAX, description="What the caller says, for the table (optional).")


COMMANDS: dict[str, type[CommandBody]] = {"bid": BidCommand, "call": CallCommand}


class MatchStartedEvent(Body):
    game: str
    seats: int
    options: dict[str, int]


class DiceRolledEvent(Body):
    seat: int
    count: int = Field(description="How many dice the seat rolled (public).")
    dice: list[int] | None = Field(default=None, description="The faces: the seat's own secret.")


class BidMadeEvent(Body):
    seat: int
    count: int
    face: int


class CalledEvent(Body):
    seat: int = Field(description="Who called the bid a lie.")
    dice: list[list[int]] = Field(description="Every seat's dice, shown.")
    loser: int
    say: str = Field(default="", description="What the caller said (absent: nothing).")


EVENTS = {"MatchStarted": MatchStartedEvent, MATCH_ABANDONED: MatchAbandonedEvent,
                       "DiceRolled": DiceRolledEvent, "BidMade": BidMadeEvent, "Called": CalledEvent}


class BidView(ViewModel):
    seat: int
    count: int
    face: int


class LiarsDiceView(GameView):
    dice: list[int] | None = Field(description="The seat's own dice; null for a spectator.")
    dice_counts: list[int] = Field(description="Each seat's dice: 0 is out.")
    bid: BidView | None
    shown: list[list[int]] | None = Field(description="Every die, as the last call showed them.")


SCHEMAS = GameSchemas(game=GAME_NAME, options=Options, commands=dict(COMMANDS), events=EVENTS,
                      view=LiarsDiceView)

"""Wire contract of Moderne Zeiten: the enumerations, the options, command bodies, event bodies (full
and redacted) and the view. The one definition of these shapes: the game imports its enumerations and
options from here; this module imports nothing from ``services/``.

Industries are the keys ``shipping``, ``aviation``, ``high_rise`` (High Rise Construction),
``automobile`` and ``telecom`` (Telecommunications). Cities are ``new_orleans``, ``chicago``,
``berlin``, ``paris``, ``london``, ``new_york``. Seats are 0-based; "left" is the next seat up.
Money is in millions.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, get_args

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

GAME_NAME = "moderne-zeiten"

# --- enumerations ---

Industry = Literal["shipping", "aviation", "high_rise", "automobile", "telecom"]
INDUSTRIES: tuple[Industry, ...] = get_args(Industry)

City = Literal["new_orleans", "chicago", "berlin", "paris", "london", "new_york"]
CITIES: tuple[City, ...] = get_args(City)  # of the printed board (another printing may name others)

Destination = Literal["shipping", "aviation", "high_rise", "automobile", "telecom", "finish"]
MoveTarget = Destination | None  # an industry, "finish", or None: stay
MOVE_TARGETS: tuple[MoveTarget, ...] = (*get_args(Destination), None)

PhaseName = Literal["new", "setup", "auction", "turn", "moving", "over"]
PHASES: tuple[PhaseName, ...] = get_args(PhaseName)

Cards = dict[Industry, int]
Seat = int

CITY_DOC = "A city key: " + ", ".join(CITIES) + " on the printed board."
CARDS_DOC = "Cards by industry, e.g. {\"aviation\": 2, \"telecom\": 1}; industries with no card are left out."


# --- options ---


class Options(BaseModel):
    """Match options: each is a choice the rules file marks *(option)*."""

    model_config = ConfigDict(extra="forbid", strict=True)  # no coercion: "yes" is no boolean

    forced_move: bool = Field(
        True, description="Moving the Zeppelin is compulsory when possible (off: a player may stay)."
    )
    move_needs_play: bool = Field(
        True,
        description="Moving needs at least one card played this turn (the Essen rule); "
        "off: a player may play no cards and only move.",
    )
    crash_after_move: bool = Field(
        True, description="The market crash check comes after the move (off: right after the play)."
    )


# --- commands ---


class BidCommand(CommandBody):
    """Bid in the auction of the face-up cards."""

    amount: int = Field(description="Whole millions; above the current bid and at most your money.")


class PassCommand(CommandBody):
    """Leave the current auction."""


class DrawCommand(CommandBody):
    """Action A: draw two cards (fewer if the stack is short) and end the turn."""


class PlayCommand(CommandBody):
    """Action B: play cards from your hand in front of you, then move your Zeppelin if you can."""

    cards: dict[Industry, Annotated[int, Field(gt=0)]] = Field(
        description=CARDS_DOC + " Each count is a whole number from 1 to the cards of that industry in "
        "your hand. At least one card unless the option move_needs_play is off and you can move: then "
        "{} plays nothing and only moves. After the play the Zeppelin moves by itself when there is "
        "exactly one compulsory destination; otherwise a 'move' is asked for."
    )


class MoveCommand(CommandBody):
    """Where the Zeppelin goes after a play, when the view's move_choices offers a choice."""

    to: MoveTarget = Field(
        description="The industry whose next unclaimed space you claim, 'finish' to end the game, "
        "or null to stay (only when offered in the view's move_choices)."
    )


COMMANDS: dict[str, type[CommandBody]] = {
    "bid": BidCommand,
    "pass": PassCommand,
    "draw": DrawCommand,
    "play": PlayCommand,
    "move": MoveCommand,
}


# --- events ---


class MatchStartedEvent(Body):
    game: str
    seats: int
    options: dict[str, bool]


class StackShuffledEvent(Body):
    order: list[Industry] | None = Field(None, description="The new stack, top first. Seen by nobody.")
    count: int = Field(description="Cards in the stack.")


class CardsDealtEvent(Body):
    seat: Seat
    cards: Cards | None = Field(None, description="Only the dealt seat sees them.")
    count: int


class StartPlayerChosenEvent(Body):
    seat: Seat = Field(description="The random first start player.")


class RoundStartedEvent(Body):
    round: int
    start_player: Seat


class DieRolledEvent(Body):
    seat: Seat
    roll: int = Field(description="1-6: how many cards are laid out for auction.")


class CardsLaidOutEvent(Body):
    cards: list[Industry] = Field(description="The face-up auction cards in the order laid out.")
    count: int


class AuctionSkippedEvent(Body):
    reason: str


class BidMadeEvent(Body):
    seat: Seat
    amount: int


class PassedEvent(Body):
    seat: Seat


class AuctionWonEvent(Body):
    seat: Seat
    amount: int
    cards: Cards
    received: list[int] = Field(description="Millions each seat received from the winner (his own 0).")


class AuctionUnsoldEvent(Body):
    cards: Cards = Field(description="Returned under the stack.")
    count: int


class CardsDrawnEvent(Body):
    seat: Seat
    cards: Cards | None = Field(None, description="Only the drawing seat sees them.")
    count: int


class CardsPlayedEvent(Body):
    seat: Seat
    cards: Cards
    count: int
    counter: int = Field(description="The share counter after the play.")


class ControlTakenEvent(Body):
    seat: Seat
    industry: Industry
    count: int
    previous: Seat | None


class MoveAwaitedEvent(Body):
    seat: Seat
    choices: list[MoveTarget]


class ZeppelinMovedEvent(Body):
    seat: Seat
    industry: Industry
    city: str = Field(description=CITY_DOC)
    space: int = Field(description="Track space 1..30 now claimed (big marker; small marker on the table).")
    from_: int = Field(alias="from")


class MoveDeclinedEvent(Body):
    seat: Seat


class MarketCrashedEvent(Body):
    industries: list[Industry]
    removed: int
    counter: int


class TurnEndedEvent(Body):
    seat: Seat


class ZeppelinFinishedEvent(Body):
    seat: Seat


class GameEndedEvent(Body):
    scores: list[int]
    winners: list[Seat]
    detail: dict[str, Any]


# --- view ---


class PlayerView(ViewModel):
    seat: Seat
    money: int
    hand_count: int
    played: dict[Industry, int] = Field(description="Cards in front of the player, by industry.")
    position: int = Field(description="0 Start, 1..30 track space, 31 Finish.")
    big_markers: int
    small_markers: int
    controls: list[Industry]


class AuctionView(ViewModel):
    cards: Cards
    high_bid: int
    high_bidder: Seat | None
    passed: list[Seat]
    bidder: Seat | None


class SpaceView(ViewModel):
    space: int
    city: str = Field(description=CITY_DOC)
    industry: Industry
    claimed_by: Seat | None


class MzView(GameView):
    phase: PhaseName
    options: dict[str, bool]
    round: int
    start_player: Seat | None
    current: Seat | None = Field(description="Whose turn it is (draw/play/move); null during the auction.")
    stack_count: int
    counter: int = Field(description="Share counter: cards in front of all players.")
    crash_limit: int = Field(description="A market crash happens when the counter is above this.")
    controller: dict[Industry, Seat | None]
    players: list[PlayerView]
    hand: dict[Industry, int] | None = Field(description="Your own hand; null for spectators.")
    auction: AuctionView | None
    move_choices: list[MoveTarget] | None
    track: list[SpaceView]
    finish: int
    city_points: dict[str, int] = Field(description="Each city's scoring-table row value.")
    industry_points: dict[Industry, int]
    ended_by: Seat | None


SCHEMAS = GameSchemas(
    game=GAME_NAME,
    options=Options,
    commands=dict(COMMANDS),
    events={
        "MatchStarted": MatchStartedEvent,
        MATCH_ABANDONED: MatchAbandonedEvent,
        "StackShuffled": StackShuffledEvent,
        "CardsDealt": CardsDealtEvent,
        "StartPlayerChosen": StartPlayerChosenEvent,
        "RoundStarted": RoundStartedEvent,
        "DieRolled": DieRolledEvent,
        "CardsLaidOut": CardsLaidOutEvent,
        "AuctionSkipped": AuctionSkippedEvent,
        "BidMade": BidMadeEvent,
        "Passed": PassedEvent,
        "AuctionWon": AuctionWonEvent,
        "AuctionUnsold": AuctionUnsoldEvent,
        "CardsDrawn": CardsDrawnEvent,
        "CardsPlayed": CardsPlayedEvent,
        "ControlTaken": ControlTakenEvent,
        "MoveAwaited": MoveAwaitedEvent,
        "ZeppelinMoved": ZeppelinMovedEvent,
        "MoveDeclined": MoveDeclinedEvent,
        "MarketCrashed": MarketCrashedEvent,
        "TurnEnded": TurnEndedEvent,
        "ZeppelinFinished": ZeppelinFinishedEvent,
        "GameEnded": GameEndedEvent,
    },
    view=MzView,
)

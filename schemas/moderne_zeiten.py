"""Wire contract of Moderne Zeiten: command bodies, event bodies (full and redacted) and the view.

Industries are the keys ``shipping``, ``aviation``, ``high_rise`` (High Rise Construction),
``automobile`` and ``telecom`` (Telecommunications). Cities are ``new_orleans``, ``chicago``,
``berlin``, ``paris``, ``london``, ``new_york``. Seats are 0-based; "left" is the next seat up.
Money is in millions.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from schemas.game_schemas import Body, GameSchemas, ViewModel
from services.games.moderne_zeiten.setup import GAME_NAME, Options

Industry = Literal["shipping", "aviation", "high_rise", "automobile", "telecom"]
City = Literal["new_orleans", "chicago", "berlin", "paris", "london", "new_york"]
MoveTarget = Literal["shipping", "aviation", "high_rise", "automobile", "telecom", "finish"] | None
Cards = dict[Industry, int]
Seat = int

CARDS_DOC = "Cards by industry, e.g. {\"aviation\": 2, \"telecom\": 1}; zero counts may be left out."


# --- commands ---


class BidCommand(Body):
    amount: int = Field(description="Whole millions; above the current bid and at most your money.")


class PassCommand(Body):
    """Leave the current auction."""


class DrawCommand(Body):
    """Action A: draw two cards (fewer if the stack is short) and end the turn."""


class PlayCommand(Body):
    cards: Cards = Field(
        description=CARDS_DOC + " At least one card unless the option move_needs_play is off and you "
        "can move. After the play the Zeppelin moves by itself when there is exactly one compulsory "
        "destination; otherwise a 'move' is asked for."
    )


class MoveCommand(Body):
    to: MoveTarget = Field(
        description="The industry whose next unclaimed space you claim, 'finish' to end the game, "
        "or null to stay (only when offered in the view's move_choices)."
    )


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
    city: str
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
    city: str
    industry: Industry
    claimed_by: Seat | None


class MzView(ViewModel):
    seat: Seat | None
    to_act: list[Seat]
    finished: bool
    outcome: dict[str, Any] | None
    phase: Literal["new", "setup", "auction", "turn", "moving", "over"]
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
    city_points: dict[str, int]
    industry_points: dict[Industry, int]
    ended_by: Seat | None


SCHEMAS = GameSchemas(
    game=GAME_NAME,
    options=Options,
    commands={
        "bid": BidCommand,
        "pass": PassCommand,
        "draw": DrawCommand,
        "play": PlayCommand,
        "move": MoveCommand,
    },
    events={
        "MatchStarted": MatchStartedEvent,
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

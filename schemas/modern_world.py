"""Wire contract of Modern World: command bodies, event bodies (full and redacted) and the view.

Token names: victory, influence, money, materials, labor, research, action. Cards travel by name
(resource cards like "Finance", market cards like "Asian Tiger", event cards like "Trade War").
Seats are numbered from 0.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from schemas.game_schemas import Body, GameSchemas, ViewModel
from services.games.modern_world import Options

Token = Literal["victory", "influence", "money", "materials", "labor", "research", "action"]
Convertible = Literal["victory", "influence", "materials", "labor", "research", "action"]
Nation = Literal["Europe", "China", "Japan", "India", "Russia", "USA"]
Phase = Literal[
    "setup", "nations", "leader", "market", "resource", "investment", "trade", "build", "end", "over"
]
TokenCounts = dict[Token, int]


# ------------------------------------------------------------------------------------ commands


class ConvertCommand(Body):
    """Turn 3 money per token into ``count`` tokens of another kind; allowed at any of your decisions."""

    into: Convertible = Field(description="the token kind to gain")
    count: int = Field(1, ge=1, description="tokens to gain; costs 3 money each")


class PickNationCommand(Body):
    """National identity option: pick a nation not yet taken (its resource card starts in play)."""

    nation: Nation


class BidCommand(Body):
    """Bid influence in the running auction: at least 1 above the high bid, at most your influence."""

    amount: int = Field(ge=1)


class EmptyCommand(Body):
    """``pass`` in an auction (you may bid again later) or ``done`` with your part of the phase."""


class BuyCommand(Body):
    """Buy the tableau card at ``position`` (1 = cheapest); action + research must equal the position."""

    position: int = Field(ge=1, le=10, description="tableau position, which is also the price")
    action: int = Field(0, ge=0, description="action tokens paid")
    research: int = Field(0, ge=0, description="research tokens paid")


class CardsCommand(Body):
    """``invest``: discard these hand cards for 3x their production. ``discard``: end-phase discard of
    exactly the cards above 7."""

    cards: list[str] = Field(min_length=1, description="resource card names, repeats for copies")


class ProposeTradeCommand(Body):
    """Offer a trade to seat ``to`` (still trading); a player may have at most 3 proposals open at once."""

    to: int = Field(ge=0)
    give_cards: list[str] = Field(default_factory=list, description="cards from your hand you give")
    give_tokens: TokenCounts = Field(default_factory=dict, description="tokens you give")
    get_cards: list[str] = Field(default_factory=list, description="cards you ask for")
    get_tokens: TokenCounts = Field(default_factory=dict, description="tokens you ask for")


class TradeIdCommand(Body):
    """Accept or decline the open proposal ``id`` made to you."""

    id: int = Field(ge=1)


class BuildCommand(Body):
    """Put a card from hand into play: 5 materials + 5 labor (7 + 7 with a copy in play), +1 each per
    earlier build this phase."""

    card: str


# ------------------------------------------------------------------------------------ events


class MatchStartedEvent(Body):
    game: str
    seats: int
    options: Options


class DecksShuffledEvent(Body):
    """Deck orders (top first); secret to everyone: the redacted body has only the counts."""

    resource: list[str] | None = None
    market: list[str] | None = None
    events: list[str] | None = None
    counts: list[int] = Field(description="resource, market, event deck sizes")


class SeatEvent(Body):
    """LeaderChosen, RandomPlayerChosen: the seat chosen."""

    seat: int


class NationPickedEvent(Body):
    seat: int
    nation: Nation
    card: str = Field(description="the resource card put into play from the deck")


class CardsEvent(Body):
    """TableauDealt, MarketCardsDrawn: cards revealed in order."""

    cards: list[str]


class TurnStartedEvent(Body):
    turn: int


class TokensProducedEvent(Body):
    gains: list[TokenCounts] = Field(description="per seat, the tokens produced")


class CardEvent(Body):
    """EventFlipped, EventDiscarded: an event card."""

    card: str


class TieBrokenEvent(Body):
    capacity: Token
    rule: Literal["highest", "lowest"]
    tied: list[int]
    rounds: list[list[list[int]]] = Field(description="each round: [seat, roll] pairs; lowest roll wins")
    seat: int


class TokensChangedEvent(Body):
    seat: int
    token: Token
    delta: int
    roll: int | None = Field(None, description="the 1D6 roll, when the card rolls one")
    card: str


class PermanentEventTakenEvent(Body):
    seat: int
    card: str


class SkipOrderedEvent(Body):
    """PhaseSkipped and SkipOrdered: ``seat`` None means every player."""

    phase: str
    seat: int | None


class MarketsAddedEvent(Body):
    count: int


class PhaseStartedEvent(Body):
    phase: Phase
    order: list[int] = Field(description="seats that act in this phase, in order")


class MarketDeckReshuffledEvent(Body):
    cards: list[str] | None = Field(None, description="new market deck order; secret")
    count: int


class AuctionStartedEvent(Body):
    card: str | None = Field(description="market card, or None for the Leader Marker")
    first: int


class BidPlacedEvent(Body):
    seat: int
    amount: int


class BidPassedEvent(Body):
    seat: int


class AuctionWonEvent(Body):
    seat: int
    bid: int
    card: str | None
    reward: TokenCounts


class AuctionUnsoldEvent(Body):
    card: str | None


class CardBoughtEvent(Body):
    seat: int
    position: int
    card: str
    action: int
    research: int
    refill: str | None = Field(description="card flipped from the deck onto the tableau")


class PlayerDoneEvent(Body):
    seat: int
    phase: Phase
    lapsed: list[int] = Field(description="trade proposals that lapsed")


class CardsInvestedEvent(Body):
    seat: int
    cards: list[str]
    gains: TokenCounts


class TradeSide(Body):
    cards: list[str] | None = Field(description="card names; None where hidden from you")
    card_count: int
    tokens: TokenCounts


class TradeEvent(Body):
    """TradeProposed (redacted: sides None) and TradeAccepted (redacted: card names None)."""

    id: int
    proposer: int
    partner: int
    give: TradeSide | None = Field(None, description="from proposer to partner")
    get: TradeSide | None = Field(None, description="from partner to proposer")


class TradeDeclinedEvent(Body):
    id: int
    seat: int


class TradeRefusedEvent(Body):
    id: int
    reason: str


class CardBuiltEvent(Body):
    seat: int
    card: str
    materials: int
    labor: int


class CardsDiscardedEvent(Body):
    seat: int
    cards: list[str]


class MoneyConvertedEvent(Body):
    seat: int
    into: Convertible
    count: int


class GameEndedEvent(Body):
    reason: str
    scores: list[int]
    winners: list[int]


# ------------------------------------------------------------------------------------ view


class PlayerView(ViewModel):
    seat: int
    tokens: dict[Token, int]
    capacity: dict[Token, int]
    hand: list[str] | None = Field(description="your own hand; None for others")
    hand_count: int
    in_play: list[str]
    permanent_events: list[str]
    nation: Nation | None
    done_trading: bool
    proposals_made: int


class TableauSlot(ViewModel):
    price: int
    card: str


class AuctionView(ViewModel):
    item: str = Field(description="'leader' or the market card")
    high_bid: int
    high_bidder: int | None
    to_bid: int
    passes: int


class TradeSideView(ViewModel):
    cards: list[str]
    tokens: TokenCounts


class TradeView(ViewModel):
    id: int
    proposer: int
    partner: int
    give: TradeSideView | None = Field(None, description="shown to the two parties only")
    get: TradeSideView | None = None


class ModernWorldView(ViewModel):
    seat: int | None
    to_act: list[int]
    finished: bool
    outcome: dict[str, object] | None
    phase: Phase
    turn: int
    leader: int
    players: list[PlayerView]
    tableau: list[TableauSlot]
    resource_deck_count: int
    resource_discard: list[str]
    market_deck_count: int
    market_row: list[str]
    market_discard: list[str]
    event_deck_count: int
    event_discard: list[str]
    current_event: str | None
    auction: AuctionView | None
    queue: list[int]
    builds_this_phase: int
    trades: list[TradeView]
    skipped_phases: list[str]
    skip_build: list[int]
    extra_markets: int
    nations_left: list[str]


SCHEMAS = GameSchemas(
    game="modern-world",
    options=Options,
    commands={
        "convert": ConvertCommand,
        "pick_nation": PickNationCommand,
        "bid": BidCommand,
        "pass": EmptyCommand,
        "done": EmptyCommand,
        "buy": BuyCommand,
        "invest": CardsCommand,
        "discard": CardsCommand,
        "propose_trade": ProposeTradeCommand,
        "accept_trade": TradeIdCommand,
        "decline_trade": TradeIdCommand,
        "build": BuildCommand,
    },
    events={
        "MatchStarted": MatchStartedEvent,
        "DecksShuffled": DecksShuffledEvent,
        "LeaderChosen": SeatEvent,
        "NationPicked": NationPickedEvent,
        "TableauDealt": CardsEvent,
        "TurnStarted": TurnStartedEvent,
        "TokensProduced": TokensProducedEvent,
        "EventFlipped": CardEvent,
        "TieBroken": TieBrokenEvent,
        "RandomPlayerChosen": SeatEvent,
        "TokensChanged": TokensChangedEvent,
        "PermanentEventTaken": PermanentEventTakenEvent,
        "EventDiscarded": CardEvent,
        "SkipOrdered": SkipOrderedEvent,
        "PhaseSkipped": SkipOrderedEvent,
        "MarketsAdded": MarketsAddedEvent,
        "PhaseStarted": PhaseStartedEvent,
        "MarketCardsDrawn": CardsEvent,
        "MarketDeckReshuffled": MarketDeckReshuffledEvent,
        "AuctionStarted": AuctionStartedEvent,
        "BidPlaced": BidPlacedEvent,
        "BidPassed": BidPassedEvent,
        "AuctionWon": AuctionWonEvent,
        "AuctionUnsold": AuctionUnsoldEvent,
        "CardBought": CardBoughtEvent,
        "PlayerDone": PlayerDoneEvent,
        "CardsInvested": CardsInvestedEvent,
        "TradeProposed": TradeEvent,
        "TradeAccepted": TradeEvent,
        "TradeDeclined": TradeDeclinedEvent,
        "TradeRefused": TradeRefusedEvent,
        "CardBuilt": CardBuiltEvent,
        "CardsDiscarded": CardsDiscardedEvent,
        "MoneyConverted": MoneyConvertedEvent,
        "GameEnded": GameEndedEvent,
    },
    view=ModernWorldView,
)

"""Wire contract of Modern World: options, the enumerations, command bodies, event bodies (full and
redacted) and the view. The one definition of every Modern World wire shape; imports nothing from
``services/`` (the game package imports its enumerations from here).

Token names: victory, influence, money, materials, labor, research, action. Cards travel by name
(resource cards like "Finance", market cards like "Asian Tiger", event cards like "Trade War").
Seats are numbered from 0.

Command bodies are validated strictly (``schemas.game_schemas.CommandBody``): no coercion, unknown
fields refused. A list of cards names a copy once per entry ("Mining" twice is two Mining cards); a
token map lists only what moves (positive counts). An optional field is either left out or given a
value: a trade side that moves nothing is left out, not sent empty.
"""

from __future__ import annotations

from typing import Annotated, Final, Literal, get_args

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

# ------------------------------------------------------------------------------------ enumerations

Token = Literal["victory", "influence", "money", "materials", "labor", "research", "action"]
TOKENS: Final[tuple[Token, ...]] = get_args(Token)
"""The token kinds, in the order every per-player token tuple of the rules uses."""

Convertible = Literal["victory", "influence", "materials", "labor", "research", "action"]
CONVERTIBLE: Final[tuple[Convertible, ...]] = get_args(Convertible)
"""What 3 money may be turned into: every token kind but money."""

Nation = Literal["Europe", "China", "Japan", "India", "Russia", "USA"]
NATIONS: Final[tuple[Nation, ...]] = get_args(Nation)

ResourceName = Literal[
    "Government", "Science", "Agriculture", "Mining", "Finance", "Military", "Culture", "Media",
    "Entertainment", "Chemicals", "Medicine", "Technology", "Law", "Oil", "Energy", "Land", "Internet",
    "Politics", "Manufacturing", "Fishing", "Corporations", "Commerce", "Water", "Industry", "Infrastructure",
    "Education", "Cities", "Bureaucracy",
]
RESOURCE_NAMES: Final[tuple[ResourceName, ...]] = get_args(ResourceName)
"""The 28 resource cards (4 copies each), in table order: hands are listed in this order."""

MarketName = Literal[
    "Middle East", "Central Asia", "South East Asia", "North Africa", "Sub-Saharan Africa", "Oil Rich State",
    "Central America", "South America", "Scandinavia", "Eastern Europe", "Third World Country",
    "Caribbean Nation", "Indigenous Population", "Secular Arab Country", "Developing Economy", "Asian Tiger",
    "Banana Republic", "Internet Economy", "Regional Cartel", "Balkan State", "Baltic State", "Global Market",
    "Commonwealth State", "Pacific Rim Nation", "Island Nation",
]
MARKET_NAMES: Final[tuple[MarketName, ...]] = get_args(MarketName)
"""The 25 market cards, in table order."""

EventName = Literal[
    "Political Crisis", "Foreign Insurgency", "Overpopulation", "Food Crisis", "Pollution", "Depression",
    "Social Revolution", "Territorial Dispute", "Trade War", "Stock Market Crash", "Global Economic Crisis",
    "Civil War", "Corruption", "Rebellion", "Desertification", "Long Term Recession", "Over Exploitation",
    "Brain Drain", "Military Quagmire", "Organized Crime", "Rising Sea Level", "Scandals",
    "Economic Stagnation", "Human Rights Abuses", "Minority Oppression", "Cyber Warfare", "Pandemic",
    "Energy Crisis", "Peace Talks", "Epidemic", "Natural Disaster", "Man Made Disaster", "Host Olympics",
    "Think Tank", "Poverty", "Fast Growth", "Entrepreneurship", "Modernization", "Foreign Investing",
    "Industrialization", "War on Terror", "Green Policies", "Military Buildup", "Emerging Markets",
]
EVENT_NAMES: Final[tuple[EventName, ...]] = get_args(EventName)
"""The 44 event cards, in table order."""

Phase = Literal[
    "setup", "nations", "leader", "market", "resource", "investment", "trade", "build", "end", "over"
]
PHASES: Final[tuple[Phase, ...]] = get_args(Phase)
"""The phases a match can wait in, plus ``setup`` (before MatchStarted) and ``over``."""

SkippablePhase = Literal["market", "investment", "trade", "build"]
"""Phases an event card may skip (``build`` only for the players it names)."""

TokenCounts = dict[Token, int]
PositiveCount = Annotated[int, Field(ge=1)]

TABLEAU_SIZE: Final = 10
"""Tableau positions 1..10; a card's position is its price."""
MAX_CARDS: Final = 200
"""Most cards one invest or discard command may name."""
MAX_TRADE_CARDS: Final = 20
MAX_TRADE_TOKENS: Final = 999
"""The most of one kind of token a trade proposal may give or ask for."""
TradeCount = Annotated[int, Field(ge=1, le=MAX_TRADE_TOKENS)]
"""Most cards one side of a trade proposal may name."""
MAX_CONVERT: Final = 1000
"""Most tokens one convert command may make."""


# ------------------------------------------------------------------------------------ options


class Options(BaseModel):
    """Match options of Modern World."""

    model_config = ConfigDict(extra="forbid", strict=True)  # no coercion: "yes" is no boolean

    national_identity: bool = Field(
        False,
        description="Each player picks a distinct nation in turn order from the leader and starts with its "
        "resource card in play (Europe: Culture, China: Manufacturing, Japan: Technology, India: Agriculture, "
        "Russia: Land, USA: Military).",
    )


# ------------------------------------------------------------------------------------ commands


class ConvertCommand(CommandBody):
    """Turn 3 money per token into ``count`` tokens of another kind; allowed at any of your decisions."""

    into: Convertible = Field(description="the token kind to gain (any but money)")
    count: int = Field(1, ge=1, le=MAX_CONVERT, description="tokens to gain; costs 3 money each (default 1)")


class PickNationCommand(CommandBody):
    """National identity option: pick a nation not yet taken (its resource card starts in play)."""

    nation: Nation = Field(description="a nation still in the view's nations_left")


class BidCommand(CommandBody):
    """Bid influence in the running auction."""

    amount: int = Field(description="influence; at least 1 above the high bid, at most your influence")


class EmptyCommand(CommandBody):
    """``pass`` in an auction (you may bid again later) or ``done`` with your part of the phase."""


class BuyCommand(CommandBody):
    """Buy the tableau card at ``position`` (1 = cheapest); action + research must equal the position."""

    position: int = Field(ge=1, le=TABLEAU_SIZE, description="tableau position, which is also the price")
    action: int = Field(0, ge=0, description="action tokens paid (default 0)")
    research: int = Field(0, ge=0, description="research tokens paid (default 0)")


class CardsCommand(CommandBody):
    """``invest``: discard these hand cards for 3x their production. ``discard``: end-phase discard of
    exactly the cards above 7."""

    cards: list[ResourceName] = Field(
        min_length=1, max_length=MAX_CARDS,
        description="resource cards from your hand, a name once per copy (any order)",
    )


class ProposeTradeCommand(CommandBody):
    """Offer a trade to seat ``to`` (still trading); a player may have at most 3 proposals open at once.
    At least one side moves something; a side that moves nothing is left out."""

    to: int = Field(ge=0, description="the partner's seat: another player still trading")
    give_cards: list[ResourceName] = Field(
        default_factory=list, min_length=1, max_length=MAX_TRADE_CARDS,
        description="cards from your hand you give, a name once per copy",
    )
    give_tokens: dict[Token, TradeCount] = Field(
        default_factory=dict, min_length=1, description="tokens you give, at most what you hold"
    )
    get_cards: list[ResourceName] = Field(
        default_factory=list, min_length=1, max_length=MAX_TRADE_CARDS,
        description="cards you ask for, a name once per copy",
    )
    get_tokens: dict[Token, TradeCount] = Field(
        default_factory=dict, min_length=1, description="tokens you ask for"
    )


class TradeIdCommand(CommandBody):
    """Accept or decline the open proposal ``id`` made to you."""

    id: int = Field(ge=1, description="the proposal's id, as in the view's trades")


class BuildCommand(CommandBody):
    """Put a card from hand into play: 5 materials + 5 labor (7 + 7 with a copy in play), +1 each per
    earlier build this phase."""

    card: ResourceName = Field(description="a resource card in your hand")


COMMANDS: dict[str, type[CommandBody]] = {
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
}
"""Command type -> its body model (``services.games.kit.parse_body`` validates against it)."""

SECRET_COMMANDS = frozenset({"propose_trade"})
"""Choices the rules keep from the other players: what a trade proposal offers and asks (only the two partners see
it). Sent privately (a chat table refuses them in its channel)."""


# ------------------------------------------------------------------------------------ events


class MatchStartedEvent(Body):
    game: str
    seats: int
    options: Options


class DecksShuffledEvent(Body):
    """Deck orders (top first); secret to everyone: the redacted body has only the counts."""

    resource: list[ResourceName] | None = None
    market: list[MarketName] | None = None
    events: list[EventName] | None = None
    counts: list[int] = Field(description="resource, market, event deck sizes")


class SeatEvent(Body):
    """LeaderChosen, RandomPlayerChosen: the seat chosen."""

    seat: int


class NationPickedEvent(Body):
    seat: int
    nation: Nation
    card: ResourceName = Field(description="the resource card put into play from the deck")


class TableauDealtEvent(Body):
    """The first ten resource cards, cheapest first."""

    cards: list[ResourceName]


class MarketCardsDrawnEvent(Body):
    """Market cards drawn for this turn's auctions, in order."""

    cards: list[MarketName]


class TurnStartedEvent(Body):
    turn: int


class TokensProducedEvent(Body):
    gains: list[TokenCounts] = Field(description="per seat, the tokens produced")


class EventCardEvent(Body):
    """EventFlipped, EventDiscarded: an event card."""

    card: EventName


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
    card: EventName


class PermanentEventTakenEvent(Body):
    seat: int
    card: EventName


class SkipOrderedEvent(Body):
    """PhaseSkipped and SkipOrdered: ``seat`` None means every player."""

    phase: SkippablePhase
    seat: int | None


class MarketsAddedEvent(Body):
    count: int


class PhaseStartedEvent(Body):
    phase: Phase
    order: list[int] = Field(description="seats that act in this phase, in order")


class MarketDeckReshuffledEvent(Body):
    cards: list[MarketName] | None = Field(None, description="new market deck order; secret")
    count: int


class AuctionStartedEvent(Body):
    card: MarketName | None = Field(description="market card, or None for the Leader Marker")
    first: int


class BidPlacedEvent(Body):
    seat: int
    amount: int


class BidPassedEvent(Body):
    seat: int


class AuctionWonEvent(Body):
    seat: int
    bid: int
    card: MarketName | None
    reward: TokenCounts


class AuctionUnsoldEvent(Body):
    card: MarketName | None


class CardBoughtEvent(Body):
    seat: int
    position: int
    card: ResourceName
    action: int
    research: int
    refill: ResourceName | None = Field(description="card flipped from the deck onto the tableau")


class PlayerDoneEvent(Body):
    seat: int
    phase: Phase
    lapsed: list[int] = Field(description="trade proposals that lapsed")


class CardsInvestedEvent(Body):
    seat: int
    cards: list[ResourceName]
    gains: TokenCounts


class TradeSide(Body):
    cards: list[ResourceName] | None = Field(description="card names; None where hidden from you")
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
    card: ResourceName
    materials: int
    labor: int


class CardsDiscardedEvent(Body):
    seat: int
    cards: list[ResourceName]


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
    hand: list[ResourceName] | None = Field(description="your own hand; None for others")
    hand_count: int
    in_play: list[ResourceName]
    permanent_events: list[EventName]
    nation: Nation | None
    done_trading: bool
    proposals_made: int


class TableauSlot(ViewModel):
    price: int
    card: ResourceName


class AuctionView(ViewModel):
    item: MarketName | Literal["leader"] = Field(description="'leader' or the market card")
    high_bid: int
    high_bidder: int | None
    to_bid: int
    passes: int


class TradeSideView(ViewModel):
    cards: list[ResourceName]
    tokens: TokenCounts


class TradeView(ViewModel):
    id: int
    proposer: int
    partner: int
    give: TradeSideView | None = Field(None, description="shown to the two parties only")
    get: TradeSideView | None = None


class ModernWorldView(GameView):
    phase: Phase
    turn: int
    leader: int
    players: list[PlayerView]
    tableau: list[TableauSlot]
    resource_deck_count: int
    resource_discard: list[ResourceName]
    market_deck_count: int
    market_row: list[MarketName]
    market_discard: list[MarketName]
    event_deck_count: int
    event_discard: list[EventName]
    current_event: EventName | None
    auction: AuctionView | None
    queue: list[int]
    builds_this_phase: int
    trades: list[TradeView]
    skipped_phases: list[SkippablePhase]
    skip_build: list[int]
    extra_markets: int
    nations_left: list[Nation]


SCHEMAS = GameSchemas(
    game="modern-world",
    options=Options,
    commands={**COMMANDS},
    events={
        "MatchStarted": MatchStartedEvent,
        MATCH_ABANDONED: MatchAbandonedEvent,
        "DecksShuffled": DecksShuffledEvent,
        "LeaderChosen": SeatEvent,
        "NationPicked": NationPickedEvent,
        "TableauDealt": TableauDealtEvent,
        "TurnStarted": TurnStartedEvent,
        "TokensProduced": TokensProducedEvent,
        "EventFlipped": EventCardEvent,
        "TieBroken": TieBrokenEvent,
        "RandomPlayerChosen": SeatEvent,
        "TokensChanged": TokensChangedEvent,
        "PermanentEventTaken": PermanentEventTakenEvent,
        "EventDiscarded": EventCardEvent,
        "SkipOrdered": SkipOrderedEvent,
        "PhaseSkipped": SkipOrderedEvent,
        "MarketsAdded": MarketsAddedEvent,
        "PhaseStarted": PhaseStartedEvent,
        "MarketCardsDrawn": MarketCardsDrawnEvent,
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

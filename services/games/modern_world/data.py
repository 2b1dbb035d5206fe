"""Modern World as data: token types, the 28 resource cards, 25 market cards, 44 event cards, nations.

Every card is transcribed from the seed rule text (``rules/seeds/modern_world.txt``). Cards are
referred to by their index into these tables inside the rules and by their name on the wire. The
names, and their order, come from the wire contract (:mod:`services.games.modern_world.schemas`); the tables here
give each name its numbers.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from services.games.modern_world.schemas import CONVERTIBLE as CONVERTIBLE
from services.games.modern_world.schemas import EVENT_NAMES as EVENT_NAMES
from services.games.modern_world.schemas import MARKET_NAMES as MARKET_NAMES
from services.games.modern_world.schemas import MAX_TRADE_CARDS as MAX_TRADE_CARDS
from services.games.modern_world.schemas import MAX_TRADE_TOKENS as MAX_TRADE_TOKENS
from services.games.modern_world.schemas import NATIONS as _NATION_NAMES
from services.games.modern_world.schemas import RESOURCE_NAMES as RESOURCE_NAMES
from services.games.modern_world.schemas import TABLEAU_SIZE as TABLEAU_SIZE
from services.games.modern_world.schemas import TOKENS as TOKENS
from services.games.modern_world.schemas import EventName, MarketName, Nation, ResourceName

# Token types, in the order every per-player token tuple uses (TOKENS).
VICTORY, INFLUENCE, MONEY, MATERIALS, LABOR, RESEARCH, ACTION = range(7)
NATION_NAMES: Final = _NATION_NAMES
TOKEN_INDEX: Final[dict[str, int]] = {name: i for i, name in enumerate(TOKENS)}
NO_TOKENS: Final = (0, 0, 0, 0, 0, 0, 0)

# What every player produces before cards and permanent events (V I $ M L R A).
BASELINE: Final = (1, 10, 4, 3, 3, 3, 3)
START_TOKENS: Final = (3, 3, 3, 3, 3, 3, 3)

HAND_LIMIT: Final = 7
RESOURCE_COPIES: Final = 4
INVEST_FACTOR: Final = 3
MONEY_PER_TOKEN: Final = 3
BUILD_COST: Final = 5
BUILD_COST_DUPLICATE: Final = 7
MAX_OPEN_PROPOSALS: Final = 3  # proposals a player may have open at once (this project's reading)
EMERGING_MARKETS_EXTRA: Final = 2


@dataclass(frozen=True, slots=True)
class ResourceCard:
    name: ResourceName
    production: tuple[int, ...]  # per token type, TOKENS order


# Card name: V I $ M L R A (seed's column order; stored in TOKENS order, which is the same).
_PRODUCTION: Final[dict[ResourceName, tuple[int, int, int, int, int, int, int]]] = {
    "Government": (0, 0, 0, 0, 0, 0, 2),
    "Science": (0, 0, 0, 0, 0, 2, 0),
    "Agriculture": (0, 0, 0, 0, 2, 0, 0),
    "Mining": (0, 0, 0, 2, 0, 0, 0),
    "Finance": (0, 0, 4, 0, 0, 0, 0),
    "Military": (0, 2, 0, 0, 0, 0, 0),
    "Culture": (2, 0, 0, 0, 0, 0, 0),
    "Media": (1, 1, 0, 0, 0, 0, 0),
    "Entertainment": (1, 0, 2, 0, 0, 0, 0),
    "Chemicals": (1, 0, 0, 1, 0, 0, 0),
    "Medicine": (1, 0, 0, 0, 1, 0, 0),
    "Technology": (1, 0, 0, 0, 0, 1, 0),
    "Law": (1, 0, 0, 0, 0, 0, 1),
    "Oil": (0, 1, 2, 0, 0, 0, 0),
    "Energy": (0, 1, 0, 1, 0, 0, 0),
    "Land": (0, 1, 0, 0, 1, 0, 0),
    "Internet": (0, 1, 0, 0, 0, 1, 0),
    "Politics": (0, 1, 0, 0, 0, 0, 1),
    "Manufacturing": (0, 0, 2, 1, 0, 0, 0),
    "Fishing": (0, 0, 2, 0, 1, 0, 0),
    "Corporations": (0, 0, 2, 0, 0, 1, 0),
    "Commerce": (0, 0, 2, 0, 0, 0, 1),
    "Water": (0, 0, 0, 1, 1, 0, 0),
    "Industry": (0, 0, 0, 1, 0, 1, 0),
    "Infrastructure": (0, 0, 0, 1, 0, 0, 1),
    "Education": (0, 0, 0, 0, 1, 1, 0),
    "Cities": (0, 0, 0, 0, 1, 0, 1),
    "Bureaucracy": (0, 0, 0, 0, 0, 1, 1),
}
RESOURCES: Final = tuple(ResourceCard(name, _PRODUCTION[name]) for name in RESOURCE_NAMES)
RESOURCE_INDEX: Final[dict[str, int]] = {name: i for i, name in enumerate(RESOURCE_NAMES)}


@dataclass(frozen=True, slots=True)
class MarketCard:
    name: MarketName
    token: int
    amount: int


# Card name: (reward amount, reward token).
_REWARDS: Final[dict[MarketName, tuple[int, int]]] = {
    "Middle East": (9, VICTORY),
    "Central Asia": (3, LABOR),
    "South East Asia": (7, LABOR),
    "North Africa": (5, VICTORY),
    "Sub-Saharan Africa": (7, MATERIALS),
    "Oil Rich State": (9, MATERIALS),
    "Central America": (5, LABOR),
    "South America": (11, MONEY),
    "Scandinavia": (7, RESEARCH),
    "Eastern Europe": (9, RESEARCH),
    "Third World Country": (5, MATERIALS),
    "Caribbean Nation": (7, MONEY),
    "Indigenous Population": (7, LABOR),
    "Secular Arab Country": (5, VICTORY),
    "Developing Economy": (9, MONEY),
    "Asian Tiger": (13, MONEY),
    "Banana Republic": (3, MATERIALS),
    "Internet Economy": (7, ACTION),
    "Regional Cartel": (5, ACTION),
    "Balkan State": (5, MONEY),
    "Baltic State": (3, RESEARCH),
    "Global Market": (9, ACTION),
    "Commonwealth State": (5, RESEARCH),
    "Pacific Rim Nation": (3, ACTION),
    "Island Nation": (4, MONEY),
}
MARKETS: Final = tuple(MarketCard(name, _REWARDS[name][1], _REWARDS[name][0]) for name in MARKET_NAMES)
MARKET_INDEX: Final[dict[str, int]] = {name: i for i, name in enumerate(MARKET_NAMES)}

# Who an event card hits.
ALL, RANDOM, HIGHEST, LOWEST, NOBODY = "all", "random", "highest", "lowest", "nobody"
# What it does to them.
LOSE_ALL = "lose_all"  # loses every token of `token`
LOSE = "lose"  # loses `amount` (or 1D6 when `die`) of `token`, never below 0
GAIN = "gain"  # gains `amount` (or 1D6 when `die`) of `token`
PERMANENT = "permanent"  # capacity of `token` changes by `amount` from the next production on
SKIP_PHASE = "skip_phase"  # everyone skips `phase` this turn
SKIP_BUILD = "skip_build"  # the targeted player skips the build phase this turn
EXTRA_MARKETS = "extra_markets"  # `amount` more market cards in this turn's market phase


@dataclass(frozen=True, slots=True)
class EventCard:
    name: EventName
    target: str  # ALL, RANDOM, HIGHEST, LOWEST or NOBODY
    effect: str
    capacity: int | None = None  # for HIGHEST/LOWEST: the capacity compared
    token: int | None = None
    amount: int = 0
    die: bool = False  # amount is 1D6, rolled per player affected
    phase: str | None = None

    @property
    def permanent(self) -> bool:
        return self.effect == PERMANENT


def _pw(name: EventName, target: str, capacity: int, effect: str, token: int | None, amount: int = 0) -> EventCard:
    return EventCard(name, target, effect, capacity=capacity, token=token, amount=amount)


def _perm(name: EventName, token: int, amount: int) -> EventCard:
    return EventCard(name, RANDOM, PERMANENT, token=token, amount=amount)


def _dice(name: EventName, target: str, effect: str, token: int) -> EventCard:
    return EventCard(name, target, effect, token=token, die=True)


_EVENT_CARDS: Final = (
    _pw("Political Crisis", LOWEST, INFLUENCE, LOSE_ALL, ACTION),
    _pw("Foreign Insurgency", HIGHEST, INFLUENCE, LOSE_ALL, ACTION),
    _pw("Overpopulation", HIGHEST, LABOR, LOSE, VICTORY, 10),
    _pw("Food Crisis", LOWEST, LABOR, LOSE_ALL, LABOR),
    _pw("Pollution", HIGHEST, MATERIALS, LOSE, VICTORY, 10),
    _pw("Depression", LOWEST, MONEY, LOSE_ALL, INFLUENCE),
    _pw("Social Revolution", LOWEST, RESEARCH, LOSE_ALL, LABOR),
    _pw("Territorial Dispute", LOWEST, MATERIALS, LOSE_ALL, ACTION),
    EventCard("Trade War", NOBODY, SKIP_PHASE, phase="trade"),
    EventCard("Stock Market Crash", NOBODY, SKIP_PHASE, phase="investment"),
    EventCard("Global Economic Crisis", NOBODY, SKIP_PHASE, phase="market"),
    _pw("Civil War", LOWEST, RESEARCH, SKIP_BUILD, None),
    EventCard("Corruption", RANDOM, LOSE_ALL, token=MONEY),
    EventCard("Rebellion", RANDOM, LOSE_ALL, token=ACTION),
    _perm("Desertification", LABOR, -1),
    _perm("Long Term Recession", MONEY, -1),
    _perm("Over Exploitation", MATERIALS, -1),
    _perm("Brain Drain", RESEARCH, -1),
    _perm("Military Quagmire", INFLUENCE, -1),
    _perm("Organized Crime", MONEY, -1),
    _perm("Rising Sea Level", MATERIALS, -1),
    _perm("Scandals", ACTION, -1),
    _perm("Economic Stagnation", MONEY, -1),
    _perm("Human Rights Abuses", VICTORY, -1),
    _perm("Minority Oppression", VICTORY, -1),
    _dice("Cyber Warfare", ALL, LOSE, ACTION),
    _dice("Pandemic", ALL, LOSE, LABOR),
    _dice("Energy Crisis", ALL, LOSE, MATERIALS),
    _dice("Peace Talks", ALL, GAIN, VICTORY),
    _dice("Epidemic", RANDOM, LOSE, LABOR),
    _dice("Natural Disaster", RANDOM, LOSE, ACTION),
    _dice("Man Made Disaster", RANDOM, LOSE, ACTION),
    _dice("Host Olympics", RANDOM, GAIN, VICTORY),
    _dice("Think Tank", RANDOM, GAIN, RESEARCH),
    _perm("Poverty", MONEY, -1),
    _perm("Fast Growth", LABOR, 1),
    _perm("Entrepreneurship", MONEY, 1),
    _perm("Modernization", RESEARCH, 1),
    _perm("Foreign Investing", INFLUENCE, 1),
    _perm("Industrialization", MATERIALS, 1),
    _perm("War on Terror", INFLUENCE, 1),
    _perm("Green Policies", MATERIALS, 1),
    _perm("Military Buildup", INFLUENCE, 1),
    EventCard("Emerging Markets", NOBODY, EXTRA_MARKETS, amount=EMERGING_MARKETS_EXTRA),
)
_EVENT_BY_NAME: Final = {card.name: card for card in _EVENT_CARDS}
EVENTS: Final = tuple(_EVENT_BY_NAME[name] for name in EVENT_NAMES)
EVENT_INDEX: Final[dict[str, int]] = {name: i for i, name in enumerate(EVENT_NAMES)}

# Each nation's resource card, put into play when it is picked.
NATIONS: Final[dict[Nation, ResourceName]] = {
    "Europe": "Culture",
    "China": "Manufacturing",
    "Japan": "Technology",
    "India": "Agriculture",
    "Russia": "Land",
    "USA": "Military",
}

assert set(_PRODUCTION) == set(RESOURCE_NAMES) and set(_REWARDS) == set(MARKET_NAMES)
assert len(_EVENT_CARDS) == len(EVENT_NAMES) and set(_EVENT_BY_NAME) == set(EVENT_NAMES)
assert tuple(NATIONS) == NATION_NAMES


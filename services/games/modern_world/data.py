"""Modern World as data: token types, the 28 resource cards, 25 market cards, 50 event cards, nations.

Every card is transcribed from the seed rule text (``rules/seeds/modern_world.txt``). Cards are
referred to by their index into these tables inside the rules and by their name on the wire.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

# Token types, in the order every per-player token tuple uses.
TOKENS: Final = ("victory", "influence", "money", "materials", "labor", "research", "action")
VICTORY, INFLUENCE, MONEY, MATERIALS, LABOR, RESEARCH, ACTION = range(7)
TOKEN_INDEX: Final = {name: i for i, name in enumerate(TOKENS)}
NO_TOKENS: Final = (0, 0, 0, 0, 0, 0, 0)

# What every player produces before cards and permanent events (V I $ M L R A).
BASELINE: Final = (1, 10, 4, 3, 3, 3, 3)
START_TOKENS: Final = (3, 3, 3, 3, 3, 3, 3)

TABLEAU_SIZE: Final = 10
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
    name: str
    production: tuple[int, ...]  # per token type, TOKENS order


def _res(name: str, v: int, i: int, money: int, m: int, lab: int, r: int, a: int) -> ResourceCard:
    return ResourceCard(name, (v, i, money, m, lab, r, a))


# Card Name: V I $ M L R A (seed's column order; stored in TOKENS order, which is the same).
RESOURCES: Final = (
    _res("Government", 0, 0, 0, 0, 0, 0, 2),
    _res("Science", 0, 0, 0, 0, 0, 2, 0),
    _res("Agriculture", 0, 0, 0, 0, 2, 0, 0),
    _res("Mining", 0, 0, 0, 2, 0, 0, 0),
    _res("Finance", 0, 0, 4, 0, 0, 0, 0),
    _res("Military", 0, 2, 0, 0, 0, 0, 0),
    _res("Culture", 2, 0, 0, 0, 0, 0, 0),
    _res("Media", 1, 1, 0, 0, 0, 0, 0),
    _res("Entertainment", 1, 0, 2, 0, 0, 0, 0),
    _res("Chemicals", 1, 0, 0, 1, 0, 0, 0),
    _res("Medicine", 1, 0, 0, 0, 1, 0, 0),
    _res("Technology", 1, 0, 0, 0, 0, 1, 0),
    _res("Law", 1, 0, 0, 0, 0, 0, 1),
    _res("Oil", 0, 1, 2, 0, 0, 0, 0),
    _res("Energy", 0, 1, 0, 1, 0, 0, 0),
    _res("Land", 0, 1, 0, 0, 1, 0, 0),
    _res("Internet", 0, 1, 0, 0, 0, 1, 0),
    _res("Politics", 0, 1, 0, 0, 0, 0, 1),
    _res("Manufacturing", 0, 0, 2, 1, 0, 0, 0),
    _res("Fishing", 0, 0, 2, 0, 1, 0, 0),
    _res("Corporations", 0, 0, 2, 0, 0, 1, 0),
    _res("Commerce", 0, 0, 2, 0, 0, 0, 1),
    _res("Water", 0, 0, 0, 1, 1, 0, 0),
    _res("Industry", 0, 0, 0, 1, 0, 1, 0),
    _res("Infrastructure", 0, 0, 0, 1, 0, 0, 1),
    _res("Education", 0, 0, 0, 0, 1, 1, 0),
    _res("Cities", 0, 0, 0, 0, 1, 0, 1),
    _res("Bureaucracy", 0, 0, 0, 0, 0, 1, 1),
)
RESOURCE_INDEX: Final = {card.name: i for i, card in enumerate(RESOURCES)}
RESOURCE_NAMES: Final = tuple(card.name for card in RESOURCES)


@dataclass(frozen=True, slots=True)
class MarketCard:
    name: str
    token: int
    amount: int


def _mkt(name: str, amount: int, token: int) -> MarketCard:
    return MarketCard(name, token, amount)


MARKETS: Final = (
    _mkt("Middle East", 9, VICTORY),
    _mkt("Central Asia", 3, LABOR),
    _mkt("South East Asia", 7, LABOR),
    _mkt("North Africa", 5, VICTORY),
    _mkt("Sub-Saharan Africa", 7, MATERIALS),
    _mkt("Oil Rich State", 9, MATERIALS),
    _mkt("Central America", 5, LABOR),
    _mkt("South America", 11, MONEY),
    _mkt("Scandinavia", 7, RESEARCH),
    _mkt("Eastern Europe", 9, RESEARCH),
    _mkt("Third World Country", 5, MATERIALS),
    _mkt("Caribbean Nation", 7, MONEY),
    _mkt("Indigenous Population", 7, LABOR),
    _mkt("Secular Arab Country", 5, VICTORY),
    _mkt("Developing Economy", 9, MONEY),
    _mkt("Asian Tiger", 13, MONEY),
    _mkt("Banana Republic", 3, MATERIALS),
    _mkt("Internet Economy", 7, ACTION),
    _mkt("Regional Cartel", 5, ACTION),
    _mkt("Balkan State", 5, MONEY),
    _mkt("Baltic State", 3, RESEARCH),
    _mkt("Global Market", 9, ACTION),
    _mkt("Commonwealth State", 5, RESEARCH),
    _mkt("Pacific Rim Nation", 3, ACTION),
    _mkt("Island Nation", 4, MONEY),
)
MARKET_INDEX: Final = {card.name: i for i, card in enumerate(MARKETS)}

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
    name: str
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


def _pw(name: str, target: str, capacity: int, effect: str, token: int | None, amount: int = 0) -> EventCard:
    return EventCard(name, target, effect, capacity=capacity, token=token, amount=amount)


def _perm(name: str, token: int, amount: int) -> EventCard:
    return EventCard(name, RANDOM, PERMANENT, token=token, amount=amount)


def _dice(name: str, target: str, effect: str, token: int) -> EventCard:
    return EventCard(name, target, effect, token=token, die=True)


EVENTS: Final = (
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
EVENT_INDEX: Final = {card.name: i for i, card in enumerate(EVENTS)}

NATIONS: Final = {
    "Europe": "Culture",
    "China": "Manufacturing",
    "Japan": "Technology",
    "India": "Agriculture",
    "Russia": "Land",
    "USA": "Military",
}
NATION_NAMES: Final = tuple(NATIONS)

# The nine phases, in order; the decision phases are the ones a state can wait in.
PHASES: Final = (
    "production", "event", "leader", "market", "resource", "investment", "trade", "build", "end",
)

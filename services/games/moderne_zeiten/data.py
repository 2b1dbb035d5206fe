"""Components and the board of Moderne Zeiten, as data.

The board is one table (:data:`PRINTED_TRACK` plus the row and column values); :class:`Board` checks
it and derives what the rules need, so another printing can be loaded with :func:`make_board`.
Industries and cities are referred to by short snake-case keys on the wire (their enumerations are
the wire contract's, :mod:`services.games.moderne_zeiten.schemas`); inside the rules they are indices into
:data:`INDUSTRIES` and the board's ``cities``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from services.games.errors import BadOptions
from services.games.moderne_zeiten.schemas import CITIES as CITIES  # the enumerations are the wire contract's
from services.games.moderne_zeiten.schemas import INDUSTRIES as INDUSTRIES
from services.games.moderne_zeiten.schemas import Industry

INDUSTRY_TITLES: tuple[str, ...] = (
    "Shipping", "Aviation", "High Rise Construction", "Automobile", "Telecommunications",
)
INDUSTRY_INDEX: dict[str, int] = {name: i for i, name in enumerate(INDUSTRIES)}
N_INDUSTRIES = len(INDUSTRIES)

CARDS_PER_INDUSTRY = 21
START_MONEY = 15
HAND_SIZE = 8
BIG_MARKERS = 10
SMALL_MARKERS = 10
DIE_SIDES = 6
DRAW_COUNT = 2
MIN_SEATS = 3
MAX_SEATS = 5


def crash_limit(seats: int) -> int:
    """A market crash happens when the share counter is above this."""
    return 21 if seats == 3 else 25


# The printed board: the 30 track spaces in order (city, industry), then the scoring values.
PRINTED_TRACK: tuple[tuple[str, str], ...] = (
    ("new_orleans", "shipping"), ("chicago", "telecom"), ("berlin", "aviation"),
    ("new_orleans", "automobile"), ("chicago", "high_rise"), ("berlin", "shipping"),
    ("paris", "telecom"), ("london", "aviation"), ("new_york", "automobile"),
    ("paris", "high_rise"), ("london", "shipping"), ("new_york", "telecom"),
    ("new_orleans", "aviation"), ("chicago", "automobile"), ("berlin", "high_rise"),
    ("paris", "shipping"), ("london", "telecom"), ("new_york", "aviation"),
    ("new_orleans", "high_rise"), ("chicago", "shipping"), ("berlin", "telecom"),
    ("paris", "aviation"), ("london", "automobile"), ("new_york", "high_rise"),
    ("new_orleans", "telecom"), ("chicago", "aviation"), ("berlin", "automobile"),
    ("paris", "automobile"), ("london", "high_rise"), ("new_york", "shipping"),
)
PRINTED_CITY_POINTS: tuple[tuple[str, int], ...] = tuple(zip(CITIES, (2, 3, 3, 4, 4, 5), strict=True))
PRINTED_INDUSTRY_POINTS: tuple[tuple[str, int], ...] = tuple(zip(INDUSTRIES, (3, 4, 2, 3, 5), strict=True))


@dataclass(frozen=True, slots=True)
class Board:
    """A checked board. Spaces are numbered 1..len(track); 0 is Start, ``finish`` is Finish."""

    cities: tuple[str, ...]
    city_points: tuple[int, ...]
    industry_points: tuple[int, ...]
    track: tuple[tuple[int, int], ...]  # per space (index space-1): (city index, industry index)
    spaces_of: tuple[tuple[int, ...], ...]  # per industry: its space numbers, ascending

    @property
    def finish(self) -> int:
        return len(self.track) + 1


def make_board(
    track: Sequence[tuple[str, str]],
    city_points: Sequence[tuple[str, int]],
    industry_points: Mapping[str, int] | Sequence[tuple[str, int]],
) -> Board:
    """Build a board from its table; every (city, industry) pair must occur exactly once."""
    cities = tuple(name for name, _ in city_points)
    ind_points = dict(industry_points)
    if set(ind_points) != set(INDUSTRIES):
        raise BadOptions(f"industry values must name exactly {', '.join(INDUSTRIES)}")
    city_index = {name: i for i, name in enumerate(cities)}
    spaces: list[tuple[int, int]] = []
    for city, industry in track:
        if city not in city_index or industry not in INDUSTRY_INDEX:
            raise BadOptions(f"unknown track space ({city}, {industry})")
        spaces.append((city_index[city], INDUSTRY_INDEX[industry]))
    if len(set(spaces)) != len(spaces) or len(spaces) != len(cities) * N_INDUSTRIES:
        raise BadOptions("every (city, industry) pair must be on the track exactly once")
    spaces_of = tuple(
        tuple(n for n, (_, ind) in enumerate(spaces, start=1) if ind == i) for i in range(N_INDUSTRIES)
    )
    return Board(
        cities=cities,
        city_points=tuple(points for _, points in city_points),
        industry_points=tuple(ind_points[name] for name in INDUSTRIES),
        track=tuple(spaces),
        spaces_of=spaces_of,
    )


PRINTED_BOARD = make_board(PRINTED_TRACK, PRINTED_CITY_POINTS, PRINTED_INDUSTRY_POINTS)


_ZEROS = (0,) * N_INDUSTRIES


def counts_of(cards: Mapping[str, int] | Mapping[Industry, int]) -> tuple[int, ...]:
    """{"aviation": 2} -> a per-industry count tuple."""
    return tuple(map(cards.get, INDUSTRIES, _ZEROS))


def cards_of(counts: Sequence[int]) -> dict[str, int]:
    """A per-industry count tuple -> {"aviation": 2} (zero counts left out)."""
    return {INDUSTRIES[i]: n for i, n in enumerate(counts) if n}


def tally(cards: Sequence[int]) -> tuple[int, ...]:
    """A sequence of industry indices -> per-industry counts."""
    counts = [0] * N_INDUSTRIES
    for card in cards:
        counts[card] += 1
    return tuple(counts)

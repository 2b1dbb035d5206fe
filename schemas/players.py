"""The wire contracts of registered players and the ladder (services.gateway.players)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

NAME_PATTERN = r"^[A-Za-z][A-Za-z0-9_-]{1,31}$"


class _Wire(BaseModel):
    model_config = ConfigDict(extra="forbid")


class _Request(_Wire):
    """A request body: validated strictly, as ``schemas.gateway.Request`` (no value converted to another type)."""

    model_config = ConfigDict(extra="forbid", strict=True)


class RegisterPlayer(_Request):
    name: str = Field(pattern=NAME_PATTERN, description="2 to 32 letters, digits, '_' or '-', a letter first; unique.")


class PlayerKey(_Wire):
    name: str
    api_key: str = Field(description="Send as 'X-Airship-Key: <key>' when joining a seat. Shown once; keep it secret.")


class PlayerName(_Wire):
    """Who an API key belongs to (``GET /players/me``): for a client (the web app) that holds a key."""

    name: str


class CreateRatedMatch(_Request):
    players: list[str] = Field(min_length=2, max_length=16,
                               description="Seat i is reserved for players[i]: joined only with that player's key.")
    options: dict[str, Any] = Field(default_factory=dict)
    reveal_log: bool = True


class Standing(_Wire):
    player: str
    rating: float = Field(description="The conservative rating mu - 3 sigma, which orders the ladder.")
    mu: float
    sigma: float
    games: int
    wins: int
    last_match: str


class LadderAnswer(_Wire):
    game: str
    standings: list[Standing]


class HistoryEntry(_Wire):
    match_id: str
    seat: int
    rank: int = Field(description="0 for first place; equal ranks tie.")
    score: int
    won: bool
    players: list[str] = Field(description="The rated players of the match, in seat order.")
    before: float
    after: float
    mu: float
    sigma: float


class PlayerHistory(_Wire):
    game: str
    player: str
    history: list[HistoryEntry]


class ArenaQueue(_Request):
    seats: list[int] | None = Field(
        default=None, min_length=1, max_length=16,
        description="The seat counts you accept, in order of preference (default: every count the game takes, "
                    "largest first). A match forms as soon as enough distinct players wait for one of them.")


class ArenaTicket(_Wire):
    ticket: str = Field(description="Poll it at location (with the same API key) to stay in the queue.")
    game: str
    player: str
    status: str = Field(description="'waiting', or 'matched' with match_id, seat, token and players.")
    seats: list[int] = Field(description="The seat counts the ticket accepts.")
    location: str
    expires_in_s: float | None = Field(default=None, description="While waiting: poll again before this runs out, "
                                                                 "or the ticket leaves the queue.")
    match_id: str | None = None
    seat: int | None = None
    token: str | None = Field(default=None, description="The seat token of your seat (Authorization: Bearer).")
    players: list[str] | None = Field(default=None, description="The match's players, in seat order.")
    claim_in_s: float | None = Field(default=None, description="While matched: every player must collect its seat "
                                     "(poll its ticket) within this long, or the match is dissolved (the collected "
                                     "tickets wait again at the front of the queue).")
    requeued: int = Field(default=0, description="How often a match this ticket was paired into was dissolved "
                                                 "(a player did not collect its seat) and the ticket queued again.")


class ArenaQueueCount(_Wire):
    seats: int
    waiting: int


class ArenaStatus(_Wire):
    game: str
    queues: list[ArenaQueueCount]
    ticket_ttl_s: float
    tickets_per_player: int
    claim_s: float = Field(description="A paired match begins only if every seat is collected within this long.")

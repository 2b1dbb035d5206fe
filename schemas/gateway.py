"""The gateway's wire contract: HTTP request and answer bodies and the WebSocket messages
(docs/gateway.md). The OpenAPI document (``schemas/openapi.json``) is generated from the gateway app,
which uses these models; the WebSocket messages get one JSON Schema each under ``schemas/json/ws``."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from schemas.clock import ARENA_CLOCK, TimeControl
from schemas.envelopes import CommandResult, EventEnvelope, ViewContract

IDEMPOTENCY_KEY = r"^[A-Za-z0-9_.:-]{1,48}$"
COMMAND_TYPE = r"^[A-Za-z_][A-Za-z0-9_]{0,39}$"
MATCH_ID = r"^[A-Za-z0-9_.-]{1,64}$"
TOKEN = r"^[0-9]{1,2}\.[0-9a-f]{48}$"


class Wire(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Request(Wire):
    """A request body or a WebSocket message from a client: validated strictly, as command bodies are
    (``schemas.game_schemas.CommandBody``): a value of the wrong JSON type is refused, never converted
    ("1" is no integer, "yes" and 1 are no booleans, 2.0 is no seat number); unknown fields are refused."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)


# -- HTTP --------------------------------------------------------------------------------------------
class Problem(Wire):
    """An error (RFC 9457 problem details, ``application/problem+json``)."""

    type: str = "about:blank"
    title: str
    status: int
    code: str = Field(description="Stable error code, e.g. 'unauthorized', 'bad_request', 'rate_limited'.")
    detail: str = Field(description="What went wrong, for people (bounded; never echoes large input).")
    field: str | None = Field(default=None, description="The offending field, e.g. 'body.seat'.")


class OptionInfo(Wire):
    name: str
    default: Any = None
    description: str = ""


class GameInfo(Wire):
    name: str
    title: str = Field(description="The game's name for people (\"Moderne Zeiten\").")
    board: str | None = Field(default=None, description="The URL of the game's web board (an ES module exporting "
                                                        "board(view) and hand(view)); null: the view's fields.")
    texts: str | None = Field(default=None, description="The URL of the game's pieces in words (JSON "
                              "`{kind: {name: words}}`: cards, Traitors, events), for the board's texts and tooltips.")
    rules: str | None = Field(default=None, description="The URL of the game's rules in short (Markdown), for people.")
    min_seats: int
    max_seats: int
    commands: list[str]
    secret_commands: list[str] = Field(default_factory=list, description="Those of `commands` whose choice the "
                                       "rules keep hidden from other players until revealed: a client should let its "
                                       "player send them privately (a chat table refuses them in its channel).")
    options: list[OptionInfo]
    clock: list[OptionInfo] = Field(default_factory=list, description="The fields of a match's time control "
                                    "(`clock` of POST /matches; #29), the same for every game, with their defaults.")
    rated_clock: TimeControl = Field(default_factory=lambda: TimeControl.model_validate(ARENA_CLOCK),
                                     description="The time control of every rated (arena and ladder) match.")


class GameList(Wire):
    games: list[GameInfo]


class CreateMatch(Request):
    """A new match (POST /matches). Its options are checked against the game's options model, as strictly:
    a bad one is a 422 bad_options whose field names it (body.options.<name>)."""

    game: str = Field(max_length=40)
    seats: int = Field(ge=1, le=16)
    options: dict[str, Any] = Field(default_factory=dict)
    reveal_log: bool = Field(default=True, description="Once finished, the whole log (every secret) is public.")
    clock: TimeControl | None = Field(default=None, description="The match's time control (none: no clock, the "
                                      "default): per decision, or a bank per seat with an increment (#29).")


class MatchSummary(Wire):
    match_id: str
    game: str
    seats: int
    seats_free: list[int]
    status: Literal["open", "running", "finished"]
    options: dict[str, Any]
    version: int
    reveal_log: bool = True
    clock: TimeControl | None = Field(default=None, description="Its time control (#29); null: no clock.")
    bots: dict[str, str] = Field(default_factory=dict,
                                 description="Seats flagged for the service's bots: seat (as text) -> strength.")
    abandoned: bool = Field(default=False, description="Ended early by its players' agreement (the status is "
                                                        "then 'finished'; no command is accepted).")
    rematch: str | None = Field(default=None, description="A finished match's rematch, once a seat asked for one "
                                "(POST /matches/{id}/rematch): take the same seat number in it.")
    players: dict[str, str] = Field(default_factory=dict,
                                    description="Seats taken by registered players (with their API key): seat (as "
                                                "text) -> name.")
    reserved: dict[str, str] = Field(default_factory=dict,
                                     description="Seats of a rated match: seat (as text) -> the registered player who "
                                                 "plays it. Only that player may take it (with its API key); never "
                                                 "the service's bots.")


class MatchList(Wire):
    matches: list[MatchSummary]


ABANDON_IDLE_S = 300.0  # the timeout rule: how long the seats to act may stay silent before the others decide


class AbandonAnswer(Wire):
    """The state of the vote to end a match early (``POST /matches/{id}/abandon``, one vote per seat)."""

    match_id: str
    abandoned: bool = Field(description="The vote passed: the match is finished, as abandoned.")
    votes: list[int] = Field(description="The seats that agree, at the match's current version.")
    waiting_for: list[int] = Field(description="The seats whose agreement is still needed (all of them, or after "
                                               "the idle time only the seats not to act).")
    idle_after_s: float = Field(description="The timeout rule: once the seats to act let this pass since the "
                                            "first vote without a move, the other seats' votes suffice.")


def abandon_agreed(seats: int, to_act: list[int], votes: set[int], idle_s: float,
                   idle_after_s: float = ABANDON_IDLE_S) -> bool:
    """The abandon rule: every seat agrees; or every seat not to act agrees and the match has not moved for
    ``idle_after_s`` since the first vote (a silent or absent player cannot hold the others; no player ends a
    match alone unless it is his to wait for)."""
    everyone = set(range(seats))
    if votes >= everyone:
        return True
    others = everyone - set(to_act)
    return bool(votes) and bool(others) and votes >= others and idle_s >= idle_after_s


def abandon_waiting_for(seats: int, to_act: list[int], votes: set[int], idle_s: float,
                        idle_after_s: float = ABANDON_IDLE_S) -> list[int]:
    """The seats whose agreement is still needed now."""
    needed = set(range(seats)) - set(to_act) if idle_s >= idle_after_s and votes else set(range(seats))
    return sorted(needed - votes)


class JoinSeat(Request):
    seat: int | None = Field(default=None, ge=0, le=15, description="The seat to take; the first free one if absent.")


class SeatToken(Wire):
    match_id: str
    seat: int
    token: str = Field(description="Send as 'Authorization: Bearer <token>'. Shown once; keep it secret.")


class SendCommand(Request):
    idempotency_key: str = Field(pattern=IDEMPOTENCY_KEY,
                                 description="Chosen by the client, scoped to its seat; re-sending it is safe.")
    type: str = Field(pattern=COMMAND_TYPE, description="The game's command type, e.g. 'bid' (schemas/json/<game>/"
                      "commands); an identifier: the service's own commands, which contain a dot, are not for clients.")
    body: dict[str, Any] = Field(default_factory=dict)
    expected_version: int | None = Field(default=None, ge=0, le=2**62)


class Pending(Wire):
    status: Literal["pending"] = "pending"
    idempotency_key: str
    location: str


ViewFields = ViewContract  # defined once, with the stored record (schemas.envelopes)


VIEW_FIELDS = tuple(ViewFields.model_fields)  # derived: a field added above is carried everywhere


def view_fields(record: Any) -> dict[str, Any]:
    """The common fields of a view record (stored, answered or pushed), by name."""
    return {name: getattr(record, name) for name in VIEW_FIELDS}


class ViewAnswer(ViewFields):
    """A view record: the view, the version it reflects and, for a seat that must act, ``legal``."""


class LogAnswer(Wire):
    match_id: str
    game: str
    perspective: str = Field(description="'full', 'public' or 'seat:<n>'")
    events: list[EventEnvelope]


BotKind = Literal["random", "heuristic", "ismcts"]


class FlagBots(Request):
    seats: list[int] | None = Field(default=None, max_length=16,
                                    description="The free seats to give to bots; every free seat if absent.")
    bot: BotKind = Field(default="heuristic", description="Their strength: random, heuristic or ismcts.")


class BotSeats(Wire):
    match_id: str
    game: str
    bots: dict[str, str] = Field(description="Every seat flagged for bots: seat (as text) -> strength.")


class BotsWanted(Wire):
    matches: list[BotSeats] = Field(description="Open matches whose free seats are all flagged for bots, oldest "
                                                "first: ready for the bots to take them.")


class Verification(Wire):
    ok: bool
    checked: str = Field(description="What was checked, as `airship replay --verify` says it.")
    version: int | None = Field(default=None, description="The first version that differs, when not ok.")


class ReplayOverview(Wire):
    match_id: str
    game: str
    seats: int
    last: int = Field(description="The last version; a replay shows versions 0 to last.")
    perspectives: list[str] = Field(description="'public' and the seats ('0', '1', ...) this caller may replay.")
    scores: list[list[float | None]] = Field(description="Per version, each seat's score as it stood.")
    money: list[list[float | None]] | None = Field(default=None,
                                                   description="Per version, each seat's money (games that have it).")
    verification: Verification


class ReplayStep(Wire):
    match_id: str
    version: int
    last: int
    seat: int | None = Field(description="The perspective: a seat, or null for the public one.")
    event: str = Field(description="The event of this version as the perspective saw it, in words.")
    text: str = Field(description="The step as `airship replay --at V --seat S` prints it.")
    view: dict[str, Any]
    to_act: list[int]
    finished: bool
    outcome: dict[str, Any] | None = None


class Health(Wire):
    status: Literal["ok", "unavailable"]
    detail: str = ""


# -- WebSocket ---------------------------------------------------------------------------------------
class ClientMessage(Request):
    cid: str | None = Field(default=None, max_length=64, description="Correlation id, echoed by the answer.")


class Subscribe(ClientMessage):
    kind: Literal["subscribe"]
    match_id: str = Field(pattern=MATCH_ID)
    token: str | None = Field(default=None, max_length=64, description="A seat token; absent to spectate.")
    after_version: int = Field(default=0, ge=0, le=2**62, description="The version of the last `view` received "
                               "(0: none, or only one of a match waiting for players): views newer than it follow.")
    events: bool = Field(default=False, description="Also receive every event after events_after_version, as seen.")
    events_after_version: int | None = Field(
        default=None, ge=0, le=2**62, description="With events: the version of the last `event` received (default: "
        "after_version): events continue after it, without gap or repeat, however far it is from after_version.")
    texts: bool = Field(default=False, description="With events: each `event` also carries `text`, the game's own "
                        "sentence for it as this subscriber sees it (the words its chat tables are told; '' when the "
                        "game tells nothing of it). For people's screens; a bot leaves it out.")


class WsCommand(ClientMessage):
    kind: Literal["command"]
    match_id: str = Field(pattern=MATCH_ID)
    idempotency_key: str = Field(pattern=IDEMPOTENCY_KEY)
    type: str = Field(pattern=COMMAND_TYPE, description="The game's command type, e.g. 'bid' (schemas/json/<game>/"
                      "commands); an identifier: the service's own commands, which contain a dot, are not for clients.")
    body: dict[str, Any] = Field(default_factory=dict)
    expected_version: int | None = Field(default=None, ge=0, le=2**62)


class Unsubscribe(ClientMessage):
    kind: Literal["unsubscribe"]
    match_id: str = Field(pattern=MATCH_ID)


class Ping(ClientMessage):
    kind: Literal["ping"]


class Subscribed(Wire):
    kind: Literal["subscribed"] = "subscribed"
    cid: str | None = None
    match_id: str
    seat: int | None
    version: int


class Unsubscribed(Wire):
    kind: Literal["unsubscribed"] = "unsubscribed"
    cid: str | None = None
    match_id: str


class Pong(Wire):
    kind: Literal["pong"] = "pong"
    cid: str | None = None


class ViewMessage(ViewFields):
    kind: Literal["view"] = "view"


class EventMessage(Wire):
    kind: Literal["event"] = "event"
    match_id: str
    event: EventEnvelope


class TextedEventMessage(EventMessage):
    """An event for a subscription with ``texts``: the game's sentence for it beside it."""

    text: str = Field(description="The game's sentence for the event as this subscriber sees it ('': nothing to "
                      "tell, e.g. bookkeeping); rendered from the redacted event, so it says no more than the event.")


class ResultMessage(Wire):
    kind: Literal["result"] = "result"
    cid: str | None = None
    result: CommandResult | None = None
    pending: Pending | None = None


class ErrorMessage(Wire):
    kind: Literal["error"] = "error"
    cid: str | None = None
    code: str
    message: str


CLIENT_MESSAGES: tuple[type[ClientMessage], ...] = (Subscribe, WsCommand, Unsubscribe, Ping)
SERVER_MESSAGES: tuple[type[BaseModel], ...] = (Subscribed, Unsubscribed, Pong, ViewMessage, EventMessage,
                                                TextedEventMessage, ResultMessage, ErrorMessage)

"""Wire contract of Mad Zeppelin: the enumerations, the options, command bodies, event bodies (full and
redacted) and the view. The one definition of these shapes: the game imports its enumerations and
options from here; this module imports nothing from ``services/``.

Traitors go by key (``captain``, ``councillor``...), Cargo by kind (``gold_cargo`` is the Gold Cargo card,
``small_crate``/``big_crate`` the mysterious crates), dice by their index 0-2.
"""

from __future__ import annotations

from typing import Any, Literal, get_args

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

GAME_NAME = "mad-zeppelin"

# --- enumerations ---

Traitor = Literal[
    "captain", "councillor", "taster", "guard", "machinist", "lookout", "doctor", "geologist",
    "anarchist", "clairvoyant", "negotiator", "opportunist", "stowaway", "shadow",
]
TRAITORS: tuple[Traitor, ...] = get_args(Traitor)

Crate = Literal["small_crate", "big_crate"]
CRATES: tuple[Crate, ...] = get_args(Crate)

Cargo = Literal[
    "wood", "lead", "coal", "ore", "steel", "diamonds", "gold_cargo", "strange_materials", "alcohol",
    "small_crate", "big_crate",
]
CARGO_KINDS: tuple[Cargo, ...] = get_args(Cargo)

Card = Literal[Cargo, "journey"]  # a card of the Hold: Cargo or a Journey card
CARDS: tuple[Card, ...] = get_args(Card)

Colour = Literal["yellow", "green", "blue", "red"]
COLOURS: tuple[Colour, ...] = get_args(Colour)

Face = Literal["white", "black", Colour]  # white: a colour to choose; black: the die is out
FACES: tuple[Face, ...] = get_args(Face)

Mode = Literal["run", "long_haul"]
MODES: tuple[Mode, ...] = get_args(Mode)

Take = Literal["gold", "cargo"]  # what a Captain steals, what the Negotiator's target gives
TAKES: tuple[Take, ...] = get_args(Take)

Look = Literal["unused", "player"]  # what the Clairvoyant looks at
LOOKS: tuple[Look, ...] = get_args(Look)

Knowledge = Literal["unused", "traitors", "hold_top"]
KNOWLEDGE: tuple[Knowledge, ...] = get_args(Knowledge)

StealMiss = Literal["councillor", "taster", "nothing"]
EndReason = Literal["target", "journeys"]
Seat = int

DICE = 3  # dice indices are 0 .. DICE - 1
MAX_SEATS = 6

TRAITOR = "Traitor key, e.g. 'captain' (Karl Steeling - The Captain)."
DIE = "Die index 0, 1 or 2."


# --- options ---


class Options(BaseModel):
    """Match options of Mad Zeppelin."""

    model_config = ConfigDict(extra="forbid", strict=True)  # no coercion: "yes" is no boolean

    mode: Mode = Field(default="run", description="run: first to 20 points; long_haul: first to 30 points.")


# ---- commands ----


class DraftCommand(CommandBody):
    """Draft phase: take one Traitor from the pool passed to you (view: draft_pool)."""

    traitor: Traitor = Field(description=TRAITOR)


class ChooseColourCommand(CommandBody):
    """Give a white die a colour (the leader after the roll; the re-roller after a Lookout re-roll)."""

    die: int = Field(ge=0, le=DICE - 1, description=DIE)
    colour: Colour = Field(description="The colour the white die shows from now on.")


class PlayTraitorCommand(CommandBody):
    """Start your sequence by playing one of your unplayed Traitors; the Search follows by itself."""

    traitor: Traitor = Field(description=TRAITOR)


class StealCommand(CommandBody):
    """A Captain's watch triggered: take 1 Gold or 1 random Cargo card from the player who played."""

    take: Take = Field(description="'gold' or 'cargo' (a random card of the hand).")


class GiveCommand(CommandBody):
    """The Negotiator chose you: give him 1 Gold or 1 Cargo card of your choice."""

    what: Take = Field(description="'gold' or 'cargo'.")
    card: Cargo | None = Field(default=None, description="With what='cargo' (and only then): the card kind "
                                                         "to give.")


class ArrangeHoldCommand(CommandBody):
    """The Geologist puts the cards he looked at back on the Hold in any order."""

    order: list[int] = Field(max_length=3, description="New order top first, as indices into the cards seen "
                                                       "(knowledge 'hold_top'); a permutation of 0..n-1.")


class UseAbilityCommand(CommandBody):
    """The ability action of your current Traitor (or the Ability your Stowaway/Shadow took on).

    captain/doctor/stowaway: traitor; lookout/anarchist: die; clairvoyant: look ('unused' or 'player'
    with seat); negotiator: seat; geologist/shadow: no fields. Send only the fields the ability takes
    (no others, not even as null). Standing abilities (councillor, taster, guard, machinist, opportunist)
    are always in force and cannot be used this way."""

    traitor: Traitor | None = Field(default=None, description="Traitor named (Captain, Doctor, Stowaway).")
    die: int | None = Field(default=None, ge=0, le=DICE - 1,
                            description="Die to re-roll (Lookout) or turn black (Anarchist).")
    look: Look | None = Field(
        default=None, description="Clairvoyant: the airsick and unchosen Traitors, or one player's.")
    seat: Seat | None = Field(default=None, ge=0, le=MAX_SEATS - 1,
                              description="Target player (Negotiator, Clairvoyant 'player').")


class RerollCommand(CommandBody):
    """The Lookout's second re-roll (the first is use_ability), before you throw."""

    die: int = Field(ge=0, le=DICE - 1, description=DIE)


class ThrowCommand(CommandBody):
    """The throw action: throw a Cargo card overboard (or place an Alcohol in front of you)."""

    card: Cargo = Field(description="The card from your hand. 'alcohol' is placed, free, no colour needed.")
    crates: list[Crate] = Field(default_factory=list, max_length=20,
                                description="Mysterious crates discarded to pay part of the Gold owed (small 1, "
                                            "big 2), in any order; each must be needed (no change is given). "
                                            "Left out or []: pay in Gold only.")


class EndSequenceCommand(CommandBody):
    """End your sequence, giving up any actions not taken."""


COMMANDS: dict[str, type[CommandBody]] = {
    "draft": DraftCommand,
    "choose_colour": ChooseColourCommand,
    "play_traitor": PlayTraitorCommand,
    "steal": StealCommand,
    "give": GiveCommand,
    "arrange_hold": ArrangeHoldCommand,
    "use_ability": UseAbilityCommand,
    "reroll": RerollCommand,
    "throw": ThrowCommand,
    "end_sequence": EndSequenceCommand,
}

SECRET_COMMANDS = frozenset({"draft", "give", "arrange_hold"})
"""Choices the rules keep from the other players: the Traitor drafted, the Cargo card given to the Negotiator (only
the two of them see it), the order the Geologist puts the Hold back in. Sent privately (a chat table refuses them
in its channel)."""


# ---- events ----

class MatchStartedEvent(Body):
    game: str
    seats: int
    options: dict[str, Any]


class HoldPreparedEvent(Body):
    """Secret to all: the removed Cargo and the Hold order (top first)."""

    removed: list[Cargo] | None = Field(default=None, description="Secret: the Cargo removed face down.")
    hold: list[Card] | None = Field(default=None, description="Secret: the Hold, top first.")
    removed_count: int
    hold_count: int


class GoldTakenEvent(Body):
    seat: Seat
    gold: int = Field(description="Gold actually taken (the Safe may run dry).")
    reason: Literal["start", "search"]


class CargoDrawnEvent(Body):
    seat: Seat
    card: Cargo | None = Field(default=None, description="Secret to the drawer.")


class JourneyReturnedEvent(Body):
    """Set-up: a Journey card drawn went back into the Hold; the player took 1 Gold."""

    seat: Seat
    gold: int
    position: int | None = Field(default=None, description="Secret to all: where it went (0 = top).")


class JourneyPlacedEvent(Body):
    seat: Seat
    gold: int


class TurnStartedEvent(Body):
    turn: int
    leader: Seat


class TraitorsShuffledEvent(Body):
    airsick: list[Traitor] | None = Field(default=None, description="Secret to all.")
    pool: list[Traitor] | None = Field(default=None, description="Secret to all: the draft pool.")
    airsick_count: int
    pool_count: int


class TraitorDealtEvent(Body):
    seat: Seat
    traitor: Traitor | None = Field(default=None, description="Secret to the seat.")


class TraitorDraftedEvent(Body):
    seat: Seat
    traitor: Traitor | None = Field(default=None, description="Secret to the seat.")


class TraitorsRevealedEvent(Body):
    """A private look: the leader's at the unused Traitors, or the Clairvoyant's."""

    seat: Seat = Field(description="Who looked.")
    source: Literal["leader", "clairvoyant"]
    of: Seat | None = Field(description="Whose unplayed Traitors; None: the airsick and unchosen ones.")
    traitors: list[Traitor] | None = Field(default=None, description="Secret to the looker.")


class DiceRolledEvent(Body):
    faces: list[Face]


class DieColourChosenEvent(Body):
    seat: Seat
    die: int
    colour: Colour


class TraitorPlayedEvent(Body):
    seat: Seat
    traitor: Traitor


class SequenceSkippedEvent(Body):
    """None of the player's Traitors can be played: he shows them and skips his sequence."""

    seat: Seat
    traitors: list[Traitor]


class GoldStolenEvent(Body):
    thief: Seat
    victim: Seat


class CargoStolenEvent(Body):
    thief: Seat
    victim: Seat
    card: Cargo | None = Field(default=None, description="Secret to thief and victim.")


class StealMissedEvent(Body):
    thief: Seat
    victim: Seat
    reason: StealMiss


class AbilityUsedEvent(Body):
    seat: Seat
    ability: Traitor
    traitor: Traitor | None = Field(default=None, description="Named Traitor (Captain, Doctor, Stowaway).")
    die: int | None = None
    target: Seat | None = Field(default=None, description="Target player (Negotiator, Clairvoyant).")
    look: Look | None = None
    source: Traitor | None = Field(default=None, description="Shadow: the Traitor copied.")
    copied: Traitor | None = Field(default=None, description="Shadow: the colour and Ability taken on.")


class DieRerolledEvent(Body):
    seat: Seat
    die: int
    face: Face


class HoldTopSeenEvent(Body):
    seat: Seat
    count: int
    cards: list[Card] | None = Field(default=None, description="Secret to the Geologist, top first.")


class HoldRearrangedEvent(Body):
    seat: Seat
    count: int
    order: list[int] | None = Field(default=None, description="Secret to the Geologist.")


class GoldGivenEvent(Body):
    giver: Seat
    receiver: Seat


class CargoGivenEvent(Body):
    giver: Seat
    receiver: Seat
    card: Cargo | None = Field(default=None, description="Secret to giver and receiver.")


class NothingGivenEvent(Body):
    giver: Seat
    receiver: Seat


class CargoThrownEvent(Body):
    seat: Seat
    card: Cargo
    cost: int = Field(description="Gold owed after discounts.")
    crates: list[Crate] = Field(description="Crates discarded to pay.")
    gold: int = Field(description="Gold paid to the Safe.")


class AlcoholPlacedEvent(Body):
    seat: Seat


class SequenceEndedEvent(Body):
    seat: Seat


class TurnEndedEvent(Body):
    turn: int
    scores: list[int]


class MatchEndedEvent(Body):
    reason: EndReason
    scores: list[int]
    gold: list[int]
    winners: list[Seat]
    draw: bool


# ---- view ----

class PlayerView(ViewModel):
    """One player's public side of the table."""

    seat: Seat
    gold: int = Field(description="Gold coins held (public).")
    hand_count: int = Field(description="Cargo cards in hand.")
    front: list[Cargo] = Field(description="Cards thrown overboard and Alcohol placed, face up.")
    points: int = Field(description="Score now, bonus included.")
    unplayed_traitors: int = Field(description="Traitors still in hand this turn.")
    current: Traitor | None = Field(description="Colour and Ability of the current Traitor (as taken on); "
                                                "None before his first play of the turn or after a skip.")
    standing_ability: Traitor | None = Field(description="The standing ability in force (Councillor, Taster, "
                                                         "Guard, Machinist, Opportunist), if any.")
    rerolls_used: int = Field(description="Lookout re-rolls used this game turn (at most 2).")


class PlayView(ViewModel):
    """A Traitor played this turn, in play order."""

    seat: Seat
    traitor: Traitor = Field(description="The card played.")
    identity: Traitor = Field(description="Whose colour and Ability it has now (the Stowaway/Shadow take on "
                                          "others'; 'stowaway'/'shadow' while they have taken nothing).")
    colour: Colour | None = Field(description="Its colour now; None: it cannot throw Cargo.")


class SequenceView(ViewModel):
    """The current player's sequence."""

    seat: Seat
    searched: bool
    ability_used: bool = Field(description="The ability action is taken (standing abilities count as used).")
    copied_ability_pending: Traitor | None = Field(
        description="An Ability the Stowaway/Shadow took on that may still be used with use_ability.")
    throws_left: int = Field(description="Cards that may still be thrown this sequence (2 with the "
                                         "Opportunist).")
    thrown: bool = Field(description="The throw action has begun (no more Lookout re-rolls).")
    arranging: int = Field(description="Cards the Geologist must put back (arrange_hold), 0 if none.")
    giving_seat: Seat | None = Field(description="The seat that must give the Negotiator something.")
    stealing_seats: list[Seat] = Field(description="Captains still to steal from this player, in order.")


class AwaitingView(ViewModel):
    """Who must act now and how."""

    seat: Seat
    commands: list[str] = Field(description="The command types that seat may send now.")
    what: str = Field(description="What it must do, in words.")


class WatchView(ViewModel):
    """A Captain's watch: after ``traitor`` is played, ``seat`` steals from its player (until turn end)."""

    seat: Seat
    traitor: Traitor


class HeldTraitorView(ViewModel):
    traitor: Traitor
    playable: bool = Field(description="False when a Doctor or Stowaway ban stops you playing it.")


class KnowledgeView(ViewModel):
    """Something you alone saw this turn."""

    kind: Knowledge = Field(
        description="unused: the airsick and unchosen Traitors; traitors: a player's unplayed Traitors (as "
                    "seen); hold_top: the top of the Hold as you put it back, less the cards drawn since.")
    of: Seat | None = Field(description="The player looked at (kind 'traitors').")
    cards: list[str] = Field(description="Traitor keys or card kinds, top of the Hold first.")


class MadZeppelinView(GameView):
    mode: Mode
    target: int
    phase: str = Field(description="draft, colours (white dice), play, actions, over.")
    turn: int = Field(description="Game turn, from 1.")
    round: int = Field(description="Round of the game turn: 1 or 2 (0 during the draft).")
    leader: Seat
    current_seat: Seat | None = Field(description="The player whose sequence it is.")
    awaiting: AwaitingView | None
    safe: int = Field(description="Gold in the Safe.")
    hold_count: int = Field(description="Cards left in the Hold (its order is secret).")
    removed_count: int = Field(description="Cargo removed at set-up, face down.")
    journeys: int = Field(description="Journey cards placed; the tenth ends the game.")
    discard: list[Crate] = Field(description="Mysterious crates given up as payment.")
    dice: list[Face] = Field(description="The three dice; 'black' is out, 'white' awaits a colour.")
    airsick_count: int
    unused_count: int = Field(description="Draft pool size during the draft, then the unchosen Traitors.")
    players: list[PlayerView]
    plays: list[PlayView]
    named_unplayable: list[Traitor] = Field(description="Traitors named by the Doctor or Stowaway.")
    captain_watches: list[WatchView]
    sequence: SequenceView | None
    hand: list[Cargo] | None = Field(description="Your Cargo cards (None for spectators).")
    traitors: list[HeldTraitorView] | None = Field(description="Your unplayed Traitors.")
    draft_pool: list[Traitor] | None = Field(description="The pool passed to you, when you draft.")
    knowledge: list[KnowledgeView] | None = Field(description="What you privately saw this turn.")


SCHEMAS = GameSchemas(
    game=GAME_NAME,
    options=Options,
    commands=dict(COMMANDS),
    events={
        "MatchStarted": MatchStartedEvent,
        MATCH_ABANDONED: MatchAbandonedEvent,
        "HoldPrepared": HoldPreparedEvent,
        "GoldTaken": GoldTakenEvent,
        "CargoDrawn": CargoDrawnEvent,
        "JourneyReturned": JourneyReturnedEvent,
        "JourneyPlaced": JourneyPlacedEvent,
        "TurnStarted": TurnStartedEvent,
        "TraitorsShuffled": TraitorsShuffledEvent,
        "TraitorDealt": TraitorDealtEvent,
        "TraitorDrafted": TraitorDraftedEvent,
        "TraitorsRevealed": TraitorsRevealedEvent,
        "DiceRolled": DiceRolledEvent,
        "DieColourChosen": DieColourChosenEvent,
        "TraitorPlayed": TraitorPlayedEvent,
        "SequenceSkipped": SequenceSkippedEvent,
        "GoldStolen": GoldStolenEvent,
        "CargoStolen": CargoStolenEvent,
        "StealMissed": StealMissedEvent,
        "AbilityUsed": AbilityUsedEvent,
        "DieRerolled": DieRerolledEvent,
        "HoldTopSeen": HoldTopSeenEvent,
        "HoldRearranged": HoldRearrangedEvent,
        "GoldGiven": GoldGivenEvent,
        "CargoGiven": CargoGivenEvent,
        "NothingGiven": NothingGivenEvent,
        "CargoThrown": CargoThrownEvent,
        "AlcoholPlaced": AlcoholPlacedEvent,
        "SequenceEnded": SequenceEndedEvent,
        "TurnEnded": TurnEndedEvent,
        "MatchEnded": MatchEndedEvent,
    },
    view=MadZeppelinView,
)

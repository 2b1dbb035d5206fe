"""Modern World — a card and bidding game for 2-6 players, as this project plays it.

Each player runs a modern nation and collects seven kinds of tokens (victory, influence, money,
materials, labor, research, action). Most victory tokens at the end wins; ties share the win.

Set-up: 3 tokens of each kind per player, no cards. Decks: resources (28 cards x 4 = 112), markets
(25), events (the 44 cards the seed text lists; the rules file says 50 but lists none beyond these).
A random player holds the Leader Marker. Option ``national_identity`` (default off): in turn order
from the leader each player picks a distinct nation (Europe, China, Japan, India, Russia, USA) and
starts with its resource card in play, taken from the resource deck. Then ten resource cards form
the tableau.

Capacity = baseline (1 victory, 10 influence, 4 money, 3 materials, 3 labor, 3 research, 3 action)
+ production of cards in play + permanent events, never below 0.

A turn begins by ending the match if the resource deck or the event deck is empty. Then:
1. Production: everyone gains his capacity.
2. Event: the top event card is resolved. Highest/lowest-capacity ties are broken by rolling 1D6 low,
   re-rolling ties; random players come from the seeded generator; 1D6 is rolled per player hit;
   losses stop at 0; permanent events stay with the player and count from the next production;
   skips last this turn only; Emerging Markets adds 2 market cards this turn.
3. Leader: auction for the Leader Marker in influence, starting with the leader.
4. Market: draw players - 1 (+ extra) market cards (reshuffling the discard when the deck runs out)
   and auction each in the order drawn, starting with the leader; the winner pays his bid and gains
   the reward at once; unsold cards are discarded.
5. Resource: in turn order from the leader, each player buys tableau cards one at a time; the card at
   position p (1 farthest from the deck) costs p, paid in any mix of action and research tokens; the
   row slides down and refills from the deck at the expensive end. Bought cards go to hand.
6. Investment: in turn order, discard cards from hand for three times their production.
7. Trade: everyone at once may propose trades (cards and tokens on both sides) to a player still
   trading, accept or decline proposals made to him, or declare himself done; a proposal lapses when
   either side is done; the phase ends when all are done. Accepting a trade the proposer can no longer
   pay refuses it (it closes, nothing moves); accepting one you cannot pay yourself is rejected (the
   proposal stays open: convert money or decline). Card names in proposals are seen only by the two
   sides. The rule text sets no limit on proposals; the rules file asks for a cap on proposals *open* at
   once (not on proposals made) without a number. This project's reading: a player may have at most 3
   proposals open at once (made by him and not yet accepted, declined, refused or lapsed); once one
   closes he may propose again, as often as he likes within the phase.
8. Build: in turn order, put cards from hand into play for 5 materials + 5 labor (7 + 7 if a copy is
   already in play), each further build in the phase costing 1 more of each (cumulative).
9. End: everyone holding more than 7 cards discards down to 7, choosing which.

Auctions: bidding goes round the table; a bid is at least 1 above the current bid and at most the
bidder's influence; a pass does not take a player out. The auction ends when all others have passed
since the last bid (or all players passed without a bid: the leader keeps the marker, the market
card is discarded). Only the winner pays.

Money: at any of his own decisions a player may turn 3 money into 1 token of any other type.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError

from services.games.base import Command, Event, Outcome
from services.games.errors import BadOptions
from services.games.modern_world.codec import event_names, market_names, res_names
from services.games.modern_world.data import EVENTS, MARKETS, RESOURCE_COPIES, RESOURCES
from services.games.modern_world.decide import decide, to_act
from services.games.modern_world.evolve import HANDLERS
from services.games.modern_world.flow import Flow
from services.games.modern_world.legal import legal_commands
from services.games.modern_world.state import NATIONS, State
from services.games.modern_world.views import view


class Options(BaseModel):
    """Match options of Modern World."""

    model_config = ConfigDict(extra="forbid")

    national_identity: bool = False


class ModernWorld:
    name = "modern-world"
    title = "Modern World"
    min_seats = 2
    max_seats = 6
    Options: type[BaseModel] = Options

    def initial(self) -> State:
        return State()

    def setup(self, options: Mapping[str, Any], seats: int, rng: random.Random) -> list[Event]:
        try:
            opts = Options.model_validate(dict(options))
        except ValidationError as e:
            raise BadOptions(f"bad options for Modern World: {e.errors()[0]['msg']}") from None
        if isinstance(seats, bool) or not isinstance(seats, int) or not 2 <= seats <= 6:
            raise BadOptions(f"Modern World is for 2 to 6 players, not {seats}")
        resources = [i for i in range(len(RESOURCES)) for _ in range(RESOURCE_COPIES)]
        markets = list(range(len(MARKETS)))
        events = list(range(len(EVENTS)))
        rng.shuffle(resources)
        rng.shuffle(markets)
        rng.shuffle(events)
        flow = Flow(State(), rng)
        flow.emit("MatchStarted", {"game": self.name, "seats": seats, "options": opts.model_dump()})
        flow.emit(
            "DecksShuffled",
            {
                "resource": res_names(resources),
                "market": market_names(markets),
                "events": event_names(events),
                "counts": [len(resources), len(markets), len(events)],
            },
            visible_to=(),
            redacted={"counts": [len(resources), len(markets), len(events)]},
        )
        leader = rng.randrange(seats)
        flow.emit("LeaderChosen", {"seat": leader})
        if opts.national_identity:
            flow.emit("PhaseStarted", {"phase": NATIONS, "order": list(flow.state.order_from(leader))})
        else:
            flow.deal_tableau()
            flow.start_turn()
        return flow.events

    def decide(self, state: State, command: Command, rng: random.Random) -> list[Event]:
        return decide(state, command, rng)

    def evolve(self, state: State, event: Event) -> State:
        return HANDLERS[event.type](state, event.body)  # ``evolve(state, event)`` inlined: the replay fold

    def view(self, state: State, seat: int | None) -> dict[str, Any]:
        return view(state, seat)

    def legal_commands(self, state: State, seat: int) -> list[Command]:
        return legal_commands(state, seat)

    def outcome(self, state: State) -> Outcome | None:
        return state.outcome

    def to_act(self, state: State) -> frozenset[int]:
        return to_act(state)


GAME = ModernWorld()

__all__ = ["GAME", "ModernWorld", "Options"]

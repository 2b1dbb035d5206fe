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

from .game import GAME

__all__ = ["GAME"]

"""Moderne Zeiten (Jumbo), as this project plays it (rules/moderne_zeiten.md wins over the seed).

3-5 players. 105 share cards, 21 in each of five industries (shipping, aviation, high_rise,
automobile, telecom); each player starts with 15 million, 8 cards, 10 big and 10 small markers. The
first start player is drawn at random.

Each round: the start player rolls the die and lays that many cards face up (fewer if the stack is
short; none: no auction). Bids go round from the start player; a bid is a whole number above the
current bid and at most the bidder's money; a pass leaves the auction. The high bidder takes the
cards, pays the bid one bill at a time from his left neighbour round the table, and becomes start
player. Unsold cards go under the stack. Then each player in turn from the start player either draws
two cards, or plays cards in front of him and moves his Zeppelin to the next unclaimed track space of
an industry he controls (his choice among several), claiming it with a big marker and the matching
scoring-table cell with a small one. A player controls an industry with more cards of it in front of
him than anyone else; a tie never takes control away. When the cards in play exceed 21 (3 players) or
25, every industry with the most cards in play goes back into the stack, which is shuffled.
A player with no unclaimed space of a controlled industry ahead may move to Finish: the game ends
(a crash that turn is ignored). Scoring: most money 3 (ties 1 each), each industry majority 1,
the ender 1, each table row and column its value to the most small markers (ties 1 each).
Highest total wins; ties go to most money, then the win is shared.

Options: ``forced_move``, ``move_needs_play`` (Essen rule), ``crash_after_move``, all on by default.

Commands (their bodies: ``schemas.py``, read strictly): ``bid {amount}``, ``pass {}``,
``draw {}``, ``play {cards: {industry: count}}`` (counts from 1; industries with no card left out) and,
when the player has a real choice after playing, ``move {to: industry | "finish" | null}``. With exactly
one compulsory destination the Zeppelin moves as part of the play. ``legal`` offers them as choices: the
bid as a range (current bid + 1 to the bidder's money), the play as any cards of the hand, the empty play
(see below) as a choice of its own, and each destination of a move.

Modules: ``game`` (the game object), ``data``, ``state``, ``setup``, ``decide``, ``evolve``, ``legal``,
``views``, ``resample``, and the rule helpers ``rules`` and ``scoring``.

Readings of points the rules leave open:
- Finish is a "may": even with ``forced_move`` the player is asked (Finish or stay).
- A play of no cards (``move_needs_play`` off) is only accepted when a move is possible, and the
  player must then move (it is the "only move" of the rules); staying is not offered after it.
- Without big markers a player cannot take a city space; he may still move to Finish on the usual
  condition (no unclaimed space of a controlled industry ahead of him).
- A crash on the turn that ends the game is ignored whatever ``crash_after_move`` says. With the option
  off the crash is checked right after the play, before the move; when the player could then move to
  Finish (judged without the crash), the crash waits for his answer: Finish ends the game with the crash
  ignored; staying lets it happen (before the declined move). Finish is judged without the crash: when
  only the crash would open the way to Finish (it removes the industry of a space still ahead), the
  crash stands and he may not finish that turn.
- The crash is checked once a turn (after the play with ``crash_after_move`` off, after the move with it
  on), and it removes the industries with the most cards once: when the counter is still above the limit
  after it, nothing more is removed that turn; the next play's check sees it. With the option off the
  move's choices are those left after that crash (a Zeppelin never moves on an industry just crashed).
- The die is rolled every round; with an empty stack no cards are laid out and there is no auction.
- A bidder who cannot outbid (too little money) passes explicitly; nobody passes automatically.
"""

from __future__ import annotations

from .game import GAME

__all__ = ["GAME"]

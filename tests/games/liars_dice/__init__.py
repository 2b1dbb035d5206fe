"""Liar's Dice, a test game built the way docs/game-contract.md ("Adding a game") says: its wire shapes in
``schemas.py``, its rules and its registration in ``game.py``; nothing outside this folder names it.

Each player hides ``dice`` dice (an option, 1 to 5, 5 by default). In turn, players raise the bid, a claim
that among all the dice on the table at least ``count`` show ``face``, or call the last bid a lie. Then every
die is shown: if the bid holds, the caller loses a die, else the bidder does; the loser starts the next round,
all dice rolled again. A player without dice is out; the last one with dice wins. Scores are the dice left.
"""

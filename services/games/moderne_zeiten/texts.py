"""Moderne Zeiten's pieces in words, for people (the web board's texts and tooltips): the industries and their
share cards, the cities, the crash counter and the markers, with the numbers of the printed board
(:mod:`services.games.moderne_zeiten.data`); the words are this project's reading of ``rules/moderne_zeiten.md``."""

from __future__ import annotations

from services.games.moderne_zeiten.data import (
    CITIES,
    INDUSTRIES,
    INDUSTRY_TITLES,
    PRINTED_BOARD,
    crash_limit,
)


def texts() -> dict[str, dict[str, str]]:
    """``{kind: {name: words}}``: industries, their cards, cities and the board's other pieces."""
    board = PRINTED_BOARD
    return {
        "industry": {
            key: (f"{INDUSTRY_TITLES[i]}: whoever has the most of its cards in front of them controls it (a tie keeps"
                  f" the earlier controller) and moves their Zeppelin to its spaces. At the end its controller"
                  f" scores 1 point, and the most small markers in its column score {board.industry_points[i]}.")
            for i, key in enumerate(INDUSTRIES)},
        "card": {
            key: (f"A share of {INDUSTRY_TITLES[i]}: play it in front of you to win control of {INDUSTRY_TITLES[i]};"
                  " every card in play adds 1 to the crash counter.")
            for i, key in enumerate(INDUSTRIES)},
        "city": {
            key: (f"The most small markers in this city's row score {board.city_points[i]} at the end (tied"
                  " players 1 each).")
            for i, key in enumerate(CITIES)},
        "board": {
            "crash": (f"Cards in front of all players. Above {crash_limit(3)} (3 players) or {crash_limit(4)}"
                      " (4 or 5 players) after a turn, the market crashes: the industries with the most cards in play"
                      " go back into the stack."),
            "space": ("A space of the track: the first unclaimed space of an industry you control, ahead of your"
                      " Zeppelin, is where you move; you claim it with a big marker and put a small marker in its"
                      " city's row and industry's column."),
            "money": "Most money at the end scores 3 points (tied players 1 each); money also breaks a tie.",
            "finish": "Moving to Finish ends the game at once and scores 1 point.",
            "auction": "The highest bid takes these cards and pays the others one bill at a time; bidding ends when"
                       " all but the high bidder passed.",
        },
    }

"""A complete bot: play the most cards, bid the least; run: python -m services.bots.examples.greedy URL MATCH."""
import sys
from typing import Any

from services.bots.sdk import play_seat
from services.pipeline.backends import open_backend
from services.pipeline.client import Client


class Greedy:
    def choose(self, view: Any, legal: Any) -> Any:
        return max(legal, key=lambda c: sum(c["body"].get("cards", {}).values()) - c["body"].get("amount", 0))


if __name__ == "__main__":
    play_seat(Client(open_backend(sys.argv[1])), sys.argv[2], Greedy())

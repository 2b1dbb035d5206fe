"""A complete bot: play the most cards, bid the least; run: python -m services.bots.examples.greedy GATEWAY_URL MATCH
(e.g. http://localhost:8000 and a match id from ``airship lobby create``)."""
import sys
from typing import Any

from services.bots.sdk import play_seat
from services.client import GatewayClient
from services.client.errors import ClientError


class Greedy:
    def choose(self, view: Any, legal: Any) -> Any:
        return max(legal, key=lambda c: sum(c["body"].get("cards", {}).values()) - c["body"].get("amount", 0))


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: python -m services.bots.examples.greedy GATEWAY_URL MATCH_ID")
    try:
        with GatewayClient(sys.argv[1]) as client:
            play_seat(client, sys.argv[2], Greedy())
    except ClientError as e:  # a dead gateway, an unknown or full match: one line, no traceback
        sys.exit(f"greedy: {e}")
    except KeyboardInterrupt:
        sys.exit(130)

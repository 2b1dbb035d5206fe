"""The bot SDK and the match runner through the gateway: whole matches played over HTTP only."""

from __future__ import annotations

import pytest

from schemas.envelopes import ViewRecord
from services.bots.base import Bot, RandomBot
from services.bots.examples.greedy import Greedy
from services.bots.plugins import make_bot
from services.bots.runner import play_match
from services.bots.sdk import SeatRunner, play_seat
from services.client import GatewayClient
from tests.client.helpers import run_threads
from tests.gateway.stack import GatewayStack

pytestmark = [pytest.mark.redis, pytest.mark.gateway]


def test_play_seat_plays_nim_to_the_end(gateway_stack: GatewayStack) -> None:
    with GatewayClient(gateway_stack.url) as lobby:
        match = lobby.create_match("nim", 2)

    def seat(bot: Bot) -> ViewRecord:
        with GatewayClient(gateway_stack.url) as client:  # one client (and its tokens) per player
            return play_seat(client, match.match_id, bot, timeout_s=20)

    finals = run_threads([lambda: seat(Greedy()), lambda: seat(RandomBot(1))])
    assert all(not isinstance(f, BaseException) for f in finals), finals
    assert all(f.view["finished"] for f in finals)
    with GatewayClient(gateway_stack.url) as client:
        summary = client.match(match.match_id)
        assert summary.status == "finished"
        log = client.log(match.match_id)  # finished, reveal_log: the whole log, to anyone
        assert log.perspective == "full" and any(e.type == "Taken" for e in log.events)


def test_seat_runners_play_moderne_zeiten_through_the_gateway(gateway_stack: GatewayStack) -> None:
    with GatewayClient(gateway_stack.url) as client:
        match = client.create_match("moderne-zeiten", 3)
        tokens = [client.join(match.match_id, seat)[1] for seat in range(3)]

    def run(seat: int) -> SeatRunner:
        with GatewayClient(gateway_stack.url) as player:
            runner = SeatRunner(player, match.match_id, seat, tokens[seat],
                                make_bot("random", "moderne-zeiten", seat), timeout_s=30)
            runner.run()
            return runner

    runners = run_threads([lambda s=s: run(s) for s in range(3)], timeout_s=240)  # type: ignore[misc]
    assert all(isinstance(r, SeatRunner) for r in runners), runners
    assert all(r.final is not None and r.final.view["finished"] for r in runners)
    assert sum(r.stats.decisions for r in runners) > 3


def test_play_match_runs_a_referee_through_the_gateway(gateway_stack: GatewayStack) -> None:
    with GatewayClient(gateway_stack.url) as client:
        report = play_match(client, "nim", 2, [RandomBot(0), RandomBot(1)], timeout_s=20)
        assert report.outcome["winners"] and report.commands >= 3
        assert client.match(report.meta.match_id).status == "finished"
        with pytest.raises(Exception, match="seed"):
            play_match(client, "nim", 2, [RandomBot(0), RandomBot(1)], seed=3)

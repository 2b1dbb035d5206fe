"""Client addresses as the per-address limits count them (services/gateway/addresses.py), and the address the
gateway takes from a request (``State.address``): IPv4 per address, IPv6 per /64, and behind trusted proxies
the ``X-Forwarded-For`` entry that many hops from the right, never one the client chose."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
import redis.asyncio as aioredis
from starlette.datastructures import Headers

from services.gateway.addresses import address_key, forwarded_client
from services.gateway.app import State
from services.settings import Settings


@pytest.mark.parametrize(("host", "key"), [
    ("192.0.2.7", "192.0.2.7"),
    (" 192.0.2.7 ", "192.0.2.7"),
    ("2001:db8:1:2:a:b:c:d", "2001:db8:1:2::/64"),
    ("2001:db8:1:2::ffff", "2001:db8:1:2::/64"),  # the same /64: the same client
    ("2001:db8:1:3::1", "2001:db8:1:3::/64"),  # the next /64: another
    ("[2001:DB8:1:2::1]", "2001:db8:1:2::/64"),
    ("fe80::1%eth0", "fe80::/64"),
    ("::ffff:192.0.2.7", "192.0.2.7"),  # an IPv4 client of a dual-stack socket
    ("::1", "::/64"),
    ("testclient", "testclient"),
    ("X" * 100, "x" * 64),
    ("", ""),
])
def test_address_keys(host: str, key: str) -> None:
    assert address_key(host) == key


@pytest.mark.parametrize(("lines", "hops", "client"), [
    (["203.0.113.9"], 1, "203.0.113.9"),
    (["1.2.3.4, 203.0.113.9"], 1, "203.0.113.9"),  # the client wrote 1.2.3.4; the proxy appended its peer
    (["1.2.3.4, 203.0.113.9, 10.0.0.2"], 2, "203.0.113.9"),  # two proxies: CDN, then the load balancer
    (["1.2.3.4", "203.0.113.9"], 1, "203.0.113.9"),  # header lines are one list, in order
    (["203.0.113.9"], 2, "203.0.113.9"),  # fewer entries than hops: the leftmost
    ([" , "], 1, "10.0.0.1"),  # nothing in it: the peer
    ([], 1, "10.0.0.1"),
    (["1.2.3.4"], 0, "10.0.0.1"),  # no proxy trusted: the header is ignored
])
def test_the_client_behind_trusted_proxies(lines: list[str], hops: int, client: str) -> None:
    assert forwarded_client(lines, "10.0.0.1", hops) == client


def test_the_gateway_takes_the_address_hops_from_the_right() -> None:
    def address(hops: int, *forwarded: str, peer: str = "10.0.0.1") -> str:
        state = State(Settings(gateway_trust_proxy=hops), aioredis.Redis())
        headers = Headers(raw=[(b"x-forwarded-for", f.encode()) for f in forwarded])
        return state.address(headers, SimpleNamespace(host=peer))

    assert address(0, "1.2.3.4") == "10.0.0.1"
    assert address(1, "1.2.3.4, 198.51.100.7") == "198.51.100.7"
    assert address(1, "198.51.100.7", "1.2.3.4") == "1.2.3.4"  # a second line was appended last
    assert address(2, "1.2.3.4, 198.51.100.7, 10.0.0.9") == "198.51.100.7"
    assert address(1, "evil, 2001:db8:5:6::99") == "2001:db8:5:6::/64"
    assert address(0, peer="2001:db8:5:6::1") == "2001:db8:5:6::/64"
    assert address(1, peer="::ffff:192.0.2.1") == "192.0.2.1"

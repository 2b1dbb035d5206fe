"""The connection guard's parts without a server (the real gateway process: test_connections.py): what one
client address is, the caps derived from the file-descriptor limit, counting in and out, raising the limit."""

from __future__ import annotations

import asyncio
import resource
import subprocess
import sys
import time
from typing import Any

import pytest

from services.gateway.conns import ConnectionGuard, ConnectionLimits, Throttled, address_key, connection_limits
from services.settings import Settings


@pytest.mark.parametrize(("peer", "key"), [
    (("203.0.113.9", 5000), "203.0.113.9"),
    (("2001:db8:1:2:aaaa:bbbb:cccc:dddd", 5000, 0, 0), "2001:db8:1:2::/64"),
    (("2001:db8:1:2::1", 6000, 0, 0), "2001:db8:1:2::/64"),  # the same /64: one client
    (("2001:db8:1:3::1", 6000, 0, 0), "2001:db8:1:3::/64"),
    (("::ffff:198.51.100.7", 1, 0, 0), "198.51.100.7"),  # IPv4-mapped: the IPv4 address
    (("fe80::1%eth0", 1, 0, 2), "fe80::/64"),
    ("", "local"), (None, "local"),  # a Unix socket
])
def test_a_client_address_is_the_ipv4_address_or_the_ipv6_slash_64(peer: Any, key: str) -> None:
    assert address_key(peer) == key


def test_the_caps_default_to_shares_of_the_file_descriptor_limit() -> None:
    assert connection_limits(Settings(), 20_000) == ConnectionLimits(18_000, 1_250, 10.0)
    assert connection_limits(Settings(), 1024) == ConnectionLimits(1024 - 102, 64, 10.0)
    assert connection_limits(Settings(), 512) == ConnectionLimits(448, 64, 10.0)
    tiny = connection_limits(Settings(), 64)  # an address never gets more than the process
    assert tiny.total == 16 and tiny.per_address == 16
    chosen = Settings(gateway_max_connections=100, gateway_addr_connections=10, gateway_header_timeout_s=2.5)
    assert connection_limits(chosen, 20_000) == ConnectionLimits(100, 10, 2.5)


class FakeTransport(asyncio.BaseTransport):
    def __init__(self, host: str) -> None:
        super().__init__()
        self.host = host

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        return (self.host, 1234) if name == "peername" else default


def test_the_guard_counts_per_address_and_per_process_and_releases_once() -> None:
    guard = ConnectionGuard(ConnectionLimits(total=5, per_address=3, header_timeout_s=1.0))
    a = [FakeTransport("10.0.0.1") for _ in range(4)]
    assert [guard.admit(t) for t in a] == [None, None, None, "address"]
    b = [FakeTransport("10.0.0.2") for _ in range(3)]
    assert [guard.admit(t) for t in b] == [None, None, "capacity"]
    assert len(guard) == 5 and guard.per_address == {"10.0.0.1": 3, "10.0.0.2": 2}
    guard.release(a[0])
    guard.release(a[0])  # twice (an upgrade's two protocols): counted once
    guard.release(a[3])  # refused: never counted
    assert len(guard) == 4 and guard.per_address == {"10.0.0.1": 2, "10.0.0.2": 2}
    assert guard.admit(FakeTransport("10.0.0.1")) is None
    for t in [*a[1:3], *b[:2]]:
        guard.release(t)
    assert len(guard) == 1 and guard.per_address == {"10.0.0.1": 1}


def test_the_soft_file_descriptor_limit_is_raised_to_the_hard_one() -> None:
    _soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard == resource.RLIM_INFINITY or hard < 128:
        pytest.skip("needs a finite hard limit of at least 128")
    low = 64

    def lower() -> None:
        resource.setrlimit(resource.RLIMIT_NOFILE, (low, hard))

    code = ("import resource; from services.gateway.conns import raise_fd_limit; "
            "print(raise_fd_limit(), resource.getrlimit(resource.RLIMIT_NOFILE)[0])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         preexec_fn=lower).stdout.split()
    expected = min(hard, 1 << 20)
    assert out == [str(expected), str(expected)]


def test_refusals_are_logged_as_a_summary_at_most_once_per_interval() -> None:
    throttled = Throttled(every_s=0.2)
    assert throttled.count("address") == {"address": 1}  # the first: at once
    assert [throttled.count(k) for k in ("address", "capacity", "address")] == [None, None, None]
    time.sleep(0.25)
    assert throttled.count("address") == {"address": 3, "capacity": 1}

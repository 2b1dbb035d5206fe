"""Client addresses as the gateway's per-address limits count them (docs/gateway.md, "Limits").

An IPv4 address is one client. An IPv6 client usually holds a whole /64 (one subnet per household or host:
SLAAC and privacy addresses pick any of its 2^64 interface ids), so every address of a /64 counts as one.
Behind trusted proxies the address is taken from ``X-Forwarded-For``, counting hops from the right: the
entries on the left are whatever the client sent, only those the trusted proxies appended can be believed.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Sequence

MAX_TEXT = 64  # what is kept of something that is not an IP address (a test client's name, a unix socket)


def address_key(host: str) -> str:
    """The key per-address limits count under: an IPv4 address as itself, an IPv6 address as its /64
    (``2001:db8:1:2::/64``), an IPv4-mapped IPv6 address (``::ffff:192.0.2.1``) as the IPv4 address, and
    anything else (not an IP address) as its first 64 characters, lower-cased."""
    text = host.strip()
    if text.startswith("[") and text.endswith("]"):  # a bracketed IPv6 literal
        text = text[1:-1]
    try:
        ip = ipaddress.ip_address(text.split("%", 1)[0])  # without an IPv6 zone index (fe80::1%eth0)
    except ValueError:
        return text[:MAX_TEXT].lower()
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return str(ipaddress.IPv6Network((int(ip) >> 64 << 64, 64)))
    return str(ip)


def forwarded_client(forwarded_for: Sequence[str], peer: str, trusted_hops: int) -> str:
    """The client's address behind ``trusted_hops`` proxies: the entry that many from the right of the
    ``X-Forwarded-For`` header lines (``forwarded_for``, in the order received), each proxy having appended the
    address it was reached from. With no trusted hops, or no header, the peer of the connection. With fewer
    entries than hops (a request that reached an inner proxy directly), the leftmost entry."""
    if trusted_hops <= 0:
        return peer
    entries = [e.strip() for line in forwarded_for for e in line.split(",") if e.strip()]
    if not entries:
        return peer
    return entries[-trusted_hops] if len(entries) >= trusted_hops else entries[0]

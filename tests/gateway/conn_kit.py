"""Raw-socket helpers of the connection tests: connections from a chosen loopback address (all of 127.0.0.0/8
is local on Linux), when and how the gateway closed them, and its metrics as an operator scrapes them."""

from __future__ import annotations

import socket
import struct
import time
from urllib.parse import urlsplit

import httpx
from prometheus_client.parser import text_string_to_metric_families

HOARDER = "127.0.0.1"
OTHER = "127.0.0.2"


def port_of(url: str) -> int:
    port = urlsplit(url).port
    assert port is not None, url
    return port


def open_conn(url: str, source: str = HOARDER, reset: bool = False) -> socket.socket:
    """A TCP connection to the gateway from ``source``, sending nothing (``reset``: closing it sends a RST)."""
    conn = socket.create_connection(("127.0.0.1", port_of(url)), timeout=5.0, source_address=(source, 0))
    if reset:
        conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    return conn


def closed_within(conn: socket.socket, timeout_s: float) -> bytes | None:
    """What the gateway sent before closing ``conn``, if it closed it within ``timeout_s``; None while open."""
    deadline = time.monotonic() + timeout_s
    got = b""
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            return None
        conn.settimeout(left)
        try:
            chunk = conn.recv(65536)
        except TimeoutError:
            return None
        except ConnectionResetError:
            return got
        if not chunk:
            return got
        got += chunk


def settled(conns: list[socket.socket], settle_s: float = 0.5) -> list[bytes | None]:
    """After ``settle_s``, for each of ``conns`` what the gateway sent before closing it, or None if it is open
    (read without waiting: one pass over many connections)."""
    time.sleep(settle_s)
    answers: list[bytes | None] = []
    for conn in conns:
        got = b""
        state: bytes | None = None
        conn.settimeout(0.0)
        while True:
            try:
                chunk = conn.recv(65536)
            except BlockingIOError:
                break
            except ConnectionResetError:
                state = got
                break
            if not chunk:
                state = got
                break
            got += chunk
        answers.append(state)
    return answers


def seconds_until_closed(conn: socket.socket, timeout_s: float, trickle: bytes = b"", every_s: float = 0.2) -> float:
    """Seconds until the gateway closes ``conn``, sending it one byte of ``trickle`` every ``every_s`` meanwhile
    (a slowloris); fails after ``timeout_s``."""
    started = time.monotonic()
    for i in range(int(timeout_s / every_s) + 1):
        if i < len(trickle):
            try:
                conn.sendall(trickle[i:i + 1])
            except (BrokenPipeError, ConnectionResetError):
                return time.monotonic() - started
        if closed_within(conn, every_s) is not None:
            return time.monotonic() - started
    raise AssertionError(f"the connection was still open after {timeout_s}s")


def request(path: str) -> bytes:
    return f"GET {path} HTTP/1.1\r\nHost: gateway\r\n\r\n".encode()


def read_response(conn: socket.socket, timeout_s: float = 10.0) -> bytes:
    """One whole response (head and Content-Length body) from ``conn``."""
    conn.settimeout(timeout_s)
    got = b""
    while b"\r\n\r\n" not in got:
        chunk = conn.recv(65536)
        assert chunk, f"closed mid-response: {got!r}"
        got += chunk
    head, _, body = got.partition(b"\r\n\r\n")
    length = next(int(line.split(b":", 1)[1]) for line in head.split(b"\r\n")
                  if line.lower().startswith(b"content-length:"))
    while len(body) < length:
        chunk = conn.recv(65536)
        assert chunk, "closed mid-body"
        body += chunk
    return head + b"\r\n\r\n" + body


def scrape(url: str) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    """The gateway's /metrics (fetched from ``OTHER`` on a connection of its own): (sample, labels) -> value."""
    transport = httpx.HTTPTransport(local_address=OTHER)
    with httpx.Client(base_url=url, timeout=10.0, trust_env=False, transport=transport) as c:
        answer = c.get("/metrics", headers={"Connection": "close"})
    assert answer.status_code == 200, answer.text
    text = answer.text
    return {(s.name, tuple(sorted(s.labels.items()))): s.value
            for family in text_string_to_metric_families(text) for s in family.samples}


def metric(url: str, name: str, **labels: str) -> float:
    return scrape(url).get((name, tuple(sorted(labels.items()))), 0.0)

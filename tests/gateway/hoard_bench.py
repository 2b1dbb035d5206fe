"""The connection hoard at full size, as a bench rather than a test (tests/gateway/test_connections.py holds the
timed tests, with hundreds of connections):

    python -m tests.gateway.hoard_bench [--connections 19900] [--nofile 20000] [--header-timeout-s 120]

A real stack on the test Redis (AIRSHIP_TEST_REDIS_URL); its gateway runs with ``--nofile`` descriptors. One
client (127.0.0.1) opens ``--connections`` idle TCP connections; then another address (127.0.0.2) opens 18 new
connections and plays commands. Prints how many of the hoard stayed open and were refused, the gateway's CPU
time per refusal and its descriptors in use, whether the 18 were served, and the other address's median command
latency without and with the hoard. This process needs ``--connections`` descriptors of its own."""

from __future__ import annotations

import argparse
import os
import time

import httpx

import tests.pipeline.nim  # noqa: F401  (registers nim)
from services.bench import register_tally
from services.gateway.conns import raise_fd_limit
from tests.gateway.attack_kit import client, create_match
from tests.gateway.conn_kit import HOARDER, OTHER, open_conn, settled
from tests.gateway.stack import running_stack, stack_settings
from tests.gateway.test_connections import median_latency_s


def cpu_s(pid: int) -> float:
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--connections", type=int, default=19_900)
    parser.add_argument("--nofile", type=int, default=20_000, help="the gateway's file-descriptor limit")
    parser.add_argument("--header-timeout-s", type=float, default=120.0,
                        help="longer than the hoard takes to open, so that none of it is closed meanwhile")
    args = parser.parse_args()
    raise_fd_limit()  # this process holds the hoard
    register_tally()
    redis_url = os.environ.get("AIRSHIP_TEST_REDIS_URL", "redis://127.0.0.1:6379/9")
    with running_stack(stack_settings(redis_url, "hoard"), nofile=args.nofile,
                       AIRSHIP_GATEWAY_HEADER_TIMEOUT_S=str(args.header_timeout_s)) as stack:
        gateway = stack.procs[-1].pid
        with client(stack.url, transport=httpx.HTTPTransport(local_address=OTHER)) as http:
            match = create_match(http, "nim", 2)
        unloaded = median_latency_s(stack, match)
        cpu_before, started = cpu_s(gateway), time.monotonic()
        hoard = []
        try:
            for _ in range(args.connections):
                hoard.append(open_conn(stack.url, HOARDER, reset=True))
            opened_s = time.monotonic() - started
            answers = settled(hoard, 1.0)
            refused = sum(a is not None for a in answers)
            cpu = cpu_s(gateway) - cpu_before
            print(f"hoard of {len(hoard)} opened in {opened_s:.1f} s: {len(hoard) - refused} open, {refused} refused; "
                  f"gateway CPU {cpu:.2f} s ({cpu / max(refused, 1) * 1e6:.0f} µs per refusal), "
                  f"{len(os.listdir(f'/proc/{gateway}/fd'))} descriptors in use of {args.nofile}")
            served = 0
            for _ in range(18):
                with client(stack.url, transport=httpx.HTTPTransport(local_address=OTHER)) as other:
                    served += other.get("/healthz").status_code == 200
            loaded = median_latency_s(stack, match)
            print(f"18 new connections from {OTHER}: {served} served; median command latency "
                  f"{unloaded * 1e3:.1f} ms without the hoard, {loaded * 1e3:.1f} ms with it")
        finally:
            for conn in hoard:
                conn.close()


if __name__ == "__main__":
    main()

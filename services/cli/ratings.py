"""``airship ratings projector|rebuild`` (the ratings read model, services.ratings), ``airship ladder`` (the
standings of a game, from the gateway or straight from Redis), ``airship players register NAME`` (a new
player's API key, through the gateway) and ``airship arena`` (a registered bot that keeps playing rated matches
the gateway's arena pairs it into)."""

from __future__ import annotations

import argparse
import json
import os
import socket
import sys
from pathlib import Path
from typing import Any

from services.cli.common import EXIT_FAILED, Subcommand, SubParsers, fail, redis_flags, settings_from
from services.logs import get_logger

log = get_logger("cli")


def add_ratings(sub: SubParsers) -> None:
    p = sub.add_parser("ratings", help="the ratings read model: run its projector, or rebuild it from every match")
    p.add_argument("action", choices=("projector", "rebuild"),
                   help="projector: keep the ladder up to date from the feeds; rebuild: drop it and recompute it")
    redis_flags(p)
    p.add_argument("--consumer", default=None, help="projector: consumer name in the group (default: host-pid)")
    p.add_argument("--sweep-every-s", type=float, default=60.0,
                   help="projector: seconds between sweeps of the finished matches no feed entry brought")
    p.add_argument("--archive-dir", type=Path, default=None,
                   help="rebuild: the archive directory (default: $AIRSHIP_ARCHIVE_DIR; none: Redis only)")


def cmd_ratings(args: argparse.Namespace) -> int:
    from services.cli.serve import stop_on_signals
    from services.pipeline.redis_backend import connect

    settings = settings_from(args)
    if args.action == "rebuild":
        from services.ratings.rebuild import rebuild

        root = args.archive_dir or (Path(settings.archive_dir) if settings.archive_dir else None)
        r = connect(settings.redis_url)
        report = rebuild(r, settings.keys, root)
        r.close()
        print(json.dumps({"from_redis": report.from_redis, "from_archive": report.from_archive,
                          "games": report.games, "unreadable": report.unreadable,
                          "seconds": round(report.seconds, 3)}))
        return EXIT_FAILED if report.unreadable else 0
    from services import metrics
    from services.health import Health, redis_group_check, serve
    from services.keys import RATINGS_GROUP
    from services.ratings.projector import ratings_projector

    metrics.serve(settings.metrics_port)
    r = _when_ready(settings, connect)
    consumer = args.consumer or f"{socket.gethostname()}-{os.getpid()}"
    projector = ratings_projector(r, settings.keys, consumer, block_ms=settings.block_ms,
                                  claim_idle_ms=settings.claim_idle_ms, claim_every_s=settings.claim_every_s,
                                  sweep_every_s=args.sweep_every_s)
    feeds = [settings.keys.feed(p) for p in range(settings.partitions)]
    health = Health(redis_group_check(r, feeds, RATINGS_GROUP),
                    stale_after_s=max(settings.health_stale_s, args.sweep_every_s * 3))
    stop_on_signals(projector.stop)
    serve(health, settings.health_port)
    projector.heartbeat = health.beat
    projector.run()
    projector.leave()
    r.close()
    return 0


def _when_ready(settings: Any, connect: Any, wait_s: float = 60.0) -> Any:
    """A client once Redis answers (a projector started before Redis, or while it loads its data, waits)."""
    import time

    import redis

    deadline = time.monotonic() + wait_s
    while True:
        r = connect(settings.redis_url, socket_timeout_s=settings.block_ms / 1000 + settings.redis_timeout_s)
        try:
            r.ping()
            return r
        except redis.ConnectionError as e:
            r.close()
            if time.monotonic() > deadline:
                raise
            log.warning("Redis is not reachable yet; waiting", error=str(e))
            time.sleep(1.0)


def add_players(sub: SubParsers) -> None:
    p = sub.add_parser("players", help="registered players (bots or people) of the ladder, through the gateway")
    p.add_argument("action", choices=("register",), help="register: a new player; prints its API key, once")
    p.add_argument("name", help="2 to 32 letters, digits, '_' or '-', a letter first")
    p.add_argument("--url", default=None, help="the gateway (default: $AIRSHIP_URL or http://127.0.0.1:8000)")
    p.add_argument("--json", action="store_true", help="print the answer as JSON ({name, api_key})")


def cmd_players(args: argparse.Namespace) -> int:
    import httpx

    url = (args.url or os.environ.get("AIRSHIP_URL") or "http://127.0.0.1:8000").rstrip("/")
    try:
        answer = httpx.post(f"{url}/players", json={"name": args.name}, timeout=30)
    except httpx.HTTPError as e:
        print(f"airship: players: the gateway at {url} does not answer: {e}", file=sys.stderr)
        return EXIT_FAILED
    if answer.status_code != 201:
        try:
            detail = answer.json().get("detail", answer.text)
        except ValueError:
            detail = answer.text
        return fail(f"{args.name} not registered: {answer.status_code} {detail}")
    body = answer.json()
    if args.json:
        print(json.dumps(body))
    else:
        print(body["api_key"])
        print(f"registered {body['name']}: keep the key above secret, it is shown only this once "
              f"(send it as X-Airship-Key)", file=sys.stderr)
    return 0


def add_ladder(sub: SubParsers) -> None:
    p = sub.add_parser("ladder", help="a game's standings: rating (mu - 3 sigma), games, wins")
    p.add_argument("--game", required=True)
    p.add_argument("--player", default=None, help="that player's match history instead")
    p.add_argument("--url", default=None, help="the gateway (default: $AIRSHIP_URL; none: read Redis directly)")
    p.add_argument("--json", action="store_true", help="print JSON")
    redis_flags(p)


def cmd_ladder(args: argparse.Namespace) -> int:
    url = args.url or os.environ.get("AIRSHIP_URL")
    rows: list[dict[str, Any]]
    if url and args.redis is None:
        import httpx

        path = f"/ladder/{args.game}" + (f"/players/{args.player}" if args.player else "")
        answer = httpx.get(url.rstrip("/") + path, timeout=30)
        if answer.status_code == 404:
            return fail(answer.json().get("detail", "not found"))
        answer.raise_for_status()
        body = answer.json()
        rows = body["history"] if args.player else body["standings"]
    else:
        from services.pipeline.redis_backend import connect
        from services.ratings.store import RatingsStore

        settings = settings_from(args)
        r = connect(settings.redis_url)
        store = RatingsStore(r, settings.keys)
        rows = store.history(args.game, args.player) if args.player else store.standings(args.game)
        r.close()
    if args.json:
        print(json.dumps(rows))
        return 0
    if args.player:
        for row in rows:
            print(f"{row['match_id']}  seat {row['seat']}  place {row['rank'] + 1}  score {row['score']}  "
                  f"{row['before']:7.2f} -> {row['after']:7.2f}  {' '.join(row['players'])}")
        return 0
    if not rows:
        print(f"no rated matches of {args.game} yet", file=sys.stderr)
    print(f"{'#':>3}  {'player':<32} {'rating':>7} {'mu':>7} {'sigma':>6} {'games':>5} {'wins':>5}")
    for place, row in enumerate(rows, 1):
        print(f"{place:>3}  {row['player']:<32} {row['rating']:7.2f} {row['mu']:7.2f} {row['sigma']:6.2f} "
              f"{row['games']:>5} {row['wins']:>5}")
    return 0


def add_arena(sub: SubParsers) -> None:
    p = sub.add_parser("arena", help="a registered bot that keeps queueing for and playing rated matches")
    p.add_argument("--game", required=True)
    p.add_argument("--key-file", type=Path, default=None,
                   help="a file holding the player's API key (default: $AIRSHIP_API_KEY)")
    p.add_argument("--bot", default="heuristic", help="random, heuristic, ismcts or ismcts:<iterations>")
    p.add_argument("--seats", default=None,
                   help="the seat counts accepted, in order of preference, e.g. 4,3 (default: any the game takes)")
    p.add_argument("--matches", type=int, default=0, help="stop after this many matches (default 0: never)")
    p.add_argument("--parallel", type=int, default=1,
                   help="matches at once (at most the open arena tickets a player may hold: 2)")
    p.add_argument("--idle-timeout-s", type=float, default=300.0,
                   help="abandon a match that does not move for this long, and queue again")
    p.add_argument("--url", default=None, help="the gateway (default: $AIRSHIP_URL or http://127.0.0.1:8000)")
    p.add_argument("--json", action="store_true", help="print each match as a JSON line, and the summary")


def cmd_arena(args: argparse.Namespace) -> int:
    import signal
    import threading

    from services.bots.arena_player import Arena, ArenaSettings, Played
    from services.client.errors import ClientError
    from services.games import GAMES
    from services.ratings.pairing import TICKETS_PER_PLAYER

    if args.game not in GAMES:
        return fail(f"no game {args.game} (games: {', '.join(sorted(GAMES))})")
    if args.key_file is not None:
        try:
            api_key = args.key_file.read_text().strip().splitlines()[0].strip()
        except (OSError, IndexError) as e:
            return fail(f"cannot read the API key from {args.key_file}: {e}")
    else:
        api_key = os.environ.get("AIRSHIP_API_KEY", "").strip()
    if not api_key:
        return fail("give the player's API key with --key-file FILE or $AIRSHIP_API_KEY")
    try:
        seats = tuple(int(n) for n in args.seats.split(",")) if args.seats else None
    except ValueError:
        return fail(f"--seats takes seat counts separated by commas, not {args.seats!r}")
    if not 1 <= args.parallel <= TICKETS_PER_PLAYER:
        return fail(f"--parallel must be 1 to {TICKETS_PER_PLAYER}")
    url = (args.url or os.environ.get("AIRSHIP_URL") or "http://127.0.0.1:8000").rstrip("/")

    def show(played: Played) -> None:
        if args.json:
            print(json.dumps({"match_id": played.match_id, "seat": played.seat, "players": played.players,
                              "outcome": played.outcome, "score": played.score}), flush=True)
        else:
            print(f"{played.match_id}  seat {played.seat}  {played.outcome:<9} score {played.score}  "
                  f"{' '.join(played.players)}", flush=True)

    arena = Arena(ArenaSettings(url=url, game=args.game, api_key=api_key, bot=args.bot, seats=seats,
                                matches=args.matches, parallel=args.parallel, idle_timeout_s=args.idle_timeout_s),
                  on_played=show)
    if threading.current_thread() is threading.main_thread():
        for sig in (signal.SIGINT, signal.SIGTERM):
            signal.signal(sig, lambda *_: arena.stop())
    try:
        report = arena.run()
    except ClientError as e:
        return fail(f"arena: {e}")
    summary = report.as_dict()
    if args.json:
        print(json.dumps(summary))
    else:
        print(f"{summary['matches']} matches: " + ", ".join(f"{k} {v}" for k, v in summary.items() if k != "matches"),
              file=sys.stderr)
    return 0


RATINGS = Subcommand("ratings", add_ratings, cmd_ratings)
ARENA = Subcommand("arena", add_arena, cmd_arena)
LADDER = Subcommand("ladder", add_ladder, cmd_ladder)
PLAYERS = Subcommand("players", add_players, cmd_players)

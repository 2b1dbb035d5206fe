"""``airship archiver``: the retention process (see :mod:`services.archive.archiver`). Settings from the
environment (``AIRSHIP_ARCHIVE_DIR``, ``AIRSHIP_ARCHIVE_GRACE_S``, ``AIRSHIP_ARCHIVE_EVERY_S``, the Redis
ones), a few also from flags. It finishes the match in hand and exits 0 on SIGTERM or SIGINT;
``--once`` makes one pass and exits (1 if a match could not be archived)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TypeAlias

SubParsers: TypeAlias = "argparse._SubParsersAction[argparse.ArgumentParser]"


def add_parsers(sub: SubParsers) -> None:
    from services.cli_redis import _common

    p = sub.add_parser("archiver", help="archive finished matches to files and remove them from Redis")
    _common(p)
    p.add_argument("--dir", type=Path, default=None, help="archive directory (default: $AIRSHIP_ARCHIVE_DIR)")
    p.add_argument("--grace-s", type=float, default=None,
                   help="archive matches finished this long ago (default: $AIRSHIP_ARCHIVE_GRACE_S or 86400)")
    p.add_argument("--every-s", type=float, default=None,
                   help="seconds between passes (default: $AIRSHIP_ARCHIVE_EVERY_S or 60)")
    p.add_argument("--metrics-port", type=int, default=None, help="Prometheus port (default: $AIRSHIP_METRICS_PORT)")
    p.add_argument("--once", action="store_true", help="one pass, then exit")


def cmd_archiver(args: argparse.Namespace) -> int:
    from services import metrics
    from services.archive.archiver import Archiver
    from services.cli_redis import _serve
    from services.health import Health, serve
    from services.pipeline.redis_backend import connect
    from services.settings import Settings

    settings = Settings.from_env(redis_url=args.redis, key_prefix=args.prefix, partitions=args.partitions,
                                 metrics_port=args.metrics_port, archive_grace_s=args.grace_s,
                                 archive_every_s=args.every_s,
                                 archive_dir=str(args.dir) if args.dir is not None else None)
    settings.import_game_modules()
    r = connect(settings.redis_url)
    try:
        archiver = Archiver(r, settings)
    except ValueError as e:
        print(f"airship: archiver: {e}", file=sys.stderr)
        return 2
    if args.once:
        report = archiver.run_once()
        print(f"archived {len(report.archived)}, waiting {report.waiting}, errors {len(report.errors)}")
        r.close()
        return 1 if report.errors else 0
    metrics.serve(settings.metrics_port)

    def ready() -> str | None:
        try:
            r.ping()
        except Exception as e:
            return f"redis does not answer: {e}"
        return None if archiver.root.is_dir() else f"the archive directory {archiver.root} is missing"

    archiver.root.mkdir(parents=True, exist_ok=True)
    health = Health(ready, stale_after_s=max(60.0, settings.archive_every_s * 3 + 600))
    serve(health, settings.health_port)
    archiver.heartbeat = health.beat
    _serve(archiver.run, archiver.stop)
    r.close()
    return 0


COMMANDS = {"archiver": cmd_archiver}

"""The archiver serves its archive read-only over HTTP (``AIRSHIP_ARCHIVE_PORT``): ``GET /archive/<match_id>``
answers the file ``<archive_dir>/<partition>/<match_id>.jsonl.gz`` as it is (gzip), 404 when there is none.

So the archive needs one volume mounted by one pod (ReadWriteOnce, the archiver's), not a ReadWriteMany volume
mounted by every gateway: gateways set ``AIRSHIP_ARCHIVE_URL`` to the archiver's address and ask it
(:func:`fetch_archive`). Nothing but the match id is read from the request; ids that cannot name a file are 404.
"""

from __future__ import annotations

import gzip
import threading
import urllib.error
import urllib.parse
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import cast

from services.archive.files import archive_path
from services.replay.files import LogFileError, MatchLog, parse_jsonl

PREFIX = "/archive/"


def _handler(root: Path, partitions: int) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            path = urllib.parse.urlsplit(self.path).path
            body = None
            if path.startswith(PREFIX):
                try:
                    file = archive_path(root, path[len(PREFIX):], partitions)
                    body = file.read_bytes() if file.is_file() else None
                except (ValueError, OSError):
                    body = None
            if body is None:
                self.send_response(404)
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            self.send_response(200)
            self.send_header("Content-Type", "application/gzip")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: object) -> None:
            pass

    return Handler


def serve_archive(root: Path, partitions: int, port: int, host: str = "0.0.0.0") -> ThreadingHTTPServer:
    """Serve ``root`` on ``port`` in a daemon thread; returns the server (``shutdown()`` stops it)."""
    server = ThreadingHTTPServer((host, port), _handler(root, partitions))
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, name="archive-http", daemon=True).start()
    return server


class ArchiveUnavailable(RuntimeError):
    """The archiver did not answer (down, or unreachable): not the same as "no such archive"."""


def fetch_archive(url: str, match_id: str, timeout_s: float = 5.0) -> MatchLog | None:
    """The archived match from the archiver at ``url``, or None when it has none; raises
    :class:`ArchiveUnavailable` when it does not answer and LogFileError for a file that does not read."""
    quoted = urllib.parse.quote(match_id, safe="")
    try:
        with urllib.request.urlopen(f"{url.rstrip('/')}{PREFIX}{quoted}", timeout=timeout_s) as response:
            data = cast(bytes, response.read())
    except urllib.error.HTTPError as e:
        if e.code == 404:
            return None
        raise ArchiveUnavailable(f"the archiver answered {e.code}") from e
    except OSError as e:
        raise ArchiveUnavailable(f"the archiver does not answer: {e}") from e
    try:
        text = gzip.decompress(data).decode("utf-8", errors="replace")
    except (OSError, EOFError) as e:
        raise LogFileError(f"the archive of {match_id} does not read: {e}") from e
    return parse_jsonl(text)

"""The bridge's own small store: which match each channel plays and who sits where, with the seat tokens,
so a restarted bridge carries on where it stopped.

One JSON file, readable and writable by its owner only (0600, in a directory created 0700), replaced
atomically on every change (written to a temporary file beside it, flushed to disk, then renamed over it):
a crash leaves the old file or the new one, never half of one. It holds seat tokens: keep it like a key.
Claim codes are kept only as their SHA-256.
"""

from __future__ import annotations

import contextlib
import json
import os
import stat
import tempfile
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

FORMAT = 1
FILE_MODE = 0o600
DIR_MODE = 0o700


class StoreError(RuntimeError):
    """The store file cannot be read or written; the message says which file and why."""


@dataclass
class SeatRecord:
    seat: int
    token: str  # the seat token (the gateway's credential): never shown to anyone
    nick: str
    userhost: str | None = None  # user@host as the server showed it when the player last spoke or joined
    account: str | None = None  # the services account, where the server names one
    claim_hash: str = ""  # sha256 of the claim code the player was given
    away: bool = False  # the player left IRC: his account, his claim code, or (for a while) his nick and user@host
    away_since: float = 0.0  # when he left (seconds since the epoch)


@dataclass
class TableRecord:
    channel: str
    match_id: str
    game: str
    seats: int
    shown: int = 0  # the channel has been told the events up to this version
    players: list[SeatRecord] = field(default_factory=list)
    abandon_votes: list[int] = field(default_factory=list)
    bots: dict[str, str] = field(default_factory=dict)  # seat (as text) -> strength: seats given to the service's bots


def _table(data: dict[str, Any]) -> TableRecord:
    players = [SeatRecord(**p) for p in data.get("players", [])]
    return TableRecord(**{**data, "players": players})


class TableStore:
    """``load()`` the tables, ``save(tables)`` them all; a missing file is an empty store."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)

    def load(self) -> list[TableRecord]:
        try:
            with self.path.open(encoding="utf-8") as f:
                mode = os.fstat(f.fileno()).st_mode
                data = json.load(f)
        except FileNotFoundError:
            return []
        except (OSError, ValueError) as e:
            raise StoreError(f"cannot read the table store {self.path}: {e}") from e
        if mode & (stat.S_IRWXG | stat.S_IRWXO):  # seat tokens must not be readable by others: tighten it
            with contextlib.suppress(OSError):
                os.chmod(self.path, FILE_MODE)
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise StoreError(f"{self.path} is not a table store of format {FORMAT}")
        try:
            return [_table(t) for t in data.get("tables", [])]
        except TypeError as e:
            raise StoreError(f"{self.path} has a malformed table: {e}") from e

    def save(self, tables: list[TableRecord]) -> None:
        data = {"format": FORMAT, "tables": [asdict(t) for t in tables]}
        text = json.dumps(data, indent=1, sort_keys=True)
        directory = self.path.parent
        try:
            directory.mkdir(mode=DIR_MODE, parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(prefix=f".{self.path.name}.", suffix=".tmp", dir=directory)  # mode 0600
        except OSError as e:
            raise StoreError(f"cannot write the table store {self.path}: {e}") from e
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                os.fchmod(f.fileno(), FILE_MODE)
                f.write(text)
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, self.path)
            _sync_dir(directory)
        except OSError as e:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise StoreError(f"cannot write the table store {self.path}: {e}") from e


def _sync_dir(directory: Path) -> None:
    """Make the rename itself durable (where the platform allows opening a directory)."""
    with contextlib.suppress(OSError):
        fd = os.open(directory, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)

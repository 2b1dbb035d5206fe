"""The README keeps its word: every command block marked ``<!-- runnable -->`` (the line right before a
```` ```bash ```` fence) runs and exits 0, and every relative link in the README and in ``docs/`` points at
a file that exists.

Each block runs on its own with ``bash -euo pipefail`` in a fresh temporary directory, with the
virtualenv's ``bin`` first on ``PATH`` (as ``. .venv/bin/activate`` would have it), a private Redis key
prefix (``AIRSHIP_KEY_PREFIX``, deleted afterwards), ``AIRSHIP_REDIS_URL`` pointing at the test Redis for
blocks that use Redis, and a free ``PORT`` for a gateway. Its whole process group is killed afterwards,
whatever the block left running.
"""

from __future__ import annotations

import contextlib
import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.pipeline.redis_fixtures import redis_url  # noqa: F401  (the test Redis, for blocks that use it)

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
MARK = "<!-- runnable -->"
TIMEOUT_S = 120.0
VENV_BIN = Path(sys.executable).parent  # the venv's bin when pytest runs from it (make test: .venv/bin/python)


@dataclass(frozen=True)
class Block:
    line: int  # the line of the opening fence, 1-based
    text: str

    @property
    def needs_redis(self) -> bool:
        return "AIRSHIP_REDIS_URL" in self.text or "--redis" in self.text

    @property
    def runs_gateway(self) -> bool:
        return "airship gateway" in self.text



def runnable_blocks(markdown: str) -> list[Block]:
    """Every ```bash block whose fence line directly follows the runnable mark. A mark anywhere else is
    an error: it would silently leave its block untested."""
    lines = markdown.splitlines()
    blocks = []
    for i, line in enumerate(lines):
        if line.strip() != MARK:
            continue
        if i + 1 >= len(lines) or lines[i + 1].strip() != "```bash":
            raise ValueError(f"README.md:{i + 1}: {MARK} must be followed by a ```bash fence on the next line")
        end = next((j for j in range(i + 2, len(lines)) if lines[j].strip().startswith("```")), None)
        if end is None:
            raise ValueError(f"README.md:{i + 2}: the block is never closed")
        blocks.append(Block(i + 2, "\n".join(lines[i + 2:end]) + "\n"))
    return blocks


BLOCKS = runnable_blocks(README.read_text(encoding="utf-8"))


def _params() -> list[object]:
    params: list[object] = []
    for block in BLOCKS:
        marks = []
        if block.needs_redis:
            marks.append(pytest.mark.redis)
        if block.runs_gateway:
            marks.append(pytest.mark.gateway)
        # together they took 50-70 s on a loaded 2-core machine (the walkthrough alone 30-40 s): slow, so that
        # `make test-fast` leaves them out; the link checks below are fast
        marks.append(pytest.mark.slow)
        params.append(pytest.param(block, id=f"line{block.line}", marks=marks))
    return params


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def key_prefix() -> Iterator[str]:
    """A key prefix of the test's own; every key under it is deleted afterwards (if a Redis was used)."""
    prefix = f"airship-readme-{uuid.uuid4().hex[:8]}"
    yield prefix


def _environment(prefix: str, redis: str | None) -> dict[str, str]:
    # nothing of the caller's airship settings leaks into a block: it sees what a fresh shell would
    env = {k: v for k, v in os.environ.items() if not k.startswith("AIRSHIP_")}
    env.update(PATH=f"{VENV_BIN}{os.pathsep}{env.get('PATH', '')}", VIRTUAL_ENV=str(VENV_BIN.parent),
               AIRSHIP_KEY_PREFIX=prefix, PORT=str(free_port()), PYTHONUNBUFFERED="1")
    env.pop("PYTHONHOME", None)
    if redis is not None:
        env["AIRSHIP_REDIS_URL"] = redis
    return env


def _kill_group(pgid: int, grace_s: float = 5.0) -> None:
    """SIGTERM to the block's whole process group (whatever it left running), SIGKILL to what remains."""
    try:
        os.killpg(pgid, signal.SIGTERM)
    except ProcessLookupError:
        return
    deadline = time.monotonic() + grace_s
    while time.monotonic() < deadline:
        try:
            os.killpg(pgid, 0)
        except ProcessLookupError:
            return
        time.sleep(0.1)
    with contextlib.suppress(ProcessLookupError):
        os.killpg(pgid, signal.SIGKILL)


def test_the_readme_has_runnable_blocks() -> None:
    assert len(BLOCKS) >= 3, "README.md marks no (or too few) blocks as runnable"
    assert any(block.runs_gateway for block in BLOCKS), "the walkthrough (airship gateway) is not marked runnable"


@pytest.mark.parametrize("block", _params())
def test_runnable_block_exits_0(block: Block, key_prefix: str, request: pytest.FixtureRequest) -> None:
    assert (VENV_BIN / "airship").exists(), f"run the tests with the virtualenv's python ({VENV_BIN} has no airship)"
    redis = request.getfixturevalue("redis_url") if block.needs_redis else None  # fails clearly if none answers
    env = _environment(key_prefix, redis)
    with tempfile.TemporaryDirectory(prefix="airship-readme-") as workdir:
        proc = subprocess.Popen(["bash", "-euo", "pipefail", "-c", block.text], cwd=workdir, env=env,
                                stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                start_new_session=True)
        try:
            output, _ = proc.communicate(timeout=TIMEOUT_S)
            timed_out = False
        except subprocess.TimeoutExpired:
            _kill_group(proc.pid)
            output, _ = proc.communicate()
            timed_out = True
        finally:
            _kill_group(proc.pid)
            if redis is not None:
                _delete_prefix(redis, key_prefix)
    shown = output.decode(errors="replace")[-8000:]
    where = f"README.md line {block.line}"
    assert not timed_out, f"{where}: the block did not finish within {TIMEOUT_S:g}s; its output:\n{shown}"
    assert proc.returncode == 0, f"{where}: the block exited {proc.returncode}; its output:\n{shown}"


def _delete_prefix(url: str, prefix: str) -> None:
    import redis as redis_py

    client = redis_py.Redis.from_url(url)
    try:
        keys = list(client.scan_iter(match=f"{prefix}:*", count=1000))
        for i in range(0, len(keys), 500):
            client.unlink(*keys[i:i + 500])
    finally:
        client.close()


# -- links ------------------------------------------------------------------------------------------------

LINK = re.compile(r"(?<!!)\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
REFERENCE = re.compile(r"^\s*\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+.*)?$", re.MULTILINE)
FENCE = re.compile(r"^(```|~~~).*?^\1[^\n]*$", re.MULTILINE | re.DOTALL)
INLINE_CODE = re.compile(r"`+[^`\n]*`+")


def _pages() -> list[Path]:
    return [README, *sorted((ROOT / "docs").glob("*.md"))]


def _links(page: Path) -> list[str]:
    text = INLINE_CODE.sub("", FENCE.sub("", page.read_text(encoding="utf-8")))
    return LINK.findall(text) + REFERENCE.findall(text)


def _anchors(page: Path) -> set[str]:
    """GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens."""
    text = FENCE.sub("", page.read_text(encoding="utf-8"))
    anchors = set()
    for heading in re.findall(r"^#{1,6}\s+(.+?)\s*#*\s*$", text, re.MULTILINE):
        heading = re.sub(r"`|\*\*|\[([^\]]*)\]\([^)]*\)", r"\1", heading)
        anchors.add(re.sub(r"[^\w\- ]", "", heading.lower()).replace(" ", "-"))
    return anchors


@pytest.mark.parametrize("page", _pages(), ids=lambda p: str(p.relative_to(ROOT)))
def test_relative_links_point_at_files_that_exist(page: Path) -> None:
    broken = []
    for target in _links(page):
        if re.match(r"^[a-z][a-z0-9+.-]*:", target, re.IGNORECASE) or target.startswith("//"):
            continue  # http:, https:, mailto: ...
        path, _, anchor = target.partition("#")
        path = path.split("?", 1)[0]
        resolved = (page.parent / path).resolve() if path else page
        if not resolved.exists():
            broken.append(f"{target} (no {resolved.relative_to(ROOT) if resolved.is_relative_to(ROOT) else resolved})")
        elif anchor and resolved.suffix == ".md" and anchor not in _anchors(resolved):
            broken.append(f"{target} (no heading #{anchor} in {resolved.relative_to(ROOT)})")
    assert not broken, f"{page.relative_to(ROOT)}: broken links: {broken}"

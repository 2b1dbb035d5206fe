"""Choosing a cluster client or a plain one (services.pipeline.redis_conn)."""

from __future__ import annotations

import pytest
import redis

from services.pipeline.redis_conn import CLUSTER_ENV, cluster_choice, connect, is_cluster, redact, startup_nodes


@pytest.mark.parametrize(("url", "env", "expected"), [
    ("redis://h:1/0", None, ("redis://h:1/0", None)),
    ("redis://h:1/0", "yes", ("redis://h:1/0", True)),
    ("redis://h:1/0", "no", ("redis://h:1/0", False)),
    ("redis://h:1/0?cluster=yes", "no", ("redis://h:1/0", True)),  # the URL wins
    ("redis://u:p@h:1/0?cluster=0&ssl_cert_reqs=none", None, ("redis://u:p@h:1/0?ssl_cert_reqs=none", False)),
])
def test_the_url_or_the_setting_chooses(monkeypatch: pytest.MonkeyPatch, url: str, env: str | None,
                                        expected: tuple[str, bool | None]) -> None:
    if env is None:
        monkeypatch.delenv(CLUSTER_ENV, raising=False)
    else:
        monkeypatch.setenv(CLUSTER_ENV, env)
    assert cluster_choice(url) == expected


def test_a_bad_choice_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(CLUSTER_ENV, "maybe")
    with pytest.raises(ValueError, match="yes, no or auto"):
        cluster_choice("redis://h:1/0")


def test_passwords_never_shown() -> None:
    assert redact("redis://worker:s3cret@h:6379/0") == "redis://worker:***@h:6379/0"


def test_more_nodes_to_start_from(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AIRSHIP_REDIS_ADDRESSES", "a:1, b:2,bad,:3")
    assert [(n.host, n.port) for n in startup_nodes()] == [("a", 1), ("b", 2)]


@pytest.mark.redis
def test_a_single_server_is_asked_and_gets_a_plain_client(redis_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(CLUSTER_ENV, raising=False)
    r = connect(redis_url)
    try:
        assert isinstance(r, redis.Redis) and not is_cluster(r) and r.ping()
    finally:
        r.close()

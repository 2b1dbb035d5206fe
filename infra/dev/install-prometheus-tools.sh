#!/usr/bin/env bash
# Install promtool (Debian 12's `prometheus` package) and redis_exporter (`prometheus-redis-exporter`), unpacked,
# not installed as services, into a cache directory: the alert unit tests (`promtool check rules`, `promtool test
# rules`) and the scrape-coverage test (a real redis_exporter against the shipped Redis config) run them.
# Idempotent; prints the bin directory. $AIRSHIP_PROMTOOL_HOME, default ${XDG_CACHE_HOME:-$HOME/.cache}/airship/prometheus.
set -euo pipefail
home="${AIRSHIP_PROMTOOL_HOME:-${XDG_CACHE_HOME:-$HOME/.cache}/airship/prometheus}"
if [ -x "$home/bin/promtool" ] && [ -x "$home/bin/redis_exporter" ]; then
  echo "$home/bin"; exit 0
fi
work="$(mktemp -d)"; trap 'rm -rf "$work"' EXIT
echo "prometheus tools: fetching Debian's prometheus and prometheus-redis-exporter packages (unpacked only)" >&2
download() { (cd "$work" && apt-get -o APT::Sandbox::User=root -qq download prometheus prometheus-redis-exporter >&2); }
if ! download 2>/dev/null; then
  apt-get -qq update >&2
  download
fi
mkdir -p "$home/bin"
for deb in "$work"/*.deb; do dpkg-deb -x "$deb" "$work/x"; done
cp "$work/x/usr/bin/promtool" "$home/bin/promtool"
cp "$work/x/usr/bin/prometheus-redis-exporter" "$home/bin/redis_exporter"
"$home/bin/promtool" --version 2>&1 | head -1 >&2
echo "$home/bin"

#!/usr/bin/env bash
# Install promtool (Debian 12's `prometheus` package, unpacked, not installed as a service) into a cache
# directory, for the alert unit tests (`promtool check rules`, `promtool test rules`). Idempotent; prints the
# bin directory. $AIRSHIP_PROMTOOL_HOME, default ${XDG_CACHE_HOME:-$HOME/.cache}/airship/prometheus.
set -euo pipefail
home="${AIRSHIP_PROMTOOL_HOME:-${XDG_CACHE_HOME:-$HOME/.cache}/airship/prometheus}"
if [ -x "$home/bin/promtool" ] && "$home/bin/promtool" --version >/dev/null 2>&1; then
  echo "$home/bin"; exit 0
fi
if command -v promtool >/dev/null; then dirname "$(command -v promtool)"; exit 0; fi
work="$(mktemp -d)"; trap 'rm -rf "$work"' EXIT
echo "promtool: fetching Debian's prometheus package (unpacked only)" >&2
if ! (cd "$work" && apt-get -o APT::Sandbox::User=root -qq download prometheus >&2 2>/dev/null); then
  apt-get -qq update >&2
  (cd "$work" && apt-get -o APT::Sandbox::User=root -qq download prometheus >&2)
fi
dpkg-deb -x "$work"/prometheus_*.deb "$work/x"
mkdir -p "$home/bin"
cp "$work/x/usr/bin/promtool" "$home/bin/promtool"
"$home/bin/promtool" --version >&2
echo "$home/bin"

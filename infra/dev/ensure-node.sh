#!/usr/bin/env bash
# Make sure node and npm are there for the JavaScript client tests (tests/gateway/js) and the web checks
# (tests/web/js: axe-core): install Debian's nodejs and npm when missing (as root), then each folder's locked
# dependencies (npm ci) when not installed yet.
set -euo pipefail
if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
  echo "node: installing nodejs and npm"
  if [ "$(id -u)" = 0 ]; then SUDO=""; else SUDO="sudo"; fi
  $SUDO apt-get update -qq && $SUDO apt-get install -y -qq nodejs npm >/dev/null
fi
for name in tests/gateway/js tests/web/js; do
  dir="$(dirname "$0")/../../$name"
  if [ ! -d "$dir/node_modules" ]; then
    echo "node: npm ci in $name"
    (cd "$dir" && npm ci --no-audit --no-fund --loglevel=error)
  fi
done

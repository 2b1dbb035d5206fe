#!/usr/bin/env bash
# Make sure a headless Chromium is there for the browser tests (tests/web): install Debian's chromium (and
# chromium-driver, for WebDriver users) when missing, as root. The tests drive it with Playwright through
# its executable (no browser download: Playwright is told where the system's Chromium is).
set -euo pipefail
if ! command -v chromium >/dev/null; then
  echo "chromium: installing chromium and chromium-driver"
  if [ "$(id -u)" = 0 ]; then SUDO=""; else SUDO="sudo"; fi
  $SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium chromium-driver >/dev/null
fi

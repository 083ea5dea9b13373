#!/usr/bin/env bash
# Makes sure redis-server and redis-benchmark are on PATH: tests start their own
# private servers from it. Installs Debian's package when run as root.
set -euo pipefail
if command -v redis-server >/dev/null 2>&1 && command -v redis-benchmark >/dev/null 2>&1; then
  exit 0
fi
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "need-redis: installing redis-server (Debian package)" >&2
  apt-get update -qq >/dev/null || true
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq redis-server >/dev/null
  # The package may start a system service; tests never use it.
  exit 0
fi
echo "need-redis: redis-server is not installed. Install it (Debian: sudo apt-get install -y redis-server; macOS: brew install redis) and run again." >&2
exit 1

#!/usr/bin/env bash
# Makes sure the PostgreSQL server tools (initdb, pg_ctl, postgres) are
# installed: tests start their own private servers from them (internal/pgtest).
# Installs Debian's package when run as root.
set -euo pipefail
have() {
  for d in /usr/lib/postgresql/*/bin; do
    [ -x "$d/initdb" ] && return 0
  done
  command -v initdb >/dev/null 2>&1
}
if have; then
  exit 0
fi
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "need-postgres: installing postgresql (Debian package)" >&2
  if ! DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null 2>&1; then
    apt-get update -qq >/dev/null || true
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null
  fi
  # The package may start a system service; tests never use it.
  have && exit 0
  echo "need-postgres: postgresql installed but initdb not found" >&2
  exit 1
fi
echo "need-postgres: PostgreSQL is not installed. Install it (Debian: sudo apt-get install -y postgresql; macOS: brew install postgresql) and run again." >&2
exit 1

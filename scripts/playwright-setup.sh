#!/usr/bin/env bash
# Stages what playwright-go needs without downloading at run time:
#   - Chromium from Debian (apt-get install -y chromium),
#   - the playwright-core npm package at the version playwright-go pins,
#   - the axe-core npm package at the exact version pinned below (the checks of
#     e2e/a11y_test.go inject its axe.min.js into each page),
#   - a driver folder: package -> playwright-core, node -> this machine's node,
#     axe-core -> the axe-core package.
# Idempotent and quick when done. Prints the driver folder on stdout.
set -euo pipefail
cd "$(dirname "$0")/.."
root="$PWD/.cache/playwright"
# The playwright-go release in go.mod pins its driver version (run.go). `go mod
# download -json` fetches the module first when the cache is empty (a fresh
# machine), where `go list -m -f {{.Dir}}` would print nothing.
pwgo="$(go mod download -json github.com/playwright-community/playwright-go | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",*$/\1/p')"
[ -n "$pwgo" ] && [ -f "$pwgo/run.go" ] || { echo "playwright-setup: cannot download github.com/playwright-community/playwright-go (go mod download); is the Go module proxy reachable?" >&2; exit 1; }
version="$(sed -n 's/^const playwrightCliVersion = "\(.*\)"/\1/p' "$pwgo/run.go")"
[ -n "$version" ] || { echo "playwright-setup: cannot read playwrightCliVersion from $pwgo/run.go" >&2; exit 1; }

chromium="${CHROMIUM:-}"
if [ -z "$chromium" ]; then
  chromium="$(command -v chromium || command -v chromium-browser || true)"
fi
if [ -z "$chromium" ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "playwright-setup: installing Debian's chromium" >&2
    apt-get update -qq >/dev/null || true
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
    chromium="$(command -v chromium)"
  else
    echo "playwright-setup: Chromium is not installed. Install it (Debian: sudo apt-get install -y chromium) or set CHROMIUM to its path." >&2
    exit 1
  fi
fi

node="$(command -v node || true)"
[ -n "$node" ] || { echo "playwright-setup: node is not installed; install Node.js 18 or newer" >&2; exit 1; }

pkg="$root/node_modules/playwright-core"
if [ "$(node -p "try{require('$pkg/package.json').version}catch(e){''}" 2>/dev/null)" != "$version" ]; then
  echo "playwright-setup: installing playwright-core@$version from npm" >&2
  mkdir -p "$root"
  [ -f "$root/package.json" ] || echo '{"name":"podium-e2e-driver","private":true}' > "$root/package.json"
  npm install --prefix "$root" --no-audit --no-fund --loglevel=error "playwright-core@$version" >&2
fi

# axe-core is pinned here, exactly: a new release adds rules, and a page that
# passed would start failing with no change of ours.
axe_version=4.14.1
axe="$root/node_modules/axe-core"
if [ "$(node -p "try{require('$axe/package.json').version}catch(e){''}" 2>/dev/null)" != "$axe_version" ]; then
  echo "playwright-setup: installing axe-core@$axe_version from npm" >&2
  npm install --prefix "$root" --no-audit --no-fund --loglevel=error --save-exact "axe-core@$axe_version" >&2
fi

driver="$root/driver-$version"
mkdir -p "$driver"
ln -sfn "$pkg" "$driver/package"
ln -sfn "$node" "$driver/node"
ln -sfn "$axe" "$driver/axe-core"
echo "$driver"

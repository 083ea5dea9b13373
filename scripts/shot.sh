#!/usr/bin/env bash
# shot.sh URL OUT.png [WIDTHxHEIGHT]: a headless Chromium screenshot, for looking at pages.
set -euo pipefail
size="${3:-1280x900}"
chromium --headless --no-sandbox --disable-gpu --disable-background-networking --disable-component-update \
  --disable-sync --no-first-run --hide-scrollbars --user-data-dir="$(mktemp -d)" \
  --window-size="${size/x/,}" --screenshot="$2" "$1" >/dev/null 2>&1

#!/usr/bin/env bash
# Benchmarks of the board engine on a 1,000,000-member board, next to
# redis-benchmark ZINCRBY against a private redis-server on this machine in the
# same run, one client at a time (each op one request/response), so the ratio
# says what the engine costs over Redis' cheapest write.
set -euo pipefail
cd "$(dirname "$0")/.."
BENCHTIME="${BENCHTIME:-3000x}"
out="$(mktemp -d)"
port="$(python3 -c 'import socket;s=socket.socket();s.bind(("127.0.0.1",0));print(s.getsockname()[1])' 2>/dev/null || echo 16399)"
redis-server --port "$port" --bind 127.0.0.1 --save "" --appendonly no --dir "$out" --daemonize no >"$out/redis.log" 2>&1 &
rpid=$!
trap 'kill "$rpid" 2>/dev/null || true; rm -rf "$out"' EXIT
for _ in $(seq 50); do redis-cli -p "$port" ping >/dev/null 2>&1 && break; sleep 0.1; done

echo "== redis-benchmark ZINCRBY (1 client, 1 request in flight) =="
redis-benchmark -p "$port" -c 1 -n 50000 -r 1000000 -q zincrby bench:z 1 __rand_int__ | tee "$out/rb.txt"
rb_ops="$(grep -oE '[0-9.]+ requests per second' "$out/rb.txt" | head -1 | cut -d' ' -f1)"

echo "== go test -bench (1,000,000 members; loading takes about a minute) =="
go test ./redisstore -run '^$' -bench 'Submit|Page|Rank|Around' -benchtime "$BENCHTIME" -benchmem -timeout 30m | tee "$out/go.txt"

# The costly one-off steps, a few times each: a rolling window's roll step
# (500 members of a leaving day; its load takes about a minute) and a
# freeze's copy of the 1,000,000-member board (which blocks Redis).
echo "== go test -bench: a rolling window's roll step, a freeze =="
go test ./redisstore -run '^$' -bench 'WindowRoll' -benchtime "${ROLLTIME:-200x}" -timeout 30m | tee "$out/roll.txt"
go test ./redisstore -run '^$' -bench 'Freeze' -benchtime "${FREEZETIME:-3x}" -timeout 30m | tee "$out/freeze.txt"

echo
echo "== summary: ops/s on this machine, this run =="
printf '%-22s %12s %14s\n' "operation" "ops/s" "vs ZINCRBY"
printf '%-22s %12.0f %14s\n' "redis ZINCRBY" "$rb_ops" "1.00"
grep -E '^Benchmark' "$out/go.txt" | while read -r name _ ns _; do
  ops="$(awk -v ns="$ns" 'BEGIN{printf "%.0f", 1e9/ns}')"
  ratio="$(awk -v a="$ops" -v b="$rb_ops" 'BEGIN{printf "%.2f", a/b}')"
  printf '%-22s %12s %14s\n' "${name%-*}" "$ops" "$ratio"
done

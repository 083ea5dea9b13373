#!/usr/bin/env bash
# Redis' own cost of each operation of the board engine on a 1,000,000-member
# board (µs inside commands from INFO commandstats, µs of Redis' CPU from
# used_cpu_*), next to the bare commands an operation needs at the least and
# redis-benchmark ZINCRBY -c 50, all in one run on this machine. One Redis
# core is a board's ceiling: these figures, not latency, say how far it goes.
set -euo pipefail
cd "$(dirname "$0")/.."
BENCHTIME="${BENCHTIME:-3000x}"
# BENCH narrows the run to some benchmarks (a go test -bench pattern), e.g.
# BENCH='Submit$|SubmitGroup|BareZIncrBy' for the writes alone.
BENCH="${BENCH:-Submit$|SubmitGroup|PageTop|PageMiddle|Rank$|Member$|Around$|Bare}"
out="$(mktemp -d)"
port="$(python3 -c 'import socket;s=socket.socket();s.bind(("127.0.0.1",0));print(s.getsockname()[1])' 2>/dev/null || echo 16398)"
redis-server --port "$port" --bind 127.0.0.1 --save "" --appendonly no --dir "$out" --daemonize no >"$out/redis.log" 2>&1 &
rpid=$!
trap 'kill "$rpid" 2>/dev/null || true; rm -rf "$out"' EXIT
for _ in $(seq 50); do redis-cli -p "$port" ping >/dev/null 2>&1 && break; sleep 0.1; done

# redis-benchmark's ZINCRBY, 50 clients: Redis' µs per call, inside the
# command and in all.
cpu() { redis-cli -p "$port" info cpu | awk -F: '/^used_cpu_(user|sys):/ {s += $2} END {printf "%.0f", s * 1e6}'; }
c0="$(cpu)"
redis-benchmark -p "$port" -c 50 -n 200000 -r 1000000 -q zincrby bench:z 1 __rand_int__ >/dev/null
c1="$(cpu)"
zstat="$(redis-cli -p "$port" info commandstats | grep '^cmdstat_zincrby:')"
calls="$(sed -E 's/^cmdstat_zincrby:calls=([0-9]+),.*/\1/' <<<"$zstat" | tr -d '\r')"
zus="$(sed -E 's/.*usec_per_call=([0-9.]+),.*/\1/' <<<"$zstat" | tr -d '\r')"
zcpu="$(awk -v a="$c0" -v b="$c1" -v n="$calls" 'BEGIN{printf "%.1f", (b-a)/n}')"

echo "== go test -bench (1,000,000 members; loading takes about a minute) =="
go test ./redisstore -run '^$' -bench "$BENCH" -benchtime "$BENCHTIME" -timeout 30m | tee "$out/go.txt"

echo
echo "== Redis per operation, this machine, this run =="
printf '%-30s %14s %18s\n' "operation" "redis µs/op" "redis CPU µs/op"
printf '%-30s %14s %18s\n' "redis-benchmark ZINCRBY -c 50" "$zus" "$zcpu"
grep -E '^Benchmark' "$out/go.txt" | while read -r line; do
  name="$(awk '{print $1}' <<<"$line")"; name="${name#Benchmark}"; name="${name%-*}"
  us="$(grep -oE '[0-9.]+ redis-µs/op' <<<"$line" | cut -d' ' -f1)"
  c="$(grep -oE '[0-9.]+ redis-cpu-µs/op' <<<"$line" | cut -d' ' -f1)"
  [ -n "$us" ] && printf '%-30s %14s %18s\n' "$name" "$us" "$c"
done

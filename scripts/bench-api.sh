#!/usr/bin/env bash
# make bench-api: the JSON API's write path next to redis-benchmark ZINCRBY on
# the same private Redis in the same run (ratios; absolute numbers swing with
# load). Loopback only; every process it starts is stopped by pid at the end.
#   P1: single-score POSTs from 50 keep-alive connections (wrk, which costs
#       the shared two cores far less than a Go client; apiload without it)
#   P2: batches of 1,000 scores from 4 connections
#   P3: the same batches without ranks ("ranks": false)
#   R1-R3: reads of the board the writes made (top 50, a random member's
#       standing, around a random member), through the read cache and,
#       in the same run, through a second server with READ_CACHE=false,
#       with Redis' CPU per request and the cache's hit rate
# Then a run whose clients hang up mid-request, checked for lost audit entries.
set -euo pipefail
cd "$(dirname "$0")/.."
DURATION="${DURATION:-10s}"
RUNS="${RUNS:-3}"
out="$(mktemp -d)"
free_port() { python3 -c 'import socket;s=socket.socket();s.bind(("127.0.0.1",0));print(s.getsockname()[1])'; }
rport="$(free_port)"; wport="$(free_port)"; nport="$(free_port)"
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$out"; }
trap cleanup EXIT

if ! command -v wrk >/dev/null 2>&1 && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "bench-api: installing wrk (Debian package)" >&2
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq wrk >/dev/null 2>&1 ||
    { apt-get update -qq >/dev/null 2>&1 || true; DEBIAN_FRONTEND=noninteractive apt-get install -y -qq wrk >/dev/null 2>&1 || true; }
fi
go build -o bin/web ./cmd/web
go build -o bin/apiload ./cmd/apiload
redis-server --port "$rport" --bind 127.0.0.1 --save "" --appendonly no --dir "$out" >"$out/redis.log" 2>&1 &
pids+=($!)
for _ in $(seq 50); do redis-cli -p "$rport" ping >/dev/null 2>&1 && break; sleep 0.1; done
export REDIS_URL="redis://127.0.0.1:$rport/0"
# Only what this run sets: nothing from the caller's environment may open
# another listener (METRICS_ADDR) or change what is measured.
mtoken="bench-$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n')"
serve() { # port, then settings
  local port="$1"; shift
  env -u METRICS_ADDR -u METRICS_TOKEN -u ADMIN_USER -u ADMIN_PASSWORD -u DEMO -u TRUST_PROXY -u LIVE_TICK -u READ_CACHE \
    API_KEY_LIMIT=1000000000 API_ADDR_LIMIT=1000000000 LOG_LEVEL=error METRICS_TOKEN="$mtoken" "$@" bin/web --addr "127.0.0.1:$port" >>"$out/web.log" 2>&1 &
  pids+=($!)
  for _ in $(seq 100); do curl -sf "http://127.0.0.1:$port/readyz" >/dev/null && break; sleep 0.1; done
}
serve "$wport"
serve "$nport" READ_CACHE=false
key="$(bin/web apikey create --name bench 2>/dev/null)"
for b in bench gone; do
  curl -sf -X POST "http://127.0.0.1:$wport/api/v1/boards" -H "Authorization: Bearer $key" \
    -d '{"id":"'$b'","title":"Bench","periods":["day","all"]}' >/dev/null
done

echo "== redis-benchmark ZINCRBY (50 clients) =="
z0="$(redis-cli -p "$rport" info cpu | awk -F: '/^used_cpu_(user|sys):/ {s += $2} END {printf "%.0f", s * 1e6}')"
rb="$(redis-benchmark -p "$rport" -c 50 -n 300000 -r 100000 -q zincrby bench:z 1 __rand_int__ | grep -oE '[0-9.]+ requests per second' | head -1 | cut -d' ' -f1)"
z1="$(redis-cli -p "$rport" info cpu | awk -F: '/^used_cpu_(user|sys):/ {s += $2} END {printf "%.0f", s * 1e6}')"
zcpu="$(awk -v a="$z0" -v b="$z1" 'BEGIN{printf "%.1f", (b-a)/300000}')"
echo "$rb ZINCRBY/s, Redis CPU $zcpu µs per ZINCRBY"

calls() { redis-cli -p "$rport" info commandstats | awk -F'[=,:]' '/^cmdstat_/ {sum += $3} END {print sum+0}'; }
scripts() { redis-cli -p "$rport" info commandstats | awk -F'[=,:]' '/^cmdstat_(evalsha|eval|fcall):/ {sum += $3} END {print sum+0}'; }
field() { sed -n "s/.*$1=\([0-9.]*\).*/\1/p"; }
# Redis' CPU (user + system) so far, in µs: per score, the figure that says
# how far one Redis core takes a board.
rcpu() { redis-cli -p "$rport" info cpu | awk -F: '/^used_cpu_(user|sys):/ {s += $2} END {printf "%.0f", s * 1e6}'; }
perscore() { awk -v a="$1" -v b="$2" -v n="$3" 'BEGIN{ if (n > 0) printf "%.1f", (b-a)/n; else print "-" }'; }

rows=()
for run in $(seq "$RUNS"); do
  redis-cli -p "$rport" config resetstat >/dev/null
  u0="$(rcpu)"
  if command -v wrk >/dev/null 2>&1; then
    p1="$(PODIUM_KEY="$key" wrk -t2 -c50 -d"$DURATION" -s scripts/wrk-submit.lua "http://127.0.0.1:$wport/api/v1/boards/bench/scores" | tail -1)"
  else
    p1="$(bin/apiload -url "http://127.0.0.1:$wport" -key "$key" -board bench -conns 50 -duration "$DURATION")"
  fi
  u1="$(rcpu)"; c="$(calls)"; s="$(scripts)"; ok="$(echo "$p1" | field ok)"
  rows+=("P1 single, 50 conns|$(echo "$p1" | field requests_per_s)|$(echo "$p1" | field p50_ms)|$(echo "$p1" | field p99_ms)|$(awk -v c="$c" -v n="$ok" 'BEGIN{printf "%.2f", c/n}')|$(awk -v c="$s" -v n="$ok" 'BEGIN{printf "%.2f", c/n}')|$(perscore "$u0" "$u1" "$ok")|$(echo "$p1" | field errors)")
  redis-cli -p "$rport" config resetstat >/dev/null
  u0="$(rcpu)"
  p2="$(bin/apiload -url "http://127.0.0.1:$wport" -key "$key" -board bench -conns 4 -batch 1000 -duration "$DURATION")"
  u1="$(rcpu)"; c="$(calls)"; sc="$(echo "$p2" | field scores_per_s)"; okb="$(echo "$p2" | field ok)"
  rows+=("P2 batches of 1000, 4 conns|$sc|$(echo "$p2" | field p50_ms)|$(echo "$p2" | field p99_ms)|$(awk -v c="$c" -v n="$okb" 'BEGIN{printf "%.2f", c/(n*1000)}')|-|$(perscore "$u0" "$u1" "$((okb * 1000))")|$(echo "$p2" | field errors)")
  redis-cli -p "$rport" config resetstat >/dev/null
  u0="$(rcpu)"
  p3="$(bin/apiload -url "http://127.0.0.1:$wport" -key "$key" -board bench -conns 4 -batch 1000 -noranks -duration "$DURATION")"
  u1="$(rcpu)"; c="$(calls)"; sc="$(echo "$p3" | field scores_per_s)"; okb="$(echo "$p3" | field ok)"
  rows+=("P3 batches, no ranks|$sc|$(echo "$p3" | field p50_ms)|$(echo "$p3" | field p99_ms)|$(awk -v c="$c" -v n="$okb" 'BEGIN{printf "%.2f", c/(n*1000)}')|-|$(perscore "$u0" "$u1" "$((okb * 1000))")|$(echo "$p3" | field errors)")
done

# Reads, with and without the read cache: requests per second, and Redis'
# CPU per request (used_cpu_user + used_cpu_sys over the run).
cache_count() { curl -sf -H "Authorization: Bearer $mtoken" "http://127.0.0.1:$wport/metrics" | awk -v m="podium_read_cache_$1_total" '$1 == m {print $2 + 0}'; }
reads=()
command -v wrk >/dev/null 2>&1 || echo "bench-api: no wrk; the reads are not measured" >&2
for run in $(seq "$RUNS"); do
  command -v wrk >/dev/null 2>&1 || break
  for q in "R1 top 50|/api/v1/boards/bench/entries?period=all" "R2 a member's standing|/api/v1/boards/bench/members/m%d" "R3 around a member, 5 each side|/api/v1/boards/bench/members/m%d/around?period=all&radius=5"; do
    IFS='|' read -r name path <<<"$q"
    for port in "$wport" "$nport"; do
      h0="$(cache_count hits)"; m0="$(cache_count misses)"; c0="$(rcpu)"
      r="$(PODIUM_PATH="$path" wrk -t2 -c50 -d"$DURATION" -s scripts/wrk-read.lua "http://127.0.0.1:$port" | tail -1)"
      c1="$(rcpu)"; h1="$(cache_count hits)"; m1="$(cache_count misses)"
      ok="$(echo "$r" | field ok)"
      label="$name, cache"; hit="$(awk -v h="$((h1 - h0))" -v m="$((m1 - m0))" 'BEGIN{ if (h + m > 0) printf "%.3f", h / (h + m); else print "-" }')"
      if [ "$port" = "$nport" ]; then label="$name, no cache"; hit="-"; fi
      reads+=("$label|$(echo "$r" | field requests_per_s)|$(echo "$r" | field p50_ms)|$(echo "$r" | field p99_ms)|$(awk -v c="$((c1 - c0))" -v n="$ok" 'BEGIN{ if (n > 0) printf "%.1f", c / n; else print "-" }')|$hit|$(echo "$r" | field errors)")
    done
  done
done

# Clients that hang up mid-request: every score of 1 that was applied must
# have its audit row. Sum of the all-time scores against the rows in the
# board's audit stream (one line per score in each entry).
gone="$(bin/apiload -url "http://127.0.0.1:$wport" -key "$key" -board gone -conns 50 -score 1 -members 1000 -abandon 20ms -duration 5s)"
applied="$(redis-cli -p "$rport" eval "local s = 0; local r = redis.call('ZRANGE', KEYS[1], 0, -1, 'WITHSCORES'); for i = 2, #r, 2 do s = s + tonumber(r[i]) end; return s" 1 'lb:{gone}:all')"
audited="$(redis-cli -p "$rport" eval "local n = 0; for _, e in ipairs(redis.call('XRANGE', KEYS[1], '-', '+')) do local f = e[2]; for i = 1, #f, 2 do if f[i] == 'items' then local _, c = string.gsub(f[i + 1], '\n', ''); n = n + c + 1 end end end; return n" 1 'lb:{gone}:audit')"

echo
echo "== API writes on this machine, this run (ZINCRBY: $rb/s, Redis CPU $zcpu µs each) =="
printf '%-30s %12s %8s %8s %8s %14s %16s %18s %7s\n' "load" "per s" "ratio" "p50 ms" "p99 ms" "cmds/score" "scripts/request" "redis CPU µs/score" "errors"
for r in "${rows[@]}"; do
  IFS='|' read -r name rate p50 p99 cmds scr rc errs <<<"$r"
  printf '%-30s %12.0f %8s %8s %8s %14s %16s %18s %7s\n' "$name" "$rate" "$(awk -v a="$rate" -v b="$rb" 'BEGIN{printf "%.3f", a/b}')" "$p50" "$p99" "$cmds" "$scr" "$rc" "$errs"
done
echo "(per s: requests for P1, scores for P2 and P3; cmds/score counts every Redis command, those inside scripts included;"
echo " redis CPU µs/score: Redis' user + system CPU over the load, per score applied)"
echo
echo "== API reads on this machine, this run (wrk, 50 connections; the board the writes made) =="
printf '%-44s %10s %8s %8s %16s %9s %7s\n' "load" "per s" "p50 ms" "p99 ms" "Redis CPU µs/req" "hit rate" "errors"
for r in "${reads[@]}"; do
  IFS='|' read -r name rate p50 p99 cpu hit errs <<<"$r"
  printf '%-44s %10.0f %8s %8s %16s %9s %7s\n' "$name" "$rate" "$p50" "$p99" "$cpu" "$hit" "$errs"
done
echo "(errors: members without a score answer 404; the cache's answers are at most one LIVE_TICK old)"
echo
echo "== clients hanging up mid-request (50 conns, 5 s, each request abandoned within 20 ms) =="
echo "requests answered $(echo "$gone" | field ok), abandoned $(echo "$gone" | field abandoned), errors $(echo "$gone" | field errors)"
echo "scores applied $applied, audit rows $audited, lost $((applied - audited))"
grep -c "AUDIT ENTRY LOST" "$out/web.log" | sed 's/^/"AUDIT ENTRY LOST" lines in the server log: /' || true

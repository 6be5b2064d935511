#!/usr/bin/env bash
# petspotd against a bare C epoll NDJSON echo server (Benchmarks/echo/echo.c) and a bare SwiftNIO
# line echo (Benchmarks/nio-echo), side by side in one run with the same load client and the same
# request lines. Prints each figure, the ratios and the goals of docs/PERFORMANCE.md ("Against a
# bare C echo server"), flow.get both with a
# flow per connection and with all 64 on one flow (the load client in C only), then allocations per
# flow.get (Benchmarks/run-allocs.sh).
#   Benchmarks/run-echo-ratio.sh [seconds per figure]
# BIN=dir runs the petspotd and petspot-load found there instead of building (to compare a
# saved build with the current one in alternating runs).
# CONFIG=file starts petspotd with that configuration (say, server.eventLoopThreads 1).
# CLIENT=c (the default) drives both servers with Benchmarks/echo/load.c, one epoll thread;
# CLIENT=threads with petspot-load, a blocking thread per connection, whose own cost at 1 request
# in flight sets the pace of both servers on a small box.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-5}
RELEASE_PRODUCTS="petspotd petspot-load petspot-nio-echo"
. Benchmarks/release-bin.sh
dir=$(mktemp -d)
cc -O2 -Wall -Wextra -Werror -o "$dir/petspot-echo" Benchmarks/echo/echo.c
cc -O2 -Wall -Wextra -Werror -o "$dir/petspot-load-c" Benchmarks/echo/load.c
client=${CLIENT:-c}
case $client in c|threads) ;; *) echo "CLIENT is c or threads" >&2; exit 2;; esac
pid=""
cleanup() { [ -n "$pid" ] && kill "$pid" 2>/dev/null; wait 2>/dev/null || true; rm -rf "$dir"; }
trap cleanup EXIT

wait_for_socket() {
  for _ in $(seq 100); do [ -S "$1" ] && return 0; sleep 0.05; done
  echo "no socket at $1"; cat "$dir"/*.log 2>/dev/null; exit 1
}

# load SOCKET DEPTH --method M [--echo]: runs the load client, shows its output, leaves
# "req/s p99ms" in $result.
load() {
  local socket=$1 depth=$2; shift 2
  local out
  if [ "$client" = c ]; then
    out=$("$dir/petspot-load-c" "$socket" 64 "$depth" "$seconds" "$2" ${3:+"$3"})
  else
    out=$("$bin/petspot-load" --socket "$socket" --connections 64 --seconds "$seconds" --depth "$depth" "$@")
  fi
  echo "$out" | sed 's/^/    /'
  if echo "$out" | grep -q 'failures: [1-9]'; then echo "failures: see above"; exit 1; fi
  result="$(echo "$out" | awk '/^throughput:/ {print $2}') $(echo "$out" | awk '/^latency/ {print $(NF-2)}')"
}

"$bin/petspotd" --config "${CONFIG:-config/petspotd.json}" --socket "$dir/petspotd.sock" --database "$dir/reports.sqlite" \
  --location-providers simulated --log-level warning --limit maxFlowsPerUser=20000 2>"$dir/petspotd.log" &
pid=$!
wait_for_socket "$dir/petspotd.sock"
echo "== petspotd, 64 connections, $seconds s each, load client: $client"
load "$dir/petspotd.sock" 1 --method flow.get; read -r get1 get1p99 <<<"$result"
if [ "$client" = c ]; then load "$dir/petspotd.sock" 1 --method flow.get-one; read -r getone getonep99 <<<"$result"; fi
load "$dir/petspotd.sock" 1 --method daemon.info; read -r info1 info1p99 <<<"$result"
load "$dir/petspotd.sock" 32 --method flow.get; read -r get32 _ <<<"$result"
if [ "$client" = c ]; then load "$dir/petspotd.sock" 32 --method flow.get-one; read -r getone32 _ <<<"$result"; fi
kill "$pid"; wait "$pid" 2>/dev/null || true

# echo_figures PROGRAM SOCKET TITLE: an echo server under the same load, 64x1 then 64x32; leaves
# "req/s p99ms req/s-at-32" in $figures.
echo_figures() {
  "$1" "$2" 2>"$2.log" &
  pid=$!
  wait_for_socket "$2"
  echo "== $3, the same flow.get lines"
  local one p99 many
  load "$2" 1 --method flow.get --echo; read -r one p99 <<<"$result"
  load "$2" 32 --method flow.get --echo; read -r many _ <<<"$result"
  kill "$pid"; wait "$pid" 2>/dev/null || true
  pid=""
  figures="$one $p99 $many"
}
echo_figures "$dir/petspot-echo" "$dir/echo.sock" "C echo server"; read -r echo1 echo1p99 echo32 <<<"$figures"
if [ -x "$bin/petspot-nio-echo" ]; then
  echo_figures "$bin/petspot-nio-echo" "$dir/nio-echo.sock" "SwiftNIO echo"; read -r nio1 nio1p99 nio32 <<<"$figures"
fi

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
met() { awk -v v="$1" -v g="$2" -v dir="$3" 'BEGIN { ok = (dir == "min") ? v >= g : v <= g; print ok ? "met" : "NOT met" }'; }
r_get=$(ratio "$get1" "$echo1"); r_info=$(ratio "$info1" "$echo1")
echo
echo "== summary (64 connections)"
printf '%-34s %12s %10s   %s\n' "what" "req/s" "p99 ms" "goal"
printf '%-34s %12s %10s   %s\n' "C echo, 64x1" "$echo1" "$echo1p99" ""
printf '%-34s %12s %10s   %s\n' "C echo, 64x32" "$echo32" "" ""
printf '%-34s %12s %10s   %s\n' "flow.get, 64x1" "$get1" "$get1p99" "p99 <= 1.5 ms: $(met "$get1p99" 1.5 max)"
if [ "$client" = c ]; then
  printf '%-34s %12s %10s   %s\n' "flow.get, one flow, 64x1" "$getone" "$getonep99" ""
fi
printf '%-34s %12s %10s   %s\n' "daemon.info, 64x1" "$info1" "$info1p99" ""
printf '%-34s %12s %10s   %s\n' "flow.get, 64x32" "$get32" "" ">= 200000 req/s: $(met "$get32" 200000 min)"
printf '%-34s %12s %10s   %s\n' "flow.get / echo (64x1)" "$r_get" "" ">= 0.35: $(met "$r_get" 0.35 min)"
if [ "$client" = c ]; then
  printf '%-34s %12s %10s   %s\n' "flow.get one flow / echo (64x1)" "$(ratio "$getone" "$echo1")" "" ""
fi
printf '%-34s %12s %10s   %s\n' "daemon.info / echo (64x1)" "$r_info" "" ">= 0.45: $(met "$r_info" 0.45 min)"
printf '%-34s %12s %10s   %s\n' "flow.get / echo (64x32)" "$(ratio "$get32" "$echo32")" "" ""
if [ -n "${nio1:-}" ]; then
  printf '%-34s %12s %10s   %s\n' "SwiftNIO echo, 64x1" "$nio1" "$nio1p99" ""
  printf '%-34s %12s %10s   %s\n' "SwiftNIO echo, 64x32" "$nio32" "" ""
  printf '%-34s %12s %10s   %s\n' "SwiftNIO echo / C echo (64x1)" "$(ratio "$nio1" "$echo1")" "" ""
  printf '%-34s %12s %10s   %s\n' "flow.get / C echo (64x1)" "$r_get" "" ">= 0.45: $(met "$r_get" 0.45 min)"
  r_p99=$(ratio "$get1p99" "$nio1p99")
  printf '%-34s %12s %10s   %s\n' "flow.get p99 / NIO echo p99" "$r_p99" "" "<= 1.2: $(met "$r_p99" 1.2 max)"
  if [ "$client" = c ]; then
    r_onep99=$(ratio "$getonep99" "$nio1p99")
    printf '%-34s %12s %10s   %s\n' "one flow: p99 / NIO echo p99" "$r_onep99" "" "<= 1.2: $(met "$r_onep99" 1.2 max)"
    r_one=$(ratio "$getone" "$echo1")
    printf '%-34s %12s %10s   %s\n' "one flow: flow.get / C echo" "$r_one" "" ">= 0.45: $(met "$r_one" 0.45 min)"
    r_one32=$(ratio "$getone32" "$nio32")
    printf '%-34s %12s %10s   %s\n' "one flow: 64x32 / NIO echo 64x32" "$r_one32" "" ">= 0.2: $(met "$r_one32" 0.2 min)"
  fi
  r_32=$(ratio "$get32" "$nio32")
  printf '%-34s %12s %10s   %s\n' "flow.get 64x32 / NIO echo 64x32" "$r_32" "" ">= 0.2: $(met "$r_32" 0.2 min)"
fi
allocs=$(BIN="$bin" Benchmarks/run-allocs.sh flow.get 1 4 | awk '/^allocations per/ {print $NF}')
# 27.0 per flow.get at commit 9207635, before the kept views: the goal is 5 times fewer.
printf '%-34s %12s %10s   %s\n' "allocations per flow.get" "$allocs" "" "<= 5.4: $(met "$allocs" 5.4 max)"

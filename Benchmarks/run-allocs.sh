#!/usr/bin/env bash
# Heap allocations per answered request in the whole daemon process: petspotd runs with
# Benchmarks/allocs/count-allocs.c preloaded, one connection asks in a closed loop (1 in
# flight) for a short and a long time, and the difference between the two runs' allocation
# counts, divided by the difference in answers, is what one answer costs (start-up, the flow's
# start and the load client's connection cancel out).
#   Benchmarks/run-allocs.sh [flow.get|daemon.info] [short seconds] [long seconds]
# BIN=dir runs the petspotd and petspot-load found there instead of building; CONFIG=file starts
# petspotd with that configuration.
set -euo pipefail
cd "$(dirname "$0")/.."
method=${1:-flow.get}
short=${2:-1}
long=${3:-4}
. Benchmarks/release-bin.sh
dir=$(mktemp -d)
cc -O2 -Wall -Wextra -Werror -shared -fPIC -o "$dir/count-allocs.so" Benchmarks/allocs/count-allocs.c
pid=""
cleanup() { [ -n "$pid" ] && kill "$pid" 2>/dev/null; wait 2>/dev/null || true; rm -rf "$dir"; }
trap cleanup EXIT

# run SECONDS: one daemon under the counter; leaves "answers allocations" in $result.
run() {
  rm -f "$dir/petspotd.sock" "$dir/count"
  PETSPOT_ALLOC_COUNT_FILE="$dir/count" LD_PRELOAD="$dir/count-allocs.so" \
    "$bin/petspotd" --config "${CONFIG:-config/petspotd.json}" --socket "$dir/petspotd.sock" --database "$dir/reports-$1.sqlite" \
    --location-providers simulated --log-level warning 2>"$dir/petspotd.log" &
  pid=$!
  for _ in $(seq 100); do [ -S "$dir/petspotd.sock" ] && break; sleep 0.05; done
  local out
  out=$("$bin/petspot-load" --socket "$dir/petspotd.sock" --connections 1 --depth 1 --seconds "$1" --method "$method")
  kill "$pid"; wait "$pid" 2>/dev/null || true
  pid=""
  if echo "$out" | grep -q 'failures: [1-9]'; then echo "$out"; exit 1; fi
  result="$(echo "$out" | awk '/^answered:/ {sub(",", "", $2); print $2}') $(awk '{print $2}' "$dir/count")"
}
run "$short"; read -r answers1 allocs1 <<<"$result"
run "$long"; read -r answers2 allocs2 <<<"$result"
echo "$method, 1 connection, 1 in flight: ${short} s: $answers1 answers, $allocs1 allocations; ${long} s: $answers2 answers, $allocs2 allocations"
awk -v a="$((allocs2 - allocs1))" -v n="$((answers2 - answers1))" -v m="$method" 'BEGIN { printf "allocations per %s: %.1f\n", m, a / n }'

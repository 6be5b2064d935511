#!/usr/bin/env bash
# Every figure of docs/PERFORMANCE.md's goals in one run, each beside its goal: flow.get and
# daemon.info against the bare C echo server, p99 and 64x32 (Benchmarks/run-echo-ratio.sh, which
# also counts allocations per flow.get); durable submits over 16 connections and on one idle
# connection; memory per open flow; start to first answer (Benchmarks/run-start.sh).
#   Benchmarks/run-goals.sh [seconds per throughput figure] [prepared flows per connection]
# BIN=dir runs the petspotd and petspot-load found there instead of building; CONFIG=file
# starts petspotd with that configuration (say, server.eventLoopThreads 1). $TMPDIR must be on
# a disk, not a tmpfs: the submit figures are about fsync.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-5}
prepared=${2:-500}
. Benchmarks/release-bin.sh
export BIN=$bin
. Benchmarks/disk-daemon.sh
# load ARGS…: petspot-load against the daemon; shows its output, fails on a failed request.
load() {
  local out
  out=$("$bin/petspot-load" --socket "$dir/petspotd.sock" "$@")
  echo "$out" | sed 's/^/    /' >&2
  if echo "$out" | grep -q 'failures: [1-9]'; then echo "failures: see above" >&2; exit 1; fi
  echo "$out"
}

echo "petspotd: $(readlink -f "$bin/petspotd")"
Benchmarks/run-echo-ratio.sh "$seconds" | tee "$dir/echo.txt"

echo "== flow.submit alone, 16 connections, $prepared flows each prepared first"
start_daemon
submits16=$(load --submits --prepared "$prepared" --connections 16 | awk '/^submits:/ {print $2}')
stop_daemon
echo "== flow.submit alone, 1 connection, $prepared flows prepared first"
start_daemon
p50one=$(load --submits --prepared "$prepared" --connections 1 | awk '/round trip/ {print $5}')
stop_daemon
echo "== 10,000 open flows on a fresh daemon"
start_daemon
perflow=$(load --open-flows 10000 | awk '/^per flow:/ {print $3}')
stop_daemon
echo "== start to first answer"
starts=$(Benchmarks/run-start.sh 10)
echo "$starts"
start=$(echo "$starts" | awk '/^median/ {print $2}')

met() { awk -v v="$1" -v g="$2" -v dir="$3" 'BEGIN { ok = (dir == "min") ? v >= g : v <= g; print ok ? "met" : "NOT met" }'; }
echo
echo "== goals"
sed -n '/^== summary/,$p' "$dir/echo.txt" | tail -n +2
printf '%-34s %12s %10s   %s\n' "flow.submit, 16 connections" "$submits16" "" ">= 5000 /s: $(met "$submits16" 5000 min)"
printf '%-34s %12s %10s   %s\n' "flow.submit p50, 1 connection" "" "$p50one" "p50 <= 1.5 ms: $(met "$p50one" 1.5 max)"
printf '%-34s %12s %10s   %s\n' "memory per open flow (KiB)" "$perflow" "" "<= 1 KiB: $(met "$perflow" 1 max)"
printf '%-34s %12s %10s   %s\n' "start to first answer (ms, median)" "$start" "" "<= 50 ms: $(met "$start" 50 max)"

#!/usr/bin/env bash
# Figures for docs/PERFORMANCE.md: flow.get throughput at 64 connections, and the daemon's
# memory with 10,000 open flows. Builds release binaries, runs petspotd on a scratch socket
# and database, and drives it with petspot-load.
#   Benchmarks/run-load.sh [connections] [seconds]
set -euo pipefail
cd "$(dirname "$0")/.."
connections=${1:-64}
seconds=${2:-10}
scratch=${SCRATCH:-.build-release}
for product in petspotd petspot-load; do swift build -c release --scratch-path "$scratch" --product "$product" >/dev/null; done
bin=$(swift build -c release --scratch-path "$scratch" --show-bin-path)
dir=$(mktemp -d)
pid=""
cleanup() { [ -n "$pid" ] && kill "$pid" 2>/dev/null; wait 2>/dev/null || true; rm -rf "$dir"; }
trap cleanup EXIT

start_daemon() {
  "$bin/petspotd" --config config/petspotd.json --socket "$dir/petspotd.sock" --database "$dir/reports.sqlite" \
    --location-providers simulated --log-level warning --limit maxFlowsPerUser=20000 "$@" 2>"$dir/petspotd.log" &
  pid=$!
  for _ in $(seq 100); do [ -S "$dir/petspotd.sock" ] && return 0; sleep 0.05; done
  echo "petspotd did not start"; cat "$dir/petspotd.log"; exit 1
}

echo "== flow.get, $connections connections, pipeline depth 8 and 1, $seconds s each"
start_daemon
"$bin/petspot-load" --socket "$dir/petspotd.sock" --connections "$connections" --seconds "$seconds" --depth 8
"$bin/petspot-load" --socket "$dir/petspotd.sock" --connections "$connections" --seconds "$seconds" --depth 1
kill "$pid"; wait "$pid" 2>/dev/null || true

echo "== 10,000 open flows on a fresh daemon"
start_daemon
"$bin/petspot-load" --socket "$dir/petspotd.sock" --open-flows 10000
kill "$pid"; wait "$pid" 2>/dev/null || true

echo "== 10,000 open flows on a fresh daemon, each asked for once (flow.get keeps its view)"
start_daemon
"$bin/petspot-load" --socket "$dir/petspotd.sock" --open-flows 10000 --view

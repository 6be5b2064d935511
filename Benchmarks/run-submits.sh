#!/usr/bin/env bash
# Figures for docs/PERFORMANCE.md: durable submits. Builds release binaries, runs petspotd on a
# scratch socket and a fresh database in $TMPDIR (it must be a disk, not a tmpfs: the figures are
# about fsync), and files whole reports over 1 and then N connections with petspot-load; then
# `flow.submit` alone over N connections (flows taken to their summary first, untimed); then the
# report store alone, in process (petspot-store-load), with 1 and then N writers.
#   Benchmarks/run-submits.sh [connections] [seconds] [prepared flows per connection]
# BIN=dir runs the petspotd, petspot-load and petspot-store-load found in dir instead of building: to compare two
# builds in alternating runs on a busy machine; CONFIG=file starts petspotd with that configuration.
set -euo pipefail
cd "$(dirname "$0")/.."
connections=${1:-16}
seconds=${2:-10}
prepared=${3:-500}
if [ -n "${BIN:-}" ]; then
  bin=$BIN
else
  scratch=${SCRATCH:-.build-release}
  for product in petspotd petspot-load petspot-store-load; do swift build -c release --scratch-path "$scratch" --product "$product" >/dev/null; done
  bin=$(swift build -c release --scratch-path "$scratch" --show-bin-path)
fi
dir=$(mktemp -d)
if [ "$(stat -f -c %T "$dir")" = tmpfs ]; then
  echo "$dir is on a tmpfs, where fsync costs nothing: set TMPDIR to a folder on a disk" >&2
  exit 1
fi
pid=""
cleanup() { [ -n "$pid" ] && kill "$pid" 2>/dev/null; wait 2>/dev/null || true; rm -rf "$dir"; }
trap cleanup EXIT

start_daemon() {
  rm -f "$dir"/reports.sqlite*
  # Every flow a run files stays in memory until it expires: room for all of them.
  "$bin/petspotd" --config "${CONFIG:-config/petspotd.json}" --socket "$dir/petspotd.sock" --database "$dir/reports.sqlite" \
    --location-providers simulated --log-level warning --limit maxFlowsPerUser=1000000 --limit maxFlows=1000000 \
    2>"$dir/petspotd.log" &
  pid=$!
  for _ in $(seq 200); do [ -S "$dir/petspotd.sock" ] && return 0; sleep 0.05; done
  echo "petspotd did not start" >&2; cat "$dir/petspotd.log" >&2; exit 1
}

echo "petspotd: $(readlink -f "$bin/petspotd")"
for n in 1 "$connections"; do
  echo "== whole reports, $n connection(s), $seconds s"
  start_daemon
  "$bin/petspot-load" --socket "$dir/petspotd.sock" --submits --connections "$n" --seconds "$seconds"
  kill "$pid"; wait "$pid" 2>/dev/null || true; pid=""
  rm -f "$dir/petspotd.sock"
done

echo "== flow.submit alone, $connections connections, $prepared flows each prepared first"
start_daemon
"$bin/petspot-load" --socket "$dir/petspotd.sock" --submits --prepared "$prepared" --connections "$connections"
kill "$pid"; wait "$pid" 2>/dev/null || true; pid=""
rm -f "$dir/petspotd.sock"

for n in 1 "$connections"; do
  echo "== the report store alone, $n writer(s), $seconds s"
  rm -f "$dir"/store.sqlite*
  "$bin/petspot-store-load" "$dir/store.sqlite" "$n" "$seconds"
done

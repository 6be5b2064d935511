#!/usr/bin/env bash
# Figures for docs/PERFORMANCE.md: durable submits. Builds release binaries, runs petspotd on a
# scratch socket and a fresh database in $TMPDIR (it must be a disk, not a tmpfs: the figures are
# about fsync), and files whole reports over 1 and then N connections with petspot-load; then
# `flow.submit` alone over N connections (flows taken to their summary first, untimed), then
# reports.close and reports.amend alone the same way (reports filed first, untimed); then the
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
. Benchmarks/disk-daemon.sh

echo "petspotd: $(readlink -f "$bin/petspotd")"
for n in 1 "$connections"; do
  echo "== whole reports, $n connection(s), $seconds s"
  start_daemon
  "$bin/petspot-load" --socket "$dir/petspotd.sock" --submits --connections "$n" --seconds "$seconds"
  stop_daemon
done

echo "== flow.submit alone, $connections connections, $prepared flows each prepared first"
start_daemon
"$bin/petspot-load" --socket "$dir/petspotd.sock" --submits --prepared "$prepared" --connections "$connections"
stop_daemon

# A report's changes are durable writes too (REPORTS.md): each alone, over reports filed first.
for change in reports.close reports.amend; do
  echo "== $change alone, $connections connections, $prepared reports each filed first"
  start_daemon
  "$bin/petspot-load" --socket "$dir/petspotd.sock" --changes "$change" --prepared "$prepared" --connections "$connections"
  stop_daemon
done

for n in 1 "$connections"; do
  echo "== the report store alone, $n writer(s), $seconds s"
  rm -f "$dir"/store.sqlite*
  "$bin/petspot-store-load" "$dir/store.sqlite" "$n" "$seconds"
done

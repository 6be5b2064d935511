#!/usr/bin/env bash
# The durable-submit goals of docs/PERFORMANCE.md ("Durable submits"), as ratios to the disk's
# pace measured in the same run: Python's sqlite3 storing reports on the same disk, one commit
# each and commits of 16 (Benchmarks/sqlite-anchor.py); then flow.submit over CONNECTIONS
# connections and over one, driven by the epoll client (Benchmarks/echo/submit.c), each
# connection with FLOWS flows taken to their summary first, untimed. $TMPDIR must be a disk.
#   TMPDIR=/var/tmp Benchmarks/run-durable.sh [connections] [flows per connection]
# BIN=dir runs the petspotd found in dir instead of building a release one.
set -euo pipefail
cd "$(dirname "$0")/.."
connections=${1:-16}
flows=${2:-500}
RELEASE_PRODUCTS="petspotd"
source Benchmarks/release-bin.sh
. Benchmarks/disk-daemon.sh
cc -O2 -Wall -Wextra -Werror -o "$dir/petspot-submit-c" Benchmarks/echo/submit.c

echo "petspotd: $(readlink -f "$bin/petspotd"); $dir on $(df --output=source "$dir" | tail -1)"
anchor=$(python3 Benchmarks/sqlite-anchor.py "$dir" 5)
echo "$anchor"
for n in "$connections" 1; do
  start_daemon
  echo "== flow.submit, $n connection(s), $flows flows each"
  result=$("$dir/petspot-submit-c" "$dir/petspotd.sock" "$n" "$flows")
  echo "$result"
  stop_daemon
  if [ "$n" = 1 ]; then
    one=$(echo "$result" | sed -E 's/.*p50 ([0-9.]+) ms.*/\1/')
    single=$(echo "$anchor" | sed -n 's/.*commits of 1: .*p50 \([0-9.]*\) ms/\1/p')
    echo "one connection: p50 $one ms = $(python3 -c "print('%.2f' % ($one / $single))") x the anchor's one commit ($single ms); goal <= 2"
  else
    rate=$(echo "$result" | sed -E 's/.*: ([0-9]+) submits\/s.*/\1/')
    sixteen=$(echo "$anchor" | sed -n 's/.*commits of 16: \([0-9]*\) reports.*/\1/p')
    echo "$n connections: $rate submits/s = $(python3 -c "print('%.2f' % ($rate / $sixteen))") of the anchor's commits of 16 ($sixteen/s); goal >= 0.8"
  fi
done

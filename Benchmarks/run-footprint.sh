#!/usr/bin/env bash
# The footprint figures of docs/PERFORMANCE.md: petspotd's idle RSS and the installed size.
# The daemon is the stripped self-contained program of `make static` (run as nobody when this
# runs as root, since the kernel treats the owner of a file differently), started on the field
# configuration (config/petspotd.installed.json: gpsd only) with a scratch socket and database;
# its memory is read from /proc once it has released its startup pages and answered a client,
# and again after it has filed one whole report.
#   Benchmarks/run-footprint.sh [dist/petspotd_VERSION_ARCH.deb]     (make footprint)
set -euo pipefail
cd "$(dirname "$0")/.."
deb=${1:-}
bin=.build-static/bin
# Always through make: a program left from an earlier tree would give stale figures.
make static >/dev/null
dir=$(mktemp -d)
pid=
cleanup() { [ -n "$pid" ] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null; rm -rf "$dir"; }
trap cleanup EXIT

# As the service runs: as a user that owns none of the files it maps (run as root, nobody).
run_as=()
if [ "$(id -u)" = 0 ]; then run_as=(setpriv --reuid=65534 --regid=65534 --clear-groups --); chmod 777 "$dir"; fi
"${run_as[@]}" "$bin/petspotd" --config config/petspotd.installed.json --socket "$dir/petspotd.sock" \
  --database "$dir/reports.sqlite" --log-level info 2>"$dir/petspotd.log" &
pid=$!
deadline=$((SECONDS + 30))
until "$bin/petspot" status --socket "$dir/petspotd.sock" >/dev/null 2>&1; do
  [ $SECONDS -lt $deadline ] || { echo "petspotd did not answer within 30 s" >&2; cat "$dir/petspotd.log" >&2; exit 1; }
  sleep 0.1
done
# What the field daemon does 10 s after its start (memory.releaseStartupPages).
until grep -q "startup pages released" "$dir/petspotd.log"; do
  [ $SECONDS -lt $deadline ] || { echo "petspotd did not release its startup pages within 30 s" >&2; cat "$dir/petspotd.log" >&2; exit 1; }
  sleep 0.1
done
"$bin/petspot" status --socket "$dir/petspotd.sock" >/dev/null
kib() { awk -v k="$1" '$1 == k":" { print $2 }' "/proc/$pid/status"; }
mib() { awk -v v="$1" 'BEGIN { printf "%.1f MiB", v / 1024 }'; }
echo "petspotd idle: startup pages released, one answer since ($(readlink -f "$bin/petspotd")):"
echo "  VmRSS    $(mib "$(kib VmRSS)")   (goal: at most 16 MiB)"
echo "  RssAnon  $(mib "$(kib RssAnon)")"
echo "  RssFile  $(mib "$(kib RssFile)")"
echo "  VmHWM    $(mib "$(kib VmHWM)")"
# A whole report through the same daemon: the code a report runs is resident now too.
call() { "$bin/petspot" call --socket "$dir/petspotd.sock" "$@"; }
flow=$(call flow.start | awk -F'"' '$2 == "id" { print $4; exit }')
for step in '"chipNumber":"616091234567890"' '' \
    '"species":"dog","race":"Beagle","gender":"male","latitude":52.22968,"longitude":21.01223' \
    '"contactEmail":"owner@example.org"'; do
  [ -z "$step" ] || call flow.update "{\"flowId\":\"$flow\",\"values\":{$step}}" >/dev/null
  call flow.continue "{\"flowId\":\"$flow\"}" >/dev/null
done
call flow.submit "{\"flowId\":\"$flow\"}" | grep -q '"submittedAt"' || { echo "the report was not filed" >&2; exit 1; }
echo "petspotd after filing one whole report:"
echo "  VmRSS    $(mib "$(kib VmRSS)")"
echo "  RssAnon  $(mib "$(kib RssAnon)")"
echo "  RssFile  $(mib "$(kib RssFile)")"
echo "programs on disk (stripped):"
for p in petspotd petspot; do
  printf '  %-9s %6.1f MB\n' "$p" "$(stat -c %s "$bin/$p" | awk '{ print $1 / 1000000 }')"
done
total=$(( $(stat -c %s "$bin/petspotd") + $(stat -c %s "$bin/petspot") ))
printf '  both      %6.1f MB   (goal: at most 45 MB)\n' "$(awk -v t="$total" 'BEGIN { print t / 1000000 }')"
if [ -n "$deb" ]; then
  installed=$(dpkg-deb -f "$deb" Installed-Size)
  echo "package $(basename "$deb"):"
  printf '  .deb file        %6.1f MB\n' "$(stat -c %s "$deb" | awk '{ print $1 / 1000000 }')"
  printf '  Installed-Size   %6.1f MB   (%s KiB)\n' "$(awk -v k="$installed" 'BEGIN { print k * 1024 / 1000000 }')" "$installed"
fi

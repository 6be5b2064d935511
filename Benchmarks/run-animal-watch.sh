#!/usr/bin/env bash
# Figures for docs/PERFORMANCE.md ("The animal list's watch"): how soon animals.watch tells its
# watchers that a report was filed, closed or erased on the same box. W connections watch the
# list (animals.watch, no place: every animal of the box); one client files R reports through
# the whole flow, one at a time, then marks each found or erases it, alternately. Per change:
# from the request that makes it (flow.submit, reports.close, reports.erase) being sent to the
# first and to the last watcher's animals.changed; the p50, p99 and largest of each.
#   Benchmarks/run-animal-watch.sh [watchers] [reports]
# BIN=dir runs the petspotd found in dir instead of building a release one.
set -euo pipefail
cd "$(dirname "$0")/.."
watchers=${1:-100}
reports=${2:-100}
RELEASE_PRODUCTS="petspotd"
source Benchmarks/release-bin.sh
dir=$(mktemp -d)
daemon=""
cleanup() {
  if [ -n "$daemon" ]; then kill "$daemon" 2>/dev/null || true; fi
  wait 2>/dev/null || true
  rm -rf "$dir"
}
trap cleanup EXIT
"$bin/petspotd" --config config/petspotd.json --socket "$dir/petspotd.sock" --database "$dir/reports.sqlite" \
  --location-providers simulated --limit maxConnections=$((watchers + 64)) --log-level warning 2>"$dir/petspotd.log" &
daemon=$!
for _ in $(seq 200); do [ -S "$dir/petspotd.sock" ] && break; sleep 0.05; done
[ -S "$dir/petspotd.sock" ] || { echo "petspotd did not start" >&2; cat "$dir/petspotd.log" >&2; exit 1; }

echo "petspotd: $(readlink -f "$bin/petspotd"), $watchers watchers, $reports reports"
/usr/bin/python3 - "$dir/petspotd.sock" "$watchers" "$reports" <<'PY'
import json, selectors, socket, statistics, sys, time
sys.path.insert(0, "Benchmarks")
from ndjson import Conn
path, count, reports = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])

watchers = [Conn(path) for _ in range(count)]
for w in watchers: w.call("animals.watch")
sel = selectors.DefaultSelector()
for w in watchers: sel.register(w.s, selectors.EVENT_READ, w)

def told(start, change):
    """Seconds from start to the first and the last watcher's animals.changed of this change."""
    waiting, first, last = set(watchers), None, None
    while waiting:
        for key, _ in sel.select(timeout=10):
            w = key.data
            for m in w.lines():
                if m.get("method") == "animals.changed" and m["params"]["change"] == change and w in waiting:
                    now = time.perf_counter(); waiting.discard(w)
                    first = first if first is not None else now - start; last = now - start
        if waiting and time.perf_counter() - start > 10:
            raise SystemExit(f"{len(waiting)} watchers were not told of a {change} within 10 s")
    return first, last

owner = Conn(path)
def file():
    f = owner.call("flow.start")["flow"]["id"]
    owner.call("flow.update", {"flowId": f, "values": {"chipNumber": "616091234567890"}})
    owner.call("flow.continue", {"flowId": f}); owner.call("flow.continue", {"flowId": f})
    owner.call("flow.update", {"flowId": f, "values": {"species": "dog", "race": "Beagle", "gender": "male",
                                                      "latitude": "52.2297", "longitude": "21.0122"}})
    owner.call("flow.continue", {"flowId": f})
    owner.call("flow.update", {"flowId": f, "values": {"contactEmail": "owner@example.org"}})
    owner.call("flow.continue", {"flowId": f})
    start = time.perf_counter()
    report = owner.call("flow.submit", {"flowId": f})["report"]["id"]
    return report, told(start, "added")

results = {"submit": [], "close": [], "erase": []}
ids = []
for _ in range(reports):
    report, times = file(); ids.append(report); results["submit"].append(times)
for i, report in enumerate(ids):
    start = time.perf_counter()
    if i % 2 == 0:
        owner.call("reports.close", {"reportId": report, "outcome": "found"}); results["close"].append(told(start, "removed"))
    else:
        owner.call("reports.erase", {"reportId": report}); results["erase"].append(told(start, "removed"))

def ms(values, q):
    values = sorted(values)
    return values[min(len(values) - 1, int(round(q * (len(values) - 1))))] * 1000
print(f"{'change':8} {'n':>4}  {'first p50':>9} {'first p99':>9}  {'last p50':>8} {'last p99':>8} {'last max':>8}  (ms, from the request)")
for name, times in results.items():
    firsts, lasts = [t[0] for t in times], [t[1] for t in times]
    print(f"{name:8} {len(times):4}  {ms(firsts, .5):9.2f} {ms(firsts, .99):9.2f}  {ms(lasts, .5):8.2f} {ms(lasts, .99):8.2f} {max(lasts) * 1000:8.2f}")
PY

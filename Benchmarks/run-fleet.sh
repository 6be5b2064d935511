#!/usr/bin/env bash
# Figures for docs/PERFORMANCE.md ("The fleet's list"): how soon a report filed on box A is on
# box B's animal list, and how soon it leaves B once erased or found on A. Two petspotd (boxes
# kiosk-a and kiosk-b), each with its petspot-relay (polling once an hour: only LISTEN/NOTIFY
# wakes them), one scratch PostgreSQL 15 (fsync on). A client on B watches the list
# (animals.watch); a client on A files R reports through the whole flow, one at a time, each
# with a photo of PHOTO_BYTES (default 100000), then erases or closes them alternately. Per
# report: from flow.submit's answer on A to B's animals.changed "added", and from the answer of
# reports.erase / reports.close to B's "removed"; the p50, p99 and largest of each.
#   Benchmarks/run-fleet.sh [reports]
# BIN=dir runs the programs found in dir instead of building release ones. Run as root.
set -euo pipefail
cd "$(dirname "$0")/.."
reports=${1:-200}
if [ "$(id -u)" != 0 ]; then echo "run as root: petspotd's relay.group is root here, and PostgreSQL runs as postgres" >&2; exit 1; fi
RELEASE_PRODUCTS="petspotd petspot-relay"
source Benchmarks/release-bin.sh
dir=$(mktemp -d)
chmod 755 "$dir"
pids=()
source Benchmarks/scratch-postgres.sh
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  scratch_postgres_stop
  wait 2>/dev/null || true
  rm -rf "$dir"
}
trap cleanup EXIT
scratch_postgres_start

cp config/species.json "$dir/species.json"
for box in a b; do
  mkdir "$dir/$box"
  python3 - "$dir" "$box" <<'PY'
import json, sys
d, box = sys.argv[1], sys.argv[2]
c = json.load(open("config/petspotd.json"))
c["relay"]["group"] = "root"
c["box"]["name"] = "kiosk-" + box
c["species"]["file"] = d + "/species.json"
json.dump(c, open("%s/%s/petspotd.json" % (d, box), "w"))
json.dump({"pollIntervalSeconds": 3600, "retryMaxDelaySeconds": 1}, open("%s/%s/relay.json" % (d, box), "w"))
PY
  "$bin/petspotd" --config "$dir/$box/petspotd.json" --socket "$dir/$box/petspotd.sock" --database "$dir/$box/reports.sqlite" \
    --location-providers simulated --log-level warning 2>"$dir/$box/petspotd.log" &
  pids+=($!)
  for _ in $(seq 200); do [ -S "$dir/$box/petspotd.sock" ] && break; sleep 0.05; done
  [ -S "$dir/$box/petspotd.sock" ] || { echo "petspotd $box did not start" >&2; cat "$dir/$box/petspotd.log" >&2; exit 1; }
  "$bin/petspot-relay" --config "$dir/$box/relay.json" --socket "$dir/$box/petspotd.sock" --postgres "$url" \
    --state-file "$dir/$box/state.json" --log-level warning 2>"$dir/$box/relay.log" &
  pids+=($!)
done

echo "petspotd: $(readlink -f "$bin/petspotd"); petspot-relay: $(readlink -f "$bin/petspot-relay"); $reports reports, photos of ${PHOTO_BYTES:-100000} bytes"
/usr/bin/python3 - "$dir/a/petspotd.sock" "$dir/b/petspotd.sock" "$reports" "${PHOTO_BYTES:-100000}" <<'PY'
import base64, json, os, socket, statistics, sys, time
sys.path.insert(0, "Benchmarks")
from ndjson import Conn
a_path, b_path, reports, photo_bytes = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])

a, b = Conn(a_path), Conn(b_path)
b.call("animals.watch")
# The first page may wait for the relays to connect and migrate: not timed.
def wait_on_b(id, change, deadline=30):
    end = time.monotonic() + deadline
    while True:
        for m in b.notes:
            p = m.get("params", {})
            if p.get("change") == change and (p.get("animal") or {}).get("id") == id:
                b.notes.remove(m); return time.monotonic()
        left = end - time.monotonic()
        if left <= 0: raise SystemExit(f"no {change} of {id} on B within {deadline} s")
        try: b.notes.extend(b.lines(left))
        except socket.timeout: pass

photo = base64.b64encode(b"\xff\xd8\xff\xe0" + os.urandom(photo_bytes - 4)).decode()
def file():
    flow = a.call("flow.start", {"locale": "en"})["flow"]["id"]
    for values in ({"chipNumber": "616 09 1234 5678 9"}, {"photo": {"data": photo, "filename": "rex.jpg"}},
                   {"species": "dog", "race": "Beagle", "gender": "male", "age": "4", "latitude": "52.2296756", "longitude": "21.0122287"},
                   {"contactPhone": "+48 123 456 789"}):
        a.call("flow.update", {"flowId": flow, "values": values})
        if not a.call("flow.continue", {"flowId": flow}).get("accepted"): raise SystemExit("continue refused")
    return flow

wait_on_b(a.call("flow.submit", {"flowId": file()})["report"]["id"], "added", deadline=60)
added, removed = [], []
ids = []
for i in range(reports):
    flow = file()
    id = a.call("flow.submit", {"flowId": flow})["report"]["id"]
    sent = time.monotonic()
    added.append(wait_on_b(id, "added") - sent)
    ids.append(id)
for i, id in enumerate(ids):
    if i % 2 == 0: a.call("reports.erase", {"reportId": id})
    else: a.call("reports.close", {"reportId": id, "outcome": "found"})
    sent = time.monotonic()
    removed.append(wait_on_b(id, "removed") - sent)

def line(name, xs):
    xs = sorted(x * 1000 for x in xs)
    p99 = xs[min(len(xs) - 1, int(len(xs) * 0.99))]
    print(f"{name}: p50 {statistics.median(xs):.1f} ms, p99 {p99:.1f} ms, max {xs[-1]:.1f} ms ({len(xs)} reports)")
line("filed on A -> listed on B", added)
line("erased or found on A -> gone from B", removed)
PY

#!/usr/bin/env bash
# Figures for docs/PERFORMANCE.md: reports relayed into PostgreSQL per second. Builds release
# binaries, starts a scratch PostgreSQL 15 (as the postgres user, on a free loopback port) and
# petspotd (relay.group root: run as root), files N reports with petspot-load, then starts
# petspot-relay and times it from its start until the daemon's pending count is 0; checks that
# PostgreSQL holds each report once. Reads the relay's private memory (Private_Clean +
# Private_Dirty of /proc/PID/smaps_rollup) while it delivers (the peak of 50 ms samples) and
# once it is done.
#   Benchmarks/run-relay.sh [reports] [batchSize]
# PHOTOS=n also files n reports with a photo of PHOTO_BYTES (default 1048576) random bytes each.
# BIN=dir runs the petspotd, petspot-load and petspot-relay found in dir instead of building.
# PGBIN=dir names PostgreSQL's programs (default /usr/lib/postgresql/15/bin).
# AS_NOBODY=1 runs the relay as nobody:nogroup (relay.group nogroup), as a service user that
# owns none of its files runs it.
set -euo pipefail
cd "$(dirname "$0")/.."
reports=${1:-10000}
batch=${2:-100}
RELEASE_PRODUCTS="petspotd petspot-load petspot-relay"
[ "${AS_NOBODY:-0}" = 1 ] && export RELAY_GROUP=nogroup
source Benchmarks/relay-bench.sh
scratch_postgres_start
start_daemon "" --location-providers simulated --limit maxFlowsPerUser=1000000 --limit maxFlows=1000000

echo "petspot-relay: $(readlink -f "$bin/petspot-relay")"
echo "== filing $reports reports"
"$bin/petspot-load" --socket "$dir/petspotd.sock" --submits --reports "$reports" --connections 8 | grep -E "reports filed|submits"
photos=${PHOTOS:-0}
if [ "$photos" -gt 0 ]; then
  echo "== filing $photos reports with a photo of ${PHOTO_BYTES:-1048576} bytes"
  python3 - "$dir/petspotd.sock" "$photos" "${PHOTO_BYTES:-1048576}" <<'PY'
import base64, json, os, socket, sys
path, count, size = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
s = socket.socket(socket.AF_UNIX); s.connect(path); f = s.makefile("rb")
n = 0
def call(method, params):
    global n; n += 1
    s.sendall(json.dumps({"jsonrpc": "2.0", "id": n, "method": method, "params": params}).encode() + b"\n")
    answer = json.loads(f.readline())
    if "result" not in answer: sys.exit("%s failed: %s" % (method, answer))
    return answer["result"]
for i in range(count):
    photo = base64.b64encode(b"\xff\xd8\xff\xe0" + os.urandom(size - 4)).decode()
    flow = call("flow.start", {"locale": "en"})["flow"]["id"]
    for values in ({"chipNumber": "616 09 1234 5678 9"}, {"photo": {"data": photo, "filename": "rex.jpg"}},
                   {"species": "dog", "race": "Beagle", "gender": "male", "age": "4", "latitude": "52.2296756", "longitude": "21.0122287"},
                   {"contactPhone": "+48 123 456 789"}):
        call("flow.update", {"flowId": flow, "values": values})
        if not call("flow.continue", {"flowId": flow}).get("accepted"): sys.exit("continue refused")
    call("flow.submit", {"flowId": flow})
PY
  reports=$((reports + photos))
fi

# The shipped poll interval: the relay wakes for reports through relay.pending, and an idle relay
# that polled every 50 ms would keep its claim's code mapped, which no box runs with.
echo "{\"batchSize\": $batch}" > "$dir/relay.json"
echo "== relaying, batchSize $batch"
as=()
mkdir -p "$dir/relay-state"
if [ "${AS_NOBODY:-0}" = 1 ]; then
  chmod 666 "$dir/petspotd.sock"
  chown nobody:nogroup "$dir/relay-state"
  as=(setpriv --reuid=65534 --regid=65534 --clear-groups)
fi
python3 - "$dir" "$bin/petspot-relay" "$url" "$reports" "${as[@]}" <<'PY'
import json, socket, subprocess, sys, time
d, relay, url, expected, launcher = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5:]
import os
if launcher: os.setgroups(os.getgroups() + [65534])  # relay.status: a member of relay.group nogroup

def status():
    s = socket.socket(socket.AF_UNIX)
    s.connect(d + "/petspotd.sock")
    s.sendall(b'{"jsonrpc":"2.0","id":1,"method":"relay.status"}\n')
    data = b""
    while not data.endswith(b"\n"):
        chunk = s.recv(65536)
        if not chunk: break
        data += chunk
    s.close()
    answer = json.loads(data)
    if "result" not in answer: sys.exit("relay.status failed: %s" % answer)
    return answer["result"]

def private_kib(pid):
    total = 0
    for line in open("/proc/%d/smaps_rollup" % pid):
        if line.startswith(("Private_Clean:", "Private_Dirty:")): total += int(line.split()[1])
    return total

first = status()["pending"]
if first != expected: sys.exit("the daemon has %d pending reports, not %d" % (first, expected))
started = time.monotonic()
p = subprocess.Popen(launcher + [relay, "--config", d + "/relay.json", "--socket", d + "/petspotd.sock", "--postgres", url,
                      "--state-file", d + "/relay-state/state.json", "--log-level", "notice"],
                     stderr=open(d + "/relay.log", "w"))
peak = 0
while True:
    try: peak = max(peak, private_kib(p.pid))
    except OSError: pass
    pending = status()["pending"]
    if pending == 0: break
    if p.poll() is not None: sys.exit("petspot-relay exited with %d:\n%s" % (p.returncode, open(d + "/relay.log").read()))
    if time.monotonic() - started > 600: sys.exit("not done after 600 s: %d pending" % pending)
    time.sleep(0.02)
took = time.monotonic() - started
time.sleep(1)  # the state file's last write and the acknowledgement's aftermath
settled = private_kib(p.pid)
rss = [l for l in open("/proc/%d/status" % p.pid) if l.startswith(("VmRSS", "VmHWM"))]
p.terminate(); p.wait()
print("relay private memory: peak %.1f MiB while delivering, %.1f MiB once done (%s)" % (peak / 1024, settled / 1024, ", ".join(" ".join(l.split()) for l in rss)))
print("reports relayed: %d in %.2f s (from the relay's start, its connect and schema included)" % (expected, took))
print("relayed: %.0f reports/s" % (expected / took))
PY
stored=$(psql -h 127.0.0.1 -p "$port" -U postgres -d postgres -X -At -c "SELECT count(*) || ' stored, ' || count(DISTINCT id) || ' distinct' FROM reports")
echo "PostgreSQL: $stored"

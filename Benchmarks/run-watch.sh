#!/usr/bin/env bash
# Figures for docs/PERFORMANCE.md ("Watches"): how fast a change reaches its watches.
#  1. Fan-out: W connections each watch location.changed (the simulated box on a track of two
#     points); another client moves the box with location.current, R times. Per move: from the
#     move's request to the first and to the last watcher's notification.
#  2. Relay latency: a scratch PostgreSQL 15 (fsync on) and petspot-relay with its default
#     30 s poll; N reports filed one at a time, each after the one before is delivered. Per
#     report: from the flow.submit answer to PostgreSQL's received_at (the relay's INSERT), and
#     to reports.changed "delivered" (after PostgreSQL's commit and relay.ack).
#   Benchmarks/run-watch.sh [watchers] [moves] [reports]      # as root
# BIN=dir runs the petspotd and petspot-relay found in dir instead of building release ones.
set -euo pipefail
cd "$(dirname "$0")/.."
watchers=${1:-1000}
moves=${2:-20}
reports=${3:-30}
RELEASE_PRODUCTS="petspotd petspot-relay"
source Benchmarks/relay-bench.sh
# One user holds every watcher's connection and descriptor.
ulimit -n "$(ulimit -Hn)"
# The simulated track is the configured position, then the track: A, A, B, A, A, B, …
start_daemon '{"providers": ["simulated"], "simulated": {"mode": "fix", "position": [52.1, 21.1], "track": [[52.1, 21.1], [52.2, 21.2]]}}' \
  --limit maxConnections=$((watchers + 64))

echo "petspotd: $(readlink -f "$bin/petspotd")"
echo "== fan-out: $watchers watchers, $moves moves"
/usr/bin/python3 - "$dir/petspotd.sock" "$watchers" "$moves" <<'PY'
import json, selectors, socket, statistics, sys, time
path, count, moves = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
def connect():
    s = socket.socket(socket.AF_UNIX); s.connect(path); return s
def call(s, method, params={}):
    s.sendall((json.dumps({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}) + "\n").encode())
    data = b""
    while not data.endswith(b"\n"): data += s.recv(65536)
    return json.loads(data)
watchers = []
for _ in range(count):
    s = connect()
    assert "result" in call(s, "location.watch")
    s.setblocking(False)
    watchers.append(s)
sel = selectors.DefaultSelector()
for s in watchers: sel.register(s, selectors.EVENT_READ)
mover = connect()
# The simulated track is the configured position, then the track: A, A, B, A, A, B, …
where = lambda: call(mover, "location.current")["result"]["location"]["fix"]["latitude"]
last = 52.1
firsts, lasts, spreads = [], [], []
for _ in range(moves):
    pending = set(watchers)
    while True:
        sent = time.monotonic()
        now = where()
        if now != last: break
    last = now
    arrivals = []
    while pending:
        for key, _ in sel.select(timeout=10):
            s = key.fileobj
            data = s.recv(65536)
            if b"location.changed" in data and s in pending:
                pending.discard(s); arrivals.append(time.monotonic())
        if time.monotonic() - sent > 10: sys.exit("not every watcher was told within 10 s")
    firsts.append((arrivals[0] - sent) * 1000); lasts.append((max(arrivals) - sent) * 1000)
    spreads.append((max(arrivals) - arrivals[0]) * 1000)
q = lambda xs: "median %.1f ms, max %.1f ms" % (statistics.median(xs), max(xs))
print("move to first watcher: " + q(firsts))
print("move to last watcher:  " + q(lasts))
print("first to last watcher: " + q(spreads))
PY

scratch_postgres_start
echo '{}' > "$dir/relay.json"
"$bin/petspot-relay" --config "$dir/relay.json" --socket "$dir/petspotd.sock" --postgres "$url" \
  --state-file "$dir/state.json" --log-level notice 2>"$dir/relay.log" &
relay=$!
echo "== relay latency: $reports reports, the relay's poll at its default (30 s)"
/usr/bin/python3 - "$dir/petspotd.sock" "$reports" "$port" <<'PY'
import base64, json, socket, statistics, subprocess, sys, time
path, count, port = sys.argv[1], int(sys.argv[2]), sys.argv[3]
class Conn:
    def __init__(self):
        self.s = socket.socket(socket.AF_UNIX); self.s.connect(path); self.buf = b""; self.notes = []
    def line(self):
        while b"\n" not in self.buf:
            chunk = self.s.recv(65536)
            if not chunk: sys.exit("petspotd closed the connection")
            self.buf += chunk
        line, self.buf = self.buf.split(b"\n", 1)
        return json.loads(line)
    def call(self, method, params={}):
        self.s.sendall((json.dumps({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}) + "\n").encode())
        while True:
            m = self.line()
            if "id" in m:
                if "result" not in m: sys.exit("%s: %s" % (method, m))
                return m["result"]
            self.notes.append(m)
    def note(self):
        return self.notes.pop(0) if self.notes else self.line()
watcher, filer = Conn(), Conn()
watcher.call("reports.watch")
def psql(sql):
    return subprocess.run(["psql", "-h", "127.0.0.1", "-p", port, "-U", "postgres", "-d", "postgres", "-X", "-At", "-c", sql],
                          capture_output=True, text=True, check=True).stdout.strip()
# The relay's first claim and its schema, before anything is timed.
for _ in range(600):
    if subprocess.run(["psql", "-h", "127.0.0.1", "-p", port, "-U", "postgres", "-d", "postgres", "-X", "-At", "-c",
                       "SELECT 1 FROM reports LIMIT 1"], capture_output=True).returncode == 0: break
    time.sleep(0.05)
time.sleep(1)
to_pg, to_delivered = [], []
for _ in range(count):
    flow = filer.call("flow.start")["flow"]["id"]
    filer.call("flow.update", {"flowId": flow, "values": {"chipNumber": "616091234567890"}}); filer.call("flow.continue", {"flowId": flow})
    filer.call("flow.continue", {"flowId": flow})
    filer.call("flow.update", {"flowId": flow, "values": {"species": "dog", "race": "Beagle", "gender": "male", "age": 4,
                                                           "latitude": "52.22968", "longitude": "21.01223"}})
    filer.call("flow.continue", {"flowId": flow})
    filer.call("flow.update", {"flowId": flow, "values": {"contactPhone": "+48123456789"}}); filer.call("flow.continue", {"flowId": flow})
    report = filer.call("flow.submit", {"flowId": flow})["report"]["id"]
    filed_wall, filed = time.time(), time.monotonic()
    while True:
        n = watcher.note()
        if n["params"]["change"] == "delivered" and n["params"]["report"]["id"] == report: break
    to_delivered.append((time.monotonic() - filed) * 1000)
    received = float(psql("SELECT extract(epoch FROM received_at) FROM reports WHERE id = '%s'" % report))
    to_pg.append((received - filed_wall) * 1000)
q = lambda xs: "median %.1f ms, p90 %.1f ms, max %.1f ms" % (statistics.median(xs), sorted(xs)[int(len(xs) * 0.9) - 1], max(xs))
print("filed to PostgreSQL's received_at: " + q(to_pg))
print("filed to reports.changed delivered: " + q(to_delivered))
PY

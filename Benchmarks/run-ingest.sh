#!/usr/bin/env bash
# Figures for docs/PERFORMANCE.md ("Taking in a photo", "One user's share"): release petspotd
# with the default limits on a scratch socket and database, then
#   1. a 9 MiB photo through flow.update, ROUNDS times: the time of each and the peak RSS growth
#      of each, against Python's base64.b64decode + hashlib.sha256 of the same text in this run;
#   2. 50 open flows, each holding a 9 MiB photo: RSS growth;
#   3. 64 connections of one user, each sending an unfinished 15 MiB line: peak RSS growth, how
#      long another user's daemon.info takes meanwhile, RSS after they close;
#   4. (as root) one user opening 1,100 connections: whether another user is still served.
#   Benchmarks/run-ingest.sh [ROUNDS]          (BIN=dir: a saved release build)
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-5}
RELEASE_PRODUCTS=petspotd source Benchmarks/release-bin.sh
dir=$(mktemp -d)
chmod 755 "$dir"
pid=""
cleanup() { [ -n "$pid" ] && kill "$pid" 2>/dev/null; wait 2>/dev/null || true; rm -rf "$dir"; }
trap cleanup EXIT

ulimit -n 8192
# Step 2 is one user's 50 photos (450 MiB): past the default share of one user's photos.
"$bin/petspotd" --config config/petspotd.json --socket "$dir/petspotd.sock" --database "$dir/reports.sqlite" \
  --location-providers simulated --log-level error --limit maxSpooledPhotoBytesPerUser=536870912 2>"$dir/petspotd.log" &
pid=$!
for _ in $(seq 100); do [ -S "$dir/petspotd.sock" ] && break; sleep 0.05; done
[ -S "$dir/petspotd.sock" ] || { echo "petspotd did not start"; cat "$dir/petspotd.log"; exit 1; }
chmod 666 "$dir/petspotd.sock"

python3 - "$dir/petspotd.sock" "$pid" "$rounds" <<'PY'
import base64, hashlib, json, os, socket, statistics, sys, threading, time

path, pid, rounds = sys.argv[1], sys.argv[2], int(sys.argv[3])
MiB = 1024 * 1024

def status(key):
    for line in open(f"/proc/{pid}/status"):
        if line.startswith(key + ":"):
            return int(line.split()[1]) / 1024
def rss(): return status("VmRSS")
def peak(): return status("VmHWM")
def reset_peak():
    with open(f"/proc/{pid}/clear_refs", "w") as f: f.write("5")

def connect():
    s = socket.socket(socket.AF_UNIX)
    s.connect(path)
    return s

class Reader:
    def __init__(self, s): self.s, self.buffer = s, b""
    def line(self):
        while b"\n" not in self.buffer:
            chunk = self.s.recv(1 << 20)
            if not chunk: raise RuntimeError("closed")
            self.buffer += chunk
        line, self.buffer = self.buffer.split(b"\n", 1)
        return json.loads(line)

def call(s, reader, method, params, id=1):
    s.sendall(json.dumps({"jsonrpc": "2.0", "id": id, "method": method, "params": params}).encode() + b"\n")
    return reader.line()

def photo_step(s, reader):
    """A new flow on its photo step."""
    f = call(s, reader, "flow.start", {})["result"]["flow"]["id"]
    call(s, reader, "flow.update", {"flowId": f, "values": {"chipNumber": "616 09 1234 5678 9"}})
    assert call(s, reader, "flow.continue", {"flowId": f})["result"]["accepted"]
    return f

def settle():
    last, deadline = rss(), time.time() + 10
    while time.time() < deadline:
        time.sleep(0.5)
        now = rss()
        if abs(now - last) < 0.1: return now
        last = now
    return rss()

photo = b"\xff\xd8\xff\xe0" + os.urandom(9 * MiB - 4)
text = base64.b64encode(photo).decode()

# Python's own speed on the same text, best of the rounds.
python_times = []
for _ in range(rounds):
    start = time.perf_counter()
    hashlib.sha256(base64.b64decode(text)).hexdigest()
    python_times.append(time.perf_counter() - start)

s = connect(); r = Reader(s)
flow = photo_step(s, r)
line = json.dumps({"jsonrpc": "2.0", "id": 2, "method": "flow.update",
                   "params": {"flowId": flow, "values": {"photo": {"data": text}}}}).encode() + b"\n"
idle = settle()
times, growth = [], []
for _ in range(rounds):
    before = settle()
    reset_peak()
    start = time.perf_counter()
    s.sendall(line)
    answer = r.line()
    times.append(time.perf_counter() - start)
    assert "result" in answer, answer
    growth.append(peak() - before)
assert answer["result"]["flow"]["values"]["photo"]["sha256"] == hashlib.sha256(photo).hexdigest()
call(s, r, "flow.cancel", {"flowId": flow})
s.close()
best, median = min(times), statistics.median(times)
py = min(python_times)
print(f"1. a 9 MiB photo through flow.update, {rounds} rounds (line {len(line) / MiB:.1f} MiB)")
print(f"  flow.update                   best {best * 1000:7.1f} ms   median {median * 1000:7.1f} ms")
print(f"  Python b64decode + sha256     best {py * 1000:7.1f} ms")
print(f"  speed against Python          best {py / best:7.2f}       median {py / median:7.2f}")
print(f"  peak RSS growth per ingest    max {max(growth):7.1f} MiB   median {statistics.median(growth):7.1f} MiB")

# 2. Fifty open flows with a photo each.
before = settle()
conns = []
for i in range(50):
    c = connect(); cr = Reader(c)
    f = photo_step(c, cr)
    c.sendall(json.dumps({"jsonrpc": "2.0", "id": 2, "method": "flow.update",
                          "params": {"flowId": f, "values": {"photo": {"data": text}}}}).encode() + b"\n")
    assert "result" in cr.line()
    conns.append((c, cr, f))
held = settle()
for c, cr, f in conns:
    call(c, cr, "flow.cancel", {"flowId": f}); c.close()
print("2. 50 open flows each holding a 9 MiB photo")
print(f"  RSS growth while they are open {held - before:7.1f} MiB   after they are cancelled {settle() - before:+.1f} MiB")

# 3. Sixty-four connections of one user, each with an unfinished 15 MiB line.
before = settle()
reset_peak()
chunk = b'{"jsonrpc":"2.0","id":1,"method":"daemon.info","params":{"x":"' + b"a" * (15 * MiB)
holders = []
def hold():
    c = connect()
    try: c.sendall(chunk)
    except OSError: pass
    holders.append(c)
threads = [threading.Thread(target=hold) for _ in range(64)]
for t in threads: t.start()
latencies = []
def other_user():
    if os.getuid() == 0:
        os.setgid(65534); os.setuid(65534)
    for i in range(20):
        c = connect(); cr = Reader(c)
        start = time.perf_counter()
        call(c, cr, "daemon.info", {})
        latencies.append(time.perf_counter() - start)
        c.close()
        time.sleep(0.1)
child = os.fork()
if child == 0:
    try:
        other_user()
        print(f"  another user's daemon.info meanwhile: max {max(latencies) * 1000:.1f} ms over {len(latencies)} calls")
    finally:
        os._exit(0)
for t in threads: t.join()
os.waitpid(child, 0)
top = peak()
refused = 0
for c in holders:
    c.settimeout(0.2)
    try:
        if b"limitExceeded" in c.recv(4096): refused += 1
    except OSError: pass
    c.close()
after = settle()
print(f"3. 64 connections of one user, each with an unfinished 15 MiB line ({refused} told limitExceeded)")
print(f"  peak RSS growth               {top - before:7.1f} MiB")
print(f"  RSS after they close          {after - before:+7.1f} MiB from before")

# 4. One user with 1,100 connections.
if os.getuid() == 0:
    many = []
    for _ in range(1100):
        try: many.append(connect())
        except OSError: break
    child = os.fork()
    if child == 0:
        os.setgid(65534); os.setuid(65534)
        c = connect(); cr = Reader(c)
        served = "result" in call(c, cr, "daemon.info", {})
        print(f"4. one user holding {len(many)} connections: another user is {'served' if served else 'NOT served'}")
        os._exit(0 if served else 1)
    _, code = os.waitpid(child, 0)
    for c in many: c.close()
print(f"idle RSS {idle:.1f} MiB; daemon RSS at the end {settle():.1f} MiB")
PY

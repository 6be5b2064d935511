#!/usr/bin/env bash
# Figures for docs/PERFORMANCE.md: does the daemon's memory come back after a burst of huge
# lines and after a flood of connections, and how far can one user drive it? Builds release
# petspotd (BIN=dir runs a saved build instead), starts it on a scratch socket and database with
# the default limits, records its idle RSS once its startup pages are released, then
#   1. sends a burst of lines near limits.maxLineBytes (16 MiB) on several connections at once,
#   2. opens a flood of connections at once, each asking daemon.info,
#   3. one user's batch flood: on each of its 128 connections, batches of 100 rpc.discover
#      (29 KiB answers), never reading an answer,
#   4. one user's report watchers: reports.watch on 120 of its connections that never read,
#      while it files 3,200 reports on 4 others,
# and after each waits for the daemon to settle and prints RSS before, at peak and after. The
# attacks 3 and 4 run as nobody when the script runs as root (as the current user otherwise),
# hold their connections until RSS stops growing, close them, and read RSS a minute later.
# STEPS=34 runs only those steps; WATCHERS=0 files the reports of step 4 with no watcher (what
# the reports and their flows themselves leave).
#   Benchmarks/run-memory.sh [huge-line connections] [lines each] [flood connections] [batches per connection] [reports]
set -euo pipefail
cd "$(dirname "$0")/.."
huge_connections=${1:-8}
huge_lines=${2:-3}
flood=${3:-1000}
batches=${4:-20}
reports=${5:-3200}
RELEASE_PRODUCTS=petspotd
source Benchmarks/release-bin.sh
echo "petspotd: $(readlink -f "$bin/petspotd")"
dir=$(mktemp -d)
chmod 755 "$dir"
pid=""
cleanup() { [ -n "$pid" ] && kill "$pid" 2>/dev/null; wait 2>/dev/null || true; rm -rf "$dir"; }
trap cleanup EXIT

ulimit -n 4096
"$bin/petspotd" --config config/petspotd.json --socket "$dir/petspotd.sock" --database "$dir/reports.sqlite" \
  --socket-mode 0666 --location-providers simulated --log-level warning 2>"$dir/petspotd.log" &
pid=$!
for _ in $(seq 100); do [ -S "$dir/petspotd.sock" ] && break; sleep 0.05; done
[ -S "$dir/petspotd.sock" ] || { echo "petspotd did not start"; cat "$dir/petspotd.log"; exit 1; }

python3 - "$dir/petspotd.sock" "$pid" "$huge_connections" "$huge_lines" "$flood" "$batches" "$reports" "${WATCHERS:-120}" <<'PY'
import json, os, socket, sys, threading, time

path, pid, huge_connections, huge_lines, flood, batches, reports, watchers = sys.argv[1], sys.argv[2], *map(int, sys.argv[3:])

def status(key):
    for line in open(f"/proc/{pid}/status"):
        if line.startswith(key + ":"):
            return int(line.split()[1]) / 1024  # MiB
def rss(): return status("VmRSS")
def peak(): return status("VmHWM")
def reset_peak():
    # Writing 5 to clear_refs resets VmHWM to the current RSS (Linux 4.0+).
    with open(f"/proc/{pid}/clear_refs", "w") as f: f.write("5")

def ask(conn, line):
    conn.sendall(line)
    data = b""
    while not data.endswith(b"\n"):
        chunk = conn.recv(65536)
        if not chunk: raise RuntimeError("closed")
        data += chunk
    return data

def show(title, top, after):
    print(title)
    print(f"  peak RSS                      {top:8.1f} MiB")
    print(f"  RSS after                     {after:8.1f} MiB   ({after - idle:+.1f} MiB from idle)")

def settle():
    """Waits until RSS stops falling (no change over 1 s), at most 10 s."""
    last, deadline = rss(), time.time() + 10
    while time.time() < deadline:
        time.sleep(1)
        now = rss()
        if abs(now - last) < 0.05: break
        last = now
    return rss()

info = b'{"id":1,"method":"daemon.info"}\n'
warm = [socket.socket(socket.AF_UNIX) for _ in range(4)]
for c in warm: c.connect(path); ask(c, info)
for c in warm: c.close()
# The startup pages go back 10 s after the start (memory.releaseStartupPagesAfterSeconds).
time.sleep(11)
idle = settle()
print(f"idle RSS                        {idle:8.1f} MiB")

# 1. Huge lines: a request with a string member just under 16 MiB, parsed in full and refused
# (unknown parameter), and one line over the limit, skipped.
limit = 16 * 1024 * 1024
member = b'{"id":2,"method":"daemon.info","params":{"x":"' 
near = member + b"a" * (limit - len(member) - 64) + b'"}}\n'
over = b"b" * (limit + 4096) + b"\n"
def huge(i):
    c = socket.socket(socket.AF_UNIX); c.connect(path)
    for n in range(huge_lines):
        ask(c, over if n == huge_lines - 1 else near)
    c.close()
steps = os.environ.get("STEPS", "1234")
if "1" in steps:
    reset_peak()
    threads = [threading.Thread(target=huge, args=(i,)) for i in range(huge_connections)]
    for t in threads: t.start()
    for t in threads: t.join()
    top = peak()
    after = settle()
    show(f"huge lines: {huge_connections} connections x {huge_lines} lines of ~16 MiB", top, after)

# 2. A flood of connections, all open at once, each asking daemon.info; three rounds, so that
# growth that stays is told apart from memory kept once for reuse.
for round in range(1, 4 if "2" in steps else 1):
    reset_peak()
    conns = []
    for _ in range(flood):
        c = socket.socket(socket.AF_UNIX); c.connect(path); c.sendall(info); conns.append(c)
    answered = 0
    for c in conns:
        data = c.recv(65536)
        answered += data.startswith(b'{"jsonrpc"')
    for c in conns: c.close()
    top = peak()
    after = settle()
    show(f"flood {round}: {flood} connections at once ({answered} answered)", top, after)

# 3 and 4: one user's attacks. A forked child (nobody, when run as root) holds the attack's
# connections; the parent reads RSS. The child closes them when told, and the parent reads RSS
# again a minute later.
def as_attacker(attack):
    """Runs attack() in a child process as the attacking user until told to end; returns (pid, control pipe)."""
    ready_r, ready_w = os.pipe()
    go_r, go_w = os.pipe()
    child = os.fork()
    if child == 0:
        os.close(ready_r); os.close(go_w)
        if os.getuid() == 0:
            os.setgroups([]); os.setgid(65534); os.setuid(65534)
        try:
            conns = attack()
            os.write(ready_w, b"r")
            os.read(go_r, 1)  # the parent says: the attack ends
            for c in conns: c.close()
        finally:
            os._exit(0)
    os.close(ready_w); os.close(go_r)
    if os.read(ready_r, 1) != b"r": raise RuntimeError("the attack failed")
    return child, go_w

def plateau(limit=25):
    """Waits until RSS has not grown for 3 s (at most `limit` s, under limits.stalledReaderTimeoutSeconds)."""
    top, since, deadline = rss(), time.time(), time.time() + limit
    while time.time() < deadline and time.time() - since < 3:
        time.sleep(0.5)
        now = rss()
        if now > top + 0.5: top, since = now, time.time()

def end_attack(title, child, go):
    plateau()
    top = peak()
    os.write(go, b"g"); os.waitpid(child, 0)
    time.sleep(60)
    after = rss()
    print(title)
    print(f"  peak RSS                      {top:8.1f} MiB")
    print(f"  RSS a minute after the close  {after:8.1f} MiB   ({after - idle:+.1f} MiB from idle)")

def connect():
    c = socket.socket(socket.AF_UNIX); c.connect(path); return c

# 3. rpc.discover batches, never read.
def discover_flood():
    batch = ("[" + ",".join('{"jsonrpc":"2.0","id":%d,"method":"rpc.discover"}' % i for i in range(100)) + "]\n").encode()
    conns = [connect() for _ in range(128)]
    for c in conns:
        c.setblocking(False)
        for _ in range(batches):
            try: c.sendall(batch)
            except BlockingIOError: break
    return conns
if "3" in steps:
    before = settle()
    reset_peak()
    child, go = as_attacker(discover_flood)
    end_attack(f"one user's batch flood: 128 connections x {batches} batches of 100 rpc.discover, unread (RSS before {before:.1f} MiB)", child, go)

# 4. Report watchers that never read, while the same user files reports.
class Caller:
    def __init__(self):
        self.s = connect(); self.buf = b""; self.n = 0
    def call(self, method, params={}):
        self.n += 1
        self.s.sendall((json.dumps({"jsonrpc": "2.0", "id": self.n, "method": method, "params": params}) + "\n").encode())
        while True:
            while b"\n" not in self.buf:
                chunk = self.s.recv(65536)
                if not chunk: raise RuntimeError("petspotd closed the connection")
                self.buf += chunk
            line, self.buf = self.buf.split(b"\n", 1)
            m = json.loads(line)
            if m.get("id") == self.n:
                if "result" not in m: raise RuntimeError(f"{method}: {m}")
                return m["result"]

def file_reports(count):
    f = Caller()
    for _ in range(count):
        flow = f.call("flow.start")["flow"]["id"]
        f.call("flow.update", {"flowId": flow, "values": {"chipNumber": "616091234567890"}}); f.call("flow.continue", {"flowId": flow})
        f.call("flow.continue", {"flowId": flow})
        f.call("flow.update", {"flowId": flow, "values": {"species": "dog", "race": "Beagle", "gender": "male", "age": 4,
                                                           "latitude": "52.22968", "longitude": "21.01223"}})
        f.call("flow.continue", {"flowId": flow})
        f.call("flow.update", {"flowId": flow, "values": {"contactPhone": "+48123456789"}}); f.call("flow.continue", {"flowId": flow})
        f.call("flow.submit", {"flowId": flow})
    f.s.close()

def silent_watchers():
    held = []
    for _ in range(watchers):
        w = Caller(); w.call("reports.watch"); held.append(w.s)
    filers = [threading.Thread(target=file_reports, args=(reports // 4,)) for _ in range(4)]
    for t in filers: t.start()
    for t in filers: t.join()
    return held
if "4" in steps:
    before = settle()
    reset_peak()
    child, go = as_attacker(silent_watchers)
    end_attack(f"one user's report watchers: {watchers} connections that never read, {reports} reports filed (RSS before {before:.1f} MiB)", child, go)
PY

#!/usr/bin/env bash
# Figures for docs/PERFORMANCE.md: does the daemon's memory come back after a burst of huge
# lines and after a flood of connections? Builds release petspotd, starts it on a scratch
# socket and database with the default limits, records its idle RSS, then
#   1. sends a burst of lines near limits.maxLineBytes (16 MiB) on several connections at once,
#   2. opens a flood of connections at once, each asking daemon.info,
# and after each waits for the daemon to settle and prints RSS before, at peak and after.
#   Benchmarks/run-memory.sh [huge-line connections] [lines each] [flood connections]
set -euo pipefail
cd "$(dirname "$0")/.."
huge_connections=${1:-8}
huge_lines=${2:-3}
flood=${3:-1000}
scratch=${SCRATCH:-.build-release}
swift build -c release --scratch-path "$scratch" --product petspotd >/dev/null
bin=$(swift build -c release --scratch-path "$scratch" --show-bin-path)
dir=$(mktemp -d)
pid=""
cleanup() { [ -n "$pid" ] && kill "$pid" 2>/dev/null; wait 2>/dev/null || true; rm -rf "$dir"; }
trap cleanup EXIT

ulimit -n 4096
"$bin/petspotd" --config config/petspotd.json --socket "$dir/petspotd.sock" --database "$dir/reports.sqlite" \
  --location-providers simulated --log-level warning 2>"$dir/petspotd.log" &
pid=$!
for _ in $(seq 100); do [ -S "$dir/petspotd.sock" ] && break; sleep 0.05; done
[ -S "$dir/petspotd.sock" ] || { echo "petspotd did not start"; cat "$dir/petspotd.log"; exit 1; }

python3 - "$dir/petspotd.sock" "$pid" "$huge_connections" "$huge_lines" "$flood" <<'PY'
import socket, sys, threading, time

path, pid, huge_connections, huge_lines, flood = sys.argv[1], sys.argv[2], *map(int, sys.argv[3:])

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
reset_peak()
threads = [threading.Thread(target=huge, args=(i,)) for i in range(huge_connections)]
for t in threads: t.start()
for t in threads: t.join()
top = peak()
after = settle()
show(f"huge lines: {huge_connections} connections x {huge_lines} lines of ~16 MiB", top, after)

# 2. A flood of connections, all open at once, each asking daemon.info; three rounds, so that
# growth that stays is told apart from memory kept once for reuse.
for round in range(1, 4):
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
PY

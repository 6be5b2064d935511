#!/usr/bin/env bash
# Figures for docs/PERFORMANCE.md: the daemon's CPU time (user + system, from /proc) per
# request, for daemon.info and flow.get, each sent N times over 4 connections, pipelined by
# 100. Less sensitive than req/s to what else the machine runs; compare builds with it.
#   Benchmarks/run-cpu.sh [requests]        (BIN=dir to use a petspotd built elsewhere)
set -euo pipefail
cd "$(dirname "$0")/.."
requests=${1:-200000}
scratch=${SCRATCH:-.build-release}
if [ -z "${BIN:-}" ]; then
  swift build -c release --scratch-path "$scratch" --product petspotd >/dev/null
  BIN=$(swift build -c release --scratch-path "$scratch" --show-bin-path)
fi
python3 - "$BIN/petspotd" "$requests" <<'PY'
import os, re, signal, socket, subprocess, sys, tempfile, threading, time

binary, n = sys.argv[1], int(sys.argv[2])
tick = os.sysconf("SC_CLK_TCK")
d = tempfile.mkdtemp()
p = subprocess.Popen([binary, "--config", "config/petspotd.json", "--socket", d + "/s.sock", "--database", d + "/db.sqlite",
                      "--location-providers", "simulated", "--log-level", "warning"], stderr=open(d + "/log", "w"))

def cpu_seconds():
    fields = open(f"/proc/{p.pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / tick

def connect():
    for _ in range(300):
        s = socket.socket(socket.AF_UNIX)
        try:
            s.connect(d + "/s.sock")
            return s
        except OSError:
            s.close()
            time.sleep(0.05)
    sys.exit("petspotd did not start: " + open(d + "/log").read())

def drive(line, count):
    s = connect()
    answers = s.makefile("rb")
    done = 0
    while done < count:
        k = min(100, count - done)
        s.sendall(line * k)
        for _ in range(k):
            assert b'"result"' in answers.readline()
        done += k
    s.close()

def measure(make_line, connections=4):
    lines = [make_line() for _ in range(connections)]
    before, started = cpu_seconds(), time.time()
    threads = [threading.Thread(target=drive, args=(line, n // connections)) for line in lines]
    for t in threads: t.start()
    for t in threads: t.join()
    return (cpu_seconds() - before) / n * 1e6, n / (time.time() - started)

def info():
    return b'{"id":1,"method":"daemon.info"}\n'

def flow_get():
    s = connect()
    s.sendall(b'{"id":0,"method":"flow.start"}\n')
    flow = re.search(rb'"id":"([0-9a-f-]{36})"', s.makefile("rb").readline()).group(1)
    s.close()
    return b'{"id":1,"method":"flow.get","params":{"flowId":"' + flow + b'"}}\n'

connect().close()
for name, make_line in (("daemon.info", info), ("flow.get", flow_get)):
    micros, rate = measure(make_line)
    print(f"{name}: {micros:.1f} µs of daemon CPU per request ({rate:.0f} req/s, {n} requests)")
p.send_signal(signal.SIGTERM)
p.wait()
PY

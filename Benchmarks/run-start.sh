#!/usr/bin/env bash
# Figures for docs/PERFORMANCE.md: how long petspotd takes from exec to its first answer. Starts
# the release petspotd N times on a fresh socket and database and, from the moment it is
# started, tries to connect and send daemon.info every 0.2 ms until the answer comes; prints
# each time, the median and the largest.
#   Benchmarks/run-start.sh [runs]        (BIN=dir to use a petspotd built elsewhere, CONFIG=file
#                                          for one that reads an earlier configuration)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-20}
. Benchmarks/release-bin.sh
python3 - "$bin/petspotd" "$runs" "${CONFIG:-config/petspotd.json}" <<'PY'
import os, shutil, socket, statistics, subprocess, sys, tempfile, time

binary, runs, config = sys.argv[1], int(sys.argv[2]), sys.argv[3]
times = []
for _ in range(runs):
    d = tempfile.mkdtemp()
    path = d + "/s.sock"
    started = time.monotonic()
    p = subprocess.Popen([binary, "--config", config, "--socket", path, "--database", d + "/db.sqlite",
                          "--location-providers", "simulated", "--log-level", "warning"], stderr=open(d + "/log", "w"))
    answered = None
    while answered is None and time.monotonic() - started < 10:
        s = socket.socket(socket.AF_UNIX)
        try:
            s.connect(path)
            s.sendall(b'{"jsonrpc":"2.0","id":1,"method":"daemon.info"}\n')
            if b'"result"' in s.recv(65536):
                answered = time.monotonic() - started
        except OSError:
            time.sleep(0.0002)
        finally:
            s.close()
    p.terminate()
    p.wait()
    shutil.rmtree(d)
    if answered is None:
        sys.exit("petspotd did not answer within 10 s")
    times.append(answered * 1000)
print("start to first answer, ms: " + " ".join(f"{t:.1f}" for t in times))
print(f"median {statistics.median(times):.1f} ms, largest {max(times):.1f} ms ({runs} starts)")
PY

#!/usr/bin/env bash
# The gpsd benchmark of docs/PERFORMANCE.md: a real gpsd reading NMEA from a pty at 1 Hz,
# petspotd (release) watching it, and petspot-load timing three ways to get the position.
#   Benchmarks/run-gpsd.sh [requests]
set -euo pipefail
cd "$(dirname "$0")/.."
requests=${1:-200}
scratch=${SCRATCH:-.build-release}
for product in petspotd petspot-load; do swift build -c release --scratch-path "$scratch" --product "$product" >/dev/null; done
bin=$(swift build -c release --scratch-path "$scratch" --show-bin-path)
dir=$(mktemp -d)
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; rm -rf "$dir"; }
trap cleanup EXIT

socat pty,raw,echo=0,link="$dir/gps" pty,raw,echo=0,link="$dir/feed" & pids+=($!)
for _ in $(seq 100); do [ -e "$dir/feed" ] && break; sleep 0.05; done
# A receiver with a fix at 1 Hz: GGA and RMC, valid checksums, the current UTC time.
python3 - "$dir/feed" <<'PY' & pids+=($!)
import sys, time, datetime
def line(body):
    c = 0
    for ch in body: c ^= ord(ch)
    return "$%s*%02X\r\n" % (body, c)
with open(sys.argv[1], "w") as feed:
    while True:
        t = datetime.datetime.now(datetime.timezone.utc)
        hms, dmy = t.strftime("%H%M%S") + ".00", t.strftime("%d%m%y")
        feed.write(line("GPGGA,%s,5213.78054,N,02100.73372,E,1,08,0.9,100.0,M,40.0,M,," % hms))
        feed.write(line("GPRMC,%s,A,5213.78054,N,02100.73372,E,0.0,0.0,%s,,,A" % (hms, dmy)))
        feed.flush()
        time.sleep(1)
PY
gpsd -N -n -b -S "$port" -F "$dir/ctl" "$dir/gps" 2>/dev/null & pids+=($!)
"$bin/petspotd" --config config/petspotd.json --socket "$dir/petspotd.sock" --database "$dir/reports.sqlite" \
  --location-providers gpsd --gpsd "127.0.0.1:$port" --log-level warning 2>"$dir/petspotd.log" & pids+=($!)
for _ in $(seq 100); do [ -S "$dir/petspotd.sock" ] && break; sleep 0.05; done
"$bin/petspot-load" --socket "$dir/petspotd.sock" --gpsd-bench "127.0.0.1:$port" --requests "$requests" --naive-requests 20

#!/usr/bin/env bash
# Figures for docs/PERFORMANCE.md: how long the release petspot-poster takes to make a poster of
# a report whose photo is a 9 MiB JPEG (6000 × 4500, a 27-megapixel phone photo of fur: grain
# that compresses no better), from exec to the PDF written: reading the JSON and its base64,
# decoding the JPEG at the page's size, laying out and embedding. Also a PNG of the page, and
# the no-photo poster for the fixed cost. Prints each time, the median, the largest and the
# largest resident memory.
#   Benchmarks/run-poster.sh [runs]        (BIN=dir to use a petspot-poster built elsewhere)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-20}
scratch=${SCRATCH:-.build-release}-poster
if [ -n "${BIN:-}" ]; then
  bin=$BIN
else
  swift build -c release --package-path Poster --scratch-path "$scratch" --product petspot-poster >/dev/null
  bin=$(swift build -c release --package-path Poster --scratch-path "$scratch" --show-bin-path)
fi
swift build -c release --package-path Poster --scratch-path "$scratch" --product poster-photo >/dev/null
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$(swift build -c release --package-path Poster --scratch-path "$scratch" --show-bin-path)/poster-photo" 6000 4500 9437184 "$work/photo.jpg"
python3 - "$bin/petspot-poster" "$runs" "$work" <<'PY'
import base64, json, os, statistics, subprocess, sys, time

binary, runs, work = sys.argv[1], int(sys.argv[2]), sys.argv[3]
photo = open(work + "/photo.jpg", "rb").read()
document = {
    "id": "3f2a0c1e-5d7b-4c59-9a41-0d8e2f6b7a10", "locale": "pl", "species": "dog", "race": "Jamnik długowłosy",
    "gender": "female", "age": 3, "disappearanceDate": "2026-09-12", "lastSeen": {"latitude": 52.22968, "longitude": 21.01223},
    "description": "Brązowa sierść, żółta obroża z adresówką. " * 10, "contact": {"phone": "+48123456789", "email": "jan@example.org"},
    "photo": {"mediaType": "image/jpeg", "data": base64.b64encode(photo).decode()},
}
with_photo = json.dumps(document).encode()
document["photo"] = None
without_photo = json.dumps(document).encode()
env = {"PATH": os.environ["PATH"], "LANG": "pl_PL.UTF-8"}

def measure(label, data, arguments):
    times, rss = [], 0
    for _ in range(runs):
        out = open(work + "/out", "wb")
        started = time.monotonic()
        # GNU time for the resident memory: a child's ru_maxrss seen from here starts at this
        # process's size when it was forked.
        p = subprocess.Popen(["/usr/bin/time", "-f", "%M", "-o", work + "/rss", binary, "--output", "-"] + arguments,
                             stdin=subprocess.PIPE, stdout=out, stderr=subprocess.PIPE, env=env)
        p.stdin.write(data)
        p.stdin.close()
        status = p.wait()
        elapsed = time.monotonic() - started
        if status != 0:
            sys.exit(f"{label}: petspot-poster failed: {p.stderr.read().decode()}")
        times.append(elapsed * 1000)
        rss = max(rss, int(open(work + "/rss").read().split()[-1]))
    size = os.path.getsize(work + "/out")
    print(f"{label}: " + " ".join(f"{t:.0f}" for t in times))
    print(f"  median {statistics.median(times):.0f} ms, largest {max(times):.0f} ms, peak RSS {rss / 1024:.0f} MiB, output {size / 1024:.0f} KiB ({runs} runs)")

print(f"photo: {len(photo)} bytes ({len(photo) / 1048576:.1f} MiB), input document {len(with_photo) / 1048576:.1f} MiB")
measure("PDF, 9 MiB JPEG", with_photo, [])
measure("PNG at 150 dpi, 9 MiB JPEG", with_photo, ["--png"])
measure("PDF, no photo", without_photo, [])
PY

# Sourced by the benchmarks of the relay and the watches (run-relay.sh, run-watch.sh), as root:
# release programs ($bin, of RELEASE_PRODUCTS), a scratch folder $dir, a scratch PostgreSQL
# (scratch-postgres.sh), and start_daemon; petspotd, petspot-relay ($relay) and PostgreSQL are
# stopped and $dir removed on exit.
if [ "$(id -u)" != 0 ]; then echo "run as root: petspotd's relay.group is root here, and PostgreSQL runs as postgres" >&2; exit 1; fi
source Benchmarks/release-bin.sh
dir=$(mktemp -d)
chmod 755 "$dir"
daemon="" relay=""
source Benchmarks/scratch-postgres.sh
# Every step may fail (a program already gone) without cutting the cleanup short under set -e.
cleanup() {
  if [ -n "$relay" ]; then kill "$relay" 2>/dev/null || true; fi
  if [ -n "$daemon" ]; then kill "$daemon" 2>/dev/null || true; fi
  scratch_postgres_stop
  wait 2>/dev/null || true
  rm -rf "$dir"
}
trap cleanup EXIT

# start_daemon LOCATION FLAGS…: petspotd on config/petspotd.json with relay.group root (the
# relay runs as root here) and, unless LOCATION is empty, that JSON as its location section;
# sets $daemon once its socket is there.
start_daemon() {
  python3 - "$dir" "$1" <<'PY'
import json, os, sys
d, location = sys.argv[1], sys.argv[2]
c = json.load(open("config/petspotd.json"))
c.setdefault("relay", {})["group"] = os.environ.get("RELAY_GROUP", "root")
if location: c["location"] = json.loads(location)
json.dump(c, open(d + "/petspotd.json", "w"))
PY
  shift
  cp config/species.json "$dir/species.json"
  "$bin/petspotd" --config "$dir/petspotd.json" --socket "$dir/petspotd.sock" --database "$dir/reports.sqlite" \
    --log-level warning "$@" 2>"$dir/petspotd.log" &
  daemon=$!
  for _ in $(seq 200); do [ -S "$dir/petspotd.sock" ] && return 0; sleep 0.05; done
  echo "petspotd did not start" >&2; cat "$dir/petspotd.log" >&2; exit 1
}

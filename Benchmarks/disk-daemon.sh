# Sourced by the benchmark scripts that time durable submits (after $bin is set): a scratch
# folder on a disk in $TMPDIR (a tmpfs is refused: fsync costs nothing there), removed at exit,
# and start_daemon / stop_daemon for a petspotd on a fresh database in it, with room for every
# flow a run starts (each stays in memory until it expires). CONFIG=file: its configuration.
dir=$(mktemp -d)
if [ "$(stat -f -c %T "$dir")" = tmpfs ]; then
  echo "$dir is on a tmpfs, where fsync costs nothing: set TMPDIR to a folder on a disk" >&2
  exit 1
fi
pid=""
cleanup() { [ -n "$pid" ] && kill "$pid" 2>/dev/null; wait 2>/dev/null || true; rm -rf "$dir"; }
trap cleanup EXIT

start_daemon() {
  rm -f "$dir"/petspotd.sock "$dir"/reports.sqlite*
  "$bin/petspotd" --config "${CONFIG:-config/petspotd.json}" --socket "$dir/petspotd.sock" --database "$dir/reports.sqlite" \
    --location-providers simulated --log-level warning --limit maxFlowsPerUser=1000000 --limit maxFlows=1000000 \
    2>"$dir/petspotd.log" &
  pid=$!
  for _ in $(seq 200); do [ -S "$dir/petspotd.sock" ] && return 0; sleep 0.05; done
  echo "petspotd did not start" >&2; cat "$dir/petspotd.log" >&2; exit 1
}
stop_daemon() { kill "$pid"; wait "$pid" 2>/dev/null || true; pid=""; }

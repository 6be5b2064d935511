# Sourced by the benchmark scripts that need PostgreSQL: scratch_postgres_start starts a
# PostgreSQL 15 in $dir/pg (defaults, fsync on, as the postgres user, on a free loopback port)
# and sets $port and $url; scratch_postgres_stop stops it if it runs. PGBIN=dir names
# PostgreSQL's programs (default /usr/lib/postgresql/15/bin).
pgbin=${PGBIN:-/usr/lib/postgresql/15/bin}
pgrunning=""

scratch_postgres_start() {
  port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  mkdir "$dir/pg" && chown postgres:postgres "$dir/pg"
  setpriv --reuid=postgres --regid=postgres --init-groups -- "$pgbin/initdb" -D "$dir/pg/data" -A trust -U postgres -E UTF8 --locale=C >/dev/null
  # Defaults but for the port: the figures include PostgreSQL's commit (fsync on).
  setpriv --reuid=postgres --regid=postgres --init-groups -- "$pgbin/pg_ctl" -D "$dir/pg/data" -l "$dir/pg/postgres.log" -w \
    -o "-h 127.0.0.1 -p $port -k $dir/pg" start >/dev/null
  pgrunning=1
  url="postgresql://postgres@127.0.0.1:$port/postgres?sslmode=disable"
}

# May fail (already gone) without cutting a cleanup short under set -e.
scratch_postgres_stop() {
  if [ -n "$pgrunning" ]; then
    setpriv --reuid=postgres --regid=postgres --init-groups -- "$pgbin/pg_ctl" -D "$dir/pg/data" -m fast -w stop >/dev/null 2>&1 || true
  fi
}

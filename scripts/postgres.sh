#!/usr/bin/env bash
# Runs a private PostgreSQL cluster on 127.0.0.1 for the session/postgres
# tests (session/postgres/postgrestest), from Debian's packages.
#
#   scripts/postgres.sh start   install if needed (apt-get install postgresql),
#                               initdb a private cluster when there is none,
#                               start it, create the test database, print the
#                               export line:
#                                 eval "$(scripts/postgres.sh start)"
#   scripts/postgres.sh stop    stop the cluster "start" started (same
#                               POSTGRES_PORT and POSTGRES_DIR)
#   scripts/postgres.sh url     print the database URL (does not start it)
#
# Environment: POSTGRES_PORT (default 55432), POSTGRES_DIR (the cluster's
# data directory, default ${TMPDIR:-/tmp}/agentscope-go-postgres-$PORT; it
# is kept between runs, so a second start is quick). As root, the cluster
# runs as the postgres OS user, since PostgreSQL refuses to run as root.
set -euo pipefail

PORT=${POSTGRES_PORT:-55432}
DIR=${POSTGRES_DIR:-${TMPDIR:-/tmp}/agentscope-go-postgres-$PORT}
DB=agentscope_test
URL="postgres://postgres@127.0.0.1:$PORT/$DB?sslmode=disable"

# bindir prints the newest installed server's bin directory: Debian keeps
# the binaries in /usr/lib/postgresql/<major>/bin, off PATH.
bindir() {
  local d
  for d in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V -r); do
    if [[ -x $d/initdb && -x $d/pg_ctl ]]; then echo "$d"; return 0; fi
  done
  if command -v initdb >/dev/null && command -v pg_ctl >/dev/null; then
    dirname "$(command -v pg_ctl)"; return 0
  fi
  return 1
}

install() {
  if BIN=$(bindir); then return; fi
  if [[ $(id -u) != 0 ]] || ! command -v apt-get >/dev/null; then
    echo "postgres.sh: PostgreSQL is not installed (as root: apt-get install postgresql)" >&2
    exit 1
  fi
  echo "postgres.sh: installing postgresql from Debian's packages" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >&2
  apt-get install -y -qq postgresql >&2
  BIN=$(bindir) || { echo "postgres.sh: no initdb/pg_ctl after installing postgresql" >&2; exit 1; }
}

# as_pg runs a server binary as the postgres user when we are root.
as_pg() {
  if [[ $(id -u) == 0 ]]; then runuser -u postgres -- "$@"; else "$@"; fi
}

running() { as_pg "$BIN/pg_ctl" -D "$DIR" status >/dev/null 2>&1; }

# ready asks the server itself, not its postmaster.pid.
ready() { "$BIN/pg_isready" -q -h 127.0.0.1 -p "$PORT" -t 2; }

case ${1:-} in
start)
  install
  mkdir -p "$DIR"
  if [[ $(id -u) == 0 ]]; then chown postgres: "$DIR"; fi
  chmod 700 "$DIR"
  if [[ ! -f $DIR/PG_VERSION ]]; then
    as_pg "$BIN/initdb" -D "$DIR" -U postgres -A trust -E UTF8 --no-locale >"$DIR.initdb.log" 2>&1 || {
      echo "postgres.sh: initdb failed:" >&2; cat "$DIR.initdb.log" >&2; exit 1; }
  fi
  # Ours only: a server of another data directory (another checkout's
  # run) may hold the port, and using it would tie this run to its life.
  if running && ready; then
    echo "postgres.sh: already running on port $PORT" >&2
  else
    # A server killed without a shutdown leaves its postmaster.pid; when
    # that process id now belongs to something else, pg_ctl would take
    # the file for a running server.
    if [[ -f $DIR/postmaster.pid ]]; then
      pid=$(head -1 "$DIR/postmaster.pid")
      if [[ $(ps -p "$pid" -o comm= 2>/dev/null) != postgres ]]; then rm -f "$DIR/postmaster.pid"; fi
    fi
    # Listen on loopback only; the socket goes in the data directory so
    # no system directory is needed.
    as_pg "$BIN/pg_ctl" -D "$DIR" -l "$DIR/server.log" -w -t 60 \
      -o "-c listen_addresses=127.0.0.1 -p $PORT -k $DIR -c max_connections=200" start >&2 || {
      echo "postgres.sh: the server did not start on port $PORT; log:" >&2
      cat "$DIR/server.log" >&2 || true
      exit 1
    }
  fi
  if ! as_pg "$BIN/psql" -h 127.0.0.1 -p "$PORT" -U postgres -d postgres -tAc \
      "SELECT 1 FROM pg_database WHERE datname = '$DB'" | grep -q 1; then
    as_pg "$BIN/psql" -h 127.0.0.1 -p "$PORT" -U postgres -d postgres -qc "CREATE DATABASE $DB" >&2
  fi
  echo "export AGENTSCOPE_TEST_POSTGRES_URL='$URL'"
  ;;
stop)
  if BIN=$(bindir) && [[ -f $DIR/PG_VERSION ]] && running; then
    as_pg "$BIN/pg_ctl" -D "$DIR" -m fast -w stop >&2
  fi
  ;;
url)
  echo "$URL"
  ;;
*)
  echo "usage: $0 start|stop|url" >&2
  exit 2
  ;;
esac

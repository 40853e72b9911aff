#!/usr/bin/env bash
# A throw-away PostgreSQL cluster for TVEKit's fleet tests and for trying a fleet by hand: under .postgres/ (ignored by
# git), listening on 127.0.0.1 only, on a free port chosen at creation. Installs PostgreSQL from apt when missing.
#
#   scripts/postgres.sh start    # create the cluster if needed, start it, print its URL (also in .postgres/url)
#   scripts/postgres.sh start --for-pid PID
#                                # the same; if this call started the cluster, stop it once process PID has exited
#                                # (whoever starts it stops it: a bare `swift test` leaves nothing running)
#   scripts/postgres.sh stop     # stop it (the data stays for the next start, on the same port)
#   scripts/postgres.sh install  # install PostgreSQL from apt when it is missing (start does it too)
#   scripts/postgres.sh url      # print the URL of a running cluster
#   scripts/postgres.sh pids     # print the process IDs of a running cluster (the postmaster first; backends it starts
#                                # later inherit its CPU affinity, which the fleet benchmark sets)
#   scripts/postgres.sh destroy  # stop it and delete .postgres/
#
# The cluster trusts loopback connections (a test cluster: no password). Its superuser and database are `tvekit`.
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
DIR="${TVEKIT_POSTGRES_DIR:-$ROOT/.postgres}"
# Where the cluster lives: .postgres/ itself, or (when the checkout is private to root, so that the postgres user cannot
# reach it) a folder of its own under /tmp, recorded in .postgres/cluster.
CLUSTER="$DIR"
[ -f "$DIR/cluster" ] && CLUSTER="$(cat "$DIR/cluster")"
DATA="$CLUSTER/data"
SOCKETS="$CLUSTER/sockets"

source "$ROOT/scripts/postgres-lib.sh"

install_postgres() {
    if ! BIN="$(bin_dir)"; then
        echo "PostgreSQL is missing: installing it from apt" >&2
        if [ "$(id -u)" -eq 0 ]; then SUDO=""; else SUDO="sudo"; fi
        $SUDO apt-get update -qq >&2
        DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq postgresql >&2
        BIN="$(bin_dir)" || { echo "error: PostgreSQL did not install" >&2; exit 1; }
    fi
}

create() {
    mkdir -p "$DIR"
    [ -f "$DIR/port" ] || free_port > "$DIR/port"
    if [ "$(id -u)" -eq 0 ]; then
        getent passwd postgres >/dev/null || { echo "error: no postgres user (install the postgresql package)" >&2; exit 1; }
        chown postgres "$DIR"
        if ! runuser -u postgres -- test -x "$DIR"; then
            CLUSTER="$(mktemp -d /tmp/tvekit-postgres-XXXXXXXX)"
            chown postgres "$CLUSTER"
            echo "$CLUSTER" > "$DIR/cluster"
            DATA="$CLUSTER/data"
            SOCKETS="$CLUSTER/sockets"
        fi
    fi
    as_owner mkdir -p "$SOCKETS"
    # --no-sync: a throw-away cluster needs no flush of its new files, and the flush of a whole data directory stalls
    # the commits of a cluster already serving tests on the same disk for seconds.
    as_owner "$BIN/initdb" -D "$DATA" -U tvekit --auth=trust --encoding=UTF8 --no-locale --no-sync >/dev/null
    cat >> "$DATA/postgresql.conf" <<CONF
listen_addresses = '127.0.0.1'
port = $(cat "$DIR/port")
unix_socket_directories = '$SOCKETS'
max_connections = 200
shared_buffers = 256MB
logging_collector = off
CONF
}

url() { echo "postgres://tvekit@127.0.0.1:$(cat "$DIR/port")/tvekit"; }

running() { [ -f "$DATA/postmaster.pid" ] && as_owner "$BIN/pg_ctl" -D "$DATA" status >/dev/null 2>&1; }

start() {
    # The server outlives this script: it must not inherit the caller's descriptors (a test's pipes and sockets).
    local fd
    for fd in $(ls /proc/$$/fd 2>/dev/null); do
        if [ "$fd" -gt 2 ] 2>/dev/null; then eval "exec $fd>&-" 2>/dev/null || true; fi
    done
    local owner="${1:-}"
    install_postgres
    [ -f "$DATA/PG_VERSION" ] || create
    if ! running; then
        as_owner "$BIN/pg_ctl" -D "$DATA" -l "$CLUSTER/postgres.log" -w -t 30 start >/dev/null
        rm -f "$DIR/lease"
        if [ -n "$owner" ]; then
            # Started for process $owner: a lease names it and the server's process; a watcher, detached from this
            # script and its caller, stops the cluster when $owner has gone, if the lease is still the same (a plain
            # `start` meanwhile takes the cluster over and removes it; a restart changes the server's process).
            local lease
            lease="$owner $(head -1 "$DATA/postmaster.pid")"
            echo "$lease" > "$DIR/lease"
            setsid nohup bash -c '
                while kill -0 "$1" 2>/dev/null; do sleep 1; done
                [ "$(cat "$3" 2>/dev/null)" = "$2" ] && rm -f "$3" && exec bash "$4" stop' \
                _ "$owner" "$lease" "$DIR/lease" "$(readlink -f "$0")" </dev/null >/dev/null 2>&1 &
        fi
    elif [ -z "$owner" ]; then
        rm -f "$DIR/lease"  # someone now relies on the running cluster: no automatic stop
    fi
    local port
    port="$(cat "$DIR/port")"
    if ! as_owner "$BIN/psql" -h 127.0.0.1 -p "$port" -U tvekit -d postgres -tAc "SELECT 1 FROM pg_database WHERE datname = 'tvekit'" | grep -q 1; then
        as_owner "$BIN/createdb" -h 127.0.0.1 -p "$port" -U tvekit tvekit
    fi
    url > "$DIR/url"
    url
}

stop() {
    BIN="$(bin_dir)" || exit 0
    [ -f "$DATA/PG_VERSION" ] || exit 0
    rm -f "$DIR/lease"
    if running; then as_owner "$BIN/pg_ctl" -D "$DATA" -m fast -w -t 30 stop >/dev/null; fi
}

case "${1:-}" in
    start)
        if [ "${2:-}" = "--for-pid" ]; then
            [[ "${3:-}" =~ ^[0-9]+$ ]] || { echo "usage: $0 start [--for-pid PID]" >&2; exit 2; }
            start "$3"
        else
            start
        fi
        ;;
    stop) stop ;;
    install) install_postgres ;;
    url) BIN="$(bin_dir)" && running 2>/dev/null && url || { echo "error: no running cluster (scripts/postgres.sh start)" >&2; exit 1; } ;;
    pids)
        BIN="$(bin_dir)" && running 2>/dev/null || { echo "error: no running cluster (scripts/postgres.sh start)" >&2; exit 1; }
        postmaster="$(head -1 "$DATA/postmaster.pid")"
        echo "$postmaster" $(pgrep -P "$postmaster" || true)
        ;;
    destroy) (stop) || true; [ "$CLUSTER" != "$DIR" ] && rm -rf "$CLUSTER"; rm -rf "$DIR" ;;
    *) echo "usage: $0 start [--for-pid PID]|stop|install|url|pids|destroy" >&2; exit 2 ;;
esac

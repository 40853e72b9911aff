#!/usr/bin/env bash
# A throw-away PostgreSQL primary and its synchronous streaming standby, for the fleet's failover test
# (scripts/failover-test.py, `make failover-test`) and for trying a fleet with a standby by hand: under /tmp (the
# postgres user must reach it), recorded in .postgres-pair/ (ignored by git), both on loopback ports chosen at creation.
# PostgreSQL's own replication: the standby is a pg_basebackup of the primary, the primary
# names it in synchronous_standby_names with synchronous_commit = on, so a commit the primary acknowledges is on the
# standby too.
#
#   scripts/postgres-pair.sh start         # create both if needed, start them, print the multi-host URL
#   scripts/postgres-pair.sh url           # postgres://tvekit@127.0.0.1:P1,127.0.0.1:P2/tvekit
#   scripts/postgres-pair.sh status        # which of the two accepts writes (primary), which is a standby
#   scripts/postgres-pair.sh kill-primary  # SIGKILL the primary's postmaster and its processes (a crash, not a stop)
#   scripts/postgres-pair.sh promote       # promote the standby: it accepts writes from then on
#   scripts/postgres-pair.sh destroy       # stop both and delete them
#
# Both trust loopback connections (test clusters: no password); their superuser and database are `tvekit`.
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
DIR="$ROOT/.postgres-pair"

source "$ROOT/scripts/postgres-lib.sh"

BIN="$(bin_dir || true)"
home() { cat "$DIR/cluster"; }
port() { cat "$DIR/$1.port"; }
data() { echo "$(home)/$1"; }

create() {
    [ -n "$BIN" ] || { echo "error: PostgreSQL is missing (scripts/postgres.sh start installs it)" >&2; exit 1; }
    mkdir -p "$DIR"
    local cluster
    cluster="$(mktemp -d /tmp/tvekit-postgres-pair-XXXXXXXX)"
    [ "$(id -u)" -eq 0 ] && chown postgres "$cluster"
    echo "$cluster" > "$DIR/cluster"
    free_port > "$DIR/primary.port"
    free_port > "$DIR/standby.port"
    as_owner mkdir -p "$cluster/sockets"
    as_owner "$BIN/initdb" -D "$cluster/primary" -U tvekit --auth=trust --encoding=UTF8 --no-locale --no-sync >/dev/null
    cat <<CONF | as_owner tee -a "$cluster/primary/postgresql.conf" >/dev/null
listen_addresses = '127.0.0.1'
port = $(port primary)
unix_socket_directories = '$cluster/sockets'
max_connections = 200
wal_level = replica
max_wal_senders = 4
wal_keep_size = 64MB
synchronous_commit = on
logging_collector = off
CONF
    echo "host replication tvekit 127.0.0.1/32 trust" | as_owner tee -a "$cluster/primary/pg_hba.conf" >/dev/null
    as_owner "$BIN/pg_ctl" -D "$cluster/primary" -l "$cluster/primary.log" -w -t 30 start >/dev/null
    as_owner "$BIN/createdb" -h 127.0.0.1 -p "$(port primary)" -U tvekit tvekit
    # The standby: a base backup with its recovery settings (-R), named `standby` for synchronous_standby_names.
    as_owner "$BIN/pg_basebackup" -h 127.0.0.1 -p "$(port primary)" -U tvekit -D "$cluster/standby" -R --no-sync --checkpoint=fast \
        -d "application_name=standby" >/dev/null
    cat <<CONF | as_owner tee -a "$cluster/standby/postgresql.conf" >/dev/null
port = $(port standby)
CONF
    as_owner "$BIN/pg_ctl" -D "$cluster/standby" -l "$cluster/standby.log" -w -t 30 start >/dev/null
    # Synchronous only now that the standby exists: before, every commit (createdb's too) would wait for it for ever.
    echo "synchronous_standby_names = 'standby'" | as_owner tee -a "$cluster/primary/postgresql.conf" >/dev/null
    as_owner "$BIN/pg_ctl" -D "$cluster/primary" reload >/dev/null
}

pid_of() { head -1 "$(data "$1")/postmaster.pid" 2>/dev/null || true; }
running() { local pid; pid="$(pid_of "$1")"; [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; }

start() {
    [ -f "$DIR/cluster" ] && [ -d "$(home)/standby" ] || create
    local node
    for node in primary standby; do
        running "$node" || as_owner "$BIN/pg_ctl" -D "$(data "$node")" -l "$(home)/$node.log" -w -t 30 start >/dev/null
    done
    url
}

url() { echo "postgres://tvekit@127.0.0.1:$(port primary),127.0.0.1:$(port standby)/tvekit"; }

status() {
    local node answer
    for node in primary standby; do
        if running "$node"; then
            answer="$(as_owner "$BIN/psql" -h 127.0.0.1 -p "$(port "$node")" -U tvekit -d tvekit -tAc 'SELECT pg_is_in_recovery()' 2>/dev/null || echo '?')"
            case "$answer" in
                f) echo "$node 127.0.0.1:$(port "$node") accepts writes" ;;
                t) echo "$node 127.0.0.1:$(port "$node") standby (read only)" ;;
                *) echo "$node 127.0.0.1:$(port "$node") not answering" ;;
            esac
        else
            echo "$node 127.0.0.1:$(port "$node") down"
        fi
    done
}

case "${1:-}" in
    start) start ;;
    url) url ;;
    status) status ;;
    kill-primary)
        # A crash of the primary's host: SIGKILL to the postmaster and to every process it started (its backends and WAL
        # sender), at once; no process gets to close its connections cleanly or to finish a commit.
        pid="$(pid_of primary)"
        [ -n "$pid" ] || { echo "error: the primary is not running" >&2; exit 1; }
        children="$(pgrep -P "$pid" || true)"
        kill -KILL "$pid" $children 2>/dev/null || true
        echo "killed the primary's postmaster ($pid) and its $(echo $children | wc -w) processes"
        ;;
    promote) as_owner "$BIN/pg_ctl" -D "$(data standby)" -w -t 30 promote >/dev/null && echo "the standby accepts writes" ;;
    destroy)
        if [ -f "$DIR/cluster" ]; then
            for node in primary standby; do
                if running "$node"; then as_owner "$BIN/pg_ctl" -D "$(data "$node")" -m immediate -w -t 30 stop >/dev/null || true; fi
                pid="$(pid_of "$node")"; [ -n "$pid" ] && kill -KILL "$pid" 2>/dev/null || true
            done
            rm -rf "$(home)"
        fi
        rm -rf "$DIR"
        ;;
    *) echo "usage: $0 start|url|status|kill-primary|promote|destroy" >&2; exit 2 ;;
esac

# Shared by scripts/postgres.sh and scripts/postgres-pair.sh (sourced, not run): where PostgreSQL's programs are, how to
# run them as the cluster's owner, and a free loopback port.

# The folder of initdb, pg_ctl, psql…: Debian's versioned folder, else wherever initdb is on the PATH.
bin_dir() {
    local dir
    for dir in /usr/lib/postgresql/*/bin; do
        [ -x "$dir/initdb" ] && { echo "$dir"; return 0; }
    done
    command -v initdb >/dev/null 2>&1 && { dirname "$(readlink -f "$(command -v initdb)")"; return 0; }
    return 1
}

# PostgreSQL refuses to run as root: as root, run its tools as the `postgres` user, which owns the cluster.
as_owner() {
    if [ "$(id -u)" -eq 0 ]; then
        runuser -u postgres -- "$@"
    else
        "$@"
    fi
}

free_port() {
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}

# Helpers of run.sh (sourced by it, not run alone): installing the tools, one wrk run, and the two peers each fleet
# figure is held against (issue 31):
# - nginx, the HTTP peer: a throw-away instance, one process on CPU 0 like the server, answering `200 ok` to any GET;
#   its CPU time per request is what serving HTTP costs a lean server on this machine. Beside it, the NIO floor
#   (Benchmarks/nio-floor): a SwiftNIO server that only finds each head's end and answers a fixed 200, on CPU 0 too,
#   for what SwiftNIO itself costs per request before the verification server does anything.
# - pgbench, the PostgreSQL peer: the replay store's own statements (one key, and 64 keys in the packed form) at the
#   same concurrency on the same core as wrk, on the same table: what this PostgreSQL can do, with no server between.
# They use run.sh's variables: $work (the temp folder), $seconds, $results (one JSON line per run), $url (PostgreSQL).

# Installs Debian package $2 when command $1 is missing.
install_missing() {
    command -v "$1" >/dev/null || [ -x "/usr/sbin/$1" ] && return 0
    local sudo=""
    [ "$(id -u)" = 0 ] || sudo=sudo
    echo "== installing $2"
    $sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "$2" >/dev/null
}

free_port() {
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}

# A process's CPU time so far, in clock ticks (user + system, all its threads: fields 14 and 15 of /proc/PID/stat).
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }

# One wrk run on CPU 1 (two threads, 16 connections, $seconds), with the CPU time of process $2 read before and after.
# $1: the run's name, $2: the PID, $3: tokens per request (0: a plain GET, no Lua script), $4: the URL.
# Prints wrk's main lines and appends one JSON line to $results.
load() {
    local name=$1 pid=$2 batch=$3 target=$4 before after script=()
    [ "$batch" = 0 ] || script=(-s "$work/fleet.lua")
    echo "-- $name"
    before=$(cpu_ticks "$pid")
    TOKENS_FILE="$work/tokens.txt" BATCH=$batch THREADS=2 taskset -c 1 wrk -t2 -c16 -d "${seconds}s" --latency \
        "${script[@]}" "$target" > "$work/run.txt"
    after=$(cpu_ticks "$pid")
    grep -E "Requests/sec|requests in|^ +(50|90|99)%|Non-2xx|Socket errors" "$work/run.txt" | sed 's/^/   /'
    local requests rps p99
    requests=$(grep "requests in" "$work/run.txt" | awk '{print $1}')
    rps=$(grep "Requests/sec" "$work/run.txt" | awk '{print $2}')
    p99=$(grep -E "^ +99%" "$work/run.txt" | awk '{print $2}')
    # wrk's run includes its own start (building the requests); the process is busy only while wrk sends, and CPU per
    # request divides by the requests actually answered, so that start costs nothing here.
    python3 - "$name" "$batch" "$requests" "$rps" "$p99" "$((after - before))" "$(getconf CLK_TCK)" "$seconds" \
        "$results" <<'PY'
import json, sys
name, batch, requests, rps, p99, ticks, hz, seconds, results = sys.argv[1:]
cpu = int(ticks) / int(hz)
row = {"run": name, "batch": int(batch), "requests": int(requests), "requestsPerSecond": float(rps), "p99": p99,
       "cpuSeconds": cpu, "coresUsed": round(cpu / float(seconds), 3),
       "cpuMicrosecondsPerRequest": round(cpu / max(int(requests), 1) * 1e6, 3)}
print(f"   CPU per request: {row['cpuMicrosecondsPerRequest']} µs, cores used: {row['coresUsed']}"
      + (f", tokens/s: {int(float(rps) * int(batch))}" if int(batch) else ""))
open(results, "a").write(json.dumps(row) + "\n")
PY
}

# nginx as one process (master_process off: the process that accepts is the one that serves, so its CPU time is all of
# nginx's), on CPU 0 like the server, on a free loopback port, with every path in the temp folder. Sets $nginx (its PID)
# and $nginx_url.
start_nginx() {
    local dir="$work/nginx" port
    mkdir -p "$dir"
    port=$(free_port)
    cat > "$dir/nginx.conf" <<CONF
daemon off;
master_process off;
worker_processes 1;
pid $dir/nginx.pid;
error_log $dir/error.log warn;
events { worker_connections 1024; }
http {
    access_log off;
    # The server keeps a connection for the whole run: so does nginx here (its default closes one after 1000 requests,
    # and wrk would pay, and measure, a reconnection every 1000).
    keepalive_requests 100000000;
    client_body_temp_path $dir/body;
    proxy_temp_path $dir/proxy;
    fastcgi_temp_path $dir/fastcgi;
    uwsgi_temp_path $dir/uwsgi;
    scgi_temp_path $dir/scgi;
    server {
        listen 127.0.0.1:$port;
        location / { return 200 "ok\n"; }
    }
}
CONF
    # -e: the error log before the configuration is read (the default, /var/log/nginx, may not be writable).
    taskset -c 0 "$(command -v nginx || echo /usr/sbin/nginx)" -p "$dir/" -e "$dir/error.log" -c "$dir/nginx.conf" &
    nginx=$!
    nginx_url="http://127.0.0.1:$port/"
    for _ in $(seq 100); do curl -sf "$nginx_url" >/dev/null && return 0; sleep 0.1; done
    echo "error: nginx did not start:" >&2
    cat "$dir/error.log" >&2
    exit 1
}
stop_nginx() { kill -QUIT "$nginx"; wait "$nginx" 2>/dev/null || true; nginx=""; }

# The NIO floor (built by run.sh) on CPU 0, on a free loopback port. Sets $floor (its PID) and $floor_url.
start_floor() {
    local port
    port=$(free_port)
    taskset -c 0 Benchmarks/nio-floor/.build/release/nio-floor "$port" > "$work/floor.log" &
    floor=$!
    floor_url="http://127.0.0.1:$port/"
    for _ in $(seq 100); do curl -sf "$floor_url" >/dev/null && return 0; sleep 0.1; done
    echo "error: the NIO floor did not start" >&2
    exit 1
}
stop_floor() { kill "$floor"; wait "$floor" 2>/dev/null || true; floor=""; }

# The replay store's table, created afresh with the store's own statements (PostgresReplayGuard.createSchema).
fresh_table() {
    psql "$url" -qc "DROP TABLE IF EXISTS tvekit_replay_keys" 2>/dev/null
    psql "$url" -qc "CREATE TABLE tvekit_replay_keys (key bytea PRIMARY KEY, expires_at bigint NOT NULL)" \
        -c "CREATE INDEX tvekit_replay_keys_expires_at ON tvekit_replay_keys (expires_at)"
}

# pgbench's scripts: the store's statements (PostgresReplayGuard.insert, and insertPacked, its form for 16 keys and
# more). pgbench cannot send bytes it made itself, so each 32-byte key is made in the statement: SHA-256 of a random
# 62-bit number and the client's number (and, in a batch, the key's index), unique but for a 2^-62 chance per pair.
write_pgbench_scripts() {
    cat > "$work/pgbench-single.sql" <<'SQL'
\set r random(1, 4611686018427387903)
INSERT INTO tvekit_replay_keys (key, expires_at) VALUES (sha256(int8send(:r) || int4send(:client_id)), :expires)
ON CONFLICT (key) DO UPDATE SET expires_at = EXCLUDED.expires_at WHERE tvekit_replay_keys.expires_at <= :now
RETURNING 1;
SQL
    cat > "$work/pgbench-batch64.sql" <<'SQL'
\set r random(1, 4611686018427387903)
WITH inserted AS (INSERT INTO tvekit_replay_keys (key, expires_at)
SELECT sha256(int8send(:r) || int4send(:client_id) || int4send(i::int4)), e
FROM unnest(array_fill(:expires::int8, ARRAY[64])) WITH ORDINALITY AS t(e, i)
ON CONFLICT (key) DO UPDATE SET expires_at = EXCLUDED.expires_at WHERE tvekit_replay_keys.expires_at <= :now
RETURNING key)
SELECT coalesce(string_agg(key, ''::bytea), ''::bytea) FROM inserted;
SQL
}

# One pgbench run on the fresh table: $1 the run's name (pgbench-single, pgbench-batch64, also its script), $2 the keys
# per transaction. 16 clients, one thread, prepared statements, on CPU 1 with PostgreSQL, as wrk and the fleet were.
# Every transaction is logged (--log), for the p99. Appends one JSON line to $results.
pgbench_run() {
    local name=$1 batch=$2 now
    now=$(date +%s%3N)
    echo "-- $name: $batch key(s) per transaction, 16 clients, -M prepared"
    fresh_table
    rm -f "$work/$name".log*
    taskset -c 1 "$pgbench" -n -M prepared -c 16 -j 1 -T "$seconds" -D now="$now" -D expires=$((now + 7200000)) \
        -f "$work/$name.sql" --log --log-prefix="$work/$name.log" "$url" > "$work/pgbench.txt" 2>&1 \
        || { cat "$work/pgbench.txt" >&2; exit 1; }
    grep -E "^(tps|latency average|number of (transactions actually processed|failed))" "$work/pgbench.txt" | sed 's/^/   /'
    psql "$url" -tAc "SELECT '   ' || count(*) || ' keys in the table' FROM tvekit_replay_keys"
    # Each log line: client, transaction, latency in µs, script, then when it ended.
    python3 - "$name" "$batch" "$work/pgbench.txt" "$results" "$work/$name".log* <<'PY'
import json, re, sys
name, batch, output, results, logs = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5:]
text = open(output).read()
tps = float(re.search(r"^tps = ([0-9.]+)", text, re.M).group(1))
average = float(re.search(r"^latency average = ([0-9.]+) ms", text, re.M).group(1))
latencies = sorted(int(line.split()[2]) for log in logs for line in open(log) if line.strip())
p99 = latencies[min(len(latencies) - 1, int(len(latencies) * 0.99))] / 1000 if latencies else None
row = {"run": name, "batch": batch, "requests": len(latencies), "requestsPerSecond": tps,
       "p99": f"{p99}ms" if p99 is not None else None, "averageMilliseconds": average}
print(f"   p99: {p99} ms, keys/s: {int(tps * batch)}")
open(results, "a").write(json.dumps(row) + "\n")
PY
}

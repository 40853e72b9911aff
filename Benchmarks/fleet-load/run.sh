#!/usr/bin/env bash
# Load test of the verification fleet (issues 15 and 31): wrk posts UNIQUE tokens (so that every request is a first use
# and the replay store writes a key) to `tvekit serve --verifier-only` with 16 connections, one-time use kept in memory
# and then in PostgreSQL (the project's throw-away cluster, scripts/postgres.sh), one token per request and batches of
# 64. The server runs on CPU 0 with one event loop; wrk and PostgreSQL share CPU 1, so "per core used" is the
# server's one core. `tvekit speed token-verify` runs first for the per-core comparison.
# Each figure also has its peer (peers.sh): nginx on CPU 0, loaded as the server is, for the CPU time one HTTP request
# costs (beside the server's /health and its in-memory /verify), and pgbench running the replay store's statements on
# the same table, clients and core (beside the PostgreSQL figures).
#
# Usage (repository root): bash Benchmarks/fleet-load/run.sh [--json] [seconds per run, default 10]
# (`make fleet-bench`). Prints the figures, their ratios and issue 31's goals with PASS or MISS as tables (report.py),
# or one JSON object with --json. It starts the project's PostgreSQL cluster when it is not running, and then stops it
# at the end. FLEET_ONLY=http runs only nginx, the NIO floor, /health and in-memory /verify single tokens (no
# PostgreSQL): a quick run for work on the server's own cost.
set -euo pipefail
cd "$(dirname "$0")/../.."
json=0
if [ "${1:-}" = "--json" ]; then json=1; shift; fi
seconds=${1:-10}
only=${FLEET_ONLY:-all}
case "$only" in all | http) ;; *) echo "error: FLEET_ONLY is all or http, not $only" >&2; exit 2 ;; esac
# With --json, the progress goes to standard error and standard output holds the one JSON object.
if [ "$json" = 1 ]; then exec 3>&1 1>&2; else exec 3>&1; fi
source Benchmarks/fleet-load/peers.sh
command -v taskset >/dev/null || { echo "error: taskset (util-linux) is missing" >&2; exit 1; }
install_missing wrk wrk
install_missing nginx nginx
swift build -c release --product tvekit >/dev/null
swift build -c release --package-path Benchmarks/nio-floor >/dev/null
tvekit=.build/release/tvekit
work=$(mktemp -d)
results="$work/results.jsonl"
: > "$results"
postgres_pids=""
pin_postgres() { for pid in $postgres_pids; do taskset -pc "$1" "$pid" >/dev/null 2>&1 || true; done; }
cleanup() {
    kill "${server:-}" "${nginx:-}" "${floor:-}" 2>/dev/null || true
    [ -z "$postgres_pids" ] || pin_postgres "$postgres_cpus"
    rm -rf "$work"
}
trap cleanup EXIT
if [ "$only" = all ]; then
    # Whoever starts the cluster stops it: started here, it stops when this script has exited.
    url=$(scripts/postgres.sh start --for-pid $$)
    # PostgreSQL shares CPU 1 with wrk (the server has CPU 0 to itself): its processes, and the backends it starts
    # later, run there for the benchmark, and where they ran before afterwards (when the cluster outlives this script).
    postgres_pids=$(scripts/postgres.sh pids)
    postgres_cpus=$(taskset -pc "${postgres_pids%% *}" | awk '{print $NF}')
    pin_postgres 1
    [ "$(taskset -pc "${postgres_pids%% *}" | awk '{print $NF}')" = 1 ] || { echo "error: PostgreSQL could not be pinned to CPU 1" >&2; exit 1; }
    pgbench=$(ls /usr/lib/postgresql/*/bin/pgbench 2>/dev/null | tail -1)
    [ -n "$pgbench" ] || pgbench=$(command -v pgbench)
    write_pgbench_scripts
fi
# Two hours of validity, so that tokens issued now stay valid through the runs.
echo "== issuing unique tokens (two processes)"
per=${TOKENS:-80000}
for part in 1 2; do
    "$tvekit" token issue --private-key TestVectors/fixtures/leaf.pkcs8.pem --requestor load-test --resource res --mvpd M \
        --ttl 7200000 --count $((per / 2)) > "$work/tokens-$part.txt" &
done
wait
cat "$work"/tokens-*.txt > "$work/tokens.txt"
echo "$(wc -l < "$work/tokens.txt") tokens"

# Each wrk thread walks its own share of the tokens, one per request (singles) or 64 per request (batches); when they run
# out it starts over, and those requests are replays (counted by the server's metrics below).
cat > "$work/fleet.lua" <<'LUA'
-- Each thread builds all its requests once, at start (wrk then only hands them out: building an 800-byte body per
-- request in Lua would make wrk, not the server, the bottleneck).
local batch = tonumber(os.getenv("BATCH") or "1")
local counter = 0
function setup(thread)
    thread:set("id", counter)
    counter = counter + 1
end
function init(args)
    local step = tonumber(os.getenv("THREADS") or "1")
    local mine, n = {}, 0
    for line in io.lines(os.getenv("TOKENS_FILE")) do
        if n % step == id then mine[#mine + 1] = '{"token":"' .. line .. '","requestor":"load-test","resource":"res"}' end
        n = n + 1
    end
    local headers = { ["Content-Type"] = "application/json" }
    requests = {}
    if batch == 1 then
        for i = 1, #mine do requests[i] = wrk.format("POST", "/verify", headers, mine[i]) end
    else
        for i = 1, #mine - batch + 1, batch do
            requests[#requests + 1] = wrk.format("POST", "/verify", headers, "[" .. table.concat(mine, ",", i, i + batch - 1) .. "]")
        end
    end
    index = 0
end
function request()
    index = index + 1
    if index > #requests then index = 1 end
    return requests[index]
end
LUA

echo "== tvekit speed token-verify (one core, in-process)"
speed=$("$tvekit" speed --seconds 4 --json token-verify 2>/dev/null | python3 -c 'import json,sys; d=json.load(sys.stdin); r=d["results"] if isinstance(d,dict) else d; print(int([x for x in r if x["operation"]=="token-verify"][0]["opsPerSecond"]))')
echo "token-verify: $speed/s"

start_server() {
    : > "$work/serve.log"
    taskset -c 0 "$tvekit" serve --verifier-only --cert TestVectors/fixtures/leaf.cert.pem --requestor load-test --port 0 \
        --threads 1 "$@" 2> "$work/serve.log" > /dev/null &
    server=$!
    for _ in $(seq 100); do grep -q "listening on" "$work/serve.log" && break; sleep 0.1; done
    base=$(grep -o "http://[0-9.]*:[0-9]*" "$work/serve.log" | head -1)
}
stop_server() {
    curl -s "$base/metrics" | grep '^tvekit_verifications_total' | sed 's/^/   /'
    kill -INT "$server"; wait "$server" 2>/dev/null || true
    server=""
}

# The HTTP peer first, loaded as the server is (a GET, no body): its CPU time per request is the yardstick of the
# server's /health and of its in-memory /verify less the verification.
echo "== nginx (the HTTP peer)"
start_nginx
load nginx-get "$nginx" 0 "$nginx_url"
stop_nginx
echo "== the NIO floor (a SwiftNIO server answering a fixed 200)"
start_floor
load nio-floor-get "$floor" 0 "$floor_url"
stop_floor

# Each run of tokens starts a fresh server (and an empty table), so that its tokens are first uses again.
echo "== in memory"
start_server
load memory-health "$server" 0 "$base/health"
load memory-single "$server" 1 "$base/verify"
stop_server
if [ "$only" = all ]; then
    start_server
    load memory-batch64 "$server" 64 "$base/verify"
    stop_server
    # Each fleet run on PostgreSQL, then pgbench's run of the same statement on the table created afresh.
    echo "== PostgreSQL ($url)"
    for batch in single batch64; do
        psql "$url" -qc "DROP TABLE IF EXISTS tvekit_replay_keys" 2>/dev/null
        PGPASSWORD= start_server --replay-store "$url?sslmode=disable"
        load "postgres-$batch" "$server" "$([ "$batch" = single ] && echo 1 || echo 64)" "$base/verify"
        psql "$url" -tAc "SELECT '   ' || count(*) || ' keys in the table' FROM tvekit_replay_keys"
        stop_server
        pgbench_run "pgbench-$batch" "$([ "$batch" = single ] && echo 1 || echo 64)"
    done
fi

echo "== report"
python3 Benchmarks/fleet-load/report.py "$results" "$speed" $([ "$json" = 1 ] && echo --json) >&3

#!/usr/bin/env bash
# Load test of the verification fleet (issue 15): wrk posts UNIQUE tokens (so that every request is a first use and
# the replay store writes a key) to `tvekit serve --verifier-only` with 16 connections, one-time use kept in memory
# and then in PostgreSQL (the project's throw-away cluster, scripts/postgres.sh), one token per request and batches of
# 64. The server runs on CPU 0 with one event loop; wrk and PostgreSQL share CPU 1, so "per core used" is the
# server's one core. `tvekit speed token-verify` runs first for the per-core comparison.
#
# Usage (repository root): bash Benchmarks/fleet-load/run.sh [--json] [seconds per run, default 10]
# (`make fleet-bench`). Prints the four figures with their ratios to in-process token-verify as one table (or one JSON
# object with --json). It starts the project's PostgreSQL cluster when it is not running, and then stops it at the end.
set -euo pipefail
cd "$(dirname "$0")/../.."
json=0
if [ "${1:-}" = "--json" ]; then json=1; shift; fi
seconds=${1:-10}
# With --json, the progress goes to standard error and standard output holds the one JSON object.
if [ "$json" = 1 ]; then exec 3>&1 1>&2; else exec 3>&1; fi
command -v wrk >/dev/null || { sudo=""; [ "$(id -u)" = 0 ] || sudo=sudo; $sudo apt-get update -qq && $sudo apt-get install -y -qq wrk >/dev/null; }
swift build -c release --product tvekit >/dev/null
tvekit=.build/release/tvekit
work=$(mktemp -d)
trap 'kill "${server:-}" 2>/dev/null || true; rm -rf "$work"' EXIT
# Whoever starts the cluster stops it: started here, it stops when this script has exited.
url=$(scripts/postgres.sh start --for-pid $$)
# PostgreSQL shares CPU 1 with wrk (the server has CPU 0 to itself): its processes, and the backends it starts later,
# run there for the benchmark, and where they ran before afterwards (when the cluster outlives this script).
command -v taskset >/dev/null || { echo "error: taskset (util-linux) is missing" >&2; exit 1; }
postgres_pids=$(scripts/postgres.sh pids)
postgres_cpus=$(taskset -pc "${postgres_pids%% *}" | awk '{print $NF}')
pin_postgres() { for pid in $postgres_pids; do taskset -pc "$1" "$pid" >/dev/null 2>&1 || true; done; }
pin_postgres 1
[ "$(taskset -pc "${postgres_pids%% *}" | awk '{print $NF}')" = 1 ] || { echo "error: PostgreSQL could not be pinned to CPU 1" >&2; exit 1; }
trap 'kill "${server:-}" 2>/dev/null || true; pin_postgres "$postgres_cpus"; rm -rf "$work"' EXIT
results="$work/results.txt"
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
}
# The server's CPU time so far, in clock ticks (user + system, all its threads).
cpu_ticks() { awk '{print $14 + $15}' "/proc/$server/stat"; }
run() {  # $1: label, $2: batch size
    echo "-- $1"
    local before after
    before=$(cpu_ticks)
    TOKENS_FILE="$work/tokens.txt" BATCH=$2 THREADS=2 taskset -c 1 wrk -t2 -c16 -d "${seconds}s" --latency -s "$work/fleet.lua" \
        "$base/verify" > "$work/run.txt"
    after=$(cpu_ticks)
    grep -E "Requests/sec|50%|90%|99%|Non-2xx|Socket errors" "$work/run.txt" | sed 's/^/   /'
    local rps p99 cores
    rps=$(grep "Requests/sec" "$work/run.txt" | awk '{print $2}')
    p99=$(grep -E "^ +99%" "$work/run.txt" | awk '{print $2}')
    # wrk's run includes its own start (building the requests); the server is busy only while wrk sends.
    cores=$(python3 -c "print(round(($after - $before) / $(getconf CLK_TCK) / $seconds, 3))")
    echo "   tokens/s: $(python3 -c "print(int($rps * $2))"), server cores used: $cores"
    echo "$store $2 $rps $p99 $cores" >> "$results"
}

# Each run starts a fresh server (and an empty table), so that its tokens are first uses again.
echo "== in memory"
store=memory
start_server
run "single tokens, 16 connections" 1
stop_server
start_server
run "batches of 64, 16 connections" 64
stop_server
echo "== PostgreSQL ($url)"
store=postgres
for batch in 1 64; do
    psql "$url" -qc "DROP TABLE IF EXISTS tvekit_replay_keys" 2>/dev/null
    PGPASSWORD= start_server --replay-store "$url?sslmode=disable"
    if [ "$batch" = 1 ]; then run "single tokens, 16 connections" 1; else run "batches of 64, 16 connections" 64; fi
    psql "$url" -tAc "SELECT '   ' || count(*) || ' keys in the table' FROM tvekit_replay_keys"
    stop_server
done

# The four figures, each beside in-process token-verify (per core used: the server has one core).
python3 - "$results" "$speed" "$json" <<'PY' >&3
import json, re, sys
rows = [line.split() for line in open(sys.argv[1]) if line.strip()]
speed, as_json = float(sys.argv[2]), sys.argv[3] == "1"
def ms(text):
    m = re.match(r"([0-9.]+)(us|ms|s)", text or "")
    return None if not m else float(m.group(1)) * {"us": 0.001, "ms": 1, "s": 1000}[m.group(2)]
figures = {}
for store, batch, rps, p99, cores in rows:
    key = f"{store}-{'single' if batch == '1' else 'batch' + batch}"
    tokens = float(rps) * int(batch)
    used = min(max(float(cores), 0.01), 1.0)
    figures[key] = {"requestsPerSecond": float(rps), "tokensPerSecond": tokens, "p99Milliseconds": ms(p99),
                    "serverCoresUsed": float(cores), "tokensPerSecondPerCoreUsed": round(tokens / used)}
def ratio(a, b):
    return round(a / b, 3) if a and b else None
single_memory = figures.get("memory-single", {}).get("tokensPerSecond")
single_pg = figures.get("postgres-single", {}).get("tokensPerSecond")
report = {
    "inProcessTokenVerifyPerSecond": speed,
    "figures": figures,
    "ratios": {
        "postgresSingleToMemorySingle": ratio(single_pg, single_memory),
        "memorySingleToInProcess": ratio(figures.get("memory-single", {}).get("tokensPerSecondPerCoreUsed"), speed),
        "memoryBatch64ToInProcess": ratio(figures.get("memory-batch64", {}).get("tokensPerSecondPerCoreUsed"), speed),
        "postgresBatch64ToInProcess": ratio(figures.get("postgres-batch64", {}).get("tokensPerSecondPerCoreUsed"), speed),
    },
    "goals": {"postgresSingleToMemorySingle": 0.7, "memorySingleToInProcess": 0.5, "memoryBatch64ToInProcess": 0.9,
              "postgresBatch64ToInProcess": 0.8, "postgresSingleP99Milliseconds": 5.0},
}
if as_json:
    print(json.dumps(report, indent=2))
else:
    print()
    print(f"{'run':<20} {'tokens/s':>10} {'cores':>6} {'per core':>9} {'p99 ms':>8}  ratio (goal)")
    print(f"{'in-process verify':<20} {speed:>10.0f} {1:>6} {speed:>9.0f} {'':>8}")
    names = {"memory-single": "memorySingleToInProcess", "memory-batch64": "memoryBatch64ToInProcess",
             "postgres-single": "postgresSingleToMemorySingle", "postgres-batch64": "postgresBatch64ToInProcess"}
    for key, name in names.items():
        f = figures.get(key, {})
        r, goal = report["ratios"][name], report["goals"][name]
        base = "memory single (tokens/s)" if key == "postgres-single" else "in-process, per core used"
        print(f"{key:<20} {f.get('tokensPerSecond', 0):>10.0f} {f.get('serverCoresUsed', 0):>6.2f} "
              f"{f.get('tokensPerSecondPerCoreUsed', 0):>9.0f} {f.get('p99Milliseconds') or 0:>8.2f}  {r} of {base} (goal {goal})")
PY

#!/usr/bin/env bash
# Load test of the media-token verification service on loopback (issue 6): wrk from Debian posts one valid token
# to POST /verify with 1, 16 and 64 connections and reports requests/s and latency percentiles; `tvekit speed
# token-verify` runs right before, on the same machine, for the per-core comparison. The per-core run pins the
# server (one event loop) to CPU 0 and wrk to CPU 1, and also measures GET /health: the cost of one HTTP/1.1
# request on loopback with nothing to do, which bounds what any verification service can reach.
#
# One-time use is on, as in production: after the first request the token answers TOKEN_REPLAYED, which costs the
# same full verification (format, RSA signature, requestor, resource, time) plus the replay lookup.
#
# Usage (repository root): bash Benchmarks/verify-load/run.sh [seconds per run, default 10]
set -euo pipefail
cd "$(dirname "$0")/../.."
seconds=${1:-10}
command -v wrk >/dev/null || { echo "installing wrk"; sudo=""; [ "$(id -u)" = 0 ] || sudo=sudo; $sudo apt-get install -y -qq wrk >/dev/null || { $sudo apt-get update -qq && $sudo apt-get install -y -qq wrk >/dev/null; }; }
swift build -c release --product tvekit >/dev/null
tvekit=.build/release/tvekit
work=$(mktemp -d)
trap 'kill "${server:-}" 2>/dev/null || true; rm -rf "$work"' EXIT

token=$("$tvekit" token issue --private-key TestVectors/fixtures/leaf.pkcs8.pem --requestor load-test --resource res --mvpd LoadMVPD --ttl 3600000)
cat > "$work/post.lua" <<LUA
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.body = '{"token": "$token", "requestor": "load-test", "resource": "res"}'
LUA

echo "== tvekit speed token-verify (one core, in-process)"
speed=$("$tvekit" speed --seconds 4 --json token-verify 2>/dev/null | python3 -c 'import json,sys; d=json.load(sys.stdin); r=d["results"] if isinstance(d,dict) else d; print(int([x for x in r if x["operation"]=="token-verify"][0]["opsPerSecond"]))')
echo "token-verify: $speed/s"

start_server() {  # $1: taskset CPU list or "", then extra arguments
    local cpus=$1; shift
    : > "$work/serve.log"
    if [ -n "$cpus" ]; then
        taskset -c "$cpus" "$tvekit" serve --verifier-only --cert TestVectors/fixtures/leaf.cert.pem --requestor load-test --port 0 "$@" \
            2> "$work/serve.log" > /dev/null &
    else
        "$tvekit" serve --verifier-only --cert TestVectors/fixtures/leaf.cert.pem --requestor load-test --port 0 "$@" \
            2> "$work/serve.log" > /dev/null &
    fi
    server=$!
    for _ in $(seq 50); do grep -q "listening on" "$work/serve.log" && break; sleep 0.1; done
    url=$(grep -o "http://[0-9.]*:[0-9]*" "$work/serve.log" | head -1)
}
stop_server() { kill -INT "$server"; wait "$server" 2>/dev/null || true; }
rate() { grep "Requests/sec" | awk '{print int($2)}'; }

echo "== both cores shared by the server (one event loop per core) and wrk"
start_server ""
for connections in 1 16 64; do
    echo "-- POST /verify, $connections connection(s), ${seconds}s"
    wrk -t $(( connections < 2 ? 1 : 2 )) -c "$connections" -d "${seconds}s" --latency -s "$work/post.lua" "$url/verify" \
        | grep -E "Requests/sec|50%|90%|99%|Non-2xx|Socket errors"
done
stop_server

echo "== per core: the server alone on CPU 0 (one event loop), wrk on CPU 1, 16 connections"
start_server 0 --threads 1
verify=$(taskset -c 1 wrk -t1 -c16 -d "${seconds}s" --latency -s "$work/post.lua" "$url/verify" | tee "$work/verify.txt" | rate)
grep -E "50%|99%" "$work/verify.txt"
floor=$(taskset -c 1 wrk -t1 -c16 -d "${seconds}s" "$url/health" | rate)
stop_server
python3 - "$speed" "$verify" "$floor" <<'PY'
import sys
speed, verify, floor = map(float, sys.argv[1:])
print(f"POST /verify: {verify:.0f}/s per core = {verify / speed:.2f} x token-verify")
print(f"GET /health (the HTTP floor of this server on loopback): {floor:.0f}/s = {1e6 / floor:.1f} us per request")
bound = 1 / (1 / speed + 1 / floor)
print(f"bound for verify over HTTP/1.1 without pipelining: {bound:.0f}/s = {bound / speed:.2f} x token-verify; measured {verify / bound:.2f} of it")
PY

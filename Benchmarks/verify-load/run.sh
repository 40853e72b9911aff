#!/usr/bin/env bash
# Load test of the media-token verification service on loopback (issue 6): wrk from Debian posts one valid token
# to POST /verify with 1, 16 and 64 connections and reports requests/s and latency percentiles; `tvekit speed
# token-verify` runs right before, on the same machine, for the per-core comparison.
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
trap 'kill "$server" 2>/dev/null || true; rm -rf "$work"' EXIT

token=$("$tvekit" token issue --private-key TestVectors/fixtures/leaf.pkcs8.pem --requestor load-test --resource res --mvpd LoadMVPD --ttl 3600000)
cat > "$work/post.lua" <<LUA
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.body = '{"token": "$token", "requestor": "load-test", "resource": "res"}'
LUA

echo "== tvekit speed token-verify (one core, in-process)"
"$tvekit" speed --seconds 4 token-verify 2>/dev/null | tail -1

"$tvekit" serve --verifier-only --cert TestVectors/fixtures/leaf.cert.pem --requestor load-test --port 0 \
    2> "$work/serve.log" > /dev/null &
server=$!
for _ in $(seq 50); do grep -q "listening on" "$work/serve.log" && break; sleep 0.1; done
url=$(grep -o "http://[0-9.]*:[0-9]*" "$work/serve.log" | head -1)
# The service logs one line per request at info level; keep it out of the measurement's way.
for connections in 1 16 64; do
    echo "== POST $url/verify, $connections connection(s), ${seconds}s"
    wrk -t $(( connections < 2 ? 1 : 2 )) -c "$connections" -d "${seconds}s" --latency -s "$work/post.lua" "$url/verify" \
        | grep -E "Requests/sec|50%|90%|99%|Non-2xx|Socket errors"
done

#!/usr/bin/env python3
"""The fleet's failover, counted (`make failover-test`).

A PostgreSQL primary and its synchronous standby (scripts/postgres-pair.sh, made fresh), three `tvekit serve
--verifier-only` instances on loopback sharing one-time use through the multi-host URL of the pair, and clients
sending them tokens: unique tokens (first uses) and replays of tokens already answered VALID_TOKEN, each to any
instance. Mid-load the primary's host "crashes" (SIGKILL to the postmaster and all its processes), the standby is
promoted a moment later, and the load goes on. Then every token ever answered VALID_TOKEN is sent to every instance
once more.

It fails unless:
- no token is answered VALID_TOKEN twice (on any instance, before, during or after the failover, or in the sweep);
- no first use of a token is answered TOKEN_REPLAYED;
- every answer to a request sent after the crash and answered before its instance recovered is 503 (fail closed);
- every instance recovers (answers from the store again) within 10 s of the promotion, without a restart;
- in the sweep, every token once answered VALID_TOKEN is TOKEN_REPLAYED on every instance.

Usage (repository root): python3 scripts/failover-test.py [--tvekit PATH] [--seconds-before 3] [--gap 2]
[--seconds-after 6] [--json]. Bounded: the whole run takes about 30 s plus the pair's creation, and stops by itself.
"""

import argparse
import http.client
import json
import os
import random
import re
import subprocess
import sys
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PAIR = os.path.join(ROOT, "scripts", "postgres-pair.sh")
INSTANCES = 3
WORKERS = 6
RECOVERY_BOUND = 10.0
# Requests sent this soon after the crash may have reached the primary before it died.
CRASH_MARGIN = 0.2


def pair(*args):
    return subprocess.run([PAIR, *args], cwd=ROOT, check=True, capture_output=True, text=True, timeout=120).stdout.strip()


def issue_tokens(tvekit, count):
    """`count` unique tokens for requestor load-test, valid for ten minutes, issued by two processes."""
    command = [tvekit, "token", "issue", "--private-key", "TestVectors/fixtures/leaf.pkcs8.pem", "--requestor", "load-test",
               "--resource", "res", "--mvpd", "M", "--ttl", "600000", "--count", str(count // 2)]
    parts = [subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE, text=True) for _ in range(2)]
    tokens = []
    for part in parts:
        out, _ = part.communicate(timeout=300)
        if part.returncode != 0:
            sys.exit("error: tvekit token issue failed")
        tokens += out.split()
    return tokens


class Instance:
    """One `tvekit serve --verifier-only` process on the pair."""

    def __init__(self, tvekit, url, index, log_dir):
        self.index = index
        self.log_path = os.path.join(log_dir, f"serve-{index}.log")
        self.log = open(self.log_path, "w")
        env = dict(os.environ, PGPASSWORD="")
        self.process = subprocess.Popen(
            [tvekit, "serve", "--verifier-only", "--cert", "TestVectors/fixtures/leaf.cert.pem", "--requestor", "load-test",
             "--port", "0", "--threads", "1", "--replay-store", url + "?sslmode=disable"],
            cwd=ROOT, stdout=subprocess.DEVNULL, stderr=self.log, env=env)
        self.port = None
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and self.port is None:
            time.sleep(0.1)
            match = re.search(r"listening on http://127\.0\.0\.1:(\d+)", open(self.log_path).read())
            if match:
                self.port = int(match.group(1))
            if self.process.poll() is not None:
                break
        if self.port is None:
            self.stop()
            sys.exit(f"error: instance {index} did not start:\n" + open(self.log_path).read()[-2000:])

    def stop(self):
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.process.kill()
        self.log.close()


class Client:
    """Keep-alive connections to every instance (one thread's)."""

    def __init__(self, ports):
        self.ports = ports
        self.connections = {}

    def verify(self, instance, token):
        body = json.dumps({"token": token, "requestor": "load-test", "resource": "res"})
        for attempt in range(2):
            connection = self.connections.get(instance)
            if connection is None:
                connection = http.client.HTTPConnection("127.0.0.1", self.ports[instance], timeout=10)
                self.connections[instance] = connection
            try:
                connection.request("POST", "/verify", body, {"Content-Type": "application/json"})
                response = connection.getresponse()
                text = response.read().decode()
                result = json.loads(text).get("result") if response.status in (200, 401, 403, 409, 503) else None
                return response.status, result
            except (OSError, http.client.HTTPException, ValueError):
                connection.close()
                self.connections.pop(instance, None)
                if attempt == 1:
                    return 0, "CONNECTION_ERROR"
        return 0, "CONNECTION_ERROR"


class Record:
    """Every request and its answer: (token index, instance, first use?, sent, answered, status, result)."""

    def __init__(self):
        self.lock = threading.Lock()
        self.rows = []
        self.valid = []  # token indexes answered VALID_TOKEN, for replays

    def add(self, row):
        with self.lock:
            self.rows.append(row)
            if row[6] == "VALID_TOKEN":
                self.valid.append(row[0])

    def replay_candidate(self, rng):
        with self.lock:
            return rng.choice(self.valid) if self.valid else None


def load(tokens, ports, record, stop, next_token, worker):
    rng = random.Random(worker)
    client = Client(ports)
    while not stop.is_set():
        replay = rng.random() < 0.25 and (candidate := record.replay_candidate(rng)) is not None
        if replay:
            index, first = candidate, False
        else:
            with next_token["lock"]:
                index = next_token["value"]
                next_token["value"] += 1
            if index >= len(tokens):
                return
            first = True
        instance = rng.randrange(len(ports))
        sent = time.monotonic()
        status, result = client.verify(instance, tokens[index])
        record.add((index, instance, first, sent, time.monotonic(), status, result))
        time.sleep(0.002)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--tvekit", default=os.path.join(ROOT, ".build", "debug", "tvekit"))
    parser.add_argument("--seconds-before", type=float, default=3)
    parser.add_argument("--gap", type=float, default=2, help="seconds between the crash and the promotion")
    parser.add_argument("--seconds-after", type=float, default=6)
    parser.add_argument("--json", action="store_true")
    options = parser.parse_args()
    out = sys.stderr if options.json else sys.stdout
    log_dir = os.path.join(ROOT, ".build", "failover-test")
    os.makedirs(log_dir, exist_ok=True)

    print("== tokens", file=out, flush=True)
    tokens = issue_tokens(options.tvekit, 12000)
    print(f"{len(tokens)} unique tokens", file=out, flush=True)
    print("== a primary and its synchronous standby", file=out, flush=True)
    pair("destroy")
    instances = []
    try:
        url = pair("start")
        print(url, file=out, flush=True)
        print(pair("status"), file=out, flush=True)
        instances = [Instance(options.tvekit, url, index, log_dir) for index in range(INSTANCES)]
        ports = [instance.port for instance in instances]
        print(f"== {INSTANCES} instances on ports {ports}", file=out, flush=True)
        report = run(options, tokens, ports, out)
    finally:
        for instance in instances:
            instance.stop()
        pair("destroy")
    if options.json:
        print(json.dumps(report, indent=2))
    else:
        print(json.dumps(report["counts"], indent=2))
    if report["failures"]:
        print("FAILED:\n- " + "\n- ".join(report["failures"]), file=sys.stderr)
        print(f"(the instances' logs: {log_dir})", file=sys.stderr)
        sys.exit(1)
    print("failover test passed", file=out)


def run(options, tokens, ports, out):
    record, stop = Record(), threading.Event()
    next_token = {"lock": threading.Lock(), "value": 0}
    # Every instance answers before the load starts (the store has found the primary and made its table).
    client = Client(ports)
    for instance in range(len(ports)):
        deadline = time.monotonic() + 30
        while True:
            with next_token["lock"]:
                index = next_token["value"]
                next_token["value"] += 1
            sent = time.monotonic()
            status, result = client.verify(instance, tokens[index])
            record.add((index, instance, True, sent, time.monotonic(), status, result))
            if result == "VALID_TOKEN":
                break
            if time.monotonic() > deadline:
                sys.exit(f"error: instance {instance} never answered VALID_TOKEN ({status} {result})")
            time.sleep(0.2)
    workers = [threading.Thread(target=load, args=(tokens, ports, record, stop, next_token, worker)) for worker in range(WORKERS)]
    started = time.monotonic()
    for worker in workers:
        worker.start()
    time.sleep(options.seconds_before)
    print("== crash: " + pair("kill-primary"), file=out, flush=True)
    crashed = time.monotonic()
    time.sleep(options.gap)
    print("== promote: " + pair("promote"), file=out, flush=True)
    promoted = time.monotonic()
    time.sleep(options.seconds_after)
    stop.set()
    for worker in workers:
        worker.join(timeout=30)
    ended = time.monotonic()

    print("== sweep: every token answered VALID_TOKEN, to every instance", file=out, flush=True)
    sweep_valid = sorted({row[0] for row in record.rows if row[6] == "VALID_TOKEN"})
    sweep = []
    for index in sweep_valid:
        for instance in range(len(ports)):
            sent = time.monotonic()
            status, result = client.verify(instance, tokens[index])
            sweep.append((index, instance, False, sent, time.monotonic(), status, result))
    return judge(record.rows, sweep, started, crashed, promoted, ended, len(ports))


def judge(rows, sweep, started, crashed, promoted, ended, instances):
    failures = []
    valid_count = {}
    for row in rows + sweep:
        if row[6] == "VALID_TOKEN":
            valid_count[row[0]] = valid_count.get(row[0], 0) + 1
    twice = sorted(index for index, count in valid_count.items() if count > 1)
    if twice:
        failures.append(f"{len(twice)} tokens answered VALID_TOKEN more than once (token indexes {twice[:10]})")
    first_refused = [row for row in rows if row[2] and row[6] == "TOKEN_REPLAYED"]
    if first_refused:
        failures.append(f"{len(first_refused)} first uses answered TOKEN_REPLAYED")
    # Recovery: each instance's first answer from the store (VALID_TOKEN or TOKEN_REPLAYED) to a request sent after the
    # promotion.
    recovered = {}
    for row in sorted(rows, key=lambda r: r[4]):
        if row[5] == 200 and row[3] >= promoted and row[1] not in recovered:
            recovered[row[1]] = row[4]
    for instance in range(instances):
        if instance not in recovered:
            failures.append(f"instance {instance} never answered from the store after the promotion")
        elif recovered[instance] - promoted >= RECOVERY_BOUND:
            failures.append(f"instance {instance} took {recovered[instance] - promoted:.2f} s to recover (bound {RECOVERY_BOUND} s)")
    gap = [row for row in rows if row[3] >= crashed + CRASH_MARGIN and row[4] < recovered.get(row[1], ended)]
    not_closed = [row for row in gap if row[5] != 503]
    if not_closed:
        kinds = sorted({f"{row[5]} {row[6]}" for row in not_closed})
        failures.append(f"{len(not_closed)} answers in the gap were not 503 ({kinds})")
    in_sweep = [row for row in sweep if row[6] != "TOKEN_REPLAYED"]
    if in_sweep:
        kinds = sorted({f"{row[5]} {row[6]}" for row in in_sweep})
        failures.append(f"{len(in_sweep)} answers of the sweep were not TOKEN_REPLAYED ({kinds})")
    errors = [row for row in rows if row[5] == 0]
    if errors:
        failures.append(f"{len(errors)} requests got no HTTP answer")

    def phase(row):
        if row[3] < crashed:
            return "before"
        return "gap" if row[4] < recovered.get(row[1], ended) else "after"

    counts = {"requests": len(rows), "sweepRequests": len(sweep), "tokensAnsweredValid": len(valid_count),
              "tokensAnsweredValidTwice": len(twice), "firstUsesAnsweredReplayed": len(first_refused),
              "gapAnswersNot503": len(not_closed), "sweepAnswersNotReplayed": len(in_sweep),
              "secondsFromCrashToPromotion": round(promoted - crashed, 3),
              "secondsFromPromotionToRecovery": {str(i): round(recovered[i] - promoted, 3) for i in sorted(recovered)},
              "recoveryBoundSeconds": RECOVERY_BOUND, "byPhase": {}}
    for row in rows:
        key = f"{phase(row)} {'first use' if row[2] else 'replay'}"
        answer = row[6] if row[6] else str(row[5])
        counts["byPhase"].setdefault(key, {}).setdefault(f"{row[5]} {answer}", 0)
        counts["byPhase"][key][f"{row[5]} {answer}"] += 1
    return {"counts": counts, "failures": failures, "seconds": round(ended - started, 1)}


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""The fleet benchmark's report, run.sh's last step: every figure, the ratios, and issue 31's goals with PASS or MISS
beside each, as tables or (--json) as one JSON object.

Usage: report.py RESULTS SPEED [--json]. RESULTS holds one JSON object a line, one per run (peers.sh's `load` and
`pgbench_run`); SPEED is in-process `tvekit speed token-verify`, verifications per second on one core. A run that did
not take place (FLEET_ONLY=http) leaves its figures out and its ratios null."""

import json
import re
import sys

# Issue 31's goals: (ratio, comparison, target).
GOALS = [
    ("postgresSingleToMemorySingle", ">=", 0.6),
    ("postgresSingleP99Milliseconds", "<", 5.0),
    ("memoryBatch64ToInProcess", ">=", 0.9),
    ("postgresBatch64ToInProcess", ">=", 0.8),
    ("healthToNginx", "<=", 1.2),
    ("verifyServerCostToNginx", "<=", 1.5),
]
FLEET = ["memory-single", "memory-batch64", "postgres-single", "postgres-batch64"]
HTTP = ["nginx-get", "nio-floor-get", "memory-health", "memory-single"]
# The runs whose CPU per request is compared: each must load its process fully, since a process that is not saturated
# handles fewer requests per wake-up and reads dearer per request (nginx at 0.73 cores read 9.4 µs where it reads
# 7.3–7.7 µs at full load). Below this share of a core, the report warns that the ratios built on it are not sound.
SATURATED_CORES = 0.9
PGBENCH = {"pgbench-single": "postgres-single", "pgbench-batch64": "postgres-batch64"}


def milliseconds(text):
    """wrk's latency ("812.00us", "3.39ms", "1.02s") in milliseconds."""
    m = re.match(r"([0-9.]+)(us|ms|s)$", text or "")
    return None if not m else round(float(m.group(1)) * {"us": 0.001, "ms": 1, "s": 1000}[m.group(2)], 3)


def ratio(a, b):
    return round(a / b, 3) if a is not None and b else None


def figures_of(rows):
    figures = {}
    for row in rows:
        f = {k: v for k, v in row.items() if k not in ("run", "p99")}
        f["p99Milliseconds"] = milliseconds(row.get("p99"))
        if row["batch"]:  # tokens (or, for pgbench, keys) per request
            f["tokensPerSecond"] = round(row["requestsPerSecond"] * row["batch"])
        if "coresUsed" in row and row["batch"]:  # the server has one core: per core it used
            f["tokensPerSecondPerCoreUsed"] = round(f["tokensPerSecond"] / min(max(row["coresUsed"], 0.01), 1.0))
        figures[row["run"]] = f
    return figures


def report_of(figures, speed):
    def get(run, key):
        return figures.get(run, {}).get(key)

    in_process_us = 1e6 / speed  # in-process time per token, µs
    verify_us = get("memory-single", "cpuMicrosecondsPerRequest")
    ratios = {
        "postgresSingleToMemorySingle": ratio(get("postgres-single", "tokensPerSecond"), get("memory-single", "tokensPerSecond")),
        "memorySingleToInProcess": ratio(get("memory-single", "tokensPerSecondPerCoreUsed"), speed),
        "memoryBatch64ToInProcess": ratio(get("memory-batch64", "tokensPerSecondPerCoreUsed"), speed),
        "postgresBatch64ToInProcess": ratio(get("postgres-batch64", "tokensPerSecondPerCoreUsed"), speed),
        # CPU per request of the server's cheapest route, and of a verification less the verification itself, each
        # beside nginx's CPU per request: what serving HTTP costs the server.
        "healthToNginx": ratio(get("memory-health", "cpuMicrosecondsPerRequest"), get("nginx-get", "cpuMicrosecondsPerRequest")),
        "verifyServerCostToNginx": ratio(
            None if verify_us is None else verify_us - in_process_us, get("nginx-get", "cpuMicrosecondsPerRequest")
        ),
        # The same beside the NIO floor: what SwiftNIO itself costs against nginx, and what the server adds above it.
        "nioFloorToNginx": ratio(get("nio-floor-get", "cpuMicrosecondsPerRequest"), get("nginx-get", "cpuMicrosecondsPerRequest")),
        "healthToNioFloor": ratio(get("memory-health", "cpuMicrosecondsPerRequest"), get("nio-floor-get", "cpuMicrosecondsPerRequest")),
        "verifyServerCostToNioFloor": ratio(
            None if verify_us is None else verify_us - in_process_us, get("nio-floor-get", "cpuMicrosecondsPerRequest")
        ),
        # The fleet beside pgbench running the store's statement (the PostgreSQL limit). The store shares one statement
        # among the concurrent requests, so single tokens may pass pgbench's one key per transaction.
        "postgresSingleToPgbenchSingle": ratio(get("postgres-single", "tokensPerSecond"), get("pgbench-single", "tokensPerSecond")),
        "postgresBatch64ToPgbenchBatch64": ratio(get("postgres-batch64", "tokensPerSecond"), get("pgbench-batch64", "tokensPerSecond")),
        "postgresSingleP99Milliseconds": get("postgres-single", "p99Milliseconds"),
    }
    goals = {}
    for name, op, target in GOALS:
        value = ratios[name]
        met = None if value is None else {">=": value >= target, "<=": value <= target, "<": value < target}[op]
        goals[name] = {"goal": f"{op} {target}", "value": value, "status": None if met is None else ("PASS" if met else "MISS")}
    unsaturated = [
        run for run in ("nginx-get", "nio-floor-get", "memory-health") if 0 < (get(run, "coresUsed") or 1) < SATURATED_CORES
    ]
    return {
        "unsaturatedRuns": unsaturated,
        "inProcessTokenVerifyPerSecond": speed,
        "inProcessMicrosecondsPerToken": round(in_process_us, 3),
        "figures": figures,
        "ratios": ratios,
        "goals": goals,
    }


def print_tables(report):
    figures, ratios, speed = report["figures"], report["ratios"], report["inProcessTokenVerifyPerSecond"]

    def num(value, width, digits=2):
        return f"{value:>{width}.{digits}f}" if value is not None else f"{'-':>{width}}"

    print("\nthe fleet (server on CPU 0, one event loop)")
    print(f"{'run':<20} {'tokens/s':>10} {'cores':>6} {'per core':>9} {'p99 ms':>8}")
    print(f"{'in-process verify':<20} {speed:>10.0f} {1:>6.2f} {speed:>9.0f}")
    for run in (r for r in FLEET if r in figures):
        f = figures[run]
        print(f"{run:<20} {f['tokensPerSecond']:>10} {f['coresUsed']:>6.2f} {f['tokensPerSecondPerCoreUsed']:>9} "
              f"{num(f['p99Milliseconds'], 8)}")

    print("\nthe HTTP peers (nginx, and the NIO floor, each on CPU 0, one process): CPU per request")
    print(f"{'run':<20} {'requests/s':>10} {'cores':>6} {'CPU µs':>9}")
    for run in (r for r in HTTP if r in figures):
        f = figures[run]
        print(f"{run:<20} {f['requestsPerSecond']:>10.0f} {f['coresUsed']:>6.2f} {f['cpuMicrosecondsPerRequest']:>9.2f}")
    in_process = report["inProcessMicrosecondsPerToken"]
    print(f"{'in-process verify':<20} {'':>10} {'':>6} {in_process:>9.2f}")
    if "memory-single" in figures:
        serving = figures["memory-single"]["cpuMicrosecondsPerRequest"] - in_process
        print(f"{'memory-single less in-process verify':<38} {serving:>9.2f}")

    if any(run in figures for run in PGBENCH):
        print("\nthe PostgreSQL limit (pgbench: the store's statement, 16 clients, -M prepared, CPU 1)")
        print(f"{'run':<20} {'keys/s':>10} {'avg ms':>8} {'p99 ms':>8}   beside the fleet: tokens/s, p99 ms")
        for run, fleet in PGBENCH.items():
            f, g = figures.get(run), figures.get(fleet, {})
            if f:
                print(f"{run:<20} {f['tokensPerSecond']:>10} {f['averageMilliseconds']:>8.2f} {num(f['p99Milliseconds'], 8)}"
                      f"   {fleet} {g.get('tokensPerSecond', '-')}, {num(g.get('p99Milliseconds'), 0)}")

    print("\nratios and goals (issue 31)")
    for name in [goal[0] for goal in GOALS] + [name for name in ratios if name not in report["goals"]]:
        value = ratios[name]
        goal = report["goals"].get(name)
        mark = f"goal {goal['goal']:<7} {goal['status'] or '-'}" if goal else "(no goal)"
        print(f"{name:<32} {num(value, 8, 3)}   {mark}")
    for run in report["unsaturatedRuns"]:
        cores = report["figures"][run]["coresUsed"]
        print(f"warning: {run} used {cores:.2f} of its core (under {SATURATED_CORES}): wrk did not load it fully, so its "
              "CPU per request reads high and the HTTP ratios built on it are not sound; run again")


def main():
    path, speed = sys.argv[1], float(sys.argv[2])
    with open(path) as results:
        figures = figures_of(json.loads(line) for line in results if line.strip())
    report = report_of(figures, speed)
    if "--json" in sys.argv[3:]:
        print(json.dumps(report, indent=2))
    else:
        print_tables(report)


if __name__ == "__main__":
    main()

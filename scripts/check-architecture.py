#!/usr/bin/env python3
"""Checks that the module graph in ARCHITECTURE.md is the one in Package.swift (run by `make lint`)."""
import json
import re
import subprocess
import sys
from pathlib import Path

root = Path(__file__).resolve().parent.parent
text = (root / "ARCHITECTURE.md").read_text()
block = re.search(r"## Module graph.*?```text\n(.*?)```", text, re.S)
if not block:
    sys.exit("ARCHITECTURE.md: no ```text block under '## Module graph'")
documented = {}
for line in block.group(1).splitlines():
    if "->" not in line:
        continue
    name, _, deps = line.partition("->")
    deps = deps.strip()
    documented[name.strip()] = set() if deps.startswith("(") or not deps else {d.strip() for d in deps.split(",")}

dump = json.loads(subprocess.run(["swift", "package", "dump-package"], cwd=root, check=True, capture_output=True, text=True).stdout)
actual = {}
for target in dump["targets"]:
    if target["type"] == "test":
        continue
    deps = set()
    for dependency in target.get("dependencies", []):
        for kind in ("byName", "product", "target"):
            if kind in dependency:
                deps.add(dependency[kind][0])
    actual[target["name"]] = deps

problems = []
for name in sorted(set(documented) | set(actual)):
    if name not in actual:
        problems.append(f"{name}: in ARCHITECTURE.md but not a target of Package.swift")
    elif name not in documented:
        problems.append(f"{name}: a target of Package.swift missing from ARCHITECTURE.md")
    elif documented[name] != actual[name]:
        problems.append(f"{name}: ARCHITECTURE.md says {sorted(documented[name])}, Package.swift says {sorted(actual[name])}")
if problems:
    print("ARCHITECTURE.md does not match Package.swift:", *problems, sep="\n  ")
    sys.exit(1)
print(f"ARCHITECTURE.md matches Package.swift ({len(actual)} targets)")

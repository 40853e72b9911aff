#!/usr/bin/env python3
"""Checks the folders of TVEAccessEnabler against ARCHITECTURE.md (run by `make lint`).

Each folder of the module is a layer. ARCHITECTURE.md lists them under '## TVEAccessEnabler's folders' as
`Folder/ -> Other/, ...`: the folders whose types its files may name. A type belongs to the folder of the file that
declares it (a type nested in `extension AsyncAccessEnabler`, such as `AsyncAccessEnabler.Configuration`, to the folder
of that extension's file). A file that names a type of a folder it may not use, a Swift file outside the listed
folders, or a listed folder that does not exist fails the check.
"""
import re
import sys
from pathlib import Path

root = Path(__file__).resolve().parent.parent
module = root / "Sources" / "TVEAccessEnabler"
text = (root / "ARCHITECTURE.md").read_text()
block = re.search(r"## TVEAccessEnabler's folders.*?```text\n(.*?)```", text, re.S)
if not block:
    sys.exit("ARCHITECTURE.md: no ```text block under '## TVEAccessEnabler's folders'")
allowed = {}
for line in block.group(1).splitlines():
    if "->" not in line:
        continue
    name, _, deps = line.partition("->")
    deps = deps.strip()
    allowed[name.strip().rstrip("/")] = set() if deps.startswith("(") or not deps else {d.strip().rstrip("/") for d in deps.split(",")}

MODIFIERS = r"(?:(?:public|package|internal|private|fileprivate|final|nonisolated|indirect)\s+)*"
TOP = re.compile(r"^" + MODIFIERS + r"(?:actor|class|struct|enum|protocol|typealias)\s+(\w+)", re.M)
NESTED = re.compile(r"^    " + MODIFIERS + r"(?:struct|enum|class|typealias|static let|static var|static func)\s+(\w+)", re.M)

problems = []
owner = {}
files = []
for path in sorted(module.rglob("*.swift")):
    parts = path.relative_to(module).parts
    if len(parts) < 2 or parts[0] not in allowed:
        problems.append(f"{path.relative_to(root)}: not in a folder listed in ARCHITECTURE.md")
        continue
    source = path.read_text()
    files.append((path, parts[0], source))
    for match in TOP.finditer(source):
        owner[match.group(1)] = parts[0]
    if re.search(r"^extension AsyncAccessEnabler \{", source, re.M):
        for match in NESTED.finditer(source):
            owner["AsyncAccessEnabler." + match.group(1)] = parts[0]
for folder in allowed:
    if not (module / folder).is_dir():
        problems.append(f"{folder}/: listed in ARCHITECTURE.md but not a folder of Sources/TVEAccessEnabler")

for path, folder, source in files:
    code = re.sub(r"//.*", "", source)  # comments name types freely
    code = re.sub(r'"(?:\\.|[^"\\\n])*"', '""', code)
    code = re.sub(r"^extension AsyncAccessEnabler\b", "", code, flags=re.M)
    named = set()
    for match in re.finditer(r"\bAsyncAccessEnabler\.(\w+)", code):
        named.add("AsyncAccessEnabler." + match.group(1) if "AsyncAccessEnabler." + match.group(1) in owner else "AsyncAccessEnabler")
    code = re.sub(r"\bAsyncAccessEnabler\.\w+", "", code)
    named |= {name for name in re.findall(r"\b[A-Z]\w*\b", code) if name in owner}
    for name in sorted(named):
        home = owner[name]
        if home != folder and home not in allowed[folder]:
            problems.append(f"{path.relative_to(root)}: names {name} ({home}/), which {folder}/ may not use")

if problems:
    print("TVEAccessEnabler's folders do not follow ARCHITECTURE.md:", *problems, sep="\n  ")
    sys.exit(1)
print(f"TVEAccessEnabler's folders follow ARCHITECTURE.md ({len(allowed)} folders, {len(files)} files)")

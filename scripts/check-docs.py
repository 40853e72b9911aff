#!/usr/bin/env python3
"""Checks that every public declaration of TVEKit's library products has a documentation comment.

Reads the symbol graphs that `swift package dump-symbol-graph` writes (one per module, plus one per module it extends)
and lists, per module, the public symbols declared in this repository's Sources/ without a doc comment. Exit status 1
when there is any, 0 otherwise. Code that swift-openapi-generator writes (Sources/*/Generated/) is left out: its
documentation is the OpenAPI contract's descriptions, which the generator copies where the contract has them.

Usage: python3 scripts/check-docs.py SYMBOL_GRAPH_DIR MODULE [MODULE ...]
"""
import json
import os
import sys

# Declarations that need no comment of their own: extension blocks (their members carry the documentation).
SKIPPED_KINDS = {"swift.extension"}


def documented(symbol):
    lines = (symbol.get("docComment") or {}).get("lines") or []
    return any(line.get("text", "").strip() for line in lines)


def main(arguments):
    if len(arguments) < 2:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    directory, modules = arguments[0], arguments[1:]
    sources = os.path.realpath(os.path.join(os.path.dirname(__file__), "..", "Sources")) + os.sep
    missing = {}
    counted = 0
    for module in modules:
        files = [name for name in os.listdir(directory)
                 if name == f"{module}.symbols.json" or name.startswith(f"{module}@")]
        if f"{module}.symbols.json" not in files:
            print(f"error: no symbol graph for {module} in {directory}", file=sys.stderr)
            return 2
        seen = set()
        for name in sorted(files):
            with open(os.path.join(directory, name), encoding="utf-8") as handle:
                graph = json.load(handle)
            for symbol in graph.get("symbols", []):
                if symbol.get("accessLevel") not in ("public", "open"):
                    continue
                if symbol.get("kind", {}).get("identifier") in SKIPPED_KINDS:
                    continue
                uri = (symbol.get("location") or {}).get("uri", "")
                path = uri[len("file://"):] if uri.startswith("file://") else uri
                if not os.path.realpath(path).startswith(sources):
                    continue  # synthesized, or declared outside this repository
                if "/Generated/" in path:
                    continue  # swift-openapi-generator's output
                precise = symbol.get("identifier", {}).get("precise")
                if precise in seen:
                    continue
                seen.add(precise)
                counted += 1
                if not documented(symbol):
                    line = (symbol.get("location") or {}).get("position", {}).get("line", 0) + 1
                    title = ".".join(symbol.get("pathComponents", [])) or symbol.get("names", {}).get("title", "?")
                    where = os.path.relpath(os.path.realpath(path), os.path.dirname(sources.rstrip(os.sep)))
                    missing.setdefault(module, []).append(f"{where}:{line}: {title}")
    if missing:
        total = sum(len(entries) for entries in missing.values())
        print(f"{total} of {counted} public declarations have no documentation comment:")
        for module in modules:
            for entry in sorted(missing.get(module, [])):
                print(f"  {entry}")
        return 1
    print(f"every public declaration is documented ({counted} in {len(modules)} modules)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

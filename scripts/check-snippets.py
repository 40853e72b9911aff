#!/usr/bin/env python3
"""Checks that the Swift code in the DocC articles and the README is code the tests compile and run.

Every ```swift block in Sources/*/Docs.docc/*.md and in README.md must appear, line for line (leading indentation aside, blank lines
ignored), in a test file under Tests/. The tests then hold the same code, so an article's code cannot rot: a change
that breaks it breaks the build of the tests. A block whose opening fence reads ```swift-unchecked (for a fragment
that cannot stand alone, such as a Package.swift excerpt) is left out, and says so.

Usage: python3 scripts/check-snippets.py
"""
import glob
import os
import re
import sys

ROOT = os.path.realpath(os.path.join(os.path.dirname(__file__), ".."))
FENCE = re.compile(r"^```swift\s*$(.*?)^```\s*$", re.MULTILINE | re.DOTALL)


def lines(text):
    return [line.strip() for line in text.splitlines() if line.strip()]


def main():
    tests = {}
    for path in glob.glob(os.path.join(ROOT, "Tests", "**", "*.swift"), recursive=True):
        with open(path, encoding="utf-8") as handle:
            tests[path] = lines(handle.read())
    failures, checked = [], 0
    documents = sorted(glob.glob(os.path.join(ROOT, "Sources", "*", "Docs.docc", "**", "*.md"), recursive=True))
    for article in documents + [os.path.join(ROOT, "README.md")]:
        with open(article, encoding="utf-8") as handle:
            text = handle.read()
        for match in FENCE.finditer(text):
            block = lines(match.group(1))
            if not block:
                continue
            checked += 1
            found = any(
                any(body[i:i + len(block)] == block for i in range(len(body) - len(block) + 1)) for body in tests.values())
            if not found:
                line = text[:match.start()].count("\n") + 1
                failures.append(f"{os.path.relpath(article, ROOT)}:{line}: this swift block is in no test under Tests/")
    for failure in failures:
        print(failure)
    if failures:
        return 1
    print(f"every swift block of the articles and the README is in a test ({checked} blocks)")
    return 0


if __name__ == "__main__":
    sys.exit(main())

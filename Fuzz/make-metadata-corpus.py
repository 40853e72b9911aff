#!/usr/bin/env python3
"""Writes the seed corpus of the FuzzMetadata fuzzer from the user-metadata vectors.

Each vector's document text (up to 20,000 bytes; the size-limit cases are left out) becomes one file named by the
first 16 hex digits of its SHA-256, and so does each encrypted value on its own (the fuzz body also reads an input
as one value). Standard library only:  python3 Fuzz/make-metadata-corpus.py
"""
import hashlib
import json
import pathlib

root = pathlib.Path(__file__).resolve().parent.parent
vectors = json.loads((root / "TestVectors/user-metadata/user_metadata_test.json").read_text())
out = root / "Fuzz/Corpus/FuzzMetadata"
out.mkdir(parents=True, exist_ok=True)

seeds = set()
for case in vectors["tests"]:
    if "document" in case:
        document = case["document"]
        seeds.add(json.dumps(document, separators=(",", ":")).encode())
        if isinstance(document, dict):
            values = list((document.get("data") or {}).values()) if isinstance(document.get("data"), dict) else []
            attributes = document.get("attributes")
            if isinstance(attributes, dict):
                values += [a.get("value") for a in attributes.values() if isinstance(a, dict)]
            seeds.update(v.encode() for v in values if isinstance(v, str) and len(v) > 20)
    elif "documentText" in case:
        seeds.add(case["documentText"].encode())

written = 0
for seed in sorted(seeds):
    if len(seed) <= 20000:
        (out / hashlib.sha256(seed).hexdigest()[:16]).write_bytes(seed)
        written += 1
print(f"wrote {written} seeds to {out.relative_to(root)}")

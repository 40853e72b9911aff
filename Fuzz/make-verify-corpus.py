#!/usr/bin/env python3
"""Seeds Fuzz/Corpus/FuzzVerifyReader: POST /verify bodies of every shape the reader knows, the usual and the odd.

Each token is a Base64 media token from Fuzz/Corpus/FuzzMediaToken (or a short stand-in). Run from the repository root.
"""
import base64, json, os, pathlib

root = pathlib.Path(__file__).resolve().parent
out = root / "Corpus" / "FuzzVerifyReader"
out.mkdir(parents=True, exist_ok=True)
tokens = []
for path in sorted((root / "Corpus" / "FuzzMediaToken").iterdir())[:4]:
    data = path.read_bytes()
    tokens.append(data.decode("ascii") if data.isascii() and not data.startswith(b"<") else base64.b64encode(data).decode())
tokens = tokens or ["PHNpZ25hdHVyZUluZm8+"]
t = tokens[0]

def obj(token=t, requestor="tvekit-fuzz", resource=None, extra=None):
    o = {"token": token, "requestor": requestor}
    if resource is not None:
        o["resource"] = resource
    if extra:
        o.update(extra)
    return json.dumps(o, separators=(",", ":"))

bodies = {
    "single": obj(),
    "single-resource": obj(resource="news"),
    "single-null-resource": '{"token":"%s","requestor":"tvekit-fuzz","resource":null}' % t,
    "single-reordered": '{ "resource" : "news" , "requestor" : "other" , "token" : "%s" }' % t,
    "single-unknown-requestor": obj(requestor="nobody"),
    "array": "[" + ",".join(obj(token=x, resource="news") for x in tokens) + "]",
    "array-spaces": "[ \n" + " ,\n ".join(obj(token=x) for x in tokens) + " \n]",
    "array-mixed": "[" + obj() + ',{"token":5},"x",null,' + obj(resource="a") + "]",
    "array-empty": "[]",
    "lines": "\n".join(obj(token=x) for x in tokens) + "\n",
    "lines-blank": obj() + "\r\n\r\n \t\n" + obj(resource="news") + "\n",
    "lines-spanning": '{"token":"%s",\n"requestor":"tvekit-fuzz"}\n%s' % (t, obj()),
    "lines-same-line": obj() + " " + obj(),
    "escaped-token": '{"token":"%s\\/x","requestor":"tvekit-fuzz"}' % t,
    "escaped-key": '{"tok\\u0065n":"%s","requestor":"tvekit-fuzz"}' % t,
    "duplicate-key": '{"token":"a","token":"b","requestor":"tvekit-fuzz"}',
    "extra-key": obj(extra={"x": [1, {"y": None}]}),
    "resource-number": '{"token":"a","requestor":"tvekit-fuzz","resource":5}',
    "non-ascii": '{"token":"é","requestor":"tvekit-fuzz"}',
    "bom": "\ufeff" + obj(),
    "deep": "[" * 70 + "]" * 70,
    "trailing-comma": "[" + obj() + ",]",
    "garbage-after": obj() + "x",
    "over-limit": "[" + ",".join(obj(token="a") for _ in range(3)) + "]",
}
for name, text in bodies.items():
    (out / name).write_bytes(text.encode("utf-8"))
print(f"wrote {len(bodies)} inputs to {out}")

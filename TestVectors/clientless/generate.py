#!/usr/bin/env python3
"""Generates TestVectors/clientless/clientless_test.json, the clientless HMAC-SHA1 Authorization header test
vectors (FORMATS.md §4).

Run from the repository root (see README.md beside this script); it needs only the Python 3 standard library:

    python3 TestVectors/clientless/generate.py

Everything is deterministic (nonces come from SHA-256 of a label), so every run writes a byte-identical file.
The public keys and secrets are made-up test values, not anyone's credentials.

Self-checks before anything is written: every HMAC is computed with the `hmac` module and again from RFC 2104's
definition on `hashlib` (which must agree; both are first checked on RFC 2202's test vector); every signing case
is run back through the reference verifier (must be valid); every verify case goes through the reference
verifier (the rules in README.md) and must give exactly the expected result; ids are 1..N.
"""

import base64
import hashlib
import hmac
import json
import os
import platform
import re

HERE = os.path.dirname(os.path.abspath(__file__))
OUT_PATH = os.path.join(HERE, "clientless_test.json")

VALID, INVALID, MALFORMED = "valid", "invalid", "malformed"
FIELDS = ["requestor_id", "nonce", "signature_method", "request_time", "request_uri", "public_key", "signature"]
INT64_MAX = 2**63 - 1

# Made-up credentials in the shape the tvOS SDK uses (32-character public key, 16-character secret).
PUBLIC_KEY = "TVEKitTestPublicKey0000000000001"
SECRET = "TVEKitTestSecret"
OTHER_PUBLIC_KEY = "TVEKitTestPublicKey0000000000002"
OTHER_SECRET = "TVEKitOtherSecrt"
RID = "nbcentertainment"
T0 = 1767225600000            # 2026-01-01T00:00:00Z in ms


def nonce(label):
    """A deterministic lower-case UUID (version 4 layout) from a label."""
    h = bytearray(hashlib.sha256(b"tvekit clientless nonce/" + label.encode()).digest()[:16])
    h[6] = (h[6] & 0x0F) | 0x40
    h[8] = (h[8] & 0x3F) | 0x80
    x = h.hex()
    return f"{x[:8]}-{x[8:12]}-{x[12:16]}-{x[16:20]}-{x[20:]}"


# ---------------------------------------------------------------------------------------------
# HMAC, twice
# ---------------------------------------------------------------------------------------------


def hmac_rfc2104(key, data, h=hashlib.sha1):
    block = h().block_size
    if len(key) > block:
        key = h(key).digest()
    key = key.ljust(block, b"\x00")
    inner = h(bytes(k ^ 0x36 for k in key) + data).digest()
    return h(bytes(k ^ 0x5C for k in key) + inner).digest()


def mac(secret, message, digest="sha1"):
    a = hmac.new(secret.encode("utf-8"), message.encode("utf-8"), digest).digest()
    b = hmac_rfc2104(secret.encode("utf-8"), message.encode("utf-8"), getattr(hashlib, digest))
    assert a == b
    return a


assert hmac.new(b"Jefe", b"what do ya want for nothing?", "sha1").hexdigest() == "effcdf6ae5eb2fa2d27416d5f184df9c259a7c79"
assert hmac_rfc2104(b"Jefe", b"what do ya want for nothing?").hex() == "effcdf6ae5eb2fa2d27416d5f184df9c259a7c79"
assert hmac_rfc2104(b"\xaa" * 80, b"Test Using Larger Than Block-Size Key - Hash Key First").hex() == \
    "aa4ae5e15272d00e95705637ce8a3b55ed402112"


def b64(data):
    return base64.b64encode(data).decode("ascii")


def message(method, rid, nonce_, time_, uri, signature_method="HMAC-SHA1"):
    return f"{method} requestor_id={rid}, nonce={nonce_}, signature_method={signature_method}, request_time={time_}, request_uri={uri}"


def header(msg, public_key, signature):
    return f"{msg}, public_key={public_key}, signature={signature}"


def signed_header(method="GET", rid=RID, nonce_=None, time_=T0, uri="/api/v1/authorize", public_key=PUBLIC_KEY, secret=SECRET,
                  signature_method="HMAC-SHA1", digest="sha1"):
    msg = message(method, rid, nonce_ or nonce("default"), time_, uri, signature_method)
    return header(msg, public_key, b64(mac(secret, msg, digest)))


# ---------------------------------------------------------------------------------------------
# Reference verifier (the rules in README.md)
# ---------------------------------------------------------------------------------------------


def reference(header_text, public_key, secret):
    parts = header_text.split(", ")
    if len(parts) != len(FIELDS):
        return MALFORMED
    method, sep, first = parts[0].partition(" ")
    if not sep or not re.fullmatch(r"[A-Z]+", method):
        return MALFORMED
    parts[0] = first
    values = []
    for name, part in zip(FIELDS, parts):
        if not part.startswith(name + "="):
            return MALFORMED
        value = part[len(name) + 1:]
        if value == "" or re.search(r"[\x00-\x1f\x7f]", value):
            return MALFORMED
        values.append(value)
    rid, nonce_, sig_method, time_, uri, pk, sig = values
    if sig_method != "HMAC-SHA1":
        return MALFORMED
    if not re.fullmatch(r"[0-9]{1,18}", time_) or int(time_) > INT64_MAX:
        return MALFORMED
    if pk != public_key:
        return INVALID
    signed = header_text[:header_text.index(", public_key=")]
    expected = b64(mac(secret, signed))
    return VALID if hmac.compare_digest(expected, sig) else INVALID


# ---------------------------------------------------------------------------------------------
# Cases
# ---------------------------------------------------------------------------------------------

TESTS = []


def sign_case(cls, comment, method, rid, nonce_, time_, uri, public_key=PUBLIC_KEY, secret=SECRET):
    msg = message(method, rid, nonce_, time_, uri)
    sig = b64(mac(secret, msg))
    hdr = header(msg, public_key, sig)
    assert reference(hdr, public_key, secret) == VALID
    TESTS.append({"id": len(TESTS) + 1, "class": cls, "comment": comment, "kind": "sign", "method": method, "requestorID": rid,
                  "nonce": nonce_, "requestTime": time_, "requestURI": uri, "publicKey": public_key, "secret": secret,
                  "expectedMessage": msg, "expectedHeader": hdr})
    return hdr


def verify_case(cls, comment, hdr, result, public_key=PUBLIC_KEY, secret=SECRET):
    got = reference(hdr, public_key, secret)
    assert got == result, f"case {len(TESTS) + 1} ({cls}: {comment}): reference gives {got}"
    TESTS.append({"id": len(TESTS) + 1, "class": cls, "comment": comment, "kind": "verify", "header": hdr, "publicKey": public_key,
                  "secret": secret, "result": result})


def cases():
    signed = []
    for method, uri, what in [("POST", "/regcode", "registration code (peers' first call)"),
                              ("GET", "/api/v1/authenticate", "authenticate"),
                              ("GET", "/api/v1/authorize", "authorize"),
                              ("GET", "/api/v1/tokens/media", "short media token"),
                              ("GET", "/api/v1/tokens/usermetadata", "user metadata"),
                              ("DELETE", "/api/v1/logout", "logout"),
                              ("PUT", "/api/v1/tokens/authn", "PUT")]:
        signed.append(sign_case("sign/method", "%s %s: %s" % (method, uri, what), method, RID, nonce(uri + method), T0, uri))
    signed.append(sign_case("sign/request-uri", "a path with the requestor in it", "POST", RID, nonce("reggie"), T0,
                            "/reggie/v1/nbcentertainment/regcode"))
    signed.append(sign_case("sign/request-uri", "a path with a query string (& and = are ordinary characters)", "GET", RID, nonce("query"), T0,
                            "/api/v1/authorize?requestor=nbcentertainment&resource=nbc&deviceId=abc%2F1"))
    signed.append(sign_case("sign/request-time", "request_time 0", "GET", RID, nonce("t0"), 0, "/api/v1/checkauthn"))
    signed.append(sign_case("sign/request-time", "a 10-digit request_time (a time in seconds, as some peers sent)", "GET", RID,
                            nonce("t10"), 1767225600, "/api/v1/checkauthn"))
    signed.append(sign_case("sign/request-time", "an 18-digit request_time (the longest the rules accept)", "GET", RID,
                            nonce("t18"), 999999999999999999, "/api/v1/checkauthn"))
    signed.append(sign_case("sign/unicode", "non-ASCII requestor ID and secret (both UTF-8)", "GET", "caf\u00e9-tv", nonce("uni"), T0,
                            "/api/v1/authorize", secret="s\u00e9cret-\u00fc-\U0001F511"))
    signed.append(sign_case("sign/secret", "a 100-character secret (longer than the SHA-1 block, so the key is hashed first)", "GET", RID,
                            nonce("longsecret"), T0, "/api/v1/authorize", secret="k" * 100))
    signed.append(sign_case("sign/secret", "the other public key and secret", "GET", "ABC", nonce("other"), T0, "/api/v1/authorize",
                            public_key=OTHER_PUBLIC_KEY, secret=OTHER_SECRET))
    signed.append(sign_case("sign/nonce", "an upper-case UUID nonce (the nonce is any non-empty text)", "GET", RID,
                            nonce("upper").upper(), T0, "/api/v1/authorize"))
    signed.append(sign_case("sign/nonce", "a 32-character hex nonce, no dashes", "GET", RID, hashlib.md5(b"nonce").hexdigest(), T0,
                            "/api/v1/authorize"))

    # verify: valid
    for t in TESTS[:]:
        if t["class"] in ("sign/method",) and t["method"] in ("POST", "GET") and t["requestURI"] in ("/regcode", "/api/v1/authorize"):
            verify_case("verify/valid", "the header of sign case %d" % t["id"], t["expectedHeader"], VALID)
    for t in TESTS[:]:
        if t["kind"] == "sign" and t["class"] in ("sign/unicode", "sign/secret", "sign/request-time"):
            verify_case("verify/valid", "the header of sign case %d" % t["id"], t["expectedHeader"], VALID,
                        public_key=t["publicKey"], secret=t["secret"])

    good = signed_header()
    n0 = nonce("default")
    msg0 = message("GET", RID, n0, T0, "/api/v1/authorize")
    sig0 = b64(mac(SECRET, msg0))
    assert good == header(msg0, PUBLIC_KEY, sig0)
    verify_case("verify/valid", "GET /api/v1/authorize", good, VALID)

    # tampered
    raw = bytearray(mac(SECRET, msg0))
    raw[0] ^= 0x01
    verify_case("verify/tampered", "one bit of the HMAC flipped (re-encoded)", header(msg0, PUBLIC_KEY, b64(bytes(raw))), INVALID)
    verify_case("verify/tampered", "request_time changed by 1 ms after signing", good.replace(f"request_time={T0}", f"request_time={T0 + 1}"), INVALID)
    verify_case("verify/tampered", "nonce changed after signing", good.replace(n0, nonce("other")), INVALID)
    verify_case("verify/tampered", "requestor_id changed after signing", good.replace("requestor_id=" + RID, "requestor_id=ABC"), INVALID)
    verify_case("verify/tampered", "request_uri changed after signing", good.replace("request_uri=/api/v1/authorize", "request_uri=/api/v1/authorise"), INVALID)
    verify_case("verify/tampered", "method changed after signing (GET to POST)", "POST" + good[3:], INVALID)
    verify_case("verify/tampered", "the signature of another request", header(msg0, PUBLIC_KEY, b64(mac(SECRET, message("GET", RID, n0, T0, "/x")))), INVALID)
    # wrong credentials
    verify_case("verify/wrong-secret", "verified with another secret", good, INVALID, secret=OTHER_SECRET)
    verify_case("verify/wrong-secret", "verified with the secret in lower case", good, INVALID, secret=SECRET.lower())
    verify_case("verify/wrong-secret", "verified with the secret plus a trailing space", good, INVALID, secret=SECRET + " ")
    verify_case("verify/wrong-public-key", "the header names another public_key than the one the verifier holds (correct HMAC)",
                signed_header(public_key=OTHER_PUBLIC_KEY), INVALID)
    # signature text
    verify_case("verify/signature-text", "signature without its '=' padding (compared as text)", good[:-1], INVALID)
    verify_case("verify/signature-text", "signature in hex instead of Base64", header(msg0, PUBLIC_KEY, mac(SECRET, msg0).hex()), INVALID)
    verify_case("verify/signature-text", "HMAC-SHA-256 signature while signature_method says HMAC-SHA1",
                header(msg0, PUBLIC_KEY, b64(mac(SECRET, msg0, "sha256"))), INVALID)
    verify_case("verify/signature-text", "signature not Base64 at all", header(msg0, PUBLIC_KEY, "not-a-signature!"), INVALID)
    url = next(h for h in (signed_header(nonce_=nonce("u%d" % i)) for i in range(100)) if re.search(r"[+/]", h.split("signature=")[1]))
    u_sig = url.split("signature=")[1]
    verify_case("verify/signature-text", "signature in the URL-safe alphabet ('-' and '_' for '+' and '/')",
                url.split("signature=")[0] + "signature=" + u_sig.replace("+", "-").replace("/", "_"), INVALID)
    verify_case("verify/signature-text", "signature followed by a space", good + " ", INVALID)

    # malformed: structure
    for i, name in enumerate(FIELDS):
        parts = good.split(", ")
        if i == 0:
            rest = parts[0].split(" ", 1)[0] + " " + parts[1]
            hdr = ", ".join([rest] + parts[2:])
        else:
            hdr = ", ".join(parts[:i] + parts[i + 1:])
        verify_case("verify/missing-field", "%s missing" % name, hdr, MALFORMED)
    parts = good.split(", ")
    first = parts[0].split(" ", 1)[1]
    verify_case("verify/missing-field", "the method missing (the header begins with requestor_id=)", ", ".join([first] + parts[1:]), MALFORMED)
    p2 = list(parts)
    p2[0], p2[1] = "GET " + p2[1], p2[0].split(" ", 1)[1]
    verify_case("verify/field-order", "nonce before requestor_id", ", ".join(p2), MALFORMED)
    p3 = list(parts)
    p3[5], p3[6] = p3[6], p3[5]
    verify_case("verify/field-order", "signature before public_key", ", ".join(p3), MALFORMED)
    p4 = list(parts)
    p4[3], p4[4] = p4[4], p4[3]
    verify_case("verify/field-order", "request_uri before request_time", ", ".join(p4), MALFORMED)
    verify_case("verify/extra-field", "an extra field at the end", good + ", version=1", MALFORMED)
    verify_case("verify/extra-field", "an extra field in the signed part (signed as sent)",
                signed_header(uri="/api/v1/authorize, device_id=abc"), MALFORMED)
    verify_case("verify/extra-field", "nonce twice", ", ".join(parts[:2] + [parts[1]] + parts[2:]), MALFORMED)
    verify_case("verify/separator", "no space after a comma (',nonce=')", good.replace(", nonce=", ",nonce="), MALFORMED)
    verify_case("verify/separator", "two spaces after a comma", good.replace(", nonce=", ",  nonce="), MALFORMED)
    verify_case("verify/separator", "a space before '='", good.replace("nonce=", "nonce ="), MALFORMED)
    verify_case("verify/separator", "two spaces after the method", good.replace("GET ", "GET  ", 1), MALFORMED)
    verify_case("verify/separator", "the header with its 'Authorization: ' name in front", "Authorization: " + good, MALFORMED)
    verify_case("verify/separator", "a leading space", " " + good, MALFORMED)
    verify_case("verify/separator", "field names in upper case (REQUESTOR_ID=)", good.replace("requestor_id=", "REQUESTOR_ID="), MALFORMED)
    # malformed: method
    for m, what in [("get", "lower case"), ("Get", "mixed case"), ("G3T", "a digit"), ("", "empty")]:
        verify_case("verify/method", "method %r (%s), HMAC computed over the header as sent" % (m, what),
                    header(message(m, RID, n0, T0, "/api/v1/authorize"), PUBLIC_KEY,
                           b64(mac(SECRET, message(m, RID, n0, T0, "/api/v1/authorize")))), MALFORMED)
    # malformed: signature_method
    for sm, digest, what in [("HMAC-SHA256", "sha256", "with a real HMAC-SHA-256 signature"),
                             ("hmac-sha1", "sha1", "in lower case, HMAC-SHA-1 signature"),
                             ("HMAC-SHA-1", "sha1", "with a dash, HMAC-SHA-1 signature"),
                             ("PLAINTEXT", "sha1", "OAuth's PLAINTEXT")]:
        verify_case("verify/signature-method", "signature_method=%s %s" % (sm, what),
                    signed_header(signature_method=sm, digest=digest), MALFORMED)
    # malformed: request_time
    for tv, what in [("abc", "letters"), ("1.7672256e12", "a float"), ("-1", "negative"), ("+1767225600000", "a plus sign"),
                     ("", "empty"), (" 1767225600000", "a leading space"), ("1767225600000ms", "a unit"),
                     ("9223372036854775808", "above Int64.max"), ("0x19b5", "hex")]:
        verify_case("verify/request-time", "request_time %r (%s), HMAC computed over the header as sent" % (tv, what),
                    signed_header(time_=tv), MALFORMED)
    # malformed: empty values
    m_empty_nonce = message("GET", RID, "", T0, "/api/v1/authorize")
    for name, hdr in [("requestor_id", signed_header(rid="")), ("nonce", header(m_empty_nonce, PUBLIC_KEY, b64(mac(SECRET, m_empty_nonce)))),
                      ("request_uri", signed_header(uri="")), ("public_key", signed_header(public_key="")),
                      ("signature", header(msg0, PUBLIC_KEY, ""))]:
        verify_case("verify/empty-value", "%s= empty" % name, hdr, MALFORMED)
    verify_case("verify/field-value", "a control character (TAB) inside requestor_id, HMAC over the header as sent",
                signed_header(rid="nbc\tentertainment"), MALFORMED)
    verify_case("verify/field-value", "request_uri containing ', ' (8 fields once split), HMAC over the header as sent",
                signed_header(uri="/a, b"), MALFORMED)


def main():
    cases()
    ids = [t["id"] for t in TESTS]
    assert ids == list(range(1, len(TESTS) + 1)) and len(set(ids)) == len(ids)
    for t in TESTS:
        if t["kind"] == "sign":
            assert t["expectedHeader"].startswith(t["expectedMessage"] + ", public_key=")
            assert reference(t["expectedHeader"], t["publicKey"], t["secret"]) == VALID
    for r in (VALID, INVALID, MALFORMED):
        assert any(t.get("result") == r for t in TESTS), r
    doc = {
        "schema": "tvekit-clientless-v1",
        "generator": "TestVectors/clientless/generate.py",
        "generatedWith": {"python": platform.python_version()},
        "numberOfTests": len(TESTS),
        "tests": TESTS,
    }
    data = (json.dumps(doc, indent=2, ensure_ascii=True) + "\n").encode("ascii")
    with open(OUT_PATH, "wb") as f:
        f.write(data)
    classes = {}
    for t in TESTS:
        classes.setdefault(t["class"], set()).add(t.get("result", "sign"))
    counts = {}
    for t in TESTS:
        counts[t["class"]] = counts.get(t["class"], 0) + 1
    for cls in classes:
        print(f"{cls:28s} {counts[cls]:3d}  ({', '.join(sorted(classes[cls]))})")
    print(f"total {len(TESTS)} cases; every HMAC computed twice (hmac module and RFC 2104 on hashlib)")
    print(f"wrote {os.path.relpath(OUT_PATH)} ({len(data)} bytes, sha256 {hashlib.sha256(data).hexdigest()})")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Generates TestVectors/requestor/requestor_test.json, the signed-requestor-ID test vectors (FORMATS.md §3).

Run from the repository root (see README.md beside this script):

    python3 -m venv /tmp/tvekit-vectors
    /tmp/tvekit-vectors/bin/pip install -r TestVectors/requestor/requirements.txt
    /tmp/tvekit-vectors/bin/python TestVectors/requestor/generate.py

Keys: the committed fixtures TestVectors/fixtures/leaf.pkcs8.pem ("primary", with leaf.cert.pem) and
rsa2048.pkcs8.pem ("other"). Every key here is a throw-away test key: never use it for anything else.

RSASSA-PKCS1-v1_5 is deterministic, so every run writes a byte-identical file (with the same fixtures and
library version).

Self-checks before anything is written: every case goes through the reference verifier below (raw RSA arithmetic:
s^e mod n compared with the EMSA-PKCS1-v1_5 encoding) and must give exactly the expected result; every valid
signature is also made with raw arithmetic (m^d mod n) and must equal the one `cryptography` made; every valid
case verifies, and every invalid case fails, with `cryptography`'s verify against the certificate / SPKI PEM that
goes into the output; every malformed signature text is refused by a strict Base64 decoder; ids are 1..N.
"""

import base64
import hashlib
import json
import os
import platform
import re

import cryptography
from cryptography import x509
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import padding

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
FIXTURES = os.path.join(ROOT, "TestVectors", "fixtures")
OUT_PATH = os.path.join(HERE, "requestor_test.json")

VALID, INVALID, MALFORMED = "valid", "invalid", "malformed"
BLOCK = 256


def read_text(name):
    with open(os.path.join(FIXTURES, name), "r", encoding="ascii") as f:
        return f.read()


PEMS = {
    "primary": {"privateKeyPem": read_text("leaf.pkcs8.pem"), "certificatePem": read_text("leaf.cert.pem")},
    "other": {"privateKeyPem": read_text("rsa2048.pkcs8.pem"), "publicKeyPem": read_text("rsa2048.spki.pem")},
}
KEYS = {name: serialization.load_pem_private_key(p["privateKeyPem"].encode("ascii"), password=None) for name, p in PEMS.items()}
# The public keys the verifier is given: primary's from its certificate, other's from its SPKI PEM.
PUBLIC = {
    "primary": x509.load_pem_x509_certificate(PEMS["primary"]["certificatePem"].encode("ascii")).public_key(),
    "other": serialization.load_pem_public_key(PEMS["other"]["publicKeyPem"].encode("ascii")),
}
for _name in KEYS:
    assert PUBLIC[_name].public_numbers() == KEYS[_name].public_key().public_numbers(), _name
    assert KEYS[_name].key_size == 2048

# ---------------------------------------------------------------------------------------------
# Signing
# ---------------------------------------------------------------------------------------------

SHA256_DIGESTINFO = bytes.fromhex("3031300d060960864801650304020105000420")


def emsa_pkcs1_sha256(message):
    t = SHA256_DIGESTINFO + hashlib.sha256(message).digest()
    return b"\x00\x01" + b"\xff" * (BLOCK - 3 - len(t)) + b"\x00" + t


def raw_sign(key, em):
    nums = KEYS[key].private_numbers()
    return pow(int.from_bytes(em, "big"), nums.d, nums.public_numbers.n).to_bytes(BLOCK, "big")


def sign(requestor_id, key="primary", hash_alg=None):
    return KEYS[key].sign(requestor_id.encode("utf-8"), padding.PKCS1v15(), hash_alg or hashes.SHA256())


def b64(data):
    return base64.b64encode(data).decode("ascii")


def wrap76(text):
    return "\n".join(text[i:i + 76] for i in range(0, len(text), 76))


# ---------------------------------------------------------------------------------------------
# Reference verifier (the rules in README.md)
# ---------------------------------------------------------------------------------------------

B64_RE = re.compile(r"[A-Za-z0-9+/]*={0,2}")


def strict_b64(text):
    """Standard Base64 (RFC 4648 §4), padded, canonical; None when not."""
    if len(text) % 4 or not B64_RE.fullmatch(text):
        return None
    data = base64.b64decode(text)
    return data if b64(data) == text else None


def reference(requestor_id, signature_text, cert):
    if requestor_id == "":
        return MALFORMED
    sig = strict_b64(re.sub(r"[ \r\n]", "", signature_text))
    if sig is None:
        return MALFORMED
    nums = PUBLIC[cert].public_numbers()
    if len(sig) != BLOCK:
        return INVALID
    s = int.from_bytes(sig, "big")
    if s >= nums.n:
        return INVALID
    em = pow(s, nums.e, nums.n).to_bytes(BLOCK, "big")
    return VALID if em == emsa_pkcs1_sha256(requestor_id.encode("utf-8")) else INVALID


# ---------------------------------------------------------------------------------------------
# Cases
# ---------------------------------------------------------------------------------------------

TESTS = []


def add(cls, comment, requestor_id, signature, result, certificate="primary"):
    case = {"id": len(TESTS) + 1, "class": cls, "comment": comment, "requestorID": requestor_id, "signature": signature,
            "certificate": certificate, "result": result}
    if result == VALID:
        expected = b64(sign(requestor_id, certificate))
        case["expectedSignature"] = expected
        case["expectedWrapped"] = wrap76(expected)
    got = reference(requestor_id, signature, certificate)
    assert got == result, f"case {case['id']} ({cls}: {comment}): reference gives {got}"
    TESTS.append(case)


def valid(cls, comment, requestor_id, key="primary", text=None):
    sig = b64(sign(requestor_id, key))
    add(cls, comment, requestor_id, sig if text is None else text(sig), VALID, certificate=key)


def cases():
    for rid in ["nbcentertainment", "ABC", "tvekit-test", "a", "espn_watch-2.0", "requestor with spaces", "TBS"]:
        valid("valid/ascii", "ASCII requestor ID %r" % rid, rid)
    valid("valid/ascii", "signed with the other key, verified with the other key's public key", "nbcentertainment", key="other")
    for rid, what in [("caf\u00e9", "precomposed \u00e9 (U+00E9, 2 UTF-8 bytes)"), ("cafe\u0301", "decomposed e + U+0301"),
                      ("\u65e5\u672c\u30c6\u30ec\u30d3", "Japanese (3-byte UTF-8)"), ("\U0001F4FA-tv", "U+1F4FA (4-byte UTF-8)")]:
        valid("valid/unicode", "Unicode requestor ID: " + what, rid)
    long_id = ("tvekit-long-requestor-" * 46)[:1000]
    assert len(long_id) == 1000
    valid("valid/long", "a 1000-character ASCII requestor ID", long_id)
    valid("valid/long", "1000 x U+00E9 (2000 UTF-8 bytes)", "\u00e9" * 1000)
    valid("valid/wrapped", "signature wrapped at 76 columns with LF (the expectedWrapped form)", "nbcentertainment", text=wrap76)
    valid("valid/wrapped", "signature wrapped at 76 columns with CRLF", "nbcentertainment",
          text=lambda s: "\r\n".join(s[i:i + 76] for i in range(0, len(s), 76)))
    valid("valid/wrapped", "signature wrapped at 64 columns with LF and a final LF", "ABC",
          text=lambda s: "".join(s[i:i + 64] + "\n" for i in range(0, len(s), 64)))
    valid("valid/wrapped", "a space after every 4 characters", "ABC", text=lambda s: " ".join(s[i:i + 4] for i in range(0, len(s), 4)))
    valid("valid/wrapped", "leading and trailing spaces, CR and LF", "ABC", text=lambda s: " \r\n " + s + " \r\n")
    valid("valid/wrapped", "spaces inside the padding ('= =')", "ABC", text=lambda s: s[:-2] + " = =")

    sig = sign("nbcentertainment")
    s = b64(sig)
    add("invalid/other-certificate", "signed by primary, verified with the other key", "nbcentertainment", s, INVALID, certificate="other")
    add("invalid/other-certificate", "signed by other, verified with primary's certificate", "nbcentertainment",
        b64(sign("nbcentertainment", "other")), INVALID)
    for signed, given, what in [("nbcentertainment", "nbcentertainmenT", "last letter's case differs"),
                                ("ABC", "abc", "lower case"), ("ABC", "ABC ", "trailing space in the verified ID"),
                                ("ABC", " ABC", "leading space in the verified ID"),
                                ("caf\u00e9", "cafe\u0301", "signed precomposed, verified decomposed (no normalisation)"),
                                ("nbcentertainment", "nbcentertainment\n", "trailing newline in the verified ID"),
                                ("ABC", "ABCD", "the signed ID is a prefix of the verified one")]:
        add("invalid/different-id", "signature over %r, verified for %r: %s" % (signed, given, what), given, b64(sign(signed)), INVALID)
    for idx, bit, what in [(0, 0x80, "highest bit of the first byte"), (-1, 0x01, "lowest bit of the last byte"),
                           (128, 0x10, "a bit of byte 128")]:
        b = bytearray(sig)
        b[idx] ^= bit
        add("invalid/bit-flip", "flipped: " + what, "nbcentertainment", b64(bytes(b)), INVALID)
    for h, name in [(hashes.SHA1(), "SHA-1"), (hashes.SHA384(), "SHA-384"), (hashes.SHA512(), "SHA-512")]:
        add("invalid/hash", "RSASSA-PKCS1-v1_5 with %s instead of SHA-256" % name, "nbcentertainment",
            b64(sign("nbcentertainment", hash_alg=h)), INVALID)
    d = hashlib.sha256(b"nbcentertainment").digest()
    add("invalid/hash", "PKCS#1 v1.5 padding around the bare SHA-256 digest (DigestInfo missing)", "nbcentertainment",
        b64(raw_sign("primary", b"\x00\x01" + b"\xff" * (BLOCK - 3 - 32) + b"\x00" + d)), INVALID)
    add("invalid/hash", "SHA-256 signature over the SHA-256 digest of the ID (hashed twice)", "nbcentertainment",
        b64(KEYS["primary"].sign(d, padding.PKCS1v15(), hashes.SHA256())), INVALID)
    add("invalid/length", "signature truncated to 255 bytes", "nbcentertainment", b64(sig[:255]), INVALID)
    add("invalid/length", "signature with a zero byte prepended (257 bytes)", "nbcentertainment", b64(b"\x00" + sig), INVALID)
    add("invalid/length", 'empty signature text "" (well-formed Base64 of zero bytes)', "nbcentertainment", "", INVALID)
    add("invalid/length", "only whitespace (zero bytes once skipped)", "nbcentertainment", " \r\n", INVALID)
    add("invalid/length", "AAAA (three zero bytes)", "nbcentertainment", "AAAA", INVALID)
    add("invalid/length", "the signature in hex: 512 characters that are also well-formed Base64 (of 384 bytes)", "nbcentertainment",
        sig.hex(), INVALID)
    n = PUBLIC["primary"].public_numbers().n
    add("invalid/out-of-range", "256 0xFF bytes (above the modulus)", "nbcentertainment", b64(b"\xff" * BLOCK), INVALID)
    add("invalid/out-of-range", "the modulus itself", "nbcentertainment", b64(n.to_bytes(BLOCK, "big")), INVALID)
    add("invalid/out-of-range", "256 zero bytes", "nbcentertainment", b64(b"\x00" * BLOCK), INVALID)

    add("malformed/non-base64", "not Base64 at all", "nbcentertainment", "not a signature!", MALFORMED)
    add("malformed/non-base64", "a '*' inside the signature", "nbcentertainment", s[:10] + "*" + s[11:], MALFORMED)
    sig2 = next(x for x in (sign("nbcentertainment" + str(i)) for i in range(50)) if "+" in b64(x) or "/" in b64(x))
    s2 = b64(sig2)
    add("malformed/non-base64", "URL-safe alphabet ('-' and '_' for '+' and '/')", "nbcentertainment",
        s2.replace("+", "-").replace("/", "_"), MALFORMED)
    assert s.endswith("==")
    add("malformed/non-base64", "the '==' padding left out", "nbcentertainment", s[:-2], MALFORMED)
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
    nc = s[:-3] + alphabet[alphabet.index(s[-3]) + 1] + "=="
    assert base64.b64decode(nc) == sig
    add("malformed/non-base64", "non-canonical last symbol (unused bits set; decodes to the same bytes)", "nbcentertainment", nc, MALFORMED)
    add("malformed/non-base64", "the two halves Base64-encoded separately and joined ('=' inside)", "nbcentertainment",
        b64(sig[:128]) + b64(sig[128:]), MALFORMED)
    add("malformed/non-base64", "a NUL character inside the signature", "nbcentertainment", s[:10] + "\u0000" + s[10:], MALFORMED)
    add("malformed/empty-id", "empty requestor ID with a real PKCS#1 v1.5 SHA-256 signature of the empty string", "",
        b64(KEYS["primary"].sign(b"", padding.PKCS1v15(), hashes.SHA256())), MALFORMED)
    add("malformed/empty-id", "empty requestor ID with a valid signature of another ID", "", s, MALFORMED)
    add("malformed/empty-id", "empty requestor ID and empty signature", "", "", MALFORMED)


def self_check():
    ids = [t["id"] for t in TESTS]
    assert ids == list(range(1, len(TESTS) + 1)) and len(set(ids)) == len(ids)
    checked = {"valid": 0, "invalid": 0, "malformed": 0, "raw": 0}
    for t in TESTS:
        rid, cert, result = t["requestorID"], t["certificate"], t["result"]
        text = re.sub(r"[ \r\n]", "", t["signature"])
        if result == VALID:
            # the expected signature, made again with raw arithmetic, and verified by cryptography
            raw = raw_sign(cert, emsa_pkcs1_sha256(rid.encode("utf-8")))
            assert b64(raw) == t["expectedSignature"], t["id"]
            checked["raw"] += 1
            assert t["expectedWrapped"].replace("\n", "") == t["expectedSignature"]
            assert all(len(line) <= 76 for line in t["expectedWrapped"].split("\n"))
            assert not t["expectedWrapped"].endswith("\n")
            assert text == t["expectedSignature"], t["id"]
            PUBLIC[cert].verify(base64.b64decode(text, validate=True), rid.encode("utf-8"), padding.PKCS1v15(), hashes.SHA256())
            checked["valid"] += 1
        elif result == INVALID:
            assert rid != ""
            data = base64.b64decode(text, validate=True)
            assert b64(data) == text
            try:
                PUBLIC[cert].verify(data, rid.encode("utf-8"), padding.PKCS1v15(), hashes.SHA256())
                raise AssertionError(f"case {t['id']}: cryptography accepts an invalid signature")
            except InvalidSignature:
                checked["invalid"] += 1
        else:
            assert rid == "" or strict_b64(text) is None, t["id"]
            checked["malformed"] += 1
    return checked


def main():
    cases()
    checked = self_check()
    doc = {
        "schema": "tvekit-requestor-v1",
        "generator": "TestVectors/requestor/generate.py",
        "generatedWith": {"python": platform.python_version(), "cryptography": cryptography.__version__},
        "keys": PEMS,
        "numberOfTests": len(TESTS),
        "tests": TESTS,
    }
    data = (json.dumps(doc, indent=2, ensure_ascii=True) + "\n").encode("ascii")
    with open(OUT_PATH, "wb") as f:
        f.write(data)
    classes = {}
    for t in TESTS:
        classes.setdefault(t["class"], []).append(t["result"])
    for cls, results in classes.items():
        print(f"{cls:28s} {len(results):3d}  ({results[0]})")
    print(f"total {len(TESTS)} cases; {checked['valid']} valid signatures verified by cryptography and {checked['raw']} re-made "
          f"with raw RSA, {checked['invalid']} invalid ones refused by cryptography, {checked['malformed']} malformed ones refused "
          f"by the strict Base64 decoder or the empty-ID rule")
    print(f"wrote {os.path.relpath(OUT_PATH)} ({len(data)} bytes, sha256 {hashlib.sha256(data).hexdigest()})")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Generates TestVectors/user-metadata/user_metadata_test.json, the user-metadata decryption test vectors.

Run from the repository root (see README.md beside this script):

    python3 -m venv /tmp/tvekit-vectors
    /tmp/tvekit-vectors/bin/pip install -r TestVectors/user-metadata/requirements.txt
    /tmp/tvekit-vectors/bin/python TestVectors/user-metadata/generate.py

Keys: the committed fixtures TestVectors/fixtures/leaf.pkcs8.pem ("primary", with leaf.cert.pem) and
rsa2048.pkcs8.pem ("other", the wrong key). Every key here is a throw-away test key: never use it for anything
else.

Deterministic: every "random" byte (PKCS#1 v1.5 padding strings, OAEP seeds, content keys, IVs) comes from
SHA-256 of a counter, and the RSA encryptions are done with the public numbers (pow(m, e, n)) on padding this
script builds, so with the same fixtures and library versions every run writes a byte-identical file.

Self-checks before anything is written:
- every case goes through the reference decryptor below (an executable form of README.md, built on raw RSA
  arithmetic, hashlib/hmac and AES from `cryptography`) and must give exactly the expected result;
- every encrypted value of every valid case is decrypted again on an independent path (jwcrypto for JWE;
  `cryptography`'s RSA PKCS#1 v1.5 decryption, and the openssl command-line tool when it is installed, for RSA
  blocks) and compared with the expected value;
- the value under test of every decryptionFailed case (and of the malformed/unsupported cases where it makes
  sense) is run through the independent path too, which must fail as well; where jwcrypto is more lenient than
  the rules here, the script asserts that too, so the README's statements about it stay true;
- "unsupported" cases built as real encryptions (A192GCM, RSA-OAEP-384, zip, crit, ...) are checked to decrypt
  when the algorithm check is left out, so an implementation that skips the check would accept them;
- ids are 1..N and unique, and every error code occurs.
"""

import atexit
import base64
import hashlib
import hmac
import importlib.metadata
import json
import os
import platform
import re
import shutil
import struct
import subprocess
import tempfile
import zlib

import cryptography
from cryptography import x509
from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import padding
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
from jwcrypto import jwe as jwcrypto_jwe
from jwcrypto import jwk as jwcrypto_jwk

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
FIXTURES = os.path.join(ROOT, "TestVectors", "fixtures")
OUT_PATH = os.path.join(HERE, "user_metadata_test.json")

MALFORMED_DOC = "malformedDocument"
MALFORMED_CT = "malformedCiphertext"
UNSUPPORTED = "unsupportedAlgorithm"
DECRYPT = "decryptionFailed"
TOO_LARGE = "inputTooLarge"
ERROR_CODES = [MALFORMED_DOC, MALFORMED_CT, UNSUPPORTED, DECRYPT, TOO_LARGE]

MAX_DOCUMENT = 1 << 20      # bytes of document text
MAX_VALUE = 64 * 1024       # UTF-8 bytes of one encrypted value (as a JSON string, after unescaping)
BLOCK = 256                 # RSA-2048 modulus size
CHUNK = BLOCK - 11          # largest PKCS#1 v1.5 plaintext per block

# ---------------------------------------------------------------------------------------------
# Keys
# ---------------------------------------------------------------------------------------------


def read_text(name):
    with open(os.path.join(FIXTURES, name), "r", encoding="ascii") as f:
        return f.read()


PEMS = {
    "primary": {"privateKeyPem": read_text("leaf.pkcs8.pem"), "certificatePem": read_text("leaf.cert.pem")},
    "other": {"privateKeyPem": read_text("rsa2048.pkcs8.pem"), "publicKeyPem": read_text("rsa2048.spki.pem")},
}
KEYS = {name: serialization.load_pem_private_key(p["privateKeyPem"].encode("ascii"), password=None) for name, p in PEMS.items()}


def check_keys():
    spki = serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    cert = x509.load_pem_x509_certificate(PEMS["primary"]["certificatePem"].encode("ascii"))
    assert cert.public_key().public_bytes(*spki) == KEYS["primary"].public_key().public_bytes(*spki), "leaf.cert.pem does not match leaf.pkcs8.pem"
    assert KEYS["other"].public_key().public_bytes(*spki).decode("ascii") == PEMS["other"]["publicKeyPem"], "rsa2048.spki.pem does not match"
    for key in KEYS.values():
        assert key.key_size == 2048


check_keys()
NUMS = {name: key.private_numbers() for name, key in KEYS.items()}


def modulus(name):
    return NUMS[name].public_numbers.n


# ---------------------------------------------------------------------------------------------
# Deterministic "random" bytes
# ---------------------------------------------------------------------------------------------

_counter = [0]


def det(n, nonzero=False):
    """The next n bytes of a SHA-256 counter stream (zero bytes skipped when nonzero=True)."""
    out = bytearray()
    while len(out) < n:
        block = hashlib.sha256(b"tvekit user-metadata vectors/%d" % _counter[0]).digest()
        _counter[0] += 1
        out += bytes(b for b in block if b) if nonzero else block
    return bytes(out[:n])


# ---------------------------------------------------------------------------------------------
# RSA with explicit padding (deterministic), and the strict reference decoding
# ---------------------------------------------------------------------------------------------


def raw_encrypt(key, em):
    n, e = modulus(key), NUMS[key].public_numbers.e
    m = int.from_bytes(em, "big")
    assert len(em) == BLOCK and m < n
    return pow(m, e, n).to_bytes(BLOCK, "big")


def raw_decrypt(key, block):
    """RSADP; None when the block is not below the modulus."""
    c = int.from_bytes(block, "big")
    if len(block) != BLOCK or c >= modulus(key):
        return None
    return pow(c, NUMS[key].d, modulus(key)).to_bytes(BLOCK, "big")


def pkcs1_type2(msg):
    assert len(msg) <= CHUNK
    return b"\x00\x02" + det(BLOCK - 3 - len(msg), nonzero=True) + b"\x00" + msg


def pkcs1_type2_decode(em):
    """Strict EME-PKCS1-v1_5 decoding: 00 02, at least 8 nonzero padding bytes, 00, message. None on failure."""
    if em is None or em[0] != 0 or em[1] != 2:
        return None
    sep = em.find(b"\x00", 2)
    if sep < 0 or sep - 2 < 8:
        return None
    return em[sep + 1:]


def mgf1(seed, length, h):
    out = b""
    c = 0
    while len(out) < length:
        out += h(seed + c.to_bytes(4, "big")).digest()
        c += 1
    return out[:length]


def xor(a, b):
    return bytes(x ^ y for x, y in zip(a, b))


def oaep_encode(msg, h):
    hlen = h().digest_size
    assert len(msg) <= BLOCK - 2 * hlen - 2
    db = h(b"").digest() + b"\x00" * (BLOCK - len(msg) - 2 * hlen - 2) + b"\x01" + msg
    seed = det(hlen)
    masked_db = xor(db, mgf1(seed, BLOCK - hlen - 1, h))
    masked_seed = xor(seed, mgf1(masked_db, hlen, h))
    return b"\x00" + masked_seed + masked_db


def oaep_decode(em, h):
    if em is None:
        return None
    hlen = h().digest_size
    if em[0] != 0:
        return None
    masked_seed, masked_db = em[1:1 + hlen], em[1 + hlen:]
    seed = xor(masked_seed, mgf1(masked_db, hlen, h))
    db = xor(masked_db, mgf1(seed, BLOCK - hlen - 1, h))
    if db[:hlen] != h(b"").digest():
        return None
    rest = db[hlen:].lstrip(b"\x00")
    if not rest or rest[0] != 1:
        return None
    return rest[1:]


OAEP_HASH = {"RSA-OAEP": hashlib.sha1, "RSA-OAEP-256": hashlib.sha256, "RSA-OAEP-384": hashlib.sha384, "RSA-OAEP-512": hashlib.sha512}


def wrap_key(transport, cek, key):
    """Encrypts the content key with the named transport ("RSA-OAEP", "RSA-OAEP-256", ..., "RSA1_5")."""
    em = pkcs1_type2(cek) if transport == "RSA1_5" else oaep_encode(cek, OAEP_HASH[transport])
    return raw_encrypt(key, em)


def unwrap_key(transport, ek, key):
    em = raw_decrypt(key, ek) if len(ek) == BLOCK else None
    return pkcs1_type2_decode(em) if transport == "RSA1_5" else oaep_decode(em, OAEP_HASH[transport])


# ---------------------------------------------------------------------------------------------
# Encodings of a value
# ---------------------------------------------------------------------------------------------


def jtext(value):
    """The UTF-8 JSON text of a value, compact (what an encryptor encrypts)."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def b64(data):
    return base64.b64encode(data).decode("ascii")


def b64u(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def chunks(plaintext):
    """Splits a plaintext into <=245-byte chunks; an empty plaintext is one empty chunk (one block)."""
    return [plaintext[i:i + CHUNK] for i in range(0, len(plaintext), CHUNK)] or [b""]


def rsa_blocks(plaintext, key="primary", parts=None):
    """The raw ciphertext: one PKCS#1 v1.5 block per chunk (or per element of `parts`)."""
    return b"".join(raw_encrypt(key, pkcs1_type2(c)) for c in (parts if parts is not None else chunks(plaintext)))


def rsa_value(value=None, plaintext=None, key="primary"):
    return b64(rsa_blocks(jtext(value) if plaintext is None else plaintext, key))


def wrap(s, width, sep):
    return sep.join(s[i:i + width] for i in range(0, len(s), width))


# enc -> (mode, CEK bytes, IV bytes, tag bytes, HMAC hash name)
ENC = {
    "A128CBC-HS256": ("cbc", 32, 16, 16, "sha256"),
    "A192CBC-HS384": ("cbc", 48, 16, 24, "sha384"),
    "A256CBC-HS512": ("cbc", 64, 16, 32, "sha512"),
    "A128GCM": ("gcm", 16, 12, 16, None),
    "A192GCM": ("gcm", 24, 12, 16, None),
    "A256GCM": ("gcm", 32, 12, 16, None),
}
SUPPORTED_ALGS = ["RSA-OAEP", "RSA-OAEP-256", "RSA1_5"]
SUPPORTED_ENCS = ["A128CBC-HS256", "A256CBC-HS512", "A128GCM", "A256GCM"]


def cbc_tag(enc, cek, aad, iv, ct):
    _, keylen, _, taglen, hname = ENC[enc]
    mac = hmac.new(cek[:keylen // 2], aad + iv + ct + struct.pack(">Q", len(aad) * 8), hname).digest()
    return mac[:taglen]


def pkcs7(data):
    n = 16 - len(data) % 16
    return data + bytes([n]) * n


def content_encrypt(enc, cek, iv, aad, pt, pad=True):
    mode, keylen, _, _, _ = ENC[enc]
    if mode == "gcm":
        e = Cipher(algorithms.AES(cek), modes.GCM(iv)).encryptor()
        e.authenticate_additional_data(aad)
        ct = e.update(pt) + e.finalize()
        return ct, e.tag
    e = Cipher(algorithms.AES(cek[keylen // 2:]), modes.CBC(iv)).encryptor()
    ct = e.update(pkcs7(pt) if pad else pt) + e.finalize()
    return ct, cbc_tag(enc, cek, aad, iv, ct)


def content_decrypt(enc, cek, iv, aad, ct, tag):
    """Reference content decryption; None on any failure (tag, length, padding)."""
    mode, keylen, ivlen, taglen, _ = ENC[enc]
    if len(cek) != keylen:
        return None
    if len(tag) != taglen:
        return None
    if mode == "gcm":
        try:
            d = Cipher(algorithms.AES(cek), modes.GCM(iv, tag)).decryptor()
            d.authenticate_additional_data(aad)
            return d.update(ct) + d.finalize()
        except (InvalidTag, ValueError):
            return None
    if not hmac.compare_digest(cbc_tag(enc, cek, aad, iv, ct), tag):
        return None
    if len(ct) == 0 or len(ct) % 16 or len(iv) != 16:
        return None
    d = Cipher(algorithms.AES(cek[keylen // 2:]), modes.CBC(iv)).decryptor()
    padded = d.update(ct) + d.finalize()
    n = padded[-1]
    if not 1 <= n <= 16 or padded[-n:] != bytes([n]) * n:
        return None
    return padded[:-n]


class JWE:
    """The five parts of a compact JWE, as bytes (header as its Base64url text), plus the CEK used."""

    def __init__(self, header_b64, ek, iv, ct, tag, cek=None, enc=None):
        self.header_b64, self.ek, self.iv, self.ct, self.tag, self.cek, self.enc = header_b64, ek, iv, ct, tag, cek, enc

    def compact(self):
        return ".".join([self.header_b64, b64u(self.ek), b64u(self.iv), b64u(self.ct), b64u(self.tag)])

    def parts(self):
        return self.compact().split(".")

    def replace(self, **kw):
        j = JWE(self.header_b64, self.ek, self.iv, self.ct, self.tag, self.cek, self.enc)
        for k, v in kw.items():
            setattr(j, k, v)
        return j


def header_text(header):
    return json.dumps(header, separators=(",", ":")).encode("utf-8")


def make_jwe(plaintext, alg="RSA-OAEP", enc="A128GCM", key="primary", header=None, header_bytes=None,
             transport=None, content=None, cek=None, iv=None, pad=True):
    """A compact JWE, built deterministically.

    header/header_bytes: the protected header (default {"alg": alg, "enc": enc}); transport: the key transport
    actually used (default alg); content: the content algorithm actually used (default enc); cek/iv: explicit
    values (default fresh deterministic bytes of the right length for `content`)."""
    transport = transport or alg
    content = content or enc
    if header_bytes is None:
        header_bytes = header_text(header if header is not None else {"alg": alg, "enc": enc})
    hb64 = b64u(header_bytes)
    _, keylen, ivlen, _, _ = ENC[content]
    cek = det(keylen) if cek is None else cek
    iv = det(ivlen) if iv is None else iv
    ek = wrap_key(transport, cek, key)
    ct, tag = content_encrypt(content, cek, iv, hb64.encode("ascii"), plaintext, pad=pad)
    return JWE(hb64, ek, iv, ct, tag, cek, content)


def jwe_value(value=None, plaintext=None, **kw):
    return make_jwe(jtext(value) if plaintext is None else plaintext, **kw).compact()


def flip(data, index=-1, bit=0x01):
    b = bytearray(data)
    b[index] ^= bit
    return bytes(b)


# ---------------------------------------------------------------------------------------------
# Reference decryptor: an executable form of the rules in README.md
# ---------------------------------------------------------------------------------------------


class Fail(Exception):
    def __init__(self, code):
        super().__init__(code)
        self.code = code


def reject_constant(name):
    raise ValueError("not JSON: " + name)


def parse_json(text):
    """Strict RFC 8259 parsing (no NaN/Infinity); raises ValueError."""
    return json.loads(text, parse_constant=reject_constant)


B64_RE = re.compile(r"[A-Za-z0-9+/]*={0,2}")
B64U_RE = re.compile(r"[A-Za-z0-9_-]*")


def strict_b64(text):
    """Standard Base64, padded, canonical; None when not."""
    if len(text) % 4 or not B64_RE.fullmatch(text):
        return None
    data = base64.b64decode(text)
    return data if b64(data) == text else None


def strict_b64u(text):
    """Base64url without padding, canonical; None when not."""
    if len(text) % 4 == 1 or not B64U_RE.fullmatch(text):
        return None
    data = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
    return data if b64u(data) == text else None


def ref_rsa_blocks(text, key):
    stripped = text.replace(" ", "").replace("\r", "").replace("\n", "")
    data = strict_b64(stripped)
    if data is None or len(data) == 0 or len(data) % BLOCK:
        raise Fail(MALFORMED_CT)
    out = b""
    for i in range(0, len(data), BLOCK):
        m = pkcs1_type2_decode(raw_decrypt(key, data[i:i + BLOCK]))
        if m is None:
            raise Fail(DECRYPT)
        out += m
    return out


def ref_jwe(text, key, allow15):
    parts = text.split(".")
    if len(parts) != 5:
        raise Fail(MALFORMED_CT)
    raw = [strict_b64u(p) for p in parts]
    if any(r is None for r in raw):
        raise Fail(MALFORMED_CT)
    hdr_bytes, ek, iv, ct, tag = raw
    try:
        header = parse_json(hdr_bytes.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        raise Fail(MALFORMED_CT)
    if not isinstance(header, dict) or not isinstance(header.get("alg"), str) or not isinstance(header.get("enc"), str):
        raise Fail(MALFORMED_CT)
    alg, enc = header["alg"], header["enc"]
    if alg not in ("RSA-OAEP", "RSA-OAEP-256") and not (alg == "RSA1_5" and allow15):
        raise Fail(UNSUPPORTED)
    if enc not in SUPPORTED_ENCS:
        raise Fail(UNSUPPORTED)
    if "zip" in header or "crit" in header:
        raise Fail(UNSUPPORTED)
    _, keylen, ivlen, taglen, _ = ENC[enc]
    if len(ek) == 0 or len(iv) != ivlen or len(tag) != taglen:
        raise Fail(MALFORMED_CT)
    cek = unwrap_key(alg, ek, key)
    if cek is None or len(cek) != keylen:
        raise Fail(DECRYPT)
    pt = content_decrypt(enc, cek, iv, parts[0].encode("ascii"), ct, tag)
    if pt is None:
        raise Fail(DECRYPT)
    return pt


def plaintext_value(pt):
    """UTF-8 (strict) then JSON; a plaintext that is not JSON is the string itself (choice)."""
    try:
        s = pt.decode("utf-8")
    except UnicodeDecodeError:
        raise Fail(DECRYPT)
    try:
        return parse_json(s)
    except ValueError:
        return s


def ref_value(text, key, allow15):
    if len(text.encode("utf-8")) > MAX_VALUE:
        raise Fail(TOO_LARGE)
    pt = ref_jwe(text, key, allow15) if "." in text else ref_rsa_blocks(text, key)
    return plaintext_value(pt)


def entries(doc):
    """Checks the document shape; returns (updated, [(name, is_encrypted, value)]). Raises Fail."""
    if not isinstance(doc, dict):
        raise Fail(MALFORMED_DOC)
    if "data" in doc:
        updated = doc.get("updated")
        if type(updated) is not int:            # bool is an int subclass in Python: excluded on purpose
            raise Fail(MALFORMED_DOC)
        data = doc["data"]
        if not isinstance(data, dict):
            raise Fail(MALFORMED_DOC)
        enc = doc.get("encrypted", [])
        if "encrypted" in doc and not isinstance(enc, list):
            raise Fail(MALFORMED_DOC)
        for name in enc:
            if not isinstance(name, str) or name not in data or not isinstance(data[name], str):
                raise Fail(MALFORMED_DOC)
        return updated, [(name, name in enc, value) for name, value in data.items()]
    if "attributes" in doc:
        attrs = doc["attributes"]
        if not isinstance(attrs, dict):
            raise Fail(MALFORMED_DOC)
        out = []
        for name, a in attrs.items():
            if not isinstance(a, dict) or "value" not in a or a.get("state") not in ("plain", "enc"):
                raise Fail(MALFORMED_DOC)
            if a["state"] == "enc" and not isinstance(a["value"], str):
                raise Fail(MALFORMED_DOC)
            out.append((name, a["state"] == "enc", a["value"]))
        return None, out
    raise Fail(MALFORMED_DOC)


def reference(doc_bytes, key, allow15):
    """('ok', updated, data) or ('error', code)."""
    try:
        if len(doc_bytes) > MAX_DOCUMENT:
            raise Fail(TOO_LARGE)
        try:
            doc = parse_json(doc_bytes.decode("utf-8"))
        except (UnicodeDecodeError, ValueError):
            raise Fail(MALFORMED_DOC)
        updated, items = entries(doc)
        data = {}
        for name, encrypted, value in items:
            data[name] = ref_value(value, key, allow15) if encrypted else value
        return ("ok", updated, data)
    except Fail as f:
        return ("error", f.code)


# ---------------------------------------------------------------------------------------------
# Independent paths
# ---------------------------------------------------------------------------------------------

JWKS = {name: jwcrypto_jwk.JWK.from_pem(p["privateKeyPem"].encode("ascii")) for name, p in PEMS.items()}
OPENSSL = shutil.which("openssl")
_openssl_args = []
_tmpdir = tempfile.mkdtemp(prefix="tvekit-vectors-")
atexit.register(shutil.rmtree, _tmpdir, True)
_keyfiles = {}


def openssl_setup():
    global _openssl_args
    if not OPENSSL:
        return
    out = subprocess.run([OPENSSL, "version"], capture_output=True, text=True).stdout
    m = re.match(r"OpenSSL (\d+)\.(\d+)", out)
    if not m or int(m.group(1)) < 3:
        return
    _openssl_args = ["-pkeyopt", "rsa_padding_mode:pkcs1"]
    if (int(m.group(1)), int(m.group(2))) >= (3, 2):
        _openssl_args += ["-pkeyopt", "rsa_pkcs1_implicit_rejection:0"]
    for name in PEMS:
        path = os.path.join(_tmpdir, name + ".pem")
        with open(path, "w") as f:
            f.write(PEMS[name]["privateKeyPem"])
        _keyfiles[name] = path


openssl_setup()


def openssl_block(key, block):
    """The openssl tool's strict PKCS#1 v1.5 decryption of one block; None on failure; 'skip' without the tool."""
    if not _keyfiles:
        return "skip"
    r = subprocess.run([OPENSSL, "pkeyutl", "-decrypt", "-inkey", _keyfiles[key]] + _openssl_args,
                       input=block, capture_output=True)
    return r.stdout if r.returncode == 0 else None


def jwcrypto_decrypt(text, key, algs):
    """jwcrypto's plaintext (bytes) or the exception it raised."""
    t = jwcrypto_jwe.JWE(algs=algs)
    try:
        t.deserialize(text, key=JWKS[key])
        return t.plaintext
    except Exception as e:  # noqa: BLE001 - any failure counts
        # jwcrypto decrypts an empty plaintext, logs "Success", then refuses it because the plaintext is falsy
        if getattr(t, "decryptlog", None) == ["Success"] and t.plaintext == b"":
            return b""
        return e


def jwcrypto_algs(allow15, extra=()):
    return ["RSA-OAEP", "RSA-OAEP-256"] + (["RSA1_5"] if allow15 else []) + SUPPORTED_ENCS + list(extra)


STATS = {"jwcrypto": 0, "cryptographyBlocks": 0, "opensslBlocks": 0, "failConfirmed": 0, "failUnconfirmed": 0, "lenientConfirmed": 0,
         "realConfirmed": 0}


def independent_plaintext(text, key, allow15):
    """Plaintext bytes on the independent path; raises AssertionError-free exceptions on failure."""
    if "." in text:
        got = jwcrypto_decrypt(text, key, jwcrypto_algs(allow15))
        if isinstance(got, Exception):
            raise got
        STATS["jwcrypto"] += 1
        return got
    data = base64.b64decode(re.sub(r"[ \r\n]", "", text), validate=True)
    assert data and len(data) % BLOCK == 0
    out = b""
    for i in range(0, len(data), BLOCK):
        block = data[i:i + BLOCK]
        p = KEYS[key].decrypt(block, padding.PKCS1v15())
        STATS["cryptographyBlocks"] += 1
        o = openssl_block(key, block)
        if o != "skip":
            if o is None:
                raise ValueError("openssl refused a block")
            assert o == p, "openssl and cryptography disagree"
            STATS["opensslBlocks"] += 1
        out += p
    return out


def independent_fails(text, key, allow15):
    """True when the independent path refuses the value: jwcrypto raises, or (RSA blocks) openssl refuses a block
    or the joined plaintext is not UTF-8. None when it cannot tell: without the openssl tool there is no strict
    RSA PKCS#1 v1.5 decryption to ask (cryptography's implicit rejection returns a synthetic plaintext)."""
    if "." in text:
        return isinstance(jwcrypto_decrypt(text, key, jwcrypto_algs(allow15)), Exception)
    data = base64.b64decode(re.sub(r"[ \r\n]", "", text), validate=True)
    out = b""
    for i in range(0, len(data), BLOCK):
        block = data[i:i + BLOCK]
        o = openssl_block(key, block)
        if o is None:
            return True
        if o == "skip":
            return None
        out += o
    try:
        out.decode("utf-8")
        return False
    except UnicodeDecodeError:
        return True


# ---------------------------------------------------------------------------------------------
# Cases
# ---------------------------------------------------------------------------------------------

TESTS = []
CHECKS = []  # (case, [(kind, args...)])
UPDATED = 1334243471


def canon(v):
    return json.dumps(v, sort_keys=True, ensure_ascii=True)


def repeat_text(r):
    return r["prefix"] + r["repeat"] * r["count"] + r["suffix"]


def input_bytes(case):
    if "document" in case:
        return json.dumps(case["document"], ensure_ascii=False).encode("utf-8")
    if "documentText" in case:
        return case["documentText"].encode("utf-8")
    return repeat_text(case["documentTextRepeat"]).encode("utf-8")


def add(cls, comment, document=None, text=None, repeat=None, key="primary", allow15=False, updated=None, data=None,
        error=None, checks=()):
    case = {"id": len(TESTS) + 1, "class": cls, "comment": comment, "key": key, "allowRSA1_5": allow15}
    given = [x is not None for x in (document, text, repeat)]
    assert sum(given) == 1
    if document is not None:
        case["document"] = document
    elif text is not None:
        case["documentText"] = text
    else:
        case["documentTextRepeat"] = repeat
    if error is not None:
        assert error in ERROR_CODES and data is None
        case["error"] = error
        want = ("error", error)
    else:
        assert data is not None
        case["expected"] = {"updated": updated, "data": data}
        want = ("ok", updated, data)
    got = reference(input_bytes(case), key, allow15)
    assert canon(got) == canon(want), f"case {case['id']} ({cls}: {comment}): reference gives {str(got)[:300]}, expected {str(want)[:300]}"
    TESTS.append(case)
    CHECKS.append((case, list(checks)))


def v1(data, encrypted=None, updated=UPDATED):
    d = {"updated": updated}
    if encrypted is not None:
        d["encrypted"] = encrypted
    d["data"] = data
    return d


def one(value_text, name="zip"):
    """A REST v1 document with one encrypted value."""
    return v1({name: value_text}, [name])


def value_case(cls, comment, value_text, expect=None, error=None, key="primary", allow15=False, name="zip", checks=None):
    """A one-value REST v1 document. For decryptionFailed the independent path must fail too (default check)."""
    if checks is None:
        checks = [("fail", value_text)] if error == DECRYPT else []
    if error is None:
        add(cls, comment, document=one(value_text, name), key=key, allow15=allow15, updated=UPDATED, data={name: expect})
    else:
        add(cls, comment, document=one(value_text, name), key=key, allow15=allow15, error=error, checks=checks)


ZIP = ["12345", "34567"]
HOUSEHOLD = "3456789"
MAX_RATING = {"MPAA": "PG-13", "VCHIP": "TV-Y", "URL": "http://exam.pl/e/manage/ratings"}
CHANNELS = ["channel-1", "channel-2"]


def rsa_block_cases():
    c = "rsa-blocks/"
    value_case(c + "single-block", 'zip ["12345","34567"] in one block (17-byte plaintext)', rsa_value(ZIP), ZIP)
    value_case(c + "single-block", "a string value encrypted as its JSON text (with quotes)", rsa_value("user-1234"), "user-1234", name="userID")
    value_case(c + "single-block", "decryptor given the other key, value encrypted to the other key", rsa_value(ZIP, key="other"), ZIP, key="other")
    long1 = ["channel-%03d" % i for i in range(20)]          # 261 bytes of JSON text
    assert CHUNK < len(jtext(long1)) <= 2 * CHUNK
    value_case(c + "two-blocks", "channelID of %d bytes: two blocks (245 + %d)" % (len(jtext(long1)), len(jtext(long1)) - CHUNK),
               rsa_value(long1), long1, name="channelID")
    long2 = ["channel-%03d" % i for i in range(45)]
    assert 2 * CHUNK < len(jtext(long2)) <= 3 * CHUNK
    value_case(c + "two-blocks", "channelID of %d bytes: three blocks" % len(jtext(long2)), rsa_value(long2), long2, name="channelID")
    s245 = "x" * (CHUNK - 2)                                     # "\"" + 243 x + "\"" = 245 bytes
    assert len(jtext(s245)) == CHUNK
    value_case(c + "block-boundary", "plaintext of exactly 245 bytes: one block (minimum 8-byte padding string)", rsa_value(s245), s245, name="userID")
    s246 = "x" * (CHUNK - 1)
    value_case(c + "block-boundary", "plaintext of 246 bytes: two blocks (245 + 1)", rsa_value(s246), s246, name="userID")
    s490 = "x" * (2 * CHUNK - 2)
    value_case(c + "block-boundary", "plaintext of exactly 490 bytes: two full blocks", rsa_value(s490), s490, name="userID")
    s491 = "x" * (2 * CHUNK - 1)
    value_case(c + "block-boundary", "plaintext of 491 bytes: three blocks (245 + 245 + 1)", rsa_value(s491), s491, name="userID")
    # short blocks: blocks need not be full; the plaintexts are simply joined
    parts = [b'["12', b'345","345', b'67"]']
    value_case(c + "short-blocks", 'three blocks holding 4, 9 and 4 bytes of ["12345","34567"]: blocks need not be full',
               b64(rsa_blocks(None, parts=parts)), ZIP)
    value_case(c + "short-blocks", "empty plaintext: one block holding 0 bytes decrypts to the string \"\" (not JSON)",
               b64(rsa_blocks(b"")), "", name="userID")
    # UTF-8 sequences split across blocks
    e_split = "a" * (CHUNK - 2) + "\u00e9t\u00e9"                # the first é straddles bytes 244/245
    pt = jtext(e_split)
    assert pt[CHUNK - 1] == 0xC3 and pt[CHUNK] == 0xA9
    value_case(c + "utf8-across-blocks", "the 2-byte UTF-8 of U+00E9 is split between block 1 and block 2: decode after joining",
               rsa_value(e_split), e_split, name="userID")
    emoji = "b" * (CHUNK - 3) + "\U0001F4FA tv"                 # U+1F4FA starts at byte 243: bytes 243..246
    pt = jtext(emoji)
    assert pt[CHUNK - 2] == 0xF0
    value_case(c + "utf8-across-blocks", "the 4-byte UTF-8 of U+1F4FA is split 2 + 2 between blocks", rsa_value(emoji), emoji, name="userID")
    # wrapped Base64
    v3 = ["channel-%03d" % i for i in range(30)]
    t = rsa_value(v3, plaintext=None)
    value_case(c + "wrapped-base64", "Base64 wrapped at 76 columns with LF (two blocks, 684 characters)", wrap(t, 76, "\n"), v3, name="channelID")
    value_case(c + "wrapped-base64", "Base64 wrapped at 64 columns with CRLF (PEM style)", wrap(t, 64, "\r\n"), v3, name="channelID")
    value_case(c + "wrapped-base64", "Base64 wrapped at 76 columns with LF and a final LF", wrap(t, 76, "\n") + "\n", v3, name="channelID")
    t1 = rsa_value(ZIP)
    value_case(c + "wrapped-base64", "a space after every 4 characters, also inside the padding (\"= =\")", " ".join(wrap(t1[:-2], 4, "\n").split("\n")) + " = =", ZIP)
    value_case(c + "wrapped-base64", "leading spaces and CRLF, trailing CRLF", "  \r\n" + t1 + "\r\n", ZIP)

    # malformed ciphertexts
    value_case(c + "empty", 'the value "" (zero blocks)', "", error=MALFORMED_CT)
    value_case(c + "empty", "only whitespace (decodes to zero bytes)", " \r\n ", error=MALFORMED_CT)
    good = rsa_value(ZIP)
    value_case(c + "base64-alphabet", "a '*' in the Base64", good[:100] + "*" + good[101:], error=MALFORMED_CT)
    tt = b64(rsa_blocks(b'"?>>?>>?>>"' * 20))
    assert "+" in tt or "/" in tt
    urlsafe = tt.replace("+", "-").replace("/", "_")
    value_case(c + "base64-alphabet", "the URL-safe alphabet ('-' and '_' for '+' and '/')", urlsafe, error=MALFORMED_CT,
               name="userID")
    value_case(c + "base64-alphabet", "a non-ASCII character (U+00E9) in the Base64", good[:50] + "\u00e9" + good[51:], error=MALFORMED_CT)
    value_case(c + "base64-alphabet", "a NUL character (U+0000) in the Base64",
               good[:50] + "\u0000" + good[50:], error=MALFORMED_CT)
    assert good.endswith("==")
    value_case(c + "base64-padding", "the '==' padding left out (342 characters)", good[:-2], error=MALFORMED_CT)
    two = [b64(rsa_blocks(jtext("x" * 200))), b64(rsa_blocks(jtext("y" * 200)))]
    value_case(c + "base64-padding", "each block Base64-encoded on its own and the texts joined ('==' in the middle)",
               "".join(two), error=MALFORMED_CT, name="userID")
    nc = good[:-3] + chr(ord(good[-3]) + 1) + "=="      # unused low bits of the last symbol set
    assert base64.b64decode(nc) == base64.b64decode(good)
    value_case(c + "base64-padding", "non-canonical last symbol (unused bits not zero)", nc, error=MALFORMED_CT)
    value_case(c + "base64-padding", "a third '=' appended", good + "=", error=MALFORMED_CT)
    raw = rsa_blocks(jtext(ZIP))
    value_case(c + "length", "255 bytes (last byte of the block dropped)", b64(raw[:-1]), error=MALFORMED_CT)
    value_case(c + "length", "257 bytes (a zero byte appended)", b64(raw + b"\x00"), error=MALFORMED_CT)
    value_case(c + "length", "257 bytes (a zero byte prepended)", b64(b"\x00" + raw), error=MALFORMED_CT)
    value_case(c + "length", "4 bytes (AAAAAA==)", "AAAAAA==", error=MALFORMED_CT)
    value_case(c + "length", "511 bytes (two blocks less one byte)", b64(rsa_blocks(jtext("x" * 300))[:-1]), error=MALFORMED_CT, name="userID")

    # decryption failures
    value_case(c + "wrong-key", "value encrypted to primary, decryptor given other", good, error=DECRYPT, key="other")
    value_case(c + "wrong-key", "value encrypted to other, decryptor given primary", rsa_value(ZIP, key="other"), error=DECRYPT)
    mixed = rsa_blocks(None, parts=[b'["12345",'], key="primary") + rsa_blocks(None, parts=[b'"34567"]'], key="other")
    value_case(c + "wrong-key", "two blocks, the second encrypted to the other key", b64(mixed), error=DECRYPT)
    msg = jtext(ZIP)

    def padded(em):
        assert len(em) == BLOCK
        return b64(raw_encrypt("primary", em))
    value_case(c + "bad-padding", "block type 01 (signature padding 00 01 FF..FF 00 M) instead of 02",
               padded(b"\x00\x01" + b"\xff" * (BLOCK - 3 - len(msg)) + b"\x00" + msg), error=DECRYPT)
    value_case(c + "bad-padding", "00 02 and no zero byte after the padding string",
               padded(b"\x00\x02" + det(BLOCK - 2, nonzero=True)), error=DECRYPT)
    m250 = b"x" * (BLOCK - 3 - 7)
    value_case(c + "bad-padding", "padding string of 7 bytes (at least 8 required)",
               padded(b"\x00\x02" + det(7, nonzero=True) + b"\x00" + m250), error=DECRYPT)
    value_case(c + "bad-padding", "first byte 01 instead of 00",
               padded(b"\x01\x02" + det(BLOCK - 3 - len(msg), nonzero=True) + b"\x00" + msg), error=DECRYPT)
    value_case(c + "bad-padding", "00 00 02 ...: the padding shifted one byte right",
               padded(b"\x00\x00\x02" + det(BLOCK - 4 - len(msg), nonzero=True) + b"\x00" + msg), error=DECRYPT)
    value_case(c + "bad-padding", "00 02 then a zero byte at once (empty padding string)",
               padded(b"\x00\x02\x00" + b"y" * (BLOCK - 3)), error=DECRYPT)
    n = modulus("primary")
    value_case(c + "out-of-range", "a block of 256 0xFF bytes (above the modulus)", b64(b"\xff" * BLOCK), error=DECRYPT)
    value_case(c + "out-of-range", "the modulus itself as the block", b64(n.to_bytes(BLOCK, "big")), error=DECRYPT)
    value_case(c + "out-of-range", "a block of 256 zero bytes", b64(b"\x00" * BLOCK), error=DECRYPT)
    value_case(c + "out-of-range", "the block 00..01 (c = 1, so m = 1)", b64((1).to_bytes(BLOCK, "big")), error=DECRYPT)
    for bad, what in [(b"\xff\xfe", "bytes ff fe"), (b'"\x80"', "a lone continuation byte 80 inside quotes"),
                      (b'"\xc0\xaf"', "an overlong encoding c0 af"), (b'"\xed\xa0\x80"', "an encoded surrogate ed a0 80 (U+D800)"),
                      (b'"abc\xe2\x82', "a truncated 3-byte sequence at the end")]:
        value_case(c + "invalid-utf8", "the plaintext is not UTF-8: %s (decryptionFailed, not a second error)" % what,
                   b64(rsa_blocks(bad)), error=DECRYPT, checks=[("fail", b64(rsa_blocks(bad)))])


def jwe_cases():
    c = "jwe/"
    # every supported alg x enc
    for alg in SUPPORTED_ALGS:
        for enc in SUPPORTED_ENCS:
            allow = alg == "RSA1_5"
            value_case(c + "alg-enc", "%s / %s%s" % (alg, enc, " (allowRSA1_5 true)" if allow else ""),
                       jwe_value(ZIP, alg=alg, enc=enc), ZIP, allow15=allow)
    value_case(c + "alg-enc", "RSA-OAEP / A256GCM to the other key, decryptor given other", jwe_value(MAX_RATING, key="other", enc="A256GCM"),
               MAX_RATING, key="other", name="maxRating")
    value_case(c + "alg-enc", "RSA-OAEP-256 / A128CBC-HS256 with allowRSA1_5 true (the option changes nothing else)",
               jwe_value(ZIP, alg="RSA-OAEP-256", enc="A128CBC-HS256"), ZIP, allow15=True)
    value_case(c + "header-members", 'extra header members "kid", "typ", "cty" are ignored',
               jwe_value(ZIP, header={"alg": "RSA-OAEP-256", "enc": "A256GCM", "kid": "tvekit-primary", "typ": "JWE", "cty": "json"},
                         alg="RSA-OAEP-256", enc="A256GCM"), ZIP)
    value_case(c + "header-members", 'members in another order and with spaces: {"enc": "A128GCM", "alg": "RSA-OAEP"}',
               jwe_value(ZIP, header_bytes=b'{"enc": "A128GCM", "alg": "RSA-OAEP"}', alg="RSA-OAEP", enc="A128GCM"), ZIP)
    value_case(c + "header-members", "a header with an escaped character in a member name and a Unicode member value",
               jwe_value(ZIP, header_bytes='{"alg":"RSA-OAEP","enc":"A128GCM","k\\u0069d":"cl\u00e9"}'.encode("utf-8"),
                         alg="RSA-OAEP", enc="A128GCM"), ZIP)
    long_v = ["channel-%03d" % i for i in range(400)]
    value_case(c + "long-plaintext", "RSA-OAEP / A256CBC-HS512 with a 5 kB plaintext (one JWE, no blocks)",
               jwe_value(long_v, alg="RSA-OAEP", enc="A256CBC-HS512"), long_v, name="channelID")

    base = make_jwe(jtext(ZIP), alg="RSA-OAEP", enc="A128GCM")
    cbc = make_jwe(jtext(ZIP), alg="RSA-OAEP-256", enc="A128CBC-HS256")
    p = base.parts()

    # malformed: parts
    value_case(c + "parts", "4 parts (tag dropped)", ".".join(p[:4]), error=MALFORMED_CT, checks=[("fail", ".".join(p[:4]))])
    six = ".".join(p + ["AAAA"])
    value_case(c + "parts", "6 parts (an extra part appended)", six, error=MALFORMED_CT, checks=[("fail", six)])
    value_case(c + "parts", "6 parts (a trailing dot)", ".".join(p) + ".", error=MALFORMED_CT, checks=[("fail", ".".join(p) + ".")])
    value_case(c + "parts", "3 parts (looks like a JWS)", ".".join(p[:3]), error=MALFORMED_CT, checks=[("fail", ".".join(p[:3]))])
    value_case(c + "parts", "5 empty parts (four dots)", "....", error=MALFORMED_CT, checks=[("fail", "....")])

    # malformed: base64url
    def with_part(i, s):
        q = list(p)
        q[i] = s
        return ".".join(q)
    ctb = p[3]
    plus = with_part(3, ctb[:5] + "+" + ctb[6:])
    value_case(c + "base64url", "a '+' (standard alphabet) in the ciphertext part", plus, error=MALFORMED_CT)
    star = with_part(2, p[2][:3] + "*" + p[2][4:])
    value_case(c + "base64url", "a '*' in the IV part", star, error=MALFORMED_CT)
    h = p[0]
    assert len(h) % 4 != 0
    padded_h = with_part(0, h + "=" * (-len(h) % 4))
    value_case(c + "base64url", "the protected header part with '=' padding", padded_h, error=MALFORMED_CT,
               checks=[("lenient", padded_h, jtext(ZIP))])
    tagp = p[4]                 # 16 bytes -> 22 symbols, the last carries 2 unused bits
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
    nc = tagp[:-1] + alphabet[alphabet.index(tagp[-1]) + 1]
    assert base64.urlsafe_b64decode(nc + "==") == base64.urlsafe_b64decode(tagp + "==")
    nc_text = with_part(4, nc)
    value_case(c + "base64url", "non-canonical last symbol of the tag part (unused bits set)", nc_text, error=MALFORMED_CT,
               checks=[("lenient", nc_text, jtext(ZIP))])
    value_case(c + "base64url", "a ciphertext part whose length is 1 mod 4", with_part(3, ctb + "A" * ((1 - len(ctb)) % 4)),
               error=MALFORMED_CT)
    nl = with_part(3, ctb[:8] + "\n" + ctb[8:])
    value_case(c + "base64url", "a line break inside the ciphertext part (no whitespace in a JWE)", nl, error=MALFORMED_CT)

    # malformed: protected header (the other parts from a valid JWE)
    def hdr(raw):
        return with_part(0, b64u(raw))
    for raw, what in [(b"not json", "not JSON"), (b'["RSA-OAEP","A128GCM"]', "a JSON array"), (b'"RSA-OAEP"', "a JSON string"),
                      (b"", "empty"), (b'{"alg":"RSA-OAEP","enc":"A128GCM"', "truncated JSON"),
                      (b'{"alg":"RSA-OAEP","enc":"A128GCM","x":"\xff"}', "not UTF-8 (byte ff in a string)"),
                      (b'{"enc":"A128GCM"}', 'an object without "alg"'), (b'{"alg":"RSA-OAEP"}', 'an object without "enc"'),
                      (b'{"alg":1,"enc":"A128GCM"}', '"alg" a number'), (b'{"alg":"RSA-OAEP","enc":null}', '"enc" null')]:
        text = hdr(raw)
        value_case(c + "header", "protected header %s" % what, text, error=MALFORMED_CT, checks=[("fail", text)])
    # malformed: lengths
    t = base.replace(ek=b"").compact()
    value_case(c + "encrypted-key", "empty encrypted-key part", t, error=MALFORMED_CT, checks=[("fail", t)])
    g8 = make_jwe(jtext(ZIP), enc="A128GCM", iv=det(8)).compact()
    value_case(c + "iv", "A128GCM with an 8-byte IV (correctly encrypted with it; 12 required)", g8, error=MALFORMED_CT,
               checks=[("lenient", g8, jtext(ZIP))])
    g16 = make_jwe(jtext(ZIP), enc="A256GCM", iv=det(16)).compact()
    value_case(c + "iv", "A256GCM with a 16-byte IV (correctly encrypted with it; 12 required)", g16, error=MALFORMED_CT,
               checks=[("lenient", g16, jtext(ZIP))])
    iv12 = det(12)
    cbc12 = cbc.replace(iv=iv12, tag=cbc_tag("A128CBC-HS256", cbc.cek, cbc.header_b64.encode(), iv12, cbc.ct)).compact()
    value_case(c + "iv", "A128CBC-HS256 with a 12-byte IV (tag recomputed over it; 16 required)", cbc12, error=MALFORMED_CT,
               checks=[("fail", cbc12)])
    t = base.replace(iv=b"").compact()
    value_case(c + "iv", "A128GCM with an empty IV part", t, error=MALFORMED_CT, checks=[("fail", t)])
    t = base.replace(tag=base.tag[:8]).compact()
    value_case(c + "tag", "A128GCM with the tag truncated to 8 bytes (a correct 64-bit GCM tag; 16 required)", t, error=MALFORMED_CT,
               checks=[("fail", t)])
    t = cbc.replace(tag=cbc.tag[:8]).compact()
    value_case(c + "tag", "A128CBC-HS256 with the tag truncated to 8 bytes (16 required)", t, error=MALFORMED_CT, checks=[("fail", t)])
    full = hmac.new(cbc.cek[:16], cbc.header_b64.encode() + cbc.iv + cbc.ct + struct.pack(">Q", len(cbc.header_b64) * 8), "sha256").digest()
    assert full[:16] == cbc.tag
    t = cbc.replace(tag=full).compact()
    value_case(c + "tag", "A128CBC-HS256 with the full 32-byte HMAC-SHA-256 as the tag (the first 16 bytes required)", t,
               error=MALFORMED_CT, checks=[("fail", t)])
    c512 = make_jwe(jtext(ZIP), alg="RSA-OAEP", enc="A256CBC-HS512")
    t = c512.replace(tag=c512.tag[:16]).compact()
    value_case(c + "tag", "A256CBC-HS512 with the tag truncated to 16 bytes (32 required)", t, error=MALFORMED_CT, checks=[("fail", t)])
    g256 = make_jwe(jtext(ZIP), enc="A256GCM")
    t = g256.replace(tag=b"").compact()
    value_case(c + "tag", "A256GCM with an empty tag part", t, error=MALFORMED_CT, checks=[("fail", t)])

    # unsupported algorithms
    for alg in ["none", "RS256", ""]:
        t = hdr(header_text({"alg": alg, "enc": "A128GCM"}))
        value_case(c + "alg-unsupported", 'alg "%s" (other parts from a valid RSA-OAEP JWE)' % alg, t, error=UNSUPPORTED)
    dir_gcm = JWE(b64u(header_text({"alg": "dir", "enc": "A128GCM"})), b"", det(12), det(17), det(16)).compact()
    value_case(c + "alg-unsupported", 'alg "dir" with an empty encrypted key (the algorithm is checked before the part lengths)',
               dir_gcm, error=UNSUPPORTED)
    kw = JWE(b64u(header_text({"alg": "A128KW", "enc": "A128GCM"})), det(24), det(12), det(17), det(16)).compact()
    value_case(c + "alg-unsupported", 'alg "A128KW" (AES key wrap, 24-byte encrypted key)', kw, error=UNSUPPORTED)
    ecdh = JWE(b64u(header_text({"alg": "ECDH-ES", "enc": "A128GCM"})), b"", det(12), det(17), det(16)).compact()
    value_case(c + "alg-unsupported", 'alg "ECDH-ES"', ecdh, error=UNSUPPORTED)
    for alg in ["RSA-OAEP-384", "RSA-OAEP-512"]:
        j = make_jwe(jtext(ZIP), alg=alg, enc="A128GCM")
        value_case(c + "alg-unsupported", 'alg "%s", a real OAEP encryption with that hash (only the algorithm is wrong)' % alg,
                   j.compact(), error=UNSUPPORTED, checks=[("real", j, alg, "A128GCM", jtext(ZIP), None)])
    j = make_jwe(jtext(ZIP), header={"alg": "rsa-oaep", "enc": "A128GCM"}, transport="RSA-OAEP", content="A128GCM")
    value_case(c + "alg-unsupported", 'alg "rsa-oaep" in lower case, otherwise a real RSA-OAEP JWE (names are case-sensitive)',
               j.compact(), error=UNSUPPORTED, checks=[("real", j, "RSA-OAEP", "A128GCM", jtext(ZIP), None)])
    for enc in ["A192GCM", "A192CBC-HS384"]:
        j = make_jwe(jtext(ZIP), alg="RSA-OAEP", enc=enc)
        value_case(c + "enc-unsupported", 'enc "%s", a real encryption (only the algorithm is wrong)' % enc, j.compact(),
                   error=UNSUPPORTED, checks=[("real", j, "RSA-OAEP", enc, jtext(ZIP), ["RSA-OAEP", enc])])
    j = make_jwe(jtext(ZIP), header={"alg": "RSA-OAEP", "enc": "a128gcm"}, transport="RSA-OAEP", content="A128GCM")
    value_case(c + "enc-unsupported", 'enc "a128gcm" in lower case, otherwise a real A128GCM JWE', j.compact(), error=UNSUPPORTED,
               checks=[("real", j, "RSA-OAEP", "A128GCM", jtext(ZIP), None)])
    for enc in ["A128GCM", "A256CBC-HS512"]:
        j = make_jwe(jtext(ZIP), alg="RSA1_5", enc=enc)
        value_case(c + "rsa1_5-not-allowed", "a valid RSA1_5 / %s JWE with allowRSA1_5 false" % enc, j.compact(), error=UNSUPPORTED,
                   checks=[("real", j, "RSA1_5", enc, jtext(ZIP), ["RSA1_5", enc])])
    deflater = zlib.compressobj(9, zlib.DEFLATED, -15)
    deflated = deflater.compress(jtext(ZIP)) + deflater.flush()
    j = make_jwe(deflated, header={"alg": "RSA-OAEP", "enc": "A128GCM", "zip": "DEF"}, transport="RSA-OAEP", content="A128GCM")
    value_case(c + "zip", 'header "zip": "DEF" with a really DEFLATE-compressed plaintext', j.compact(), error=UNSUPPORTED,
               checks=[("real", j, "RSA-OAEP", "A128GCM", deflated, None), ("jwcrypto-inflates", j.compact(), jtext(ZIP))])
    j = make_jwe(jtext(ZIP), header={"alg": "RSA-OAEP", "enc": "A128GCM", "crit": ["exp"], "exp": 1767225600},
                 transport="RSA-OAEP", content="A128GCM")
    value_case(c + "crit", 'header "crit": ["exp"] with an "exp" member, otherwise a real JWE', j.compact(), error=UNSUPPORTED,
               checks=[("real", j, "RSA-OAEP", "A128GCM", jtext(ZIP), None)])

    # decryption failures
    value_case(c + "wrong-key", "RSA-OAEP / A128GCM encrypted to other, decryptor given primary",
               jwe_value(ZIP, key="other"), error=DECRYPT)
    value_case(c + "wrong-key", "RSA-OAEP-256 / A256CBC-HS512 encrypted to primary, decryptor given other",
               jwe_value(ZIP, alg="RSA-OAEP-256", enc="A256CBC-HS512"), error=DECRYPT, key="other")
    value_case(c + "wrong-key", "RSA1_5 / A128GCM (allowRSA1_5 true) encrypted to other, decryptor given primary",
               jwe_value(ZIP, alg="RSA1_5", key="other"), error=DECRYPT, allow15=True)
    for j, what in [(base, "RSA-OAEP / A128GCM"), (cbc, "RSA-OAEP-256 / A128CBC-HS256")]:
        value_case(c + "tampered", what + ": last bit of the ciphertext flipped", j.replace(ct=flip(j.ct)).compact(), error=DECRYPT)
        value_case(c + "tampered", what + ": first bit of the ciphertext flipped", j.replace(ct=flip(j.ct, 0, 0x80)).compact(), error=DECRYPT)
        value_case(c + "tampered", what + ": last bit of the tag flipped", j.replace(tag=flip(j.tag)).compact(), error=DECRYPT)
        value_case(c + "tampered", what + ": a bit of the IV flipped", j.replace(iv=flip(j.iv, 3, 0x10)).compact(), error=DECRYPT)
        value_case(c + "tampered", what + ": last bit of the encrypted key flipped", j.replace(ek=flip(j.ek)).compact(), error=DECRYPT)
    alg_enc = {"alg": "RSA-OAEP", "enc": "A128GCM"}
    spaced = b64u(b'{"alg":"RSA-OAEP", "enc":"A128GCM"}')
    value_case(c + "tampered", "RSA-OAEP / A128GCM: protected header re-encoded with a space added (same alg and enc; the AAD differs)",
               base.replace(header_b64=spaced).compact(), error=DECRYPT)
    value_case(c + "tampered", 'RSA-OAEP-256 / A128CBC-HS256: protected header with a "kid" member added (the AAD differs)',
               cbc.replace(header_b64=b64u(header_text({"alg": "RSA-OAEP-256", "enc": "A128CBC-HS256", "kid": "x"}))).compact(),
               error=DECRYPT)
    value_case(c + "tampered", "RSA-OAEP / A128GCM: protected header with the members swapped",
               base.replace(header_b64=b64u(b'{"enc":"A128GCM","alg":"RSA-OAEP"}')).compact(), error=DECRYPT)
    assert header_text(alg_enc) == base64.urlsafe_b64decode(base.header_b64 + "==")
    # wrong content-key length
    for enc, cek_len, content, what in [("A256GCM", 16, "A128GCM", "a 16-byte CEK under A256GCM (content encrypted with AES-128-GCM under it)"),
                                        ("A128GCM", 32, "A256GCM", "a 32-byte CEK under A128GCM (content encrypted with AES-256-GCM under it)"),
                                        ("A128CBC-HS256", 64, "A256CBC-HS512", "a 64-byte CEK under A128CBC-HS256"),
                                        ("A256CBC-HS512", 32, "A128CBC-HS256", "a 32-byte CEK under A256CBC-HS512")]:
        j = make_jwe(jtext(ZIP), header={"alg": "RSA-OAEP", "enc": enc}, transport="RSA-OAEP", content=content)
        mode, _, ivlen, taglen, _ = ENC[enc]
        # parts given the lengths the header's enc requires, so only the key length is wrong
        if len(j.iv) != ivlen:
            j = j.replace(iv=j.iv[:ivlen] if len(j.iv) > ivlen else j.iv + det(ivlen - len(j.iv)))
        if len(j.tag) != taglen:
            j = j.replace(tag=(j.tag + det(taglen))[:taglen])
        value_case(c + "cek-length", "RSA-OAEP transporting " + what, j.compact(), error=DECRYPT)
    j = make_jwe(jtext(ZIP), header={"alg": "RSA1_5", "enc": "A128GCM"}, transport="RSA1_5", content="A256GCM")
    value_case(c + "cek-length", "RSA1_5 (allowRSA1_5 true) transporting a 32-byte CEK under A128GCM", j.compact(), error=DECRYPT, allow15=True)
    # key transport other than the header says
    for halg, transport in [("RSA-OAEP-256", "RSA-OAEP"), ("RSA-OAEP", "RSA-OAEP-256"), ("RSA-OAEP", "RSA1_5"), ("RSA1_5", "RSA-OAEP")]:
        j = make_jwe(jtext(ZIP), header={"alg": halg, "enc": "A128GCM"}, transport=transport, content="A128GCM")
        value_case(c + "key-transport-mismatch", "header alg %s, content key encrypted with %s" % (halg, transport), j.compact(),
                   error=DECRYPT, allow15=halg == "RSA1_5")
    # encrypted key of the wrong (nonzero) length
    value_case(c + "encrypted-key-length", "encrypted key of 255 bytes (last byte dropped)", base.replace(ek=base.ek[:-1]).compact(), error=DECRYPT)
    value_case(c + "encrypted-key-length", "encrypted key of 257 bytes (a zero byte prepended: the same number)",
               base.replace(ek=b"\x00" + base.ek).compact(), error=DECRYPT)
    # CBC failures behind a valid tag
    for last, what in [(0x00, "last padding byte 00"), (0x11, "last padding byte 11 (17)")]:
        blk = b"0123456789abcde" + bytes([last])
        j = make_jwe(blk, alg="RSA-OAEP", enc="A128CBC-HS256", pad=False)
        value_case(c + "cbc", "A128CBC-HS256 with a valid tag over a plaintext whose PKCS#7 padding is invalid (%s)" % what, j.compact(),
                   error=DECRYPT)
    blk = b"0123456789ab\x04\x04\x03\x04"
    j = make_jwe(blk, alg="RSA-OAEP", enc="A256CBC-HS512", pad=False)
    value_case(c + "cbc", "A256CBC-HS512 with a valid tag, padding 04 04 03 04 (inconsistent)", j.compact(), error=DECRYPT)
    j = make_jwe(jtext(ZIP), alg="RSA-OAEP", enc="A128CBC-HS256")
    ct15 = j.ct[:15]
    t = j.replace(ct=ct15, tag=cbc_tag("A128CBC-HS256", j.cek, j.header_b64.encode(), j.iv, ct15)).compact()
    value_case(c + "cbc", "A128CBC-HS256 ciphertext of 15 bytes (not a whole block) with a valid tag over it", t, error=DECRYPT)
    t = j.replace(ct=b"", tag=cbc_tag("A128CBC-HS256", j.cek, j.header_b64.encode(), j.iv, b"")).compact()
    value_case(c + "cbc", "A128CBC-HS256 with an empty ciphertext and a valid tag over it", t, error=DECRYPT)
    for enc in ["A128GCM", "A256CBC-HS512"]:
        t = jwe_value(plaintext=b"\xff\xfe", enc=enc)
        value_case(c + "invalid-utf8", "%s plaintext bytes ff fe (not UTF-8)" % enc, t, error=DECRYPT, checks=[("non-utf8", t, b"\xff\xfe")])


def plaintext_cases():
    c = "plaintext/json-or-string"
    for pt, value, what in [(b"12345", 12345, "12345 is JSON: the number 12345"),
                            (b'"abc"', "abc", '"abc" is JSON: the string abc'),
                            (b"hello world", "hello world", "hello world is not JSON: the string itself (choice)"),
                            (jtext(MAX_RATING), MAX_RATING, "a JSON object"),
                            (b"true", True, "true is JSON: the boolean true"),
                            (b"", "", 'the empty plaintext is not JSON: the empty string ""'),
                            (b"null", None, "null is JSON: the value null"),
                            (b"12345abc", "12345abc", "12345abc is not JSON (trailing characters): the string itself"),
                            (b"[]", [], "[] is JSON: the empty array"),
                            (b"-0.5e2", -50.0, "-0.5e2 is JSON: the number -50.0"),
                            (b" 3456789 ", 3456789, "a raw ID made of digits with spaces around is JSON: a number, not a string"),
                            (b"3456789", 3456789, "a raw ID made of digits comes back as a number: encrypt strings as JSON text"),
                            ("Z\u00fcrich".encode("utf-8"), "Z\u00fcrich", "raw UTF-8 text that is not JSON: the string itself"),
                            (b"{'a': 1}", "{'a': 1}", "single-quoted pseudo-JSON is not JSON: the string itself")]:
        value_case(c, "RSA blocks: " + what, b64(rsa_blocks(pt)), value, name="custom")
    for pt, value, enc, what in [(b"hello world", "hello world", "A256GCM", "hello world"),
                                 (b"", "", "A128GCM", "empty plaintext (empty ciphertext part)"),
                                 (b"", "", "A128CBC-HS256", "empty plaintext (one block of padding)"),
                                 (b"false", False, "A256CBC-HS512", "false")]:
        value_case(c, "JWE RSA-OAEP / %s: %s" % (enc, what), jwe_value(plaintext=pt, enc=enc), value, name="custom")


def document_cases():
    c = "document/"
    # the FORMATS.md §2 example
    doc = v1({"zip": rsa_value(ZIP), "householdID": rsa_value(HOUSEHOLD), "maxRating": MAX_RATING,
              "userID": "tvekit-user-0001", "channelID": CHANNELS}, ["zip", "householdID"])
    add(c + "formats-example", "FORMATS.md section 2 example: zip and householdID encrypted (RSA blocks), the rest plain", document=doc,
        updated=UPDATED, data={"zip": ZIP, "householdID": HOUSEHOLD, "maxRating": MAX_RATING, "userID": "tvekit-user-0001", "channelID": CHANNELS})
    doc = v1({"zip": jwe_value(ZIP), "householdID": jwe_value(HOUSEHOLD, alg="RSA-OAEP-256", enc="A256GCM"), "maxRating": MAX_RATING,
              "userID": "tvekit-user-0001", "channelID": CHANNELS}, ["zip", "householdID"])
    add(c + "formats-example", "the same example with the two values as JWE", document=doc, updated=UPDATED,
        data={"zip": ZIP, "householdID": HOUSEHOLD, "maxRating": MAX_RATING, "userID": "tvekit-user-0001", "channelID": CHANNELS})
    five = {"zip": ZIP, "householdID": "hh-0042", "maxRating": MAX_RATING, "userID": "user-1234", "channelID": CHANNELS}
    plain = {"upstreamUserID": "up-77", "language": "en", "is_hoh": "1", "typeID": "Primary", "primaryOID": "oid-9"}
    data = {k: rsa_value(v) for k, v in five.items()}
    data.update(plain)
    add(c + "several-keys", "5 encrypted keys (RSA blocks) and 5 plain keys", document=v1(data, list(five)), updated=UPDATED,
        data={**five, **plain})
    encs = [("RSA-OAEP", "A128GCM"), ("RSA-OAEP-256", "A256GCM"), ("RSA-OAEP", "A128CBC-HS256"), ("RSA-OAEP-256", "A256CBC-HS512"),
            ("RSA-OAEP", "A256GCM")]
    data = {k: jwe_value(v, alg=a, enc=e) for (k, v), (a, e) in zip(five.items(), encs)}
    data.update(plain)
    add(c + "several-keys", "5 encrypted keys (JWE, mixed algorithms) and 5 plain keys", document=v1(data, list(five)), updated=UPDATED,
        data={**five, **plain})
    data = {"zip": rsa_value(ZIP), "householdID": jwe_value("hh-0042"), "maxRating": wrap(rsa_value(MAX_RATING), 76, "\n"),
            "userID": jwe_value("user-1234", alg="RSA-OAEP-256", enc="A128CBC-HS256"), "channelID": CHANNELS}
    add(c + "mixed-encodings", "RSA blocks, wrapped RSA blocks and JWE values in one document", document=v1(data, ["zip", "householdID", "maxRating", "userID"]),
        updated=UPDATED, data={"zip": ZIP, "householdID": "hh-0042", "maxRating": MAX_RATING, "userID": "user-1234", "channelID": CHANNELS})
    data = {k: rsa_value(v, key="other") for k, v in five.items()}
    add(c + "several-keys", "5 encrypted keys to the other key, decryptor given other", document=v1(data, list(five)), key="other",
        updated=UPDATED, data=five)
    # plain only
    add(c + "plain-only", 'no "encrypted" member: every value plain', document=v1({**plain, "maxRating": MAX_RATING}), updated=UPDATED,
        data={**plain, "maxRating": MAX_RATING})
    add(c + "plain-only", '"encrypted": [] and plain values', document=v1({"userID": "u-1", "zip": ZIP}, []), updated=UPDATED,
        data={"userID": "u-1", "zip": ZIP})
    add(c + "plain-only", 'empty "data"', document=v1({}, []), updated=UPDATED, data={})
    t = rsa_value(ZIP)
    add(c + "plain-only", 'a plain value that looks like a ciphertext stays a string when not listed in "encrypted"',
        document=v1({"zip": t}), updated=UPDATED, data={"zip": t})
    add(c + "plain-only", '"updated" 0', document=v1({"a": 1}, updated=0), updated=0, data={"a": 1})
    add(c + "plain-only", '"updated" 9223372036854775807 (Int64.max; read it as an integer, not a Double)',
        document=v1({"a": 1}, updated=2**63 - 1), updated=2**63 - 1, data={"a": 1})
    add(c + "plain-only", '"updated" negative', document=v1({"a": 1}, updated=-5), updated=-5, data={"a": 1})
    # v2
    attrs = {"userID": {"value": "user-1234", "state": "plain"},
             "zip": {"value": rsa_value(ZIP), "state": "enc"},
             "householdID": {"value": jwe_value("hh-0042", alg="RSA-OAEP-256", enc="A256GCM"), "state": "enc"},
             "maxRating": {"value": MAX_RATING, "state": "plain"},
             "hba_status": {"value": True, "state": "plain"},
             "channelID": {"value": jwe_value(CHANNELS, enc="A128CBC-HS256"), "state": "enc"}}
    add(c + "v2-attributes", 'REST v2 "attributes": plain and enc values (RSA blocks and JWE); updated is null', document={"attributes": attrs},
        updated=None, data={"userID": "user-1234", "zip": ZIP, "householdID": "hh-0042", "maxRating": MAX_RATING, "hba_status": True,
                            "channelID": CHANNELS})
    add(c + "v2-attributes", 'REST v2: an attribute object with an extra member ("source") is read as usual',
        document={"attributes": {"zip": {"value": rsa_value(ZIP), "state": "enc", "source": "mvpd"}}}, updated=None, data={"zip": ZIP})
    add(c + "v2-attributes", "REST v2: a plain value that is a string, number, array and null", document={"attributes": {
        "a": {"value": "s", "state": "plain"}, "b": {"value": 7, "state": "plain"}, "c": {"value": [1, "x"], "state": "plain"},
        "d": {"value": None, "state": "plain"}}}, updated=None, data={"a": "s", "b": 7, "c": [1, "x"], "d": None})
    add(c + "v2-attributes", 'REST v2: empty "attributes"', document={"attributes": {}}, updated=None, data={})
    # unknown keys
    data = {"favoriteTeam": {"name": "Testers", "since": 1999, "colors": ["red", None, True, 1.5]}, "x-flags": [1, 2, 3],
            "customEncrypted": rsa_value({"tier": "gold", "n": 3}), "nothing": None, "userID": "u-9"}
    add(c + "unknown-keys", "unknown keys, plain (object, array, null) and encrypted, are kept as JSON values",
        document=v1(data, ["customEncrypted"]), updated=UPDATED,
        data={**data, "customEncrypted": {"tier": "gold", "n": 3}})
    add(c + "unknown-keys", "unknown top-level members are ignored",
        document={"updated": UPDATED, "encrypted": ["zip"], "data": {"zip": rsa_value(ZIP)}, "status": "ok", "version": 2},
        updated=UPDATED, data={"zip": ZIP})
    # Unicode
    uvals = {"userID": "J\u00fcrgen-\u00d8rsted", "householdID": "\u5bb6\u5ead-42", "channelID": ["\U0001F4FA kan\u00e1l", "\u0422\u0412-1"],
             "r\u00e9gion": "\u00cele-de-France"}
    data = {"userID": rsa_value(uvals["userID"]), "householdID": jwe_value(uvals["householdID"]),
            "channelID": rsa_value(uvals["channelID"]), "r\u00e9gion": jwe_value(uvals["r\u00e9gion"], enc="A256CBC-HS512"),
            "language": "fran\u00e7ais"}
    add(c + "unicode", "non-ASCII UTF-8 values (2-, 3- and 4-byte sequences), a non-ASCII key, encrypted and plain",
        document=v1(data, ["userID", "householdID", "channelID", "r\u00e9gion"]), updated=UPDATED, data={**uvals, "language": "fran\u00e7ais"})
    add(c + "unicode", "a value with JSON escapes inside the encrypted JSON text (\\u00e9, \\n, \\\", \\ud83d\\udcfa)",
        document=one(b64(rsa_blocks(b'"caf\\u00e9\\n\\"q\\" \\ud83d\\udcfa"')), "userID"), updated=UPDATED,
        data={"userID": 'caf\u00e9\n"q" \U0001F4FA'})
    # Apple SSO and booleans
    data = {"tokenSource": "Apple", "hba_status": True, "allowMirroring": False, "userID": rsa_value("apple-user-1"),
            "zip": rsa_value(ZIP)}
    add(c + "apple-sso", 'tokenSource "Apple" and booleans hba_status / allowMirroring, plain', document=v1(data, ["userID", "zip"]),
        updated=UPDATED, data={**data, "userID": "apple-user-1", "zip": ZIP})
    data = {"tokenSource": rsa_value("Apple"), "hba_status": rsa_value(False), "allowMirroring": jwe_value(True, enc="A256GCM")}
    add(c + "apple-sso", "tokenSource, hba_status and allowMirroring encrypted (plaintexts \"Apple\", false, true)",
        document=v1(data, ["tokenSource", "hba_status", "allowMirroring"]), updated=UPDATED,
        data={"tokenSource": "Apple", "hba_status": False, "allowMirroring": True})

    # malformed documents
    c = "document/"
    for text, what in [("not json", "not JSON"), ('{"updated": 1, "data": {}', "truncated JSON"), ("", "empty text"),
                       ("{'updated': 1, 'data': {}}", "single-quoted pseudo-JSON"), ('{"updated": 1, "data": {}} x', "trailing characters"),
                       ('{"updated": NaN, "data": {}}', "NaN")]:
        add(c + "not-json", "document text: " + what, text=text, error=MALFORMED_DOC)
    for text, what in [('[{"updated": 1, "data": {}}]', "a JSON array"), ('"text"', "a JSON string"), ("42", "a JSON number"),
                       ("null", "null")]:
        add(c + "top-level", "the top level is " + what, text=text, error=MALFORMED_DOC)
    add(c + "shape", 'an object with neither "data" nor "attributes"', document={"updated": UPDATED, "encrypted": []}, error=MALFORMED_DOC)
    add(c + "shape", "an empty object", document={}, error=MALFORMED_DOC)
    good = rsa_value(ZIP)
    for upd, what in [(None, "missing"), ("1334243471", "a string"), ("null", "null"), (True, "true"), (1.5, "1.5")]:
        d = {"encrypted": ["zip"], "data": {"zip": good}}
        if upd is not None:
            d["updated"] = None if upd == "null" else upd
        add(c + "updated", '"updated" ' + what, document=d, error=MALFORMED_DOC)
    add(c + "data", '"data" an array', document={"updated": UPDATED, "encrypted": [], "data": [good]}, error=MALFORMED_DOC)
    add(c + "data", '"data" a string', document={"updated": UPDATED, "data": "zip"}, error=MALFORMED_DOC)
    add(c + "data", '"data" null', document={"updated": UPDATED, "data": None}, error=MALFORMED_DOC)
    for enc, what in [("zip", 'a string ("zip")'), ([1], "an array holding a number"), (["zip", 2], "an array holding a name and a number"),
                      (None, "null (present, so it must be an array)"), ({"zip": True}, "an object"), ([["zip"]], "an array holding an array")]:
        add(c + "encrypted", '"encrypted" ' + what, document={"updated": UPDATED, "encrypted": enc, "data": {"zip": good}}, error=MALFORMED_DOC)
    add(c + "encrypted-key-missing", '"encrypted" lists "householdID", which "data" lacks',
        document=v1({"zip": good}, ["zip", "householdID"]), error=MALFORMED_DOC)
    add(c + "encrypted-key-missing", '"encrypted" lists "ZIP", "data" has "zip" (names are case-sensitive)',
        document=v1({"zip": good}, ["ZIP"]), error=MALFORMED_DOC)
    for val, what in [(ZIP, "an array (the decrypted form)"), (12345, "a number"), (None, "null"), (MAX_RATING, "an object"), (True, "true")]:
        add(c + "encrypted-value-type", "the value of an encrypted key is " + what, document=v1({"zip": val}, ["zip"]), error=MALFORMED_DOC)
    for attrs, what in [([{"value": good, "state": "enc"}], '"attributes" an array'),
                        ("zip", '"attributes" a string'),
                        ({"zip": good}, "an attribute that is a string, not {value, state}"),
                        ({"zip": {"value": good, "state": "encrypted"}}, 'state "encrypted"'),
                        ({"zip": {"value": good, "state": "ENC"}}, 'state "ENC" (case-sensitive)'),
                        ({"zip": {"value": ZIP, "state": "PLAIN"}}, 'state "PLAIN"'),
                        ({"zip": {"value": good}}, "state missing"),
                        ({"zip": {"value": good, "state": None}}, "state null"),
                        ({"zip": {"state": "plain"}}, "value missing"),
                        ({"zip": {"value": ZIP, "state": "enc"}}, 'state "enc" with an array value'),
                        ({"zip": {"value": 12345, "state": "enc"}}, 'state "enc" with a number value'),
                        ({"zip": {"value": None, "state": "enc"}}, 'state "enc" with a null value')]:
        add(c + "v2", "REST v2: " + what, document={"attributes": attrs}, error=MALFORMED_DOC)
    # order
    add("order/document-before-value", 'a structural defect ("updated" a string) and a value that does not decrypt: malformedDocument',
        document={"updated": "x", "encrypted": ["zip"], "data": {"zip": rsa_value(ZIP, key="other")}}, error=MALFORMED_DOC)
    add("order/document-before-value", 'a malformed ciphertext and an "encrypted" entry missing from "data": malformedDocument',
        document=v1({"zip": "***"}, ["zip", "householdID"]), error=MALFORMED_DOC)


def limit_cases():
    c = "limits/"
    head = '{"updated":%d,"data":{"tokenSource":"Apple"}' % UPDATED
    n_ws = MAX_DOCUMENT - len(head) - 1
    add(c + "document", "a document of exactly 1048576 bytes (1 MiB, padded with spaces) is accepted",
        repeat={"prefix": head, "repeat": " ", "count": n_ws, "suffix": "}"}, updated=UPDATED, data={"tokenSource": "Apple"})
    add(c + "document", "a document of 1048577 bytes (1 MiB + 1, padded with spaces)",
        repeat={"prefix": head, "repeat": " ", "count": n_ws + 1, "suffix": "}"}, error=TOO_LARGE)
    add(c + "document", "a document with a 1100000-character plain string (over 1 MiB)",
        repeat={"prefix": '{"updated":%d,"data":{"note":"' % UPDATED, "repeat": "a", "count": 1100000, "suffix": '"}}'}, error=TOO_LARGE)
    add(c + "document", "over 1 MiB and not JSON either: the size is checked first",
        repeat={"prefix": "[", "repeat": "x", "count": MAX_DOCUMENT, "suffix": ""}, error=TOO_LARGE)
    # values: whitespace-padded to the limit
    t = rsa_value(ZIP)
    vhead = '{"updated":%d,"encrypted":["zip"],"data":{"zip":"' % UPDATED
    add(c + "value", "an encrypted value of exactly 65536 bytes: 344 Base64 characters and 65192 spaces (accepted)",
        repeat={"prefix": vhead + t, "repeat": " ", "count": MAX_VALUE - len(t), "suffix": '"}}'}, updated=UPDATED, data={"zip": ZIP})
    add(c + "value", "an encrypted value of 65537 bytes: 344 Base64 characters and 65193 spaces",
        repeat={"prefix": vhead + t, "repeat": " ", "count": MAX_VALUE - len(t) + 1, "suffix": '"}}'}, error=TOO_LARGE)
    # real Base64 of 192 / 195 blocks: three blocks (768 bytes, 1024 symbols, no padding) per unit
    first = b64(rsa_blocks(None, parts=[b"[", b" ", b" "]))
    unit = b64(rsa_blocks(None, parts=[b" " * CHUNK] * 3))
    last = b64(rsa_blocks(None, parts=[b" ", b" ", b"1]"]))
    assert len(first) == len(unit) == len(last) == 1024
    add(c + "value", "an encrypted value of exactly 65536 Base64 characters: 192 blocks (plaintext '[' + spaces + '1]') (accepted)",
        repeat={"prefix": vhead + first, "repeat": unit, "count": 62, "suffix": last + '"}}'}, updated=UPDATED, data={"zip": [1]})
    add(c + "value", "an encrypted value of 66560 Base64 characters (195 valid blocks): over 64 KiB",
        repeat={"prefix": vhead + first, "repeat": unit, "count": 63, "suffix": last + '"}}'}, error=TOO_LARGE)
    j = make_jwe(jtext(ZIP))
    p = j.parts()
    add(c + "value", "a JWE of over 64 KiB (a 70000-symbol ciphertext part)",
        repeat={"prefix": vhead + ".".join(p[:3]) + ".", "repeat": "A", "count": 70000, "suffix": "." + p[4] + '"}}'}, error=TOO_LARGE)
    add(c + "value", "a REST v2 enc value of 65537 bytes", repeat={
        "prefix": '{"attributes":{"zip":{"state":"enc","value":"' + t, "repeat": "\\n", "count": MAX_VALUE - len(t) + 1, "suffix": '"}}}'},
        error=TOO_LARGE)


# ---------------------------------------------------------------------------------------------
# Independent checks
# ---------------------------------------------------------------------------------------------


def encrypted_values(doc):
    _, items = entries(doc)
    return [(name, value) for name, enc, value in items if enc]


def lenient_decrypt(j, transport, content, key="primary"):
    """Decrypts with the transport and content algorithm given (ignoring what the header says), using
    cryptography's OAEP / PKCS#1 v1.5 decryption for the key: shows an 'unsupported' case is a real encryption."""
    if transport == "RSA1_5":
        cek = pkcs1_type2_decode(raw_decrypt(key, j.ek))
    else:
        h = {"RSA-OAEP": hashes.SHA1(), "RSA-OAEP-256": hashes.SHA256(), "RSA-OAEP-384": hashes.SHA384(), "RSA-OAEP-512": hashes.SHA512()}[transport]
        cek = KEYS[key].decrypt(j.ek, padding.OAEP(mgf=padding.MGF1(h), algorithm=h, label=None))
    return content_decrypt(content, cek, j.iv, j.header_b64.encode("ascii"), j.ct, j.tag)


def run_independent_checks():
    for case, checks in CHECKS:
        key, allow15 = case["key"], case["allowRSA1_5"]
        if "expected" in case:
            doc = parse_json(input_bytes(case).decode("utf-8"))
            for name, text in encrypted_values(doc):
                pt = independent_plaintext(text, key, allow15)
                got = plaintext_value(pt)
                assert canon(got) == canon(case["expected"]["data"][name]), f"case {case['id']}: independent path gives {got!r}"
        for check in checks:
            kind = check[0]
            if kind == "fail":
                failed = independent_fails(check[1], key, allow15)
                assert failed is not False, f"case {case['id']}: the independent path accepts the value"
                STATS["failConfirmed" if failed else "failUnconfirmed"] += 1
            elif kind == "lenient":
                got = jwcrypto_decrypt(check[1], key, jwcrypto_algs(allow15))
                assert got == check[2], f"case {case['id']}: jwcrypto was expected to accept this (README says so); got {got!r}"
                STATS["lenientConfirmed"] += 1
            elif kind == "real":
                _, j, transport, content, pt, jw_algs = check
                assert lenient_decrypt(j, transport, content, key) == pt, f"case {case['id']}: not a real encryption"
                if jw_algs:
                    got = jwcrypto_decrypt(j.compact(), key, jw_algs)
                    assert got == pt, f"case {case['id']}: jwcrypto with {jw_algs} gives {got!r}"
                STATS["realConfirmed"] += 1
            elif kind == "non-utf8":
                got = jwcrypto_decrypt(check[1], key, jwcrypto_algs(allow15))
                assert got == check[2], f"case {case['id']}: jwcrypto gives {got!r}"
                try:
                    got.decode("utf-8")
                    raise AssertionError(f"case {case['id']}: plaintext is UTF-8")
                except UnicodeDecodeError:
                    STATS["failConfirmed"] += 1
            elif kind == "jwcrypto-inflates":
                got = jwcrypto_decrypt(check[1], key, ["RSA-OAEP", "A128GCM"])
                assert got == check[2], f"case {case['id']}: jwcrypto does not inflate to the plaintext: {got!r}"
            else:
                raise AssertionError(kind)
    # Every decryptionFailed case was confirmed on the independent path.
    for case, checks in CHECKS:
        if case.get("error") == DECRYPT:
            assert any(ch[0] in ("fail", "non-utf8") for ch in checks), f"case {case['id']}: decryptionFailed without a check"


def main():
    rsa_block_cases()
    jwe_cases()
    plaintext_cases()
    document_cases()
    limit_cases()

    ids = [t["id"] for t in TESTS]
    assert ids == list(range(1, len(TESTS) + 1)) and len(set(ids)) == len(ids)
    for code in ERROR_CODES:
        assert any(t.get("error") == code for t in TESTS), code
    for t in TESTS:
        assert ("expected" in t) != ("error" in t)
        assert sum(k in t for k in ("document", "documentText", "documentTextRepeat")) == 1
    pairs = {(a, e) for a in SUPPORTED_ALGS for e in SUPPORTED_ENCS}
    seen = set()
    for t in TESTS:
        if "expected" in t and "document" in t:
            for _, text in encrypted_values(t["document"]):
                if text.count(".") == 4:
                    h = json.loads(base64.urlsafe_b64decode(text.split(".")[0] + "=="))
                    seen.add((h["alg"], h["enc"]))
    assert pairs <= seen, pairs - seen

    run_independent_checks()

    doc = {
        "schema": "tvekit-user-metadata-v1",
        "generator": "TestVectors/user-metadata/generate.py",
        "generatedWith": {"python": platform.python_version(), "cryptography": cryptography.__version__,
                          "jwcrypto": importlib.metadata.version("jwcrypto")},
        "keys": PEMS,
        "numberOfTests": len(TESTS),
        "tests": TESTS,
    }
    data = (json.dumps(doc, indent=2, ensure_ascii=True) + "\n").encode("ascii")
    with open(OUT_PATH, "wb") as f:
        f.write(data)

    classes = {}
    for t in TESTS:
        r = t.get("error", "valid")
        classes.setdefault(t["class"], {}).setdefault(r, 0)
        classes[t["class"]][r] += 1
    for cls in classes:
        detail = ", ".join(f"{k} {v}" for k, v in sorted(classes[cls].items()))
        print(f"{cls:40s} {sum(classes[cls].values()):3d}  ({detail})")
    totals = {}
    for t in TESTS:
        r = t.get("error", "valid")
        totals[r] = totals.get(r, 0) + 1
    print("total %d cases: %s" % (len(TESTS), ", ".join(f"{k} {v}" for k, v in sorted(totals.items()))))
    print("independent path: %d JWE values decrypted by jwcrypto, %d RSA blocks by cryptography, %d by the openssl tool%s; "
          "%d failures confirmed%s, %d jwcrypto leniencies confirmed, %d 'unsupported' cases shown to be real encryptions"
          % (STATS["jwcrypto"], STATS["cryptographyBlocks"], STATS["opensslBlocks"], "" if _keyfiles else " (openssl 3 not found: skipped)",
             STATS["failConfirmed"], " (%d RSA-block failures unconfirmed without openssl)" % STATS["failUnconfirmed"] if STATS["failUnconfirmed"] else "",
             STATS["lenientConfirmed"], STATS["realConfirmed"]))
    print(f"wrote {os.path.relpath(OUT_PATH)} ({len(data)} bytes, sha256 {hashlib.sha256(data).hexdigest()})")


if __name__ == "__main__":
    main()

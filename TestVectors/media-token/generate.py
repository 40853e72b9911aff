#!/usr/bin/env python3
"""Generates TestVectors/media-token/media_token_test.json, the short-media-token test vectors.

Run from the repository root:  python3 TestVectors/media-token/generate.py
Needs Python 3 and the `cryptography` package only.

The three RSA-2048 test keys live in keys.json beside this script. When keys.json is missing the
script generates new keys and writes it; otherwise it reuses them. Everything else is derived
deterministically (RSASSA-PKCS1-v1_5 is deterministic, the PSS case uses a fixed salt, "random"
bytes come from SHA-256), so with the same keys.json every run writes a byte-identical file.

Every key here is a throw-away test key: never use it for anything else.

The format the vectors encode is documented in README.md beside this script. Before the file is
written, every case is run through the small reference verifier below (an executable form of
that specification) and must give exactly the expected results; VALID cases additionally get
their signature re-verified against the certificate in the output and their fields compared with
the values the token was built from.
"""

import base64
import datetime
import hashlib
import json
import os
import re
import sys
import unicodedata

from cryptography import x509
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import padding, rsa
from cryptography.x509.oid import NameOID

HERE = os.path.dirname(os.path.abspath(__file__))
OUT_PATH = os.path.join(HERE, "media_token_test.json")
KEYS_PATH = os.path.join(HERE, "keys.json")

KEY_NAMES = ["primary", "rotated", "untrusted"]
SERIALS = {"primary": 0x7E5E0001, "rotated": 0x7E5E0002, "untrusted": 0x7E5E0003}

# ---------------------------------------------------------------------------------------------
# Base values
# ---------------------------------------------------------------------------------------------

NOW = 1767225600000          # 2026-01-01T00:00:00Z
ISSUE = NOW - 100000
TTL = 420000
EXPIRY = ISSUE + TTL         # first instant at which the token is expired (skew 0)
REQ = "tvekit-test"
RES = "tvekit-resource"
I64MAX = 2**63 - 1
I64MIN = -(2**63)

ORDER = ["sessionGUID", "requestorID", "resourceID", "ttl", "issueTime", "mvpdId", "proxyMvpdId"]
BASE = {
    "sessionGUID": "a-uuid-like-string",
    "requestorID": REQ,
    "resourceID": RES,
    "ttl": str(TTL),
    "issueTime": str(ISSUE),
    "mvpdId": "TestMVPD",
    "proxyMvpdId": "TestProxyMVPD",
}

MAX_INPUT = 65536
MAX_FIELD = 16384

RESULT_CODES = {
    "VALID_TOKEN", "INVALID_TOKEN_FORMAT", "INVALID_SIGNATURE", "TOKEN_EXPIRED",
    "TOKEN_NOT_YET_VALID", "INVALID_REQUESTOR_ID", "INVALID_RESOURCE_ID", "TOKEN_REPLAYED",
}
VALID = "VALID_TOKEN"
FMT = "INVALID_TOKEN_FORMAT"
SIG = "INVALID_SIGNATURE"
EXPIRED = "TOKEN_EXPIRED"
NOTYET = "TOKEN_NOT_YET_VALID"
BADREQ = "INVALID_REQUESTOR_ID"
BADRES = "INVALID_RESOURCE_ID"
REPLAYED = "TOKEN_REPLAYED"

# ---------------------------------------------------------------------------------------------
# Keys and certificates
# ---------------------------------------------------------------------------------------------


def load_or_create_keys():
    if os.path.exists(KEYS_PATH):
        with open(KEYS_PATH, "r", encoding="utf-8") as f:
            stored = json.load(f)
        keys = {}
        for name in KEY_NAMES:
            pem = stored[name]["privateKeyPem"].encode("ascii")
            key = serialization.load_pem_private_key(pem, password=None)
            if not isinstance(key, rsa.RSAPrivateKey) or key.key_size != 2048:
                sys.exit(f"keys.json: {name} is not an RSA-2048 private key")
            keys[name] = key
        return keys
    keys = {name: rsa.generate_private_key(public_exponent=65537, key_size=2048) for name in KEY_NAMES}
    stored = {name: {"privateKeyPem": pkcs8_pem(keys[name])} for name in KEY_NAMES}
    with open(KEYS_PATH, "w", encoding="utf-8", newline="\n") as f:
        f.write(json.dumps(stored, indent=2) + "\n")
    print(f"generated new keys, wrote {os.path.relpath(KEYS_PATH)}")
    return keys


def pkcs8_pem(key):
    return key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    ).decode("ascii")


def self_signed_certificate(name, key):
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, f"TVEKit media-token test {name}")])
    cert = (
        x509.CertificateBuilder()
        .subject_name(subject)
        .issuer_name(subject)
        .public_key(key.public_key())
        .serial_number(SERIALS[name])
        .not_valid_before(datetime.datetime(2020, 1, 1, tzinfo=datetime.timezone.utc))
        .not_valid_after(datetime.datetime(2120, 1, 1, tzinfo=datetime.timezone.utc))
        .sign(key, hashes.SHA256())
    )
    return cert


KEYS = load_or_create_keys()
CERTS = {name: self_signed_certificate(name, KEYS[name]) for name in KEY_NAMES}
CERT_PEMS = {name: CERTS[name].public_bytes(serialization.Encoding.PEM).decode("ascii") for name in KEY_NAMES}

# ---------------------------------------------------------------------------------------------
# Token construction
# ---------------------------------------------------------------------------------------------


def esc(s):
    """Escapes the five XML characters; every other character is written as is."""
    return (s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
            .replace('"', "&quot;").replace("'", "&apos;"))


def wire(v):
    """A field value as it goes on the wire: str is escaped and UTF-8 encoded, bytes are used verbatim."""
    return v if isinstance(v, bytes) else esc(v).encode("utf-8")


def elem(name, content):
    n = name.encode("ascii")
    return b"<" + n + b">" + content + b"</" + n + b">"


def fields_of(over=None):
    f = dict(BASE)
    if over:
        f.update(over)
    return f


def sat(over=None, omit=(), order=None):
    """The <shortAuthorizationToken> element bytes."""
    f = fields_of(over)
    parts = [elem(n, wire(f[n])) for n in (order or ORDER) if n not in omit]
    return b"<shortAuthorizationToken>" + b"".join(parts) + b"</shortAuthorizationToken>"


def sign(data, key="primary", hash_alg=None):
    return KEYS[key].sign(data, padding.PKCS1v15(), hash_alg or hashes.SHA256())


def b64(data):
    return base64.b64encode(data)


def token(sat_bytes, key="primary", sig=None, sig_text=None, sign_over=None):
    """The full token text: <signatureInfo>SIG</signatureInfo> followed by sat_bytes."""
    if sig_text is None:
        if sig is None:
            sig = sign(sat_bytes if sign_over is None else sign_over, key)
        sig_text = b64(sig)
    return b"<signatureInfo>" + sig_text + b"</signatureInfo>" + sat_bytes


LOGICAL = {}  # token bytes -> the field values the token was built from (for the VALID cross-check)


def logical_fields(over=None, proxy_absent=False):
    f = fields_of(over)
    out = {}
    for n in ORDER:
        v = f[n]
        if n == "proxyMvpdId" and proxy_absent:
            v = ""
        out[n] = int(v) if n in ("ttl", "issueTime") else v
    return out


def build(over=None, omit=(), key="primary"):
    """A correctly formed, correctly signed token; records its logical fields."""
    s = sat(over, omit)
    t = token(s, key)
    f = fields_of(over)
    if all(isinstance(v, str) for v in f.values()) and set(omit) <= {"proxyMvpdId"}:
        LOGICAL[t] = logical_fields(over, proxy_absent="proxyMvpdId" in omit)
    return t


def rep(data, old, new, count=1):
    """bytes.replace that insists the pattern occurs exactly `count` times."""
    n = data.count(old)
    assert n == count, (old, n)
    return data.replace(old, new)


def resigned(sat_bytes, key="primary"):
    """Signs the (possibly malformed) element bytes exactly as they appear on the wire, so that a
    lenient parser that still located the element would find a good signature: the only defect
    left is the one under test."""
    return token(sat_bytes, key)


def det_bytes(label, n):
    out = b""
    i = 0
    while len(out) < n:
        out += hashlib.sha256(f"{label}/{i}".encode()).digest()
        i += 1
    return out[:n]


def raw_rsa_sign(key, em):
    nums = KEYS[key].private_numbers()
    n = nums.public_numbers.n
    return pow(int.from_bytes(em, "big"), nums.d, n).to_bytes(256, "big")


def mgf1(seed, length):
    out = b""
    c = 0
    while len(out) < length:
        out += hashlib.sha256(seed + c.to_bytes(4, "big")).digest()
        c += 1
    return out[:length]


def pss_sign_fixed_salt(data, key="primary"):
    """RSASSA-PSS SHA-256 / MGF1-SHA-256 / 32-byte salt, with a fixed salt so the output is
    deterministic (cryptography always draws a random salt)."""
    salt = hashlib.sha256(b"tvekit media-token pss salt").digest()
    mhash = hashlib.sha256(data).digest()
    h = hashlib.sha256(b"\x00" * 8 + mhash + salt).digest()
    em_len = 256  # modulus is 2048 bits, emBits = 2047
    ps = b"\x00" * (em_len - len(salt) - 32 - 2)
    db = ps + b"\x01" + salt
    masked = bytes(a ^ b for a, b in zip(db, mgf1(h, em_len - 32 - 1)))
    masked = bytes([masked[0] & 0x7F]) + masked[1:]
    sig = raw_rsa_sign(key, masked + h + b"\xbc")
    KEYS[key].public_key().verify(
        sig, data, padding.PSS(mgf=padding.MGF1(hashes.SHA256()), salt_length=32), hashes.SHA256())
    return sig


def pkcs1_no_digestinfo(data, key="primary"):
    """EMSA-PKCS1-v1_5 padding around the bare SHA-256 digest (the DigestInfo prefix left out)."""
    d = hashlib.sha256(data).digest()
    em = b"\x00\x01" + b"\xff" * (256 - 3 - len(d)) + b"\x00" + d
    return raw_rsa_sign(key, em)


def wrap(s, width, sep):
    return sep.join(s[i:i + width] for i in range(0, len(s), width))


def messy_b64(s):
    """Base64 broken into 64-column lines with CRLF, each continuation line indented by a space and
    a space every 10 characters (so whitespace also falls inside 4-character groups)."""
    lines = [s[i:i + 64] for i in range(0, len(s), 64)]
    lines = [" ".join(l[j:j + 10] for j in range(0, len(l), 10)) for l in lines]
    return lines[0] + "".join("\r\n " + l for l in lines[1:])


def pad_field_to_total(target_len, field="resourceID"):
    """A token whose `field` is '&'*k + 'a'*m chosen so the raw token text is exactly target_len
    bytes (each '&' costs 5 wire bytes, 1 byte after unescaping)."""
    base_len = len(token(sat({field: ""})))
    need = target_len - base_len
    assert need >= 0
    k, m = divmod(need, 5)
    value = "&" * k + "a" * m
    t = build({field: value})
    assert len(t) == target_len, (len(t), target_len)
    return t, value


# ---------------------------------------------------------------------------------------------
# Reference verifier: an executable form of the specification in README.md
# ---------------------------------------------------------------------------------------------


class FormatError(Exception):
    pass


ENTITIES = {b"amp": b"&", b"lt": b"<", b"gt": b">", b"quot": b'"', b"apos": b"'"}
B64_RE = re.compile(rb"[A-Za-z0-9+/]*={0,2}")


def strict_b64(s):
    if len(s) % 4 != 0 or not B64_RE.fullmatch(s):
        return None
    try:
        d = base64.b64decode(s, validate=True)
    except Exception:
        return None
    if base64.b64encode(d) != s:  # canonical: unused bits zero
        return None
    return d


def unescape(raw):
    if b"<" in raw:
        raise FormatError("raw < in text")
    out = bytearray()
    i = 0
    while i < len(raw):
        if raw[i] == 0x26:
            j = raw.find(b";", i)
            if j < 0 or raw[i + 1:j] not in ENTITIES:
                raise FormatError("bad entity")
            out += ENTITIES[raw[i + 1:j]]
            i = j + 1
        else:
            out.append(raw[i])
            i += 1
    return bytes(out)


def parse(text):
    so, sc = b"<signatureInfo>", b"</signatureInfo>"
    if not text.startswith(so):
        raise FormatError("no <signatureInfo>")
    j = text.find(sc)
    if j < 0:
        raise FormatError("no </signatureInfo>")
    sig_text = text[len(so):j]
    sig = b""
    if sig_text:
        sig = strict_b64(sig_text)
        if sig is None:
            raise FormatError("signature not canonical Base64")
    signed = text[j + len(sc):]
    to, tc = b"<shortAuthorizationToken>", b"</shortAuthorizationToken>"
    if len(signed) < len(to) + len(tc) or not signed.startswith(to) or not signed.endswith(tc):
        raise FormatError("shortAuthorizationToken")
    inner = signed[len(to):-len(tc)]
    fields = {}
    pos = 0
    for n in ORDER:
        o = b"<" + n.encode() + b">"
        c = b"</" + n.encode() + b">"
        if n == "proxyMvpdId" and pos == len(inner):
            fields[n] = b""
            break
        if not inner.startswith(o, pos):
            raise FormatError(f"expected <{n}>")
        k = inner.find(b"<", pos + len(o))
        if k < 0 or not inner.startswith(c, k):
            raise FormatError(f"expected </{n}>")
        fields[n] = unescape(inner[pos + len(o):k])
        pos = k + len(c)
    if pos != len(inner):
        raise FormatError("trailing content in shortAuthorizationToken")
    out = {}
    for n, v in fields.items():
        if len(v) > MAX_FIELD:
            raise FormatError(f"{n} too long")
        try:
            s = v.decode("utf-8", errors="strict")
        except UnicodeDecodeError:
            raise FormatError(f"{n} not UTF-8")
        if n != "proxyMvpdId" and s == "":
            raise FormatError(f"{n} empty")
        if n in ("ttl", "issueTime"):
            if not re.fullmatch(rb"[0-9]+", v) or int(v) > I64MAX:
                raise FormatError(f"{n} not a non-negative Int64")
            out[n] = int(v)
        else:
            out[n] = s
    return sig, signed, out


def sat64(x):
    return max(I64MIN, min(I64MAX, x))


def verify_once(inp, trusted, requestor, resource, now, skew):
    if len(inp) > MAX_INPUT:
        return FMT, None, None
    if inp.startswith(b"<signatureInfo>"):
        text = inp
    else:
        s = bytes(b for b in inp if b not in b" \r\n")
        text = strict_b64(s) if s else None
        if text is None:
            return FMT, None, None
    try:
        sig, signed, fields = parse(text)
    except FormatError:
        return FMT, None, None
    ok = False
    for name in trusted:
        try:
            CERTS[name].public_key().verify(sig, signed, padding.PKCS1v15(), hashes.SHA256())
            ok = True
            break
        except (InvalidSignature, ValueError):
            pass
    if not ok:
        return SIG, signed, None
    if fields["requestorID"].encode("utf-8") != requestor.encode("utf-8"):
        return BADREQ, signed, None
    if resource is not None and fields["resourceID"].encode("utf-8") != resource.encode("utf-8"):
        return BADRES, signed, None
    skew_ms = sat64(skew * 1000)
    lo = sat64(fields["issueTime"] - skew_ms)
    hi = sat64(sat64(fields["issueTime"] + fields["ttl"]) + skew_ms)
    if now < lo:
        return NOTYET, signed, None
    if now >= hi:
        return EXPIRED, signed, None
    return VALID, signed, fields


def reference_verify(inp, trusted, requestor, resource, now, skew, replay_guard, times):
    seen = set()
    results = []
    first_fields = None
    for i in range(times):
        r, signed, fields = verify_once(inp, trusted, requestor, resource, now, skew)
        if replay_guard and r == VALID:
            if signed in seen:
                r = REPLAYED
            else:
                seen.add(signed)
        if i == 0:
            first_fields = fields if r == VALID else None
        results.append(r)
    return results, first_fields


def lenient_signature_ok(text, trusted):
    """Diagnostic for format cases: would a lenient parser that just cut out the
    shortAuthorizationToken element and the Base64 in signatureInfo find a good signature?"""
    m = re.search(rb"<signatureInfo[^>]*>([A-Za-z0-9+/=]+)</signatureInfo>", text)
    a = text.find(b"<shortAuthorizationToken")
    b = text.rfind(b"</shortAuthorizationToken>")
    if not m or a < 0 or b < 0:
        return False
    try:
        sig = base64.b64decode(m.group(1))
    except Exception:
        return False
    for name in trusted:
        try:
            CERTS[name].public_key().verify(sig, text[a:b + len(b"</shortAuthorizationToken>")],
                                            padding.PKCS1v15(), hashes.SHA256())
            return True
        except (InvalidSignature, ValueError):
            pass
    return False


# ---------------------------------------------------------------------------------------------
# Test collection
# ---------------------------------------------------------------------------------------------

TESTS = []
STATS = {"logicalChecked": 0, "signatureRechecked": 0, "formatLenientSigOk": 0, "formatLenientSigNotOk": []}


def add(cls, comment, results, tok=None, enc="b64", text=None, trusted=("primary",), requestor=REQ,
        resource=RES, now=NOW, skew=0, replay=False, expect=None):
    """Adds one case. The input is `text` (a str, used verbatim) or `tok` (the token text as bytes)
    serialized per `enc`: "b64" = standard Base64 on one line, "raw" = the bytes themselves
    (written as utf8 when they are valid UTF-8, else hex), "hex" = the bytes, always as hex."""
    if isinstance(results, str):
        results = [results]
    assert all(r in RESULT_CODES for r in results)
    if text is not None:
        inp = text.encode("utf-8")
        input_str, input_enc = text, "utf8"
    elif enc == "b64":
        input_str, input_enc = b64(tok).decode("ascii"), "utf8"
        inp = input_str.encode("ascii")
    elif enc == "raw":
        inp = tok
        try:
            input_str, input_enc = tok.decode("utf-8"), "utf8"
        except UnicodeDecodeError:
            input_str, input_enc = tok.hex(), "hex"
    elif enc == "hex":
        inp = tok
        input_str, input_enc = tok.hex(), "hex"
    else:
        raise ValueError(enc)

    got, fields = reference_verify(inp, list(trusted), requestor, resource, now, skew, replay, len(results))
    if got != results:
        sys.exit(f"self-check failed for case {len(TESTS) + 1} ({cls}: {comment}): expected {results}, reference verifier says {got}")

    if results[0] == VALID:
        # Independent signature re-check with the certificate as written into the output.
        text_bytes = tok if tok is not None else None
        if text_bytes is None:
            s = bytes(b for b in inp if b not in b" \r\n")
            text_bytes = inp if inp.startswith(b"<signatureInfo>") else base64.b64decode(s)
        m = re.fullmatch(rb"<signatureInfo>([A-Za-z0-9+/=]*)</signatureInfo>(<shortAuthorizationToken>.*</shortAuthorizationToken>)",
                         text_bytes, re.S)
        assert m, "VALID case does not have the token shape"
        sig = base64.b64decode(m.group(1), validate=True)
        verified = False
        for name in trusted:
            cert = x509.load_pem_x509_certificate(CERT_PEMS[name].encode("ascii"))
            try:
                cert.public_key().verify(sig, m.group(2), padding.PKCS1v15(), hashes.SHA256())
                verified = True
            except InvalidSignature:
                pass
        assert verified, f"VALID case {len(TESTS) + 1}: signature does not verify"
        STATS["signatureRechecked"] += 1
        want = expect if expect is not None else LOGICAL.get(text_bytes)
        if want is not None:
            assert want == fields, (comment, want, fields)
            STATS["logicalChecked"] += 1
    elif cls.startswith("format/"):
        text_bytes = tok if tok is not None else inp
        if lenient_signature_ok(text_bytes, trusted):
            STATS["formatLenientSigOk"] += 1
        else:
            STATS["formatLenientSigNotOk"].append(len(TESTS) + 1)

    TESTS.append({
        "id": len(TESTS) + 1,
        "comment": comment,
        "class": cls,
        "trustedKeys": list(trusted),
        "requestorID": requestor,
        "resourceID": resource,
        "now": now,
        "skewSeconds": skew,
        "replayGuard": replay,
        "input": input_str,
        "inputEncoding": input_enc,
        "results": results,
        "fields": fields,
    })


# ---------------------------------------------------------------------------------------------
# The cases
# ---------------------------------------------------------------------------------------------

T0 = build()                       # the base token
S0 = sat()                         # its shortAuthorizationToken element
SIG0 = sign(S0)
SIG0_B64 = b64(SIG0)


def valid_cases():
    c = "valid"
    add(c, "serialized token: standard Base64 of the token text on one line", VALID, T0)
    add(c, "serialized token wrapped at 76 columns with LF (no trailing newline)", VALID, T0,
        text=wrap(b64(T0).decode(), 76, "\n"))
    add(c, "serialized token with CRLF line breaks, indented continuation lines and spaces inside 4-character groups",
        VALID, T0, text=messy_b64(b64(T0).decode()))
    add(c, "raw token text (begins with <signatureInfo>)", VALID, T0, enc="raw")
    t = build({"proxyMvpdId": ""})
    add(c, "proxyMvpdId present but empty: <proxyMvpdId></proxyMvpdId>; fields.proxyMvpdId is \"\"", VALID, t)
    add(c, "proxyMvpdId present but empty, raw token text", VALID, t, enc="raw")
    t = build(omit=("proxyMvpdId",))
    add(c, "proxyMvpdId element absent; fields.proxyMvpdId is \"\"", VALID, t)
    add(c, "proxyMvpdId element absent, raw token text", VALID, t, enc="raw")
    over = {
        "sessionGUID": "s&<>\"'id",
        "requestorID": "req & co <\"tvekit\">",
        "resourceID": "a & b < c > d \"e\" 'f'",
        "mvpdId": "M&M's <MVPD>",
        "proxyMvpdId": "\"proxy\" & 'co' <>",
    }
    t = build(over)
    add(c, "all five entities (&amp; &lt; &gt; &quot; &apos;) in every text field; the verifier is given the unescaped requestor and resource",
        VALID, t, enc="raw", requestor=over["requestorID"], resource=over["resourceID"])
    add(c, "entities in every text field, serialized", VALID, t, requestor=over["requestorID"], resource=over["resourceID"])
    t = build({"requestorID": "&amp;", "resourceID": "&lt;&gt;"})
    add(c, "double escaping: the wire has &amp;amp; and &amp;lt;&amp;gt;, the unescaped values are the literal entity text",
        VALID, t, enc="raw", requestor="&amp;", resource="&lt;&gt;")
    mrss = '<rss version="2.0"><channel><title>X</title></channel></rss>'
    t = build({"resourceID": mrss})
    add(c, "MRSS resourceID (escaped markup on the wire, markup after unescaping)", VALID, t, enc="raw", resource=mrss)
    mrss2 = ('<rss version="2.0" xmlns:media="http://search.yahoo.com/mrss/"><channel><title>TVEKit</title>'
             '<item><title>Episode 1 &amp; 2</title><guid>ep-1</guid>'
             "<media:rating scheme='urn:v-chip'>tv-14</media:rating></item></channel></rss>")
    t = build({"resourceID": mrss2})
    add(c, "MRSS resourceID with an item, a namespace, single quotes and an entity inside the MRSS itself", VALID, t,
        resource=mrss2)
    over = {"sessionGUID": "会话-0001", "requestorID": "テレビ-📺", "resourceID": "频道-🎬-Ελληνικά",
            "mvpdId": "케이블TV", "proxyMvpdId": "Café"}
    t = build(over)
    add(c, "non-ASCII UTF-8 (CJK, Hangul, Greek, emoji, precomposed é) in fields; serialized", VALID, t,
        requestor=over["requestorID"], resource=over["resourceID"])
    add(c, "non-ASCII UTF-8 in fields; raw token text", VALID, t, enc="raw",
        requestor=over["requestorID"], resource=over["resourceID"])
    add(c, "resourceID null: the resource check is skipped", VALID, T0, resource=None)
    t = build({"resourceID": "something-else"})
    add(c, "resourceID null: the resource check is skipped even though the token's resource differs from the usual one",
        VALID, t, resource=None)
    t = build({"ttl": "000420000"})
    add(c, "leading zeros in ttl", VALID, t)
    t = build({"ttl": "0" * 30 + "420000", "issueTime": "000" + str(ISSUE)})
    add(c, "leading zeros in ttl (36 digits, value fits Int64) and in issueTime", VALID, t)
    raw_chars = b"a>b \"c\" 'd'"
    t = token(sat({"resourceID": raw_chars, "sessionGUID": b"it's \"quoted\" >"}))
    add(c, "raw >, \" and ' in text (allowed without escaping); signed as on the wire", VALID, t, enc="raw",
        resource="a>b \"c\" 'd'", expect=logical_fields({"resourceID": "a>b \"c\" 'd'", "sessionGUID": "it's \"quoted\" >"}))
    t = token(sat({"resourceID": b"]]>"}))
    add(c, "the text ]]> (raw > is allowed in text, so this is plain text here)", VALID, t, enc="raw",
        resource="]]>", expect=logical_fields({"resourceID": "]]>"}))
    t = build(key="rotated")
    add(c, "key rotation: trusted primary and rotated, signed by rotated", VALID, t, trusted=("primary", "rotated"))
    add(c, "key rotation: trusted rotated and primary (other order), signed by primary", VALID, T0,
        trusted=("rotated", "primary"))
    add(c, "boundary: now == issueTime (skew 0) is valid", VALID, T0, now=ISSUE)
    add(c, "boundary: now == issueTime - skew (skew 300 s) is valid", VALID, T0, now=ISSUE - 300000, skew=300)
    add(c, "boundary: now == issueTime + ttl - 1 (skew 0) is valid", VALID, T0, now=EXPIRY - 1)
    add(c, "boundary: now == issueTime + ttl + skew - 1 (skew 300 s) is valid", VALID, T0, now=EXPIRY + 300000 - 1, skew=300)
    add(c, "skew widens the window: now == issueTime - 60 s, skew 120 s", VALID, T0, now=ISSUE - 60000, skew=120)
    add(c, "skew widens the window: now == issueTime + ttl + 60 s, skew 120 s", VALID, T0, now=EXPIRY + 60000, skew=120)
    add(c, "sessionGUID a real UUID, mvpdId with spaces, proxy absent, serialized", VALID,
        build({"sessionGUID": "3f2504e0-4f89-11d3-9a0c-0305e82c3301", "mvpdId": "Test MVPD Inc."}, omit=("proxyMvpdId",)))


def format_cases():
    # ---- input-level: not a token at all
    add("format/empty", "empty input", FMT, text="")
    add("format/whitespace-only", "only whitespace (spaces and line breaks)", FMT, text=" \r\n \n ")
    add("format/not-base64-not-raw", "plain text that is neither Base64 nor raw token text", FMT, text="this is not a token!")
    add("format/not-base64-not-raw", "JSON-looking text", FMT, text='{"signatureInfo":"x"}')
    add("format/base64-garbage", "Base64 of 300 pseudo-random bytes", FMT, tok=det_bytes("garbage", 300))
    add("format/base64-garbage", "Base64 applied twice (the decoded text is itself the Base64 serialization)", FMT, tok=b64(T0))
    add("format/base64-invalid-char", "serialized token with a '*' in the middle of the Base64", FMT, T0,
        text=b64(T0).decode()[:100] + "*" + b64(T0).decode()[101:])
    assert b"+" in b64(T0) or b"/" in b64(T0)
    add("format/base64-url-alphabet", "serialized token in the URL-safe alphabet (- and _ instead of + and /)", FMT, T0,
        text=b64(T0).decode().replace("+", "-").replace("/", "_"))

    # ---- bytes before <signatureInfo>
    add("format/leading-bytes", "Base64 of a token preceded by a UTF-8 BOM", FMT, b"\xef\xbb\xbf" + T0)
    add("format/leading-bytes", "Base64 of a token preceded by a space", FMT, b" " + T0)
    add("format/leading-bytes", "Base64 of a token preceded by 'x'", FMT, b"x" + T0)
    add("format/leading-bytes", "raw token text preceded by a space", FMT, b" " + T0, enc="raw")
    add("format/leading-bytes", "raw token text preceded by a newline", FMT, b"\n" + T0, enc="raw")
    add("format/leading-bytes", "raw token text preceded by a UTF-8 BOM (U+FEFF)", FMT, b"\xef\xbb\xbf" + T0, enc="raw")
    add("format/xml-declaration", "XML declaration before the token (serialized)", FMT,
        b'<?xml version="1.0" encoding="UTF-8"?>' + T0)
    add("format/xml-declaration", "XML declaration before the token (raw)", FMT,
        b'<?xml version="1.0" encoding="UTF-8"?>' + T0, enc="raw")
    add("format/doctype", "DOCTYPE before the token", FMT, b"<!DOCTYPE shortAuthorizationToken>" + T0)
    s = rep(S0, b"<requestorID>tvekit-test</requestorID>", b"<requestorID>&req;</requestorID>")
    add("format/doctype", "DOCTYPE with an internal entity that a DTD-processing parser would expand to the requestor (re-signed)",
        FMT, b'<!DOCTYPE t [<!ENTITY req "tvekit-test">]>' + resigned(s))

    # ---- comments, CDATA, processing instructions
    add("format/comment", "comment before <signatureInfo>", FMT, b"<!-- c -->" + T0)
    add("format/comment", "comment between </signatureInfo> and <shortAuthorizationToken> (signature still good)", FMT,
        rep(T0, b"</signatureInfo>", b"</signatureInfo><!-- c -->"), enc="raw")
    add("format/comment", "comment between two children of shortAuthorizationToken (re-signed)", FMT,
        resigned(rep(S0, b"</ttl><issueTime>", b"</ttl><!-- c --><issueTime>")), enc="raw")
    add("format/comment", "comment inside the requestorID text: tvekit<!-- c -->-test (re-signed)", FMT,
        resigned(rep(S0, b"tvekit-test", b"tvekit<!-- c -->-test")), enc="raw")
    add("format/comment", "comment after </shortAuthorizationToken>", FMT, T0 + b"<!-- c -->", enc="raw")
    add("format/comment", "comment inside signatureInfo before the Base64", FMT,
        rep(T0, b"<signatureInfo>", b"<signatureInfo><!---->"), enc="raw")
    add("format/cdata", "CDATA section as the resourceID text (re-signed)", FMT,
        resigned(rep(S0, b"<resourceID>tvekit-resource</resourceID>", b"<resourceID><![CDATA[tvekit-resource]]></resourceID>")), enc="raw")
    add("format/cdata", "CDATA section as part of the requestorID text (re-signed)", FMT,
        resigned(rep(S0, b"<requestorID>tvekit-test</requestorID>", b"<requestorID>tvekit-<![CDATA[test]]></requestorID>")), enc="raw")
    add("format/cdata", "CDATA section around the signature", FMT,
        token(S0, sig_text=b"<![CDATA[" + SIG0_B64 + b"]]>"), enc="raw")
    add("format/processing-instruction", "processing instruction between two children (re-signed)", FMT,
        resigned(rep(S0, b"</mvpdId><proxyMvpdId>", b"</mvpdId><?tvekit note?><proxyMvpdId>")), enc="raw")
    add("format/processing-instruction", "processing instruction before the token", FMT,
        b'<?xml-stylesheet href="a.xsl"?>' + T0)
    add("format/processing-instruction", "processing instruction between the two top-level elements", FMT,
        rep(T0, b"</signatureInfo>", b"</signatureInfo><?pi?>"), enc="raw")

    # ---- attributes
    add("format/attribute", "attribute on shortAuthorizationToken (element re-signed with the attribute)", FMT,
        resigned(rep(S0, b"<shortAuthorizationToken>", b'<shortAuthorizationToken version="1">')), enc="raw")
    add("format/attribute", "xmlns on shortAuthorizationToken (re-signed)", FMT,
        resigned(rep(S0, b"<shortAuthorizationToken>", b'<shortAuthorizationToken xmlns="urn:tvekit">')), enc="raw")
    add("format/attribute", "attribute on signatureInfo (serialized, since raw text must begin with <signatureInfo>)", FMT,
        rep(T0, b"<signatureInfo>", b'<signatureInfo alg="SHA256withRSA">'))
    add("format/attribute", "attribute on resourceID (re-signed)", FMT,
        resigned(rep(S0, b"<resourceID>", b'<resourceID type="mrss">')), enc="raw")
    add("format/attribute", "single-quoted attribute on proxyMvpdId (re-signed)", FMT,
        resigned(rep(S0, b"<proxyMvpdId>", b"<proxyMvpdId kind='x'>")), enc="raw")

    # ---- whitespace between elements, at every boundary type
    add("format/whitespace-between-elements", "space between </signatureInfo> and <shortAuthorizationToken> (signature still good)",
        FMT, rep(T0, b"</signatureInfo><", b"</signatureInfo> <"), enc="raw")
    add("format/whitespace-between-elements", "newline between </signatureInfo> and <shortAuthorizationToken>, serialized",
        FMT, rep(T0, b"</signatureInfo><", b"</signatureInfo>\n<"))
    add("format/whitespace-between-elements", "newline after <shortAuthorizationToken> before the first child (re-signed)", FMT,
        resigned(rep(S0, b"<shortAuthorizationToken><", b"<shortAuthorizationToken>\n<")), enc="raw")
    add("format/whitespace-between-elements", "space between </sessionGUID> and <requestorID> (re-signed)", FMT,
        resigned(rep(S0, b"</sessionGUID><", b"</sessionGUID> <")), enc="raw")
    add("format/whitespace-between-elements", "tab between </ttl> and <issueTime> (re-signed)", FMT,
        resigned(rep(S0, b"</ttl><", b"</ttl>\t<")), enc="raw")
    add("format/whitespace-between-elements", "CRLF between </mvpdId> and <proxyMvpdId> (re-signed)", FMT,
        resigned(rep(S0, b"</mvpdId><", b"</mvpdId>\r\n<")), enc="raw")
    add("format/whitespace-between-elements", "pretty-printed: newline and two-space indent before every child (re-signed)", FMT,
        resigned(S0.replace(b"<sessionGUID>", b"\n  <sessionGUID>").replace(b"</sessionGUID><", b"</sessionGUID>\n  <")
                 .replace(b"</requestorID><", b"</requestorID>\n  <").replace(b"</resourceID><", b"</resourceID>\n  <")
                 .replace(b"</ttl><", b"</ttl>\n  <").replace(b"</issueTime><", b"</issueTime>\n  <")
                 .replace(b"</mvpdId><", b"</mvpdId>\n  <").replace(b"</proxyMvpdId></", b"</proxyMvpdId>\n</")), enc="raw")
    add("format/whitespace-between-elements", "newline after the last child before </shortAuthorizationToken> (re-signed)", FMT,
        resigned(rep(S0, b"</proxyMvpdId></", b"</proxyMvpdId>\n</")), enc="raw")
    add("format/whitespace-in-tag", "space before > in a start tag: <requestorID > (re-signed)", FMT,
        resigned(rep(S0, b"<requestorID>", b"<requestorID >")), enc="raw")
    add("format/whitespace-in-tag", "space before > in an end tag: </requestorID > (re-signed)", FMT,
        resigned(rep(S0, b"</requestorID>", b"</requestorID >")), enc="raw")
    add("format/whitespace-in-tag", "space before > in </shortAuthorizationToken > (re-signed)", FMT,
        resigned(rep(S0, b"</shortAuthorizationToken>", b"</shortAuthorizationToken >")), enc="raw")

    # ---- element order, missing, duplicate, unknown, nested
    for a, b_ in zip(ORDER, ORDER[1:]):
        order = list(ORDER)
        i = order.index(a)
        order[i], order[i + 1] = order[i + 1], order[i]
        add("format/element-order", f"{a} and {b_} swapped (re-signed)", FMT, resigned(sat(order=order)), enc="raw")
    add("format/element-order", "proxyMvpdId first (re-signed)", FMT,
        resigned(sat(order=["proxyMvpdId"] + ORDER[:-1])), enc="raw")
    add("format/element-order", "signatureInfo after shortAuthorizationToken (serialized)", FMT,
        S0 + b"<signatureInfo>" + SIG0_B64 + b"</signatureInfo>")
    for n in ORDER[:-1]:
        add("format/missing-element", f"{n} missing (re-signed)", FMT, resigned(sat(omit=(n,))), enc="raw")
    add("format/missing-element", "signatureInfo missing: only the shortAuthorizationToken element (serialized)", FMT, S0)
    add("format/missing-element", "shortAuthorizationToken missing: only signatureInfo", FMT,
        b"<signatureInfo>" + SIG0_B64 + b"</signatureInfo>", enc="raw")
    add("format/missing-element", "empty shortAuthorizationToken element (re-signed)", FMT,
        resigned(b"<shortAuthorizationToken></shortAuthorizationToken>"), enc="raw")
    add("format/duplicate-element", "requestorID twice in a row, same value (re-signed)", FMT,
        resigned(rep(S0, b"<resourceID>", b"<requestorID>tvekit-test</requestorID><resourceID>")), enc="raw")
    add("format/duplicate-element", "sessionGUID again at the end (re-signed)", FMT,
        resigned(rep(S0, b"</shortAuthorizationToken>", b"<sessionGUID>a-uuid-like-string</sessionGUID></shortAuthorizationToken>")), enc="raw")
    add("format/duplicate-element", "proxyMvpdId twice (re-signed)", FMT,
        resigned(rep(S0, b"</shortAuthorizationToken>", b"<proxyMvpdId>TestProxyMVPD</proxyMvpdId></shortAuthorizationToken>")), enc="raw")
    add("format/duplicate-element", "signatureInfo twice", FMT,
        rep(T0, b"</signatureInfo>", b"</signatureInfo><signatureInfo>" + SIG0_B64 + b"</signatureInfo>"), enc="raw")
    add("format/unknown-element", "unknown element after proxyMvpdId (re-signed)", FMT,
        resigned(rep(S0, b"</shortAuthorizationToken>", b"<extra>x</extra></shortAuthorizationToken>")), enc="raw")
    add("format/unknown-element", "unknown element between mvpdId and proxyMvpdId (re-signed)", FMT,
        resigned(rep(S0, b"<proxyMvpdId>", b"<channelID>x</channelID><proxyMvpdId>")), enc="raw")
    add("format/unknown-element", "unknown element instead of the absent proxyMvpdId (re-signed)", FMT,
        resigned(sat(omit=("proxyMvpdId",)).replace(b"</shortAuthorizationToken>", b"<note></note></shortAuthorizationToken>")), enc="raw")
    add("format/unknown-element", "unknown top-level element between signatureInfo and shortAuthorizationToken", FMT,
        rep(T0, b"</signatureInfo>", b"</signatureInfo><version>1</version>"), enc="raw")
    add("format/unknown-element", "namespace-prefixed child tve:requestorID (re-signed)", FMT,
        resigned(rep(S0, b"<requestorID>tvekit-test</requestorID>", b"<tve:requestorID>tvekit-test</tve:requestorID>")), enc="raw")
    add("format/nested-element", "unescaped MRSS markup inside resourceID (re-signed)", FMT,
        resigned(rep(S0, b"<resourceID>tvekit-resource</resourceID>",
                      b'<resourceID><rss version="2.0"><channel><title>X</title></channel></rss></resourceID>')), enc="raw")
    add("format/nested-element", "requestor text wrapped in an element: <requestorID><b>tvekit-test</b></requestorID> (re-signed)", FMT,
        resigned(rep(S0, b"<requestorID>tvekit-test</requestorID>", b"<requestorID><b>tvekit-test</b></requestorID>")), enc="raw")
    add("format/self-closing", "<proxyMvpdId/> (re-signed)", FMT,
        resigned(rep(S0, b"<proxyMvpdId>TestProxyMVPD</proxyMvpdId>", b"<proxyMvpdId/>")), enc="raw")
    add("format/self-closing", "<proxyMvpdId /> (re-signed)", FMT,
        resigned(rep(S0, b"<proxyMvpdId>TestProxyMVPD</proxyMvpdId>", b"<proxyMvpdId />")), enc="raw")
    add("format/self-closing", "<signatureInfo/> instead of an empty signatureInfo (serialized)", FMT,
        b"<signatureInfo/>" + S0)
    add("format/mismatched-tag", "<mvpdId>...</mvpdID> (re-signed)", FMT,
        resigned(rep(S0, b"</mvpdId>", b"</mvpdID>")), enc="raw")
    add("format/mismatched-tag", "<requestorID>...</resourceID> (re-signed)", FMT,
        resigned(rep(S0, b"tvekit-test</requestorID>", b"tvekit-test</resourceID>")), enc="raw")
    add("format/mismatched-tag", "<signatureInfo>...</signatureinfo>", FMT,
        rep(T0, b"</signatureInfo>", b"</signatureinfo>"), enc="raw")
    add("format/upper-case-tag", "<RequestorID>...</RequestorID> (re-signed)", FMT,
        resigned(S0.replace(b"requestorID>", b"RequestorID>")), enc="raw")
    add("format/upper-case-tag", "<TTL>...</TTL> (re-signed)", FMT,
        resigned(S0.replace(b"ttl>", b"TTL>")), enc="raw")
    add("format/upper-case-tag", "<ShortAuthorizationToken> (re-signed)", FMT,
        resigned(S0.replace(b"shortAuthorizationToken>", b"ShortAuthorizationToken>")), enc="raw")
    add("format/upper-case-tag", "<SignatureInfo> (serialized)", FMT, T0.replace(b"signatureInfo>", b"SignatureInfo>"))
    add("format/missing-closing-tag", "</shortAuthorizationToken> missing (signature over the truncated element)", FMT,
        resigned(S0[:-len(b"</shortAuthorizationToken>")]), enc="raw")
    add("format/missing-closing-tag", "</proxyMvpdId> missing (re-signed)", FMT,
        resigned(rep(S0, b"</proxyMvpdId>", b"")), enc="raw")
    add("format/missing-closing-tag", "</sessionGUID> missing (re-signed)", FMT,
        resigned(rep(S0, b"</sessionGUID>", b"")), enc="raw")
    add("format/missing-closing-tag", "</signatureInfo> missing", FMT, rep(T0, b"</signatureInfo>", b""), enc="raw")

    # ---- trailing bytes
    add("format/trailing-bytes", "text after </shortAuthorizationToken>", FMT, T0 + b"x", enc="raw")
    add("format/trailing-bytes", "newline after </shortAuthorizationToken>, raw", FMT, T0 + b"\n", enc="raw")
    add("format/trailing-bytes", "CRLF after </shortAuthorizationToken>, inside the Base64", FMT, T0 + b"\r\n")
    add("format/trailing-bytes", "space after </shortAuthorizationToken>, inside the Base64", FMT, T0 + b" ")
    add("format/trailing-bytes", "NUL byte after </shortAuthorizationToken> (hex)", FMT, T0 + b"\x00", enc="hex")
    add("format/trailing-bytes", "a second complete token after the first", FMT, T0 + T0, enc="raw")
    add("format/trailing-bytes", "a second shortAuthorizationToken element after the first", FMT, T0 + S0, enc="raw")

    # ---- entities and raw <
    bad_entities = [
        (b"a&nbsp;b", "&nbsp;"), (b"a&#60;b", "decimal character reference &#60;"),
        (b"a&#x3c;b", "hex character reference &#x3c;"), (b"a & b", "bare &"),
        (b"a &amp b", "unterminated &amp followed by text"), (b"a&amp", "unterminated &amp at the end of the text"),
        (b"a&AMP;b", "upper-case &AMP;"), (b"a&;b", "empty entity &;"), (b"a&lt", "unterminated &lt at the end"),
        (b"&apos", "unterminated &apos as the whole text"),
    ]
    for raw, what in bad_entities:
        add("format/bad-entity", f"resourceID contains {what} (re-signed)", FMT,
            resigned(sat({"resourceID": raw})), enc="raw", resource=None)
    add("format/bad-entity", "requestorID contains &#116; (a numeric reference for 't') (re-signed)", FMT,
        resigned(sat({"requestorID": b"&#116;vekit-test"})), enc="raw")
    add("format/bad-entity", "entity inside signatureInfo: &#43; for '+'", FMT,
        token(S0, sig_text=SIG0_B64.replace(b"+", b"&#43;", 1) if b"+" in SIG0_B64 else b"&#65;" + SIG0_B64[1:]), enc="raw")
    add("format/raw-less-than", "raw < inside resourceID text: a<b (re-signed)", FMT,
        resigned(sat({"resourceID": b"a<b"})), enc="raw", resource=None)
    add("format/raw-less-than", "raw < followed by space inside mvpdId: a < b (re-signed)", FMT,
        resigned(sat({"mvpdId": b"a < b"})), enc="raw")

    # ---- ttl / issueTime
    bad_numbers = [
        ("+420000", "leading +"), ("-420000", "leading -"), ("-0", "negative zero"), (" 420000", "leading space"),
        ("420000 ", "trailing space"), ("420 000", "space inside"), ("42O000", "letter O"), ("", "empty"),
        ("420000.0", "decimal point"), ("4.2e5", "exponent"), ("0x66870", "hexadecimal"),
        ("４２００００", "full-width digits"), ("9223372036854775808", "Int64.max + 1 (overflow)"),
        ("99999999999999999999", "20 nines (overflow)"), ("09223372036854775808", "overflow with a leading zero"),
    ]
    for v, what in bad_numbers:
        add("format/bad-ttl", f"ttl {what}: {v!r} (re-signed)", FMT, resigned(sat({"ttl": v})), enc="raw")
    bad_issue = [
        ("+" + str(ISSUE), "leading +"), ("-" + str(ISSUE), "leading -"), (" " + str(ISSUE), "leading space"),
        (str(ISSUE) + "\n", "trailing newline"), ("abc", "letters"), ("", "empty"), (str(ISSUE) + ".0", "decimal point"),
        ("1.7672255e12", "exponent"), ("١٧٦٧٢٢٥٥٠٠٠٠٠", "Arabic-Indic digits"),
        ("9223372036854775808", "Int64.max + 1 (overflow)"), ("99999999999999999999", "20 nines (overflow)"),
    ]
    for v, what in bad_issue:
        add("format/bad-issue-time", f"issueTime {what}: {v!r} (re-signed)", FMT, resigned(sat({"issueTime": v})), enc="raw")

    # ---- empty required fields
    for n in ["sessionGUID", "requestorID", "resourceID", "mvpdId"]:
        add("format/empty-field", f"empty {n}: <{n}></{n}> (re-signed)", FMT, resigned(sat({n: ""})), enc="raw",
            resource=None if n == "resourceID" else RES)

    # ---- invalid UTF-8
    bad_utf8 = [
        ("resourceID", b"tvekit-\x80resource", "lone continuation byte 80"),
        ("sessionGUID", b"a\xc0\xafb", "overlong encoding C0 AF of '/'"),
        ("mvpdId", b"Test\xe2\x82", "truncated 3-byte sequence E2 82 before '<'"),
        ("requestorID", b"tvekit\xed\xa0\x80test", "UTF-16 surrogate U+D800 encoded as ED A0 80"),
        ("proxyMvpdId", b"P\xf4\x90\x80\x80", "code point above U+10FFFF (F4 90 80 80)"),
        ("resourceID", b"res\xffource", "byte FF"),
        ("sessionGUID", b"\xe0\x80\xaf", "3-byte overlong E0 80 AF"),
        ("mvpdId", b"\xf0\x82\x82\xac", "4-byte overlong F0 82 82 AC"),
    ]
    for n, v, what in bad_utf8:
        add("format/invalid-utf8", f"{n} contains {what} (raw token bytes as hex, re-signed)", FMT,
            resigned(sat({n: v})), enc="raw", resource=None if n == "resourceID" else RES)
    add("format/invalid-utf8", "resourceID contains a CESU-8 surrogate pair ED A0 BD ED B8 80 (serialized, re-signed)", FMT,
        resigned(sat({"resourceID": b"x\xed\xa0\xbd\xed\xb8\x80"})), resource=None)

    # ---- signature encoding
    sig_s = SIG0_B64.decode()
    assert sig_s.endswith("==")
    add("format/signature-encoding", "signature contains '!'", FMT, token(S0, sig_text=("!" + sig_s[1:]).encode()), enc="raw")
    add("format/signature-encoding", "signature with a space inside", FMT,
        token(S0, sig_text=(sig_s[:100] + " " + sig_s[100:]).encode()), enc="raw")
    add("format/signature-encoding", "signature wrapped at 76 columns with LF", FMT,
        token(S0, sig_text=wrap(sig_s, 76, "\n").encode()), enc="raw")
    add("format/signature-encoding", "signature with a trailing newline before </signatureInfo>", FMT,
        token(S0, sig_text=(sig_s + "\n").encode()), enc="raw")
    add("format/signature-encoding", "signature without its == padding", FMT, token(S0, sig_text=sig_s[:-2].encode()), enc="raw")
    add("format/signature-encoding", "signature with an extra = (three padding characters)", FMT,
        token(S0, sig_text=(sig_s + "=").encode()), enc="raw")
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
    last = alphabet.index(sig_s[-3])
    assert last & 0x0F == 0
    noncanon = sig_s[:-3] + alphabet[last | 0x01] + "=="
    assert base64.b64decode(noncanon) == SIG0
    add("format/signature-encoding", "signature not canonical: non-zero unused bits before the padding (decodes to the right bytes leniently)",
        FMT, token(S0, sig_text=noncanon.encode()), enc="raw")
    assert "+" in sig_s or "/" in sig_s
    add("format/signature-encoding", "signature in the URL-safe alphabet (- and _)", FMT,
        token(S0, sig_text=sig_s.replace("+", "-").replace("/", "_").encode()), enc="raw")

    # ---- size limits
    t, v = pad_field_to_total(MAX_INPUT)
    add("format/input-size", "raw token text of exactly 65536 bytes (resourceID is 5-byte &amp; entities, under 16384 bytes unescaped)",
        VALID, t, enc="raw", resource=None)
    t, v = pad_field_to_total(MAX_INPUT + 1)
    add("format/input-size", "raw token text of 65537 bytes, every field within its limit", FMT, t, enc="raw", resource=None)
    t, v = pad_field_to_total(MAX_INPUT // 4 * 3)
    assert len(b64(t)) == MAX_INPUT
    add("format/input-size", "serialized token of exactly 65536 Base64 characters", VALID, t, resource=None)
    add("format/input-size", "the same serialized token wrapped at 76 columns: 65536 Base64 characters plus 862 LF = 66398 input bytes",
        FMT, t, text=wrap(b64(t).decode(), 76, "\n"), resource=None)
    t, v = pad_field_to_total(MAX_INPUT // 4 * 3 + 1)
    assert len(b64(t)) == MAX_INPUT + 4
    add("format/input-size", "serialized token of 65540 Base64 characters (the token text itself is only 49153 bytes)", FMT, t, resource=None)
    add("format/input-size", "65540 'A' characters (valid Base64 alphabet and length, over the limit)", FMT, text="A" * (MAX_INPUT + 4))
    t = build({"resourceID": "a" * MAX_FIELD})
    add("format/field-size", "resourceID of exactly 16384 bytes, valid signature", VALID, t, resource=None)
    t = resigned(sat({"resourceID": "a" * (MAX_FIELD + 1)}))
    add("format/field-size", "resourceID of 16385 bytes (re-signed, total under 65536)", FMT, t, resource=None)
    t = build({"resourceID": "é" * (MAX_FIELD // 2)})
    add("format/field-size", "resourceID of 8192 'é' = 16384 UTF-8 bytes: valid (the limit is in bytes)", VALID, t,
        resource=None)
    t = resigned(sat({"resourceID": "é" * (MAX_FIELD // 2 + 1)}))
    add("format/field-size", "resourceID of 8193 'é' = 16386 UTF-8 bytes but only 8193 characters (re-signed)", FMT, t,
        resource=None)
    t = build({"resourceID": "&" * 4000})
    add("format/field-size", "resourceID of 4000 '&': 20000 bytes on the wire, 4000 after unescaping: valid (the limit applies after unescaping)",
        VALID, t, resource=None)
    t = resigned(sat({"sessionGUID": "g" * (MAX_FIELD + 1)}))
    add("format/field-size", "sessionGUID of 16385 bytes (re-signed)", FMT, t)


def signature_cases():
    # field changed after signing
    t = token(sat({"resourceID": "tvekit-resourcf"}), sig=SIG0)
    add("signature/modified-field", "one character of resourceID changed after signing", SIG, t, resource="tvekit-resourcf")
    t = token(sat({"requestorID": "tvekit-tesu"}), sig=SIG0)
    add("signature/modified-field", "requestorID changed after signing (verifier expects the new value)", SIG, t, requestor="tvekit-tesu")
    t = token(sat({"ttl": str(TTL * 1000)}), sig=SIG0)
    add("signature/modified-field", "ttl extended after signing", SIG, t)
    t = token(sat({"proxyMvpdId": ""}), sig=SIG0)
    add("signature/modified-field", "proxyMvpdId emptied after signing", SIG, t)
    t = token(sat(omit=("proxyMvpdId",)), sig=SIG0)
    add("signature/modified-field", "proxyMvpdId element removed after signing", SIG, t)
    t = token(sat(omit=("proxyMvpdId",)), sign_over=sat({"proxyMvpdId": ""}))
    add("signature/wrong-bytes-signed", "token without proxyMvpdId but signature over the element with an empty <proxyMvpdId></proxyMvpdId>", SIG, t)
    # signature bytes damaged
    flipped = SIG0[:-1] + bytes([SIG0[-1] ^ 0x01])
    add("signature/bit-flip", "lowest bit of the last signature byte flipped", SIG, token(S0, sig=flipped))
    flipped = bytes([SIG0[0] ^ 0x80]) + SIG0[1:]
    add("signature/bit-flip", "highest bit of the first signature byte flipped", SIG, token(S0, sig=flipped))
    add("signature/untrusted-key", "signed by the untrusted key", SIG, build(key="untrusted"))
    add("signature/untrusted-key", "trusted keys are only rotated, token signed by primary", SIG, T0, trusted=("rotated",))
    add("signature/untrusted-key", "trusted primary and rotated, token signed by untrusted", SIG, build(key="untrusted"),
        trusted=("primary", "rotated"))
    add("signature/length", "signature truncated to 255 bytes (340 Base64 characters, no padding)", SIG, token(S0, sig=SIG0[:255]), enc="raw")
    add("signature/length", "signature with a 0x00 byte prepended (257 bytes)", SIG, token(S0, sig=b"\x00" + SIG0), enc="raw")
    add("signature/length", "empty signatureInfo: <signatureInfo></signatureInfo>", SIG, token(S0, sig_text=b""), enc="raw")
    add("signature/length", "signature of 4 zero bytes (AAAAAA==)", SIG, token(S0, sig=b"\x00" * 4), enc="raw")
    add("signature/out-of-range", "256 zero bytes", SIG, token(S0, sig=b"\x00" * 256))
    add("signature/out-of-range", "256 0xFF bytes (larger than the modulus)", SIG, token(S0, sig=b"\xff" * 256))
    nums = KEYS["primary"].private_numbers().public_numbers
    add("signature/out-of-range", "the modulus itself as the signature", SIG, token(S0, sig=nums.n.to_bytes(256, "big")))
    # signed over other bytes
    s_ws = rep(S0, b"</sessionGUID><", b"</sessionGUID>\n<")
    add("signature/wrong-bytes-signed", "signature over the element with a newline between two children; the token is sent without it",
        SIG, token(S0, sign_over=s_ws))
    add("signature/wrong-bytes-signed", "signature over the whole token text with an empty signatureInfo instead of over the shortAuthorizationToken element only",
        SIG, token(S0, sign_over=b"<signatureInfo></signatureInfo>" + S0))
    inner = S0[len(b"<shortAuthorizationToken>"):-len(b"</shortAuthorizationToken>")]
    add("signature/wrong-bytes-signed", "signature over the children only (without the shortAuthorizationToken tags)", SIG,
        token(S0, sign_over=inner))
    add("signature/wrong-bytes-signed", "signature over the element followed by a newline", SIG, token(S0, sign_over=S0 + b"\n"))
    add("signature/wrong-bytes-signed", "signature over the Base64 of the element", SIG, token(S0, sign_over=b64(S0)))
    s_apos = sat({"resourceID": b"it&apos;s"})
    s_raw = sat({"resourceID": b"it's"})
    add("signature/wrong-bytes-signed", "wire has &apos;, signature over the same element with a raw ' (signing is over wire bytes, not a canonical form)",
        SIG, token(s_apos, sign_over=s_raw), enc="raw", resource="it's")
    add("signature/wrong-bytes-signed", "wire has a raw ', signature over the same element with &apos;",
        SIG, token(s_raw, sign_over=s_apos), enc="raw", resource="it's")
    s_gt = sat({"mvpdId": b"a&gt;b"})
    s_rawgt = sat({"mvpdId": b"a>b"})
    add("signature/wrong-bytes-signed", "wire has a raw >, signature over &gt;", SIG, token(s_rawgt, sign_over=s_gt), enc="raw")
    add("signature/wrong-bytes-signed", "signature of another valid token (different sessionGUID) pasted in", SIG,
        token(S0, sig=sign(sat({"sessionGUID": "another-session"}))))
    # other algorithms
    add("signature/wrong-algorithm", "RSASSA-PKCS1-v1_5 with SHA-1", SIG, token(S0, sig=sign(S0, hash_alg=hashes.SHA1())))
    add("signature/wrong-algorithm", "RSASSA-PKCS1-v1_5 with SHA-384", SIG, token(S0, sig=sign(S0, hash_alg=hashes.SHA384())))
    add("signature/wrong-algorithm", "RSASSA-PKCS1-v1_5 with SHA-512", SIG, token(S0, sig=sign(S0, hash_alg=hashes.SHA512())))
    add("signature/wrong-algorithm", "RSASSA-PSS SHA-256 (MGF1-SHA-256, 32-byte salt)", SIG, token(S0, sig=pss_sign_fixed_salt(S0)))
    add("signature/wrong-algorithm", "PKCS#1 v1.5 padding around the bare SHA-256 digest, DigestInfo missing", SIG,
        token(S0, sig=pkcs1_no_digestinfo(S0)))
    add("signature/wrong-algorithm", "PKCS#1 v1.5 SHA-256 over SHA-256(element) (pre-hashed, so hashed twice)", SIG,
        token(S0, sig=sign(hashlib.sha256(S0).digest())))


def requestor_cases():
    c = "requestor/"
    add(c + "different", "verifier expects a different requestor", BADREQ, T0, requestor="other-requestor")
    add(c + "case", "requestor differs only in case", BADREQ, T0, requestor="TVEKit-Test")
    add(c + "prefix", "expected requestor is a prefix of the token's", BADREQ, build({"requestorID": "tvekit-tester"}))
    add(c + "prefix", "token's requestor is a prefix of the expected one", BADREQ, T0, requestor="tvekit-tester")
    nfc = "caf\u00e9"
    nfd = unicodedata.normalize("NFD", nfc)
    assert nfd != nfc
    add(c + "unicode-normalization", "token has precomposed é (U+00E9), verifier expects decomposed e + U+0301", BADREQ,
        build({"requestorID": nfc}), requestor=nfd)
    add(c + "unicode-normalization", "token has decomposed e + U+0301, verifier expects precomposed é", BADREQ,
        build({"requestorID": nfd}), requestor=nfc)
    add(c + "unicode-normalization", "control: decomposed in both token and verifier is valid", VALID,
        build({"requestorID": nfd}), requestor=nfd)
    add(c + "whitespace", "token's requestor has a trailing space", BADREQ, build({"requestorID": REQ + " "}))
    add(c + "whitespace", "expected requestor has a trailing space", BADREQ, T0, requestor=REQ + " ")
    add(c + "whitespace", "token's requestor has a leading space", BADREQ, build({"requestorID": " " + REQ}))
    add(c + "escaped-form", "token's requestor is 'a & b', verifier expects the escaped form 'a &amp; b'", BADREQ,
        build({"requestorID": "a & b"}), requestor="a &amp; b")


def resource_cases():
    c = "resource/"
    add(c + "different", "verifier expects a different resource", BADRES, T0, resource="other-resource")
    add(c + "case", "resource differs only in case", BADRES, T0, resource="TVEKit-Resource")
    mrss = '<rss version="2.0"><channel><title>X</title></channel></rss>'
    t = build({"resourceID": mrss})
    add(c + "mrss", "MRSS resource differing by one character in the title", BADRES, t,
        resource='<rss version="2.0"><channel><title>Y</title></channel></rss>')
    add(c + "mrss", "MRSS resource with different attribute quoting (' instead of \")", BADRES, t,
        resource="<rss version='2.0'><channel><title>X</title></channel></rss>")
    add(c + "escaped-form", "token's resource is 'a & b', verifier expects the escaped form 'a &amp; b'", BADRES,
        build({"resourceID": "a & b"}), resource="a &amp; b")
    add(c + "escaped-form", "verifier expects the escaped MRSS (&lt;rss ...) instead of the unescaped markup", BADRES, t,
        resource=esc(mrss))
    add(c + "unicode-normalization", "token has precomposed é, verifier expects decomposed", BADRES,
        build({"resourceID": "caf\u00e9"}), resource="cafe\u0301")
    add(c + "whitespace", "expected resource has a trailing newline", BADRES, T0, resource=RES + "\n")


def time_cases():
    c = "time/"
    add(c + "expired", "now == issueTime + ttl (skew 0): expired", EXPIRED, T0, now=EXPIRY)
    add(c + "expired", "now ten years later", EXPIRED, T0, now=NOW + 10 * 365 * 86400000)
    add(c + "expired", "ttl 0 with now == issueTime: expired (the window is empty)", EXPIRED, build({"ttl": "0"}), now=ISSUE)
    add(c + "expired", "ttl 0, now after issueTime", EXPIRED, build({"ttl": "0"}))
    add(c + "expired", "now == issueTime + ttl + skew (skew 300 s): expired", EXPIRED, T0, now=EXPIRY + 300000, skew=300)
    add(c + "expired", "issueTime 0 and ttl 1000: expired long ago", EXPIRED, build({"issueTime": "0", "ttl": "1000"}))
    add(c + "not-yet-valid", "now == issueTime - 1 (skew 0)", NOTYET, T0, now=ISSUE - 1)
    add(c + "not-yet-valid", "now == issueTime - skew - 1 (skew 300 s)", NOTYET, T0, now=ISSUE - 300000 - 1, skew=300)
    add(c + "not-yet-valid", "issued one day in the future", NOTYET, build({"issueTime": str(NOW + 86400000)}))
    add(c + "saturation", "issueTime 9223372036854775000, ttl 10000 (issueTime + ttl overflows): not yet valid, no overflow",
        NOTYET, build({"issueTime": "9223372036854775000", "ttl": "10000"}))
    add(c + "saturation", "issueTime and ttl both Int64.max, skew 300 s: not yet valid", NOTYET,
        build({"issueTime": str(I64MAX), "ttl": str(I64MAX)}), skew=300)
    add(c + "saturation", "ttl Int64.max, issueTime == now - 1: valid (issueTime + ttl saturates)", VALID,
        build({"issueTime": str(NOW - 1), "ttl": str(I64MAX)}))
    add(c + "saturation", "ttl Int64.max written with leading zeros, issueTime == now - 1, skew 300 s: valid", VALID,
        build({"issueTime": str(NOW - 1), "ttl": "000" + str(I64MAX)}), skew=300)
    add(c + "saturation", "issueTime 0, ttl == now + 1: valid", VALID, build({"issueTime": "0", "ttl": str(NOW + 1)}))
    add(c + "skew", "large skew (86400 s): now == issueTime + ttl + skew - 1 is valid", VALID, T0,
        now=EXPIRY + 86400000 - 1, skew=86400)
    add(c + "skew", "skew 120 s does not rescue a token expired 121 s ago", EXPIRED, T0, now=EXPIRY + 121000, skew=120)


def order_cases():
    c = "order/"
    flipped = token(S0, sig=SIG0[:-1] + bytes([SIG0[-1] ^ 0x01]))
    add(c + "signature-before-requestor", "bad signature and wrong requestor: INVALID_SIGNATURE", SIG, flipped, requestor="other-requestor")
    add(c + "signature-before-time", "bad signature and expired: INVALID_SIGNATURE", SIG, flipped, now=EXPIRY + 1)
    add(c + "signature-before-all", "untrusted key, wrong requestor, wrong resource, expired: INVALID_SIGNATURE", SIG,
        build(key="untrusted"), requestor="x", resource="y", now=EXPIRY)
    add(c + "format-before-signature", "whitespace between children and a signature over other bytes: INVALID_TOKEN_FORMAT", FMT,
        token(rep(S0, b"</ttl><", b"</ttl> <"), sig=SIG0), enc="raw")
    add(c + "format-before-signature", "overflowing ttl and a signature over other bytes: INVALID_TOKEN_FORMAT", FMT,
        token(sat({"ttl": "9223372036854775808"}), sig=SIG0), enc="raw")
    add(c + "requestor-before-resource", "wrong requestor and wrong resource: INVALID_REQUESTOR_ID", BADREQ, T0,
        requestor="other-requestor", resource="other-resource")
    add(c + "requestor-before-time", "wrong requestor and expired: INVALID_REQUESTOR_ID", BADREQ, T0,
        requestor="other-requestor", now=EXPIRY)
    add(c + "resource-before-time", "wrong resource and expired: INVALID_RESOURCE_ID", BADRES, T0,
        resource="other-resource", now=EXPIRY)
    add(c + "resource-before-time", "wrong resource and not yet valid: INVALID_RESOURCE_ID", BADRES, T0,
        resource="other-resource", now=ISSUE - 1)
    add(c + "resource-skipped", "resourceID null and expired: TOKEN_EXPIRED", EXPIRED, T0, resource=None, now=EXPIRY)
    add(c + "time-before-replay", "expired with the replay guard on, verified twice: expired both times", [EXPIRED, EXPIRED], T0,
        now=EXPIRY, replay=True)
    add(c + "time-before-replay", "not yet valid with the replay guard on, verified twice", [NOTYET, NOTYET], T0,
        now=ISSUE - 1, replay=True)


def replay_cases():
    c = "replay/"
    add(c + "guard-on", "replay guard on, verified three times", [VALID, REPLAYED, REPLAYED], T0, replay=True)
    add(c + "guard-off", "replay guard off, verified twice", [VALID, VALID], T0, replay=False)
    add(c + "guard-on", "replay guard on, raw token text verified twice", [VALID, REPLAYED], T0, enc="raw", replay=True)
    add(c + "guard-on", "replay guard on, wrapped serialized token verified twice (the replay key is the signed bytes, not the input text)",
        [VALID, REPLAYED], T0, text=messy_b64(b64(T0).decode()), replay=True)
    add(c + "guard-on", "replay guard on, resourceID null, verified twice", [VALID, REPLAYED], T0, resource=None, replay=True)
    add(c + "guard-on", "replay guard on, token with proxyMvpdId absent", [VALID, REPLAYED],
        build(omit=("proxyMvpdId",)), replay=True)
    add(c + "not-recorded", "wrong requestor with the guard on: not recorded, same result twice", [BADREQ, BADREQ], T0,
        requestor="other-requestor", replay=True)
    add(c + "not-recorded", "bad signature with the guard on: same result twice", [SIG, SIG], build(key="untrusted"), replay=True)
    add(c + "not-recorded", "malformed token with the guard on: same result twice", [FMT, FMT], T0 + b"\n", enc="raw", replay=True)
    add(c + "not-recorded", "wrong resource with the guard on: same result twice", [BADRES, BADRES], T0,
        resource="other-resource", replay=True)


def main():
    valid_cases()
    format_cases()
    signature_cases()
    requestor_cases()
    resource_cases()
    time_cases()
    order_cases()
    replay_cases()

    ids = [t["id"] for t in TESTS]
    assert len(ids) == len(set(ids)) and ids == list(range(1, len(TESTS) + 1))
    prefixes = {}
    for t in TESTS:
        p = t["class"].split("/")[0]
        assert t["class"] == "valid" or ("/" in t["class"] and p in
                                         {"format", "signature", "time", "requestor", "resource", "order", "replay"}), t["class"]
        prefixes.setdefault(p, []).append(t)
    missing = {"valid", "format", "signature", "time", "requestor", "resource", "order", "replay"} - set(prefixes)
    assert not missing, missing
    for t in TESTS:
        if t["results"][0] == VALID:
            assert t["fields"] is not None
        else:
            assert t["fields"] is None

    doc = {
        "schema": "tvekit-media-token-v1",
        "generator": "TestVectors/media-token/generate.py",
        "keys": {name: {"certificatePem": CERT_PEMS[name], "privateKeyPem": pkcs8_pem(KEYS[name])} for name in KEY_NAMES},
        "numberOfTests": len(TESTS),
        "tests": TESTS,
    }
    data = (json.dumps(doc, indent=2, ensure_ascii=True) + "\n").encode("ascii")
    with open(OUT_PATH, "wb") as f:
        f.write(data)

    for p in ["valid", "format", "signature", "requestor", "resource", "time", "order", "replay"]:
        counts = {}
        for t in prefixes[p]:
            counts[t["results"][0]] = counts.get(t["results"][0], 0) + 1
        detail = ", ".join(f"{k} {v}" for k, v in sorted(counts.items()))
        print(f"{p:10s} {len(prefixes[p]):4d} cases  (first result: {detail})")
    print(f"total      {len(TESTS):4d} cases; {STATS['signatureRechecked']} VALID signatures re-verified, "
          f"{STATS['logicalChecked']} VALID field sets compared with the built values; "
          f"{STATS['formatLenientSigOk']} format cases carry a signature a lenient parser would accept")
    print(f"wrote {os.path.relpath(OUT_PATH)} ({len(data)} bytes, sha256 {hashlib.sha256(data).hexdigest()})")
    if os.environ.get("TVEKIT_VECTORS_DEBUG"):
        print("format cases without a lenient-good signature:", STATS["formatLenientSigNotOk"])


if __name__ == "__main__":
    main()

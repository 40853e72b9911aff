#!/usr/bin/env python3
"""Generates the short-media-token test vectors of TestVectors/media-token:

- media_token_test.json (schema "tvekit-media-token-v2"), the vectors, signed with the test keys of keys.json;
- real/real_token_test.json, the exact expected fields of the real Adobe token in real/token-A.txt.

Run from the repository root:  python3 TestVectors/media-token/generate.py
Needs Python 3 and the `cryptography` package only (written against 48.0).

The format is FORMATS.md §1 at the repository root; README.md beside this script describes the file and the
choices the vectors pin. keys.json holds three RSA-2048 test keys ("primary", "rotated", "untrusted") and one
RSA-1024 key ("legacy1024", like Adobe's key of 2015-2017). A key missing from keys.json is generated and
keys.json is rewritten (keeping the keys it already had); otherwise the keys are reused. Everything else is
derived deterministically (RSASSA-PKCS1-v1_5 is deterministic, the PSS case uses a fixed salt, "random" bytes
come from SHA-256), so with the same keys.json every run writes byte-identical files.

Every key in keys.json is a throw-away test key: never use it for anything else.

Before anything is written, every case is run through the reference verifier below (an executable form of
FORMATS.md §1) and must give exactly the expected results; VALID cases additionally get their signature
re-verified against the certificate as written into the output and their fields compared with the values the
token was built from (the issue instant computed by `datetime`, independently of the verifier's own
calendar arithmetic). The real token is verified with `cryptography` against the recovered key and parsed by
the same reference verifier.
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
REAL_DIR = os.path.join(HERE, "real")
REAL_TOKEN_PATH = os.path.join(REAL_DIR, "token-A.txt")
REAL_KEY_PATH = os.path.join(REAL_DIR, "adobe-2015-2017-public-key.pem")
REAL_OUT_PATH = os.path.join(REAL_DIR, "real_token_test.json")

SCHEMA = "tvekit-media-token-v2"
KEY_NAMES = ["primary", "rotated", "untrusted", "legacy1024"]
KEY_BITS = {"primary": 2048, "rotated": 2048, "untrusted": 2048, "legacy1024": 1024}
SERIALS = {"primary": 0x7E5E0001, "rotated": 0x7E5E0002, "untrusted": 0x7E5E0003, "legacy1024": 0x7E5E0004}
CLASS_PREFIXES = ["valid", "format", "signature", "key", "requestor", "resource", "time", "order", "replay"]

# ---------------------------------------------------------------------------------------------
# Base values
# ---------------------------------------------------------------------------------------------

NOW = 1767225600000          # 2026-01-01T00:00:00Z
ISSUE = NOW - 100000         # 2025-12-31T23:58:20Z
TTL = 420000
EXPIRY = ISSUE + TTL         # first instant at which the token is expired (skew 0)
REQ = "tvekit-test"
RES = "tvekit-resource"
GUID = "3f2504e04f8911d39a0c0305e82c3301"
I64MAX = 2**63 - 1
I64MIN = -(2**63)
EPOCH = datetime.datetime(1970, 1, 1)

ORDER = ["sessionGUID", "requestorID", "resourceID", "ttl", "issueTime", "mvpdId", "proxyMvpdId"]
AUTH = "authToken"                   # the root of real tokens
SHORT = "shortAuthorizationToken"    # the root in Adobe's documentation

MAX_INPUT = 65536
MAX_FIELD = 16384
MRSS_MAX_DEPTH = 16
MRSS_MAX_ELEMENTS = 256
MRSS_MAX_ATTRIBUTES = 16

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


def dated(ms, offset=0, minus_zero=False):
    """The dated issueTime `yyyy-MM-dd HH:mm:ss ±hhmm` of the instant `ms` seen at UTC offset `offset` minutes
    (`minus_zero` writes an offset of 0 as -0000)."""
    assert ms % 1000 == 0
    local = EPOCH + datetime.timedelta(milliseconds=ms + offset * 60000)
    sign = "-" if offset < 0 or minus_zero else "+"
    a = abs(offset)
    return f"{local:%Y-%m-%d %H:%M:%S} {sign}{a // 60:02d}{a % 60:02d}"


ISSUE_TEXT = dated(ISSUE)
assert ISSUE_TEXT == "2025-12-31 23:58:20 +0000"

# The real form (what real tokens carry): dated issueTime, no proxyMvpdId.
BASE_ADOBE = {
    "sessionGUID": GUID,
    "requestorID": REQ,
    "resourceID": RES,
    "ttl": str(TTL),
    "issueTime": ISSUE_TEXT,
    "mvpdId": "TestMVPD",
}
# The documented form: epoch-millisecond issueTime and a proxyMvpdId.
BASE_DOC = dict(BASE_ADOBE, issueTime=str(ISSUE), proxyMvpdId="TestProxyMVPD")

# ---------------------------------------------------------------------------------------------
# Keys and certificates
# ---------------------------------------------------------------------------------------------


def pkcs8_pem(key):
    return key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    ).decode("ascii")


def load_or_create_keys():
    stored = {}
    if os.path.exists(KEYS_PATH):
        with open(KEYS_PATH, "r", encoding="utf-8") as f:
            stored = json.load(f)
    keys = {}
    created = []
    for name in KEY_NAMES:
        if name in stored:
            key = serialization.load_pem_private_key(stored[name]["privateKeyPem"].encode("ascii"), password=None)
            if (not isinstance(key, rsa.RSAPrivateKey) or key.key_size != KEY_BITS[name]
                    or key.private_numbers().public_numbers.e != 65537):
                sys.exit(f"keys.json: {name} is not an RSA-{KEY_BITS[name]} private key with e = 65537")
        else:
            key = rsa.generate_private_key(public_exponent=65537, key_size=KEY_BITS[name])
            stored[name] = {"privateKeyPem": pkcs8_pem(key)}
            created.append(name)
        keys[name] = key
    if created:
        with open(KEYS_PATH, "w", encoding="utf-8", newline="\n") as f:
            f.write(json.dumps({name: stored[name] for name in KEY_NAMES}, indent=2) + "\n")
        print(f"generated new keys {', '.join(created)}; wrote {os.path.relpath(KEYS_PATH)}")
    return keys


def self_signed_certificate(name, key):
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, f"TVEKit media-token test {name}")])
    return (
        x509.CertificateBuilder()
        .subject_name(subject)
        .issuer_name(subject)
        .public_key(key.public_key())
        .serial_number(SERIALS[name])
        .not_valid_before(datetime.datetime(2020, 1, 1, tzinfo=datetime.timezone.utc))
        .not_valid_after(datetime.datetime(2120, 1, 1, tzinfo=datetime.timezone.utc))
        .sign(key, hashes.SHA256())
    )


KEYS = load_or_create_keys()
CERTS = {name: self_signed_certificate(name, KEYS[name]) for name in KEY_NAMES}
CERT_PEMS = {name: CERTS[name].public_bytes(serialization.Encoding.PEM).decode("ascii") for name in KEY_NAMES}
PUBKEYS = {name: CERTS[name].public_key() for name in KEY_NAMES}   # the reference verifier's trust store
PUBKEY_BITS = dict(KEY_BITS)

# ---------------------------------------------------------------------------------------------
# Token construction
# ---------------------------------------------------------------------------------------------


def esc(s):
    """Escapes the five XML characters with the five predefined entities."""
    return (s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
            .replace('"', "&quot;").replace("'", "&apos;"))


def cdata(s):
    """One CDATA section (more when the text holds ]]>, split as ]]]]><![CDATA[> the way Adobe writes MRSS)."""
    if isinstance(s, str):
        s = s.encode("utf-8")
    return b"<![CDATA[" + s.replace(b"]]>", b"]]]]><![CDATA[>") + b"]]>"


def w_issuer(s):
    """A value the way TVEKit writes it (FORMATS.md §1, "What TVEKit writes"): CDATA when it contains <, & or >,
    otherwise as it is."""
    return cdata(s) if any(c in s for c in "<&>") else s.encode("utf-8")


def w_entities(s):
    """A value written with the five entities (the v1 way)."""
    return esc(s).encode("utf-8")


def elem(name, content):
    n = name.encode("ascii")
    return b"<" + n + b">" + content + b"</" + n + b">"


def values(over=None, doc=False, omit=()):
    """The field values of a token: str (written by a writer) or bytes (written verbatim); None removes a field."""
    v = dict(BASE_DOC if doc else BASE_ADOBE)
    if over:
        v.update(over)
    for n in list(v):
        if v[n] is None or n in omit:
            del v[n]
    return v


def body(vals, root=AUTH, order=None, writer=w_issuer, wire=None):
    """The signed root element: <root>children</root>. `wire` gives the exact bytes of some fields."""
    parts = []
    for n in (order or ORDER):
        if n not in vals:
            continue
        v = (wire or {}).get(n, vals[n])
        parts.append(elem(n, v if isinstance(v, bytes) else writer(v)))
    r = root.encode("ascii")
    return b"<" + r + b">" + b"".join(parts) + b"</" + r + b">"


def sign(data, key="primary", hash_alg=None):
    return KEYS[key].sign(data, padding.PKCS1v15(), hash_alg or hashes.SHA256())


def b64(data):
    return base64.b64encode(data)


SIG_END = {"unslashed": b"<signatureInfo>", "slashed": b"</signatureInfo>"}


def token(body_bytes, key="primary", sig=None, sig_text=None, sign_over=None, end="unslashed"):
    """The full token text: <signatureInfo>SIG, the signatureInfo end, then the root element."""
    if sig_text is None:
        if sig is None:
            sig = sign(body_bytes if sign_over is None else sign_over, key)
        sig_text = b64(sig)
    return b"<signatureInfo>" + sig_text + SIG_END[end] + body_bytes


LOGICAL = {}  # token bytes -> the fields the token was built from (for the VALID cross-check)


def datetime_instant(text):
    """The issue instant of a dated issueTime, with datetime (independent of the reference verifier's arithmetic)."""
    d = datetime.datetime.strptime(text, "%Y-%m-%d %H:%M:%S %z")
    return ((d.replace(tzinfo=None) - EPOCH) - d.utcoffset()) // datetime.timedelta(milliseconds=1), \
        int(d.utcoffset().total_seconds()) // 60


def expected_fields(vals, root, end):
    it = vals["issueTime"]
    if re.fullmatch(r"[0-9]+", it):
        ms, enc, off = int(it), "epochMilliseconds", None
    else:
        ms, off = datetime_instant(it)
        enc = "dateTime"
    return {
        "sessionGUID": vals["sessionGUID"],
        "requestorID": vals["requestorID"],
        "resourceID": vals["resourceID"],
        "ttl": int(vals["ttl"]),
        "issueTime": ms,
        "issueTimeText": it,
        "mvpdId": vals["mvpdId"],
        "proxyMvpdId": vals.get("proxyMvpdId", ""),
        "form": {"root": root, "signatureInfoEnd": end, "issueTimeEncoding": enc, "utcOffsetMinutes": off},
    }


def build(over=None, omit=(), key="primary", doc=False, root=None, end=None, writer=w_issuer, wire=None):
    """A correctly formed, correctly signed token (the real form by default, the documented form with doc=True);
    records the fields it was built from. `over` holds the decoded values; `wire` the exact bytes of some."""
    vals = values(over, doc, omit)
    assert all(isinstance(v, str) for v in vals.values())
    root = root or (SHORT if doc else AUTH)
    end = end or ("slashed" if doc else "unslashed")
    t = token(body(vals, root, writer=writer, wire=wire), key, end=end)
    LOGICAL[t] = expected_fields(vals, root, end)
    return t


def rep(data, old, new, count=1):
    """bytes.replace that insists the pattern occurs exactly `count` times."""
    n = data.count(old)
    assert n == count, (old, n)
    return data.replace(old, new)


def resigned(body_bytes, key="primary", end="unslashed"):
    """Signs the (possibly malformed) element bytes exactly as they appear on the wire, so that a lenient parser
    that still located the element would find a good signature: the only defect left is the one under test."""
    return token(body_bytes, key, end=end)


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
    return pow(int.from_bytes(em, "big"), nums.d, n).to_bytes(KEY_BITS[key] // 8, "big")


def mgf1(seed, length):
    out = b""
    c = 0
    while len(out) < length:
        out += hashlib.sha256(seed + c.to_bytes(4, "big")).digest()
        c += 1
    return out[:length]


def pss_sign_fixed_salt(data, key="primary"):
    """RSASSA-PSS SHA-256 / MGF1-SHA-256 / 32-byte salt with a fixed salt (cryptography always draws a random
    salt), so the output is deterministic."""
    salt = hashlib.sha256(b"tvekit media-token pss salt").digest()
    mhash = hashlib.sha256(data).digest()
    h = hashlib.sha256(b"\x00" * 8 + mhash + salt).digest()
    em_len = KEY_BITS[key] // 8  # emBits = modBits - 1, a multiple of 8 minus 1
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
    size = KEY_BITS[key] // 8
    em = b"\x00\x01" + b"\xff" * (size - 3 - len(d)) + b"\x00" + d
    return raw_rsa_sign(key, em)


def wrap(s, width, sep):
    return sep.join(s[i:i + width] for i in range(0, len(s), width))


def messy_b64(s):
    """Base64 broken into 64-column lines with CRLF, each continuation line indented by a space and a space every
    10 characters (so whitespace also falls inside 4-character groups)."""
    lines = [s[i:i + 64] for i in range(0, len(s), 64)]
    lines = [" ".join(l[j:j + 10] for j in range(0, len(l), 10)) for l in lines]
    return lines[0] + "".join("\r\n " + l for l in lines[1:])


def tabbed_b64(s):
    """Base64 with a TAB after every 4-character group and a TAB + LF every 19 groups."""
    groups = [s[i:i + 4] for i in range(0, len(s), 4)]
    return "".join(g + ("\t\n" if (i + 1) % 19 == 0 else "\t") for i, g in enumerate(groups[:-1])) + groups[-1]


def pad_field_to_total(target_len, field="resourceID"):
    """A real-form token whose `field` is '&amp;'*k + 'a'*m on the wire (k + m bytes after decoding), chosen so the
    raw token text is exactly target_len bytes."""
    base_len = len(token(body(values({field: b""}))))
    need = target_len - base_len
    assert need >= 0
    k, m = divmod(need, 5)
    value = "&" * k + "a" * m
    t = build({field: value}, wire={field: b"&amp;" * k + b"a" * m})
    assert len(t) == target_len, (len(t), target_len)
    return t, value


# ---------------------------------------------------------------------------------------------
# Reference verifier: an executable form of FORMATS.md §1
# ---------------------------------------------------------------------------------------------


class FormatError(Exception):
    pass


class MrssError(Exception):
    pass


ENTITIES = {b"amp": b"&", b"lt": b"<", b"gt": b">", b"quot": b'"', b"apos": b"'"}
B64_RE = re.compile(rb"[A-Za-z0-9+/]*={0,2}")
DATED_RE = re.compile(rb"([0-9]{4})-([0-9]{2})-([0-9]{2}) ([0-9]{2}):([0-9]{2}):([0-9]{2}) ([+-])([0-9]{2})([0-9]{2})")
ROOTS = [b"authToken", b"shortAuthorizationToken"]


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
    """Character data: no <, no ]]>, & only as one of the five predefined entities."""
    if b"<" in raw or b"]]>" in raw:
        raise FormatError("< or ]]> in character data")
    out = bytearray()
    i = 0
    while i < len(raw):
        if raw[i] == 0x26:
            j = raw.find(b";", i)
            if j < 0 or raw[i + 1:j] not in ENTITIES:
                raise FormatError("bad entity or character reference")
            out += ENTITIES[raw[i + 1:j]]
            i = j + 1
        else:
            out.append(raw[i])
            i += 1
    return bytes(out)


def field_text(text, p, name):
    """Decodes the text of element `name` from position p (just after its start tag): a sequence of character data
    and CDATA sections, up to `</name>`. Returns the decoded bytes and the position after the end tag."""
    out = bytearray()
    close = b"</" + name + b">"
    while True:
        if p >= len(text):
            raise FormatError(f"{name} not closed")
        if text.startswith(b"<![CDATA[", p):
            e = text.find(b"]]>", p + 9)
            if e < 0:
                raise FormatError("unterminated CDATA")
            out += text[p + 9:e]
            p = e + 3
        elif text.startswith(b"</", p):
            if not text.startswith(close, p):
                raise FormatError(f"expected {close!r}")
            return bytes(out), p + len(close)
        elif text[p] == 0x3C:
            raise FormatError("markup inside a field")
        else:
            e = text.find(b"<", p)
            if e < 0:
                e = len(text)
            out += unescape(text[p:e])
            p = e


def days_from_civil(y, m, d):
    """Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's algorithm)."""
    y -= m <= 2
    era = y // 400
    yoe = y - era * 400
    doy = (153 * (m + (-3 if m > 2 else 9)) + 2) // 5 + d - 1
    doe = yoe * 365 + yoe // 4 - yoe // 100 + doy
    return era * 146097 + doe - 719468


def days_in_month(y, m):
    if m == 2:
        return 29 if (y % 4 == 0 and (y % 100 != 0 or y % 400 == 0)) else 28
    return 30 if m in (4, 6, 9, 11) else 31


def parse_issue_time(v):
    """Returns (epoch ms, utc offset minutes or None)."""
    if re.fullmatch(rb"[0-9]+", v):
        n = int(v)
        if n > I64MAX:
            raise FormatError("issueTime overflows")
        return n, None
    m = DATED_RE.fullmatch(v)
    if not m:
        raise FormatError("issueTime is neither epoch milliseconds nor yyyy-MM-dd HH:mm:ss ±hhmm")
    y, mo, d, h, mi, s, sign, oh, om = m.groups()
    y, mo, d, h, mi, s, oh, om = (int(x) for x in (y, mo, d, h, mi, s, oh, om))
    if not (1970 <= y <= 9999 and 1 <= mo <= 12 and 1 <= d <= days_in_month(y, mo)):
        raise FormatError("issueTime: not a date from 1970 to 9999")
    if h > 23 or mi > 59 or s > 59 or oh > 23 or om > 59:
        raise FormatError("issueTime: time or offset out of range")
    offset = (oh * 60 + om) * (-1 if sign == b"-" else 1)
    instant = days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 + s - offset * 60
    if instant < 0:
        raise FormatError("issueTime before 1970-01-01T00:00:00Z")
    return instant * 1000, offset


def parse(text):
    so = b"<signatureInfo>"
    if not text.startswith(so):
        raise FormatError("no <signatureInfo>")
    k = text.find(b"<", len(so))
    if k < 0:
        raise FormatError("signatureInfo not closed")
    sig_text = text[len(so):k]
    if text.startswith(b"<signatureInfo>", k):
        end, p = "unslashed", k + len(b"<signatureInfo>")
    elif text.startswith(b"</signatureInfo>", k):
        end, p = "slashed", k + len(b"</signatureInfo>")
    else:
        raise FormatError("signatureInfo not closed")
    sig = b""
    if sig_text:
        sig = strict_b64(sig_text)
        if sig is None:
            raise FormatError("signature not canonical Base64")
    start = p
    root = next((r for r in ROOTS if text.startswith(b"<" + r + b">", p)), None)
    if root is None:
        raise FormatError("no <authToken> or <shortAuthorizationToken>")
    p += len(root) + 2
    raw = {}
    for n in ORDER:
        o = b"<" + n.encode() + b">"
        if n == "proxyMvpdId" and not text.startswith(o, p):
            break
        if not text.startswith(o, p):
            raise FormatError(f"expected <{n}>")
        raw[n], p = field_text(text, p + len(o), n.encode())
    close = b"</" + root + b">"
    if not text.startswith(close, p) or p + len(close) != len(text):
        raise FormatError("root not closed, or bytes after it")
    out = {}
    for n, v in raw.items():
        if len(v) > MAX_FIELD:
            raise FormatError(f"{n} too long")
        try:
            s = v.decode("utf-8", errors="strict")
        except UnicodeDecodeError:
            raise FormatError(f"{n} not UTF-8")
        if n != "proxyMvpdId" and s == "":
            raise FormatError(f"{n} empty")
        out[n] = s
    if not re.fullmatch(rb"[0-9]+", raw["ttl"]) or int(raw["ttl"]) > I64MAX:
        raise FormatError("ttl not a non-negative Int64")
    issue_ms, offset = parse_issue_time(raw["issueTime"])
    fields = {
        "sessionGUID": out["sessionGUID"],
        "requestorID": out["requestorID"],
        "resourceID": out["resourceID"],
        "ttl": int(raw["ttl"]),
        "issueTime": issue_ms,
        "issueTimeText": out["issueTime"],
        "mvpdId": out["mvpdId"],
        "proxyMvpdId": out.get("proxyMvpdId", ""),
        "form": {"root": root.decode(), "signatureInfoEnd": end,
                 "issueTimeEncoding": "epochMilliseconds" if offset is None else "dateTime",
                 "utcOffsetMinutes": offset},
    }
    return sig, text[start:], fields


# ---- MRSS (FORMATS.md §1, "Resources and MRSS")

XMLWS = " \t\r\n"
XML_ENTITIES = {"amp": "&", "lt": "<", "gt": ">", "quot": '"', "apos": "'"}
NAME_RE = re.compile(r"[A-Za-z_:\u00C0-\uFFFF][A-Za-z0-9._:\-\u00B7\u00C0-\uFFFF]*")
S = "[ \t\r\n]"
XMLDECL_RE = re.compile(
    rf"<\?xml{S}+version{S}*={S}*(\"1\.[0-9]+\"|'1\.[0-9]+')"
    rf"({S}+encoding{S}*={S}*(\"[A-Za-z][A-Za-z0-9._-]*\"|'[A-Za-z][A-Za-z0-9._-]*'))?"
    rf"({S}+standalone{S}*={S}*(\"(yes|no)\"|'(yes|no)'))?{S}*\?>")


def mrss_unescape(s):
    out = []
    i = 0
    while i < len(s):
        if s[i] == "&":
            j = s.find(";", i)
            name = s[i + 1:j] if j >= 0 else None
            if name not in XML_ENTITIES:
                raise MrssError("entity or character reference")
            out.append(XML_ENTITIES[name])
            i = j + 1
        else:
            out.append(s[i])
            i += 1
    return "".join(out)


class MrssReader:
    """A hardened XML reader for MRSS. A tree is (name, frozenset of (attribute, value)), text, children)."""

    def __init__(self, s):
        self.s = s
        self.p = 0
        self.count = 0

    def ws(self):
        while self.p < len(self.s) and self.s[self.p] in XMLWS:
            self.p += 1

    def name(self):
        m = NAME_RE.match(self.s, self.p)
        if not m:
            raise MrssError("name expected")
        self.p = m.end()
        return m.group(0)

    def element(self, depth):
        s = self.s
        if depth > MRSS_MAX_DEPTH:
            raise MrssError("too deep")
        self.count += 1
        if self.count > MRSS_MAX_ELEMENTS:
            raise MrssError("too many elements")
        if not s.startswith("<", self.p):
            raise MrssError("< expected")
        self.p += 1
        name = self.name()
        attrs = {}
        while True:
            had_ws = self.p < len(s) and s[self.p] in XMLWS
            self.ws()
            if s.startswith("/>", self.p):
                self.p += 2
                return (name, frozenset(attrs.items()), "", ())
            if s.startswith(">", self.p):
                self.p += 1
                break
            if not had_ws:
                raise MrssError("whitespace expected before an attribute")
            an = self.name()
            self.ws()
            if not s.startswith("=", self.p):
                raise MrssError("= expected")
            self.p += 1
            self.ws()
            q = s[self.p:self.p + 1]
            if q not in ('"', "'"):
                raise MrssError("quote expected")
            e = s.find(q, self.p + 1)
            if e < 0 or "<" in s[self.p + 1:e] or an in attrs:
                raise MrssError("bad attribute")
            attrs[an] = mrss_unescape(s[self.p + 1:e])
            if len(attrs) > MRSS_MAX_ATTRIBUTES:
                raise MrssError("too many attributes")
            self.p = e + 1
        text = []
        children = []
        while True:
            if self.p >= len(s):
                raise MrssError("element not closed")
            if s.startswith("<![CDATA[", self.p):
                e = s.find("]]>", self.p + 9)
                if e < 0:
                    raise MrssError("unterminated CDATA")
                text.append(s[self.p + 9:e])
                self.p = e + 3
            elif s.startswith("</", self.p):
                self.p += 2
                if self.name() != name:
                    raise MrssError("mismatched end tag")
                self.ws()
                if not s.startswith(">", self.p):
                    raise MrssError("> expected")
                self.p += 1
                break
            elif s.startswith("<!--", self.p):
                raise MrssError("comment")
            elif s.startswith("<?", self.p):
                raise MrssError("processing instruction")
            elif s.startswith("<!", self.p):
                raise MrssError("markup declaration")
            elif s.startswith("<", self.p):
                children.append(self.element(depth + 1))
            else:
                e = s.find("<", self.p)
                if e < 0:
                    raise MrssError("element not closed")
                chunk = s[self.p:e]
                if "]]>" in chunk:
                    raise MrssError("]]> in character data")
                text.append(mrss_unescape(chunk))
                self.p = e
        return (name, frozenset(attrs.items()), "".join(text).strip(XMLWS), tuple(children))


def parse_mrss(s):
    """The normalised tree and the channel title of an MRSS document, or MrssError."""
    if len(s.encode("utf-8")) > MAX_FIELD:
        raise MrssError("too long")
    r = MrssReader(s)
    if s.startswith("<?xml"):
        m = XMLDECL_RE.match(s)
        if not m:
            raise MrssError("not an XML declaration")
        r.p = m.end()
    r.ws()
    if s.startswith("<!", r.p) or s.startswith("<?", r.p):
        raise MrssError("DOCTYPE, comment or processing instruction before the root")
    root = r.element(1)
    r.ws()
    if r.p != len(s):
        raise MrssError("bytes after the root")
    if root[0] != "rss":
        raise MrssError("root is not rss")
    channels = [c for c in root[3] if c[0] == "channel"]
    if len(channels) != 1:
        raise MrssError("not exactly one channel")
    titles = [c for c in channels[0][3] if c[0] == "title"]
    if len(titles) != 1:
        raise MrssError("not exactly one channel title")
    return root, titles[0][2]


def plain_tree(resource_id):
    """The MRSS a plain resource ID stands for: <rss version="2.0"><channel><title>ID</title></channel></rss>."""
    title = ("title", frozenset(), resource_id.strip(XMLWS), ())
    return ("rss", frozenset({("version", "2.0")}), "", (("channel", frozenset(), "", (title,)),))


def resource_matches(token_res, expected):
    if token_res.encode("utf-8") == expected.encode("utf-8"):
        return True
    token_mrss, expected_mrss = token_res.startswith("<"), expected.startswith("<")
    if not token_mrss and not expected_mrss:
        return False
    try:
        t_tree, t_title = parse_mrss(token_res) if token_mrss else (plain_tree(token_res), token_res)
        e_tree, _ = parse_mrss(expected) if expected_mrss else (plain_tree(expected), expected)
    except MrssError:
        return False
    if token_mrss and not expected_mrss and t_title == expected:
        return True
    return t_tree == e_tree


def sat64(x):
    return max(I64MIN, min(I64MAX, x))


def configuration_ok(trusted, allow1024):
    return allow1024 or all(PUBKEY_BITS[k] >= 2048 for k in trusted)


def signature_ok(sig, signed, trusted):
    for name in trusted:
        key = PUBKEYS[name]
        if len(sig) != key.key_size // 8:
            continue
        try:
            key.verify(sig, signed, padding.PKCS1v15(), hashes.SHA256())
            return True
        except (InvalidSignature, ValueError):
            pass
    return False


def decode_input(inp):
    """The token text of an input: raw when it begins with <signatureInfo>, else standard Base64 with space, TAB,
    CR and LF skipped. None when it is neither."""
    if inp.startswith(b"<signatureInfo>"):
        return inp
    s = bytes(b for b in inp if b not in b" \t\r\n")
    return strict_b64(s) if s else None


def verify_once(inp, trusted, requestor, resource, now, skew):
    if len(inp) > MAX_INPUT:
        return FMT, None, None
    text = decode_input(inp)
    if text is None:
        return FMT, None, None
    try:
        sig, signed, fields = parse(text)
    except FormatError:
        return FMT, None, None
    if not signature_ok(sig, signed, trusted):
        return SIG, signed, None
    if fields["requestorID"].encode("utf-8") != requestor.encode("utf-8"):
        return BADREQ, signed, None
    if resource is not None and not resource_matches(fields["resourceID"], resource):
        return BADRES, signed, None
    skew_ms = sat64(skew * 1000)
    lo = sat64(fields["issueTime"] - skew_ms)
    hi = sat64(sat64(fields["issueTime"] + fields["ttl"]) + skew_ms)
    if now < lo:
        return NOTYET, signed, None
    if now >= hi:
        return EXPIRED, signed, None
    return VALID, signed, fields


def reference_verify(inp, trusted, allow1024, requestor, resource, now, skew, replay_guard, times):
    """Results of verifying `inp` `times` times with one verifier; [] when the verifier cannot be built."""
    if not configuration_ok(trusted, allow1024):
        return [], None
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
    """Diagnostic for format cases: would a lenient parser that cut out the Base64 after <signatureInfo> and the
    span from the first root start tag to the last root end tag find a good signature?"""
    m = re.search(rb"<signatureInfo[^>]*>([A-Za-z0-9+/=]+)<", text)
    starts = [i for i in (text.find(b"<authToken"), text.find(b"<shortAuthorizationToken")) if i >= 0]
    ends = [text.rfind(x) + len(x) for x in (b"</authToken>", b"</shortAuthorizationToken>") if x in text]
    if not m or not starts or not ends:
        return False
    try:
        sig = base64.b64decode(m.group(1))
    except Exception:
        return False
    for name in trusted:
        try:
            PUBKEYS[name].verify(sig, text[min(starts):max(ends)], padding.PKCS1v15(), hashes.SHA256())
            return True
        except (InvalidSignature, ValueError):
            pass
    return False


# ---------------------------------------------------------------------------------------------
# Test collection
# ---------------------------------------------------------------------------------------------

TESTS = []
STATS = {"logicalChecked": 0, "signatureRechecked": 0, "formatLenientSigOk": 0, "formatLenientSigNotOk": []}
TOKEN_SHAPE = re.compile(rb"<signatureInfo>([A-Za-z0-9+/=]*)</?signatureInfo>(<(authToken|shortAuthorizationToken)>.*</\3>)", re.S)


def add(cls, comment, results, tok=None, enc="b64", text=None, trusted=("primary",), allow1024=False,
        requestor=REQ, resource=RES, now=NOW, skew=0, replay=False, expect=None):
    """Adds one case. The input is `text` (a str, used verbatim) or `tok` (the token text as bytes) serialized per
    `enc`: "b64" = standard Base64 on one line, "raw" = the bytes themselves (written as utf8 when they are valid
    UTF-8, else hex), "hex" = the bytes, always as hex. results == [] means the verifier cannot be built."""
    if isinstance(results, str):
        results = [results]
    assert all(r in RESULT_CODES for r in results)
    assert cls.split("/")[0] in CLASS_PREFIXES and (cls.count("/") == 1), cls
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

    config_error = not configuration_ok(trusted, allow1024)
    assert config_error == (results == []), f"{comment}: configurationError {config_error} but results {results}"
    got, fields = reference_verify(inp, list(trusted), allow1024, requestor, resource, now, skew, replay, len(results))
    if got != results:
        sys.exit(f"self-check failed for case {len(TESTS) + 1} ({cls}: {comment}): expected {results}, "
                 f"reference verifier says {got}")

    if results and results[0] == VALID:
        # Independent signature re-check with the certificate as written into the output.
        text_bytes = decode_input(inp)
        m = TOKEN_SHAPE.fullmatch(text_bytes)
        assert m, "VALID case does not have the token shape"
        sig = base64.b64decode(m.group(1), validate=True)
        verified = False
        for name in trusted:
            cert = x509.load_pem_x509_certificate(CERT_PEMS[name].encode("ascii"))
            try:
                cert.public_key().verify(sig, m.group(2), padding.PKCS1v15(), hashes.SHA256())
                verified = True
            except (InvalidSignature, ValueError):
                pass
        assert verified, f"VALID case {len(TESTS) + 1}: signature does not verify"
        STATS["signatureRechecked"] += 1
        want = expect if expect is not None else LOGICAL.get(text_bytes)
        assert want is not None, f"VALID case {len(TESTS) + 1} ({comment}) has no built fields to compare with"
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
        "allow1024BitKeys": allow1024,
        "configurationError": config_error,
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

T0 = build()                                  # the base token, real form
S0 = body(values())                           # its <authToken> element
SIG0 = sign(S0)
SIG0_B64 = b64(SIG0)
assert T0 == token(S0)
D0 = build(doc=True)                          # the base token, documented form
SD = body(values(doc=True), SHORT)            # its <shortAuthorizationToken> element
SIGD = sign(SD)
assert D0 == token(SD, end="slashed")

CH = "TVEKitChannel"
MRSS_CH = '<rss version="2.0"><channel><title>TVEKitChannel</title></channel></rss>'
MRSS_ITEM = ('<rss version="2.0" xmlns:media="http://search.yahoo.com/mrss/"><channel><title>TVEKitChannel</title>'
             '<item><title>Episode 1</title><guid>ep-1</guid><media:rating scheme="urn:v-chip">tv-14</media:rating>'
             '</item></channel></rss>')
# The way Adobe's MRSS looks: CDATA inside, so writing it in a token's CDATA needs the ]]]]><![CDATA[> split.
MRSS_ADOBE = ('<rss version="2.0" xmlns:media="http://search.yahoo.com/mrss/"><channel><title><![CDATA[TVEKitChannel]]>'
              '</title><item><title><![CDATA[Episode 1 & 2]]></title><guid>ep-1</guid>'
              '<media:rating scheme="urn:v-chip"><![CDATA[tv-14]]></media:rating></item></channel></rss>')


def valid_cases():
    c = "valid/adobe"
    add(c, "the real form: <signatureInfo>SIG<signatureInfo><authToken>, dated issueTime 2025-12-31 23:58:20 +0000, "
        "no proxyMvpdId; serialized (standard Base64 on one line)", VALID, T0)
    add(c, "the real form as raw token text (begins with <signatureInfo>)", VALID, T0, enc="raw")
    add(c, "serialized, wrapped at 76 columns with LF (no trailing newline)", VALID, T0, text=wrap(b64(T0).decode(), 76, "\n"))
    add(c, "serialized with CRLF line breaks, indented continuation lines and spaces inside 4-character groups", VALID, T0,
        text=messy_b64(b64(T0).decode()))
    add(c, "serialized with a TAB after every 4-character group and TAB + LF line breaks (TAB is skipped too)", VALID, T0,
        text=tabbed_b64(b64(T0).decode()))
    add(c, "resourceID null: the resource check is skipped", VALID, T0, resource=None)
    add(c, "resourceID null: skipped even though the token's resource differs from the usual one", VALID,
        build({"resourceID": "something-else"}), resource=None)
    add(c, "field values like the real token's (requestor MML, resource truTV, MVPD TWC), signed by the test key",
        VALID, build({"requestorID": "MML", "resourceID": "truTV", "mvpdId": "TWC"}), enc="raw", requestor="MML",
        resource="truTV")
    add(c, "leading zeros in ttl", VALID, build({"ttl": "000420000"}))
    add(c, "leading zeros in ttl (36 digits, value fits Int64)", VALID, build({"ttl": "0" * 30 + "420000"}))
    add(c, "raw \" and ' in text (written as they are, no CDATA needed)", VALID,
        build({"sessionGUID": "it's \"quoted\"", "mvpdId": "O'Brien \"Cable\""}), enc="raw")
    t = build({"resourceID": "a>b"}, wire={"resourceID": b"a>b"})
    add(c, "raw > in character data (allowed when it is not the end of ]]>)", VALID, t, enc="raw", resource="a>b")
    over = {"sessionGUID": "会话-0001", "requestorID": "テレビ-📺", "resourceID": "频道-🎬-Ελληνικά", "mvpdId": "케이블TV"}
    t = build(over)
    add(c, "non-ASCII UTF-8 (CJK, Hangul, Greek, emoji) in fields; serialized", VALID, t,
        requestor=over["requestorID"], resource=over["resourceID"])
    add(c, "non-ASCII UTF-8 in fields; raw token text", VALID, t, enc="raw",
        requestor=over["requestorID"], resource=over["resourceID"])
    add(c, "sessionGUID a UUID with dashes, mvpdId with spaces", VALID,
        build({"sessionGUID": "3f2504e0-4f89-11d3-9a0c-0305e82c3301", "mvpdId": "Test MVPD Inc."}))
    add(c, "key rotation: trusted primary and rotated, signed by rotated", VALID, build(key="rotated"),
        trusted=("primary", "rotated"))
    add(c, "key rotation: trusted rotated and primary (other order), signed by primary", VALID, T0,
        trusted=("rotated", "primary"))

    c = "valid/proxy"
    add(c, "real form with a proxyMvpdId (optional in either form)", VALID, build({"proxyMvpdId": "TestProxyMVPD"}), enc="raw")
    add(c, "real form with an empty proxyMvpdId: <proxyMvpdId></proxyMvpdId>; fields.proxyMvpdId is \"\"", VALID,
        build({"proxyMvpdId": ""}), enc="raw")

    c = "valid/documented"
    add(c, "the documented form: </signatureInfo>, <shortAuthorizationToken>, epoch-millisecond issueTime, proxyMvpdId; "
        "serialized", VALID, D0)
    add(c, "the documented form as raw token text", VALID, D0, enc="raw")
    add(c, "the documented form serialized with CRLF, indentation and spaces", VALID, D0, text=messy_b64(b64(D0).decode()))
    t = build({"proxyMvpdId": ""}, doc=True)
    add(c, "proxyMvpdId present but empty: <proxyMvpdId></proxyMvpdId>; fields.proxyMvpdId is \"\"", VALID, t)
    add(c, "proxyMvpdId present but empty, raw token text", VALID, t, enc="raw")
    t = build(omit=("proxyMvpdId",), doc=True)
    add(c, "proxyMvpdId absent; fields.proxyMvpdId is \"\"", VALID, t)
    add(c, "proxyMvpdId absent, raw token text", VALID, t, enc="raw")
    add(c, "leading zeros in the epoch-millisecond issueTime and in ttl", VALID,
        build({"issueTime": "000" + str(ISSUE), "ttl": "00420000"}, doc=True))
    add(c, "key rotation in the documented form: trusted primary and rotated, signed by rotated", VALID,
        build(doc=True, key="rotated"), trusted=("primary", "rotated"))

    c = "valid/mixed-form"
    for root in (AUTH, SHORT):
        for end in ("unslashed", "slashed"):
            for encoding in ("dateTime", "epochMilliseconds"):
                if (root, end, encoding) in ((AUTH, "unslashed", "dateTime"), (SHORT, "slashed", "epochMilliseconds")):
                    continue
                it = ISSUE_TEXT if encoding == "dateTime" else str(ISSUE)
                proxy = "TestProxyMVPD" if root == SHORT else None
                t = build({"issueTime": it, "proxyMvpdId": proxy}, root=root, end=end)
                add(c, f"root {root}, signatureInfo end {end}, issueTime {encoding}"
                    f"{', with proxyMvpdId' if proxy else ', no proxyMvpdId'}", VALID, t, enc="raw")
    t = token(S0, sig=SIG0, end="slashed")
    add(c, "the base token's signature with </signatureInfo> instead of <signatureInfo>, serialized: the end is not "
        "signed", VALID, t)
    add(c, "documented root and epoch issueTime without proxyMvpdId, unslashed end, serialized", VALID,
        build({"issueTime": str(ISSUE)}, root=SHORT))
    add(c, "documented form with a dated issueTime at -0700 and a proxyMvpdId", VALID,
        build({"issueTime": dated(ISSUE, -420)}, doc=True), enc="raw")

    c = "valid/utc-offset"
    offsets = [(-420, False, "-0700 (real tokens carry US Pacific time)"), (-480, False, "-0800"),
               (330, False, "+0530 (a half-hour offset)"), (345, False, "+0545 (a 45-minute offset)"),
               (1439, False, "+2359, the largest offset"), (-1439, False, "-2359, the smallest offset"),
               (840, False, "+1400"), (-720, False, "-1200"), (0, True, "-0000 (zero with a minus sign)")]
    for off, mz, what in offsets:
        it = dated(ISSUE, off, mz)
        add(c, f"issueTime {it}: offset {what}; the same instant as the base token", VALID,
            build({"issueTime": it}), enc="raw")
    t = build({"issueTime": dated(ISSUE, -420)})
    add(c, "offset -0700 and now == the instant + ttl - 1: valid (an implementation adding the offset is 14 h off)",
        VALID, t, now=EXPIRY - 1)
    add(c, "offset -0700 and now == the instant: valid", VALID, t, now=ISSUE)

    c = "valid/date"
    dates = [
        ("2024-02-29 12:00:00 +0000", "February 29 of a leap year"),
        ("2000-02-29 12:00:00 +0000", "February 29, 2000 (divisible by 400: a leap year)"),
        ("2400-02-29 12:00:00 +0000", "February 29, 2400 (divisible by 400)"),
        ("2100-02-28 23:59:59 +0000", "the last second of February 2100 (not a leap year)"),
        ("2100-03-01 00:00:00 +0000", "March 1, 2100, the day after February 28"),
        ("2024-12-31 23:59:59 +0000", "day 366 of a leap year"),
        ("2038-01-19 03:14:08 +0000", "one second after the 32-bit time_t overflow"),
        ("1970-01-01 00:00:00 +0000", "the epoch itself (issue instant 0)"),
        ("1970-01-01 05:30:00 +0530", "the epoch seen at +0530 (issue instant 0)"),
        ("1970-01-01 00:00:00 -0001", "local midnight of 1970-01-01 at -0001 (instant 60 s)"),
        ("2025-01-01 00:30:00 +0100", "a local time whose instant is in the previous year (2024-12-31T23:30:00Z)"),
        ("2026-03-01 00:00:00 +0100", "a local time whose instant is in the previous month (2026-02-28T23:00:00Z)"),
        ("2025-12-31 23:00:00 -0100", "a local time whose instant is in the next year (2026-01-01T00:00:00Z)"),
        ("9999-12-31 23:59:59 +0000", "the last second of year 9999"),
        ("9999-12-31 23:59:59 -2359", "year 9999 at -2359: the instant (10000-01-01T23:58:59Z) is after year 9999"),
    ]
    for text, what in dates:
        ms, _ = datetime_instant(text)
        add(c, f"issueTime {text}: {what}; now == the instant + 1 s", VALID, build({"issueTime": text}), enc="raw",
            now=ms + 1000)

    c = "valid/cdata"
    for n in ["sessionGUID", "requestorID", "resourceID", "ttl", "issueTime", "mvpdId"]:
        add(c, f"{n} as one CDATA section: <{n}><![CDATA[{BASE_ADOBE[n]}]]></{n}>", VALID,
            build(wire={n: cdata(BASE_ADOBE[n])}), enc="raw")
    add(c, "proxyMvpdId as one CDATA section (documented form)", VALID,
        build(doc=True, wire={"proxyMvpdId": cdata("TestProxyMVPD")}), enc="raw")
    add(c, "every field, ttl and issueTime included, as one CDATA section (documented form), serialized", VALID,
        build(doc=True, writer=cdata))
    add(c, "CDATA inside character data: tvekit-<![CDATA[te]]>st", VALID,
        build(wire={"requestorID": b"tvekit-<![CDATA[te]]>st"}), enc="raw")
    v = "a & b & c < d"
    add(c, "character data, entities and CDATA mixed: a &amp; <![CDATA[b & c]]> &lt; d", VALID,
        build({"resourceID": v}, wire={"resourceID": b"a &amp; <![CDATA[b & c]]> &lt; d"}), enc="raw", resource=v)
    v = "R&amp;D &#60; &lt;"
    add(c, "entity and character-reference text inside CDATA is literal: <![CDATA[R&amp;D &#60; &lt;]]>", VALID,
        build({"requestorID": v}, wire={"requestorID": cdata(v)}), enc="raw", requestor=v)
    v = "x]]>y"
    t = build({"resourceID": v})
    assert b"<![CDATA[x]]]]><![CDATA[>y]]>" in t
    add(c, "the nested split: <![CDATA[x]]]]><![CDATA[>y]]> decodes to x]]>y", VALID, t, enc="raw", resource=v)
    t = build({"mvpdId": "]]>"})
    add(c, "mvpdId ]]> written as <![CDATA[]]]]><![CDATA[>]]>", VALID, t, enc="raw")
    add(c, "]]&gt; in character data decodes to ]]> (only the literal ]]> is refused)", VALID,
        build({"mvpdId": "a]]>b"}, wire={"mvpdId": b"a]]&gt;b"}), enc="raw")
    v = "a]]b]"
    add(c, "]] and ] inside CDATA that do not end it: <![CDATA[a]]b]]]>", VALID,
        build({"mvpdId": v}, wire={"mvpdId": cdata(v)}), enc="raw")
    add(c, "two adjacent CDATA sections: <![CDATA[tvekit-]]><![CDATA[test]]>", VALID,
        build(wire={"requestorID": b"<![CDATA[tvekit-]]><![CDATA[test]]>"}), enc="raw")
    add(c, "an empty CDATA section inside a non-empty field: tvekit<![CDATA[]]>-test", VALID,
        build(wire={"requestorID": b"tvekit<![CDATA[]]>-test"}), enc="raw")
    add(c, "proxyMvpdId of only an empty CDATA section: empty, which proxyMvpdId may be (fields.proxyMvpdId \"\")", VALID,
        build({"proxyMvpdId": ""}, doc=True, wire={"proxyMvpdId": b"<![CDATA[]]>"}), enc="raw")
    v = "</resourceID></authToken><signatureInfo>"
    add(c, "CDATA holding end tags and <signatureInfo>: a parser must not search for end tags", VALID,
        build({"resourceID": v}), enc="raw", resource=None)
    v = "a<b&c>d"
    add(c, "a value with <, & and > written the way TVEKit writes it: <![CDATA[a<b&c>d]]>", VALID,
        build({"resourceID": v}), enc="raw", resource=v)
    v = "ケーブル & Co"
    add(c, "non-ASCII UTF-8 inside CDATA", VALID, build({"mvpdId": v}), enc="raw")
    add(c, "ttl of character data and CDATA: 42<![CDATA[00]]>00", VALID,
        build(wire={"ttl": b"42<![CDATA[00]]>00"}), enc="raw")
    add(c, "issueTime of character data and CDATA: 2025-12-31<![CDATA[ ]]>23:58:20 +0000; issueTimeText is the decoded "
        "text", VALID, build(wire={"issueTime": b"2025-12-31<![CDATA[ ]]>23:58:20 +0000"}), enc="raw")
    t = build({"resourceID": MRSS_ADOBE})
    assert t.count(b"]]]]><![CDATA[>") == 3
    add(c, "MRSS resourceID as Adobe writes it: the document, itself holding CDATA, in CDATA with the nested split; "
        "the caller asks for the same MRSS", VALID, t, enc="raw", resource=MRSS_ADOBE)

    c = "valid/entities"
    over = {
        "sessionGUID": "s&<>\"'id",
        "requestorID": "req & co <\"tvekit\">",
        "resourceID": "a & b < c > d \"e\" 'f'",
        "mvpdId": "M&M's <MVPD>",
    }
    t = build(over, writer=w_entities)
    add(c, "all five entities (&amp; &lt; &gt; &quot; &apos;) in every text field; the verifier is given the decoded "
        "requestor and resource", VALID, t, enc="raw", requestor=over["requestorID"], resource=over["resourceID"])
    add(c, "entities in every text field, serialized", VALID, t, requestor=over["requestorID"], resource=over["resourceID"])
    t = build(dict(over, proxyMvpdId="\"proxy\" & 'co' <>"), doc=True, writer=w_entities)
    add(c, "entities in every text field of the documented form, proxyMvpdId included", VALID, t, enc="raw",
        requestor=over["requestorID"], resource=over["resourceID"])
    add(c, "double escaping: the wire has &amp;amp; and &amp;lt;&amp;gt;, the decoded values are the entity text", VALID,
        build({"requestorID": "&amp;", "resourceID": "&lt;&gt;"}, writer=w_entities), enc="raw", requestor="&amp;",
        resource="&lt;&gt;")
    add(c, "MRSS resourceID escaped with entities instead of CDATA (the caller asks for the decoded MRSS)", VALID,
        build({"resourceID": MRSS_ITEM}, writer=w_entities), enc="raw", resource=MRSS_ITEM)

    c = "valid/time-boundary"
    add(c, "now == issueTime (skew 0) is valid", VALID, T0, now=ISSUE)
    add(c, "now == issueTime - skew (skew 300 s) is valid", VALID, T0, now=ISSUE - 300000, skew=300)
    add(c, "now == issueTime + ttl - 1 (skew 0) is valid", VALID, T0, now=EXPIRY - 1)
    add(c, "now == issueTime + ttl + skew - 1 (skew 300 s) is valid", VALID, T0, now=EXPIRY + 300000 - 1, skew=300)
    add(c, "skew widens the window: now == issueTime - 60 s, skew 120 s", VALID, T0, now=ISSUE - 60000, skew=120)
    add(c, "skew widens the window: now == issueTime + ttl + 60 s, skew 120 s", VALID, T0, now=EXPIRY + 60000, skew=120)
    add(c, "documented form: now == issueTime + ttl - 1", VALID, D0, now=EXPIRY - 1)


def format_cases():
    # ---- input-level: not a token at all
    add("format/empty", "empty input", FMT, text="")
    add("format/whitespace-only", "only whitespace (spaces, TAB and line breaks)", FMT, text=" \r\n\t \n ")
    add("format/not-base64-not-raw", "plain text that is neither Base64 nor raw token text", FMT, text="this is not a token!")
    add("format/not-base64-not-raw", "JSON-looking text", FMT, text='{"signatureInfo":"x"}')
    add("format/base64-garbage", "Base64 of 300 pseudo-random bytes", FMT, tok=det_bytes("garbage", 300))
    add("format/base64-garbage", "Base64 applied twice (the decoded text is itself the Base64 serialization)", FMT, tok=b64(T0))
    s = b64(T0).decode()
    add("format/base64-invalid-char", "serialized token with a '*' in the middle of the Base64", FMT, T0,
        text=s[:100] + "*" + s[101:])
    assert "+" in s or "/" in s
    add("format/base64-url-alphabet", "serialized token in the URL-safe alphabet (- and _ instead of + and /)", FMT, T0,
        text=s.replace("+", "-").replace("/", "_"))

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
    add("format/doctype", "DOCTYPE before the token", FMT, b"<!DOCTYPE authToken>" + T0)
    s = rep(S0, b"<requestorID>tvekit-test</requestorID>", b"<requestorID>&req;</requestorID>")
    add("format/doctype", "DOCTYPE with an internal entity that a DTD-processing parser would expand to the requestor "
        "(re-signed)", FMT, b'<!DOCTYPE t [<!ENTITY req "tvekit-test">]>' + resigned(s))

    # ---- comments, processing instructions
    add("format/comment", "comment before <signatureInfo>", FMT, b"<!-- c -->" + T0)
    add("format/comment", "comment between the signatureInfo end and <authToken> (signature still good)", FMT,
        token(b"<!-- c -->" + S0, sig=SIG0), enc="raw")
    add("format/comment", "comment between </signatureInfo> and <shortAuthorizationToken> (documented form)", FMT,
        token(b"<!-- c -->" + SD, sig=SIGD, end="slashed"), enc="raw")
    add("format/comment", "comment between two children (re-signed)", FMT,
        resigned(rep(S0, b"</ttl><issueTime>", b"</ttl><!-- c --><issueTime>")), enc="raw")
    add("format/comment", "comment inside the requestorID text: tvekit<!-- c -->-test (re-signed)", FMT,
        resigned(rep(S0, b"tvekit-test", b"tvekit<!-- c -->-test")), enc="raw")
    add("format/comment", "comment after </authToken>", FMT, T0 + b"<!-- c -->", enc="raw")
    add("format/comment", "comment inside signatureInfo before the Base64", FMT,
        rep(T0, b"<signatureInfo>" + SIG0_B64, b"<signatureInfo><!---->" + SIG0_B64), enc="raw")
    add("format/processing-instruction", "processing instruction between two children (re-signed)", FMT,
        resigned(rep(S0, b"</issueTime><mvpdId>", b"</issueTime><?tvekit note?><mvpdId>")), enc="raw")
    add("format/processing-instruction", "processing instruction before the token", FMT,
        b'<?xml-stylesheet href="a.xsl"?>' + T0)
    add("format/processing-instruction", "processing instruction between the signatureInfo end and <authToken>", FMT,
        token(b"<?pi?>" + S0, sig=SIG0), enc="raw")

    # ---- CDATA where it does not belong, and broken CDATA
    c = "format/cdata"
    add(c, "CDATA section around the signature", FMT, token(S0, sig_text=b"<![CDATA[" + SIG0_B64 + b"]]>"), enc="raw")
    add(c, "CDATA section around the signature, documented form", FMT,
        token(SD, sig_text=b"<![CDATA[" + b64(SIGD) + b"]]>", end="slashed"), enc="raw")
    add(c, "empty CDATA section between two children (re-signed)", FMT,
        resigned(rep(S0, b"</ttl><issueTime>", b"</ttl><![CDATA[]]><issueTime>")), enc="raw")
    add(c, "CDATA section between the signatureInfo end and <authToken>", FMT,
        token(b"<![CDATA[x]]>" + S0, sig=SIG0), enc="raw")
    add(c, "CDATA section after </authToken>", FMT, T0 + b"<![CDATA[x]]>", enc="raw")
    inner = S0[len(b"<authToken>"):-len(b"</authToken>")]
    add(c, "the children of authToken inside one CDATA section (re-signed)", FMT,
        resigned(b"<authToken>" + cdata(inner) + b"</authToken>"), enc="raw")
    add(c, "unterminated CDATA in resourceID: <![CDATA[tvekit-resource</resourceID>... (re-signed)", FMT,
        resigned(rep(S0, b"<resourceID>tvekit-resource", b"<resourceID><![CDATA[tvekit-resource")), enc="raw",
        resource=None)
    add(c, "CDATA ended by ]> instead of ]]> (unterminated, re-signed)", FMT,
        resigned(rep(S0, b"<resourceID>tvekit-resource", b"<resourceID><![CDATA[tvekit-resource]>")), enc="raw",
        resource=None)
    add(c, "CDATA start in lower case: <![cdata[tvekit-test]]> (re-signed)", FMT,
        resigned(rep(S0, b">tvekit-test<", b"><![cdata[tvekit-test]]><")), enc="raw")
    add(c, "CDATA start with a space: <![CDATA [tvekit-test]]> (re-signed)", FMT,
        resigned(rep(S0, b">tvekit-test<", b"><![CDATA [tvekit-test]]><")), enc="raw")
    add(c, "CDATA start without its second [: <![CDATAtvekit-test]]> (re-signed)", FMT,
        resigned(rep(S0, b">tvekit-test<", b"><![CDATAtvekit-test]]><")), enc="raw")
    add(c, "]]> in the character data of requestorID: tvekit]]>-test (re-signed)", FMT,
        resigned(rep(S0, b">tvekit-test<", b">tvekit]]>-test<")), enc="raw")
    add(c, "]]> as the whole sessionGUID (re-signed)", FMT, resigned(body(values({"sessionGUID": b"]]>"}))), enc="raw")
    add(c, "]]> in character data right after a CDATA section: <![CDATA[a]]>]]> (re-signed)", FMT,
        resigned(body(values({"mvpdId": b"<![CDATA[a]]>]]>"}))), enc="raw")
    add(c, "]]> in the character data of resourceID, documented form (re-signed)", FMT,
        resigned(body(values({"resourceID": b"x]]>y"}, doc=True), SHORT), end="slashed"), enc="raw", resource=None)

    # ---- attributes
    add("format/attribute", "attribute on authToken (element re-signed with the attribute)", FMT,
        resigned(rep(S0, b"<authToken>", b'<authToken version="1">')), enc="raw")
    add("format/attribute", "xmlns on shortAuthorizationToken (re-signed)", FMT,
        resigned(rep(SD, b"<shortAuthorizationToken>", b'<shortAuthorizationToken xmlns="urn:tvekit">'), end="slashed"),
        enc="raw")
    add("format/attribute", "attribute on signatureInfo (serialized, since raw text must begin with <signatureInfo>)", FMT,
        rep(T0, b"<signatureInfo>" + SIG0_B64, b'<signatureInfo alg="SHA256withRSA">' + SIG0_B64))
    add("format/attribute", "attribute on the unslashed signatureInfo end", FMT,
        rep(T0, SIG0_B64 + b"<signatureInfo>", SIG0_B64 + b'<signatureInfo end="1">'), enc="raw")
    add("format/attribute", "attribute on resourceID (re-signed)", FMT,
        resigned(rep(S0, b"<resourceID>", b'<resourceID type="mrss">')), enc="raw")
    add("format/attribute", "single-quoted attribute on mvpdId (re-signed)", FMT,
        resigned(rep(S0, b"<mvpdId>", b"<mvpdId kind='x'>")), enc="raw")

    # ---- whitespace between elements, at every boundary type
    c = "format/whitespace-between-elements"
    add(c, "space between <signatureInfo>SIG<signatureInfo> and <authToken> (signature still good)", FMT,
        token(b" " + S0, sig=SIG0), enc="raw")
    add(c, "newline between </signatureInfo> and <shortAuthorizationToken>, serialized (signature still good)", FMT,
        token(b"\n" + SD, sig=SIGD, end="slashed"))
    add(c, "newline after <authToken> before the first child (re-signed)", FMT,
        resigned(rep(S0, b"<authToken><", b"<authToken>\n<")), enc="raw")
    add(c, "space between </sessionGUID> and <requestorID> (re-signed)", FMT,
        resigned(rep(S0, b"</sessionGUID><", b"</sessionGUID> <")), enc="raw")
    add(c, "tab between </ttl> and <issueTime> (re-signed)", FMT, resigned(rep(S0, b"</ttl><", b"</ttl>\t<")), enc="raw")
    add(c, "CRLF between </mvpdId> and <proxyMvpdId> (documented form, re-signed)", FMT,
        resigned(rep(SD, b"</mvpdId><", b"</mvpdId>\r\n<"), end="slashed"), enc="raw")
    pretty = S0
    for n in ORDER[:-1]:
        pretty = pretty.replace(b"<" + n.encode() + b">", b"\n  <" + n.encode() + b">")
    pretty = rep(pretty, b"</authToken>", b"\n</authToken>")
    add(c, "pretty-printed: newline and two-space indent before every child (re-signed)", FMT, resigned(pretty), enc="raw")
    add(c, "newline after the last child before </authToken> (re-signed)", FMT,
        resigned(rep(S0, b"</mvpdId></", b"</mvpdId>\n</")), enc="raw")
    c = "format/whitespace-in-tag"
    add(c, "space before > in a start tag: <requestorID > (re-signed)", FMT,
        resigned(rep(S0, b"<requestorID>", b"<requestorID >")), enc="raw")
    add(c, "space before > in an end tag: </requestorID > (re-signed)", FMT,
        resigned(rep(S0, b"</requestorID>", b"</requestorID >")), enc="raw")
    add(c, "space before > in </authToken > (re-signed)", FMT, resigned(rep(S0, b"</authToken>", b"</authToken >")),
        enc="raw")
    add(c, "space before > in the unslashed signatureInfo end: <signatureInfo >", FMT,
        rep(T0, SIG0_B64 + b"<signatureInfo>", SIG0_B64 + b"<signatureInfo >"), enc="raw")
    add(c, "space after the slash of </signatureInfo>: </ signatureInfo>", FMT,
        rep(D0, b"</signatureInfo>", b"</ signatureInfo>"), enc="raw")

    # ---- the signatureInfo end
    c = "format/signature-info-end"
    add(c, "<signatureInfo/> instead of <signatureInfo>SIG<signatureInfo> (serialized)", FMT, b"<signatureInfo/>" + S0)
    add(c, "<signatureInfo/> instead of <signatureInfo>SIG</signatureInfo>, documented form (serialized)", FMT,
        b"<signatureInfo/>" + SD)
    add(c, "self-closing end: <signatureInfo>SIG<signatureInfo/>", FMT,
        rep(T0, SIG0_B64 + b"<signatureInfo>", SIG0_B64 + b"<signatureInfo/>"), enc="raw")
    add(c, "no end at all: <signatureInfo>SIG<authToken>...", FMT, rep(T0, SIG0_B64 + b"<signatureInfo>", SIG0_B64),
        enc="raw")
    add(c, "no end at all, documented form: <signatureInfo>SIG<shortAuthorizationToken>...", FMT,
        rep(D0, b"</signatureInfo>", b""), enc="raw")
    add(c, "lower-case end: <signatureInfo>SIG<signatureinfo>", FMT,
        rep(T0, SIG0_B64 + b"<signatureInfo>", SIG0_B64 + b"<signatureinfo>"), enc="raw")
    add(c, "lower-case end: <signatureInfo>SIG</signatureinfo>", FMT, rep(D0, b"</signatureInfo>", b"</signatureinfo>"),
        enc="raw")
    add(c, "<SignatureInfo> as the start tag (serialized)", FMT, rep(T0, b"<signatureInfo>" + SIG0_B64,
                                                                    b"<SignatureInfo>" + SIG0_B64))
    add(c, "three signatureInfo tags: <signatureInfo>SIG<signatureInfo><signatureInfo><authToken>", FMT,
        token(b"<signatureInfo>" + S0, sig=SIG0), enc="raw")
    add(c, "<signatureInfo>SIG</signatureInfo/> (slash at both ends)", FMT,
        rep(D0, b"</signatureInfo>", b"</signatureInfo/>"), enc="raw")

    # ---- the root
    c = "format/root"
    add(c, "start and end tag of the root differ: <authToken>...</shortAuthorizationToken> (re-signed)", FMT,
        resigned(rep(S0, b"</authToken>", b"</shortAuthorizationToken>")), enc="raw")
    add(c, "start and end tag of the root differ: <shortAuthorizationToken>...</authToken> (re-signed)", FMT,
        resigned(rep(SD, b"</shortAuthorizationToken>", b"</authToken>"), end="slashed"), enc="raw")
    add(c, "unknown root <mediaToken> (re-signed)", FMT, resigned(body(values(), "mediaToken")), enc="raw")
    add(c, "root in other letter case: <AuthToken> (re-signed)", FMT, resigned(body(values(), "AuthToken")), enc="raw")
    add(c, "root in other letter case: <authtoken> (re-signed)", FMT, resigned(body(values(), "authtoken")), enc="raw")
    add(c, "root in other letter case: <ShortAuthorizationToken> (re-signed)", FMT,
        resigned(body(values(doc=True), "ShortAuthorizationToken"), end="slashed"), enc="raw")
    add(c, "namespace-prefixed root <tve:authToken> (re-signed)", FMT, resigned(body(values(), "tve:authToken")), enc="raw")
    add(c, "root nested in itself: <authToken><authToken>...</authToken></authToken> (re-signed)", FMT,
        resigned(b"<authToken>" + S0 + b"</authToken>"), enc="raw")
    add(c, "self-closing root <authToken/>", FMT, token(b"<authToken/>"), enc="raw")
    add(c, "no root: the children follow the signatureInfo end directly (signed as they are)", FMT,
        resigned(inner), enc="raw")

    # ---- element order, missing, duplicate, unknown, nested
    adobe_order = ORDER[:-1]
    for a, b_ in zip(adobe_order, adobe_order[1:]):
        order = list(adobe_order)
        i = order.index(a)
        order[i], order[i + 1] = order[i + 1], order[i]
        add("format/element-order", f"{a} and {b_} swapped (re-signed)", FMT, resigned(body(values(), order=order)),
            enc="raw")
    order = list(ORDER)
    order[-2], order[-1] = order[-1], order[-2]
    add("format/element-order", "mvpdId and proxyMvpdId swapped, documented form (re-signed)", FMT,
        resigned(body(values(doc=True), SHORT, order=order), end="slashed"), enc="raw")
    add("format/element-order", "proxyMvpdId first, documented form (re-signed)", FMT,
        resigned(body(values(doc=True), SHORT, order=["proxyMvpdId"] + ORDER[:-1]), end="slashed"), enc="raw")
    add("format/element-order", "signatureInfo after the root (serialized)", FMT,
        S0 + b"<signatureInfo>" + SIG0_B64 + b"<signatureInfo>")
    for n in ORDER[:-1]:
        add("format/missing-element", f"{n} missing (re-signed)", FMT, resigned(body(values(omit=(n,)))), enc="raw",
            resource=None if n == "resourceID" else RES)
    add("format/missing-element", "signatureInfo missing: only the authToken element (serialized)", FMT, S0)
    add("format/missing-element", "the root missing: only <signatureInfo>SIG<signatureInfo>", FMT,
        b"<signatureInfo>" + SIG0_B64 + b"<signatureInfo>", enc="raw")
    add("format/missing-element", "empty root <authToken></authToken> (re-signed)", FMT,
        resigned(b"<authToken></authToken>"), enc="raw")
    c = "format/duplicate-element"
    add(c, "requestorID twice in a row, same value (re-signed)", FMT,
        resigned(rep(S0, b"<resourceID>", b"<requestorID>tvekit-test</requestorID><resourceID>")), enc="raw")
    add(c, "sessionGUID again at the end (re-signed)", FMT,
        resigned(rep(S0, b"</authToken>", b"<sessionGUID>" + GUID.encode() + b"</sessionGUID></authToken>")), enc="raw")
    add(c, "proxyMvpdId twice, documented form (re-signed)", FMT,
        resigned(rep(SD, b"</shortAuthorizationToken>", b"<proxyMvpdId>P</proxyMvpdId></shortAuthorizationToken>"),
                 end="slashed"), enc="raw")
    add(c, "proxyMvpdId twice, real form (re-signed)", FMT,
        resigned(rep(S0, b"</authToken>", b"<proxyMvpdId>P</proxyMvpdId><proxyMvpdId>P</proxyMvpdId></authToken>")),
        enc="raw")
    add(c, "signatureInfo twice", FMT, token(b"<signatureInfo>" + SIG0_B64 + b"<signatureInfo>" + S0, sig=SIG0), enc="raw")
    add(c, "two roots: a second <authToken> element after the first", FMT, T0 + S0, enc="raw")
    c = "format/unknown-element"
    add(c, "unknown element after mvpdId (where proxyMvpdId could be; re-signed)", FMT,
        resigned(rep(S0, b"</authToken>", b"<extra>x</extra></authToken>")), enc="raw")
    add(c, "unknown element between mvpdId and proxyMvpdId, documented form (re-signed)", FMT,
        resigned(rep(SD, b"<proxyMvpdId>", b"<channelID>x</channelID><proxyMvpdId>"), end="slashed"), enc="raw")
    add(c, "unknown empty element instead of the absent proxyMvpdId (re-signed)", FMT,
        resigned(rep(S0, b"</authToken>", b"<note></note></authToken>")), enc="raw")
    add(c, "unknown element between the signatureInfo end and the root", FMT,
        token(b"<version>1</version>" + S0, sig=SIG0), enc="raw")
    add(c, "namespace-prefixed child tve:requestorID (re-signed)", FMT,
        resigned(rep(S0, b"<requestorID>tvekit-test</requestorID>", b"<tve:requestorID>tvekit-test</tve:requestorID>")),
        enc="raw")
    add("format/nested-element", "MRSS markup inside resourceID without CDATA or entities (re-signed)", FMT,
        resigned(rep(S0, b"<resourceID>tvekit-resource</resourceID>", b"<resourceID>" + MRSS_CH.encode() + b"</resourceID>")),
        enc="raw", resource=None)
    add("format/nested-element", "requestor text wrapped in an element: <requestorID><b>tvekit-test</b></requestorID> "
        "(re-signed)", FMT,
        resigned(rep(S0, b"<requestorID>tvekit-test</requestorID>", b"<requestorID><b>tvekit-test</b></requestorID>")),
        enc="raw")
    c = "format/self-closing"
    add(c, "<proxyMvpdId/>, documented form (re-signed)", FMT,
        resigned(rep(SD, b"<proxyMvpdId>TestProxyMVPD</proxyMvpdId>", b"<proxyMvpdId/>"), end="slashed"), enc="raw")
    add(c, "<proxyMvpdId /> in the real form (re-signed)", FMT,
        resigned(rep(S0, b"</authToken>", b"<proxyMvpdId /></authToken>")), enc="raw")
    add(c, "<mvpdId/> (re-signed)", FMT, resigned(rep(S0, b"<mvpdId>TestMVPD</mvpdId>", b"<mvpdId/>")), enc="raw")
    c = "format/mismatched-tag"
    add(c, "<mvpdId>...</mvpdID> (re-signed)", FMT, resigned(rep(S0, b"</mvpdId>", b"</mvpdID>")), enc="raw")
    add(c, "<requestorID>...</resourceID> (re-signed)", FMT,
        resigned(rep(S0, b"tvekit-test</requestorID>", b"tvekit-test</resourceID>")), enc="raw")
    c = "format/upper-case-tag"
    add(c, "<RequestorID>...</RequestorID> (re-signed)", FMT, resigned(S0.replace(b"requestorID>", b"RequestorID>")),
        enc="raw")
    add(c, "<TTL>...</TTL> (re-signed)", FMT, resigned(S0.replace(b"ttl>", b"TTL>")), enc="raw")
    add(c, "<IssueTime>...</IssueTime> (re-signed)", FMT, resigned(S0.replace(b"issueTime>", b"IssueTime>")), enc="raw")
    add(c, "<SignatureInfo>SIG<SignatureInfo> (serialized)", FMT, T0.replace(b"signatureInfo>", b"SignatureInfo>"))
    c = "format/missing-closing-tag"
    add(c, "</authToken> missing (signature over the truncated element)", FMT, resigned(S0[:-len(b"</authToken>")]),
        enc="raw")
    add(c, "</mvpdId> missing (re-signed)", FMT, resigned(rep(S0, b"</mvpdId>", b"")), enc="raw")
    add(c, "</sessionGUID> missing (re-signed)", FMT, resigned(rep(S0, b"</sessionGUID>", b"")), enc="raw")
    add(c, "</issueTime> missing (re-signed)", FMT, resigned(rep(S0, b"</issueTime>", b"")), enc="raw")

    # ---- trailing bytes
    c = "format/trailing-bytes"
    add(c, "text after </authToken>", FMT, T0 + b"x", enc="raw")
    add(c, "newline after </authToken>, raw", FMT, T0 + b"\n", enc="raw")
    add(c, "CRLF after </authToken>, inside the Base64", FMT, T0 + b"\r\n")
    add(c, "space after </shortAuthorizationToken>, inside the Base64 (documented form)", FMT, D0 + b" ")
    add(c, "NUL byte after </authToken> (hex)", FMT, T0 + b"\x00", enc="hex")
    add(c, "a second complete token after the first", FMT, T0 + T0, enc="raw")
    add(c, "a <signatureInfo/> after the root", FMT, T0 + b"<signatureInfo/>", enc="raw")

    # ---- entities, character references and raw <
    bad_entities = [
        (b"a&nbsp;b", "&nbsp;"), (b"a & b", "a bare &"), (b"a &amp b", "an unterminated &amp followed by text"),
        (b"a&amp", "an unterminated &amp at the end of the text"), (b"a&AMP;b", "upper-case &AMP;"),
        (b"a&;b", "the empty entity &;"), (b"a&lt", "an unterminated &lt at the end"),
        (b"&apos", "an unterminated &apos as the whole text"), (b"a&amp;&b", "a bare & after an entity"),
    ]
    for raw, what in bad_entities:
        add("format/bad-entity", f"resourceID contains {what} (re-signed)", FMT, resigned(body(values({"resourceID": raw}))),
            enc="raw", resource=None)
    add("format/bad-entity", "entity inside signatureInfo: &#43; for '+'", FMT,
        token(S0, sig_text=SIG0_B64.replace(b"+", b"&#43;", 1) if b"+" in SIG0_B64 else b"&#65;" + SIG0_B64[1:]),
        enc="raw")
    c = "format/character-reference"
    add(c, "resourceID contains the decimal character reference &#60; (re-signed)", FMT,
        resigned(body(values({"resourceID": b"a&#60;b"}))), enc="raw", resource=None)
    add(c, "resourceID contains the hexadecimal character reference &#x3c; (re-signed)", FMT,
        resigned(body(values({"resourceID": b"a&#x3c;b"}))), enc="raw", resource=None)
    add(c, "requestorID &#116;vekit-test (&#116; is 't'; re-signed)", FMT,
        resigned(body(values({"requestorID": b"&#116;vekit-test"}))), enc="raw")
    add(c, "requestorID &#X74;vekit-test (upper-case X; re-signed)", FMT,
        resigned(body(values({"requestorID": b"&#X74;vekit-test"}))), enc="raw")
    add(c, "ttl 42&#48;000 (&#48; is '0'; re-signed)", FMT, resigned(body(values({"ttl": b"42&#48;000"}))), enc="raw")
    add(c, "issueTime with &#32; for the space between date and time (re-signed)", FMT,
        resigned(body(values({"issueTime": b"2025-12-31&#32;23:58:20 +0000"}))), enc="raw")
    add(c, "mvpdId &#x1F4FA; (an emoji by reference; re-signed)", FMT,
        resigned(body(values({"mvpdId": b"TV&#x1F4FA;"}))), enc="raw")
    add("format/raw-less-than", "raw < inside resourceID text: a<b (re-signed)", FMT,
        resigned(body(values({"resourceID": b"a<b"}))), enc="raw", resource=None)
    add("format/raw-less-than", "raw < followed by a space inside mvpdId: a < b (re-signed)", FMT,
        resigned(body(values({"mvpdId": b"a < b"}))), enc="raw")

    # ---- ttl
    bad_numbers = [
        ("+420000", "leading +"), ("-420000", "leading -"), ("-0", "negative zero"), (" 420000", "leading space"),
        ("420000 ", "trailing space"), ("420 000", "space inside"), ("42O000", "letter O"),
        ("420000.0", "decimal point"), ("4.2e5", "exponent"), ("0x66870", "hexadecimal"),
        ("４２００００", "full-width digits"), ("9223372036854775808", "Int64.max + 1 (overflow)"),
        ("99999999999999999999", "20 nines (overflow)"), ("09223372036854775808", "overflow with a leading zero"),
        ("PT7M", "an ISO 8601 duration"),
    ]
    for v, what in bad_numbers:
        add("format/bad-ttl", f"ttl {what}: {v!r} (re-signed)", FMT, resigned(body(values({"ttl": v.encode()}))), enc="raw")
    add("format/bad-ttl", "ttl of CDATA holding a sign: <![CDATA[-1]]> (re-signed)", FMT,
        resigned(body(values({"ttl": b"<![CDATA[-1]]>"}))), enc="raw")

    # ---- issueTime, epoch-millisecond shape
    bad_issue = [
        ("+" + str(ISSUE), "leading +"), ("-" + str(ISSUE), "leading -"), (" " + str(ISSUE), "leading space"),
        (str(ISSUE) + "\n", "trailing newline"), ("abc", "letters"), (str(ISSUE) + ".0", "decimal point"),
        ("1.7672255e12", "exponent"), ("١٧٦٧٢٢٥٥٠٠٠٠٠", "Arabic-Indic digits"),
        ("9223372036854775808", "Int64.max + 1 (overflow)"), ("99999999999999999999", "20 nines (overflow)"),
    ]
    for v, what in bad_issue:
        add("format/bad-issue-time", f"issueTime {what}: {v!r}, documented form (re-signed)", FMT,
            resigned(body(values({"issueTime": v.encode()}, doc=True), SHORT), end="slashed"), enc="raw")

    # ---- issueTime, dated shape: every rule
    bad_dates = [
        ("2025-02-29 12:00:00 +0000", "February 29 of a non-leap year (2025)"),
        ("2100-02-29 12:00:00 +0000", "February 29, 2100 (divisible by 100, not by 400: not a leap year)"),
        ("2200-02-29 12:00:00 +0000", "February 29, 2200 (not a leap year)"),
        ("2025-04-31 12:00:00 +0000", "April 31"),
        ("2025-13-01 12:00:00 +0000", "month 13"),
        ("2025-00-10 12:00:00 +0000", "month 00"),
        ("2025-12-32 12:00:00 +0000", "day 32"),
        ("2025-12-00 12:00:00 +0000", "day 00"),
        ("2025-12-31 24:00:00 +0000", "hour 24"),
        ("2025-12-31 23:60:00 +0000", "minute 60"),
        ("2016-12-31 23:59:60 +0000", "second 60 (a real leap second; no leap seconds)"),
        ("2025-12-31 23:58:20 +2400", "offset hours 24"),
        ("2025-12-31 23:58:20 -2400", "offset hours -24"),
        ("2025-12-31 23:58:20 +0060", "offset minutes 60"),
        ("2025-12-31 23:58:20 +9999", "offset +9999"),
        ("1970-01-01 00:00:00 +0001", "one minute before the epoch once the offset is applied"),
        ("1970-01-01 00:59:59 +0100", "one second before the epoch once the offset is applied"),
        ("1969-12-31 23:30:00 -0100", "year 1969, although the instant (1970-01-01T00:30:00Z) is after the epoch"),
        ("1900-01-01 00:00:00 +0000", "year 1900"),
        ("0000-01-01 00:00:00 +0000", "year 0000"),
        ("10000-01-01 00:00:00 +0000", "a five-digit year"),
        ("25-12-31 23:58:20 +0000", "a two-digit year"),
        ("2025-1-31 23:58:20 +0000", "a one-digit month"),
        ("2025-12-31 3:58:20 +0000", "a one-digit hour"),
        ("2025/12/31 23:58:20 +0000", "slashes in the date"),
        ("2025-12-31 23.58.20 +0000", "dots in the time"),
        ("2025-12-31T23:58:20 +0000", "'T' instead of the space"),
        ("2025-12-31  23:58:20 +0000", "two spaces between date and time"),
        ("2025-12-31 23:58:20+0000", "no space before the offset"),
        ("2025-12-31 23:58:20", "no offset"),
        ("2025-12-31 23:58:20 Z", "Z instead of an offset"),
        ("2025-12-31 23:58:20 GMT", "GMT instead of an offset"),
        ("2025-12-31 23:58:20 +00:00", "an offset with a colon"),
        ("2025-12-31 23:58:20 +000", "a three-digit offset"),
        ("2025-12-31 23:58:20 0000", "an offset without a sign"),
        ("2025-12-31 23:58:20 \u22120700", "U+2212 MINUS SIGN instead of '-'"),
        ("2025-12-31 23:58:20.000 +0000", "fractional seconds"),
        ("2025-12-31 23:58:20,5 +0000", "fractional seconds with a comma"),
        ("2025-12-31T23:58:20Z", "ISO 8601 in UTC"),
        ("2025-12-31T23:58:20-07:00", "ISO 8601 with an offset"),
        ("Wed, 31 Dec 2025 23:58:20 +0000", "RFC 2822"),
        (" 2025-12-31 23:58:20 +0000", "a leading space"),
        ("2025-12-31 23:58:20 +0000 ", "a trailing space"),
        ("2025-12-31 23:58:20 +0000\n", "a trailing newline"),
        ("٢٠٢٥-12-31 23:58:20 +0000", "Arabic-Indic digits in the year"),
        ("2025-12-31 23:58:2O +0000", "letter O in the seconds"),
    ]
    for v, what in bad_dates:
        add("format/bad-date", f"issueTime {v!r}: {what} (re-signed)", FMT,
            resigned(body(values({"issueTime": v.encode()}))), enc="raw")
    add("format/bad-date", "issueTime 2025-02-29 12:00:00 -0700 in the documented form (re-signed)", FMT,
        resigned(body(values({"issueTime": b"2025-02-29 12:00:00 -0700"}, doc=True), SHORT), end="slashed"), enc="raw")

    # ---- empty required fields
    for n in ["sessionGUID", "requestorID", "resourceID", "ttl", "issueTime", "mvpdId"]:
        res = None if n == "resourceID" else RES
        add("format/empty-field", f"empty {n}: <{n}></{n}> (re-signed)", FMT, resigned(body(values({n: b""}))), enc="raw",
            resource=res)
        add("format/empty-field", f"{n} of only an empty CDATA section: <{n}><![CDATA[]]></{n}> (re-signed)", FMT,
            resigned(body(values({n: b"<![CDATA[]]>"}))), enc="raw", resource=res)
    add("format/empty-field", "requestorID of two empty CDATA sections (re-signed)", FMT,
        resigned(body(values({"requestorID": b"<![CDATA[]]><![CDATA[]]>"}))), enc="raw")

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
            resigned(body(values({n: v}))), enc="raw", resource=None if n == "resourceID" else RES)
    cdata_utf8 = [
        ("resourceID", b"<![CDATA[tvekit-\x80resource]]>", "a lone continuation byte 80 inside CDATA"),
        ("requestorID", b"<![CDATA[tvekit\xed\xa0\x80test]]>", "the surrogate ED A0 80 inside CDATA"),
        ("mvpdId", b"<![CDATA[\xc0\xaf]]>", "the overlong C0 AF inside CDATA"),
        ("sessionGUID", b"<![CDATA[ab\xe2\x82]]>", "a truncated E2 82 at the end of a CDATA section"),
    ]
    for n, v, what in cdata_utf8:
        add("format/invalid-utf8", f"{n} contains {what} (hex, re-signed)", FMT, resigned(body(values({n: v}))),
            enc="raw", resource=None if n == "resourceID" else RES)
    add("format/invalid-utf8", "resourceID contains a CESU-8 surrogate pair ED A0 BD ED B8 80 (serialized, re-signed)",
        FMT, resigned(body(values({"resourceID": b"x\xed\xa0\xbd\xed\xb8\x80"}))), resource=None)

    # ---- signature encoding
    sig_s = SIG0_B64.decode()
    assert sig_s.endswith("==")
    c = "format/signature-encoding"
    add(c, "signature contains '!'", FMT, token(S0, sig_text=("!" + sig_s[1:]).encode()), enc="raw")
    add(c, "signature with a space inside", FMT, token(S0, sig_text=(sig_s[:100] + " " + sig_s[100:]).encode()), enc="raw")
    add(c, "signature wrapped at 76 columns with LF", FMT, token(S0, sig_text=wrap(sig_s, 76, "\n").encode()), enc="raw")
    add(c, "signature with a trailing newline before the signatureInfo end", FMT,
        token(S0, sig_text=(sig_s + "\n").encode()), enc="raw")
    add(c, "signature without its == padding", FMT, token(S0, sig_text=sig_s[:-2].encode()), enc="raw")
    add(c, "signature with an extra = (three padding characters)", FMT, token(S0, sig_text=(sig_s + "=").encode()),
        enc="raw")
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
    last = alphabet.index(sig_s[-3])
    assert last & 0x0F == 0
    noncanon = sig_s[:-3] + alphabet[last | 0x01] + "=="
    assert base64.b64decode(noncanon) == SIG0
    add(c, "signature not canonical: non-zero unused bits before the padding (decodes to the right bytes leniently)",
        FMT, token(S0, sig_text=noncanon.encode()), enc="raw")
    assert "+" in sig_s or "/" in sig_s
    add(c, "signature in the URL-safe alphabet (- and _)", FMT,
        token(S0, sig_text=sig_s.replace("+", "-").replace("/", "_").encode()), enc="raw")
    add(c, "signature not canonical, documented form", FMT, token(SD, sig_text=b64(SIGD)[:-2], end="slashed"), enc="raw")

    # ---- size limits
    c = "format/input-size"
    t, v = pad_field_to_total(MAX_INPUT)
    add(c, "raw token text of exactly 65536 bytes (resourceID is 5-byte &amp; entities, under 16384 bytes decoded)",
        VALID, t, enc="raw", resource=None)
    t, v = pad_field_to_total(MAX_INPUT + 1)
    add(c, "raw token text of 65537 bytes, every field within its limit", FMT, t, enc="raw", resource=None)
    t, v = pad_field_to_total(MAX_INPUT // 4 * 3)
    assert len(b64(t)) == MAX_INPUT
    add(c, "serialized token of exactly 65536 Base64 characters", VALID, t, resource=None)
    add(c, "the same serialized token wrapped at 76 columns: 65536 Base64 characters plus 862 LF = 66398 input bytes",
        FMT, t, text=wrap(b64(t).decode(), 76, "\n"), resource=None)
    t, v = pad_field_to_total(MAX_INPUT // 4 * 3 + 1)
    assert len(b64(t)) == MAX_INPUT + 4
    add(c, "serialized token of 65540 Base64 characters (the token text itself is only 49153 bytes)", FMT, t,
        resource=None)
    add(c, "65540 'A' characters (valid Base64 alphabet and length, over the limit)", FMT, text="A" * (MAX_INPUT + 4))
    c = "format/field-size"
    add(c, "resourceID of exactly 16384 bytes, valid signature", VALID, build({"resourceID": "a" * MAX_FIELD}),
        resource=None)
    add(c, "resourceID of 16385 bytes (re-signed, total under 65536)", FMT,
        resigned(body(values({"resourceID": b"a" * (MAX_FIELD + 1)}))), resource=None)
    add(c, "resourceID of 8192 'é' = 16384 UTF-8 bytes: valid (the limit is in bytes)", VALID,
        build({"resourceID": "é" * (MAX_FIELD // 2)}), resource=None)
    add(c, "resourceID of 8193 'é' = 16386 UTF-8 bytes but only 8193 characters (re-signed)", FMT,
        resigned(body(values({"resourceID": ("é" * (MAX_FIELD // 2 + 1)).encode()}))), resource=None)
    add(c, "resourceID of 4000 '&' as &amp;: 20000 bytes on the wire, 4000 decoded: valid (the limit applies after "
        "decoding)", VALID, build({"resourceID": "&" * 4000}, writer=w_entities), resource=None)
    v = "<" * MAX_FIELD
    add(c, "resourceID of 16384 '<' in CDATA: 16396 bytes on the wire, 16384 decoded: valid", VALID,
        build({"resourceID": v}), resource=None)
    add(c, "resourceID of 16385 bytes in CDATA (re-signed)", FMT,
        resigned(body(values({"resourceID": cdata("<" * (MAX_FIELD + 1))}))), resource=None)
    add(c, "resourceID of 16000 bytes of character data and 385 in CDATA: 16385 decoded (re-signed)", FMT,
        resigned(body(values({"resourceID": b"a" * 16000 + cdata("b" * 385)}))), resource=None)
    add(c, "sessionGUID of 16385 bytes (re-signed)", FMT, resigned(body(values({"sessionGUID": b"g" * (MAX_FIELD + 1)}))))


def first_byte_zero_signature():
    """A sessionGUID whose real-form token has a primary signature beginning with a 00 byte (sessionGUIDs tried in
    order), the token's element and that signature."""
    for i in range(100000):
        guid = f"{GUID[:-6]}{i:06d}"
        b = body(values({"sessionGUID": guid}))
        s = sign(b)
        if s[0] == 0:
            return guid, b, s
    raise AssertionError("no signature with a leading zero byte")


def signature_cases():
    c = "signature/modified-field"
    add(c, "one character of resourceID changed after signing", SIG,
        token(body(values({"resourceID": "tvekit-resourcf"})), sig=SIG0), resource="tvekit-resourcf")
    add(c, "requestorID changed after signing (the verifier expects the new value)", SIG,
        token(body(values({"requestorID": "tvekit-tesu"})), sig=SIG0), requestor="tvekit-tesu")
    add(c, "ttl extended after signing", SIG, token(body(values({"ttl": str(TTL * 1000)})), sig=SIG0))
    add(c, "issueTime moved one second later after signing", SIG,
        token(body(values({"issueTime": dated(ISSUE + 1000)})), sig=SIG0))
    add(c, "issueTime offset +0000 rewritten as -0000 after signing (the same instant, other bytes)", SIG,
        token(body(values({"issueTime": dated(ISSUE, 0, True)})), sig=SIG0))
    add(c, "issueTime rewritten at -0700 after signing (the same instant, other bytes)", SIG,
        token(body(values({"issueTime": dated(ISSUE, -420)})), sig=SIG0))
    add(c, "issueTime rewritten as epoch milliseconds after signing (the same instant)", SIG,
        token(body(values({"issueTime": str(ISSUE)})), sig=SIG0))
    add(c, "root renamed from authToken to shortAuthorizationToken after signing", SIG,
        token(body(values(), SHORT), sig=SIG0))
    add(c, "proxyMvpdId emptied after signing, documented form", SIG,
        token(body(values({"proxyMvpdId": ""}, doc=True), SHORT), sig=SIGD, end="slashed"))
    add(c, "proxyMvpdId element removed after signing, documented form", SIG,
        token(body(values(omit=("proxyMvpdId",), doc=True), SHORT), sig=SIGD, end="slashed"))
    add(c, "proxyMvpdId added after signing (real form)", SIG, token(body(values({"proxyMvpdId": "P"})), sig=SIG0))
    c = "signature/cdata"
    tb = body(values({"resourceID": MRSS_CH}))
    i = tb.index(b"<title>TVEKitChannel</title>") + len(b"<title>TVEKit")
    tampered = tb[:i] + b"D" + tb[i + 1:]   # TVEKitChannel -> TVEKitDhannel, inside the CDATA text
    assert b"TVEKitDhannel" in tampered
    add(c, "one byte flipped inside the CDATA text of an MRSS resourceID after signing (not re-signed)", SIG,
        token(tampered, sig=sign(tb)), enc="raw", resource="TVEKitDhannel")
    tb = body(values({"requestorID": "tvekit-test"}), wire={"requestorID": cdata("tvekit-test")})
    tampered = rep(tb, b"<![CDATA[tvekit-test]]>", b"<![CDATA[tvekit-tesu]]>")
    add(c, "requestorID changed inside its CDATA after signing", SIG, token(tampered, sig=sign(tb)), enc="raw",
        requestor="tvekit-tesu")
    v = "a & b"
    wire_cdata = body(values({"resourceID": v}), wire={"resourceID": cdata(v)})
    wire_ent = body(values({"resourceID": v}), wire={"resourceID": esc(v).encode()})
    add(c, "wire has <![CDATA[a & b]]>, signature over the same value as a &amp; b (signing is over wire bytes)", SIG,
        token(wire_cdata, sign_over=wire_ent), enc="raw", resource=v)
    add(c, "wire has a &amp; b, signature over <![CDATA[a & b]]>", SIG, token(wire_ent, sign_over=wire_cdata), enc="raw",
        resource=v)
    wire_plain = body(values())
    wire_c = body(values(), wire={"mvpdId": cdata("TestMVPD")})
    add(c, "wire has <mvpdId><![CDATA[TestMVPD]]></mvpdId>, signature over <mvpdId>TestMVPD</mvpdId>", SIG,
        token(wire_c, sign_over=wire_plain), enc="raw")

    c = "signature/bit-flip"
    add(c, "lowest bit of the last signature byte flipped", SIG, token(S0, sig=SIG0[:-1] + bytes([SIG0[-1] ^ 0x01])))
    add(c, "highest bit of the first signature byte flipped", SIG, token(S0, sig=bytes([SIG0[0] ^ 0x80]) + SIG0[1:]))
    add(c, "one bit flipped in the documented form", SIG, token(SD, sig=SIGD[:-1] + bytes([SIGD[-1] ^ 0x01]), end="slashed"))
    c = "signature/untrusted-key"
    add(c, "signed by the untrusted key", SIG, build(key="untrusted"))
    add(c, "trusted keys are only rotated, token signed by primary", SIG, T0, trusted=("rotated",))
    add(c, "trusted primary and rotated, token signed by untrusted", SIG, build(key="untrusted"),
        trusted=("primary", "rotated"))
    c = "signature/length"
    add(c, "signature truncated to 255 bytes (340 Base64 characters, no padding)", SIG, token(S0, sig=SIG0[:255]),
        enc="raw")
    add(c, "signature with a 0x00 byte prepended (257 bytes)", SIG, token(S0, sig=b"\x00" + SIG0), enc="raw")
    guid0, b0, s0 = first_byte_zero_signature()
    add(c, "a good signature that begins with a 00 byte, sent without it (255 bytes): the length must be the modulus "
        "length", SIG, token(b0, sig=s0[1:]), enc="raw")
    t = build({"sessionGUID": guid0})
    assert t == token(b0, sig=s0)
    add(c, "control: the same token with the full 256-byte signature (first byte 00)", VALID, t, enc="raw")
    add(c, "empty signatureInfo: <signatureInfo><signatureInfo>", SIG, token(S0, sig_text=b""), enc="raw")
    add(c, "empty signatureInfo, documented form: <signatureInfo></signatureInfo>", SIG,
        token(SD, sig_text=b"", end="slashed"), enc="raw")
    add(c, "signature of 4 zero bytes (AAAAAA==)", SIG, token(S0, sig=b"\x00" * 4), enc="raw")
    c = "signature/out-of-range"
    add(c, "256 zero bytes", SIG, token(S0, sig=b"\x00" * 256))
    add(c, "256 0xFF bytes (larger than the modulus)", SIG, token(S0, sig=b"\xff" * 256))
    nums = KEYS["primary"].private_numbers().public_numbers
    add(c, "the modulus itself as the signature", SIG, token(S0, sig=nums.n.to_bytes(256, "big")))
    c = "signature/wrong-bytes-signed"
    add(c, "signature over the element with a newline between two children; the token is sent without it", SIG,
        token(S0, sign_over=rep(S0, b"</sessionGUID><", b"</sessionGUID>\n<")))
    add(c, "signature over the whole token text with an empty signatureInfo (<signatureInfo><signatureInfo><authToken>...)",
        SIG, token(S0, sign_over=b"<signatureInfo><signatureInfo>" + S0))
    add(c, "signature over <signatureInfo></signatureInfo> + the element, documented form", SIG,
        token(SD, sign_over=b"<signatureInfo></signatureInfo>" + SD, end="slashed"))
    add(c, "signature over the children only (without the authToken tags)", SIG, token(S0, sign_over=inner_of(S0)))
    add(c, "signature over the element followed by a newline", SIG, token(S0, sign_over=S0 + b"\n"))
    add(c, "signature over the Base64 of the element", SIG, token(S0, sign_over=b64(S0)))
    add(c, "signature over the element renamed to shortAuthorizationToken", SIG, token(S0, sign_over=body(values(), SHORT)))
    add(c, "signature over the element with the issueTime as epoch milliseconds (the same instant)", SIG,
        token(S0, sign_over=body(values({"issueTime": str(ISSUE)}))))
    s_apos = body(values({"resourceID": b"it&apos;s"}))
    s_raw = body(values({"resourceID": b"it's"}))
    add(c, "wire has &apos;, signature over the same element with a raw ' (signing is over wire bytes, not a canonical "
        "form)", SIG, token(s_apos, sign_over=s_raw), enc="raw", resource="it's")
    add(c, "wire has a raw ', signature over the same element with &apos;", SIG, token(s_raw, sign_over=s_apos),
        enc="raw", resource="it's")
    add(c, "wire has a raw >, signature over &gt;", SIG,
        token(body(values({"mvpdId": b"a>b"})), sign_over=body(values({"mvpdId": b"a&gt;b"}))), enc="raw")
    add(c, "signature of another valid token (different sessionGUID) pasted in", SIG,
        token(S0, sig=sign(body(values({"sessionGUID": "another-session"})))))
    c = "signature/wrong-algorithm"
    add(c, "RSASSA-PKCS1-v1_5 with SHA-1", SIG, token(S0, sig=sign(S0, hash_alg=hashes.SHA1())))
    add(c, "RSASSA-PKCS1-v1_5 with SHA-384", SIG, token(S0, sig=sign(S0, hash_alg=hashes.SHA384())))
    add(c, "RSASSA-PKCS1-v1_5 with SHA-512", SIG, token(S0, sig=sign(S0, hash_alg=hashes.SHA512())))
    add(c, "RSASSA-PSS SHA-256 (MGF1-SHA-256, 32-byte salt)", SIG, token(S0, sig=pss_sign_fixed_salt(S0)))
    add(c, "PKCS#1 v1.5 padding around the bare SHA-256 digest, DigestInfo missing", SIG,
        token(S0, sig=pkcs1_no_digestinfo(S0)))
    add(c, "PKCS#1 v1.5 SHA-256 over SHA-256(element) (pre-hashed, so hashed twice)", SIG,
        token(S0, sig=sign(hashlib.sha256(S0).digest())))
    add(c, "RSASSA-PKCS1-v1_5 with SHA-1, documented form", SIG,
        token(SD, sig=sign(SD, hash_alg=hashes.SHA1()), end="slashed"))


def inner_of(element):
    return element[element.index(b">") + 1:element.rindex(b"</")]


def key_cases():
    L = "legacy1024"
    TL = build(key=L)
    c = "key/legacy1024"
    add(c, "token signed by the RSA-1024 key, trusted with allow1024BitKeys (like Adobe's key of 2015-2017)", VALID, TL,
        trusted=(L,), allow1024=True)
    add(c, "the same as raw token text", VALID, TL, enc="raw", trusted=(L,), allow1024=True)
    add(c, "RSA-1024, documented form", VALID, build(key=L, doc=True), trusted=(L,), allow1024=True)
    add(c, "RSA-1024, dated issueTime at -0700 like the real tokens", VALID,
        build({"issueTime": dated(ISSUE, -420), "requestorID": "MML", "resourceID": "truTV", "mvpdId": "TWC"}, key=L),
        enc="raw", trusted=(L,), allow1024=True, requestor="MML", resource="truTV")
    add(c, "trusted primary and legacy1024 with the opt-in, signed by legacy1024", VALID, TL, trusted=("primary", L),
        allow1024=True)
    add(c, "trusted primary and legacy1024 with the opt-in, signed by primary", VALID, T0, trusted=("primary", L),
        allow1024=True)
    add(c, "the opt-in with only 2048-bit keys trusted changes nothing", VALID, T0, allow1024=True)
    c = "key/opt-in-required"
    add(c, "legacy1024 trusted without allow1024BitKeys: building the verifier fails", [], TL, trusted=(L,))
    add(c, "primary and legacy1024 trusted without the opt-in: building the verifier fails (any key under 2048 bits)", [],
        T0, trusted=("primary", L))
    add(c, "legacy1024 listed after primary and rotated, no opt-in: building the verifier fails", [], T0,
        trusted=("primary", "rotated", L))
    add(c, "no opt-in: the configuration fails before any input is looked at (malformed input)", [], T0 + b"x", enc="raw",
        trusted=(L,))
    c = "key/size-mismatch"
    TL_sig = sign(S0, L)
    assert len(TL_sig) == 128
    add(c, "a 1024-bit (128-byte) signature checked against the 2048-bit primary key", SIG, token(S0, sig=TL_sig))
    add(c, "a 1024-bit signature against primary, with the opt-in and legacy1024 not trusted", SIG, token(S0, sig=TL_sig),
        allow1024=True)
    add(c, "a 1024-bit signature left-padded with 128 zero bytes to 256 bytes, against primary", SIG,
        token(S0, sig=b"\x00" * 128 + TL_sig))
    add(c, "a 2048-bit (256-byte) signature checked against the 1024-bit key", SIG, T0, trusted=(L,), allow1024=True)
    add(c, "a 2048-bit signature with its first 128 bytes cut, against the 1024-bit key", SIG, token(S0, sig=SIG0[128:]),
        trusted=(L,), allow1024=True)
    c = "key/legacy1024-signature"
    add(c, "signed by legacy1024 (documented form), only primary trusted", SIG, build(key=L, doc=True))
    add(c, "legacy1024 trusted with the opt-in, signed by untrusted", SIG, build(key="untrusted"), trusted=(L,),
        allow1024=True)
    add(c, "legacy1024, RSASSA-PKCS1-v1_5 with SHA-1", SIG, token(S0, sig=sign(S0, L, hashes.SHA1())), trusted=(L,),
        allow1024=True)
    add(c, "legacy1024, PKCS#1 v1.5 without DigestInfo", SIG, token(S0, sig=pkcs1_no_digestinfo(S0, L)), trusted=(L,),
        allow1024=True)
    add(c, "legacy1024, RSASSA-PSS SHA-256", SIG, token(S0, sig=pss_sign_fixed_salt(S0, L)), trusted=(L,), allow1024=True)
    add(c, "legacy1024, one bit flipped", SIG, token(S0, sig=TL_sig[:-1] + bytes([TL_sig[-1] ^ 1])), trusted=(L,),
        allow1024=True)
    add(c, "legacy1024, field changed after signing", SIG, token(body(values({"mvpdId": "OtherMVPD"})), sig=TL_sig),
        trusted=(L,), allow1024=True)


def requestor_cases():
    c = "requestor/"
    add(c + "different", "verifier expects a different requestor", BADREQ, T0, requestor="other-requestor")
    add(c + "different", "documented form, verifier expects a different requestor", BADREQ, D0, requestor="other-requestor")
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
    add(c + "whitespace", "token's requestor is in CDATA with a trailing space: <![CDATA[tvekit-test ]]>", BADREQ,
        build({"requestorID": REQ + " "}, wire={"requestorID": cdata(REQ + " ")}), enc="raw")
    add(c + "escaped-form", "token's requestor is 'a & b', verifier expects the escaped form 'a &amp; b'", BADREQ,
        build({"requestorID": "a & b"}), requestor="a &amp; b")
    add(c + "escaped-form", "token's requestor is in CDATA, verifier expects the CDATA markup text", BADREQ,
        build(wire={"requestorID": cdata(REQ)}), enc="raw", requestor="<![CDATA[tvekit-test]]>")
    add(c + "decoded", "control: token's requestor in CDATA, verifier expects the decoded value (serialized)", VALID,
        build(wire={"requestorID": cdata(REQ)}))
    add(c + "decoded", "control: token's requestor 'a & b' written as a &amp; b, verifier expects 'a & b'", VALID,
        build({"requestorID": "a & b"}, writer=w_entities), enc="raw", requestor="a & b")


def depth_mrss(depth):
    """An MRSS document naming TVEKitChannel whose deepest element is at `depth` (rss is depth 1)."""
    n = depth - 2
    return ('<rss version="2.0"><channel><title>TVEKitChannel</title>' + "<g>" * n + "x" + "</g>" * n +
            "</channel></rss>")


def elements_mrss(count):
    """An MRSS document naming TVEKitChannel with `count` elements in all."""
    return '<rss version="2.0"><channel><title>TVEKitChannel</title>' + "<item/>" * (count - 3) + "</channel></rss>"


def attributes_mrss(count):
    """An MRSS document naming TVEKitChannel whose rss element has `count` attributes."""
    attrs = ' version="2.0"' + "".join(f' a{i}="{i}"' for i in range(1, count))
    return f"<rss{attrs}><channel><title>TVEKitChannel</title></channel></rss>"


def padded_mrss(size):
    """The channel-only MRSS for TVEKitChannel padded with spaces inside channel to `size` bytes."""
    head = '<rss version="2.0"><channel><title>TVEKitChannel</title>'
    tail = "</channel></rss>"
    return head + " " * (size - len(head) - len(tail)) + tail


def resource_cases():
    c = "resource/"
    add(c + "different", "verifier expects a different resource", BADRES, T0, resource="other-resource")
    add(c + "case", "resource differs only in case", BADRES, T0, resource="TVEKit-Resource")
    add(c + "escaped-form", "token's resource is 'a & b', verifier expects the escaped form 'a &amp; b'", BADRES,
        build({"resourceID": "a & b"}), resource="a &amp; b")
    add(c + "escaped-form", "verifier expects the escaped MRSS (&lt;rss ...) instead of the markup", BADRES,
        build({"resourceID": MRSS_CH}), resource=esc(MRSS_CH))
    add(c + "unicode-normalization", "token has precomposed é, verifier expects decomposed", BADRES,
        build({"resourceID": "caf\u00e9"}), resource="cafe\u0301")
    add(c + "whitespace", "plain IDs: expected resource has a trailing newline (plain IDs compare byte for byte)", BADRES,
        T0, resource=RES + "\n")

    # plain ID expected, MRSS in the token
    cc = c + "mrss-channel"
    add(cc, "plain ID expected, the token's MRSS (channel only) names that channel", VALID,
        build({"resourceID": MRSS_CH}), enc="raw", resource=CH)
    add(cc, "plain ID expected, the token's MRSS is for an item of that channel", VALID,
        build({"resourceID": MRSS_ITEM}), enc="raw", resource=CH)
    add(cc, "plain ID expected, the token's MRSS written as Adobe does (CDATA inside, nested split) names that channel",
        VALID, build({"resourceID": MRSS_ADOBE}), enc="raw", resource=CH)
    add(cc, "plain ID expected, the token's MRSS has an XML declaration", VALID,
        build({"resourceID": '<?xml version="1.0" encoding="UTF-8"?>' + MRSS_ITEM}), enc="raw", resource=CH)
    add(cc, "plain ID expected, the token's MRSS is escaped with entities instead of CDATA", VALID,
        build({"resourceID": MRSS_ITEM}, writer=w_entities), enc="raw", resource=CH)
    v = "Tom & Jerry"
    add(cc, "plain ID 'Tom & Jerry' expected, the MRSS title is Tom &amp; Jerry", VALID,
        build({"resourceID": '<rss version="2.0"><channel><title>Tom &amp; Jerry</title></channel></rss>'}), enc="raw",
        resource=v)
    add(cc, "plain ID expected, the token's MRSS names another channel", BADRES,
        build({"resourceID": MRSS_CH.replace(CH, "OtherChannel")}), enc="raw", resource=CH)
    add(cc, "plain ID expected, the token's MRSS names the channel in other letter case", BADRES,
        build({"resourceID": MRSS_CH.replace(CH, CH.upper())}), enc="raw", resource=CH)
    add(cc, "plain ID expected, the ID is only the item's title, not the channel's", BADRES,
        build({"resourceID": MRSS_ITEM}), enc="raw", resource="Episode 1")
    add(cc, "plain ID expected, the token's MRSS names it in a media:title, not in title", BADRES,
        build({"resourceID": '<rss version="2.0" xmlns:media="http://search.yahoo.com/mrss/"><channel>'
                             '<media:title>TVEKitChannel</media:title><title>Other</title></channel></rss>'}),
        enc="raw", resource=CH)

    # MRSS expected
    cc = c + "mrss-tree"
    add(cc, "MRSS expected, the token holds the same document byte for byte (in CDATA)", VALID,
        build({"resourceID": MRSS_ITEM}), enc="raw", resource=MRSS_ITEM)
    pretty = ('<rss version="2.0" xmlns:media="http://search.yahoo.com/mrss/">\n  <channel>\n    <title>TVEKitChannel'
              '</title>\n    <item>\n      <title>Episode 1</title>\n      <guid>ep-1</guid>\n      '
              '<media:rating scheme="urn:v-chip">tv-14</media:rating>\n    </item>\n  </channel>\n</rss>\n')
    add(cc, "MRSS expected, the token's MRSS is the same pretty-printed (whitespace between elements and a final "
        "newline)", VALID, build({"resourceID": pretty}), enc="raw", resource=MRSS_ITEM)
    spaced = ("<rss  version = '2.0'\n xmlns:media=\"http://search.yahoo.com/mrss/\" ><channel ><title>TVEKitChannel"
              "</title ><item><title>Episode 1</title><guid>ep-1</guid><media:rating\tscheme='urn:v-chip' >tv-14"
              "</media:rating></item></channel></rss >")
    add(cc, "MRSS expected, the token's MRSS has other whitespace inside tags and single-quoted attributes", VALID,
        build({"resourceID": spaced}), enc="raw", resource=MRSS_ITEM)
    reordered = MRSS_ITEM.replace('<rss version="2.0" xmlns:media="http://search.yahoo.com/mrss/">',
                                  '<rss xmlns:media="http://search.yahoo.com/mrss/" version="2.0">')
    assert reordered != MRSS_ITEM
    add(cc, "MRSS expected, the token's MRSS has the rss attributes in the other order", VALID,
        build({"resourceID": reordered}), enc="raw", resource=MRSS_ITEM)
    add(cc, "MRSS expected with CDATA (as Adobe writes it), the token's MRSS uses entities and plain text instead",
        VALID, build({"resourceID": MRSS_ADOBE.replace("<![CDATA[Episode 1 & 2]]>", "Episode 1 &amp; 2")
                      .replace("<![CDATA[TVEKitChannel]]>", "TVEKitChannel").replace("<![CDATA[tv-14]]>", "tv-14")}),
        enc="raw", resource=MRSS_ADOBE)
    add(cc, "MRSS expected, the token's MRSS has an XML declaration the expected one lacks", VALID,
        build({"resourceID": "<?xml version='1.0'?>\n" + MRSS_ITEM}), enc="raw", resource=MRSS_ITEM)
    add(cc, "MRSS expected, the token's MRSS writes an empty element as <guid/> instead of <guid></guid>", VALID,
        build({"resourceID": MRSS_CH.replace("</title>", "</title><item><guid/></item>")}), enc="raw",
        resource=MRSS_CH.replace("</title>", "</title><item><guid></guid></item>"))
    add(cc, "MRSS expected, the title text has leading and trailing whitespace in the token's MRSS", VALID,
        build({"resourceID": MRSS_CH.replace(">TVEKitChannel<", ">\n  TVEKitChannel\t<")}), enc="raw",
        resource=MRSS_CH)
    add(cc, "MRSS expected (channel only), the token holds the plain ID it stands for", VALID,
        build({"resourceID": CH}), enc="raw", resource=MRSS_CH)
    add(cc, "MRSS expected (channel only), the token's MRSS is for an item of that channel: the trees differ", BADRES,
        build({"resourceID": MRSS_ITEM}), enc="raw", resource=MRSS_CH.replace('<rss version="2.0">',
                                                                             '<rss version="2.0" xmlns:media="http://search.yahoo.com/mrss/">'))
    add(cc, "MRSS expected with an item, the token holds the plain channel ID: the trees differ", BADRES,
        build({"resourceID": CH}), enc="raw", resource=MRSS_ITEM)
    add(cc, "MRSS expected (channel only) without version=\"2.0\", the token holds the plain ID: the attributes differ",
        BADRES, build({"resourceID": CH}), enc="raw", resource="<rss><channel><title>TVEKitChannel</title></channel></rss>")
    add(cc, "MRSS expected, the token's MRSS has a different item (guid ep-2)", BADRES,
        build({"resourceID": MRSS_ITEM.replace("ep-1", "ep-2")}), enc="raw", resource=MRSS_ITEM)
    add(cc, "MRSS expected, the token's MRSS has a different attribute value (scheme urn:mpaa)", BADRES,
        build({"resourceID": MRSS_ITEM.replace("urn:v-chip", "urn:mpaa")}), enc="raw", resource=MRSS_ITEM)
    add(cc, "MRSS expected, the token's MRSS has one more attribute", BADRES,
        build({"resourceID": MRSS_ITEM.replace("<guid>", '<guid isPermaLink="false">')}), enc="raw", resource=MRSS_ITEM)
    add(cc, "MRSS expected, the token's MRSS has the item's children in another order", BADRES,
        build({"resourceID": MRSS_ITEM.replace("<title>Episode 1</title><guid>ep-1</guid>",
                                               "<guid>ep-1</guid><title>Episode 1</title>")}), enc="raw",
        resource=MRSS_ITEM)
    add(cc, "MRSS expected, the token's MRSS uses another prefix for the same namespace (no namespace resolution)", BADRES,
        build({"resourceID": MRSS_ITEM.replace("xmlns:media=", "xmlns:m=").replace("media:rating", "m:rating")}),
        enc="raw", resource=MRSS_ITEM)
    add(cc, "MRSS expected, the token's MRSS differs in the title's inner whitespace", BADRES,
        build({"resourceID": MRSS_ITEM.replace("Episode 1", "Episode  1")}), enc="raw", resource=MRSS_ITEM)
    add(cc, "MRSS expected, the token's MRSS has an extra empty item", BADRES,
        build({"resourceID": MRSS_ITEM.replace("</channel>", "<item/></channel>")}), enc="raw", resource=MRSS_ITEM)
    add(cc, "MRSS expected, the token's MRSS has a comment (hardening: matches nothing)", BADRES,
        build({"resourceID": MRSS_ITEM.replace("<item>", "<!-- c --><item>")}), enc="raw", resource=MRSS_ITEM)
    add(cc, "MRSS expected with a comment, the token's MRSS is the same without it (the expected document breaks a rule)",
        BADRES, build({"resourceID": MRSS_ITEM}), enc="raw", resource=MRSS_ITEM.replace("<item>", "<!-- c --><item>"))
    add(cc, "the same bytes always match: the token's resourceID and the expected one are the identical MRSS with a "
        "comment", VALID, build({"resourceID": MRSS_ITEM.replace("<item>", "<!-- c --><item>")}), enc="raw",
        resource=MRSS_ITEM.replace("<item>", "<!-- c --><item>"))

    # hostile MRSS: each would name TVEKitChannel for a lenient reader; the caller asks for the plain channel
    cc = c + "mrss-hostile"
    hostile = [
        ('<!DOCTYPE rss [<!ENTITY t "TVEKitChannel">]><rss version="2.0"><channel><title>&t;</title></channel></rss>',
         "a DOCTYPE declaring an entity that expands to the channel"),
        ('<!DOCTYPE rss><rss version="2.0"><channel><title>TVEKitChannel</title></channel></rss>',
         "a DOCTYPE without an internal subset"),
        ('<rss version="2.0"><channel><!-- note --><title>TVEKitChannel</title></channel></rss>', "a comment"),
        ('<!-- note --><rss version="2.0"><channel><title>TVEKitChannel</title></channel></rss>', "a comment before the root"),
        ('<rss version="2.0"><channel><?tvekit note?><title>TVEKitChannel</title></channel></rss>',
         "a processing instruction"),
        ('<?xml-stylesheet href="a.xsl"?><rss version="2.0"><channel><title>TVEKitChannel</title></channel></rss>',
         "a processing instruction before the root"),
        ('<rss version="2.0"><channel><title>TVEKitChannel</title></channel></rss><?pi?>',
         "a processing instruction after the root"),
        ('<rss version="2.0"><channel><title>TVEKit&#67;hannel</title></channel></rss>',
         "a numeric character reference (&#67; is 'C')"),
        ('<rss version="2.0"><channel><title>TVEKit&#x43;hannel</title></channel></rss>',
         "a hexadecimal character reference (&#x43; is 'C')"),
        ('<rss version="2.0"><channel><title>TVEKitChannel&nbsp;</title></channel></rss>', "the undeclared entity &nbsp;"),
        (depth_mrss(17), "depth 17 (rss is depth 1)"),
        (elements_mrss(257), "257 elements"),
        (attributes_mrss(17), "17 attributes on one element"),
        ('<rss version="2.0"><title>TVEKitChannel</title></rss>', "no channel"),
        ('<rss version="2.0"><channel><title>TVEKitChannel</title></channel><channel><title>TVEKitChannel</title>'
         '</channel></rss>', "two channels"),
        ('<rss version="2.0"><channel><title>TVEKitChannel</title><title>TVEKitChannel</title></channel></rss>',
         "two titles in the channel"),
        ('<rss version="2.0"><channel><item><title>TVEKitChannel</title></item></channel></rss>',
         "no title in the channel (only in an item)"),
        ('<feed version="2.0"><channel><title>TVEKitChannel</title></channel></feed>', "the root is feed, not rss"),
        ('<rdf:RDF><channel><title>TVEKitChannel</title></channel></rdf:RDF>', "the root is rdf:RDF"),
        ('<rss version="2.0"><channel><title>TVEKitChannel</title></channel>', "rss not closed"),
        ('<rss version="2.0"><channel><title>TVEKitChannel</title></channel></rss><rss/>', "a second root element"),
        ('<rss version="2.0" version="2.0"><channel><title>TVEKitChannel</title></channel></rss>',
         "a duplicate attribute"),
        ('<rss version="2.0"><channel><title>TVEKitChannel</title></Channel></rss>', "a mismatched end tag"),
        ('<rss version="2.0"><channel><title>TVEKit]]>Channel</title></channel></rss>', "]]> in character data"),
        ('<rss version="2.0"><channel><title>TVEKitChannel</title></channel></rss>x', "text after the root"),
        ('<?xml version="1.0"?><?xml version="1.0"?><rss version="2.0"><channel><title>TVEKitChannel</title></channel>'
         '</rss>', "two XML declarations"),
        ('<rss version="2.0"><?xml version="1.0"?><channel><title>TVEKitChannel</title></channel></rss>',
         "an XML declaration that is not at the start"),
    ]
    for doc, what in hostile:
        try:
            parse_mrss(doc)
            raise AssertionError(f"hostile MRSS accepted: {what}")
        except MrssError:
            pass
        add(cc, f"the token's MRSS has {what}; the caller asks for the plain channel", BADRES,
            build({"resourceID": doc}), enc="raw", resource=CH)
    add(cc, "MRSS over 16384 bytes expected (channel only, padded with spaces to 16385 bytes), the token holds the "
        "plain ID", BADRES, build({"resourceID": CH}), enc="raw", resource=padded_mrss(MAX_FIELD + 1))
    cc = c + "mrss-limits"
    for doc, what in [(depth_mrss(16), "depth 16, the limit"), (elements_mrss(256), "256 elements, the limit"),
                      (attributes_mrss(16), "16 attributes on one element, the limit")]:
        add(cc, f"control: the token's MRSS has {what}; the caller asks for the plain channel", VALID,
            build({"resourceID": doc}), enc="raw", resource=CH)
    add(cc, "control: MRSS of exactly 16384 bytes expected (channel only, padded with spaces), the token holds the "
        "plain ID", VALID, build({"resourceID": CH}), enc="raw", resource=padded_mrss(MAX_FIELD))


def time_cases():
    c = "time/"
    add(c + "expired", "now == issueTime + ttl (skew 0): expired", EXPIRED, T0, now=EXPIRY)
    add(c + "expired", "documented form, now == issueTime + ttl: expired", EXPIRED, D0, now=EXPIRY)
    add(c + "expired", "now ten years later", EXPIRED, T0, now=NOW + 10 * 365 * 86400000)
    add(c + "expired", "ttl 0 with now == issueTime: expired (the window is empty)", EXPIRED, build({"ttl": "0"}), now=ISSUE)
    add(c + "expired", "ttl 0, now after issueTime", EXPIRED, build({"ttl": "0"}))
    add(c + "expired", "now == issueTime + ttl + skew (skew 300 s): expired", EXPIRED, T0, now=EXPIRY + 300000, skew=300)
    add(c + "expired", "epoch issueTime 0 and ttl 1000: expired long ago", EXPIRED,
        build({"issueTime": "0", "ttl": "1000"}))
    add(c + "expired", "dated issueTime 1970-01-01 00:00:00 +0000 and ttl 1000: expired long ago", EXPIRED,
        build({"issueTime": "1970-01-01 00:00:00 +0000", "ttl": "1000"}))
    add(c + "expired", "epoch issueTime in seconds by mistake (1767225500) is read as milliseconds: expired", EXPIRED,
        build({"issueTime": str(ISSUE // 1000)}))
    t = build({"issueTime": dated(ISSUE, -420)})
    add(c + "expired", "offset -0700: now == the instant + ttl is expired", EXPIRED, t, now=EXPIRY)
    t = build({"issueTime": dated(ISSUE, 330)})
    add(c + "expired", "offset +0530: now == the instant + ttl is expired (an implementation ignoring the offset is "
        "5 h 30 min off)", EXPIRED, t, now=EXPIRY)
    add(c + "not-yet-valid", "now == issueTime - 1 (skew 0)", NOTYET, T0, now=ISSUE - 1)
    add(c + "not-yet-valid", "documented form, now == issueTime - 1", NOTYET, D0, now=ISSUE - 1)
    add(c + "not-yet-valid", "now == issueTime - skew - 1 (skew 300 s)", NOTYET, T0, now=ISSUE - 300000 - 1, skew=300)
    add(c + "not-yet-valid", "issued one day in the future", NOTYET, build({"issueTime": dated(NOW + 86400000)}))
    t = build({"issueTime": dated(ISSUE, -420)})
    add(c + "not-yet-valid", "offset -0700: now == the instant - 1 is not yet valid", NOTYET, t, now=ISSUE - 1)
    t = build({"issueTime": dated(ISSUE, 1439)})
    add(c + "not-yet-valid", "offset +2359: now == the instant - 1 is not yet valid", NOTYET, t, now=ISSUE - 1)
    add(c + "not-yet-valid", "year 9999: not yet valid in 2026", NOTYET, build({"issueTime": "9999-12-31 23:59:59 -2359"}))
    add(c + "saturation", "epoch issueTime 9223372036854775000, ttl 10000 (issueTime + ttl overflows): not yet valid, no "
        "overflow", NOTYET, build({"issueTime": "9223372036854775000", "ttl": "10000"}))
    add(c + "saturation", "epoch issueTime and ttl both Int64.max, skew 300 s: not yet valid", NOTYET,
        build({"issueTime": str(I64MAX), "ttl": str(I64MAX)}), skew=300)
    add(c + "saturation", "ttl Int64.max, epoch issueTime == now - 1: valid (issueTime + ttl saturates)", VALID,
        build({"issueTime": str(NOW - 1), "ttl": str(I64MAX)}, doc=True))
    add(c + "saturation", "ttl Int64.max, dated issueTime == now - 100 s: valid (issueTime + ttl saturates)", VALID,
        build({"ttl": str(I64MAX)}))
    add(c + "saturation", "ttl Int64.max written with leading zeros, dated issueTime, skew 300 s: valid", VALID,
        build({"ttl": "000" + str(I64MAX)}), skew=300)
    t = build({"ttl": str(I64MAX), "issueTime": "9999-12-31 23:59:59 +0000"})
    add(c + "saturation", "ttl Int64.max, dated issueTime in year 9999, now == Int64.max - 1: valid", VALID, t,
        now=I64MAX - 1)
    add(c + "saturation", "ttl Int64.max, dated issueTime in year 9999, now == Int64.max: expired (the saturated end "
        "Int64.max is outside the window)", EXPIRED, t, now=I64MAX)
    add(c + "saturation", "epoch issueTime 0, ttl == now + 1: valid", VALID, build({"issueTime": "0", "ttl": str(NOW + 1)}))
    add(c + "saturation", "now == Int64.min, skew 86400 s: not yet valid", NOTYET, T0, now=I64MIN, skew=86400)
    add(c + "skew", "large skew (86400 s): now == issueTime + ttl + skew - 1 is valid", VALID, T0,
        now=EXPIRY + 86400000 - 1, skew=86400)
    add(c + "skew", "skew 120 s does not rescue a token expired 121 s ago", EXPIRED, T0, now=EXPIRY + 121000, skew=120)
    add(c + "skew", "skew 120 s does not rescue a token issued 121 s in the future", NOTYET, T0, now=ISSUE - 121000,
        skew=120)


def order_cases():
    c = "order/"
    flipped = token(S0, sig=SIG0[:-1] + bytes([SIG0[-1] ^ 0x01]))
    add(c + "signature-before-requestor", "bad signature and wrong requestor: INVALID_SIGNATURE", SIG, flipped,
        requestor="other-requestor")
    add(c + "signature-before-time", "bad signature and expired: INVALID_SIGNATURE", SIG, flipped, now=EXPIRY + 1)
    add(c + "signature-before-all", "untrusted key, wrong requestor, wrong resource, expired: INVALID_SIGNATURE", SIG,
        build(key="untrusted"), requestor="x", resource="y", now=EXPIRY)
    add(c + "signature-before-resource", "signature broken inside the MRSS and the MRSS names another channel: "
        "INVALID_SIGNATURE", SIG, token(body(values({"resourceID": MRSS_CH.replace(CH, "Other")})),
                                        sig=sign(body(values({"resourceID": MRSS_CH})))), enc="raw", resource=CH)
    add(c + "format-before-signature", "whitespace between children and a signature over other bytes: "
        "INVALID_TOKEN_FORMAT", FMT, token(rep(S0, b"</ttl><", b"</ttl> <"), sig=SIG0), enc="raw")
    add(c + "format-before-signature", "overflowing ttl and a signature over other bytes: INVALID_TOKEN_FORMAT", FMT,
        token(body(values({"ttl": "9223372036854775808"})), sig=SIG0), enc="raw")
    add(c + "format-before-signature", "February 29, 2025 in issueTime and a signature over other bytes: "
        "INVALID_TOKEN_FORMAT", FMT, token(body(values({"issueTime": "2025-02-29 12:00:00 +0000"})), sig=SIG0),
        enc="raw")
    add(c + "format-before-signature", "]]> in character data, untrusted key: INVALID_TOKEN_FORMAT", FMT,
        token(body(values({"mvpdId": b"a]]>b"})), key="untrusted"), enc="raw")
    add(c + "requestor-before-resource", "wrong requestor and wrong resource: INVALID_REQUESTOR_ID", BADREQ, T0,
        requestor="other-requestor", resource="other-resource")
    add(c + "requestor-before-time", "wrong requestor and expired: INVALID_REQUESTOR_ID", BADREQ, T0,
        requestor="other-requestor", now=EXPIRY)
    add(c + "resource-before-time", "wrong resource and expired: INVALID_RESOURCE_ID", BADRES, T0,
        resource="other-resource", now=EXPIRY)
    add(c + "resource-before-time", "wrong resource and not yet valid: INVALID_RESOURCE_ID", BADRES, T0,
        resource="other-resource", now=ISSUE - 1)
    add(c + "resource-before-time", "hostile MRSS (a comment) and expired: INVALID_RESOURCE_ID", BADRES,
        build({"resourceID": '<rss version="2.0"><channel><!----><title>TVEKitChannel</title></channel></rss>'}),
        enc="raw", resource=CH, now=EXPIRY)
    add(c + "resource-skipped", "resourceID null and expired: TOKEN_EXPIRED", EXPIRED, T0, resource=None, now=EXPIRY)
    add(c + "time-before-replay", "expired with the replay guard on, verified twice: expired both times",
        [EXPIRED, EXPIRED], T0, now=EXPIRY, replay=True)
    add(c + "time-before-replay", "not yet valid with the replay guard on, verified twice", [NOTYET, NOTYET], T0,
        now=ISSUE - 1, replay=True)


def replay_cases():
    c = "replay/"
    add(c + "guard-on", "replay guard on, verified three times", [VALID, REPLAYED, REPLAYED], T0, replay=True)
    add(c + "guard-off", "replay guard off, verified twice", [VALID, VALID], T0, replay=False)
    add(c + "guard-on", "replay guard on, raw token text verified twice", [VALID, REPLAYED], T0, enc="raw", replay=True)
    add(c + "guard-on", "replay guard on, wrapped serialized token verified twice (the replay key is the signed bytes, not "
        "the input text)", [VALID, REPLAYED], T0, text=messy_b64(b64(T0).decode()), replay=True)
    add(c + "guard-on", "replay guard on, serialized token with TABs verified twice", [VALID, REPLAYED], T0,
        text=tabbed_b64(b64(T0).decode()), replay=True)
    add(c + "guard-on", "replay guard on, resourceID null, verified twice", [VALID, REPLAYED], T0, resource=None,
        replay=True)
    add(c + "guard-on", "replay guard on, documented form", [VALID, REPLAYED], D0, replay=True)
    add(c + "guard-on", "replay guard on, documented form with proxyMvpdId absent", [VALID, REPLAYED],
        build(omit=("proxyMvpdId",), doc=True), replay=True)
    add(c + "guard-on", "replay guard on, the base signature with </signatureInfo> (the end is outside the signed bytes)",
        [VALID, REPLAYED], token(S0, sig=SIG0, end="slashed"), enc="raw", replay=True)
    add(c + "guard-on", "replay guard on, token signed by legacy1024 with the opt-in", [VALID, REPLAYED],
        build(key="legacy1024"), trusted=("legacy1024",), allow1024=True, replay=True)
    add(c + "guard-on", "replay guard on, MRSS in CDATA, the caller asks for the plain channel", [VALID, REPLAYED],
        build({"resourceID": MRSS_ADOBE}), enc="raw", resource=CH, replay=True)
    add(c + "not-recorded", "wrong requestor with the guard on: not recorded, same result twice", [BADREQ, BADREQ], T0,
        requestor="other-requestor", replay=True)
    add(c + "not-recorded", "bad signature with the guard on: same result twice", [SIG, SIG], build(key="untrusted"),
        replay=True)
    add(c + "not-recorded", "malformed token with the guard on: same result twice", [FMT, FMT], T0 + b"\n", enc="raw",
        replay=True)
    add(c + "not-recorded", "wrong resource with the guard on: same result twice", [BADRES, BADRES], T0,
        resource="other-resource", replay=True)


# ---------------------------------------------------------------------------------------------
# The real token
# ---------------------------------------------------------------------------------------------

REAL_EXPECTED = {
    "sessionGUID": "a6c1d2fa9725d7857b6a9d3aa9195040",
    "requestorID": "MML",
    "resourceID": "truTV",
    "ttl": 420000,
    "issueTime": 1489621246000,
    "issueTimeText": "2017-03-15 16:40:46 -0700",
    "mvpdId": "TWC",
    "proxyMvpdId": "",
    "form": {"root": "authToken", "signatureInfoEnd": "unslashed", "issueTimeEncoding": "dateTime",
             "utcOffsetMinutes": -420},
}


def real_token():
    with open(REAL_TOKEN_PATH, "rb") as f:
        text = f.read()
    with open(REAL_KEY_PATH, "rb") as f:
        pem = f.read()
    key = serialization.load_pem_public_key(pem)
    assert isinstance(key, rsa.RSAPublicKey) and key.key_size == 1024 and key.public_numbers().e == 65537
    # 1. cryptography alone: the signature between the two <signatureInfo> tags, over <authToken>...</authToken>.
    assert text.startswith(b"<signatureInfo>") and text.endswith(b"</authToken>")
    end = text.index(b"<signatureInfo>", 1)
    sig = base64.b64decode(text[len(b"<signatureInfo>"):end], validate=True)
    start = text.index(b"<authToken>")
    assert start == end + len(b"<signatureInfo>")
    key.verify(sig, text[start:], padding.PKCS1v15(), hashes.SHA256())
    # 2. the issue time, by datetime
    ms, off = datetime_instant(REAL_EXPECTED["issueTimeText"])
    assert (ms, off) == (REAL_EXPECTED["issueTime"], -420)
    assert datetime.datetime(2017, 3, 15, 23, 40, 46, tzinfo=datetime.timezone.utc).timestamp() * 1000 == ms
    # 3. the reference verifier, with the recovered key trusted (opt-in) and without the opt-in
    PUBKEYS["adobe2015"] = key
    PUBKEY_BITS["adobe2015"] = 1024
    try:
        issue, ttl = REAL_EXPECTED["issueTime"], REAL_EXPECTED["ttl"]
        now = issue + 60000
        checks = [(now, VALID), (issue, VALID), (issue + ttl - 1, VALID), (issue - 1, NOTYET), (issue + ttl, EXPIRED)]
        for at, want in checks:
            got, fields = reference_verify(text, ["adobe2015"], True, "MML", "truTV", at, 0, False, 1)
            assert got == [want], (at, got)
            if want == VALID:
                assert fields == REAL_EXPECTED, fields
        assert reference_verify(text, ["adobe2015"], True, "MML", CH, now, 0, False, 1)[0] == [BADRES]
        assert reference_verify(text, ["adobe2015"], False, "MML", "truTV", now, 0, False, 1)[0] == []
        tampered = text.replace(b"<mvpdId>TWC</mvpdId>", b"<mvpdId>TWD</mvpdId>")
        assert reference_verify(tampered, ["adobe2015"], True, "MML", "truTV", now, 0, False, 1)[0] == [SIG]
        assert reference_verify(b64(text), ["adobe2015"], True, "MML", "truTV", now, 0, False, 1)[0] == [VALID]
        assert reference_verify(text, ["primary"], False, "MML", "truTV", now, 0, False, 1)[0] == [SIG]
    finally:
        del PUBKEYS["adobe2015"]
        del PUBKEY_BITS["adobe2015"]
    doc = {
        "schema": "tvekit-media-token-real-v1",
        "generator": "TestVectors/media-token/generate.py",
        "comment": "A real Adobe short media token (2017), URL-decoded, as pasted in a public Kodi add-on's source, "
                   "and the RSA-1024 key recovered from real tokens. Evidence, not a trust anchor.",
        "token": "token-A.txt",
        "publicKey": "adobe-2015-2017-public-key.pem",
        "keyBits": 1024,
        "allow1024BitKeys": True,
        "requestorID": "MML",
        "resourceID": "truTV",
        "skewSeconds": 0,
        "now": now,
        "result": VALID,
        "fields": REAL_EXPECTED,
        "signedRange": [start, len(text)],
        "signedBytesSha256": hashlib.sha256(text[start:]).hexdigest(),
        "checks": [{"now": at, "result": want} for at, want in checks],
    }
    data = (json.dumps(doc, indent=2, ensure_ascii=True) + "\n").encode("ascii")
    with open(REAL_OUT_PATH, "wb") as f:
        f.write(data)
    print(f"real token: signature verified with cryptography (RSA-1024, SHA-256 over bytes {start}..{len(text)}), "
          f"fields checked")
    print(f"wrote {os.path.relpath(REAL_OUT_PATH)} ({len(data)} bytes, sha256 {hashlib.sha256(data).hexdigest()})")


def main():
    valid_cases()
    format_cases()
    signature_cases()
    key_cases()
    requestor_cases()
    resource_cases()
    time_cases()
    order_cases()
    replay_cases()

    ids = [t["id"] for t in TESTS]
    assert len(ids) == len(set(ids)) and ids == list(range(1, len(TESTS) + 1))
    prefixes = {}
    for t in TESTS:
        prefixes.setdefault(t["class"].split("/")[0], []).append(t)
    missing = set(CLASS_PREFIXES) - set(prefixes)
    assert not missing, missing
    seen_results = set()
    for t in TESTS:
        seen_results.update(t["results"])
        if t["results"] and t["results"][0] == VALID:
            assert t["fields"] is not None
        else:
            assert t["fields"] is None
        assert t["configurationError"] == (t["results"] == [])
    assert seen_results == RESULT_CODES, RESULT_CODES - seen_results
    forms = {(t["fields"]["form"]["root"], t["fields"]["form"]["signatureInfoEnd"], t["fields"]["form"]["issueTimeEncoding"])
             for t in TESTS if t["fields"]}
    assert len(forms) == 8, forms

    doc = {
        "schema": SCHEMA,
        "generator": "TestVectors/media-token/generate.py",
        "keys": {name: {"bits": KEY_BITS[name], "certificatePem": CERT_PEMS[name], "privateKeyPem": pkcs8_pem(KEYS[name])}
                 for name in KEY_NAMES},
        "numberOfTests": len(TESTS),
        "tests": TESTS,
    }
    data = (json.dumps(doc, indent=2, ensure_ascii=True) + "\n").encode("ascii")
    with open(OUT_PATH, "wb") as f:
        f.write(data)

    for p in CLASS_PREFIXES:
        counts = {}
        for t in prefixes[p]:
            r = t["results"][0] if t["results"] else "configurationError"
            counts[r] = counts.get(r, 0) + 1
        detail = ", ".join(f"{k} {v}" for k, v in sorted(counts.items()))
        print(f"{p:10s} {len(prefixes[p]):4d} cases  (first result: {detail})")
    print(f"total      {len(TESTS):4d} cases; {STATS['signatureRechecked']} VALID signatures re-verified, "
          f"{STATS['logicalChecked']} VALID field sets compared with the built values; "
          f"{STATS['formatLenientSigOk']} format cases carry a signature a lenient parser would accept")
    print(f"wrote {os.path.relpath(OUT_PATH)} ({len(data)} bytes, sha256 {hashlib.sha256(data).hexdigest()})")
    if os.environ.get("TVEKIT_VECTORS_DEBUG"):
        print("format cases without a lenient-good signature:", STATS["formatLenientSigNotOk"])
    real_token()


if __name__ == "__main__":
    main()

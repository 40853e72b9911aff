#!/usr/bin/env python3
"""Generates TestVectors/saml/saml_test.json, the SAML response verification test vectors.

Run from the repository root (see README.md beside this script):

    python3 -m venv /tmp/tvekit-saml-vectors
    /tmp/tvekit-saml-vectors/bin/pip install -r TestVectors/saml/requirements.txt
    /tmp/tvekit-saml-vectors/bin/python TestVectors/saml/generate.py

Keys: TestVectors/saml/keys.json ("idp", "rotated", "attacker"). The script makes it once, when it is missing, and
reuses it on every later run; delete it only if you want every signature in the output to change. Every key there
is a throw-away test key: never use it for anything else.

Signers: signxml (XMLSigner, enveloped, exclusive C14N; PrefixListSigner works around signxml 5.2.0 leaving
ec:InclusiveNamespaces out of an enveloped signature's transform), the xmlsec1 command-line tool (a second independent
signer; required unless --without-xmlsec1 is given, which leaves its cases out), and this script's own "manual"
signer (lxml exclusive C14N + cryptography, by text replacement so the bytes stay as written) for the shapes signxml
refuses or cannot keep (weak algorithms, HMAC, XPath/XSLT transforms, two References, empty or XPointer URIs,
character references and CDATA, ...). RSA PKCS#1 v1.5 signatures are deterministic and the one RSA-PSS signature
takes its salt from SHA-256 of the signed bytes, so with the same keys.json, script and tool versions every run
writes a byte-identical file.

Self-checks before anything is written:
- every case goes through the reference verifier below (an executable form of README.md's rules) under every
  allowed variation (input form sniffed or taken from the label; "covered" meaning a Signature is present, or a
  Signature whose Reference points at its parent). An accept case must be accepted with exactly the recorded
  values; for a reject case the union of the rules broken in the first failing phase must equal rejectRules
  (apart from the few listed extras, each with a reason), and the comment gets the reasons;
- every signature of every accept case is verified by signxml (XMLVerifier, the trusted certificate pinned,
  expect_references=1, the location of that one Signature asserted) and by `xmlsec1 --verify`
  (pinned certificate, X509 KeyInfo disabled); the NameID, attributes, issuer, session index and NotOnOrAfter
  recorded are read from signxml's signed_xml (the verified bytes) and must match;
- the genuinely signed reject cases (semantics, comment injection, wrapping, weak algorithms, ...) are shown to
  carry a signature that a plain XML-DSig verification accepts (signxml or xmlsec1, as noted per case), so a
  verifier that skipped the SAML rule would accept them;
- ids are 1..N and unique; every rule code except signature.canonicalization occurs.
"""

import argparse
import atexit
import base64
import datetime
import hashlib
import hmac
import importlib.metadata
import json
import os
import platform
import re
import shutil
import subprocess
import tempfile

import cryptography
import lxml
import signxml
from cryptography import x509
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import padding, rsa
from cryptography.x509.oid import NameOID
from lxml import etree
from signxml import SignatureConfiguration, SignatureReference, XMLSigner, XMLVerifier, methods

HERE = os.path.dirname(os.path.abspath(__file__))
OUT_PATH = os.path.join(HERE, "saml_test.json")
KEYS_PATH = os.path.join(HERE, "keys.json")

# ---------------------------------------------------------------------------------------------
# Constants: namespaces, algorithms, rule codes, the fixed configuration
# ---------------------------------------------------------------------------------------------

NS_SAMLP = "urn:oasis:names:tc:SAML:2.0:protocol"
NS_SAML = "urn:oasis:names:tc:SAML:2.0:assertion"
NS_DS = "http://www.w3.org/2000/09/xmldsig#"
NS_EC = "http://www.w3.org/2001/10/xml-exc-c14n#"
NS_XS = "http://www.w3.org/2001/XMLSchema"
NS_XSI = "http://www.w3.org/2001/XMLSchema-instance"
NS_XENC = "http://www.w3.org/2001/04/xmlenc#"

SAMLP = "{%s}" % NS_SAMLP
SAML = "{%s}" % NS_SAML
DS = "{%s}" % NS_DS
EC = "{%s}" % NS_EC

EXC_C14N = "http://www.w3.org/2001/10/xml-exc-c14n#"
EXC_C14N_WC = "http://www.w3.org/2001/10/xml-exc-c14n#WithComments"
C14N_10 = "http://www.w3.org/TR/2001/REC-xml-c14n-20010315"
C14N_10_WC = "http://www.w3.org/TR/2001/REC-xml-c14n-20010315#WithComments"
C14N_11 = "http://www.w3.org/2006/12/xml-c14n11"
C14N_ALGS = {EXC_C14N, EXC_C14N_WC, C14N_10, C14N_10_WC, C14N_11, C14N_11 + "#WithComments"}
ENVELOPED = "http://www.w3.org/2000/09/xmldsig#enveloped-signature"
XPATH_FILTER = "http://www.w3.org/TR/1999/REC-xpath-19991116"
XSLT = "http://www.w3.org/TR/1999/REC-xslt-19991116"

# name -> (URI, kind, hash)
SIG_ALGS = {
    "rsa-sha256": ("http://www.w3.org/2001/04/xmldsig-more#rsa-sha256", "rsa", hashes.SHA256),
    "rsa-sha384": ("http://www.w3.org/2001/04/xmldsig-more#rsa-sha384", "rsa", hashes.SHA384),
    "rsa-sha512": ("http://www.w3.org/2001/04/xmldsig-more#rsa-sha512", "rsa", hashes.SHA512),
    "rsa-sha224": ("http://www.w3.org/2001/04/xmldsig-more#rsa-sha224", "rsa", hashes.SHA224),
    "rsa-sha1": ("http://www.w3.org/2000/09/xmldsig#rsa-sha1", "rsa", hashes.SHA1),
    "rsa-md5": ("http://www.w3.org/2001/04/xmldsig-more#rsa-md5", "rsa", hashes.MD5),
    "rsa-pss-sha256": ("http://www.w3.org/2007/05/xmldsig-more#sha256-rsa-MGF1", "pss", hashes.SHA256),
    "hmac-sha256": ("http://www.w3.org/2001/04/xmldsig-more#hmac-sha256", "hmac", hashes.SHA256),
    "hmac-sha1": ("http://www.w3.org/2000/09/xmldsig#hmac-sha1", "hmac", hashes.SHA1),
}
SIG_BY_URI = {v[0]: (k,) + v[1:] for k, v in SIG_ALGS.items()}
DIGESTS = {
    "sha256": ("http://www.w3.org/2001/04/xmlenc#sha256", "sha256"),
    "sha384": ("http://www.w3.org/2001/04/xmldsig-more#sha384", "sha384"),
    "sha512": ("http://www.w3.org/2001/04/xmlenc#sha512", "sha512"),
    "sha224": ("http://www.w3.org/2001/04/xmldsig-more#sha224", "sha224"),
    "sha1": ("http://www.w3.org/2000/09/xmldsig#sha1", "sha1"),
    "md5": ("http://www.w3.org/2001/04/xmldsig-more#md5", "md5"),
}
DIGEST_BY_URI = {v[0]: v[1] for v in DIGESTS.values()}
ALLOWED_SIG = {SIG_ALGS[n][0] for n in ("rsa-sha256", "rsa-sha384", "rsa-sha512")}
ALLOWED_DIGEST = {DIGESTS[n][0] for n in ("sha256", "sha384", "sha512")}

RULES = [
    "input.size", "input.encoding", "input.malformedXML", "input.doctype",
    "structure.root", "structure.commentOrPI", "structure.duplicateID", "structure.assertionCount",
    "structure.assertionPosition", "structure.signaturePosition",
    "signature.missing", "signature.profile", "signature.algorithm", "signature.canonicalization", "signature.value",
    "signature.digest",
    "response.status", "response.destination", "response.inResponseTo", "response.issuer",
    "assertion.issuer", "assertion.nameID", "assertion.subjectConfirmation", "assertion.notBefore",
    "assertion.notOnOrAfter", "assertion.audience", "assertion.authnStatement",
]
PHASE = {r: r.split(".")[0] for r in RULES}
PHASE.update({r: "semantics" for r in RULES if r.startswith(("response.", "assertion."))})

MAX_XML = 1 << 20           # bytes of XML (after Base64 decoding, for Base64 input)

IDP = "https://idp.mvpd.example/saml"
SP = "https://sp.tvekit.example/saml"
ACS = "https://sp.tvekit.example/saml/acs"
REQ = "_req-0001"
NOW = "2026-01-01T00:05:00Z"
SKEW = 180
CONFIG = {"idpEntityID": IDP, "spEntityID": SP, "acsURL": ACS, "requestID": REQ, "now": NOW, "skewSeconds": SKEW,
          "trustedCertificates": ["idp"]}

SUCCESS = "urn:oasis:names:tc:SAML:2.0:status:Success"
BEARER = "urn:oasis:names:tc:SAML:2.0:cm:bearer"
PERSISTENT = "urn:oasis:names:tc:SAML:2.0:nameid-format:persistent"
PPT = "urn:oasis:names:tc:SAML:2.0:ac:classes:PasswordProtectedTransport"
BASIC = "urn:oasis:names:tc:SAML:2.0:attrname-format:basic"

# ---------------------------------------------------------------------------------------------
# Keys (keys.json: made once, then reused)
# ---------------------------------------------------------------------------------------------

KEY_NOTE = ("Throw-away test keys for the TVEKit SAML test vectors, made by generate.py. They are public: never use "
            "them for anything else.")


def _self_signed(key, subject, serial, not_before, not_after):
    return (x509.CertificateBuilder().subject_name(subject).issuer_name(subject).public_key(key.public_key())
            .serial_number(serial).not_valid_before(not_before).not_valid_after(not_after)
            .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
            .sign(key, hashes.SHA256()))


def make_keys():
    """IdP key + certificate, a rotated IdP key + certificate, and an attacker key with a look-alike certificate
    (same subject, issuer, serial number and validity as the IdP's; only the key differs)."""
    subject = x509.Name([x509.NameAttribute(NameOID.COUNTRY_NAME, "US"),
                         x509.NameAttribute(NameOID.ORGANIZATION_NAME, "Example MVPD (TVEKit test)"),
                         x509.NameAttribute(NameOID.COMMON_NAME, "idp.mvpd.example")])
    start, end = datetime.datetime(2025, 1, 1), datetime.datetime(2036, 1, 1)
    keys = {}
    for name, serial, nb in [("idp", 0x1D9A0001, start), ("rotated", 0x1D9A0002, datetime.datetime(2025, 6, 1)),
                             ("attacker", 0x1D9A0001, start)]:
        k = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        cert = _self_signed(k, subject, serial, nb, end)
        keys[name] = {
            "certificatePem": cert.public_bytes(serialization.Encoding.PEM).decode("ascii"),
            "privateKeyPem": k.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                             serialization.NoEncryption()).decode("ascii"),
        }
    with open(KEYS_PATH, "w", encoding="ascii") as f:
        json.dump({"comment": KEY_NOTE, "keys": keys}, f, indent=2)
        f.write("\n")
    print("made new keys: " + os.path.relpath(KEYS_PATH))


if not os.path.exists(KEYS_PATH):
    make_keys()
with open(KEYS_PATH, encoding="ascii") as _f:
    PEMS = json.load(_f)["keys"]
PRIV = {n: serialization.load_pem_private_key(p["privateKeyPem"].encode("ascii"), password=None) for n, p in PEMS.items()}
CERT = {n: x509.load_pem_x509_certificate(p["certificatePem"].encode("ascii")) for n, p in PEMS.items()}


def check_keys():
    spki = serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo
    assert set(PEMS) == {"idp", "rotated", "attacker"}
    for n in PEMS:
        assert PRIV[n].key_size == 2048
        assert CERT[n].public_key().public_bytes(*spki) == PRIV[n].public_key().public_bytes(*spki), n
    assert CERT["attacker"].subject == CERT["idp"].subject and CERT["attacker"].serial_number == CERT["idp"].serial_number
    assert PRIV["attacker"].public_key().public_numbers() != PRIV["idp"].public_key().public_numbers()


check_keys()

# ---------------------------------------------------------------------------------------------
# Times
# ---------------------------------------------------------------------------------------------


def parse_time(s):
    m = re.fullmatch(r"(\d{4})-(\d\d)-(\d\d)T(\d\d):(\d\d):(\d\d)(\.\d+)?Z", s)
    if not m:
        raise ValueError("not an xs:dateTime in UTC: %r" % s)
    y, mo, d, h, mi, se = (int(g) for g in m.groups()[:6])
    t = datetime.datetime(y, mo, d, h, mi, se, tzinfo=datetime.timezone.utc)
    frac = m.group(7)
    return t.timestamp() + (float(frac) if frac else 0.0)


def T(offset, base=NOW, frac=""):
    """The xs:dateTime `offset` seconds after `base` (UTC, "Z")."""
    t = datetime.datetime.fromtimestamp(parse_time(base) + offset, tz=datetime.timezone.utc)
    return t.strftime("%Y-%m-%dT%H:%M:%S") + frac + "Z"


# ---------------------------------------------------------------------------------------------
# A small XML writer (full control over layout, prefixes and escaping)
# ---------------------------------------------------------------------------------------------


class Raw:
    """XML text inserted as it is (a comment, an entity reference, a signature template, ...)."""

    def __init__(self, s):
        self.s = s


def esc_text(s):
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def esc_attr(s):
    return esc_text(s).replace('"', "&quot;")


def E(tag, attrs=(), *kids):
    return (tag, [(k, v) for k, v in (attrs.items() if isinstance(attrs, dict) else attrs)], list(kids))


def ser(node, pretty, depth=0):
    if isinstance(node, Raw):
        return node.s
    if isinstance(node, str):
        return esc_text(node)
    tag, attrs, kids = node
    a = "".join(' %s="%s"' % (k, esc_attr(v)) for k, v in attrs if v is not None)
    kids = [k for k in kids if k is not None]
    if not kids:
        return "<%s%s/>" % (tag, a)
    if pretty and all(isinstance(k, (tuple, Raw)) for k in kids) and any(isinstance(k, tuple) for k in kids):
        pad = "\n" + "  " * (depth + 1)
        inner = "".join(pad + ser(k, pretty, depth + 1) for k in kids) + "\n" + "  " * depth
    else:
        inner = "".join(ser(k, pretty, depth + 1) for k in kids)
    return "<%s%s>%s</%s>" % (tag, a, inner, tag)


# ---------------------------------------------------------------------------------------------
# The SAML response
# ---------------------------------------------------------------------------------------------

DEFAULT_ATTRS = [("MaxTVRating", ["TV-14"]), ("MaxMovieRating", ["PG-13"]), ("zip", ["12345", "34567"]),
                 ("householdID", ["hh-3456789"]), ("userID", ["u-1234"])]
_serial = [0]


def fresh_ids():
    _serial[0] += 1
    h = hashlib.sha256(b"tvekit saml vectors/%d" % _serial[0]).hexdigest()
    return "_r" + h[:40], "_a" + h[24:64], "_s" + h[8:40]


def params(**kw):
    rid, aid, sid = fresh_ids()
    p = dict(
        pretty=True, decl=True, pfx_p="samlp", pfx_a="saml", a_default_ns=False, root_ns_extra=(), a_ns_extra=(),
        resp_id=rid, assertion_id=aid, issue_instant=T(-5), destination=ACS, in_response_to=REQ, resp_issuer=IDP,
        status=SUCCESS, status_message=None, extensions=None, resp_sig=None,
        a_issue_instant=T(-5), a_issuer=IDP, a_sig=None,
        name_id="8f3b2c1d-persistent-0001", name_id_format=PERSISTENT, name_id_present=True,
        scm_method=BEARER, recipient=ACS, scd_not_on_or_after=T(295), scd_in_response_to=REQ,
        not_before=T(-35), not_on_or_after=T(295), audiences=(SP,),
        authn=True, authn_instant=T(-30), session_index=sid,
        attributes=DEFAULT_ATTRS, attr_xsi_type=False,
        before_assertion=(), after_assertion=(), assertion_extra_kids=(),
    )
    for k in kw:
        assert k in p, k
    p.update(kw)
    return p


def _text_value(v):
    """An attribute / NameID value: a str (escaped when written) or (raw XML, the value it stands for)."""
    return (Raw(v[0]), v[1]) if isinstance(v, tuple) else (v, v)


def assertion_node(p):
    a = "" if p["a_default_ns"] else p["pfx_a"] + ":"
    attrs = []
    if p["a_default_ns"]:
        attrs.append(("xmlns", NS_SAML))
    attrs += list(p["a_ns_extra"])
    attrs += [("ID", p["assertion_id"]), ("IssueInstant", p["a_issue_instant"]), ("Version", "2.0")]
    subject = []
    if p["name_id_present"]:
        subject.append(E(a + "NameID", {"Format": p["name_id_format"]}, _text_value(p["name_id"])[0]))
    scd = E(a + "SubjectConfirmationData", [("InResponseTo", p["scd_in_response_to"]),
                                               ("NotOnOrAfter", p["scd_not_on_or_after"]), ("Recipient", p["recipient"])])
    subject.append(E(a + "SubjectConfirmation", {"Method": p["scm_method"]}, scd))
    cond_kids = []
    if p["audiences"] is not None:
        cond_kids.append(E(a + "AudienceRestriction", {}, *[E(a + "Audience", {}, x) for x in p["audiences"]]))
    conditions = E(a + "Conditions", [("NotBefore", p["not_before"]), ("NotOnOrAfter", p["not_on_or_after"])], *cond_kids)
    authn = None
    if p["authn"]:
        authn = E(a + "AuthnStatement", [("AuthnInstant", p["authn_instant"]), ("SessionIndex", p["session_index"])],
                  E(a + "AuthnContext", {}, E(a + "AuthnContextClassRef", {}, PPT)))
    attr_els = []
    for name, values in p["attributes"]:
        vals = []
        for v in values:
            va = [("xsi:type", "xs:string")] if p["attr_xsi_type"] else []
            vals.append(E(a + "AttributeValue", va, _text_value(v)[0]))
        attr_els.append(E(a + "Attribute", {"Name": name, "NameFormat": BASIC}, *vals))
    stmt = E(a + "AttributeStatement", {}, *attr_els) if p["attributes"] is not None else None
    kids = [E(a + "Issuer", {}, p["a_issuer"]) if p["a_issuer"] is not None else None,
            Raw(p["a_sig"]) if p["a_sig"] else None,
            E(a + "Subject", {}, *subject), conditions] + list(p["assertion_extra_kids"]) + [authn, stmt]
    return E(a + "Assertion", attrs, *kids)


def response_node(p):
    pp, pa = p["pfx_p"], p["pfx_a"]
    attrs = [("xmlns:" + pp, NS_SAMLP), ("xmlns:" + pa, NS_SAML)] + list(p["root_ns_extra"])
    attrs += [("ID", p["resp_id"]), ("Version", "2.0"), ("IssueInstant", p["issue_instant"]),
              ("Destination", p["destination"]), ("InResponseTo", p["in_response_to"])]
    status_kids = [E(pp + ":StatusCode", {"Value": p["status"]})]
    if p["status_message"] is not None:
        status_kids.append(E(pp + ":StatusMessage", {}, p["status_message"]))
    kids = [E(pa + ":Issuer", {}, p["resp_issuer"]) if p["resp_issuer"] is not None else None,
            Raw(p["resp_sig"]) if p["resp_sig"] else None,
            E(pp + ":Extensions", {}, *p["extensions"]) if p["extensions"] else None,
            E(pp + ":Status", {}, *status_kids)]
    kids += list(p["before_assertion"]) + [assertion_node(p)] + list(p["after_assertion"])
    return E(pp + ":Response", attrs, *kids)


DECL = '<?xml version="1.0" encoding="UTF-8"?>\n'


def build(p):
    return ser(response_node(p), p["pretty"])


def expected_values(p):
    """What an accepting verifier must report for a response built from p."""
    return {
        "nameID": _text_value(p["name_id"])[1],
        "attributes": {name: [_text_value(v)[1] for v in values] for name, values in p["attributes"]},
        "issuer": p["a_issuer"],
        "sessionIndex": p["session_index"],
        "notOnOrAfter": p["not_on_or_after"],
    }


# ---------------------------------------------------------------------------------------------
# lxml helpers
# ---------------------------------------------------------------------------------------------

PARSER = etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False, remove_blank_text=False,
                         huge_tree=False, strip_cdata=False)


def parse(text):
    data = text.encode("utf-8") if isinstance(text, str) else text
    return etree.fromstring(data, PARSER)


def tostr(root):
    return etree.tostring(root, encoding="unicode")


def with_decl(body, decl=True):
    return (DECL if decl else "") + body


def remove_keep_tail(el):
    """Removes an element and keeps its tail text (what the enveloped-signature transform does to the text)."""
    parent, prev = el.getparent(), el.getprevious()
    if el.tail:
        if prev is not None:
            prev.tail = (prev.tail or "") + el.tail
        else:
            parent.text = (parent.text or "") + el.tail
    parent.remove(el)


def node_path(el):
    """Child indexes from the root element down to el (comments and PIs count), to find el again in a copy."""
    path = []
    while el.getparent() is not None:
        path.append(el.getparent().index(el))
        el = el.getparent()
    return path[::-1]


def follow(root, path):
    for i in path:
        root = root[i]
    return root


def assertion_of(root):
    return root.find(SAML + "Assertion")


def c14n(el, alg=EXC_C14N, prefixes=None):
    exclusive = alg in (EXC_C14N, EXC_C14N_WC)
    return etree.tostring(el, method="c14n", exclusive=exclusive, with_comments=alg.endswith("#WithComments"),
                          inclusive_ns_prefixes=prefixes if exclusive else None)


def b64(data):
    return base64.b64encode(data).decode("ascii")


def wrap(s, width, sep):
    return sep.join(s[i:i + width] for i in range(0, len(s), width))


# ---------------------------------------------------------------------------------------------
# Signer 1: signxml
# ---------------------------------------------------------------------------------------------


class PrefixListSigner(XMLSigner):
    """signxml 5.2.0, for an enveloped signature, digests the Reference with its inclusive_ns_prefixes but does not
    write the ec:InclusiveNamespaces element into the exc-C14N transform (it does so only for enveloping and
    detached signatures), so the result does not verify anywhere. This adds the element; check_signxml_prefix_bug()
    asserts the bug is still there, so the workaround stays needed and visible."""

    def _build_transforms_for_reference(self, *, transforms_node, reference, exclude_c14n_transform_element=True):
        super()._build_transforms_for_reference(transforms_node=transforms_node, reference=reference,
                                                exclude_c14n_transform_element=exclude_c14n_transform_element)
        if (self.construction_method == methods.enveloped and reference.inclusive_ns_prefixes
                and not exclude_c14n_transform_element):
            c14n_transform = transforms_node[-1]
            assert c14n_transform.get("Algorithm") == EXC_C14N and len(c14n_transform) == 0
            etree.SubElement(c14n_transform, EC + "InclusiveNamespaces", nsmap={"ec": NS_EC},
                             PrefixList=" ".join(reference.inclusive_ns_prefixes))


def check_signxml_prefix_bug():
    """True while plain signxml leaves InclusiveNamespaces out of an enveloped signature's transform."""
    root = parse('<r xmlns:xs="%s" ID="_x"><v/></r>' % NS_XS)
    s = XMLSigner(method=methods.enveloped, c14n_algorithm=EXC_C14N).sign(
        root, key=PEMS["idp"]["privateKeyPem"], reference_uri=[SignatureReference(URI="#_x", inclusive_ns_prefixes=["xs"])])
    return s.find(".//" + EC + "InclusiveNamespaces") is None


def signxml_sign(text, targets=("assertion",), key="idp", cert="idp", alg="rsa-sha256", digest="sha256",
                 prefixes=None, prefixes_on_c14n_method=False, keyinfo=True, ds_default_ns=False):
    """Signs the Assertion and/or the Response (in the order given) with signxml: enveloped signature directly
    after the element's Issuer, exclusive C14N, one Reference "#ID". cert=None puts the key's RSAKeyValue in KeyInfo
    (what signxml does without a certificate); keyinfo=False leaves KeyInfo out."""
    decl = text.startswith("<?xml")
    root = parse(text)
    for target in targets:
        el = root if target == "response" else assertion_of(root)
        issuer = el.find(SAML + "Issuer")
        if ds_default_ns:
            ph = etree.fromstring('<Signature xmlns="%s" Id="placeholder"/>' % NS_DS)
        else:
            ph = etree.fromstring('<ds:Signature xmlns:ds="%s" Id="placeholder"/>' % NS_DS)
        ph.tail = issuer.tail
        issuer.addnext(ph)
        signer = (PrefixListSigner if prefixes else XMLSigner)(
            method=methods.enveloped, signature_algorithm=SIG_ALGS[alg][0], digest_algorithm=DIGESTS[digest][0],
            c14n_algorithm=EXC_C14N)
        if ds_default_ns:
            signer.namespaces = {None: NS_DS}
        if not keyinfo:
            signer.signature_annotators = []
        ref = SignatureReference(URI="#" + el.get("ID"), inclusive_ns_prefixes=prefixes)
        root = signer.sign(root, key=PEMS[key]["privateKeyPem"], cert=PEMS[cert]["certificatePem"] if cert else None,
                           reference_uri=[ref], inclusive_ns_prefixes=prefixes if prefixes_on_c14n_method else None)
    return with_decl(tostr(root), decl)


# ---------------------------------------------------------------------------------------------
# Signer 2: the xmlsec1 command-line tool
# ---------------------------------------------------------------------------------------------

XMLSEC1 = shutil.which("xmlsec1")
_tmpdir = tempfile.mkdtemp(prefix="tvekit-saml-vectors-")
atexit.register(shutil.rmtree, _tmpdir, True)
KEYFILES = {}
for _n, _p in PEMS.items():
    for _kind, _field in (("key", "privateKeyPem"), ("cert", "certificatePem")):
        _path = os.path.join(_tmpdir, "%s.%s.pem" % (_n, _kind))
        with open(_path, "w", encoding="ascii") as _f:
            _f.write(_p[_field])
        KEYFILES[_n, _kind] = _path
XMLSEC_IDS = ["--id-attr:ID", NS_SAML + ":Assertion", "--id-attr:ID", NS_SAMLP + ":Response"]
XP_RESPONSE_SIG = "/*/*[local-name()='Signature']"
XP_ASSERTION_SIG = "/*/*[local-name()='Assertion']/*[local-name()='Signature']"


def xmlsec1_version():
    if not XMLSEC1:
        return None
    return subprocess.run([XMLSEC1, "--version"], capture_output=True, text=True).stdout.strip()


def _tmpfile(name, data):
    path = os.path.join(_tmpdir, name)
    with open(path, "wb") as f:
        f.write(data)
    return path


def xmlsec1_sign(text, node_xpath, key="idp"):
    """Fills the (empty) DigestValue, SignatureValue and X509Data of the Signature template at node_xpath."""
    src = _tmpfile("tmpl.xml", text.encode("utf-8"))
    out = os.path.join(_tmpdir, "signed.xml")
    r = subprocess.run([XMLSEC1, "--sign", "--privkey-pem", KEYFILES[key, "key"] + "," + KEYFILES[key, "cert"]]
                       + XMLSEC_IDS + ["--node-xpath", node_xpath, "--output", out, src], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    with open(out, "rb") as f:
        return f.read().decode("utf-8")


def xmlsec1_verify(xml_bytes, node_xpath, cert="idp", strict_keys=True, ids=XMLSEC_IDS):
    """True when `xmlsec1 --verify` accepts the Signature at node_xpath with the pinned certificate's key.
    strict_keys disables every KeyInfo key source except the pinned certificate (what pysaml2 does)."""
    src = _tmpfile("verify.xml", xml_bytes)
    args = [XMLSEC1, "--verify", "--pubkey-cert-pem", KEYFILES[cert, "cert"]]
    if strict_keys:
        args += ["--enabled-key-data", "raw-x509-cert"]
    r = subprocess.run(args + ids + ["--node-xpath", node_xpath, src], capture_output=True, text=True)
    return r.returncode == 0 and re.search(r"^OK$", r.stdout + r.stderr, re.M) is not None


def sig_template(uri, transforms=(ENVELOPED, EXC_C14N), alg="rsa-sha256", digest="sha256", c14n_method=EXC_C14N,
                 c14n_prefixes=None, pretty_indent=None, keyinfo="empty-x509", refs_extra=(), tail_kids=(),
                 digest_value="@@DIGEST0@@", sig_value="@@SIGVALUE@@", sig_method_kids=""):
    """A ds:Signature (prefix ds) with placeholders. transforms: algorithm URIs, or (URI, inner XML) pairs.
    keyinfo: "empty-x509" (for xmlsec1 to fill), "none", or the raw KeyInfo XML."""
    nl = (lambda d: "\n" + " " * (pretty_indent + 2 * d)) if pretty_indent is not None else (lambda d: "")

    def transform(t):
        if isinstance(t, tuple):
            return '<ds:Transform Algorithm="%s">%s</ds:Transform>' % t
        return '<ds:Transform Algorithm="%s"/>' % t

    def reference(u, trs, dv, d):
        x = nl(2) + '<ds:Reference URI="%s">' % esc_attr(u)
        if trs is not None:
            x += nl(3) + "<ds:Transforms>" + "".join(nl(4) + transform(t) for t in trs) + nl(3) + "</ds:Transforms>"
        x += nl(3) + '<ds:DigestMethod Algorithm="%s"/>' % DIGESTS[d][0]
        x += nl(3) + "<ds:DigestValue>%s</ds:DigestValue>" % dv + nl(2) + "</ds:Reference>"
        return x

    cm = '<ds:CanonicalizationMethod Algorithm="%s"' % c14n_method
    cm += ('><ec:InclusiveNamespaces xmlns:ec="%s" PrefixList="%s"/></ds:CanonicalizationMethod>' % (NS_EC, " ".join(c14n_prefixes))
           if c14n_prefixes else "/>")
    sm = '<ds:SignatureMethod Algorithm="%s"%s' % (SIG_ALGS[alg][0], (">%s</ds:SignatureMethod>" % sig_method_kids) if sig_method_kids else "/>")
    x = '<ds:Signature xmlns:ds="%s">' % NS_DS + nl(1) + "<ds:SignedInfo>" + nl(2) + cm + nl(2) + sm
    x += reference(uri, transforms, digest_value, digest)
    for i, (u, trs, d) in enumerate(refs_extra, start=1):
        x += reference(u, trs, "@@DIGEST%d@@" % i, d)
    x += nl(1) + "</ds:SignedInfo>" + nl(1) + "<ds:SignatureValue>%s</ds:SignatureValue>" % sig_value
    if keyinfo == "empty-x509":
        x += nl(1) + "<ds:KeyInfo>" + nl(2) + "<ds:X509Data/>" + nl(1) + "</ds:KeyInfo>"
    elif keyinfo != "none":
        x += nl(1) + keyinfo
    for k in tail_kids:
        x += nl(1) + k
    return x + nl(0) + "</ds:Signature>"


def keyinfo_cert(name):
    body = "".join(PEMS[name]["certificatePem"].strip().splitlines()[1:-1])
    return "<ds:KeyInfo><ds:X509Data><ds:X509Certificate>%s</ds:X509Certificate></ds:X509Data></ds:KeyInfo>" % body


# ---------------------------------------------------------------------------------------------
# Signer 3: manual (lxml exclusive C14N + cryptography), for shapes signxml will not build
# ---------------------------------------------------------------------------------------------


def resolve_uri(root, uri):
    """The element a same-document Reference URI names: "" = the document element (whole document),
    "#id" or "#xpointer(id('id'))" = the element with that un-namespaced ID (exactly one), else None."""
    if uri == "":
        return root
    m = re.fullmatch(r"#xpointer\(id\('([^']*)'\)\)", uri)
    ident = m.group(1) if m else (uri[1:] if uri.startswith("#") else None)
    if ident is None:
        return None
    hits = [e for e in root.iter(etree.Element) if e.get("ID") == ident]
    return hits[0] if len(hits) == 1 else None


def transform_list(ref):
    trs = ref.find(DS + "Transforms")
    return [] if trs is None else [t for t in trs if isinstance(t.tag, str)]


def compute_reference_digest(root, sig, ref, allow=None):
    """Digest of a Reference as XML-DSig defines it, for the transforms this script knows: enveloped-signature,
    exclusive/inclusive C14N (with or without comments, InclusiveNamespaces), and the one XPath filter used here
    (not(ancestor-or-self::saml:NameID)). Without a C14N transform the node set is serialised with inclusive C14N
    1.0 (XML-DSig 4.4.3.2). Returns None when a transform is not in `allow` (a set of URIs) or is unknown, or the
    URI does not resolve."""
    uri = ref.get("URI")
    copy_root = parse(etree.tostring(root))
    target = resolve_uri(copy_root, uri) if uri is not None else None
    if target is None:
        return None
    csig = follow(copy_root, node_path(sig))
    out = None
    for t in transform_list(ref):
        a = t.get("Algorithm")
        if allow is not None and a not in allow:
            return None
        if out is not None:
            return None            # a transform after C14N: octets in, not supported here
        if a == ENVELOPED:
            if csig is not None and csig.getparent() is not None:
                remove_keep_tail(csig)
                csig = None
        elif a in C14N_ALGS:
            inc = t.find(EC + "InclusiveNamespaces")
            prefixes = inc.get("PrefixList").split() if inc is not None else None
            out = c14n(target, a, prefixes)
        elif a == XPATH_FILTER and (t.findtext(DS + "XPath") or "").strip() == "not(ancestor-or-self::saml:NameID)":
            for n in list(target.iter(SAML + "NameID")):
                remove_keep_tail(n)
        else:
            return None
    if out is None:
        out = c14n(target, C14N_10)
    dm = ref.find(DS + "DigestMethod")
    name = DIGEST_BY_URI.get(dm.get("Algorithm")) if dm is not None else None
    if name is None:
        return None
    return hashlib.new(name, out).digest()


def signed_info_c14n(sig):
    si = sig.find(DS + "SignedInfo")
    cm = si.find(DS + "CanonicalizationMethod")
    inc = cm.find(EC + "InclusiveNamespaces")
    return c14n(si, cm.get("Algorithm"), inc.get("PrefixList").split() if inc is not None else None)


def _mgf1(seed, length, hname):
    out, i = b"", 0
    while len(out) < length:
        out += hashlib.new(hname, seed + i.to_bytes(4, "big")).digest()
        i += 1
    return out[:length]


def pss_sign(key, data, hname):
    """RSASSA-PSS (RFC 8017 9.1.1, MGF1 with the same hash, salt as long as the hash) with a salt taken from SHA-256
    of the data, so the output is deterministic (cryptography draws a random salt)."""
    nums = PRIV[key].private_numbers()
    n, d = nums.public_numbers.n, nums.d
    em_bits = n.bit_length() - 1
    em_len = (em_bits + 7) // 8
    m_hash = hashlib.new(hname, data).digest()
    h_len = len(m_hash)
    salt = hashlib.sha256(b"tvekit saml vectors/pss salt/" + data).digest()[:h_len]
    hh = hashlib.new(hname, b"\x00" * 8 + m_hash + salt).digest()
    db = b"\x00" * (em_len - 2 * h_len - 2) + b"\x01" + salt
    masked = bytearray(a ^ b for a, b in zip(db, _mgf1(hh, em_len - h_len - 1, hname)))
    masked[0] &= 0xFF >> (8 * em_len - em_bits)
    em = bytes(masked) + hh + b"\xbc"
    return pow(int.from_bytes(em, "big"), d, n).to_bytes((n.bit_length() + 7) // 8, "big")


def raw_sign(alg_uri, data, key=None, hmac_key=None, hmac_bits=None):
    name, kind, h = SIG_BY_URI[alg_uri]
    if kind == "rsa":
        return PRIV[key].sign(data, padding.PKCS1v15(), h())
    if kind == "pss":
        sig = pss_sign(key, data, h.name)
        PRIV[key].public_key().verify(sig, data, padding.PSS(mgf=padding.MGF1(h()), salt_length=h.digest_size), h())
        return sig
    mac = hmac.new(hmac_key, data, h.name).digest()
    return mac[:hmac_bits // 8] if hmac_bits else mac


def raw_verify(alg_uri, data, sigval, key_name):
    """Public-key check of a SignatureValue (no allow-list): True/False; None for an algorithm it cannot check."""
    if alg_uri not in SIG_BY_URI:
        return None
    name, kind, h = SIG_BY_URI[alg_uri]
    pub = CERT[key_name].public_key()
    try:
        if kind == "rsa":
            pub.verify(sigval, data, padding.PKCS1v15(), h())
        elif kind == "pss":
            pub.verify(sigval, data, padding.PSS(mgf=padding.MGF1(h()), salt_length=h.digest_size), h())
        else:
            return None
        return True
    except InvalidSignature:
        return False


def manual_sign(text, key="idp", hmac_key=None, hmac_bits=None, digest_overrides=None, sig_wrap=None):
    """Fills the @@DIGESTn@@ placeholders (each Reference's digest per its own transforms, unless overridden) and
    then @@SIGVALUE@@ (over the C14N of the SignedInfo, per its CanonicalizationMethod and SignatureMethod).
    Works by text replacement, so nothing else in the document changes."""
    root = parse(text)
    sig = [s for s in root.iter(DS + "Signature") if s.findtext(DS + "SignatureValue") == "@@SIGVALUE@@"]
    assert len(sig) == 1
    sig = sig[0]
    for i, ref in enumerate(sig.find(DS + "SignedInfo").findall(DS + "Reference")):
        ph = "@@DIGEST%d@@" % i
        assert ref.findtext(DS + "DigestValue") == ph and text.count(ph) == 1
        d = (digest_overrides or {}).get(i)
        if d is None:
            d = compute_reference_digest(root, sig, ref)
            assert d is not None, "cannot compute digest %d" % i
        text = text.replace(ph, b64(d))
    root = parse(text)
    sig = [s for s in root.iter(DS + "Signature") if s.findtext(DS + "SignatureValue") == "@@SIGVALUE@@"][0]
    alg = sig.find(DS + "SignedInfo/" + DS + "SignatureMethod").get("Algorithm")
    value = b64(raw_sign(alg, signed_info_c14n(sig), key=key, hmac_key=hmac_key, hmac_bits=hmac_bits))
    if sig_wrap:
        value = sig_wrap(value)
    assert text.count("@@SIGVALUE@@") == 1
    return text.replace("@@SIGVALUE@@", value)


# ---------------------------------------------------------------------------------------------
# Hook for an external signer (TVEKit's own), NOT IMPLEMENTED
# ---------------------------------------------------------------------------------------------
#
# A later step adds vectors signed by TVEKit's own SAML signer, to check it against the independent verifiers here.
# Intended contract (not implemented yet): `--external-signer CMD` names a command that reads an unsigned response
# on stdin and writes it signed to stdout; its arguments are `--target assertion|response --key PEM_FILE
# --cert PEM_FILE --signature-algorithm URI --digest-algorithm URI`. Cases built with it would use
# "signer": "external" (a new value of the schema), and must pass the same self-checks: signxml and xmlsec1 verify
# every signature, the reference verifier accepts with the recorded values.


def external_sign(cmd, text, target, key="idp", alg="rsa-sha256", digest="sha256"):
    raise NotImplementedError("the external-signer hook is a placeholder; see the comment above external_sign()")


def external_signer_cases(cmd):
    raise NotImplementedError("vectors from an external signer are not implemented yet (--external-signer %s)" % cmd)


# ---------------------------------------------------------------------------------------------
# Reference verifier: an executable form of the rules in README.md
# ---------------------------------------------------------------------------------------------


class Variant:
    """The freedoms a correct verifier has. input_mode: "sniff" (XML when the first non-space character after an
    optional BOM is "<", else Base64) or "label" (trust the case's inputEncoding). coverage: "presence" (a
    ds:Signature child of the Response or the Assertion covers the Assertion) or "reference" (only one whose
    Reference URI is "#" + its parent's ID)."""

    def __init__(self, input_mode, coverage):
        self.input_mode, self.coverage = input_mode, coverage


VARIANTS = [Variant(i, c) for i in ("sniff", "label") for c in ("presence", "reference")]
B64_RE = re.compile(rb"[A-Za-z0-9+/]*={0,2}")
SHORT = {SAMLP: "samlp:", SAML: "saml:", DS: "ds:", EC: "ec:"}


def short(tag):
    if not isinstance(tag, str):
        return "a comment or PI"
    for ns, p in SHORT.items():
        if tag.startswith(ns):
            return p + tag[len(ns):]
    return tag


ALG_NAMES = {ENVELOPED: "enveloped-signature", EXC_C14N: "exc-c14n", EXC_C14N_WC: "exc-c14n#WithComments",
             C14N_10: "c14n-1.0", C14N_10_WC: "c14n-1.0#WithComments", C14N_11: "c14n-1.1", XPATH_FILTER: "XPath",
             XSLT: "XSLT"}


def alg_name(uri):
    return ALG_NAMES.get(uri, uri or "(none)")


def strict_b64decode(data):
    """Standard Base64 (RFC 4648 section 4) with space, TAB, CR and LF skipped; padded; canonical. None if not."""
    s = re.sub(rb"[ \t\r\n]", b"", data)
    if len(s) % 4 or not B64_RE.fullmatch(s):
        return None
    out = base64.b64decode(s)
    return out if base64.b64encode(out) == s else None


def has_doctype(xml):
    """A DOCTYPE in the prolog (after an optional BOM, XML declaration, comments, PIs and whitespace)."""
    s = xml[3:] if xml.startswith(b"\xef\xbb\xbf") else xml
    while True:
        s = s.lstrip(b" \t\r\n")
        if s.startswith(b"<?"):
            end = s.find(b"?>")
        elif s.startswith(b"<!--"):
            end = s.find(b"-->")
        else:
            return s.startswith(b"<!DOCTYPE")
        if end < 0:
            return False
        s = s[end + 2:]


def phase_input(data, label, v):
    """(xml bytes, parsed root), or {rule: reason} for the broken input rules."""
    body = data[3:] if data.startswith(b"\xef\xbb\xbf") else data
    is_b64 = (label == "base64") if v.input_mode == "label" else not body.lstrip(b" \t\r\n").startswith(b"<")
    broken = {}
    if is_b64:
        xml = strict_b64decode(data)
        if xml is None:
            if len(data) > MAX_XML * 4 // 3 + 4096:
                return {"input.size": "%d bytes of Base64" % len(data)}
            return {"input.encoding": "not strict Base64 (RFC 4648 alphabet, padding, length)"}
    else:
        xml = data
    if len(xml) > MAX_XML:
        return {"input.size": "%d bytes of XML, more than 1048576" % len(xml)}
    try:
        xml.decode("utf-8")
    except UnicodeDecodeError:
        broken["input.encoding"] = "the XML is not UTF-8"
    if has_doctype(xml):
        broken["input.doctype"] = "a DOCTYPE declaration"
    try:
        root = parse(xml)
        if root.getroottree().docinfo.doctype:
            broken["input.doctype"] = "a DOCTYPE declaration"
    except etree.XMLSyntaxError:
        broken["input.malformedXML"] = "libxml2 does not parse it"
        root = None
    return broken or (xml, root)


def phase_structure(root):
    broken = {}
    is_resp = root.tag == SAMLP + "Response"
    if not is_resp:
        broken["structure.root"] = "the document element is %s in %s" % (etree.QName(root).localname, etree.QName(root).namespace)
    odd = [n for n in root.iter(etree.Comment, etree.PI)]
    if odd:
        broken["structure.commentOrPI"] = "a %s inside the root element" % ("comment" if isinstance(odd[0], etree._Comment) else "processing instruction")
    ids = [e.get("ID") for e in root.iter(etree.Element) if e.get("ID") is not None]
    dups = sorted({i for i in ids if ids.count(i) > 1})
    if dups:
        broken["structure.duplicateID"] = "ID %s occurs %d times" % (dups[0], ids.count(dups[0]))
    assertions = list(root.iter(SAML + "Assertion"))
    encrypted = list(root.iter(SAML + "EncryptedAssertion"))
    if len(assertions) != 1 or encrypted:
        broken["structure.assertionCount"] = "%d saml:Assertion and %d saml:EncryptedAssertion in the document" % (len(assertions), len(encrypted))
    for a in assertions:
        if not (is_resp and a.getparent() is root):
            broken["structure.assertionPosition"] = "a saml:Assertion %s" % (
                "is the document element" if a.getparent() is None else "inside " + short(a.getparent().tag))
    parents = []
    for s in root.iter(DS + "Signature"):
        par = s.getparent()
        ok = par is root or (par is not None and par.tag == SAML + "Assertion" and par.getparent() is root)
        if not ok:
            broken["structure.signaturePosition"] = "a ds:Signature inside %s" % short(par.tag)
        parents.append(par)
    if len(parents) != len(set(parents)):
        broken["structure.signaturePosition"] = "two ds:Signature children on one element"
    return broken


def _elements(el):
    return [k for k in el if isinstance(k.tag, str)]


def profile_problem(sig):
    """None when the Signature fits the SAML XML-DSig profile as README.md states it, else what breaks it."""
    parent = sig.getparent()
    kids = [k.tag for k in _elements(sig)]
    if kids not in ([DS + "SignedInfo", DS + "SignatureValue"], [DS + "SignedInfo", DS + "SignatureValue", DS + "KeyInfo"]):
        return "ds:Signature children are %s, not SignedInfo, SignatureValue[, KeyInfo]" % ", ".join(short(k) for k in kids)
    si = sig.find(DS + "SignedInfo")
    si_kids = _elements(si)
    if [k.tag for k in si_kids[:2]] != [DS + "CanonicalizationMethod", DS + "SignatureMethod"]:
        return "SignedInfo does not start with CanonicalizationMethod, SignatureMethod"
    refs = si_kids[2:]
    if len(refs) != 1 or refs[0].tag != DS + "Reference":
        return "%d References, not exactly 1" % len(refs)
    if si_kids[0].get("Algorithm") != EXC_C14N:
        return "CanonicalizationMethod %s is not exclusive C14N" % si_kids[0].get("Algorithm")
    if any(k.tag != EC + "InclusiveNamespaces" for k in _elements(si_kids[0])):
        return "unexpected content in CanonicalizationMethod"
    ref = refs[0]
    if parent.get("ID") is None or ref.get("URI") != "#" + parent.get("ID"):
        return 'Reference URI "%s" is not "#" + the ID of the signed %s' % (ref.get("URI"), short(parent.tag))
    if [k.tag for k in _elements(ref)] != [DS + "Transforms", DS + "DigestMethod", DS + "DigestValue"]:
        return "Reference children are not Transforms, DigestMethod, DigestValue"
    trs = transform_list(ref)
    algs = [t.get("Algorithm") for t in trs]
    if algs not in ([ENVELOPED], [ENVELOPED, EXC_C14N]):
        return "transforms [%s], not [enveloped-signature] or [enveloped-signature, exc-c14n]" % ", ".join(alg_name(a) for a in algs)
    if _elements(trs[0]) or any(k.tag != EC + "InclusiveNamespaces" for t in trs[1:] for k in _elements(t)):
        return "unexpected content in a Transform"
    return None


def algorithm_problem(sig):
    si = sig.find(DS + "SignedInfo")
    if si is None:
        return None
    sm = si.find(DS + "SignatureMethod")
    if sm is None or sm.get("Algorithm") not in ALLOWED_SIG:
        return "SignatureMethod %s is not rsa-sha256/384/512" % (sm.get("Algorithm") if sm is not None else "missing")
    cm = si.find(DS + "CanonicalizationMethod")
    if cm is not None and cm.get("Algorithm") != EXC_C14N:
        return "CanonicalizationMethod %s is not exclusive C14N" % cm.get("Algorithm")
    for ref in si.findall(DS + "Reference"):
        dm = ref.find(DS + "DigestMethod")
        if dm is not None and dm.get("Algorithm") not in ALLOWED_DIGEST:
            return "DigestMethod %s is not sha256/384/512" % dm.get("Algorithm")
        bad = [t.get("Algorithm") for t in transform_list(ref) if t.get("Algorithm") in C14N_ALGS - {EXC_C14N}]
        if bad:
            return "C14N transform %s is not exclusive C14N" % bad[0]
    return None


def covers(sig, v):
    if v.coverage == "presence":
        return True
    pid = sig.getparent().get("ID")
    return pid is not None and any(r.get("URI") == "#" + pid for r in sig.iterfind(DS + "SignedInfo/" + DS + "Reference"))


def _b64_lenient(text):
    """xs:base64Binary: whitespace allowed anywhere; None when not Base64."""
    return strict_b64decode((text or "").encode("ascii", "replace"))


def phase_signature(root, cfg, v):
    """{rule: reason} for the broken signature rules, or {"Response": verified Response element or None,
    "Assertion": verified Assertion element}."""
    assertion = assertion_of(root)
    sigs = [s for s in (root.find(DS + "Signature"), assertion.find(DS + "Signature")) if s is not None]
    broken = {}
    if not any(covers(s, v) for s in sigs):
        broken["signature.missing"] = ("no ds:Signature on the Response or the Assertion" if not sigs else
                                       "no ds:Signature whose Reference points at its parent (the Response or the Assertion)")
    for sig in sigs:
        where = short(sig.getparent().tag)
        prob = profile_problem(sig)
        if prob:
            broken["signature.profile"] = "%s signature: %s" % (where, prob)
        prob = algorithm_problem(sig)
        if prob:
            broken["signature.algorithm"] = "%s signature: %s" % (where, prob)
        si = sig.find(DS + "SignedInfo")
        sm = si.find(DS + "SignatureMethod") if si is not None else None
        cm = si.find(DS + "CanonicalizationMethod") if si is not None else None
        # value: evaluable when the signature algorithm is allowed and SignedInfo uses exclusive C14N
        if sm is not None and sm.get("Algorithm") in ALLOWED_SIG and cm is not None and cm.get("Algorithm") == EXC_C14N:
            raw = _b64_lenient(sig.findtext(DS + "SignatureValue"))
            data = signed_info_c14n(sig)
            if raw is None or not any(raw_verify(sm.get("Algorithm"), data, raw, k) for k in cfg["trustedCertificates"]):
                broken["signature.value"] = "%s signature: the SignatureValue does not verify with the trusted key(s) %s" % (
                    where, ", ".join(cfg["trustedCertificates"]))
        # digest: evaluable when the URI resolves to one element, the transforms are the two allowed ones (any
        # order/count) and the digest algorithm is allowed
        for ref in si.findall(DS + "Reference") if si is not None else []:
            dm = ref.find(DS + "DigestMethod")
            if dm is None or dm.get("Algorithm") not in ALLOWED_DIGEST:
                continue
            if ref.get("URI") is None or not ref.get("URI").startswith("#") or ref.get("URI").startswith("#xpointer("):
                continue
            d = compute_reference_digest(root, sig, ref, allow={ENVELOPED, EXC_C14N})
            if d is None:
                continue
            if _b64_lenient(ref.findtext(DS + "DigestValue")) != d:
                broken["signature.digest"] = "%s signature: the digest of %s does not match its DigestValue" % (
                    where, short(resolve_uri(root, ref.get("URI")).tag))
    if broken:
        return broken
    # read data only from the verified bytes: the C14N of each signed element (its Signature removed), parsed again
    out = {"Response": None, "Assertion": None}
    for sig in sigs:
        ref = sig.find(DS + "SignedInfo/" + DS + "Reference")
        copy_root = parse(etree.tostring(root))
        target = resolve_uri(copy_root, ref.get("URI"))
        remove_keep_tail(follow(copy_root, node_path(sig)))
        trs = transform_list(ref)
        inc = trs[1].find(EC + "InclusiveNamespaces") if len(trs) == 2 else None
        prefixes = inc.get("PrefixList").split() if inc is not None else None
        el = parse(c14n(target, EXC_C14N if len(trs) == 2 else C14N_10, prefixes))
        out["Response" if sig.getparent() is root else "Assertion"] = el
    if out["Assertion"] is None:
        out["Assertion"] = out["Response"].find(SAML + "Assertion")
    return out


def text_of(el):
    return "".join(el.itertext()) if el is not None else None


def phase_semantics(root, verified, cfg):
    broken = {}
    resp = verified["Response"] if verified["Response"] is not None else root
    a = verified["Assertion"]
    now, skew = parse_time(cfg["now"]), cfg["skewSeconds"]
    sc = resp.find(SAMLP + "Status/" + SAMLP + "StatusCode")
    if sc is None or sc.get("Value") != SUCCESS:
        broken["response.status"] = "StatusCode %s" % (sc.get("Value") if sc is not None else "missing")
    if resp.get("Destination") != cfg["acsURL"]:
        broken["response.destination"] = "Destination %s, not the acsURL" % resp.get("Destination")
    if cfg["requestID"] is not None and resp.get("InResponseTo") != cfg["requestID"]:
        broken["response.inResponseTo"] = "InResponseTo %s, not the requestID %s" % (resp.get("InResponseTo"), cfg["requestID"])
    ri = resp.find(SAML + "Issuer")
    if ri is not None and text_of(ri) != cfg["idpEntityID"]:
        broken["response.issuer"] = "Response Issuer %s, not the idpEntityID" % text_of(ri)
    if text_of(a.find(SAML + "Issuer")) != cfg["idpEntityID"]:
        broken["assertion.issuer"] = "Assertion Issuer %s, not the idpEntityID" % text_of(a.find(SAML + "Issuer"))
    subject = a.find(SAML + "Subject")
    if subject is None or subject.find(SAML + "NameID") is None:
        broken["assertion.nameID"] = "no NameID in the Subject"
    why = "no SubjectConfirmation"
    ok_scd = False
    for scm in (subject.findall(SAML + "SubjectConfirmation") if subject is not None else []):
        scd = scm.find(SAML + "SubjectConfirmationData")
        if scm.get("Method") != BEARER or scd is None:
            why = "SubjectConfirmation Method %s, not bearer" % scm.get("Method")
        elif scd.get("Recipient") != cfg["acsURL"]:
            why = "SubjectConfirmationData Recipient %s, not the acsURL" % scd.get("Recipient")
        elif scd.get("NotOnOrAfter") is None or not parse_time(scd.get("NotOnOrAfter")) > now - skew:
            why = "SubjectConfirmationData NotOnOrAfter %s is not later than now - skew" % scd.get("NotOnOrAfter")
        elif cfg["requestID"] is not None and scd.get("InResponseTo") != cfg["requestID"]:
            why = "SubjectConfirmationData InResponseTo %s, not the requestID %s" % (scd.get("InResponseTo"), cfg["requestID"])
        else:
            ok_scd = True
    if not ok_scd:
        broken["assertion.subjectConfirmation"] = why
    cond = a.find(SAML + "Conditions")
    nb = cond.get("NotBefore") if cond is not None else None
    na = cond.get("NotOnOrAfter") if cond is not None else None
    if nb is not None and not parse_time(nb) <= now + skew:
        broken["assertion.notBefore"] = "NotBefore %s is later than now + skew" % nb
    if na is None or not now - skew < parse_time(na):
        broken["assertion.notOnOrAfter"] = "NotOnOrAfter %s is not later than now - skew" % na
    auds = [text_of(x) for x in a.iterfind(SAML + "Conditions/" + SAML + "AudienceRestriction/" + SAML + "Audience")]
    if cfg["spEntityID"] not in auds:
        broken["assertion.audience"] = ("Audience %s does not include the spEntityID" % ", ".join(auds)) if auds else "no Audience"
    if a.find(SAML + "AuthnStatement") is None:
        broken["assertion.authnStatement"] = "no AuthnStatement"
    return broken


def values_of(a):
    attrs = {}
    for at in a.iterfind(SAML + "AttributeStatement/" + SAML + "Attribute"):
        assert at.get("Name") not in attrs
        attrs[at.get("Name")] = [text_of(x) for x in at.iterfind(SAML + "AttributeValue")]
    return {
        "nameID": text_of(a.find(SAML + "Subject/" + SAML + "NameID")),
        "attributes": attrs,
        "issuer": text_of(a.find(SAML + "Issuer")),
        "sessionIndex": a.find(SAML + "AuthnStatement").get("SessionIndex"),
        "notOnOrAfter": a.find(SAML + "Conditions").get("NotOnOrAfter"),
    }


def reference_verify(data, label, cfg, v):
    """("accept", values) or ("reject", {rule: reason} for the rules broken in the first failing phase)."""
    r = phase_input(data, label, v)
    if isinstance(r, dict):
        return ("reject", r)
    xml, root = r
    broken = phase_structure(root)
    if broken:
        return ("reject", broken)
    verified = phase_signature(root, cfg, v)
    if "Assertion" not in verified:
        return ("reject", verified)
    broken = phase_semantics(root, verified, cfg)
    if broken:
        return ("reject", broken)
    return ("accept", values_of(verified["Assertion"]))


# ---------------------------------------------------------------------------------------------
# Cases
# ---------------------------------------------------------------------------------------------

TESTS = []
CHECKS = []      # (case, [check, ...])
STATS = {"signxmlSchemaOff": 0, "signxmlVerified": 0, "xmlsec1Verified": 0, "dsigValidShown": set(), "observations": []}


def repeat_text(r):
    return r["prefix"] + r["repeat"] * r["count"] + r["suffix"]


def input_bytes(case):
    return (case["input"] if "input" in case else repeat_text(case["inputRepeat"])).encode("utf-8")


def effective_config(case):
    cfg = dict(CONFIG)
    cfg.update(case["config"])
    return cfg


def add(cls, comment, text=None, repeat=None, encoding="xml", signer="signxml", config=None, expect=None,
        reject=None, extras=None, checks=()):
    """expect: the accepted values. reject: the rules a correct verifier may report first; they must be exactly the
    rules the reference verifier finds broken in the first failing phase (union over the variants), plus `extras`
    ({rule: reason}) where a correct verifier has a freedom the variants do not model (a few, each explained).
    For a reject case the comment gets "Rejected: rule (why); ..." from the reference verifier's reasons."""
    assert cls.split("/")[0] in ("accept", "attack", "semantics", "input"), cls
    assert signer in ("signxml", "xmlsec1", "manual")
    case = {"id": len(TESTS) + 1, "class": cls, "comment": comment, "signer": signer}
    assert (text is None) != (repeat is None)
    if text is not None:
        case["input"] = text
    else:
        case["inputRepeat"] = repeat
    case["inputEncoding"] = encoding
    case["config"] = dict(config or {})
    assert set(case["config"]) <= set(CONFIG)
    extras = extras or {}
    if expect is not None:
        assert reject is None and not extras
        case["result"] = "accept"
        case.update(expect)
    else:
        assert reject and all(r in RULES for r in list(reject) + list(extras)), reject
        case["result"] = "reject"
        case["rejectRules"] = sorted(set(reject) | set(extras), key=RULES.index)
    # the reference verifier under every variant
    cfg = effective_config(case)
    data = input_bytes(case)
    reasons = {}
    for v in VARIANTS:
        res = reference_verify(data, encoding, cfg, v)
        where = f"case {case['id']} ({cls}: {comment}) variant {v.input_mode}/{v.coverage}"
        if expect is not None:
            assert res[0] == "accept", f"{where}: reference rejects with {res[1]}"
            assert res[1] == expect, f"{where}: reference reads {res[1]}, expected {expect}"
        else:
            assert res[0] == "reject", f"{where}: reference accepts"
            for rule, why in res[1].items():
                reasons.setdefault(rule, why)
    if expect is None:
        got = set(reasons)
        assert set(reject) <= got <= set(case["rejectRules"]), \
            f"case {case['id']} ({cls}: {comment}): reference gives {sorted(got)}, reject {sorted(reject)}, extras {sorted(extras)}"
        phases = {PHASE[r] for r in case["rejectRules"]}
        assert len(phases) == 1, f"case {case['id']}: rejectRules span phases {phases}"
        parts = ["%s (also acceptable: %s)" % (r, extras[r]) if r in extras else "%s (%s)" % (r, reasons[r])
                 for r in case["rejectRules"]]
        case["comment"] = comment.rstrip(".") + ". Rejected: " + "; ".join(parts) + "."
    TESTS.append(case)
    CHECKS.append((case, list(checks)))
    return case


def ref_expect(p, **over):
    e = expected_values(p)
    e.update(over)
    return e


# checks
def dsig_valid(where="assertion", tool="xmlsec1", cert="idp", xml_override=None, all_ids=False):
    """Assert that a plain XML-DSig verification of the named Signature succeeds: the case's signature is real and
    only the SAML rule under test stops it."""
    return ("dsig-valid", where, tool, cert, xml_override, all_ids)


def observe(what, where="assertion", cert="idp", strict_keys=True):
    """Record what `xmlsec1 --verify` says (printed, not asserted)."""
    return ("observe", what, where, cert, strict_keys)


def std(**kw):
    """Parameters and the Assertion-signed (signxml) text of a default response with overrides."""
    p = params(**kw)
    return p, signxml_sign(with_decl(build(p), p["decl"]))


# ---------------------------------------------------------------------------------------------
# accept/...
# ---------------------------------------------------------------------------------------------


def accept_cases():
    c = "accept/"
    p = params()
    add(c + "signed-element", "Response signed (signxml), Assertion unsigned: the Response signature covers the Assertion",
        signxml_sign(with_decl(build(p)), targets=("response",)), expect=ref_expect(p))
    p, t = std()
    add(c + "signed-element", "Assertion signed (signxml), Response unsigned", t, expect=ref_expect(p))
    p = params()
    add(c + "signed-element", "Assertion signed, then the Response signed over it (both signatures verify)",
        signxml_sign(with_decl(build(p)), targets=("assertion", "response")), expect=ref_expect(p))
    p = params()
    p["a_sig"] = sig_template("#" + p["assertion_id"], keyinfo=keyinfo_cert("idp"))
    pt = manual_sign(with_decl(build(p)))
    add(c + "signed-element", "Assertion signed by this script's manual signer (cross-checks it against signxml and xmlsec1)",
        pt, signer="manual", expect=ref_expect(p))

    # layout
    p, t = std(pretty=True)
    assert "\n  <saml:Assertion" in t
    add(c + "layout", "pretty-printed (2-space indentation, XML declaration): the whitespace inside the Assertion is signed",
        t, expect=ref_expect(p))
    p, t = std(pretty=False, decl=False)
    assert "\n" not in t.split("<ds:X509Certificate>")[0]
    add(c + "layout", "compact: no whitespace between elements, no XML declaration", t, expect=ref_expect(p))
    p, t = std()
    add(c + "layout", "CRLF line endings throughout (the parser turns them into LF before C14N)", t.replace("\n", "\r\n"),
        expect=ref_expect(p))
    p, t = std()
    add(c + "layout", "a UTF-8 byte order mark before the XML declaration", "\ufeff" + t, expect=ref_expect(p))
    p, t = std()
    add(c + "layout", "a comment in the prolog, before the root element: the comment rule covers only the inside of the root element",
        t.replace(DECL, DECL + "<!-- issued by the test IdP -->\n"), expect=ref_expect(p))

    # namespaces
    p, t = std(a_default_ns=True)
    assert '<Assertion xmlns="urn:oasis:names:tc:SAML:2.0:assertion"' in t
    add(c + "namespaces", 'default namespace on the Assertion (xmlns="urn:oasis:names:tc:SAML:2.0:assertion", unprefixed children)',
        t, expect=ref_expect(p))
    p = params()
    t = signxml_sign(with_decl(build(p)), ds_default_ns=True)
    assert '<Signature xmlns="http://www.w3.org/2000/09/xmldsig#">' in t
    add(c + "namespaces", "ds:Signature written with a default namespace (<Signature xmlns=\"http://www.w3.org/2000/09/xmldsig#\">, as ADFS does)",
        t, expect=ref_expect(p))
    p, t = std(pfx_p="saml2p", pfx_a="saml2")
    add(c + "namespaces", "prefixes saml2p/saml2 instead of samlp/saml (as Shibboleth writes them)", t, expect=ref_expect(p))
    p, t = std(root_ns_extra=[("xmlns:ds", NS_DS), ("xmlns:xs", NS_XS), ("xmlns:unused", "urn:example:unused")],
               a_ns_extra=[("xmlns:saml", NS_SAML), ("xmlns:samlp", NS_SAMLP)])
    assert "<ds:Signature>" in t
    add(c + "namespaces", "namespace declarations repeated on the Assertion and unused ones on the Response (exclusive C14N "
        "drops them); xmlns:ds is declared only on the Response, so the ds:Signature uses the inherited declaration and "
        "the C14N of SignedInfo must still render it", t, expect=ref_expect(p))
    p = params(root_ns_extra=[("xmlns:xs", NS_XS), ("xmlns:xsi", NS_XSI)], attr_xsi_type=True)
    t = signxml_sign(with_decl(build(p)), prefixes=["xs"])
    assert 'PrefixList="xs"' in t and t.count("InclusiveNamespaces") == 1
    add(c + "namespaces", 'xsi:type="xs:string" values with xs declared on the Response: the exc-C14N transform carries '
        '<ec:InclusiveNamespaces PrefixList="xs"> (only on the transform), so xmlns:xs is part of the digest',
        t, expect=ref_expect(p))
    p = params(root_ns_extra=[("xmlns:xs", NS_XS), ("xmlns:xsi", NS_XSI)], attr_xsi_type=True)
    t = signxml_sign(with_decl(build(p)), prefixes=["xs", "xsi"], prefixes_on_c14n_method=True)
    assert t.count('PrefixList="xs xsi"') == 2
    add(c + "namespaces", 'InclusiveNamespaces PrefixList="xs xsi" on both the exc-C14N transform and the SignedInfo '
        "CanonicalizationMethod (SignedInfo's C14N then renders xmlns:xs and xmlns:xsi too)", t, expect=ref_expect(p))

    # algorithms
    p = params()
    add(c + "algorithms", "rsa-sha512 with a sha512 digest", signxml_sign(with_decl(build(p)), alg="rsa-sha512", digest="sha512"),
        expect=ref_expect(p))
    p = params()
    add(c + "algorithms", "rsa-sha384 with a sha384 digest", signxml_sign(with_decl(build(p)), alg="rsa-sha384", digest="sha384"),
        expect=ref_expect(p))
    p = params()
    add(c + "algorithms", "rsa-sha256 with a sha512 digest (the two are independent)",
        signxml_sign(with_decl(build(p)), alg="rsa-sha256", digest="sha512"), expect=ref_expect(p))

    # base64 transport
    p, t = std()
    enc = b64(t.encode("utf-8"))
    add(c + "base64", "the Base64 SAMLResponse value wrapped at 76 columns with CRLF", wrap(enc, 76, "\r\n"), encoding="base64",
        expect=ref_expect(p))
    p, t = std(pretty=False)
    add(c + "base64", "the Base64 SAMLResponse value on one line", b64(t.encode("utf-8")), encoding="base64", expect=ref_expect(p))
    p, t = std()
    add(c + "base64", "the Base64 SAMLResponse value wrapped at 64 columns with LF, and a final LF",
        wrap(b64(t.encode("utf-8")), 64, "\n") + "\n", encoding="base64", expect=ref_expect(p))

    # text
    nid = "tv\U0001F4FA-fan & <friends> \"quoted\" 'single'"
    attrs = [("MaxTVRating", ["TV-14"]), ("displayName", ["R&D <Ops> \U0001F600 caf\u00e9 \u4e2d\u6587"]),
             ("note", ["a > b && c < d"]), ("userID", ["u-1234"])]
    p, t = std(name_id=nid, attributes=attrs)
    assert "&amp; &lt;friends&gt;" in t
    add(c + "text", "4-byte UTF-8 (U+1F4FA, U+1F600), other non-ASCII, and &amp; &lt; &gt; escapes in the NameID and in attribute values",
        t, expect=ref_expect(p))
    attrs = [("emoji", [("&#x1F3AC;&#127909;", "\U0001F3AC\U0001F3A5")]), ("escaped", [("&#60;tag&#62; &#38; &#x22;", "<tag> & \"")]),
             ("cdata", [("<![CDATA[a<b & c>d]]>", "a<b & c>d")]), ("cr", [("line1&#13;\nline2", "line1\r\nline2")])]
    p = params(attributes=attrs, name_id=("user&#x2D;&#49;", "user-1"))
    p["a_sig"] = sig_template("#" + p["assertion_id"], keyinfo=keyinfo_cert("idp"))
    t = manual_sign(with_decl(build(p)))     # signxml would re-serialise the references and the CDATA section
    for raw, _ in [v[0] for _, v in attrs] + [p["name_id"]]:
        assert raw in t, raw
    add(c + "text", "character references (decimal and hex, one for a 4-byte character), a CDATA section, and a "
        "carriage return written as &#13; (kept, unlike a literal CR): values as after XML parsing", t, signer="manual",
        expect=ref_expect(p))
    attrs = [("empty", [""]), ("novalue", []), ("spaces", ["  two  spaces  "]), ("multi", ["a", "b", "c", "a"])]
    p, t = std(attributes=attrs)
    add(c + "text", "an empty AttributeValue (\"\"), an Attribute with no AttributeValue ([]), spaces kept as they are, "
        "and a repeated value (document order, duplicates kept)", t, expect=ref_expect(p))

    # large
    big = [("MaxTVRating", ["TV-14"])] + [("channel-%03d" % i, ["hd-%03d" % i] if i % 10 else ["hd-%03d" % i, "4k"])
                                          for i in range(270)]
    p, t = std(attributes=big)
    assert 45_000 <= len(t.encode()) <= 60_000, len(t.encode())
    add(c + "large", "%d KB response with %d attributes (%d AttributeValues)" % (len(t.encode()) // 1000, len(big),
                                                                              sum(len(v) for _, v in big)),
        t, expect=ref_expect(p))

    # KeyInfo
    p = params()
    t = signxml_sign(with_decl(build(p)), keyinfo=False)
    assert "KeyInfo" not in t
    add(c + "keyinfo", "no KeyInfo at all (the key is pinned by configuration)", t, expect=ref_expect(p))
    p = params()
    t = signxml_sign(with_decl(build(p)), cert=None)
    assert "RSAKeyValue" in t and "X509" not in t
    add(c + "keyinfo", "KeyInfo holds the IdP key as RSAKeyValue instead of a certificate", t, expect=ref_expect(p))
    p = params()
    t = signxml_sign(with_decl(build(p)), key="idp", cert="attacker")
    add(c + "keyinfo", "signed by the IdP key, but KeyInfo carries the attacker's look-alike certificate: accepted, "
        "because KeyInfo is ignored and the pinned IdP key verifies", t, expect=ref_expect(p))

    # key rotation / trust configuration
    p = params()
    t = signxml_sign(with_decl(build(p)), key="rotated", cert="rotated")
    add(c + "key-rotation", 'signed by the rotated IdP key; trustedCertificates ["idp", "rotated"]', t,
        config={"trustedCertificates": ["idp", "rotated"]}, expect=ref_expect(p))
    p, t = std()
    add(c + "key-rotation", 'signed by the old IdP key; trustedCertificates ["idp", "rotated"]', t,
        config={"trustedCertificates": ["idp", "rotated"]}, expect=ref_expect(p))
    p = params()
    t = signxml_sign(with_decl(build(p)), key="attacker", cert="attacker")
    add(c + "trust-config", 'control: signed by the "attacker" key and trustedCertificates ["attacker"]: accepted (the '
        "attacker-key cases fail only because that key is not trusted)", t, config={"trustedCertificates": ["attacker"]},
        expect=ref_expect(p))

    # time: skew window
    p, t = std(not_before=T(SKEW - 30))
    add(c + "clock-skew", "Conditions NotBefore 150 s in the future: inside the 180 s skew by 30 s", t, expect=ref_expect(p))
    p, t = std(not_on_or_after=T(-SKEW + 30), scd_not_on_or_after=T(-SKEW + 30))
    add(c + "clock-skew", "Conditions and SubjectConfirmationData NotOnOrAfter 150 s in the past: inside the skew by 30 s",
        t, expect=ref_expect(p))
    p, t = std(not_before=T(SKEW))
    add(c + "clock-skew", "NotBefore exactly now + skew (%s): NotBefore <= now + skew holds" % T(SKEW), t, expect=ref_expect(p))
    p, t = std(not_on_or_after=T(-SKEW + 1), scd_not_on_or_after=T(-SKEW + 1))
    add(c + "clock-skew", "NotOnOrAfter (Conditions and SubjectConfirmationData) now - skew + 1 s: the latest instant still inside",
        t, expect=ref_expect(p))
    p, t = std(not_on_or_after=T(-SKEW, frac=".001"), scd_not_on_or_after=T(-SKEW, frac=".001"))
    add(c + "clock-skew", "NotOnOrAfter now - skew + 1 ms (%s): fractional seconds count" % T(-SKEW, frac=".001"), t,
        expect=ref_expect(p))
    p, t = std(issue_instant=T(-5, frac=".123"), a_issue_instant=T(-5, frac=".123"), authn_instant=T(-30, frac=".5"),
               not_before=T(-35, frac=".250"), not_on_or_after=T(295, frac=".999999"), scd_not_on_or_after=T(295, frac=".999999"))
    add(c + "clock-skew", "every time with fractional seconds (.123, .5, .250, .999999)", t, expect=ref_expect(p))
    p, t = std(not_before=T(0), not_on_or_after=T(1), scd_not_on_or_after=T(1))
    add(c + "clock-skew", "skewSeconds 0: NotBefore == now and NotOnOrAfter now + 1 s", t, config={"skewSeconds": 0},
        expect=ref_expect(p))

    # configuration
    p, t = std(in_response_to=None, scd_in_response_to=None)
    assert "InResponseTo" not in t
    add(c + "config", "IdP-initiated: no InResponseTo anywhere, and requestID null (not checked)", t,
        config={"requestID": None}, expect=ref_expect(p))
    acs2 = "https://sp.tvekit.example/saml/acs?tenant=a&b=1"
    p, t = std(destination=acs2, recipient=acs2)
    assert "tenant=a&amp;b=1" in t
    add(c + "config", "acsURL with a query (written &amp; in the XML): compared after XML unescaping", t,
        config={"acsURL": acs2}, expect=ref_expect(p))
    p, t = std(resp_issuer="urn:mvpd:example:idp", a_issuer="urn:mvpd:example:idp", audiences=("urn:tvekit:sp",))
    add(c + "config", "idpEntityID and spEntityID that are URNs", t,
        config={"idpEntityID": "urn:mvpd:example:idp", "spEntityID": "urn:tvekit:sp"}, expect=ref_expect(p))
    base = "2026-06-30T23:59:30Z"
    p, t = std(issue_instant=T(-5, base), a_issue_instant=T(-5, base), authn_instant=T(-30, base), not_before=T(-35, base),
               not_on_or_after=T(295, base), scd_not_on_or_after=T(295, base))
    add(c + "config", "now overridden to " + base + " (the times cross midnight and a month end)", t, config={"now": base},
        expect=ref_expect(p))
    p, t = std(audiences=("https://other-sp.example/saml", SP, "urn:another"))
    add(c + "config", "three Audience elements, the second is ours", t, expect=ref_expect(p))
    p, t = std(resp_issuer=None)
    add(c + "config", "no Issuer on the Response (it is optional; the Assertion's Issuer is checked)", t, expect=ref_expect(p))

    # second signer: xmlsec1
    if XMLSEC1:
        p = params()
        p["a_sig"] = sig_template("#" + p["assertion_id"], pretty_indent=4, digest_value="", sig_value="")
        t = xmlsec1_sign(with_decl(build(p)), XP_ASSERTION_SIG)
        add(c + "xmlsec1", "Assertion signed by xmlsec1 (pretty-printed SignedInfo, SignatureValue and certificate "
            "Base64 with line breaks)", t, signer="xmlsec1", expect=ref_expect(p))
        p = params()
        p["resp_sig"] = sig_template("#" + p["resp_id"], pretty_indent=2, digest_value="", sig_value="")
        t = xmlsec1_sign(with_decl(build(p)), XP_RESPONSE_SIG)
        add(c + "xmlsec1", "Response signed by xmlsec1", t, signer="xmlsec1", expect=ref_expect(p))
        p = params()
        p["a_sig"] = sig_template("#" + p["assertion_id"], transforms=(ENVELOPED,), pretty_indent=4, digest_value="", sig_value="")
        t = xmlsec1_sign(with_decl(build(p)), XP_ASSERTION_SIG)
        add(c + "xmlsec1", "Assertion signed by xmlsec1 with only the enveloped-signature transform: the digest is over "
            "the inclusive C14N 1.0 of the Assertion (XML-DSig's default), which renders xmlns:samlp inherited from the Response",
            t, signer="xmlsec1", expect=ref_expect(p))
    else:
        print("--without-xmlsec1: the xmlsec1-signed accept cases are left out")

    # manual signer: whitespace inside the Base64 of SignatureValue
    p = params()
    p["a_sig"] = sig_template("#" + p["assertion_id"], keyinfo=keyinfo_cert("idp"))
    t = manual_sign(with_decl(build(p)), sig_wrap=lambda v: "&#13;\n".join(wrap(v, 76, "\n").split("\n")))
    assert "&#13;\n" in t
    add(c + "base64-whitespace", "SignatureValue Base64 wrapped at 76 with &#13; + LF (as some .NET IdPs write it)", t,
        signer="manual", expect=ref_expect(p))


# ---------------------------------------------------------------------------------------------
# attack/...
# ---------------------------------------------------------------------------------------------

EVIL_NAMEID = "admin@attacker.test"


def set_nameid(el, value):
    el.find(".//" + SAML + "NameID").text = value


def set_attr_value(el, name, value):
    for at in el.iter(SAML + "Attribute"):
        if at.get("Name") == name:
            at.find(SAML + "AttributeValue").text = value
            return
    raise KeyError(name)


def attack_cases():
    c = "attack/"
    # tampering
    p, t = std()
    r = parse(t)
    set_attr_value(r, "MaxTVRating", "TV-MA")
    add(c + "tamper", "Assertion signed, then the MaxTVRating AttributeValue changed TV-14 -> TV-MA: the digest no longer matches",
        with_decl(tostr(r)), reject=["signature.digest"])
    p, t = std()
    r = parse(t)
    set_nameid(r, EVIL_NAMEID)
    add(c + "tamper", "Assertion signed, then the NameID replaced: digest mismatch", with_decl(tostr(r)), reject=["signature.digest"])
    p, t = std()
    r = parse(t)
    sv = r.find(".//" + DS + "SignatureValue")
    raw = bytearray(base64.b64decode(sv.text))
    raw[100] ^= 0x01
    sv.text = b64(bytes(raw))
    add(c + "tamper", "one bit of the SignatureValue flipped: the RSA signature no longer verifies", with_decl(tostr(r)),
        reject=["signature.value"])
    p = params()
    r = parse(signxml_sign(with_decl(build(p)), targets=("response",)))
    set_attr_value(assertion_of(r), "zip", "99999")
    add(c + "tamper", "Response signed (Assertion unsigned), then an AttributeValue inside the Assertion changed: the "
        "Response digest no longer matches", with_decl(tostr(r)), reject=["signature.digest"])
    p = params()
    r = parse(signxml_sign(with_decl(build(p)), targets=("assertion", "response")))
    r.set("Destination", "https://evil.example/acs")
    add(c + "tamper", "both signed, then the Response Destination changed: the Assertion signature is still valid, the "
        "Response one is not (every signature present must verify)", with_decl(tostr(r)), reject=["signature.digest"])

    # XSW1/XSW2: Response-signature wrapping (SAML Raider)
    for n, inside in ((1, True), (2, False)):
        p = params()
        r = parse(signxml_sign(with_decl(build(p)), targets=("response",)))
        sig = r.find(DS + "Signature")
        clone = parse(etree.tostring(r))
        remove_keep_tail(clone.find(DS + "Signature"))
        clone.tail = None
        r.set("ID", "_evil_response_ID")
        set_nameid(assertion_of(r), EVIL_NAMEID)
        if inside:
            sig.append(clone)
        else:
            sig.addprevious(clone)
        where = "appended inside ds:Signature" if inside else "inserted before ds:Signature as a sibling"
        add(c + "xsw%d" % n, "XSW%d: evil Response root (new ID, NameID changed); the signed original Response, Signature "
            "stripped, %s; the Signature still references the original ID" % (n, where), with_decl(tostr(r)),
            reject=["structure.duplicateID", "structure.assertionCount", "structure.assertionPosition"],
            checks=[dsig_valid("response") if not inside else observe("XSW1: xmlsec1 (the copy sits inside the Signature "
                                                                      "that the enveloped transform removes)", "response")])

    # XSW3..XSW8: Assertion-signature wrapping
    def signed_base():
        p = params()
        return parse(signxml_sign(with_decl(build(p))))

    r = signed_base()
    a = assertion_of(r)
    evil = parse(etree.tostring(a))
    remove_keep_tail(evil.find(DS + "Signature"))
    evil.set("ID", "_evil_assertion_ID")
    set_nameid(evil, EVIL_NAMEID)
    evil.tail = a.tail
    a.addprevious(evil)
    add(c + "xsw3", "XSW3: evil unsigned Assertion (new ID, NameID changed) inserted before the signed one", with_decl(tostr(r)),
        reject=["structure.assertionCount"], checks=[dsig_valid(xml_override="second-assertion")])

    r = signed_base()
    a = assertion_of(r)
    evil = parse(etree.tostring(a))
    remove_keep_tail(evil.find(DS + "Signature"))
    evil.set("ID", "_evil_assertion_ID")
    set_nameid(evil, EVIL_NAMEID)
    evil.tail = a.tail
    a.addprevious(evil)
    evil.append(a)
    add(c + "xsw4", "XSW4: the signed Assertion moved inside an evil unsigned Assertion (new ID, NameID changed)",
        with_decl(tostr(r)), reject=["structure.assertionCount", "structure.assertionPosition", "structure.signaturePosition"],
        checks=[dsig_valid(xml_override="nested-assertion")])

    def edited_in_place(n, where):
        r = signed_base()
        a = assertion_of(r)
        clone = parse(etree.tostring(a))
        remove_keep_tail(clone.find(DS + "Signature"))
        clone.tail = None
        a.set("ID", "_evil_assertion_ID")
        set_nameid(a, EVIL_NAMEID)
        sig = a.find(DS + "Signature")
        if where == "end":
            r.append(clone)
            txt = "an unsigned copy of the original (original ID) appended at the end of the Response"
            rules = ["structure.assertionCount"]
        elif where == "signature":
            sig.append(clone)
            txt = "an unsigned copy of the original (original ID) appended inside that ds:Signature"
            rules = ["structure.assertionCount", "structure.assertionPosition"]
        else:
            obj = etree.SubElement(sig, DS + "Object")
            obj.append(clone)
            txt = "an unsigned copy of the original (original ID) inside a ds:Object of that ds:Signature"
            rules = ["structure.assertionCount", "structure.assertionPosition"]
        add(c + "xsw%d" % n, "XSW%d: the signed Assertion edited in place (new ID, NameID changed) keeps its Signature; %s"
            % (n, txt), with_decl(tostr(r)), reject=rules,
            checks=[dsig_valid(xml_override="copy-" + where) if where == "end" else
                    observe("XSW%d: xmlsec1 (the copy sits inside the Signature that the enveloped transform removes)" % n)])


    edited_in_place(5, "end")
    edited_in_place(6, "signature")

    r = signed_base()
    a = assertion_of(r)
    evil = parse(etree.tostring(a))
    remove_keep_tail(evil.find(DS + "Signature"))
    evil.set("ID", "_evil_assertion_ID")
    set_nameid(evil, EVIL_NAMEID)
    evil.tail = a.tail
    ext = etree.Element(SAMLP + "Extensions")
    r.find(SAMLP + "Status").addprevious(ext)
    ext.tail = "\n  "
    a.addprevious(evil)
    ext.append(a)
    a.tail = None
    add(c + "xsw7", "XSW7: the signed Assertion moved into samlp:Extensions; an evil unsigned Assertion (new ID, NameID "
        "changed) takes its place", with_decl(tostr(r)),
        reject=["structure.assertionCount", "structure.assertionPosition", "structure.signaturePosition"],
        checks=[dsig_valid(xml_override="extensions-assertion")])

    edited_in_place(8, "object")

    # Advice wrapping
    r = signed_base()
    a = assertion_of(r)
    evil = parse(etree.tostring(a))
    remove_keep_tail(evil.find(DS + "Signature"))
    evil.set("ID", "_evil_assertion_ID")
    set_nameid(evil, EVIL_NAMEID)
    evil.tail = a.tail
    advice = etree.Element(SAML + "Advice")
    evil.find(SAML + "Conditions").addnext(advice)
    a.addprevious(evil)
    advice.append(a)
    a.tail = None
    add(c + "advice-wrapping", "schema-valid wrapping: an evil unsigned Assertion whose saml:Advice holds the genuine signed "
        "Assertion", with_decl(tostr(r)),
        reject=["structure.assertionCount", "structure.assertionPosition", "structure.signaturePosition"],
        checks=[dsig_valid(xml_override="advice-assertion")])

    # extra unsigned Assertion
    for before in (True, False):
        r = signed_base()
        a = assertion_of(r)
        evil = parse(etree.tostring(a))
        remove_keep_tail(evil.find(DS + "Signature"))
        evil.set("ID", "_evil_assertion_ID")
        set_nameid(evil, EVIL_NAMEID)
        evil.tail = a.tail
        (a.addprevious if before else a.addnext)(evil)
        add(c + "extra-assertion", "an evil unsigned Assertion (own ID) %s the signed one" % ("before" if before else "after"),
            with_decl(tostr(r)), reject=["structure.assertionCount"],
            checks=[dsig_valid(xml_override="second-assertion" if before else None)])

    # duplicate IDs
    for first in (True, False):
        r = signed_base()
        a = assertion_of(r)
        evil = parse(etree.tostring(a))
        remove_keep_tail(evil.find(DS + "Signature"))
        set_nameid(evil, EVIL_NAMEID)
        evil.tail = a.tail
        (a.addprevious if first else a.addnext)(evil)
        add(c + "duplicate-id", "an evil unsigned Assertion with the SAME ID as the signed one, placed %s" % ("first" if first else "last"),
            with_decl(tostr(r)), reject=["structure.duplicateID", "structure.assertionCount"])
    p, t = std()
    r = parse(t)
    r.set("ID", assertion_of(r).get("ID"))
    add(c + "duplicate-id", "the (unsigned) Response carries the signed Assertion's ID: IDs must be unique even where "
        "the extra one is on another element", with_decl(tostr(r)), reject=["structure.duplicateID"])
    p = params(extensions=[E("ext:Marker", [("xmlns:ext", "urn:example:ext"), ("ID", "@@AID@@")], "x")])
    t = signxml_sign(with_decl(build(p))).replace("@@AID@@", p["assertion_id"])
    add(c + "duplicate-id", "an element in samlp:Extensions has an un-namespaced ID equal to the Assertion's (ID confusion, "
        "CVE-2025-25291 style)", t, reject=["structure.duplicateID"])

    # namespaced ID pollution
    r = signed_base()
    a = assertion_of(r)
    evil = parse(etree.tostring(a))
    remove_keep_tail(evil.find(DS + "Signature"))
    evil.set("ID", "_evil_assertion_ID")
    evil.set("{urn:example:pollution}ID", a.get("ID"))
    set_nameid(evil, EVIL_NAMEID)
    evil.tail = a.tail
    a.addprevious(evil)
    t = with_decl(tostr(r)).replace('xmlns:ns0="urn:example:pollution"', 'xmlns:pol="urn:example:pollution"').replace(" ns0:ID=", " pol:ID=")
    assert 'xmlns:pol="urn:example:pollution"' in t and 'pol:ID="%s"' % a.get("ID") in t
    add(c + "namespaced-id", 'evil Assertion first with its own ID and a namespaced p:ID equal to the signed ID ("Fragile '
        'Lock"); p:ID is not an ID, so the only rule broken is the Assertion count', t, reject=["structure.assertionCount"],
        checks=[observe("namespaced-id: xmlsec1 --id-attr:ID on the genuine signature")])

    # DigestValue smuggling
    p, t = std()
    r = parse(t)
    a = assertion_of(r)
    set_nameid(a, EVIL_NAMEID)
    sig = a.find(DS + "Signature")
    new = compute_reference_digest(r, sig, sig.find(DS + "SignedInfo/" + DS + "Reference"))
    ext = etree.Element(SAMLP + "Extensions")
    dv = etree.SubElement(ext, DS + "DigestValue", nsmap={"ds": NS_DS})
    dv.text = b64(new)
    ext.tail = "\n  "
    r.find(SAMLP + "Status").addprevious(ext)
    add(c + "digest-smuggling", "the Assertion edited (NameID) and its new digest put in a ds:DigestValue inside "
        "samlp:Extensions, ahead of the real one in document order (CVE-2024-45409): the DigestValue must be read from the "
        "verified Reference", with_decl(tostr(r)), reject=["signature.digest"])

    # comment injection
    p, t = std(name_id="u-1@x.attacker.test")
    r = parse(t)
    nid = r.find(".//" + SAML + "NameID")
    nid.text = "u-1@x"
    cm = etree.Comment("")
    cm.tail = ".attacker.test"
    nid.append(cm)
    t2 = with_decl(tostr(r))
    assert "u-1@x<!---->.attacker.test" in t2
    add(c + "comment-injection", "IdP signed NameID u-1@x.attacker.test; <!----> inserted before .attacker.test (a verifier "
        "reading the first text node gets u-1@x); the signature stays valid (exc-C14N drops comments)", t2,
        reject=["structure.commentOrPI"], checks=[dsig_valid(), dsig_valid(tool="signxml")])
    p, t = std(attributes=[("MaxTVRating", ["TV-14"]), ("householdID", ["hh-3456789.attacker.test"])])
    t2 = t.replace(">hh-3456789.attacker.test<", ">hh-3456789<!-- -->.attacker.test<")
    assert t2 != t
    add(c + "comment-injection", "the same trick on an AttributeValue: householdID hh-3456789<!-- -->.attacker.test",
        t2, reject=["structure.commentOrPI"], checks=[dsig_valid(), dsig_valid(tool="signxml")])
    p, t = std()
    t2 = t.replace("<samlp:Status>", "<!-- unsigned area -->\n  <samlp:Status>")
    assert t2 != t
    add(c + "comment-injection", "a comment in the Response outside the Assertion (unsigned area): comments are refused "
        "anywhere inside the root element", t2, reject=["structure.commentOrPI"], checks=[dsig_valid()])
    p, t = std()
    t2 = t.replace('Format="%s">' % PERSISTENT, 'Format="%s"><?evil x?>' % PERSISTENT)
    assert t2 != t
    add(c + "processing-instruction", "a processing instruction <?evil x?> inserted inside the signed NameID", t2,
        reject=["structure.commentOrPI"])

    # another key
    p = params(name_id=EVIL_NAMEID)
    t = signxml_sign(with_decl(build(p)), key="attacker", cert="attacker")
    add(c + "wrong-key", "attacker content signed with the attacker key; KeyInfo carries the attacker's self-signed "
        "look-alike certificate (same subject, issuer and serial as the IdP's)", t, reject=["signature.value"],
        checks=[dsig_valid(tool="signxml", cert="attacker")])
    p = params(name_id=EVIL_NAMEID)
    t = signxml_sign(with_decl(build(p)), key="attacker", cert=None)
    assert "RSAKeyValue" in t
    add(c + "wrong-key", "signed with the attacker key; KeyInfo/KeyValue/RSAKeyValue holds the attacker modulus", t,
        reject=["signature.value"], checks=[observe("attacker KeyValue: xmlsec1 --pubkey-cert-pem idp", strict_keys=False),
                                            observe("attacker KeyValue: xmlsec1 with only raw-x509-cert key data")])
    p = params(name_id=EVIL_NAMEID)
    t = signxml_sign(with_decl(build(p)), key="attacker", cert="idp")
    add(c + "wrong-key", "signed with the attacker key; KeyInfo claims the genuine IdP certificate", t, reject=["signature.value"])
    p = params()
    t = signxml_sign(with_decl(build(p)), key="rotated", cert="rotated")
    add(c + "wrong-key", 'signed by the rotated IdP key, but trustedCertificates is ["idp"] only', t, reject=["signature.value"],
        checks=[dsig_valid(cert="rotated")])
    p, t = std()
    add(c + "wrong-key", 'signed by the IdP key, but trustedCertificates is ["rotated"] only', t,
        config={"trustedCertificates": ["rotated"]}, reject=["signature.value"], checks=[dsig_valid()])

    # unsigned / stripped
    p = params()
    add(c + "unsigned", "no signature anywhere", with_decl(build(p)), signer="manual", reject=["signature.missing"])
    p, t = std()
    r = parse(t)
    remove_keep_tail(r.find(".//" + DS + "Signature"))
    set_nameid(r, EVIL_NAMEID)
    add(c + "unsigned", "Assertion signature stripped and the NameID edited", with_decl(tostr(r)), reject=["signature.missing"])
    p = params()
    r = parse(signxml_sign(with_decl(build(p)), targets=("response",)))
    remove_keep_tail(r.find(DS + "Signature"))
    add(c + "unsigned", "Response signature stripped (nothing else signed)", with_decl(tostr(r)), reject=["signature.missing"])

    # references
    p, t = std()
    t2 = t.replace('ID="%s"' % p["assertion_id"], 'ID="_renamed"')
    assert t2.count('ID="_renamed"') == 1
    add(c + "reference", "Assertion ID renamed after signing: the Reference points at an ID that no longer exists",
        t2, reject=["signature.profile", "signature.missing"])

    def manual_assertion(uri, name_id=None, **kw):
        p = params(**({"name_id": name_id} if name_id else {}))
        p["a_sig"] = sig_template(uri, keyinfo=keyinfo_cert("idp"), **kw)
        return p, manual_sign(with_decl(build(p)))

    p, t = manual_assertion("")
    add(c + "reference", 'Reference URI="" (the whole document) from the Assertion\'s Signature, correctly digested',
        t, signer="manual", reject=["signature.profile", "signature.missing"], checks=[dsig_valid()])
    p = params()
    p["a_sig"] = sig_template("#xpointer(id('%s'))" % p["assertion_id"], keyinfo=keyinfo_cert("idp"))
    t = manual_sign(with_decl(build(p)))
    add(c + "reference", "Reference URI=\"#xpointer(id('<Assertion ID>'))\", correctly digested", t, signer="manual",
        reject=["signature.profile", "signature.missing"], checks=[dsig_valid()])
    p = params()
    p["a_sig"] = sig_template("#" + p["assertion_id"], keyinfo=keyinfo_cert("idp"),
                              refs_extra=[("#" + p["resp_id"], (ENVELOPED, EXC_C14N), "sha256")])
    t = manual_sign(with_decl(build(p)))
    add(c + "reference", "two References (the Assertion and the Response), both digests correct", t, signer="manual",
        reject=["signature.profile"], checks=[observe("two references: xmlsec1")])
    p = params()
    p["resp_sig"] = sig_template("#" + p["assertion_id"], transforms=(EXC_C14N,), keyinfo=keyinfo_cert("idp"))
    t = manual_sign(with_decl(build(p)))
    add(c + "reference", "detached signature: ds:Signature under the Response referencing the Assertion, without the "
        "enveloped-signature transform (correctly digested)", t, signer="manual", reject=["signature.profile", "signature.missing"],
        checks=[dsig_valid("response", all_ids=True)])

    # transforms
    xp = (XPATH_FILTER, '<ds:XPath xmlns:saml="%s">not(ancestor-or-self::saml:NameID)</ds:XPath>' % NS_SAML)
    p = params()
    p["a_sig"] = sig_template("#" + p["assertion_id"], transforms=(ENVELOPED, xp, EXC_C14N), keyinfo=keyinfo_cert("idp"))
    t = manual_sign(with_decl(build(p)))
    good = dsig_valid(xml_override=t)
    t2 = t.replace(">%s<" % p["name_id"], ">%s<" % EVIL_NAMEID)
    assert t2 != t
    add(c + "transform", "IdP-signed with an XPath filter not(ancestor-or-self::saml:NameID), then the NameID swapped: the "
        "digest still matches under the XPath transform (xmlsec1 accepts), so the transform allow-list must stop it",
        t2, signer="manual", reject=["signature.profile"], checks=[good, dsig_valid()])
    xsl = ('<xsl:stylesheet xmlns:xsl="http://www.w3.org/1999/XSL/Transform" version="1.0">'
           '<xsl:template match="/"><r><xsl:call-template name="x"><xsl:with-param name="n" select="16"/></xsl:call-template></r></xsl:template>'
           '<xsl:template name="x"><xsl:param name="n"/><xsl:choose><xsl:when test="$n &gt; 0">'
           '<xsl:call-template name="x"><xsl:with-param name="n" select="$n - 1"/></xsl:call-template>'
           '<xsl:call-template name="x"><xsl:with-param name="n" select="$n - 1"/></xsl:call-template>'
           '</xsl:when><xsl:otherwise><x/></xsl:otherwise></xsl:choose></xsl:template></xsl:stylesheet>')
    p, t = std()
    t2 = t.replace('<ds:Transform Algorithm="%s"/>' % ENVELOPED,
                   '<ds:Transform Algorithm="%s"/><ds:Transform Algorithm="%s">%s</ds:Transform>' % (ENVELOPED, XSLT, xsl), 1)
    assert t2 != t
    add(c + "transform", "an XSLT transform (2^16-node recursion, a mild DoS) inserted by an attacker into a genuine "
        "Reference: SignedInfo changed, so the SignatureValue fails too; the transform must never run", t2,
        reject=["signature.profile", "signature.value"])
    p = params()
    p["a_sig"] = sig_template("#" + p["assertion_id"], transforms=(ENVELOPED, (XSLT, xsl), EXC_C14N), keyinfo=keyinfo_cert("idp"))
    t = manual_sign(with_decl(build(p)), digest_overrides={0: plain_digest(p)})
    add(c + "transform", "the same XSLT transform inside an IdP-signed SignedInfo (SignatureValue valid; DigestValue is "
        "the digest without the XSLT step): rejected by the transform allow-list alone", t, signer="manual",
        reject=["signature.profile"])
    p = params()
    p["a_sig"] = sig_template("#" + p["assertion_id"], transforms=(EXC_C14N,), keyinfo=keyinfo_cert("idp"))
    t = manual_sign(with_decl(build(p)), digest_overrides={0: plain_digest(p)})
    add(c + "transform", "enveloped-signature transform missing (only exc-C14N) although the Signature is inside the "
        "Assertion; DigestValue computed as if it were there", t, signer="manual", reject=["signature.profile", "signature.digest"])
    p = params()
    p["a_sig"] = sig_template("#" + p["assertion_id"], transforms=(EXC_C14N, ENVELOPED), keyinfo=keyinfo_cert("idp"))
    t = manual_sign(with_decl(build(p)), digest_overrides={0: plain_digest(p)})
    add(c + "transform", "transforms in the wrong order (exc-C14N, then enveloped-signature), IdP-signed", t, signer="manual",
        reject=["signature.profile"])
    p = params()
    p["a_sig"] = sig_template("#" + p["assertion_id"], transforms=(ENVELOPED, EXC_C14N, EXC_C14N), keyinfo=keyinfo_cert("idp"))
    t = manual_sign(with_decl(build(p)), digest_overrides={0: plain_digest(p)})
    add(c + "transform", "three transforms (enveloped, exc-C14N, exc-C14N), IdP-signed", t, signer="manual", reject=["signature.profile"])
    p = params()
    p["a_sig"] = sig_template("#" + p["assertion_id"], transforms=(ENVELOPED, EXC_C14N_WC), keyinfo=keyinfo_cert("idp"))
    t = manual_sign(with_decl(build(p)))
    add(c + "transform", "exc-C14N WithComments as the Reference transform (IdP-signed, no comments in the document)", t,
        signer="manual", reject=["signature.profile", "signature.algorithm"], checks=[dsig_valid()])
    p = params()
    p["a_sig"] = sig_template("#" + p["assertion_id"], c14n_method=C14N_10, keyinfo=keyinfo_cert("idp"))
    t = manual_sign(with_decl(build(p)))
    add(c + "c14n-method", "SignedInfo CanonicalizationMethod is inclusive C14N 1.0 (IdP-signed accordingly)", t, signer="manual",
        reject=["signature.profile", "signature.algorithm"], checks=[dsig_valid()])
    p = params()
    p["a_sig"] = sig_template("#" + p["assertion_id"], keyinfo=keyinfo_cert("idp"),
                              tail_kids=['<ds:Object Id="obj"><x:Note xmlns:x="urn:example:x">unsigned</x:Note></ds:Object>'])
    t = manual_sign(with_decl(build(p)))
    add(c + "object", "a ds:Object after KeyInfo in an otherwise genuine Assertion signature", t, signer="manual",
        reject=["signature.profile"], checks=[dsig_valid()])

    # signature position
    p, t = std()
    r = parse(t)
    sig = assertion_of(r).find(DS + "Signature")
    dup = parse(etree.tostring(sig))
    dup.tail = sig.tail
    sig.addnext(dup)
    add(c + "signature-position", "two copies of the genuine Signature on the Assertion (at most one per element)",
        with_decl(tostr(r)), reject=["structure.signaturePosition"])
    p, t = std()
    r = parse(t)
    a = assertion_of(r)
    sig = a.find(DS + "Signature")
    remove_keep_tail(sig)
    sig.tail = None
    a.find(SAML + "Subject").append(sig)
    add(c + "signature-position", "the genuine Assertion Signature moved into saml:Subject (the enveloped transform still "
        "removes it, so the digest matches)", with_decl(tostr(r)), reject=["structure.signaturePosition"],
        checks=[dsig_valid(xml_override="subject-signature")])
    r = signed_base()
    a = assertion_of(r)
    ext = etree.Element(SAMLP + "Extensions")
    r.find(SAMLP + "Status").addprevious(ext)
    ext.tail = "\n  "
    ext.append(a)
    add(c + "assertion-position", "the only (signed) Assertion sits inside samlp:Extensions instead of under the Response",
        with_decl(tostr(r)), reject=["structure.assertionPosition", "structure.signaturePosition"],
        checks=[dsig_valid(xml_override="extensions-assertion")])

    # algorithms
    for alg, dig, why in [("rsa-sha1", "sha1", "rsa-sha1 with a sha1 digest"), ("rsa-md5", "md5", "rsa-md5 with an md5 digest"),
                          ("rsa-sha256", "sha1", "rsa-sha256 with a sha1 digest"),
                          ("rsa-sha224", "sha224", "rsa-sha224 with a sha224 digest (outside the allow-list, though signxml's default accepts it)"),
                          ("rsa-pss-sha256", "sha256", "RSASSA-PSS (sha256-rsa-MGF1), not in the allow-list")]:
        p = params()
        p["a_sig"] = sig_template("#" + p["assertion_id"], alg=alg, digest=dig, keyinfo=keyinfo_cert("idp"))
        t = manual_sign(with_decl(build(p)))
        add(c + "weak-algorithm", "genuine IdP signature with " + why, t, signer="manual", reject=["signature.algorithm"],
            checks=[dsig_valid() if alg not in ("rsa-pss-sha256",) else dsig_valid(tool="signxml")])
    # HMAC
    p = params(name_id=EVIL_NAMEID)
    p["a_sig"] = sig_template("#" + p["assertion_id"], alg="hmac-sha256", keyinfo="none")
    pem = PEMS["idp"]["certificatePem"].encode("ascii")
    t = manual_sign(with_decl(build(p)), hmac_key=pem)
    add(c + "hmac", "HMAC key confusion: attacker content signed with hmac-sha256 keyed with the IdP certificate PEM "
        "(the exact text of keys.json idp.certificatePem)", t, signer="manual", reject=["signature.algorithm"],
        checks=[("hmac-valid", pem)])
    p = params(name_id=EVIL_NAMEID)
    p["a_sig"] = sig_template("#" + p["assertion_id"], alg="hmac-sha1", keyinfo="none",
                              sig_method_kids="<ds:HMACOutputLength>8</ds:HMACOutputLength>")
    t = manual_sign(with_decl(build(p)), hmac_key=pem, hmac_bits=8)
    add(c + "hmac", "HMAC truncation (CVE-2009-0217): hmac-sha1 with HMACOutputLength 8, a 1-byte SignatureValue "
        "(keyed as above; 256 guesses would do)", t, signer="manual", reject=["signature.algorithm"])

    # DTDs
    p, t = std(status_message="@@MSG@@")
    body = t[len(DECL):]
    lol = "".join('<!ENTITY lol%d "%s">\n' % (i, ("&lol%s;" % ("" if i == 1 else i - 1)) * 10) for i in range(1, 10))
    dtd = '<!DOCTYPE samlp:Response [\n<!ENTITY lol "lol">\n' + lol + "]>\n"
    add(c + "dtd", "billion laughs: 10 levels of 10x entities (10^9 'lol') referenced from the unsigned StatusMessage",
        DECL + dtd + body.replace("@@MSG@@", "&lol9;"), reject=["input.doctype"],
        extras={"input.malformedXML": "libxml2 (2.11 and later) stops at its entity amplification limit even with "
                "entity substitution off, which a libxml2-based verifier may report before it looks at the DOCTYPE"})
    add(c + "dtd", "XXE: an external entity SYSTEM \"file:///etc/passwd\" referenced from the unsigned StatusMessage",
        DECL + '<!DOCTYPE samlp:Response [\n<!ENTITY xxe SYSTEM "file:///etc/passwd">\n]>\n' + body.replace("@@MSG@@", "&xxe;"),
        reject=["input.doctype"])
    add(c + "dtd", "external DTD subset (SSRF): <!DOCTYPE samlp:Response SYSTEM \"http://127.0.0.1:9/saml.dtd\">",
        DECL + '<!DOCTYPE samlp:Response SYSTEM "http://127.0.0.1:9/saml.dtd">\n' + body.replace("@@MSG@@", "ok"),
        reject=["input.doctype"])
    p, t = std(name_id="u-1@x.example")
    t2 = t.replace(">u-1@x.example</saml:NameID>", ">&nm;</saml:NameID>")
    assert t2 != t
    add(c + "dtd", "internal entity over signed text: NameID written &nm; with <!ENTITY nm \"u-1@x.example\"> (the signed "
        "value): it verifies only for a verifier that expands entities", DECL + '<!DOCTYPE samlp:Response [\n<!ENTITY nm "u-1@x.example">\n]>\n' + t2[len(DECL):],
        reject=["input.doctype"])
    add(c + "dtd", "the XXE response as a Base64 SAMLResponse value",
        b64((DECL + '<!DOCTYPE samlp:Response [\n<!ENTITY xxe SYSTEM "file:///etc/passwd">\n]>\n' + body.replace("@@MSG@@", "&xxe;")).encode()),
        encoding="base64", reject=["input.doctype"])

    # EncryptedAssertion
    enc = E("saml:EncryptedAssertion", {}, E("xenc:EncryptedData", [("xmlns:xenc", NS_XENC), ("Type", NS_XENC + "Element")],
            E("xenc:EncryptionMethod", {"Algorithm": "http://www.w3.org/2009/xmlenc11#aes256-gcm"}),
            E("xenc:CipherData", {}, E("xenc:CipherValue", {}, b64(hashlib.sha512(b"not really encrypted").digest())))))
    p, t = std(after_assertion=[enc])
    add(c + "encrypted-assertion", "a signed Assertion plus a saml:EncryptedAssertion after it", t, reject=["structure.assertionCount"])
    p = params()
    t = signxml_sign(with_decl(build(p)), targets=("response",))
    r = parse(t)
    a = assertion_of(r)
    e = parse(ser(enc, False).replace("<saml:EncryptedAssertion>", '<saml:EncryptedAssertion xmlns:saml="%s">' % NS_SAML))
    e.tail = a.tail
    a.addprevious(e)
    remove_keep_tail(a)
    add(c + "encrypted-assertion", "a saml:EncryptedAssertion instead of the Assertion (Response signed before the swap; "
        "decryption is not supported, so this is refused before any crypto)", with_decl(tostr(r)), reject=["structure.assertionCount"])


def plain_digest(p):
    """SHA-256 of the exc-C14N of the Assertion built from p with its Signature removed (the enveloped-signature
    transform), computed in context."""
    root = parse(with_decl(build(p)))
    tmp = parse(etree.tostring(root))
    remove_keep_tail(tmp.find(".//" + DS + "Signature"))
    return hashlib.sha256(c14n(assertion_of(tmp))).digest()


# ---------------------------------------------------------------------------------------------
# semantics/...
# ---------------------------------------------------------------------------------------------


def semantics_cases():
    c = "semantics/"

    def case(cls, comment, rules, config=None, sign=("assertion",), **kw):
        p = params(**kw)
        t = signxml_sign(with_decl(build(p)), targets=sign)
        add(c + cls, comment, t, config=config, reject=rules, checks=[dsig_valid("response" if sign == ("response",) else "assertion")])

    case("expired", "Conditions NotOnOrAfter an hour ago (SubjectConfirmationData still valid)", ["assertion.notOnOrAfter"],
         not_on_or_after=T(-3600))
    case("expired", "everything an hour old: Conditions and SubjectConfirmationData NotOnOrAfter both past (either rule may come first)",
         ["assertion.notOnOrAfter", "assertion.subjectConfirmation"], issue_instant=T(-3900), a_issue_instant=T(-3900),
         authn_instant=T(-3930), not_before=T(-3935), not_on_or_after=T(-3600), scd_not_on_or_after=T(-3600))
    case("not-yet-valid", "Conditions NotBefore an hour in the future", ["assertion.notBefore"], not_before=T(3600))
    case("subject-confirmation", "SubjectConfirmationData NotOnOrAfter an hour ago (Conditions valid)",
         ["assertion.subjectConfirmation"], scd_not_on_or_after=T(-3600))
    case("audience", "Audience is another SP", ["assertion.audience"], audiences=("https://other-sp.example/saml",))
    case("audience", "Audience is the SP entity ID with a trailing slash (exact comparison)", ["assertion.audience"],
         audiences=(SP + "/",))
    case("audience", "no AudienceRestriction at all", ["assertion.audience"], audiences=None)
    case("issuer", "Response Issuer is another IdP (Assertion Issuer right)", ["response.issuer"],
         resp_issuer="https://evil-idp.example/saml")
    case("issuer", "Response Issuer wrong, Response signed (Assertion unsigned)", ["response.issuer"],
         sign=("response",), resp_issuer="https://evil-idp.example/saml")
    case("issuer", "Assertion Issuer is another IdP (Response Issuer right)", ["assertion.issuer"],
         a_issuer="https://evil-idp.example/saml")
    case("destination", "Destination is another ACS URL", ["response.destination"], destination="https://evil.example/acs")
    case("destination", "Destination with a trailing slash (exact comparison)", ["response.destination"], destination=ACS + "/")
    case("destination", "no Destination attribute", ["response.destination"], destination=None)
    case("destination", "Destination wrong, Response signed", ["response.destination"], sign=("response",),
         destination="https://evil.example/acs")
    case("recipient", "SubjectConfirmationData Recipient is another URL", ["assertion.subjectConfirmation"],
         recipient="https://evil.example/acs")
    case("in-response-to", "Response InResponseTo is another request", ["response.inResponseTo"], in_response_to="_req-9999")
    case("in-response-to", "Response without InResponseTo while requestID is configured", ["response.inResponseTo"],
         in_response_to=None)
    case("in-response-to", "SubjectConfirmationData InResponseTo is another request", ["assertion.subjectConfirmation"],
         scd_in_response_to="_req-9999")
    case("status", "StatusCode Requester (with a signed Assertion)", ["response.status"],
         status="urn:oasis:names:tc:SAML:2.0:status:Requester")
    case("status", "StatusCode Responder, Response signed", ["response.status"], sign=("response",),
         status="urn:oasis:names:tc:SAML:2.0:status:Responder")
    case("authn-statement", "no AuthnStatement", ["assertion.authnStatement"], authn=False)
    case("name-id", "no NameID in the Subject", ["assertion.nameID"], name_id_present=False)
    case("subject-confirmation", "SubjectConfirmation Method holder-of-key instead of bearer", ["assertion.subjectConfirmation"],
         scm_method="urn:oasis:names:tc:SAML:2.0:cm:holder-of-key")
    # skew edges
    case("clock-skew", "NotBefore now + skew + 1 s (%s): 1 s outside" % T(SKEW + 1), ["assertion.notBefore"], not_before=T(SKEW + 1))
    case("clock-skew", "Conditions NotOnOrAfter exactly now - skew (%s): NotOnOrAfter must be later than now - skew"
         % T(-SKEW), ["assertion.notOnOrAfter"], not_on_or_after=T(-SKEW))
    case("clock-skew", "Conditions NotOnOrAfter now - skew - 1 s: 1 s outside", ["assertion.notOnOrAfter"], not_on_or_after=T(-SKEW - 1))
    case("clock-skew", "SubjectConfirmationData NotOnOrAfter exactly now - skew", ["assertion.subjectConfirmation"],
         scd_not_on_or_after=T(-SKEW))
    case("clock-skew", "SubjectConfirmationData NotOnOrAfter now - skew - 1 s", ["assertion.subjectConfirmation"],
         scd_not_on_or_after=T(-SKEW - 1))
    case("clock-skew", "skewSeconds 0: Conditions NotOnOrAfter == now", ["assertion.notOnOrAfter"], config={"skewSeconds": 0},
         not_on_or_after=T(0))
    case("clock-skew", "skewSeconds 0: NotBefore now + 1 s", ["assertion.notBefore"], config={"skewSeconds": 0}, not_before=T(1))
    case("config", 'requestID "_req-0002" configured; the response answers _req-0001 (both InResponseTo attributes)',
         ["response.inResponseTo", "assertion.subjectConfirmation"], config={"requestID": "_req-0002"})
    case("config", "the response is for the default SP, but spEntityID and acsURL are configured for another SP",
         ["response.destination", "assertion.subjectConfirmation", "assertion.audience"],
         config={"spEntityID": "https://sp2.tvekit.example/saml", "acsURL": "https://sp2.tvekit.example/saml/acs"})


# ---------------------------------------------------------------------------------------------
# input/...
# ---------------------------------------------------------------------------------------------


def det_bytes(n, label):
    out = b""
    i = 0
    while len(out) < n:
        out += hashlib.sha256(b"tvekit saml vectors/%s/%d" % (label.encode(), i)).digest()
        i += 1
    return out[:n]


def input_cases():
    c = "input/"
    p, t = std()
    enc = b64(t.encode())
    add(c + "empty", "empty input (0 bytes)", "", signer="manual", reject=["input.malformedXML"],
        extras={"input.encoding": "an empty input is neither XML nor Base64 of anything; a verifier may call it either"})
    add(c + "plain-text", "plain text", "This is not a SAML response.", signer="manual",
        reject=["input.encoding", "input.malformedXML"])
    rnd = det_bytes(600, "random")
    rtext = "".join(chr(0x21 + b % 94) for b in rnd)
    assert not rtext.startswith("<")
    add(c + "random", "600 random printable ASCII characters", rtext, signer="manual", reject=["input.encoding", "input.malformedXML"])
    add(c + "random", "Base64 of 600 random bytes (decodes, but the bytes are neither UTF-8 nor XML)", b64(rnd), encoding="base64",
        signer="manual", reject=["input.encoding", "input.malformedXML"])
    cut = enc[:len(enc) // 2 + 1]
    assert len(cut) % 4
    add(c + "base64", "Base64 truncated to %d characters (not a multiple of 4)" % len(cut), cut, encoding="base64",
        reject=["input.encoding"],
        extras={"input.malformedXML": "a decoder that ignores the missing padding decodes a truncated XML document"})
    cut = enc[:(len(enc) // 2) // 4 * 4]
    add(c + "base64", "Base64 truncated at a 4-character boundary: valid Base64 of a truncated XML document", cut,
        encoding="base64", reject=["input.malformedXML"])
    add(c + "base64", "a '*' in the middle of the Base64", enc[:200] + "*" + enc[201:], encoding="base64", reject=["input.encoding"])
    assert "+" in enc or "/" in enc or "=" in enc
    urlenc = enc.replace("+", "%2B").replace("/", "%2F").replace("=", "%3D")
    add(c + "base64", "the Base64 still URL-encoded (%2B %2F %3D: the form field was not decoded)", urlenc, encoding="base64",
        reject=["input.encoding"])
    urlsafe = enc.replace("+", "-").replace("/", "_")
    assert urlsafe != enc
    add(c + "base64", "the URL-safe Base64 alphabet ('-' and '_')", urlsafe, encoding="base64", reject=["input.encoding"])
    p, t = std(status_message="@@BAD@@")
    raw = t.encode("utf-8").replace(b"@@BAD@@", b"bad \xff\xfe \xc0\xaf bytes")
    add(c + "utf8", "invalid UTF-8 (FF FE, and the overlong C0 AF) in the unsigned StatusMessage, as Base64", b64(raw),
        encoding="base64", reject=["input.encoding", "input.malformedXML"])
    raw = t.encode("utf-8").replace(b"@@BAD@@", b"lone surrogate \xed\xa0\x80 here")
    add(c + "utf8", "an encoded UTF-16 surrogate (ED A0 80, not allowed in UTF-8) in the StatusMessage, as Base64", b64(raw),
        encoding="base64", reject=["input.encoding", "input.malformedXML"])
    p, t = std()
    add(c + "malformed", "the XML cut in half", t[:len(t) // 2], reject=["input.malformedXML"])
    add(c + "malformed", "two root elements (a second Response appended)", t + t[len(DECL):], reject=["input.malformedXML"])
    add(c + "malformed", "an undeclared prefix (saml: without xmlns:saml)", t.replace(' xmlns:saml="%s"' % NS_SAML, "", 1),
        reject=["input.malformedXML"])
    # root
    p = params()
    t = bare_assertion(p)
    add(c + "root", "a bare signed saml:Assertion as the document element (not a samlp:Response)", t,
        reject=["structure.root", "structure.assertionPosition"], checks=[("dsig-valid-root",)])
    p, t = std(pfx_p="samlp")
    t2 = t.replace(NS_SAMLP, "urn:oasis:names:tc:SAML:1.0:protocol", 1)
    add(c + "root", "samlp:Response in the SAML 1.0 protocol namespace", t2, reject=["structure.root", "structure.assertionPosition"])
    # size
    p, t = std()
    head = t
    n = MAX_XML - len(head.encode())
    add(c + "size", "exactly 1048576 bytes of XML (a signed response + spaces after the root element): accepted",
        repeat={"prefix": head, "repeat": " ", "count": n, "suffix": ""}, expect=ref_expect(p))
    add(c + "size", "1048577 bytes of XML (the same + one space)", repeat={"prefix": head, "repeat": " ", "count": n + 1, "suffix": ""},
        reject=["input.size"])
    pre = head.encode()
    pad = (-len(pre)) % 3
    prefix_b64 = b64(pre + b" " * pad)
    k = (1536 * 1024 - len(pre)) // 3
    add(c + "size", "1.5 MiB of XML (signed response + spaces) as one Base64 line of %d characters" % (len(prefix_b64) + 4 * k),
        repeat={"prefix": prefix_b64, "repeat": "ICAg", "count": k, "suffix": ""}, encoding="base64", reject=["input.size"])


def bare_assertion(p):
    a = assertion_node(p)
    a[1].insert(0, ("xmlns:saml", NS_SAML))
    text = with_decl(ser(a, True))
    root = parse(text)
    ph = etree.fromstring('<ds:Signature xmlns:ds="%s" Id="placeholder"/>' % NS_DS)
    issuer = root.find(SAML + "Issuer")
    ph.tail = issuer.tail
    issuer.addnext(ph)
    signer = XMLSigner(method=methods.enveloped, signature_algorithm=SIG_ALGS["rsa-sha256"][0],
                       digest_algorithm=DIGESTS["sha256"][0], c14n_algorithm=EXC_C14N)
    root = signer.sign(root, key=PEMS["idp"]["privateKeyPem"], cert=PEMS["idp"]["certificatePem"],
                       reference_uri=["#" + p["assertion_id"]])
    return with_decl(tostr(root))


# ---------------------------------------------------------------------------------------------
# Independent checks
# ---------------------------------------------------------------------------------------------


def decoded_xml(case):
    data = input_bytes(case)
    if case["inputEncoding"] == "base64":
        return strict_b64decode(data)
    return data


def signxml_verify(xml, location, cert, now):
    """signxml's verification. Its XML-DSig schema check refuses ec:InclusiveNamespaces inside
    CanonicalizationMethod (the schema's wildcard there is strict and signxml ships no schema for the ec namespace),
    so for such a document the schema check is turned off; everything else is checked as usual."""
    cfg = SignatureConfiguration(location=location, expect_references=1,
                                 verification_time=datetime.datetime.fromtimestamp(parse_time(now), tz=datetime.timezone.utc))
    ec_in_cm = parse(xml).find(".//" + DS + "CanonicalizationMethod/" + EC + "InclusiveNamespaces") is not None
    if ec_in_cm:
        STATS["signxmlSchemaOff"] += 1
    return XMLVerifier().verify(xml, x509_cert=PEMS[cert]["certificatePem"], expect_config=cfg, validate_schema=not ec_in_cm)


LOC_RESPONSE = "./"
LOC_ASSERTION = "./{%s}Assertion/" % NS_SAML


def independent_accept(case):
    """signxml and xmlsec1 verify every signature of an accept case; the values come from signxml's signed_xml."""
    cfg = effective_config(case)
    xml = decoded_xml(case)
    if "inputRepeat" in case:
        xml = xml.rstrip(b" ")
    root = parse(xml)
    places = []
    if root.find(DS + "Signature") is not None:
        places.append(("response", LOC_RESPONSE, XP_RESPONSE_SIG))
    if assertion_of(root).find(DS + "Signature") is not None:
        places.append(("assertion", LOC_ASSERTION, XP_ASSERTION_SIG))
    assert places
    assertion_values = None
    for where, loc, xp in places:
        result = None
        for cert in cfg["trustedCertificates"]:
            try:
                result = signxml_verify(xml, loc, cert, cfg["now"])
                break
            except Exception:  # noqa: BLE001 - try the next trusted certificate
                continue
        assert result is not None, f"case {case['id']}: signxml does not verify the {where} signature"
        STATS["signxmlVerified"] += 1
        signed = result.signed_xml
        a = signed if where == "assertion" else signed.find(SAML + "Assertion")
        vals = values_of(a)
        if where == "assertion" or assertion_values is None:
            assertion_values = vals
        if XMLSEC1:
            assert any(xmlsec1_verify(xml, xp, cert) for cert in cfg["trustedCertificates"]), \
                f"case {case['id']}: xmlsec1 does not verify the {where} signature"
            STATS["xmlsec1Verified"] += 1
    want = {k: case[k] for k in ("nameID", "attributes", "issuer", "sessionIndex", "notOnOrAfter")}
    assert assertion_values == want, f"case {case['id']}: signxml's signed_xml gives {assertion_values}, recorded {want}"


def genuine_signature_xpath(how):
    """For a wrapping case: the XPath to the genuine (IdP) Signature, wherever the attack put it."""
    paths = {
        None: XP_ASSERTION_SIG,
        "second-assertion": "/*/*[local-name()='Assertion'][2]/*[local-name()='Signature']",
        "nested-assertion": "/*/*[local-name()='Assertion']/*[local-name()='Assertion']/*[local-name()='Signature']",
        "copy-end": XP_ASSERTION_SIG, "copy-signature": XP_ASSERTION_SIG, "copy-object": XP_ASSERTION_SIG,
        "extensions-assertion": "/*/*[local-name()='Extensions']/*[local-name()='Assertion']/*[local-name()='Signature']",
        "advice-assertion": "//*[local-name()='Advice']/*[local-name()='Assertion']/*[local-name()='Signature']",
        "subject-signature": "//*[local-name()='Subject']/*[local-name()='Signature']",
    }
    return paths[how]


def run_checks():
    for case, checks in CHECKS:
        if case["result"] == "accept":
            independent_accept(case)
        for chk in checks:
            kind = chk[0]
            xml = decoded_xml(case)
            if kind == "dsig-valid":
                _, where, tool, cert, override, all_ids = chk
                if isinstance(override, str) and override.startswith("<?xml"):
                    xml, xp, loc = override.encode(), (XP_RESPONSE_SIG if where == "response" else XP_ASSERTION_SIG), None
                elif where == "response":
                    xp, loc = XP_RESPONSE_SIG, LOC_RESPONSE
                else:
                    xp = genuine_signature_xpath(override)
                    loc = LOC_ASSERTION
                if tool == "xmlsec1":
                    if not XMLSEC1:
                        continue
                    # a Response signature is checked the way a verifier of Responses would: only Response IDs
                    # registered (xmlsec1 refuses to load a document whose registered IDs repeat)
                    ok = xmlsec1_verify(xml, xp, cert, ids=XMLSEC_IDS[2:] if where == "response" and not all_ids else XMLSEC_IDS)
                    assert ok, f"case {case['id']} ({case['comment']}): xmlsec1 does not verify the genuine signature"
                else:
                    cfg = SignatureConfiguration(location=loc or LOC_ASSERTION, expect_references=1,
                                                 signature_methods=frozenset(signxml.SignatureMethod),
                                                 verification_time=datetime.datetime(2026, 1, 1, tzinfo=datetime.timezone.utc))
                    XMLVerifier().verify(xml, x509_cert=PEMS[cert]["certificatePem"], expect_config=cfg)
                STATS["dsigValidShown"].add(case["id"])
            elif kind == "dsig-valid-root":
                cfg = SignatureConfiguration(location="./", expect_references=1,
                                             verification_time=datetime.datetime(2026, 1, 1, tzinfo=datetime.timezone.utc))
                XMLVerifier().verify(xml, x509_cert=PEMS["idp"]["certificatePem"], expect_config=cfg)
                if XMLSEC1:
                    assert xmlsec1_verify(xml, "/*/*[local-name()='Signature']", "idp")
                STATS["dsigValidShown"].add(case["id"])
            elif kind == "hmac-valid":
                cfg = SignatureConfiguration(location=LOC_ASSERTION, expect_references=1, require_x509=False)
                XMLVerifier().verify(xml, hmac_key=chk[1], expect_config=cfg)
                STATS["dsigValidShown"].add(case["id"])
            elif kind == "observe":
                _, what, where, cert, strict = chk
                if XMLSEC1:
                    xp = XP_RESPONSE_SIG if where == "response" else (
                        "/*/*[local-name()='Assertion'][2]/*[local-name()='Signature']" if "namespaced-id" in what else XP_ASSERTION_SIG)
                    ok = xmlsec1_verify(xml, xp, cert, strict_keys=strict,
                                        ids=XMLSEC_IDS[2:] if where == "response" else XMLSEC_IDS)
                    STATS["observations"].append("case %d: %s -> %s" % (case["id"], what, "accepts" if ok else "rejects"))
            else:
                raise AssertionError(kind)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--without-xmlsec1", action="store_true",
                    help="run without the xmlsec1 tool: its signed cases and checks are left out, so the output differs")
    ap.add_argument("--external-signer", metavar="CMD", help="NOT IMPLEMENTED: add vectors signed by an external signer")
    args = ap.parse_args()
    global XMLSEC1
    if args.without_xmlsec1:
        XMLSEC1 = None
    elif not XMLSEC1:
        raise SystemExit("xmlsec1 not found: install it (Debian: apt-get install -y xmlsec1), or pass --without-xmlsec1 "
                         "to write a file without the xmlsec1-signed cases")
    if args.external_signer:
        external_signer_cases(args.external_signer)

    assert check_signxml_prefix_bug(), "signxml now writes InclusiveNamespaces itself: drop PrefixListSigner"
    accept_cases()
    attack_cases()
    semantics_cases()
    input_cases()

    ids = [t["id"] for t in TESTS]
    assert ids == list(range(1, len(TESTS) + 1)) and len(set(ids)) == len(ids)
    seen = {r for t in TESTS for r in t.get("rejectRules", [])}
    missing = set(RULES) - seen - {"signature.canonicalization"}
    assert not missing, missing
    for t in TESTS:
        assert ("input" in t) != ("inputRepeat" in t)

    run_checks()

    doc = {
        "schema": "tvekit-saml-v1",
        "generator": "TestVectors/saml/generate.py",
        "generatedWith": {"python": platform.python_version(), "signxml": importlib.metadata.version("signxml"),
                          "lxml": lxml.__version__, "libxml2": ".".join(map(str, etree.LIBXML_VERSION)),
                          "cryptography": cryptography.__version__, "xmlsec1": xmlsec1_version()},
        "numberOfTests": len(TESTS),
        "keys": {n: {"certificatePem": PEMS[n]["certificatePem"], "privateKeyPem": PEMS[n]["privateKeyPem"]} for n in PEMS},
        "tests": TESTS,
    }
    data = (json.dumps(doc, indent=2, ensure_ascii=True) + "\n").encode("ascii")
    with open(OUT_PATH, "wb") as f:
        f.write(data)

    classes = {}
    for t in TESTS:
        classes.setdefault(t["class"], {}).setdefault(t["result"], 0)
        classes[t["class"]][t["result"]] += 1
    for cls in classes:
        detail = ", ".join(f"{k} {v}" for k, v in sorted(classes[cls].items()))
        print(f"{cls:40s} {sum(classes[cls].values()):3d}  ({detail})")
    totals = {}
    for t in TESTS:
        totals[t["result"]] = totals.get(t["result"], 0) + 1
    print("total %d cases: %s" % (len(TESTS), ", ".join(f"{k} {v}" for k, v in sorted(totals.items()))))
    print("independent checks: %d signatures verified by signxml, %d by xmlsec1%s; %d reject cases shown to carry a "
          "signature that plain XML-DSig verification accepts"
          % (STATS["signxmlVerified"], STATS["xmlsec1Verified"], "" if XMLSEC1 else " (xmlsec1 not found: skipped)",
             len(STATS["dsigValidShown"])))
    for o in STATS["observations"]:
        print("observed: " + o)
    print(f"wrote {os.path.relpath(OUT_PATH)} ({len(data)} bytes, sha256 {hashlib.sha256(data).hexdigest()})")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Writes the seed corpora of FuzzSAMLParser, FuzzC14N and FuzzSAMLVerify.

Responses in several shapes (Response signed, Assertion signed, both; compact and pretty-printed; escapes and 4-byte
UTF-8) are signed by `tvekit saml sign` with the committed fixture key, which the verifier fuzzer trusts; every
input of TestVectors/saml/saml_test.json (when present) is added too. Files are named by the first 16 hex digits of
their SHA-256. Usage, after `swift build`:  python3 Fuzz/make-saml-corpus.py [--tvekit .build/debug/tvekit]
"""
import argparse
import base64
import hashlib
import json
import pathlib
import subprocess
import tempfile

ROOT = pathlib.Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "TestVectors/fixtures"
IDP, SP, ACS = "https://idp.mvpd.example/saml", "https://sp.tvekit.example/saml", "https://sp.tvekit.example/saml/acs"


def response(name_id, attributes, pretty):
    nl = "\n  " if pretty else ""
    attrs = "".join(f'<saml:Attribute Name="{n}">' + "".join(f"<saml:AttributeValue>{v}</saml:AttributeValue>" for v in vs)
                    + "</saml:Attribute>" + nl for n, vs in attributes)
    return (f'<samlp:Response xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" '
            f'ID="_r1" Version="2.0" IssueInstant="2026-01-01T00:00:00Z" Destination="{ACS}" InResponseTo="_req-0001">{nl}'
            f"<saml:Issuer>{IDP}</saml:Issuer>{nl}<samlp:Status><samlp:StatusCode Value=\"urn:oasis:names:tc:SAML:2.0:status:Success\"/></samlp:Status>{nl}"
            f'<saml:Assertion ID="_a1" Version="2.0" IssueInstant="2026-01-01T00:00:00Z">{nl}<saml:Issuer>{IDP}</saml:Issuer>{nl}'
            f'<saml:Subject><saml:NameID Format="urn:oasis:names:tc:SAML:2.0:nameid-format:persistent">{name_id}</saml:NameID>{nl}'
            f'<saml:SubjectConfirmation Method="urn:oasis:names:tc:SAML:2.0:cm:bearer"><saml:SubjectConfirmationData Recipient="{ACS}" '
            f'NotOnOrAfter="2026-01-01T00:10:00Z" InResponseTo="_req-0001"/></saml:SubjectConfirmation></saml:Subject>{nl}'
            f'<saml:Conditions NotBefore="2026-01-01T00:00:00Z" NotOnOrAfter="2026-01-01T00:10:00Z"><saml:AudienceRestriction>'
            f"<saml:Audience>{SP}</saml:Audience></saml:AudienceRestriction></saml:Conditions>{nl}"
            f'<saml:AuthnStatement AuthnInstant="2026-01-01T00:00:00Z" SessionIndex="_s1"/>{nl}'
            f"<saml:AttributeStatement>{attrs}</saml:AttributeStatement></saml:Assertion></samlp:Response>")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--tvekit", default=str(ROOT / ".build/debug/tvekit"))
    args = parser.parse_args()
    seeds = set()
    with tempfile.TemporaryDirectory() as work:
        for name_id, attributes in (("user-1@mvpd.example", [("MaxTVRating", ["TV-14"]), ("zip", ["12345", "34567"])]),
                                    ("a&amp;b&lt;c&gt;\U0001F600", [("name", ["\u00e9&amp;\U0001F600"])]),
                                    ("subscriber-0042", [(f"attribute-{i}", [f"value-{i}"]) for i in range(20)])):
            for pretty in (False, True):
                unsigned = pathlib.Path(work) / "unsigned.xml"
                unsigned.write_text(response(name_id, attributes, pretty))
                seeds.add(unsigned.read_bytes())
                for flags in ([], ["--assertion"], ["--assertion-only"]):
                    signed = subprocess.run([args.tvekit, "saml", "sign", "--private-key", FIXTURES / "leaf.pkcs8.pem", "--cert",
                                             FIXTURES / "leaf.cert.pem", *flags, unsigned], check=True, capture_output=True).stdout
                    seeds.add(signed)
                    seeds.add(base64.encodebytes(signed))  # Base64 SAMLResponse, wrapped
    vectors = ROOT / "TestVectors/saml/saml_test.json"
    if vectors.exists():
        for case in json.loads(vectors.read_text())["tests"]:
            if "input" in case and len(case["input"]) <= 60000:
                seeds.add(case["input"].encode())
    for fuzzer in ("FuzzSAMLParser", "FuzzC14N", "FuzzSAMLVerify"):
        out = ROOT / "Fuzz/Corpus" / fuzzer
        out.mkdir(parents=True, exist_ok=True)
        for seed in seeds:
            (out / hashlib.sha256(seed).hexdigest()[:16]).write_bytes(seed)
    print(f"wrote {len(seeds)} seeds to each of Fuzz/Corpus/FuzzSAMLParser, FuzzC14N, FuzzSAMLVerify")


if __name__ == "__main__":
    main()

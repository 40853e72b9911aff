#!/usr/bin/env python3
"""Writes the seed corpus of the FuzzV2Requests fuzzer: valid inputs for each selector of V2Fuzzing.

Selector byte, then: 0 an AP-Device-Identifier value, 1 X-Device-Info, 2 AP-Partner-Framework-Status,
3 AP-TempPass-Identity, 4 a percent-encoded header value (as the generated client sends it), 5 a request for the
generated server (operation byte, flags byte, then NUL-separated first path parameter, second, query, header lines,
body). Each seed is one file named by the first 16 hex digits of its SHA-256, prefixed `seed-` so that a reduced
corpus copied beside it stays apart. Standard library only:  python3 Fuzz/make-v2-corpus.py
"""
import base64
import hashlib
import json
import pathlib
import urllib.parse

root = pathlib.Path(__file__).resolve().parent.parent
out = root / "Fuzz/Corpus/FuzzV2Requests"
out.mkdir(parents=True, exist_ok=True)


def b64(obj, pad=True):
    text = base64.b64encode(json.dumps(obj, separators=(",", ":")).encode()).decode()
    return text if pad else text.rstrip("=")


device_identifiers = [
    "fingerprint " + base64.b64encode(hashlib.sha256(b"device-1").digest()).decode(),
    "fingerprint " + base64.b64encode(b"device-2").decode().rstrip("="),
    "FINGERPRINT " + base64.b64encode(bytes(range(48))).decode(),
]
device_info = {
    "primaryHardwareType": "SetTopBox", "model": "TVEKit Test Box", "vendor": "TVEKit", "osName": "tvOS",
    "osVendor": "Apple", "connectionPort": "443",
}
device_infos = [
    b64(device_info),
    b64(dict(device_info, connectionPort=443, version="17.1", screen={"width": 1920}), pad=False),
    b64(dict(device_info, applicationId="com.example/app", ip="203.0.113.7")),
]
partner_statuses = [
    b64({"frameworkPermissionInfo": {"accessStatus": "granted"},
         "frameworkProviderInfo": {"id": "Example", "expirationDate": "1767225600000"}}),
    b64({"frameworkPermissionInfo": {"accessStatus": "denied"}, "frameworkProviderInfo": {"expirationDate": 1767225600000}}),
    b64({"frameworkPermissionInfo": {"accessStatus": "notDetermined", "error": "x"}}),
    b64({}),
]
temp_pass_identities = [
    b64({"email": "viewer@example.com"}),
    b64({"email": "Viewer@Example.com", "phone": "+1 555 0100"}, pad=False),
]

seeds = set()
for value in device_identifiers:
    seeds.add(b"\x00" + value.encode())
for value in device_infos:
    seeds.add(b"\x01" + value.encode())
for value in partner_statuses:
    seeds.add(b"\x02" + value.encode())
for value in temp_pass_identities:
    seeds.add(b"\x03" + value.encode())
for value in device_identifiers + device_infos + partner_statuses[:1] + temp_pass_identities[:1]:
    seeds.add(b"\x04" + urllib.parse.quote(value, safe="").encode())

# The generated server's operations, in the order registerHandlers registers them, with a typical body.
FORM, JSON, NO_BODY, ACCEPT_JSON = 0x00, 0x01, 0x08, 0x10
device_headers = (
    f"AP-Device-Identifier: {device_identifiers[0]}\nX-Device-Info: {device_infos[0]}\n"
    "Authorization: Bearer fuzz\nUser-Agent: TVEKit/1.0\n"
)
form_session = "mvpd=Example&domainName=tvekit.test&redirectUrl=adobepass%3A%2F%2Fios.app"
operations = [
    (0, NO_BODY, "fuzz", "ABC1234", "", "User-Agent: TVEKit/1.0\n", ""),
    (1, NO_BODY | ACCEPT_JSON, "fuzz", "", "profile=default", device_headers, ""),
    (2, JSON | ACCEPT_JSON, "fuzz", "Example", "", device_headers + "AP-Visitor-Identifier: v-1\n",
     '{"resources":["news","<rss><channel><title>x</title></channel></rss>"]}'),
    (3, JSON, "fuzz", "Example", "", device_headers + f"AP-TempPass-Identity: {temp_pass_identities[0]}\n",
     '{"resources":["news"]}'),
    (4, NO_BODY, "fuzz", "Example", "redirectUrl=https%3A%2F%2Fapp.example%2Fdone", device_headers, ""),
    (5, NO_BODY | ACCEPT_JSON, "fuzz", "", "", device_headers + f"AP-Partner-Framework-Status: {partner_statuses[0]}\n", ""),
    (6, NO_BODY, "fuzz", "ABC1234", "", "AP-Visitor-Identifier: v-1\n", ""),
    (7, FORM, "fuzz", "Apple", "", device_headers + f"AP-Partner-Framework-Status: {partner_statuses[0]}\n",
     "SAMLResponse=" + urllib.parse.quote(base64.b64encode(b"<samlp:Response/>").decode(), safe="")),
    (8, NO_BODY, "fuzz", "Example", "", device_headers + "Adobe-Subject-Token: x.y.z\nAD-Service-Token: t\n", ""),
    (9, FORM | ACCEPT_JSON, "fuzz", "", "", device_headers, form_session),
    (10, FORM, "fuzz", "Apple", "", device_headers + f"AP-Partner-Framework-Status: {partner_statuses[0]}\n",
     "domainName=tvekit.test&redirectUrl=adobepass%3A%2F%2Fios.app"),
    (11, NO_BODY, "fuzz", "ABC1234", "", device_headers, ""),
    (12, FORM, "fuzz", "ABC1234", "", device_headers, "mvpd=Example"),
    (9, FORM, "fuzz", "", "", "0: " + device_identifiers[1] + "\n1: " + device_infos[1] + "\n", form_session),
]
for operation, flags, first, second, query, headers, body in operations:
    rest = b"\x00".join(part.encode() for part in (first, second, query, headers, body))
    seeds.add(bytes([5, operation, flags]) + rest)

for seed in sorted(seeds):
    (out / ("seed-" + hashlib.sha256(seed).hexdigest()[:16])).write_bytes(seed)
print(f"wrote {len(seeds)} seeds to {out.relative_to(root)}")

"""Schemathesis hooks of `make conformance` (scripts/conformance.py): the contract each run checks, and the values a
request needs from the sandbox that Adobe's contracts cannot say.

The contract is Adobe's file (OpenAPI/adobe/) with TVEKit's overlay (OpenAPI/overlays/: the JSON Merge Patch the Swift
code is generated from, each change explained in OpenAPI/README.md), plus the corrections below (a 429 on every
operation; the session times held to Adobe's strings, which the overlay loosens for TVEKit's client). The overlay holds
the correction the first hand-run needed: `ErrorInformation.message` is a string (Adobe's file references `Message`, an
empty object schema; Adobe's samples and its service's answers carry a string).

The values: `serviceProvider` is always the sandbox's requestor; `mvpd`, `partner` and `code` are mostly the sandbox's
MVPDs, its one partner and the sessions scripts/conformance.py opened, and otherwise the generated value (an unknown
one, whose answer must conform too); body fields, a logout's `redirectUrl` and the optional single-sign-on and
TempPass headers get valid values half of the time, so that the answers of success are checked as well as those of
the errors. The server URL and the credentials of every call (access token, `AP-Device-Identifier`, `X-Device-Info`)
are in scripts/conformance.toml.
"""

import hashlib
import json
import os
import random
import sys

import schemathesis

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from openapi import ROOT, merge_patch  # noqa: E402 - scripts/openapi.py applies the overlays to the Swift code too

REQUESTOR = "tvekit-sandbox"
MVPDS = ["SandboxCable", "SandboxSSO", "SandboxTempPass", "SandboxPromoPass"]
PARTNERS = ["Apple"]

# Corrections of the contracts for this run, beyond TVEKit's overlay, by contract title, each with its reason.
#
# 429 on every operation: Adobe's throttling page (Pass Authentication, "Throttling mechanism") puts /o/client/register,
# /o/client/token and /api/v2/ behind a token bucket that answers 429 Too Many Requests; neither file lists a 429.
# The local service provider answers 429 for the same throttle (off in the sandbox) and for its guessing limits and
# per-client quotas (FORMATS.md, section 6b), with the body of the contract's other errors: ErrorInformation (REST API
# v2) or OAuthError (DCR, TVEKit's overlay).
TOO_MANY_REQUESTS = {
    "REST API": {"description": "Too Many Requests (Adobe's throttling mechanism).",
                 "content": {"application/json": {"schema": {"$ref": "#/components/schemas/ErrorInformation"}}}},
    "DCR API": {"description": "Too Many Requests (Adobe's throttling mechanism).",
                "content": {"application/json": {"schema": {"$ref": "#/components/schemas/OAuthError"}}}},
}


# Session times as strings, as Adobe's file has them: TVEKit's overlay lets them be strings or integers so that
# TVEKit's client reads either (integers are v2's habit elsewhere); the server writes Adobe's strings, and is held to them.
SESSION_TIMES = {
    schema: {"properties": {name: {"anyOf": None, "type": "string"} for name in ("notBefore", "notAfter")}}
    for schema in ("SessionResponse", "SessionStatusResponse")
}


def corrected(title, contract):
    for operations in contract["paths"].values():
        for operation in operations.values():
            if isinstance(operation, dict) and "responses" in operation:
                operation["responses"].setdefault("429", TOO_MANY_REQUESTS[title])
    if title == "REST API":
        contract = merge_patch(contract, {"components": {"schemas": SESSION_TIMES}})
    return contract


@schemathesis.hook
def before_load_schema(context, raw_schema):
    title = raw_schema.get("info", {}).get("title")
    overlay_name = {"REST API": "restApiV2.json", "DCR API": "dcrApi.json"}[title]
    with open(os.path.join(ROOT, "OpenAPI", "overlays", overlay_name)) as file:
        contract = merge_patch(raw_schema, json.load(file))
    contract = corrected(title, contract)
    raw_schema.clear()
    raw_schema.update(contract)


def _environment_list(name):
    return [value for value in os.environ.get(name, "").split(",") if value]


# The sandbox's valid values, by where they go. A generated request keeps its own value or takes one of these, drawn
# by a generator seeded from the request itself (so that a run is the same for the same schemathesis seed): the
# answers of success are checked as well as those of the errors. Path parameters that name something take the
# sandbox's value 19 times in 20 (an unknown code counts against the service provider's guessing limit, 20 per address
# in 15 minutes, then 429 for every code), body fields, query parameters and the optional single-sign-on and TempPass
# headers every other time (each such header is dropped, kept as generated or given the valid value).
PATH = {
    "mvpd": MVPDS,
    "partner": PARTNERS,
    # Sessions scripts/conformance.py opened: one with the MVPD missing, one signed in, complete ones to resume.
    "code": _environment_list("TVEKIT_CONFORMANCE_CODES"),
}
# Complete sessions that only `authenticate` is given, each good for 5 logins in 10 minutes (then 429): a session that
# another operation resumed could name a TempPass, and a code `authenticate` refuses counts as a guess.
AUTHENTICATE_CODES = _environment_list("TVEKIT_CONFORMANCE_LOGIN_CODES")
FIELDS = {
    "mvpd": MVPDS,
    "domainName": ["adobe.com", "tvekit.test"],
    "redirectUrl": ["https://adobe.com", f"/activate/{REQUESTOR}/done"],
    "resources": [["news"], ["news", "sports"], ["premium-sports"]],
}
DCR_FIELDS = {
    "/client/register": {"software_statement": "TVEKIT_CONFORMANCE_STATEMENT"},
    "/client/token": {"client_id": "TVEKIT_CONFORMANCE_CLIENT_ID", "client_secret": "TVEKIT_CONFORMANCE_CLIENT_SECRET"},
}
# Valid values of the optional headers (the two JWTs are signed by scripts/conformance.py with the sandbox's keys).
HEADERS = {
    "Adobe-Subject-Token": "TVEKIT_CONFORMANCE_SUBJECT_TOKEN",
    "AD-Service-Token": "TVEKIT_CONFORMANCE_SERVICE_TOKEN",
    "AP-Partner-Framework-Status": "TVEKIT_CONFORMANCE_PARTNER_STATUS",
    "AP-TempPass-Identity": "TVEKIT_CONFORMANCE_TEMPPASS_IDENTITY",
}


@schemathesis.hook
def map_case(context, case):
    """Every phase's requests: the sandbox's requestor, and the sandbox's values drawn in (see above)."""
    seed = hashlib.sha256(repr((case.method, case.path, case.path_parameters, case.query, dict(case.headers or {}),
                                case.body)).encode()).digest()
    draw = random.Random(seed)
    path = case.operation.path
    if case.path_parameters:
        for name in case.path_parameters:
            known = AUTHENTICATE_CODES if (path.startswith("/authenticate/") and name == "code") else PATH.get(name)
            if name == "serviceProvider":
                case.path_parameters[name] = REQUESTOR
            elif known and draw.random() < 0.95:
                case.path_parameters[name] = draw.choice(known)
    if isinstance(case.body, dict):
        for name, environment in DCR_FIELDS.get(path, {}).items():
            if draw.random() < 0.5:
                case.body[name] = os.environ[environment]
        if path == "/client/token" and draw.random() < 0.5:
            case.body["grant_type"] = "client_credentials"
        for name, values in FIELDS.items():
            if name in case.body and draw.random() < 0.5:
                case.body[name] = draw.choice(values)
    if case.query and "redirectUrl" in case.query and draw.random() < 0.5:
        case.query["redirectUrl"] = draw.choice(FIELDS["redirectUrl"])
    if case.headers:
        for name, environment in HEADERS.items():
            if name in case.headers:
                choice = draw.random()
                if choice < 0.4:
                    del case.headers[name]
                elif choice < 0.8:
                    case.headers[name] = os.environ[environment]
    return case

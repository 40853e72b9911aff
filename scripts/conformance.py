#!/usr/bin/env python3
"""Checks the local service provider's answers against Adobe's contracts (`make conformance`): schemathesis (PyPI,
pinned in scripts/conformance-requirements.txt, installed into .venv-conformance/ when missing) sends generated
requests, valid and invalid, to every operation of Adobe's REST API v2 and DCR files, and checks that each answer's
status code is one the operation documents, with the documented content type, headers and schema, and that none is a
server error.

    scripts/conformance.py [--no-build] [--seed N] [--max-examples N]

`tvekit serve` (built with `swift build --product tvekit` unless --no-build) runs the sandbox on a free loopback port
with its keys in a temporary folder. The script registers an app with the sandbox's software statement (DCR) and gets
an access token; opens a session without an MVPD and ten complete ones (Sandbox Cable), signs viewer in through one
of them (the IdP's form and SAML post, without a browser), and signs the two single-sign-on JWTs with the sandbox's
keys, so that sessions, profiles, decisions and logouts answer with data too; then runs schemathesis once per
contract with scripts/conformance.toml (settings, server URL, credentials) and scripts/conformance_hooks.py (the
contracts' corrections, the sandbox's values), with a fixed seed, and prints each operation's answers by status. The
server is stopped whatever happens; the exit status is 1 when a check failed, and schemathesis prints each failure
(the operation, a curl command that repeats the request, the answer and what the contract says). Traffic goes only to
127.0.0.1. JUnit reports and the server's log of the last run: .build/conformance/.
"""

import argparse
import base64
import collections
import hashlib
import html
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.parse
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCRIPTS = os.path.join(ROOT, "scripts")
VENV = os.path.join(ROOT, ".venv-conformance")
REQUIREMENTS = os.path.join(SCRIPTS, "conformance-requirements.txt")
TVEKIT = os.path.join(ROOT, ".build", "debug", "tvekit")
# The JUnit reports and tvekit serve's log of the last run (schemathesis's own files too).
ARTIFACTS = os.path.join(ROOT, ".build", "conformance")
SP = "tvekit-sandbox"
# (label, Adobe's file, the path prefix of its operations in tvekit serve's log)
CONTRACTS = [("REST API v2", "restApiV2.json", "/api/v2/"), ("DCR", "dcrApi.json", "/o/")]
# A bound on each contract's run: schemathesis stops (and the run fails) past it.
CONTRACT_SECONDS = 300
DEVICE_INFO = base64.b64encode(json.dumps({
    "primaryHardwareType": "SetTopBox", "model": "TVEKit Conformance", "vendor": "TVEKit", "osName": "tvOS",
    "osVendor": "Apple", "connectionPort": "443"}).encode()).decode()
DEVICE = "fingerprint " + base64.b64encode(b"tvekit-conformance-device").decode()
# No proxy from the environment: every request goes straight to 127.0.0.1.
OPENER = urllib.request.build_opener(urllib.request.ProxyHandler({}), urllib.request.HTTPRedirectHandler())
NO_REDIRECT = urllib.request.build_opener(urllib.request.ProxyHandler({}), type("NoRedirect", (urllib.request.HTTPRedirectHandler,), {
    "redirect_request": lambda *_: None})())


class Failed(Exception):
    pass


def log(message):
    print(f"conformance: {message}", flush=True)


def ensure_venv():
    """The virtualenv with the pinned schemathesis; (re)installed when missing or when the pins changed."""
    with open(REQUIREMENTS, "rb") as file:
        pins = hashlib.sha256(file.read()).hexdigest()
    marker = os.path.join(VENV, "installed-requirements.sha256")
    python = os.path.join(VENV, "bin", "python")
    if os.path.exists(marker) and os.path.exists(python):
        with open(marker) as file:
            if file.read().strip() == pins:
                return
    log(f"installing the pinned schemathesis into {os.path.relpath(VENV, ROOT)}/")
    shutil.rmtree(VENV, ignore_errors=True)
    created = subprocess.run([sys.executable, "-m", "venv", VENV], stdin=subprocess.DEVNULL)
    if created.returncode != 0:
        raise Failed(f"{sys.executable} -m venv failed (on Debian: apt-get install python3-venv)")
    pip = [python, "-m", "pip", "install", "--quiet", "--disable-pip-version-check", "--require-virtualenv"]
    if subprocess.run(pip + ["--requirement", REQUIREMENTS], stdin=subprocess.DEVNULL).returncode != 0:
        raise Failed(f"pip could not install {os.path.relpath(REQUIREMENTS, ROOT)}")
    with open(marker, "w") as file:
        file.write(pins + "\n")


def http(method, url, form=None, payload=None, headers=None, opener=OPENER):
    """One exchange with the loopback server: (status, headers, body bytes); HTTP errors are answers."""
    if urllib.parse.urlsplit(url).hostname != "127.0.0.1":
        raise Failed(f"refusing to send a request beyond 127.0.0.1: {url}")
    headers = dict(headers or {})
    body = None
    if form is not None:
        body, headers["Content-Type"] = urllib.parse.urlencode(form).encode(), "application/x-www-form-urlencoded"
    elif payload is not None:
        body, headers["Content-Type"] = json.dumps(payload).encode(), "application/json"
    request = urllib.request.Request(url, data=body, method=method, headers=headers)
    try:
        with opener.open(request, timeout=20) as response:
            return response.status, response.headers, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.headers, error.read()


def expect_json(what, answer, status):
    code, _, body = answer
    if code != status:
        raise Failed(f"{what}: answered {code}, not {status}: {body[:300]!r}")
    return json.loads(body)


def hidden_fields(page):
    return {name: html.unescape(value) for name, value in re.findall(r'<input type="hidden" name="([^"]+)" value="([^"]*)"', page)}


class Sandbox:
    """tvekit serve on a free loopback port, and the state the run starts from."""

    def __init__(self, work):
        self.work, self.keys, self.log_path = work, os.path.join(work, "keys"), os.path.join(work, "serve.log")
        self.process, self.base = None, None

    def start(self):
        with open(self.log_path, "wb") as output:
            self.process = subprocess.Popen(
                [TVEKIT, "serve", "--host", "127.0.0.1", "--port", "0", "--keys-out", self.keys],
                stdout=output, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, start_new_session=True, cwd=ROOT)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise Failed(f"tvekit serve exited with {self.process.returncode}")
            with open(self.log_path, errors="replace") as output:
                found = re.search(r"listening on (http://127\.0\.0\.1:\d+)", output.read())
            if found:
                self.base = found.group(1)
                return
            time.sleep(0.2)
        raise Failed("tvekit serve did not start within 60 s")

    def stop(self):
        """SIGTERM to the server's process group, then SIGKILL after 5 s."""
        for sig in (signal.SIGTERM, signal.SIGKILL) if self.process else ():
            try:
                os.killpg(self.process.pid, sig)
                self.process.wait(timeout=5)
                return
            except (ProcessLookupError, subprocess.TimeoutExpired):
                pass

    def prepare(self):
        """Registers an app and gets its access token; opens a session to resume and one that viewer signs in."""
        with open(os.path.join(self.keys, "software-statement.jwt")) as file:
            statement = file.read().strip()
        client = expect_json("POST /o/client/register", http(
            "POST", self.base + "/o/client/register", payload={"software_statement": statement},
            headers={"X-Device-Info": DEVICE_INFO}), 201)
        token = expect_json("POST /o/client/token", http("POST", self.base + "/o/client/token", form={
            "client_id": client["client_id"], "client_secret": client["client_secret"],
            "grant_type": "client_credentials"}), 201)
        headers = {"Authorization": f"Bearer {token['access_token']}", "AP-Device-Identifier": DEVICE, "X-Device-Info": DEVICE_INFO}
        sessions = f"{self.base}/api/v2/{SP}/sessions"
        open_code = expect_json("POST sessions (no MVPD)", http(
            "POST", sessions, form={"domainName": "adobe.com", "redirectUrl": "https://adobe.com"}, headers=headers), 200)["code"]
        complete = [expect_json("POST sessions (SandboxCable)", http("POST", sessions, form={
            "mvpd": "SandboxCable", "domainName": "tvekit.test", "redirectUrl": f"/activate/{SP}/done"}, headers=headers), 200)["code"]
            for _ in range(10)]
        self.sign_in(complete[0])
        profiles = expect_json("GET profiles", http("GET", f"{self.base}/api/v2/{SP}/profiles", headers=headers), 200)
        if "SandboxCable" not in (profiles.get("profiles") or {}):
            raise Failed(f"viewer's sign-in left no SandboxCable profile: {profiles}")
        now = int(time.time())
        partner_status = {"frameworkPermissionInfo": {"accessStatus": "granted"},
                          "frameworkProviderInfo": {"id": "sandbox-sso", "expirationDate": str((now + 86_400) * 1000)}}
        return {
            "TVEKIT_CONFORMANCE_URL": self.base, "TVEKIT_CONFORMANCE_TOKEN": token["access_token"],
            "TVEKIT_CONFORMANCE_DEVICE": DEVICE, "TVEKIT_CONFORMANCE_DEVICE_INFO": DEVICE_INFO,
            "TVEKIT_CONFORMANCE_CODES": ",".join([open_code, *complete[:4]]),
            "TVEKIT_CONFORMANCE_LOGIN_CODES": ",".join(complete[4:]),
            "TVEKIT_CONFORMANCE_STATEMENT": statement,
            "TVEKIT_CONFORMANCE_CLIENT_ID": client["client_id"], "TVEKIT_CONFORMANCE_CLIENT_SECRET": client["client_secret"],
            "TVEKIT_CONFORMANCE_SUBJECT_TOKEN": self.jwt("platform-identity-private.pem", "conformance-viewer", now),
            "TVEKIT_CONFORMANCE_SERVICE_TOKEN": self.jwt("service-token-private.pem", "conformance-viewer", now),
            "TVEKIT_CONFORMANCE_PARTNER_STATUS": base64.b64encode(json.dumps(partner_status).encode()).decode(),
            "TVEKIT_CONFORMANCE_TEMPPASS_IDENTITY": base64.b64encode(b'{"email":"viewer@tvekit.test"}').decode(),
        }

    def jwt(self, key, subject, now):
        """A single-sign-on JWT (RS256, signed with openssl) as the sandbox's identity services would issue it."""
        def part(data):
            return base64.urlsafe_b64encode(data).rstrip(b"=").decode()
        # The issuer the sandbox trusts for both methods (TVESandbox's SandboxKeys.identityIssuer).
        claims = {"iss": "identity.tvekit.test", "sub": subject, "aud": "Adobe", "iat": now, "exp": now + 3600}
        signing_input = part(b'{"alg":"RS256","typ":"JWT"}') + "." + part(json.dumps(claims, separators=(",", ":")).encode())
        signed = subprocess.run(["openssl", "dgst", "-sha256", "-sign", os.path.join(self.keys, key)],
                                input=signing_input.encode(), capture_output=True, check=False)
        if signed.returncode != 0:
            raise Failed(f"openssl could not sign with {key}: {signed.stderr.decode(errors='replace').strip()}")
        return signing_input + "." + part(signed.stdout)

    def sign_in(self, code):
        """The browser's part of a login, without a browser: authenticate, the IdP's form, the SAML post."""
        status, headers, _ = http("GET", f"{self.base}/api/v2/authenticate/{SP}/{code}", opener=NO_REDIRECT)
        if status != 302 or not headers.get("Location"):
            raise Failed(f"GET authenticate/{SP}/{code}: answered {status}, not a redirect")
        status, _, page = http("GET", urllib.parse.urljoin(self.base, headers["Location"]))
        action = re.search(r'<form method="post" action="([^"]+)"', page.decode())
        if status != 200 or not action:
            raise Failed(f"the login page answered {status} without a form")
        form = {**hidden_fields(page.decode()), "username": "viewer", "password": "sandbox-password"}
        status, _, page = http("POST", urllib.parse.urljoin(self.base, html.unescape(action.group(1))), form=form)
        action = re.search(r'<form method="post" action="([^"]+)"', page.decode())
        if status != 200 or not action:
            raise Failed(f"the sign-in answered {status} without the SAML form")
        status, _, _ = http("POST", urllib.parse.urljoin(self.base, html.unescape(action.group(1))),
                            form=hidden_fields(page.decode()), opener=NO_REDIRECT)
        if status not in (200, 302):
            raise Failed(f"the assertion consumer answered {status}")


MARK = "/conformance-mark/"


def requests_in_log(path, index, prefix):
    """{(method, route): Counter of statuses} of the requests under `prefix` that tvekit serve logged between its
    `index`th mark and the next (scripts/conformance.py marks the start and end of each run with a request to
    MARK/<n>; the server writes its log in blocks, so the log is read once the server has stopped)."""
    table, mark = {}, -1
    with open(path, errors="replace") as output:
        for line in output.read().splitlines():
            parts = line.split()
            if len(parts) != 4 or not parts[2].isdigit():
                continue
            if parts[1].startswith(MARK):
                mark += 1
            elif mark == index and parts[1].startswith(prefix):
                table.setdefault((parts[0], parts[1]), collections.Counter())[parts[2]] += 1
    return table


def print_requests(label, table):
    """The table, with the requests to undocumented methods and paths (405, 404) summed on one line."""
    other = collections.Counter()
    for key in [key for key, statuses in table.items() if set(statuses) <= {"404", "405"}]:
        other.update(table.pop(key))
    total = sum(sum(statuses.values()) for statuses in table.values()) + sum(other.values())
    log(f"{label}: {total} requests answered, by operation and status:")
    rows = sorted(table.items(), key=lambda item: (item[0][1], item[0][0]))
    for (method, route), statuses in rows + ([(("*", "other methods and paths"), other)] if other else []):
        counts = ", ".join(f"{status} x{count}" for status, count in sorted(statuses.items()))
        print(f"    {method:6} {route}: {counts}", flush=True)
    return total


# Credentials in schemathesis's output (a request or an answer it prints for a failure): schemathesis filters headers
# and JSON bodies, not form bodies nor answers; these are the sandbox's, void once the server stops, but never printed.
SECRET = re.compile(r"((?:client_secret|access_token|refresh_token)\\?[\"']?\s*[:=]\s*\\?[\"']?)[^\"'&\s\\]+")


def run_schemathesis(label, contract, environment, arguments):
    """One contract's run, its output printed with credentials filtered: schemathesis's exit status (0: all passed)."""
    command = [
        os.path.join(VENV, "bin", "schemathesis"), "--config-file", os.path.join(SCRIPTS, "conformance.toml"), "run",
        os.path.join(ROOT, "OpenAPI", "adobe", contract), "--seed", str(arguments.seed), "--report", "junit",
        "--report-junit-path", os.path.join(ARTIFACTS, f"{os.path.splitext(contract)[0]}.junit.xml"), "--no-color",
    ]
    if arguments.max_examples:
        command += ["--max-examples", str(arguments.max_examples)]
    log(f"{label}: schemathesis run OpenAPI/adobe/{contract} --seed {arguments.seed}")
    process = subprocess.Popen(command, env=environment, cwd=ARTIFACTS, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True, errors="replace", start_new_session=True)
    timer = threading.Timer(CONTRACT_SECONDS, lambda: os.killpg(process.pid, signal.SIGKILL))
    timer.start()
    try:
        for line in process.stdout:
            print(SECRET.sub(r"\1[Filtered]", line), end="", flush=True)
        status = process.wait()
    finally:
        timer.cancel()
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
    if status == -signal.SIGKILL:
        raise Failed(f"{label}: schemathesis ran past {CONTRACT_SECONDS} s and was stopped")
    return status


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--no-build", action="store_true", help="use .build/debug/tvekit as it is")
    parser.add_argument("--seed", type=int, default=int(os.environ.get("CONFORMANCE_SEED", "20261129")),
                        help="schemathesis's seed (CONFORMANCE_SEED, or a fixed one: every run sends the same requests)")
    parser.add_argument("--max-examples", type=int, help="test cases per operation and phase (conformance.toml's by default)")
    arguments = parser.parse_args()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    started = time.monotonic()
    failed, passed, runs = [], [], []
    shutil.rmtree(ARTIFACTS, ignore_errors=True)
    os.makedirs(ARTIFACTS)
    work = tempfile.mkdtemp(prefix="tvekit-conformance-")
    sandbox = Sandbox(work)
    try:
        ensure_venv()
        if not arguments.no_build:
            subprocess.run(["swift", "build", "--product", "tvekit"], cwd=ROOT, check=True, stdin=subprocess.DEVNULL)
        if not os.access(TVEKIT, os.X_OK):
            raise Failed(f"{os.path.relpath(TVEKIT, ROOT)} is missing (swift build --product tvekit)")
        sandbox.start()
        log(f"tvekit serve at {sandbox.base}")
        environment = {**os.environ, **sandbox.prepare(), "SCHEMATHESIS_HOOKS": os.path.join(SCRIPTS, "conformance_hooks.py"),
                       "PYTHONDONTWRITEBYTECODE": "1"}
        for label, contract, _ in CONTRACTS:
            http("GET", f"{sandbox.base}{MARK}{len(runs)}")
            contract_started = time.monotonic()
            status = run_schemathesis(label, contract, environment, arguments)
            runs.append((label, status, time.monotonic() - contract_started))
            (passed if status == 0 else failed).append(label if status == 0 else f"{label}: schemathesis found failures (above)")
        http("GET", f"{sandbox.base}{MARK}{len(runs)}")
    except Failed as error:
        failed.append(str(error))
    except subprocess.CalledProcessError as error:
        failed.append(f"{error.cmd[0]} exited {error.returncode}")
    except BaseException as error:  # noqa: BLE001 - an interruption: the server is still stopped, and it is said
        failed.append(f"interrupted: {type(error).__name__}: {error}")
    finally:
        sandbox.stop()
        if os.path.exists(sandbox.log_path):
            shutil.copy(sandbox.log_path, os.path.join(ARTIFACTS, "serve.log"))
        shutil.rmtree(work, ignore_errors=True)
    for index, (label, status, seconds) in enumerate(runs):
        total = print_requests(label, requests_in_log(os.path.join(ARTIFACTS, "serve.log"), index, CONTRACTS[index][2]))
        log(f"{label}: {total} requests in {seconds:.0f} s, schemathesis exited {status}")
    for failure in failed:
        print(f"FAILED: {failure}", file=sys.stderr)
    log(f"finished in {time.monotonic() - started:.0f} s; reports and tvekit serve's log in {os.path.relpath(ARTIFACTS, ROOT)}/")
    print(f"conformance: {len(passed)} passed, {len(failed)} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

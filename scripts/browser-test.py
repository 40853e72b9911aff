#!/usr/bin/env python3
"""A real-browser test of the REST API v2 second-screen login (`make browser-test`): `tvekit serve` on loopback,
chromedriver and headless Chromium; twice (JavaScript on, then off) a TV creates a v2 session, Chromium types its code
on the activation page (a wrong code first), picks Sandbox Cable and signs in as viewer up to the done page, and the
TV finds the profile by code, authorizes `news` and checks the token with `tvekit token verify`. Standard library only
(WebDriver over urllib); every wait is bounded, every process started here is stopped at the end whatever happens,
traffic goes only to 127.0.0.1. Screenshots: .build/browser-test/."""

import base64
import contextlib
import ctypes
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TVEKIT = os.path.join(ROOT, ".build", "debug", "tvekit")
SHOTS = os.path.join(ROOT, ".build", "browser-test")
SP = "tvekit-sandbox"
WAIT = 20.0
ELEMENT = "element-6066-11e4-a52e-4f735466cecf"
DEVICE_INFO_HEADER = base64.b64encode(json.dumps({
    "primaryHardwareType": "SetTopBox", "model": "TVEKit Browser Test", "vendor": "TVEKit", "osName": "tvOS",
    "osVendor": "Apple", "connectionPort": "443"}).encode()).decode()
# No proxy from the environment: every request goes straight to 127.0.0.1.
OPENER = urllib.request.build_opener(urllib.request.ProxyHandler({}))


class StepFailed(Exception):
    pass


class WebDriverError(Exception):
    """An error answer of chromedriver: a wait retries it (a page may be changing), a step fails on it."""


def http(method, url, body=None, headers=None, timeout=30.0):
    """One HTTP exchange with a loopback server: (status, body bytes). HTTP errors are answers, not exceptions."""
    if urllib.parse.urlsplit(url).hostname != "127.0.0.1":
        raise StepFailed(f"refusing to send a request beyond 127.0.0.1: {url}")
    request = urllib.request.Request(url, data=body, method=method, headers=headers or {})
    try:
        with OPENER.open(request, timeout=timeout) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()


def http_json(method, url, expect, form=None, payload=None, headers=None):
    """A call whose answer must have status `expect` and a JSON body; `form` or `payload` (JSON) is the body."""
    headers = dict(headers or {})
    body = None
    if form is not None or payload is not None:
        body = urllib.parse.urlencode(form).encode() if form is not None else json.dumps(payload).encode()
        headers["Content-Type"] = "application/x-www-form-urlencoded" if form is not None else "application/json"
    status, data = http(method, url, body, headers)
    if status != expect:
        raise StepFailed(f"{method} {urllib.parse.urlsplit(url).path} answered {status}, not {expect}: {data[:400]!r}")
    return json.loads(data or b"{}")


def until(what, probe, timeout=WAIT, interval=0.2):
    """probe() until it returns something truthy, at most `timeout` seconds."""
    deadline = time.monotonic() + timeout
    last = None
    while time.monotonic() < deadline:
        try:
            result = probe()
            if result:
                return result
        except StepFailed:
            raise
        except Exception as error:  # noqa: BLE001 - a probe that fails now may succeed later
            last = error
        time.sleep(interval)
    raise StepFailed(f"timed out after {timeout:.0f} s waiting for {what}" + (f" (last error: {last})" if last else ""))


def start(arguments, log_path):
    """A process in its own process group (so that it and its children can be stopped together), output to a file."""
    with open(log_path, "wb") as log:
        return subprocess.Popen(arguments, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                start_new_session=True, cwd=ROOT)


def started_process(what, process, probe):
    """Waits until probe() answers something truthy; fails at once when the process exits."""
    def ready():
        if process.poll() is not None:
            raise StepFailed(f"{what} exited with {process.returncode}")
        return probe()
    return until(f"{what} to be ready", ready)


def stop(process):
    """SIGTERM to the process group, then SIGKILL (after 5 s at most) for what is left of the group."""
    for sig in (signal.SIGTERM, signal.SIGKILL) if process else ():
        try:
            os.killpg(process.pid, sig)
            process.wait(timeout=5)
        except (ProcessLookupError, subprocess.TimeoutExpired):
            pass


def become_subreaper():
    """Orphaned descendants (Chromium's helpers) become this process's children: reaped at the end, not zombies."""
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None, use_errno=True).prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER


def reap():
    with contextlib.suppress(ChildProcessError):
        while os.waitpid(-1, os.WNOHANG)[0] != 0:
            pass


def cmdline(pid):
    with contextlib.suppress(OSError), open(f"/proc/{pid}/cmdline", "rb") as file:
        return file.read().decode(errors="replace")
    return ""


def stop_browsers(profile_root):
    """Kills, by id, any Chromium process still running with a profile under `profile_root` (and its group)."""
    for _ in range(3):
        reap()
        found = [pid for pid in map(int, filter(str.isdigit, os.listdir("/proc"))) if profile_root in cmdline(pid)]
        if not found:
            return
        for pid in found:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                if os.getpgid(pid) != os.getpgrp():
                    os.killpg(os.getpgid(pid), signal.SIGKILL)
                os.kill(pid, signal.SIGKILL)
        time.sleep(0.3)


class Browser:
    """A WebDriver session of chromedriver (W3C protocol over HTTP)."""

    def __init__(self, driver_url, profile, javascript):
        self.driver_url = driver_url
        # Headless, as root (no sandbox), nothing fetched in the background, every host name but 127.0.0.1 unresolvable.
        arguments = [
            "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", f"--user-data-dir={profile}",
            "--window-size=900,700", "--no-first-run", "--no-default-browser-check", "--disable-background-networking",
            "--disable-component-update", "--disable-sync", "--disable-extensions", "--disable-default-apps",
            "--no-proxy-server", "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1", "--password-store=basic",
            "--disable-features=Translate,OptimizationHints,MediaRouter,AutofillServerCommunication,PasswordLeakDetection"]
        # JavaScript off as a user would turn it off: the content setting (2 = block) for every site.
        prefs = {"credentials_enable_service": False, "profile.managed_default_content_settings.javascript": 1 if javascript else 2}
        options = {"args": arguments, "prefs": prefs, "binary": shutil.which("chromium") or "/usr/bin/chromium"}
        capabilities = {"browserName": "chrome", "pageLoadStrategy": "normal", "goog:chromeOptions": options,
                        "goog:loggingPrefs": {"browser": "ALL"},
                        "timeouts": {"pageLoad": int(WAIT * 1000), "script": int(WAIT * 1000), "implicit": 0}}
        self.session = self.call("POST", "/session", {"capabilities": {"alwaysMatch": capabilities}})["sessionId"]

    def call(self, method, path, payload=None):
        if path != "/session":
            path = f"/session/{self.session}{path}"
        body = json.dumps(payload).encode() if payload is not None else None
        status, data = http(method, self.driver_url + path, body, {"Content-Type": "application/json"}, timeout=WAIT + 10)
        value = json.loads(data or b"{}").get("value")
        if status != 200:
            error = value.get("error") if isinstance(value, dict) else value
            message = (value.get("message") or "").splitlines()[0] if isinstance(value, dict) else ""
            raise WebDriverError(f"{method} {path.split('/', 3)[-1]}: {status} {error}: {message}")
        return value

    def element_text(self, css):
        return self.call("GET", f"/element/{self.find(css)}/text")

    def find(self, selector, using="css selector"):
        return self.call("POST", "/element", {"using": using, "value": selector})[ELEMENT]

    def type(self, selector, text):
        element = self.find(selector)
        self.call("POST", f"/element/{element}/clear", {})
        self.call("POST", f"/element/{element}/value", {"text": text})

    def click(self, selector, using="css selector"):
        self.call("POST", f"/element/{self.find(selector, using)}/click", {})

    def displayed(self, selector):
        return self.call("GET", f"/element/{self.find(selector)}/displayed")

    def wait_for_page(self, title, path):
        def page():
            return self.call("GET", "/title"), urllib.parse.urlsplit(self.call("GET", "/url")).path
        try:
            until(f"the page '{title}' at {path}", lambda: page() == (title, path))
        except StepFailed as error:
            raise StepFailed("{}; the browser shows '{}' at {}".format(error, *page())) from None

    def screenshot(self, name):
        os.makedirs(SHOTS, exist_ok=True)
        target = os.path.join(SHOTS, name)
        with open(target, "wb") as file:
            file.write(base64.b64decode(self.call("GET", "/screenshot")))
        return os.path.relpath(target, ROOT)

    def console_errors(self):
        """Console errors other than failed loads (the wrong code's 400): CSP violations, script errors."""
        entries = self.call("POST", "/se/log", {"type": "browser"})
        return [e["message"] for e in entries if e.get("level") == "SEVERE" and e.get("source") != "network"]

    def close(self):
        with contextlib.suppress(Exception):  # the process group is killed afterwards anyway
            self.call("DELETE", "")


class Test:
    def __init__(self, keys):
        self.base, self.keys, self.passed = "", keys, 0

    def step(self, name, action):
        started = time.monotonic()
        try:
            result = action()
        except Exception as error:  # noqa: BLE001 - any error fails the step, named
            detail = error if isinstance(error, StepFailed) else f"{type(error).__name__}: {error}"
            raise StepFailed(f"{name}: {detail}") from None
        self.passed += 1
        print(f"pass: {name} ({time.monotonic() - started:.1f} s)", flush=True)
        return result

    def register(self):
        with open(os.path.join(self.keys, "software-statement.jwt")) as file:
            statement = file.read().strip()
        client = http_json("POST", self.base + "/o/client/register", 201, payload={"software_statement": statement},
                           headers={"X-Device-Info": DEVICE_INFO_HEADER})
        token = http_json("POST", self.base + "/o/client/token", 201, form={
            "client_id": client["client_id"], "client_secret": client["client_secret"], "grant_type": "client_credentials"})
        if token.get("token_type", "").lower() != "bearer" or not token.get("access_token"):
            raise StepFailed(f"no bearer access token in {token}")
        return token["access_token"]

    def create_session(self, headers):
        form = {"domainName": "tvekit.test", "redirectUrl": f"/activate/{SP}/done"}
        session = http_json("POST", f"{self.base}/api/v2/{SP}/sessions", 200, form=form, headers=headers)
        if session.get("actionName") != "resume" or session.get("missingParameters") != ["mvpd"] or not session.get("code"):
            raise StepFailed(f"expected a session to resume with the mvpd missing and a code, got {session}")
        return session["code"]

    def wrong_code(self, browser, suffix):
        browser.call("POST", "/url", {"url": f"{self.base}/activate/{SP}"})
        browser.wait_for_page("Activate your TV", f"/activate/{SP}")
        browser.type("input[name=code]", "NOPE42")
        browser.click("form button[type=submit]")
        until("the wrong-code message", lambda: "That code is not valid" in browser.element_text("body"))
        browser.wait_for_page("Activate your TV", f"/activate/{SP}")
        if not browser.displayed("input[name=code]"):
            raise StepFailed("the error page does not offer the code form again")
        browser.screenshot(f"wrong-code{suffix}.png")

    def browser_login(self, browser, code, javascript, suffix):
        browser.call("POST", "/url", {"url": f"{self.base}/activate/{SP}"})
        browser.wait_for_page("Activate your TV", f"/activate/{SP}")
        browser.type("input[name=code]", code)
        browser.click("form button[type=submit]")
        browser.wait_for_page("Choose your TV provider", f"/activate/{SP}")
        browser.click("//label[normalize-space(.)='Sandbox Cable']/input[@type='radio']", using="xpath")
        browser.click("form button[type=submit]")
        browser.wait_for_page("Sandbox Cable: sign in", "/idp/SandboxCable/login")
        browser.type("input[name=username]", "viewer")
        browser.type("input[name=password]", "sandbox-password")
        shots = [browser.screenshot(f"login{suffix}.png")]
        browser.click("form button[type=submit]")
        if javascript:
            # The IdP's SAML form submits itself by script: no click.
            browser.wait_for_page("Signed in", f"/activate/{SP}/done")
        else:
            # Without script the form stays, and its <noscript> Continue button (a real element only when scripting is
            # off: the proof JavaScript is disabled) posts it.
            browser.wait_for_page("Sandbox Cable: signing in", "/idp/SandboxCable/login")
            if not browser.displayed("noscript button[type=submit]"):
                raise StepFailed("the <noscript> Continue button is not shown")
            shots.append(browser.screenshot(f"continue{suffix}.png"))
            browser.click("noscript button[type=submit]")
            browser.wait_for_page("Signed in", f"/activate/{SP}/done")
        if "You are signed in" not in browser.element_text("body"):
            raise StepFailed("the done page does not say 'You are signed in'")
        shots.append(browser.screenshot(f"done{suffix}.png"))
        errors = browser.console_errors()
        if errors:
            raise StepFailed(f"the browser's console has errors (CSP?): {errors}")
        return shots

    def poll_profile(self, code, headers):
        def profile():
            answer = http_json("GET", f"{self.base}/api/v2/{SP}/profiles/code/{code}", 200, headers=headers)
            return (answer.get("profiles") or {}).get("SandboxCable")
        found = until("the SandboxCable profile of the code", profile, interval=0.25)
        if found.get("type") != "regular":
            raise StepFailed(f"the profile is not a regular one: {found}")

    def authorize(self, headers):
        answer = http_json("POST", f"{self.base}/api/v2/{SP}/decisions/authorize/SandboxCable", 200,
                           payload={"resources": ["news"]}, headers=headers)
        decision = (answer.get("decisions") or [{}])[0]
        token = (decision.get("token") or {}).get("serializedToken")
        if decision.get("authorized") is not True or not token:
            raise StepFailed(f"the decision is not authorized with a token: {decision}")
        return token

    def verify(self, token):
        command = [TVEKIT, "token", "verify", "--cert", os.path.join(self.keys, "media-token-public.pem"),
                   "--requestor", SP, "--resource", "news", token]
        result = subprocess.run(command, capture_output=True, text=True, timeout=WAIT, stdin=subprocess.DEVNULL)
        if result.returncode != 0 or "VALID_TOKEN" not in result.stdout:
            raise StepFailed(f"tvekit token verify exited {result.returncode}: {result.stdout.strip()} {result.stderr.strip()}")

    def run(self, driver_url, profile, bearer, javascript):
        label = "JavaScript on" if javascript else "JavaScript off"
        suffix = "" if javascript else "-nojs"
        device = base64.b64encode(f"browser-test-tv{suffix}".encode()).decode()
        headers = {"Authorization": f"Bearer {bearer}", "AP-Device-Identifier": f"fingerprint {device}",
                   "X-Device-Info": DEVICE_INFO_HEADER}
        code = self.step(f"[{label}] TV: create a v2 session without an MVPD", lambda: self.create_session(headers))
        browser = self.step(f"[{label}] start Chromium", lambda: Browser(driver_url, profile, javascript))
        try:
            self.step(f"[{label}] browser: a wrong code shows the error", lambda: self.wrong_code(browser, suffix))
            shots = self.step(f"[{label}] browser: code, Sandbox Cable, viewer sign-in, done page",
                              lambda: self.browser_login(browser, code, javascript, suffix))
            print("      screenshots: " + ", ".join(shots), flush=True)
        finally:
            browser.close()
        self.step(f"[{label}] TV: the profile appears for the code", lambda: self.poll_profile(code, headers))
        token = self.step(f"[{label}] TV: authorize news", lambda: self.authorize(headers))
        self.step(f"[{label}] tvekit token verify: VALID_TOKEN", lambda: self.verify(token))


def main():
    started = time.monotonic()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    become_subreaper()
    for tool, hint in ((TVEKIT, "build it: swift build --product tvekit"), ("chromedriver", "apt-get install chromium-driver")):
        if not shutil.which(tool):
            print(f"browser test: {tool} not found ({hint})\nbrowser test: 0 passed, 1 failed", file=sys.stderr)
            return 1
    work = tempfile.mkdtemp(prefix="tvekit-browser-test-")
    keys, serve_log = os.path.join(work, "keys"), os.path.join(work, "serve.log")
    server = driver = None
    test = Test(keys)
    failure = None
    try:
        server = start([TVEKIT, "serve", "--host", "127.0.0.1", "--port", "0", "--keys-out", keys], serve_log)

        def serving():  # serve prints the address it bound (--port 0): wait for it, then for an answer
            with open(serve_log, errors="replace") as log:
                found = re.search(r"listening on (http://127\.0\.0\.1:\d+)", log.read())
            return found and http("GET", f"{found.group(1)}/activate/{SP}", timeout=5)[0] == 200 and found.group(1)
        test.base = test.step("start tvekit serve", lambda: started_process("tvekit serve", server, serving))
        print(f"      tvekit serve at {test.base}", flush=True)

        with socket.socket() as probe:  # a free port for chromedriver, which cannot report the one it bound
            probe.bind(("127.0.0.1", 0))
            driver_port = probe.getsockname()[1]
        driver_url = f"http://127.0.0.1:{driver_port}"
        driver = start(["chromedriver", f"--port={driver_port}", "--allowed-ips=127.0.0.1",
                        f"--log-path={os.path.join(work, 'chromedriver.log')}"], os.path.join(work, "chromedriver.out"))
        ready = lambda: json.loads(http("GET", driver_url + "/status", timeout=5)[1])["value"].get("ready")  # noqa: E731
        test.step("start chromedriver", lambda: started_process("chromedriver", driver, ready))
        bearer = test.step("register an app (DCR) and get an access token", test.register)
        test.run(driver_url, os.path.join(work, "profile-js"), bearer, javascript=True)
        test.run(driver_url, os.path.join(work, "profile-nojs"), bearer, javascript=False)
    except StepFailed as error:
        failure = str(error)
    except BaseException as error:  # noqa: BLE001 - an error or an interruption: still stop everything, and say so
        failure = f"{'error' if isinstance(error, Exception) else 'interrupted'}: {type(error).__name__}: {error}"
    finally:
        stop(driver)
        stop_browsers(work)
        stop(server)
        reap()
    for name in ("serve.log", "chromedriver.log") if failure else ():
        if os.path.exists(os.path.join(work, name)):
            with open(os.path.join(work, name), errors="replace") as log:
                print(f"--- last lines of {name}:\n" + "\n".join(log.read().splitlines()[-15:]), file=sys.stderr)
    if failure:
        print(f"FAILED: {failure}", file=sys.stderr)
    shutil.rmtree(work, ignore_errors=True)
    print(f"browser test finished in {time.monotonic() - started:.1f} s")
    print(f"browser test: {test.passed} passed, {1 if failure else 0} failed")
    return 1 if failure else 0


if __name__ == "__main__":
    sys.exit(main())

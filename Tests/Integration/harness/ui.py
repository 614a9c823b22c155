"""The web UI tests' shared pieces (test_ui_security.py, test_ui_browser.py): the rules their
proxies run, a client for the control listener as a browser and `faultline ui` use it (`UI`,
`Session`), curl requests held in the background, and `hold_one`. Their fixtures, `ui_proxy` and
`background_curl`, are in conftest.py."""
import http.client
import json
import os
import re
import subprocess
from dataclasses import dataclass, field

from harness.clients import clean_env, run
from harness.waiting import wait_until

RULES = """// The web UI tests' rules: a hold only the control API releases, and a forced 401 the UI can switch off.
{
  scenario: "ui",
  description: "Written by test_ui_security.py and test_ui_browser.py.",
  rules: [
    { name: "hold-gate", match: { method: "GET", path: "/echo", query: { hold: "gate" } },
      actions: [{ hold: { name: "gate" } }] },
    { name: "force-401", match: { path: "/echo", query: { force: "401" } },
      actions: [{ respond: { status: 401, json: { error: "invalid_token" } } }] },
  ],
}
"""

ADDRESS = re.compile(r"^http://127\.0\.0\.1:(?P<port>\d+)/ui/login\?ticket=(?P<ticket>[0-9a-f]{64})$")


# -- talking to the control listener ------------------------------------------------------------


@dataclass
class Answer:
    status: int
    headers: list
    body: bytes

    def header(self, name):
        """Every value of header `name` (case-insensitive)."""
        return [value for key, value in self.headers if key.lower() == name.lower()]

    def json(self):
        return json.loads(self.body)

    def __repr__(self):
        return f"<{self.status} {self.header('content-type')} {self.body[:200]!r}>"


def ask(port, method, path, host=None, headers=None, body=None, timeout=10):
    """One call to 127.0.0.1:`port` with exactly the Host (default `127.0.0.1:port`) and headers given."""
    fields = {"Host": host if host is not None else f"127.0.0.1:{port}", **(headers or {})}
    payload = None
    if body is not None:
        payload = json.dumps(body).encode()
        fields["Content-Type"] = "application/json"
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        connection.request(method, path, body=payload, headers=fields)
        response = connection.getresponse()
        return Answer(response.status, response.getheaders(), response.read())
    finally:
        connection.close()


@dataclass
class Session:
    """A UI session as a browser holds it."""

    name: str
    value: str
    set_cookie: str

    @property
    def header(self):
        return {"Cookie": f"{self.name}={self.value}"}


@dataclass
class UI:
    """The web UI of one proxy: its control port and token (from its control file) and `faultline ui`."""

    binary: str
    control_file: str
    port: int = 0
    token: str = ""
    sessions: list = field(default_factory=list)

    def __post_init__(self):
        with open(self.control_file, encoding="utf-8") as handle:
            control = json.load(handle)
        self.port = int(control["url"].rsplit(":", 1)[1])
        self.token = control["token"]

    @property
    def origin(self):
        return f"http://127.0.0.1:{self.port}"

    @property
    def bearer(self):
        return {"Authorization": f"Bearer {self.token}"}

    def address(self):
        """What `faultline ui` prints (checked: one line, exit 0, nothing on stderr)."""
        done = run([self.binary, "ui", "--control-file", self.control_file], timeout=15)
        assert done.returncode == 0, f"faultline ui exited {done.returncode}: {done.stderr.decode(errors='replace')}"
        assert done.stderr == b"", done.stderr
        line = done.stdout.decode()
        assert line.endswith("\n") and line.count("\n") == 1, f"faultline ui should print one line: {line!r}"
        match = ADDRESS.match(line.strip())
        assert match, f"not a UI address: {line!r}"
        assert int(match["port"]) == self.port, f"the address names another port than the control file's: {line!r}"
        return line.strip()

    def login(self, address=None):
        """Opens a fresh address as a browser would and returns the Session its 303 sets."""
        address = address or self.address()
        answer = ask(self.port, "GET", address.removeprefix(self.origin))
        assert answer.status == 303, answer
        assert answer.header("Location") == ["/ui/"], answer.headers
        (set_cookie,) = answer.header("Set-Cookie")
        name, _, rest = set_cookie.partition("=")
        value = rest.split(";", 1)[0]
        session = Session(name, value, set_cookie)
        self.sessions.append(session)
        return session

    def api(self, method, path, session, origin="same", host=None, body=None):
        """A call under /ui/api/ with the session's cookie; `origin="same"` sends the page's own
        Origin, None none at all, anything else that value."""
        headers = dict(session.header)
        if origin == "same":
            headers["Origin"] = f"http://{host or f'127.0.0.1:{self.port}'}"
        elif origin is not None:
            headers["Origin"] = origin
        return ask(self.port, method, "/ui/api" + path, host=host, headers=headers, body=body)

    def v1(self, method, path, body=None):
        """A script's call: the bearer token on /v1/*."""
        return ask(self.port, method, path, headers=self.bearer, body=body)

    def holds(self):
        answer = self.v1("GET", "/v1/holds")
        assert answer.status == 200, answer
        return answer.json()

    def rule(self, rule_id):
        answer = self.v1("GET", "/v1/rules")
        assert answer.status == 200, answer
        (rule,) = [rule for rule in answer.json() if rule["id"] == rule_id]
        return rule


# -- clients through the proxy ------------------------------------------------------------------


class BackgroundCurl:
    """curl through the proxy in a child process, with a deadline; `result()` waits for it."""

    def __init__(self, proxy_url, url, max_time=40):
        self.process = subprocess.Popen(
            ["curl", "-sS", "--max-time", str(max_time), "-x", proxy_url, "-w", "\n@status=%{http_code}", url],
            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=clean_env())
        self.max_time = max_time

    def running(self):
        return self.process.poll() is None

    def result(self, timeout=None):
        """(curl exit status, HTTP status or 0, body bytes, stderr text)."""
        try:
            out, err = self.process.communicate(timeout=timeout or self.max_time + 5)
        except subprocess.TimeoutExpired:
            self.stop()
            raise AssertionError("curl did not finish in time")
        body, _, status = out.rpartition(b"\n@status=")
        return self.process.returncode, int(status or 0), body, err.decode(errors="replace")

    def stop(self):
        if self.process.poll() is None:
            self.process.kill()
            self.process.communicate(timeout=10)


def curl_through(proxy, url):
    """(HTTP status, body) of one curl request through the proxy's forward listener."""
    done = run(["curl", "-sS", "--max-time", "15", "-x", proxy.forward.url, "-w", "\n@status=%{http_code}", url],
               timeout=20)
    assert done.returncode == 0, done.stderr.decode(errors="replace")
    body, _, status = done.stdout.rpartition(b"\n@status=")
    return int(status), body


def hold_one(proxy, origin, background_curl, marker):
    """Starts a curl whose request the `gate` hold stops; returns (curl, hold)."""
    client = background_curl(proxy.forward.url, f"{origin.url}/echo?hold=gate&n={marker}")

    def held():
        assert client.running(), f"curl ended before its request was held: {client.result()}"
        return [hold for hold in proxy.ui.holds() if f"n={marker}" in hold["summary"]]

    (hold,) = wait_until(held, 10, f"the hold of request {marker} in GET /v1/holds")
    assert hold["name"] == "gate", hold
    return client, hold


def session_proxy(start_faultline, binary, backend_url, folder, control_file, *more):
    """A reverse proxy in front of `backend_url` (`faultline backend`) running the rules in
    `folder`, with its own control file and the `more` options of `faultline run`; `.ui` is its UI."""
    proxy = start_faultline("--listen", "127.0.0.1:0", "--mode", f"reverse:{backend_url}", "--rules", folder,
                            "--control-file", control_file, *more)
    wait_until(lambda: os.path.exists(control_file) and os.path.getsize(control_file), 10, "the control file")
    proxy.ui = UI(binary, control_file)
    return proxy

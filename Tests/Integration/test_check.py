"""`faultline check` on real traces: the proxy (with an auth profile, so requests carry roles,
credentials and lineage events) records a small OAuth-style session against a Python origin,
is stopped with SIGTERM, and the checker reads what it wrote. A correct session passes; a token
used after logout is caught as logout-boundary; a damaged trace is unusable input (exit 2)."""
import json
import secrets
import threading
import xml.etree.ElementTree as ElementTree
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs

import pytest

from harness.clients import run
from harness.http_clients import requests_session

PROFILE = """
{
  login: { method: "POST", path: "/oauth/token", body: { form: { grant_type: "password" } } },
  refresh: { method: "POST", path: "/oauth/token", body: { form: { grant_type: "refresh_token" } } },
  logout: { method: "POST", path: "/logout" },
  credentials: {
    request: [
      { header: "Authorization", scheme: "Bearer", kind: "access" },
      { cookie: "session", kind: "session" },
      { form: "refresh_token", kind: "refresh" },
    ],
    response: [
      { json: "/access_token", kind: "access" },
      { json: "/refresh_token", kind: "refresh" },
      { setCookie: "session", kind: "session" },
    ],
  },
  idempotencyHeader: "Idempotency-Key",
}
"""

CLAUSES = [
    "single-flight-refresh", "no-stale-refresh", "bounded-retry", "logout-boundary", "account-isolation",
    "no-reactivation", "exactly-once", "dependency-respected", "replay-safe-retry",
    "retry-after-respected",
]


class TokenOrigin:
    """A minimal OAuth-style backend: login issues an access token, a refresh token and a session
    cookie; refresh rotates them; logout revokes; /v1/messages needs the current access token."""

    def __init__(self):
        self.lock = threading.Lock()
        self.current = {}  # access token -> refresh token, for live sessions
        self.refresh_tokens = {}  # refresh token -> access token it goes with
        origin = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def _body(self):
                length = int(self.headers.get("Content-Length") or 0)
                return self.rfile.read(length) if length else b""

            def _answer(self, status, payload=None, cookie=None):
                body = json.dumps(payload or {}).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                if cookie is not None:
                    self.send_header("Set-Cookie", cookie)
                self.end_headers()
                self.wfile.write(body)

            def _bearer(self):
                value = self.headers.get("Authorization", "")
                return value[len("Bearer "):] if value.startswith("Bearer ") else None

            def do_POST(self):
                body = self._body()
                if self.path == "/oauth/token":
                    form = {key: values[0] for key, values in parse_qs(body.decode()).items()}
                    with origin.lock:
                        if form.get("grant_type") == "password":
                            access, refresh = origin.issue()
                            self._answer(200, {"access_token": access, "refresh_token": refresh},
                                         cookie=f"session={secrets.token_urlsafe(12)}; Path=/; HttpOnly")
                            return
                        old_access = origin.refresh_tokens.pop(form.get("refresh_token"), None)
                        if old_access is None:
                            self._answer(400, {"error": "invalid_grant"})
                            return
                        origin.current.pop(old_access, None)
                        access, refresh = origin.issue()
                    self._answer(200, {"access_token": access, "refresh_token": refresh})
                elif self.path == "/logout":
                    with origin.lock:
                        refresh = origin.current.pop(self._bearer(), None)
                        origin.refresh_tokens.pop(refresh, None)
                    self._answer(200, {"ok": True}, cookie="session=; Max-Age=0; Path=/")
                elif self.path == "/upload":
                    status = 200 if self._bearer() in origin.current else 401
                    self._answer(status, {"length": len(body)})
                else:
                    self._answer(404)

            def do_GET(self):
                with origin.lock:
                    valid = self._bearer() in origin.current
                self._answer(200 if valid else 401, {"messages": []} if valid else {"error": "invalid_token"})

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def issue(self):
        access, refresh = secrets.token_urlsafe(16), secrets.token_urlsafe(16)
        self.current[access] = refresh
        self.refresh_tokens[refresh] = access
        return access, refresh

    def expire(self, access):
        """The access token stops working (its refresh token still does)."""
        with self.lock:
            self.current.pop(access, None)


@pytest.fixture
def token_origin():
    origin = TokenOrigin()
    origin.thread.start()
    yield origin
    origin.server.shutdown()
    origin.server.server_close()


@pytest.fixture
def profiled_proxy(start_faultline, tmp_path):
    rules = tmp_path / "rules"
    rules.mkdir()
    (rules / "auth-profile.json5").write_text(PROFILE)
    return start_faultline("--listen", "127.0.0.1:0", "--rules", str(rules))


def check(binary, *args):
    done = run([binary, "check", *args], timeout=30)
    return done.returncode, done.stdout.decode(errors="replace"), done.stderr.decode(errors="replace")


def login(session, origin):
    response = session.post(f"{origin.url}/oauth/token", data={"grant_type": "password", "username": "a"}, timeout=15)
    assert response.status_code == 200, response.text
    tokens = response.json()
    return tokens["access_token"], tokens["refresh_token"]


def get_messages(session, origin, access):
    return session.get(f"{origin.url}/v1/messages", headers={"Authorization": f"Bearer {access}"}, timeout=15)


def test_a_correct_session_passes(faultline_binary, profiled_proxy, token_origin):
    session = requests_session(profiled_proxy.forward.url)
    access, refresh = login(session, token_origin)
    assert get_messages(session, token_origin, access).status_code == 200
    token_origin.expire(access)
    assert get_messages(session, token_origin, access).status_code == 401
    renewed = session.post(f"{token_origin.url}/oauth/token",
                           data={"grant_type": "refresh_token", "refresh_token": refresh}, timeout=15)
    assert renewed.status_code == 200
    access = renewed.json()["access_token"]
    assert get_messages(session, token_origin, access).status_code == 200  # the one retry
    upload = session.post(f"{token_origin.url}/upload", data=b"x" * 2048,
                          headers={"Authorization": f"Bearer {access}", "Idempotency-Key": "u-1"}, timeout=15)
    assert upload.status_code == 200
    assert session.post(f"{token_origin.url}/logout", headers={"Authorization": f"Bearer {access}"},
                        timeout=15).status_code == 200

    trace = profiled_proxy.trace()  # SIGTERM, exit 0, every line parses
    kinds = {event["event"] for event in trace.events}
    assert {"lineage.login", "lineage.refresh", "lineage.logout"} <= kinds, kinds

    code, out, err = check(faultline_binary, profiled_proxy.trace_file)
    assert code == 0, f"{out}\n{err}"
    assert out.splitlines()[0].startswith("contract: built-in default ("), out
    assert "PASSED" in out.splitlines()[1]

    code, out, _ = check(faultline_binary, profiled_proxy.trace_file, "--format", "json")
    assert code == 0
    report = json.loads(out)
    assert report["passed"] is True
    assert report["lineages"] == ["L1"]
    assert report["traceProblems"] == []
    # The profile put roles and lineages in the trace, so the credential clauses were judged.
    for clause in ("single-flight-refresh", "no-stale-refresh", "logout-boundary", "no-reactivation",
                   "account-isolation", "bounded-retry", "replay-safe-retry"):
        assert clause in report["clausesChecked"], report


def test_a_token_used_after_logout_is_caught(faultline_binary, profiled_proxy, token_origin, tmp_path):
    session = requests_session(profiled_proxy.forward.url)
    access, _ = login(session, token_origin)
    assert session.post(f"{token_origin.url}/logout", headers={"Authorization": f"Bearer {access}"},
                        timeout=15).status_code == 200
    assert get_messages(session, token_origin, access).status_code == 401  # the broken client
    profiled_proxy.trace()

    code, out, _ = check(faultline_binary, profiled_proxy.trace_file)
    assert code == 1, out
    assert "FAILED: 1 violation of logout-boundary" in out.splitlines()[1]
    assert "GET /v1/messages was sent at seq" in out and "after L1's logout at seq" in out
    assert "✗▶" in out and "─▶" in out
    assert access not in out

    code, out, _ = check(faultline_binary, profiled_proxy.trace_file, "--format", "json")
    assert code == 1
    violations = json.loads(out)["violations"]
    assert [violation["clause"] for violation in violations] == ["logout-boundary"]
    assert violations[0]["lineage"] == "L1"

    report_path = tmp_path / "report.xml"
    code, out, err = check(faultline_binary, profiled_proxy.trace_file, "--format", "junit",
                           "--output", str(report_path))
    assert code == 1 and out == "" and "FAILED" in err
    root = ElementTree.parse(report_path).getroot()
    suite = root.find("testsuite[@name='session-boundary-contract']")
    cases = suite.findall("testcase")
    assert [case.get("name") for case in cases] == CLAUSES
    failed = [case.get("name") for case in cases if case.find("failure") is not None]
    assert failed == ["logout-boundary"]


def test_a_damaged_trace_is_unusable_input(faultline_binary, profiled_proxy, token_origin, tmp_path):
    session = requests_session(profiled_proxy.forward.url)
    login(session, token_origin)
    profiled_proxy.trace()
    with open(profiled_proxy.trace_file) as handle:
        lines = handle.read().splitlines()
    assert len(lines) >= 4
    lines[2] = lines[2][: len(lines[2]) // 2]  # a line cut in the middle
    damaged = tmp_path / "damaged.jsonl"
    damaged.write_text("\n".join(lines) + "\n")
    code, out, err = check(faultline_binary, str(damaged))
    assert code == 2
    assert out == ""
    assert err.startswith(f"{damaged}:3: "), err

    # A gap (a line removed) still reads, but the verdict says the trace cannot be trusted.
    gapped = tmp_path / "gapped.jsonl"
    gapped.write_text("\n".join(lines[:2] + lines[3:]) + "\n")
    code, out, _ = check(faultline_binary, str(gapped), "--format", "json")
    assert code == 1
    assert [problem["kind"] for problem in json.loads(out)["traceProblems"]] == ["seq-gap"]


def test_a_trace_without_profile_data_checks_what_it_can(faultline_binary, faultline, token_origin):
    session = requests_session(faultline.forward.url)
    access, _ = login(session, token_origin)
    assert get_messages(session, token_origin, access).status_code == 200
    faultline.trace()
    code, out, _ = check(faultline_binary, faultline.trace_file, "--format", "json")
    assert code == 0, out
    report = json.loads(out)
    skipped = [entry["clause"] for entry in report["clausesSkipped"]]
    assert "logout-boundary" in skipped and "single-flight-refresh" in skipped
    assert "bounded-retry" in report["clausesChecked"]

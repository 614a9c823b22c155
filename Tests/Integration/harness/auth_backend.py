"""A fake OAuth-2-style auth backend on loopback, for the example rule files (Rules/*.json5).

It behaves like the backends of the reference articles, strictly enough that a client mistake
shows up as a server-side symptom:

  POST /oauth/token   form grant_type=password&username=U: a new credential family (lineage):
                      JSON {access_token, refresh_token, token_type, expires_in} and
                      Set-Cookie: session=...; Path=/; HttpOnly.
                      form grant_type=refresh_token&refresh_token=R: R must be the family's
                      current refresh token; the pair rotates (the old access token stops working).
                      Presenting an older refresh token is taken as theft (RFC 6819 §5.2.2.3,
                      OAuth 2.0 Security BCP §4.14): the whole family is revoked, 400 invalid_grant.
                      A revoked or unknown family: 400 invalid_grant.
  POST /logout        revokes the family of the presented Bearer token or session cookie (any token
  POST /sso/logout    the family ever had) and clears the cookie (Set-Cookie: session=; Max-Age=0)
                      unless the backend was made with clear_cookie_on_logout=False. Two paths, as
                      an app with a second (single sign-on) logout endpoint has.
  POST /oauth/revoke  RFC 7009 token revocation: form token=T, optional token_type_hint. Always 200
                      once a token is given (§2.2: also for an unknown or already invalid token),
                      400 invalid_request without one (§2.2.1). A refresh token revokes its whole
                      family, access tokens included (§2.1); an access token only itself. Each
                      call is recorded in `revocations()` as (kind found or None, hint).
  GET /v1/messages, /v1/avatar, /v1/count
                      business endpoints: 401 with WWW-Authenticate: Bearer error="invalid_token"
                      (RFC 6750 §3.1) unless the Bearer token is its family's current access token.
                      /v1/avatar answers 16 KiB of bytes, so transport faults can cut it mid-body.
  POST /jobs/{id}/complete
                      a completion callback receiver: counts calls per job id, answers
                      {"job", "calls"}.
  POST /upload        reads the whole body and answers its length and sha256; counts uploads.

The test asks for counters with `calls(path)`, `callbacks(job)`, `uploads()`, `revocations()` and
`family_of(token)`;
every request is also logged in arrival order (`log`). Tokens are random, so none of them appears
in a URL or a test name, and the trace redaction tests elsewhere stay meaningful.
"""
import hashlib
import json
import re
import secrets
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

from .python_origin import pattern_bytes

AVATAR = pattern_bytes(16 * 1024, seed=42)
CALLBACK_PATH = re.compile(r"^/jobs/(?P<job>[^/]+)/complete$")


@dataclass
class Family:
    """One login and the credentials it led to: what the proxy calls a credential lineage."""

    number: int
    user: str
    access: str
    refresh: str
    session: str
    revoked: bool = False
    revoked_because: str | None = None
    every_token: set = field(default_factory=set)  # everything ever issued to this family
    rotations: int = 0
    revoked_access: set = field(default_factory=set)  # access tokens revoked one by one (RFC 7009)


class AuthBackend:
    """The backend in a daemon thread; `url` is its base URL (http://127.0.0.1:PORT)."""

    def __init__(self, clear_cookie_on_logout=True):
        self.clear_cookie_on_logout = clear_cookie_on_logout
        self._lock = threading.Lock()
        self._changed = threading.Condition(self._lock)
        self._families = []
        self._by_token = {}
        self._calls = {}
        self._callbacks = {}
        self._uploads = []
        self._revocations = []
        self.log = []  # (method, path, status) in the order requests were handled
        backend = self

        class Handler(AuthHandler):
            pass

        Handler.backend = backend
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.port = self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever, name="auth-backend", daemon=True)

    def start(self):
        self.thread.start()
        return self

    def stop(self):
        self.server.shutdown()
        self.server.server_close()

    @property
    def url(self):
        return f"http://127.0.0.1:{self.port}"

    # -- what the test asks ----------------------------------------------------------------

    def calls(self, path):
        """How many requests for `path` (exact, without query) were handled (counted as the answer
        is about to be sent)."""
        with self._lock:
            return self._calls.get(path, 0)

    def callbacks(self, job):
        """How many completion callbacks job `job` received."""
        with self._lock:
            return self._callbacks.get(str(job), 0)

    def wait_for_callbacks(self, job, count, timeout=10):
        """Waits (with a deadline) until job `job` has received at least `count` callbacks; returns
        the number. Fails the test when the deadline passes."""
        with self._changed:
            arrived = self._changed.wait_for(lambda: self._callbacks.get(str(job), 0) >= count, timeout)
            seen = self._callbacks.get(str(job), 0)
        assert arrived, f"job {job} received {seen} callback(s) within {timeout}s, expected {count}"
        return seen

    def uploads(self):
        """[(length, sha256)] of the uploads received whole."""
        with self._lock:
            return list(self._uploads)

    def revocations(self):
        """[(kind, hint)] per revocation request: kind is "access" or "refresh" when the token was
        one of a family (whatever the hint said), None when it was unknown."""
        with self._lock:
            return list(self._revocations)

    def family_of(self, token):
        """The family (lineage) a token was ever issued to, or None."""
        with self._lock:
            return self._by_token.get(token)

    def families(self):
        with self._lock:
            return list(self._families)

    # -- token bookkeeping (called by the handler under the lock) --------------------------

    def _issue(self, family):
        family.access = "at_" + secrets.token_urlsafe(24)
        family.refresh = "rt_" + secrets.token_urlsafe(24)
        for token in (family.access, family.refresh):
            family.every_token.add(token)
            self._by_token[token] = family

    def login(self, user):
        with self._lock:
            family = Family(len(self._families) + 1, user, "", "", "sess_" + secrets.token_urlsafe(18))
            self._issue(family)
            family.every_token.add(family.session)
            self._by_token[family.session] = family
            self._families.append(family)
            return family.access, family.refresh, family.session

    def refresh(self, refresh_token):
        """The rotated (access, refresh) pair, or None with the family revoked or unknown."""
        with self._lock:
            family = self._by_token.get(refresh_token)
            if family is None or family.revoked:
                return None
            if refresh_token != family.refresh:
                family.revoked = True
                family.revoked_because = "refresh token reused"
                return None
            self._issue(family)
            family.rotations += 1
            return family.access, family.refresh

    def logout(self, tokens):
        with self._lock:
            for token in tokens:
                family = self._by_token.get(token)
                if family is not None and not family.revoked:
                    family.revoked = True
                    family.revoked_because = "logout"
                    return family
            return None

    def revoke(self, token, hint):
        """RFC 7009 §2.1: the hint only speeds up the search, so every token type is looked at."""
        with self._lock:
            family = self._by_token.get(token)
            kind = None
            if family is not None:
                kind = "refresh" if token.startswith("rt_") else "access" if token.startswith("at_") else "session"
                if kind == "access":
                    family.revoked_access.add(token)
                elif not family.revoked:
                    family.revoked = True
                    family.revoked_because = "revocation"
            self._revocations.append((kind, hint))

    def authorized(self, access_token):
        with self._lock:
            family = self._by_token.get(access_token)
            return (family is not None and not family.revoked and family.access == access_token
                    and access_token not in family.revoked_access)

    def _count(self, path, method, status):
        with self._changed:
            self._calls[path] = self._calls.get(path, 0) + 1
            self.log.append((method, path, status))
            self._changed.notify_all()

    def _callback(self, job):
        with self._changed:
            self._callbacks[job] = self._callbacks.get(job, 0) + 1
            self._changed.notify_all()
            return self._callbacks[job]

    def _uploaded(self, length, sha):
        with self._changed:
            self._uploads.append((length, sha))
            self._changed.notify_all()


class AuthHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "FaultlineFakeAuth/1"
    backend = None  # set per server

    def log_message(self, format, *args):  # keep pytest output clean
        pass

    def handle_one_request(self):
        try:
            super().handle_one_request()
        except ConnectionError:
            self.close_connection = True  # a proxy fault cut the connection; nothing to answer

    # -- plumbing --------------------------------------------------------------------------

    def read_body(self):
        """The whole request body (Content-Length or chunked)."""
        if "chunked" in (self.headers.get("Transfer-Encoding") or "").lower():
            pieces = []
            while True:
                size = int(self.rfile.readline(4096).split(b";")[0].strip(), 16)
                if size == 0:
                    while self.rfile.readline(8192) not in (b"\r\n", b"\n", b""):
                        pass
                    return b"".join(pieces)
                pieces.append(self.rfile.read(size))
                self.rfile.readline(4)
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        if len(body) != length:
            raise ConnectionError("request body cut short")
        return body

    def answer(self, status, body=b"", content_type="application/json", extra=()):
        if isinstance(body, (dict, list)):
            body = json.dumps(body).encode()
        # Counted before the answer leaves, so a test that has seen the answer (or the proxy
        # acting on it) finds the count up to date.
        self.backend._count(self.path_only, self.command, status)
        self.send_response(status)
        if body or status not in (204, 304):
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
        for name, value in extra:
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(body)

    @property
    def path_only(self):
        return urlsplit(self.path).path

    def bearer(self):
        value = self.headers.get("Authorization") or ""
        scheme, _, token = value.partition(" ")
        return token.strip() if scheme.lower() == "bearer" else None

    def session_cookie(self):
        for field_value in self.headers.get_all("Cookie") or []:
            for pair in field_value.split(";"):
                name, _, value = pair.strip().partition("=")
                if name == "session" and value:
                    return value
        return None

    # -- routes ----------------------------------------------------------------------------

    def do_GET(self):
        path = self.path_only
        if path not in ("/v1/messages", "/v1/avatar", "/v1/count"):
            return self.answer(404, {"error": "not_found"})
        token = self.bearer()
        if token is None or not self.backend.authorized(token):
            # RFC 6750 §3.1: an expired or revoked token is invalid_token.
            return self.answer(
                401, {"error": "invalid_token"}, extra=[("WWW-Authenticate", 'Bearer error="invalid_token"')])
        if path == "/v1/avatar":
            return self.answer(200, AVATAR, "image/png")
        if path == "/v1/count":
            return self.answer(200, {"count": self.backend.calls("/v1/messages")})
        user = self.backend.family_of(token).user
        return self.answer(200, {"user": user, "messages": [f"message {n} for {user}" for n in range(20)]})

    def do_POST(self):
        path = self.path_only
        body = self.read_body()
        if path == "/oauth/token":
            return self.token(body)
        if path in ("/logout", "/sso/logout"):
            return self.logout()
        if path == "/oauth/revoke":
            return self.revoke(body)
        if path == "/upload":
            self.backend._uploaded(len(body), hashlib.sha256(body).hexdigest())
            return self.answer(200, {"received": len(body), "sha256": hashlib.sha256(body).hexdigest()})
        callback = CALLBACK_PATH.match(path)
        if callback:
            calls = self.backend._callback(callback["job"])
            return self.answer(200, {"job": callback["job"], "calls": calls})
        return self.answer(404, {"error": "not_found"})

    def token(self, body):
        form = {key: values[-1] for key, values in parse_qs(body.decode("utf-8", "replace")).items()}
        grant = form.get("grant_type")
        # RFC 6749 §5.1: token responses must not be cached.
        no_store = [("Cache-Control", "no-store")]
        if grant == "password" and form.get("username"):
            access, refresh, session = self.backend.login(form["username"])
            return self.answer(
                200,
                {"access_token": access, "refresh_token": refresh, "token_type": "Bearer", "expires_in": 3600},
                extra=no_store + [("Set-Cookie", f"session={session}; Path=/; HttpOnly")])
        if grant == "refresh_token" and form.get("refresh_token"):
            pair = self.backend.refresh(form["refresh_token"])
            if pair is None:
                return self.answer(400, {"error": "invalid_grant"}, extra=no_store)  # RFC 6749 §5.2
            return self.answer(
                200,
                {"access_token": pair[0], "refresh_token": pair[1], "token_type": "Bearer", "expires_in": 3600},
                extra=no_store)
        return self.answer(400, {"error": "unsupported_grant_type" if grant else "invalid_request"}, extra=no_store)

    def logout(self):
        presented = [token for token in (self.bearer(), self.session_cookie()) if token]
        family = self.backend.logout(presented)
        extra = []
        if self.backend.clear_cookie_on_logout:
            extra.append(("Set-Cookie", "session=; Max-Age=0; Path=/; HttpOnly"))  # RFC 6265 §3.1
        self.answer(200, {"logged_out": family is not None}, extra=extra)

    def revoke(self, body):
        form = {key: values[-1] for key, values in parse_qs(body.decode("utf-8", "replace")).items()}
        if not form.get("token"):
            return self.answer(400, {"error": "invalid_request"})  # RFC 7009 §2.2.1, RFC 6749 §5.2
        self.backend.revoke(form["token"], form.get("token_type_hint"))
        self.answer(200)  # RFC 7009 §2.2: the content of the response body is ignored by the client

"""A correct client of the fake auth backend (harness/auth_backend.py), talking through the proxy:
what the example rule files are meant to be tried against.

It keeps the session-boundary contract (README.md, "Checking a trace") the simple way:
- single-flight refresh: one lock around refreshing; a request whose 401 was for a token that
  has since been replaced retries with the new token instead of refreshing again (no stale
  refresh);
- bounded retry: a business request is refreshed-and-retried at most once;
- logout boundary: `logout()` forgets every credential before the logout request leaves, and a
  refresh answer that arrives after it is dropped (no reactivation);
- its own cookie handling: it sends only the session cookie its login issued, and ignores
  Set-Cookie after logout. (httpx's cookie jar is switched off so nothing is kept behind its back.)
"""
import contextlib
import http.cookiejar
import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import httpx


@dataclass
class Outcome:
    """What one business call ended with."""

    status: int
    retried: bool
    response: httpx.Response
    note: str = ""


def _no_cookie_jar():
    """A jar whose policy accepts no cookie, so httpx stores nothing from Set-Cookie."""
    return http.cookiejar.CookieJar(policy=http.cookiejar.DefaultCookiePolicy(allowed_domains=[]))


def session_cookie(response):
    """The value of `session=` in the response's Set-Cookie fields (the last one), or None."""
    value = None
    for field in response.headers.get_list("set-cookie"):
        pair = field.split(";", 1)[0]
        name, _, cookie = pair.partition("=")
        if name.strip() == "session":
            value = cookie.strip()
    return value


class SessionClient:
    def __init__(self, proxy_url, base_url, timeout=20, http2=False, single_flight=True, refresh_barrier=None):
        """Calls `base_url` through the forward proxy `proxy_url` (None: straight to `base_url`,
        e.g. a reverse listener). `http2`: HTTP/2 only (h2c with prior knowledge on http://), so
        concurrent calls are streams of one connection. `single_flight=False` is the classic
        flaw: every rejected call refreshes on its own, with whatever refresh token it read;
        `refresh_barrier` (a threading.Barrier) makes those refreshes leave together, as three
        screens woken by the same 401s would, so the race is the same on every run."""
        self.base_url = base_url
        self.single_flight = single_flight
        self.refresh_barrier = refresh_barrier
        self.http = httpx.Client(proxy=proxy_url, trust_env=False, timeout=timeout, cookies=_no_cookie_jar(),
                                 http2=http2, http1=not http2)
        self._state = threading.Lock()  # guards the fields below; never held across a request
        self._refreshing = threading.Lock()  # the single flight
        self.access = None
        self.refresh_token = None
        self.session = None
        self.logged_out = False
        self.refreshes = 0
        self.dropped_late_refresh = False

    def close(self):
        self.http.close()

    # -- session ---------------------------------------------------------------------------

    def login(self, user):
        response = self.http.post(
            f"{self.base_url}/oauth/token", data={"grant_type": "password", "username": user})
        response.raise_for_status()
        tokens = response.json()
        with self._state:
            self.access, self.refresh_token = tokens["access_token"], tokens["refresh_token"]
            self.session = session_cookie(response)
            self.logged_out = False
        return response

    def logout(self):
        """Forgets the credentials first (the boundary starts here), then tells the backend."""
        with self._state:
            access, session = self.access, self.session
            self.access = self.refresh_token = self.session = None
            self.logged_out = True
        headers = {"Authorization": f"Bearer {access}"} if access else {}
        if session:
            headers["Cookie"] = f"session={session}"
        return self.http.post(f"{self.base_url}/logout", headers=headers)

    def _credentials(self):
        with self._state:
            headers = {}
            if self.access:
                headers["Authorization"] = f"Bearer {self.access}"
            if self.session:
                headers["Cookie"] = f"session={self.session}"
            return self.access, headers

    def refresh_after_rejection(self, rejected_access):
        """Refreshes unless someone already replaced `rejected_access` (single flight)."""
        with self._refreshing if self.single_flight else contextlib.nullcontext():
            with self._state:
                if self.logged_out or self.refresh_token is None:
                    return
                if self.single_flight and self.access != rejected_access:
                    return
                refresh_token = self.refresh_token
                self.refreshes += 1
            if self.refresh_barrier is not None:
                self.refresh_barrier.wait(timeout=10)
            response = self.http.post(
                f"{self.base_url}/oauth/token", data={"grant_type": "refresh_token", "refresh_token": refresh_token})
            with self._state:
                if self.logged_out:
                    self.dropped_late_refresh = True  # the user signed out meanwhile: no reactivation
                    return
                if response.status_code == 200:
                    tokens = response.json()
                    self.access, self.refresh_token = tokens["access_token"], tokens["refresh_token"]

    # -- business --------------------------------------------------------------------------

    def get(self, path, headers=None):
        """A business GET: on 401, one refresh (shared) and at most one retry."""
        access, credentials = self._credentials()
        response = self.http.get(f"{self.base_url}{path}", headers={**credentials, **(headers or {})})
        if response.status_code != 401:
            return Outcome(response.status_code, False, response)
        if access is None:
            return Outcome(401, False, response, "not signed in")
        self.refresh_after_rejection(access)
        new_access, credentials = self._credentials()
        if new_access is None or new_access == access:
            return Outcome(401, False, response, "signed out" if new_access is None else "refresh failed")
        retry = self.http.get(f"{self.base_url}{path}", headers={**credentials, **(headers or {})})
        return Outcome(retry.status_code, True, retry)


def race_calls_against_logout(client, proxy, paths):
    """The token race as the rules stage it: `client` (logged in) calls every path at once, one
    thread each; their 401s trigger one refresh, whose answer the proxy holds (hold
    `refresh-response`); while it is held and no call has finished, the client logs out; then the
    calls' outcomes are collected. Returns (the hold.started event, the logout's response, the
    outcomes in path order). Every wait has a deadline."""
    with ThreadPoolExecutor(len(paths)) as pool:
        calls = [pool.submit(client.get, path) for path in paths]
        # The refresh answer is held by the proxy: that is the window for the logout.
        held = proxy.wait_for_event("hold.started", timeout=15, name="refresh-response")
        assert not any(call.done() for call in calls), "a business call finished while the refresh was pending"
        logout = client.logout()
        outcomes = [call.result(timeout=20) for call in calls]
    return held, logout, outcomes

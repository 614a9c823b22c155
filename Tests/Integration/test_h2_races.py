"""The session-boundary races over HTTP/2: three business calls that fail at once are three
streams of one connection, and the refresh they cause is a fourth. The example rule files
(Rules/force-401-first-business.json5, Rules/hold-refresh-until-logout.json5, with
Rules/auth-profile.json5) and the fake auth backend are the same as for HTTP/1.1
(test_rules_token_race.py); the client (harness/session_client.py) speaks h2c with prior
knowledge to a reverse listener. `faultline check` judges the HTTP/2 trace with the same clauses:
a correct client passes, a client without single-flight refresh is caught."""
import json
import threading
from concurrent.futures import ThreadPoolExecutor

import pytest

from harness.clients import run
from harness.session_client import SessionClient, race_calls_against_logout

pytestmark = pytest.mark.timeout(60)

RACE = ("force-401-first-business.json5", "hold-refresh-until-logout.json5")
BUSINESS = ("/v1/messages", "/v1/avatar", "/v1/count")


def check(proxy):
    """`faultline check --format json` on the proxy's trace: (exit status, report)."""
    done = run([proxy.binary, "check", proxy.trace_file, "--format", "json"], timeout=30)
    return done.returncode, json.loads(done.stdout)


def broken_clauses(report):
    return sorted({violation["clause"] for violation in report["violations"]})


def reverse_with_rules(start_faultline, folder, backend):
    return start_faultline("--listen", "127.0.0.1:0", "--mode", f"reverse:{backend.url}", "--rules", folder)


def test_three_streams_one_refresh_held_until_logout(start_faultline, rules_folder, auth_backend):
    proxy = reverse_with_rules(start_faultline, rules_folder(*RACE), auth_backend)
    client = SessionClient(None, proxy.reverse.url, http2=True)
    try:
        client.login("alice")
        held, logout, outcomes = race_calls_against_logout(client, proxy, BUSINESS)
    finally:
        client.close()
    assert logout.status_code == 200
    assert [outcome.status for outcome in outcomes] == [401, 401, 401], outcomes
    assert all(outcome.response.http_version == "HTTP/2" for outcome in outcomes)
    assert client.refreshes == 1 and client.dropped_late_refresh
    assert auth_backend.calls("/oauth/token") == 2 and auth_backend.calls("/logout") == 1

    trace = proxy.trace()
    requests = trace.of("request.received")
    assert {event["version"] for event in requests} == {"HTTP/2"}
    assert len({event["conn"] for event in requests}) == 1, "every call is a stream of one connection"
    business = [event for event in requests if event.get("role") == "business"]
    assert len({event["stream"] for event in business}) == 3
    refresh = trace.one("request.received", role="refresh")
    assert held["flow"] == refresh["flow"]
    logout_forwarded = trace.one("request.forwarded", flow=trace.one("request.received", role="logout")["flow"])
    hold_ended = trace.one("hold.ended", flow=refresh["flow"])
    assert held["seq"] < logout_forwarded["seq"] < hold_ended["seq"]
    assert trace.one("lineage.refresh")["after_logout"] is True

    status, report = check(proxy)
    assert status == 0 and report["violations"] == [], report


def test_refresh_without_single_flight_is_caught_on_http2(start_faultline, rules_folder, auth_backend):
    proxy = reverse_with_rules(start_faultline, rules_folder("force-401-first-business.json5"), auth_backend)
    client = SessionClient(None, proxy.reverse.url, http2=True, single_flight=False,
                           refresh_barrier=threading.Barrier(3))
    try:
        client.login("bob")
        with ThreadPoolExecutor(3) as pool:
            outcomes = [call.result(timeout=20) for call in [pool.submit(client.get, path) for path in BUSINESS]]
    finally:
        client.close()
    assert client.refreshes == 3, outcomes
    trace = proxy.trace()
    refreshes = [event for event in trace.of("request.received") if event.get("role") == "refresh"]
    assert len(refreshes) == 3 and len({event["stream"] for event in refreshes}) == 3
    assert len({event["conn"] for event in trace.of("request.received")}) == 1

    status, report = check(proxy)
    assert status == 1, report
    assert "single-flight-refresh" in broken_clauses(report), report

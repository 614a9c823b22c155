"""The token-refresh race (three screens refreshing at once, README.md "What the demo shows"),
reproduced with the example rule files only (Rules/force-401-first-business.json5 + Rules/hold-refresh-until-logout.json5 +
Rules/auth-profile.json5) against the fake auth backend, with a correct client
(harness/session_client.py). Nothing is ordered by sleeping: the hold orders the refresh after
the logout, and the test waits for the hold through the live trace."""
import time

import httpx
import pytest

from harness.rawhttp import RawConnection, request_bytes
from harness.rules import example_files
from harness.session_client import SessionClient, race_calls_against_logout

RACE = ("force-401-first-business.json5", "hold-refresh-until-logout.json5")
BUSINESS = ("/v1/messages", "/v1/avatar", "/v1/count")


def _seq(event):
    return event["seq"]


@pytest.mark.parametrize("folder_kind", ["race-pair", "whole-folder"])
def test_three_401s_one_refresh_held_until_logout(start_with_rules, rules_folder, auth_backend, folder_kind):
    """Three concurrent business calls all get the forced 401; the client refreshes once; the
    refresh answer is held until the logout has been forwarded, then delivered (late). With the
    whole Rules/ folder loaded (every scenario at its default switch) the race is the same: the
    examples that are on by default do not fight."""
    if folder_kind == "race-pair":
        folder = rules_folder(*RACE)
    else:
        folder = rules_folder(*[name for name in example_files() if name != "auth-profile.json5"])
    proxy = start_with_rules(folder)
    client = SessionClient(proxy.forward.url, auth_backend.url)
    try:
        client.login("alice")
        held, logout, outcomes = race_calls_against_logout(client, proxy, BUSINESS)
    finally:
        client.close()
    assert logout.status_code == 200 and logout.json() == {"logged_out": True}

    # The client side: three 401s, one refresh, its late answer dropped, no retry after logout.
    assert [outcome.status for outcome in outcomes] == [401, 401, 401], outcomes
    assert not any(outcome.retried for outcome in outcomes)
    assert client.refreshes == 1 and client.dropped_late_refresh
    # The backend side: the forced 401s never reached it; one refresh, one logout.
    assert [auth_backend.calls(path) for path in BUSINESS] == [0, 0, 0]
    assert auth_backend.calls("/oauth/token") == 2  # login + refresh
    assert auth_backend.calls("/logout") == 1
    family = auth_backend.families()[0]
    assert family.rotations == 1 and family.revoked_because == "logout"

    trace = proxy.trace()
    business = [event for event in trace.of("request.received") if event.get("role") == "business"]
    assert sorted(event["path"] for event in business) == sorted(BUSINESS)
    fired = trace.of("rule.fired", rule="force-401-first-business/expire-first-three")
    assert sorted(event["hit"] for event in fired) == [1, 2, 3]
    assert {event["flow"] for event in fired} == {event["flow"] for event in business}
    for event in business:
        delivered = trace.one("response.delivered", flow=event["flow"])
        assert delivered["status"] == 401 and delivered["synthetic"] is True
        assert not trace.of("request.forwarded", flow=event["flow"])

    refresh = trace.one("request.received", role="refresh")
    logout_request = trace.one("request.received", role="logout")
    assert held["flow"] == refresh["flow"] and held["phase"] == "response"
    assert held["release_on"] == "logout.forwarded"
    refresh_forwarded = trace.one("request.forwarded", flow=refresh["flow"])
    logout_forwarded = trace.one("request.forwarded", flow=logout_request["flow"])
    refresh_delivered = trace.one("response.delivered", flow=refresh["flow"])
    hold_ended = trace.one("hold.ended", flow=refresh["flow"])
    # The race, in the order the rules impose.
    assert _seq(refresh_forwarded) < _seq(held) < _seq(logout_forwarded) < _seq(hold_ended) < _seq(refresh_delivered)
    assert hold_ended["outcome"] == "released"
    assert refresh_delivered["status"] == 200 and not refresh_delivered.get("synthetic")
    assert trace.one("rule.fired", flow=refresh["flow"])["rule"] == "hold-refresh-until-logout/hold-refresh-response"

    # Lineage: one login, its logout, then the refresh that completed after it.
    login = trace.one("lineage.login")
    lineage = login["lineage"]
    logout_event = trace.one("lineage.logout")
    late = trace.one("lineage.refresh")
    assert logout_event["lineage"] == late["lineage"] == lineage
    assert late["after_logout"] is True
    assert _seq(login) < _seq(logout_event) < _seq(late)
    assert sorted(credential.split("=")[0] for credential in login["issued"]) == ["access", "refresh", "session"]
    # The correct client presented the lineage's refresh token once, and nothing after logout.
    assert any(credential.startswith("refresh=") for credential in refresh["credentials"])
    assert refresh["lineage"] == lineage
    after_logout = [event for event in trace.of("request.received") if _seq(event) > _seq(logout_event)]
    assert all(not event.get("credentials") for event in after_logout), after_logout


def test_lost_refresh_response_times_out_into_a_503(start_with_rules, rules_folder, auth_backend):
    """refresh-timeout-503.json5: the refresh answer is held past its 2 s deadline and replaced by
    a 503. The backend had rotated the tokens, so retrying with the same refresh token is taken
    as reuse: 400 invalid_grant and the family is revoked (what a client must be ready for)."""
    folder = rules_folder("refresh-timeout-503.json5", enable=["refresh-timeout-503.json5"])
    proxy = start_with_rules(folder)
    client = httpx.Client(proxy=proxy.forward.url, trust_env=False, timeout=20)
    try:
        login = client.post(f"{auth_backend.url}/oauth/token", data={"grant_type": "password", "username": "bob"})
        refresh_token = login.json()["refresh_token"]
        form = {"grant_type": "refresh_token", "refresh_token": refresh_token}
        started = time.monotonic()
        lost = client.post(f"{auth_backend.url}/oauth/token", data=form)
        waited = time.monotonic() - started
        retried = client.post(f"{auth_backend.url}/oauth/token", data=form)  # `times: 1`: not held
    finally:
        client.close()
    assert lost.status_code == 503, lost.text
    assert "access_token" not in lost.text
    assert waited >= 2.0, f"the 503 came after {waited:.2f}s, before the hold's 2 s deadline"
    assert retried.status_code == 400 and retried.json() == {"error": "invalid_grant"}
    family = auth_backend.families()[0]
    assert family.rotations == 1 and family.revoked_because == "refresh token reused"

    trace = proxy.trace()
    refreshes = [event for event in trace.of("request.received") if event.get("role") == "refresh"]
    assert len(refreshes) == 2
    first, second = (event["flow"] for event in refreshes)
    started_event = trace.one("hold.started", flow=first)
    assert started_event["name"] == "refresh-response-lost" and started_event["timeout_s"] == 2.0
    ended = trace.one("hold.ended", flow=first)
    assert ended["outcome"] == "timed-out"
    assert ended["mono_ns"] - started_event["mono_ns"] >= 2_000_000_000
    assert trace.one("response.received", flow=first)["status"] == 200  # the backend did answer
    delivered = trace.one("response.delivered", flow=first)
    assert delivered["status"] == 503 and delivered["seq"] > ended["seq"]
    # No credentials reached the client, so the lineage did not move on.
    assert not trace.of("lineage.refresh")
    assert not trace.of("hold.started", flow=second)
    assert trace.one("response.delivered", flow=second)["status"] == 400


def test_forced_401_keeps_the_keep_alive_connection(start_with_rules, rules_folder, auth_backend):
    """A server answering 401 keeps the connection open (RFC 9112 §9.3), and so must a forced 401:
    a client that finds its connection closed after every 401 behaves differently under test
    than in production (a new connection, a new TLS handshake for the retry)."""
    proxy = start_with_rules(rules_folder("force-401-first-business.json5"))
    access, _, _ = auth_backend.login("frank")
    target = f"{auth_backend.url}/v1/messages"
    head = [("Host", f"127.0.0.1:{auth_backend.port}"), ("Authorization", f"Bearer {access}")]
    with RawConnection("127.0.0.1", proxy.forward.port) as connection:
        connection.send(request_bytes("GET", target, head))
        forced = connection.read_response()
        assert forced.status == 401 and forced.header("www-authenticate").startswith("Bearer")
        assert "close" not in (forced.header("connection") or "").lower(), forced.headers
        connection.send(request_bytes("GET", target, head))
        second = connection.read_response()
        assert second.status == 401  # the second of three
    trace = proxy.trace()
    assert len({event["conn"] for event in trace.of("request.received")}) == 1

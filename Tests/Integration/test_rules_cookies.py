"""Cookie isolation (account A's cookies never on B's requests, no reactivation after logout)
with Rules/inject-set-cookie-after-logout.json5: after a logout, business responses carry the old
session's Set-Cookie, as a late response for the signed-out account would. The client here is a plain httpx client with no cookie jar, so the test sees exactly
which Set-Cookie fields arrived."""
from concurrent.futures import ThreadPoolExecutor

import pytest

from harness.auth_backend import AuthBackend
from harness.session_client import SessionClient, session_cookie

SCENARIO = "inject-set-cookie-after-logout.json5"


@pytest.fixture
def backend_keeping_cookie_on_logout():
    """A backend whose logout does not send a deleting Set-Cookie."""
    server = AuthBackend(clear_cookie_on_logout=False).start()
    yield server
    server.stop()


def _late_cookie_race(proxy, backend):
    """Login as A, one call, logout, one call after logout, login as B, one more call. Returns the
    login responses and the three call outcomes."""
    client = SessionClient(proxy.forward.url, backend.url)
    try:
        login_a = client.login("alice")
        before = client.get("/v1/messages")
        client.logout()
        after = client.get("/v1/messages")  # signed out: no credentials, a 401 from the backend
        login_b = client.login("bob")
        as_b = client.get("/v1/messages")
    finally:
        client.close()
    return login_a, login_b, before, after, as_b


def _check_replayed_cookie(proxy, backend):
    login_a, login_b, before, after, as_b = _late_cookie_race(proxy, backend)
    cookie_a, cookie_b = session_cookie(login_a), session_cookie(login_b)
    assert cookie_a and cookie_b and cookie_a != cookie_b
    assert before.status == 200 and not before.response.headers.get_list("set-cookie")
    assert after.status == 401
    # The late response for A: its Set-Cookie re-sends A's session cookie, attributes and all.
    assert after.response.headers.get_list("set-cookie") == [f"session={cookie_a}; Path=/; HttpOnly"]
    # B's login closes the window: B's calls carry no cookie of A.
    assert as_b.status == 200 and not as_b.response.headers.get_list("set-cookie")

    trace = proxy.trace()
    business = [event for event in trace.of("request.received") if event.get("role") == "business"]
    assert len(business) == 3
    replay = trace.of("rule.fired", rule="inject-set-cookie-after-logout/late-set-cookie")
    assert [event["flow"] for event in replay] == [business[1]["flow"]]
    transitions = [(event["rule"].split("/")[1], event.get("transition")) for event in trace.of("rule.fired")
                   if "transition" in event]
    assert transitions == [
        ("notice-login", {"from": "signedIn", "to": "signedIn"}),
        ("notice-logout", {"from": "signedIn", "to": "signedOut"}),
        ("notice-login", {"from": "signedOut", "to": "signedIn"}),
    ]
    # The client dropped it: nothing after the logout presents a credential of A.
    login_events = trace.of("lineage.login")
    assert len(login_events) == 2
    lineage_a = login_events[0]["lineage"]
    logout_seq = trace.one("lineage.logout")["seq"]
    for event in trace.of("request.received"):
        if event["seq"] > logout_seq and event.get("lineage") == lineage_a:
            raise AssertionError(f"a request after A's logout presents A's credentials: {event}")
    # And the secret itself never reached the trace.
    assert cookie_a not in trace.text


def test_late_set_cookie_after_logout_replays_the_old_session(start_with_rules, rules_folder,
                                                               backend_keeping_cookie_on_logout):
    """With a backend whose logout leaves the cookie alone, the replay is A's login cookie."""
    proxy = start_with_rules(rules_folder(SCENARIO))
    _check_replayed_cookie(proxy, backend_keeping_cookie_on_logout)


def test_late_set_cookie_after_a_logout_that_deletes_the_cookie(start_with_rules, rules_folder, auth_backend):
    """The realistic backend: its logout answers Set-Cookie: session=; Max-Age=0. The late
    response must still carry A's session cookie, not the deletion."""
    assert auth_backend.clear_cookie_on_logout
    proxy = start_with_rules(rules_folder(SCENARIO))
    _check_replayed_cookie(proxy, auth_backend)


def test_in_flight_response_arrives_after_logout_with_the_old_cookie(start_with_rules, rules_folder,
                                                                     backend_keeping_cookie_on_logout):
    """Rule hold-messages-until-logout: A's call is answered by the backend, held by the proxy
    until A's logout has gone out, then delivered with A's Set-Cookie: the article's late
    response, which the proxy recognises as A's credential issued after A's logout."""
    backend = backend_keeping_cookie_on_logout
    folder = rules_folder(SCENARIO, enable=[f"{SCENARIO}#hold-messages-until-logout"])
    proxy = start_with_rules(folder)
    client = SessionClient(proxy.forward.url, backend.url)
    try:
        login = client.login("alice")
        with ThreadPoolExecutor(1) as pool:
            call = pool.submit(client.get, "/v1/messages")
            held = proxy.wait_for_event("hold.started", timeout=15, name="late-response")
            assert not call.done()
            client.logout()
            late = call.result(timeout=20)
    finally:
        client.close()
    cookie_a = session_cookie(login)
    assert late.status == 200 and late.response.json()["user"] == "alice"
    assert late.response.headers.get_list("set-cookie") == [f"session={cookie_a}; Path=/; HttpOnly"]

    trace = proxy.trace()
    flow = held["flow"]
    assert trace.one("request.received", flow=flow)["path"] == "/v1/messages"
    logout_forwarded = trace.one("request.forwarded", flow=trace.one("request.received", role="logout")["flow"])
    delivered = trace.one("response.delivered", flow=flow)
    assert held["seq"] < logout_forwarded["seq"] < trace.one("hold.ended", flow=flow)["seq"] < delivered["seq"]
    lineage_a = trace.one("lineage.login")["lineage"]
    issued = trace.one("lineage.credential-issued", flow=flow)
    assert issued["lineage"] == lineage_a and issued["after_logout"] is True
    assert issued["issued"] == [c for c in trace.one("lineage.login")["issued"] if c.startswith("session=")]
    assert not trace.of("rule.fired", rule="inject-set-cookie-after-logout/late-set-cookie")

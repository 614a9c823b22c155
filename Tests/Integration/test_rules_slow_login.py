"""Rules/slow-login.json5: the login answer is delayed 1.5 s and throttled to 256 B/s. The delay
is measured where the proxy applies it (response.received -> response.delivered in the trace),
and only lower bounds are asserted: the proxy can never deliver early, however slow the machine."""
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from harness.auth_backend import AVATAR
from harness.clients import run
from harness.session_client import SessionClient

SCENARIO = "slow-login.json5"
DELAY_NS = 1_500_000_000
RATE = 256  # bytes per second


def test_login_answer_is_delayed_then_throttled(start_with_rules, rules_folder, auth_backend):
    proxy = start_with_rules(rules_folder(SCENARIO, enable=[SCENARIO]))
    client = SessionClient(proxy.forward.url, auth_backend.url)
    try:
        started = time.monotonic()
        login = client.login("dana")
        waited = time.monotonic() - started
    finally:
        client.close()
    assert login.status_code == 200 and "access_token" in login.json()
    length = len(login.content)
    assert length > 100
    # The delay, then the body at 256 B/s: the first slice goes at once, the rest over
    # (length - slice) / rate seconds.
    least = DELAY_NS / 1e9 + (length - RATE // 50) / RATE
    assert waited >= least, f"login took {waited:.2f}s, less than {least:.2f}s"

    trace = proxy.trace()
    flow = trace.one("request.received", role="login")["flow"]
    fired = trace.one("rule.fired", flow=flow)
    assert fired["rule"] == "slow-login/slow-login-response" and fired["phase"] == "response"
    received = trace.one("response.received", flow=flow)
    delivered = trace.one("response.delivered", flow=flow)
    assert delivered["body"]["length"] == length
    assert delivered["mono_ns"] - received["mono_ns"] >= DELAY_NS, (delivered, received)
    # The credentials still count: the lineage starts when the slow answer is complete.
    assert trace.one("lineage.login")["seq"] > delivered["seq"]


def test_the_throttle_ends_with_the_login_exchange(start_with_rules, rules_folder, auth_backend):
    """After the slow login, a 16 KiB avatar on the same keep-alive connection matches no rule and
    must arrive at full speed: well within 3 s (at 256 B/s it would take 64 s)."""
    proxy = start_with_rules(rules_folder(SCENARIO, enable=[SCENARIO]))
    client = SessionClient(proxy.forward.url, auth_backend.url, timeout=5)
    received = b""
    try:
        client.login("dana")
        # httpx's timeout is per read and a throttle keeps every read short, so the deadline for
        # the whole body is kept here.
        deadline = time.monotonic() + 3
        with client.http.stream("GET", f"{auth_backend.url}/v1/avatar", headers=client._credentials()[1]) as avatar:
            assert avatar.status_code == 200
            for piece in avatar.iter_raw():
                received += piece
                assert time.monotonic() < deadline, f"only {len(received)} of {len(AVATAR)} bytes within 3 s"
    finally:
        client.close()
    assert received == AVATAR
    trace = proxy.trace()
    flows = [event for event in trace.of("request.received")]
    assert len({event["conn"] for event in flows}) == 1, "the avatar did not reuse the login's connection"
    assert len(trace.of("rule.fired")) == 1


def test_a_second_tap_on_sign_in_opens_a_second_lineage(start_with_rules, rules_folder, auth_backend):
    """The window slow-login opens: two logins in flight at once (a double tap) are two
    lineages, both issued; a client must keep one and never mix their credentials."""
    proxy = start_with_rules(rules_folder(SCENARIO, enable=[SCENARIO]))
    first, second = (SessionClient(proxy.forward.url, auth_backend.url) for _ in range(2))
    try:
        with ThreadPoolExecutor(2) as pool:
            taps = [pool.submit(client.login, "erin") for client in (first, second)]
            for tap in taps:
                assert tap.result(timeout=20).status_code == 200
    finally:
        first.close()
        second.close()
    trace = proxy.trace()
    logins = trace.of("lineage.login")
    assert len(logins) == 2 and logins[0]["lineage"] != logins[1]["lineage"]
    assert not set(logins[0]["issued"]) & set(logins[1]["issued"])
    # Both were in flight together: each was received before the other was delivered.
    flows = [event["flow"] for event in trace.of("request.received", role="login")]
    delivered = [trace.one("response.delivered", flow=flow)["seq"] for flow in flows]
    received = [trace.one("request.received", flow=flow)["seq"] for flow in flows]
    assert max(received) < min(delivered)


@pytest.mark.parametrize("closing", ["connection-close", "http1.0"])
def test_a_throttled_answer_is_whole_when_the_connection_closes_after_it(
        start_with_rules, rules_folder, auth_backend, closing):
    """A client that asks for the connection to close after the answer (`Connection: close`, or
    HTTP/1.0 without keep-alive) gets the whole throttled body: the close waits for the bytes the
    throttle still holds. It cut them after the first slice (issue 20, found by the demo's correct
    client through this example)."""
    proxy = start_with_rules(rules_folder(SCENARIO, enable=[SCENARIO]))
    version = ["--http1.0"] if closing == "http1.0" else ["-H", "Connection: close"]
    done = run(["curl", "-sS", "--max-time", "20", "-x", proxy.forward.url, *version, "-o", "-",
                "-w", "\n%{http_code}", "--data", "grant_type=password&username=erin&password=x",
                f"{auth_backend.url}/oauth/token"], timeout=30)
    assert done.returncode == 0, done.stderr
    body, status = done.stdout.rsplit(b"\n", 1)
    assert status == b"200"
    assert b"access_token" in body and body.endswith(b"}"), body
    trace = proxy.trace()
    delivered = trace.one("response.delivered", flow=trace.one("request.received", role="login")["flow"])
    assert delivered["body"]["length"] == len(body)

"""`faultline check` precision, as a user meets it: the real proxy (`faultline run --rules DIR`
with an auth profile) records what a real client (requests) does, is stopped with SIGTERM, and the
checker reads the trace it wrote.

- bounded-retry chains only attempts of one operation: a request without an idempotency key is not
  an attempt of the keyed operation that follows it, and a request made before a lineage's login is
  never shown under that lineage.
- A check that could not run is not a pass: every format names the skipped clauses, with a reason
  that says whether the trace had no profile or had one but no login.
- JUnit output even on unusable input, and a missing contract file named as missing.
"""
import json
import xml.etree.ElementTree as ElementTree

import pytest

from harness.clients import run
from harness.http_clients import requests_session

FORCE_401 = """
// Every request for /force401 gets a synthetic 401: a rejection the client cannot fix by retrying.
{
  description: "401 for /force401",
  rules: [
    { name: "force401", match: { path: "/force401" }, actions: [{ respond: { status: 401 } }] },
  ],
}
"""

PROFILE_CLAUSES = ["single-flight-refresh", "no-stale-refresh", "logout-boundary", "no-reactivation"]


def check(binary, *args):
    done = run([binary, "check", *args], timeout=30)
    return done.returncode, done.stdout.decode(errors="replace"), done.stderr.decode(errors="replace")


def login(session, backend):
    response = session.post(f"{backend.url}/oauth/token", data={"grant_type": "password", "username": "ann"},
                            timeout=15)
    assert response.status_code == 200, response.text
    return response.json()["access_token"]


@pytest.fixture
def force401_proxy(rules_folder, start_with_rules):
    """A forward proxy with the example auth profile and the /force401 rule."""
    folder = rules_folder()  # the auth profile alone
    with open(f"{folder}/force401.json5", "w", encoding="utf-8") as handle:
        handle.write(FORCE_401)
    return start_with_rules(folder)


def test_bounded_retry_blames_the_third_keyed_attempt_not_the_unkeyed_request(
        faultline_binary, force401_proxy, auth_backend):
    session = requests_session(force401_proxy.forward.url)
    url = f"{auth_backend.url}/force401"
    assert session.get(url, timeout=15).status_code == 401  # no idempotency key, before any login
    access = login(session, auth_backend)
    for _ in range(3):
        response = session.get(url, headers={"Authorization": f"Bearer {access}", "Idempotency-Key": "op1"},
                               timeout=15)
        assert response.status_code == 401
    trace = force401_proxy.trace()
    requests_for_401 = [event for event in trace.of("request.received") if event.get("path") == "/force401"]
    assert len(requests_for_401) == 4
    unkeyed, keyed = requests_for_401[0], requests_for_401[1:]
    login_seq = trace.one("lineage.login")["seq"]
    assert unkeyed["seq"] < login_seq < keyed[0]["seq"]

    code, out, _ = check(faultline_binary, force401_proxy.trace_file, "--format", "json")
    assert code == 1, out
    report = json.loads(out)
    violations = [violation for violation in report["violations"] if violation["clause"] == "bounded-retry"]
    assert len(violations) == 1, report["violations"]
    violation = violations[0]
    assert violation["details"]["request_seq"] == str(keyed[2]["seq"]), violation
    assert violation["details"]["rejections"] == "2"
    timeline = violation["timeline"]
    assert timeline[-1]["seq"] == keyed[2]["seq"] and timeline[-1]["marker"] == "offending"
    requests_shown = [event["seq"] for event in timeline if event["event"] == "request.received"]
    assert requests_shown == [keyed[0]["seq"], keyed[1]["seq"], keyed[2]["seq"]]
    assert unkeyed["seq"] not in [event["seq"] for event in timeline]
    # Nothing is shown under L1 from before L1's login.
    for event in timeline:
        if event.get("lineage") == "L1":
            assert event["seq"] > login_seq, event

    code, out, _ = check(faultline_binary, force401_proxy.trace_file)
    assert code == 1
    assert f"was sent again at seq {keyed[2]['seq']} after 2 401s in a row" in out, out

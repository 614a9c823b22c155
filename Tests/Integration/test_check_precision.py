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
import os
import shutil
import xml.etree.ElementTree as ElementTree

import pytest

from harness.clients import run
from harness.http_clients import requests_session
from harness.rules import PROFILE, RULES, write_atomically

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


# -- a check that could not run is not a pass ------------------------------------------------------

def test_rules_loaded_says_whether_a_profile_was_loaded(rules_folder, start_with_rules):
    folder = rules_folder(profile=False)
    with open(f"{folder}/force401.json5", "w", encoding="utf-8") as handle:
        handle.write(FORCE_401)
    proxy = start_with_rules(folder)
    with open(f"{RULES}/{PROFILE}", encoding="utf-8") as handle:
        write_atomically(f"{folder}/{PROFILE}", handle.read())  # the user adds the profile
    reloaded = proxy.wait_for_event("rules.reloaded", timeout=10)
    trace = proxy.trace()
    loaded = trace.one("rules.loaded")
    assert (loaded["scenarios"], loaded["rules"], loaded["profile"]) == (1, 1, False), loaded
    assert (reloaded["scenarios"], reloaded["rules"], reloaded["profile"]) == (1, 1, True), reloaded


def unchecked_report(binary, trace_file, tmp_path):
    """The three formats of `faultline check` on a trace with nothing to judge for the lineage
    clauses: (text, json report, {junit case: skipped message}); each exits 0 (nothing broken)."""
    code, text, _ = check(binary, trace_file)
    assert code == 0, text
    code, out, _ = check(binary, trace_file, "--format", "json")
    assert code == 0, out
    junit_file = tmp_path / "unchecked.xml"
    code, _, err = check(binary, trace_file, "--format", "junit", "--output", str(junit_file))
    assert code == 0, err
    cases = ElementTree.parse(junit_file).getroot().find("testsuite[@name='session-boundary-contract']")
    skipped = {case.get("name"): case.find("skipped").get("message")
               for case in cases.findall("testcase") if case.find("skipped") is not None}
    return text, json.loads(out), skipped


def assert_lineage_clauses_unchecked(text, report, skipped, reason):
    assert text.splitlines()[0].startswith("contract: built-in default ("), text
    verdict = text.splitlines()[1]
    assert "PASSED IN PART: 6 enabled clauses could not be checked" in verdict, verdict
    assert "PASSED:" not in verdict
    for clause in PROFILE_CLAUSES:
        assert f"  ? {clause}: not checked, {reason}" in text, text
        assert skipped[clause] == reason, skipped
    assert [entry["reason"] for entry in report["clausesSkipped"] if entry["clause"] in PROFILE_CLAUSES] \
        == [reason] * 4, report["clausesSkipped"]
    # JUnit skips the clauses the trace gave nothing to judge too: CI must not show them as passed.
    idle = {entry["clause"] for entry in report["clausesUnexercised"]}
    for clause in idle:
        assert skipped[clause].startswith("nothing to judge: "), skipped
    assert set(skipped) == set(PROFILE_CLAUSES) | {"exactly-once", "dependency-respected"} | idle


def test_a_profile_without_a_login_is_not_a_pass(faultline_binary, force401_proxy, auth_backend, tmp_path):
    session = requests_session(force401_proxy.forward.url)
    assert session.get(f"{auth_backend.url}/v1/messages", timeout=15).status_code == 401  # never logs in
    force401_proxy.trace()
    assert_lineage_clauses_unchecked(
        *unchecked_report(faultline_binary, force401_proxy.trace_file, tmp_path),
        "an auth profile was loaded, but no login was seen, so no lineage started")


def test_rules_without_a_profile_say_there_is_no_profile(faultline_binary, rules_folder, start_with_rules,
                                                         auth_backend, tmp_path):
    folder = rules_folder(profile=False)
    with open(f"{folder}/force401.json5", "w", encoding="utf-8") as handle:
        handle.write(FORCE_401)
    proxy = start_with_rules(folder)
    session = requests_session(proxy.forward.url)
    token = session.post(f"{auth_backend.url}/oauth/token", data={"grant_type": "password", "username": "ann"},
                         timeout=15).json()["access_token"]
    assert session.get(f"{auth_backend.url}/v1/messages", headers={"Authorization": f"Bearer {token}"},
                       timeout=15).status_code == 200
    proxy.trace()
    assert_lineage_clauses_unchecked(
        *unchecked_report(faultline_binary, proxy.trace_file, tmp_path),
        "no auth profile in this trace: the proxy's rules had none (add auth-profile.json5 to the rules folder)")


def test_a_proxy_without_rules_says_it_ran_without_rules(faultline_binary, faultline, auth_backend, tmp_path):
    session = requests_session(faultline.forward.url)
    assert session.get(f"{auth_backend.url}/v1/messages", timeout=15).status_code == 401
    faultline.trace()
    assert_lineage_clauses_unchecked(
        *unchecked_report(faultline_binary, faultline.trace_file, tmp_path),
        "no auth profile in this trace: the proxy ran without rules (run it with --rules DIR holding an "
        "auth-profile.json5)")


# -- JUnit output even on unusable input -------------------------------------------------------------

def junit_error_case(xml_text):
    """The one test case of a JUnit report for unusable input, as (name, failure message, failure text)."""
    root = ElementTree.fromstring(xml_text)
    cases = root.findall(".//testcase")
    assert len(cases) == 1, xml_text
    failure = cases[0].find("failure")
    assert failure is not None, xml_text
    assert root.get("failures") == "1"
    return cases[0].get("name"), failure.get("message"), failure.text or ""


def test_junit_is_written_even_for_unusable_input(faultline_binary, force401_proxy, tmp_path):
    force401_proxy.trace()
    with open(force401_proxy.trace_file) as handle:
        text = handle.read()
    damaged = tmp_path / "damaged.jsonl"
    damaged.write_text(text + text.splitlines()[-1][:30] + "\n")  # a last line cut short
    bad_contract = tmp_path / "bad.contract.json5"
    bad_contract.write_text('{\n  clauses: { "exactly-onse": true },\n}\n')
    unreadable = tmp_path / "unreadable.jsonl"
    shutil.copyfile(force401_proxy.trace_file, unreadable)
    unreadable.chmod(0)

    cases = [
        ([str(damaged)], f"{damaged}:{len(text.splitlines()) + 1}: "),
        ([str(tmp_path / "missing.jsonl")], f"{tmp_path / 'missing.jsonl'}: no such file"),
        ([force401_proxy.trace_file, "--contract", str(bad_contract)], f"faultline check: 1 error in {bad_contract}"),
        ([force401_proxy.trace_file, "--contract", str(tmp_path / "missing.json5")],
         f"faultline check: the contract file {tmp_path / 'missing.json5'} does not exist"),
    ]
    if os.geteuid() != 0:  # root reads a mode-0 file anyway
        cases.append(([str(unreadable)], f"{unreadable}: cannot be opened"))
    for arguments, message in cases:
        # To standard output...
        code, out, err = check(faultline_binary, *arguments, "--format", "junit")
        assert code == 2, (arguments, out, err)
        assert err.startswith(message) or message in err, (arguments, err)
        name, failure_message, failure_text = junit_error_case(out)
        assert name == "usable-input"
        assert failure_message.startswith(message), (arguments, failure_message)
        # ... and to the --output file, with nothing on standard output.
        report = tmp_path / "report.xml"
        if report.exists():
            report.unlink()
        code, out, err = check(faultline_binary, *arguments, "--format", "junit", "--output", str(report))
        assert code == 2 and out == "" and message in err, (arguments, out, err)
        assert junit_error_case(report.read_text())[1].startswith(message)
    # A bad contract's positioned errors are in the failure's text.
    code, out, _ = check(faultline_binary, force401_proxy.trace_file, "--contract", str(bad_contract),
                         "--format", "junit")
    assert f"{bad_contract}:2:14: unknown clause 'exactly-onse'" in junit_error_case(out)[2]


def test_a_missing_contract_file_is_named_as_missing(faultline_binary, faultline, tmp_path):
    faultline.trace()
    code, out, err = check(faultline_binary, faultline.trace_file, "--contract", "/missing")
    assert code == 2 and out == ""
    assert err == "faultline check: the contract file /missing does not exist\n", err

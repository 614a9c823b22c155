"""What the auth profile reaches (Rules/README.md, "The auth profile"), against the fake OAuth
backend (harness/auth_backend.py) through `faultline run --rules DIR` with httpx:

- a role given as a list of matches: two logout endpoints, each closing its lineage;
- the `revoke` role (RFC 7009): the `token` form field is presented as a credential whose kind
  comes from `token_type_hint`, else from the credential it equals, else `refresh`; a 2xx answer
  is `lineage.revoked`, with `after_logout` for a client cleaning up late tokens;
- the warning `rules check`, the start banner and a reload print for a rule on `role: "business"`
  in a folder without a profile (which then matches every request, login included).

Nothing is ordered by sleeping: the late refresh is staged by the hold in
Rules/hold-refresh-until-logout.json5, and the test waits for the hold in the live trace."""
import os
import re
import subprocess
from concurrent.futures import ThreadPoolExecutor

import httpx

from harness.rules import PROFILE, write_atomically
from harness.session_client import _no_cookie_jar
from harness.waiting import wait_until

SINGLE_LOGOUT = '  logout: { method: "POST", path: "/logout" },\n'
TWO_LOGOUTS = '  logout: [{ method: "POST", path: "/logout" }, { method: "POST", path: "/sso/logout" }],\n'


def _client(proxy):
    """No cookie jar: each request carries exactly the credentials the test gives it."""
    return httpx.Client(proxy=proxy.forward.url, trust_env=False, timeout=20, cookies=_no_cookie_jar())


def _login(client, backend, user):
    response = client.post(f"{backend.url}/oauth/token", data={"grant_type": "password", "username": user})
    assert response.status_code == 200, response.text
    return response.json()


def _by_kind(credentials):
    """["access=fp:…", "refresh=fp:…"] as {"access": "fp:…", "refresh": "fp:…"}."""
    return dict(credential.split("=", 1) for credential in credentials)


def _received(trace, path):
    return [event for event in trace.of("request.received") if event.get("path") == path]


def _with_two_logout_endpoints(folder):
    path = os.path.join(folder, PROFILE)
    with open(path, encoding="utf-8") as handle:
        text = handle.read()
    assert text.count(SINGLE_LOGOUT) == 1, "Rules/auth-profile.json5 no longer has its one-line logout"
    write_atomically(path, text.replace(SINGLE_LOGOUT, TWO_LOGOUTS))
    return folder


def _log_in_and_out_twice(proxy, backend):
    """Alice logs out at /logout, Bob at /sso/logout; returns their login answers."""
    with _client(proxy) as client:
        alice = _login(client, backend, "alice")
        assert client.post(f"{backend.url}/logout", headers={"Authorization": f"Bearer {alice['access_token']}"}
                           ).json() == {"logged_out": True}
        bob = _login(client, backend, "bob")
        assert client.post(f"{backend.url}/sso/logout", headers={"Authorization": f"Bearer {bob['access_token']}"}
                           ).json() == {"logged_out": True}
    return alice, bob


def test_a_logout_list_closes_the_lineage_at_either_endpoint(start_with_rules, rules_folder, auth_backend):
    proxy = start_with_rules(_with_two_logout_endpoints(rules_folder()))
    _log_in_and_out_twice(proxy, auth_backend)
    trace = proxy.trace()
    logins = [event["lineage"] for event in trace.of("lineage.login")]
    assert logins == ["L1", "L2"]
    first, second = _received(trace, "/logout"), _received(trace, "/sso/logout")
    assert [event["role"] for event in first + second] == ["logout", "logout"]
    closed = trace.of("lineage.logout")
    assert [(event["lineage"], event["flow"]) for event in closed] == [
        ("L1", first[0]["flow"]), ("L2", second[0]["flow"])]


def test_with_one_logout_the_second_endpoint_closes_nothing(start_with_rules, rules_folder, auth_backend):
    """The control for the test above: the shipped profile's single logout match leaves
    /sso/logout a business request, so Bob's lineage stays open."""
    proxy = start_with_rules(rules_folder())
    _log_in_and_out_twice(proxy, auth_backend)
    trace = proxy.trace()
    assert _received(trace, "/sso/logout")[0]["role"] == "business"
    assert [event["lineage"] for event in trace.of("lineage.logout")] == ["L1"]


def _revoke(client, backend, token, hint=None):
    form = {"token": token}
    if hint:
        form["token_type_hint"] = hint
    response = client.post(f"{backend.url}/oauth/revoke", data=form)
    assert response.status_code == 200, response.text  # RFC 7009 §2.2: also for unknown tokens
    return response


def test_revoking_an_access_token_by_hint(start_with_rules, rules_folder, auth_backend):
    """An open lineage: the client revokes its access token with `token_type_hint=access_token`;
    the backend stops accepting it and the trace says which lineage lost which credential."""
    proxy = start_with_rules(rules_folder())
    with _client(proxy) as client:
        tokens = _login(client, auth_backend, "carol")
        bearer = {"Authorization": f"Bearer {tokens['access_token']}"}
        assert client.get(f"{auth_backend.url}/v1/messages", headers=bearer).status_code == 200
        _revoke(client, auth_backend, tokens["access_token"], hint="access_token")
        assert client.get(f"{auth_backend.url}/v1/messages", headers=bearer).status_code == 401
    assert auth_backend.revocations() == [("access", "access_token")]

    trace = proxy.trace()
    issued = _by_kind(trace.one("lineage.login")["issued"])
    revocation = trace.one("request.received", path="/oauth/revoke")
    assert revocation["role"] == "revoke"
    assert revocation["credentials"] == [f"access={issued['access']}"]
    assert revocation["lineage"] == "L1"
    revoked = trace.one("lineage.revoked")
    assert revoked["flow"] == revocation["flow"]
    assert (revoked["lineage"], revoked["revoked"], revoked["after_logout"]) == (
        "L1", [f"access={issued['access']}"], False)
    assert [event["lineage"] for event in trace.of("lineage.logout")] == [], "a revocation closes nothing"
    assert tokens["access_token"] not in trace.text


def test_a_correct_client_revokes_the_tokens_of_a_late_refresh(start_with_rules, rules_folder, auth_backend):
    """The refresh answer is held until the logout is forwarded; the client, already signed out,
    revokes the late tokens instead of keeping them: without a hint, each is traced as the kind it
    was issued as, and `lineage.revoked` says `after_logout`. A made-up token (no hint) is a
    `refresh` credential of no lineage and revokes nothing the trace follows."""
    proxy = start_with_rules(rules_folder("hold-refresh-until-logout.json5"))
    with _client(proxy) as client, ThreadPoolExecutor(1) as pool:
        tokens = _login(client, auth_backend, "dave")
        refresh = pool.submit(client.post, f"{auth_backend.url}/oauth/token",
                              data={"grant_type": "refresh_token", "refresh_token": tokens["refresh_token"]})
        proxy.wait_for_event("hold.started", timeout=15, name="refresh-response")
        assert not refresh.done()
        client.post(f"{auth_backend.url}/logout", headers={"Authorization": f"Bearer {tokens['access_token']}"})
        late = refresh.result(timeout=20).json()
        _revoke(client, auth_backend, late["refresh_token"])
        _revoke(client, auth_backend, late["access_token"])
        _revoke(client, auth_backend, "made-up-token")
    assert auth_backend.revocations() == [("refresh", None), ("access", None), (None, None)]

    trace = proxy.trace()
    late_refresh = trace.one("lineage.refresh")
    assert late_refresh["after_logout"] is True
    late_issued = _by_kind(late_refresh["issued"])
    revocations = _received(trace, "/oauth/revoke")
    assert [event["role"] for event in revocations] == ["revoke"] * 3
    assert [event["credentials"] for event in revocations[:2]] == [
        [f"refresh={late_issued['refresh']}"], [f"access={late_issued['access']}"]]
    assert [event.get("lineage") for event in revocations] == ["L1", "L1", None]
    unknown = revocations[2]["credentials"]
    assert len(unknown) == 1 and unknown[0].startswith("refresh=fp:")
    revoked = trace.of("lineage.revoked")
    assert [(event["flow"], event["lineage"], event["revoked"], event["after_logout"]) for event in revoked] == [
        (revocations[0]["flow"], "L1", [f"refresh={late_issued['refresh']}"], True),
        (revocations[1]["flow"], "L1", [f"access={late_issued['access']}"], True),
    ]
    logout_seq = trace.one("lineage.logout")["seq"]
    assert all(event["seq"] > logout_seq for event in revoked)
    for secret in (late["access_token"], late["refresh_token"], "made-up-token"):
        assert secret not in trace.text


# -- a role rule without a profile -------------------------------------------------------------

ROLE_RULE = "expire-business.json5"
# A forced 401 for business requests, as a user writes it before adding a profile. (The shipped
# force-401-first-business.json5 is lineage-scoped and waits for the refresh, which a folder without
# a profile refuses as errors, not warnings.)
ROLE_RULE_TEXT = """{
  description: "401 for business requests",
  rules: [{ name: "expire", match: { role: "business" }, when: { times: 3 }, actions: [{ respond: { status: 401 } }] }],
}
"""
WARNING = re.compile(
    r"expire-business\.json5:\d+:\d+: warning: 'role: \"business\"' matches every request: "
    r"without an auth profile every request is 'business', login and logout included; "
    r"add auth-profile\.json5 to the rules folder")


def role_rule_folder(rules_folder, profile):
    """A rules folder holding ROLE_RULE, with or without the example auth profile."""
    folder = rules_folder(profile=profile)
    with open(os.path.join(folder, ROLE_RULE), "w", encoding="utf-8") as handle:
        handle.write(ROLE_RULE_TEXT)
    return folder


def test_rules_check_warns_about_a_role_rule_without_a_profile(faultline_binary, rules_folder):
    bare = role_rule_folder(rules_folder, profile=False)
    done = subprocess.run([faultline_binary, "rules", "check", bare], capture_output=True, timeout=30)
    assert done.returncode == 0, done
    stderr = done.stderr.decode()
    assert len(WARNING.findall(stderr)) == 1, stderr
    assert f"{bare}/{ROLE_RULE}:" in stderr
    assert "no auth profile; no errors, 1 warning(s)" in done.stdout.decode()

    with_profile = role_rule_folder(rules_folder, profile=True)
    done = subprocess.run([faultline_binary, "rules", "check", with_profile], capture_output=True, timeout=30)
    assert done.returncode == 0 and b"warning" not in done.stderr + done.stdout, done


def test_the_banner_and_a_reload_warn_about_a_role_rule_without_a_profile(start_with_rules, rules_folder):
    folder = role_rule_folder(rules_folder, profile=False)
    proxy = start_with_rules(folder)
    lines = wait_until(lambda: [line for line in proxy.stderr.split("\n") if WARNING.search(line)], 10,
                       "the start warning on stderr")
    banner_at = next(index for index, line in enumerate(proxy.stderr.split("\n")) if line.startswith("faultline "))
    assert proxy.stderr.split("\n").index(lines[0]) > banner_at, "the warning follows the banner"
    assert lines[0].startswith(f"faultline run: {folder}/{ROLE_RULE}:")

    path = os.path.join(folder, ROLE_RULE)
    with open(path, encoding="utf-8") as handle:
        text = handle.read()
    write_atomically(path, text.replace('description: "', 'description: "(edited) ', 1))
    proxy.wait_for_event("rules.reloaded", timeout=10)
    wait_until(lambda: len(WARNING.findall(proxy.stderr)) >= 2, 10, "the reload's warning on stderr")
    after = proxy.stderr.split("faultline: reloaded rules from", 1)[1]
    assert WARNING.search(after), proxy.stderr

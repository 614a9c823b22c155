"""A capture (`faultline run --capture`) keeps bodies but no secret: every credential the
redaction policy or the auth profile knows becomes a pseudonym that names its kind and lineage,
the same secret everywhere the same pseudonym, different secrets different ones."""
import json
import re
import signal

import pytest

from harness.http_clients import httpx_client
from harness.trace import Trace

pytestmark = pytest.mark.timeout(60)

PSEUDONYM = re.compile(r"flp\.[a-z0-9-]+\.[A-Za-z0-9]+\.[0-9]+")


def test_secrets_planted_everywhere_leave_only_consistent_pseudonyms(start_faultline, origin, auth_backend, rules_folder):
    token = "planted-token-ABCDEFGH"          # one secret in five places
    password = "planted-password-12345678"
    api_key = "planted-api-key-87654321"
    client_secret = "planted-client-secret-1"
    cookie = "planted-cookie-value-99"
    userinfo = "planted-userinfo-pass-5"
    proxy = start_faultline(
        "--listen", "127.0.0.1:0", "--capture", "--rules", rules_folder(), "--redact-header", "X-Api-Key")
    issued = {}
    with httpx_client(proxy.listeners[0].url) as client:
        # Headers (Authorization, Cookie, a header named secret on the command line), a query
        # parameter, and the echo's JSON answer that repeats all of them.
        client.post(
            f"{origin.url}/echo?access_token={token}&page=2", headers={
                "Authorization": f"Bearer {token}", "Cookie": f"sid={cookie}; theme=dark", "X-Api-Key": api_key,
                "Content-Type": "application/json"},
            content=json.dumps({"access_token": token, "note": "hello"}).encode())
        # A form body with a password and a client secret.
        client.post(f"{origin.url}/echo", data={"grant_type": "password", "password": password, "client_secret": client_secret})
        # URL userinfo, which httpx sends as Basic credentials (RFC 7617).
        client.get(f"http://user:{userinfo}@{origin.authority}/echo")
        # Credentials issued in a JSON body and a Set-Cookie by the auth backend (lineage L1).
        login = client.post(f"{auth_backend.url}/oauth/token", data={"grant_type": "password", "username": "ann", "password": password})
        issued = login.json()
        issued["session"] = client.cookies.get("session")
        refreshed = client.post(f"{auth_backend.url}/oauth/token", data={"grant_type": "refresh_token", "refresh_token": issued["refresh_token"]})
        issued["access2"] = refreshed.json()["access_token"]
    proxy.stop()
    text = open(proxy.trace_file, encoding="utf-8").read()
    planted = [token, password, api_key, client_secret, cookie, userinfo, issued["access_token"], issued["refresh_token"],
               issued["session"], issued["access2"]]
    for secret in planted:
        assert secret not in text, f"the capture holds a raw secret ({len(secret)} characters)"
    trace = Trace.load(proxy.trace_file)

    first = trace.of("request.forwarded")[0]
    sent = trace.sent_upstream(first["flow"])
    # No rule changed it: request.forwarded holds its body, request.received its head.
    assert "request" not in first
    headers = dict(sent["headers"])
    pseudonym = headers["Authorization"].split(" ", 1)[1]
    assert re.fullmatch(PSEUDONYM, pseudonym)
    assert pseudonym.startswith("flp.access.")
    # The same token: the same pseudonym in the query, the JSON body and the echo of both.
    assert f"access_token={pseudonym}&page=2" in sent["url"]
    assert json.loads(first["content"]["data"])["access_token"] == pseudonym
    echo = trace.of("response.body")[0]["content"]["data"]
    assert echo.count(pseudonym) >= 2
    assert headers["X-Api-Key"].startswith("flp.x-api-key.")
    assert headers["Cookie"].startswith("sid=flp.cookie-sid.") and "theme=flp.cookie-theme." in headers["Cookie"]

    form = trace.of("request.forwarded")[1]["content"]["data"]
    assert re.search(r"password=flp\.password\.none\.[0-9]+", form) and "client_secret=flp.client-secret.none.1" in form
    assert dict(trace.of("request.received")[2]["headers"])["Authorization"].startswith("Basic flp.basic.none.")

    # Issued credentials are named after their lineage; the password is one secret, wherever it went.
    login_forwarded = trace.of("request.forwarded")[3]["content"]["data"]
    assert re.search(r"password=(flp\.password\.none\.[0-9]+)", login_forwarded)[1] == re.search(r"password=(flp\.password\.none\.[0-9]+)", form)[1]
    login_body = json.loads(trace.of("response.body")[3]["content"]["data"])
    assert (login_body["access_token"], login_body["refresh_token"]) == ("flp.access.L1.1", "flp.refresh.L1.1")
    assert trace.of("response.received")[3]["headers"][-2][1].startswith("session=flp.cookie-session.L1.1") or any(
        value.startswith("session=flp.cookie-session.L1.1") for name, value in trace.of("response.received")[3]["headers"] if name == "Set-Cookie")
    refreshed_body = json.loads(trace.of("response.body")[4]["content"]["data"])
    assert refreshed_body["access_token"] == "flp.access.L1.2"
    assert trace.one("lineage.login")["issued"] == ["access=flp.access.L1.1", "refresh=flp.refresh.L1.1", "session=flp.cookie-session.L1.1"]

    # Different secrets, different pseudonyms; one secret, one pseudonym.
    names = set(PSEUDONYM.findall(text))
    assert len(names) >= 9, names


def test_bodies_over_the_limit_are_cut_and_marked(start_faultline, origin):
    proxy = start_faultline("--listen", "127.0.0.1:0", "--capture", "--capture-body-limit", "16")
    with httpx_client(proxy.listeners[0].url) as client:
        assert client.post(f"{origin.url}/echo", content=b"x" * 100).status_code == 200
    proxy.stop()
    trace = Trace.load(proxy.trace_file)
    sent = trace.one("request.forwarded")["content"]
    assert (sent["length"], sent["data"], sent.get("truncated")) == (100, "x" * 16, True)
    answer = trace.one("response.body")["content"]
    assert answer["truncated"] is True and len(answer["data"]) == 16


def test_binary_bodies_are_base64(start_faultline, origin):
    proxy = start_faultline("--listen", "127.0.0.1:0", "--capture")
    with httpx_client(proxy.listeners[0].url) as client:
        assert client.post(f"{origin.url}/echo", content=bytes(range(256)), headers={"Content-Type": "application/octet-stream"}).status_code == 200
    proxy.stop()
    sent = Trace.load(proxy.trace_file).one("request.forwarded")["content"]
    import base64
    assert sent["encoding"] == "base64" and base64.b64decode(sent["data"]) == bytes(range(256))


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_a_capture_survives_the_signals_that_stop_it(start_faultline, origin, sig, faultline_binary):
    proxy = start_faultline("--listen", "127.0.0.1:0", "--capture")
    with httpx_client(proxy.listeners[0].url) as client:
        for index in range(20):
            assert client.post(f"{origin.url}/echo?n={index}", content=b"payload %d" % index).status_code == 200
    assert proxy.stop(sig) == 0
    trace = Trace.load(proxy.trace_file)
    trace.assert_well_formed()
    assert len(trace.of("response.body")) == 20
    import subprocess
    checked = subprocess.run([faultline_binary, "check", proxy.trace_file], capture_output=True, text=True, timeout=30)
    assert checked.returncode == 0, checked.stdout + checked.stderr


def test_capture_options_need_capture_and_keep_needs_a_file(faultline_binary):
    import subprocess
    for args, message in [
        (["--capture-secrets", "keep"], "--capture-secrets needs --capture"),
        (["--capture", "--capture-secrets", "keep"], "needs --trace FILE"),
        (["--capture", "--capture-secrets", "maybe"], "takes pseudonyms or keep"),
        (["--capture", "--capture-body-limit", "-1"], "--capture-body-limit takes a number"),
    ]:
        done = subprocess.run([faultline_binary, "run", "--listen", "127.0.0.1:0", *args], capture_output=True, text=True, timeout=20)
        assert done.returncode == 2 and message in done.stderr, (args, done.stderr)

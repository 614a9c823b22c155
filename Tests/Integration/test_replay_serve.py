"""`faultline replay serve`: a capture made by `faultline run --capture` answers clients with no
backend at all (as a forward proxy, through TLS interception, and as a plain origin), hands out
fresh tokens, lets rules work on top, names the nearest recorded request when nothing matches,
and reaches no network unless told to."""
import json
import os
import re
import stat
import subprocess

import pytest

from harness.clients import curl
from harness.http_clients import httpx_client
from harness.listener import CountingListener
from harness.python_origin import Origin
from harness.tls import client_context, server_context
from harness.trace import Trace
from harness.waiting import wait_until

pytestmark = pytest.mark.timeout(90)

FORM = {"Content-Type": "application/x-www-form-urlencoded"}


def record_session(start_faultline, backend, folder, *extra):
    """Captures a login, a business call, a refresh and a second business call through a forward
    proxy in front of `backend`; returns (capture path, the raw tokens the backend issued)."""
    proxy = start_faultline("--listen", "127.0.0.1:0", "--rules", folder, "--capture", *extra)
    with httpx_client(proxy.listeners[0].url) as client:
        login = client.post(f"{backend.url}/oauth/token", data={"grant_type": "password", "username": "ann", "password": "hunter2-secret"})
        assert login.status_code == 200, login.text
        tokens = login.json()
        me = client.get(f"{backend.url}/v1/messages", headers={"Authorization": f"Bearer {tokens['access_token']}"})
        assert me.status_code == 200, me.text
        refreshed = client.post(f"{backend.url}/oauth/token", data={"grant_type": "refresh_token", "refresh_token": tokens["refresh_token"]})
        assert refreshed.status_code == 200, refreshed.text
        again = client.get(f"{backend.url}/v1/messages", headers={"Authorization": f"Bearer {refreshed.json()['access_token']}"})
        assert again.status_code == 200
    assert proxy.stop() == 0
    raw = [tokens["access_token"], tokens["refresh_token"], refreshed.json()["access_token"], refreshed.json()["refresh_token"],
           client.cookies.get("session") or ""]
    return proxy.trace_file, [token for token in raw if token], me.content


def tokens_of(response):
    body = response.json()
    return body["access_token"], body["refresh_token"]


@pytest.fixture
def recorded(start_faultline, auth_backend, rules_folder):
    """A capture of a session against the fake OAuth backend, and that backend stopped."""
    folder = rules_folder()
    capture, raw, messages = record_session(start_faultline, auth_backend, folder)
    url = auth_backend.url
    port = int(url.rsplit(":", 1)[1])
    auth_backend.stop()
    return {"capture": capture, "raw": raw, "url": url, "port": port, "folder": folder, "messages": messages}


def test_the_capture_holds_bodies_and_no_raw_secret(recorded):
    text = open(recorded["capture"], encoding="utf-8").read()
    for secret in recorded["raw"] + ["hunter2-secret"]:
        assert secret not in text, "a raw secret is in the capture"
    header = json.loads(text.split("\n", 1)[0])
    assert header["capture"] == {"secrets": "pseudonyms", "body_limit": 1048576}
    trace = Trace.load(recorded["capture"])
    bodies = trace.of("response.body")
    assert len(bodies) == 4
    login_body = json.loads(bodies[0]["content"]["data"])
    # The login's tokens are named after the lineage the login starts, and reused where they travel.
    assert login_body["access_token"] == "flp.access.L1.1" and login_body["refresh_token"] == "flp.refresh.L1.1"
    assert trace.of("request.received", path="/v1/messages")[0]["credentials"] == [
        "access=flp.access.L1.1", "session=flp.cookie-session.L1.1"]
    assert "password=flp.password.none.1" in trace.of("request.forwarded")[0]["content"]["data"]
    assert trace.of("lineage.refresh")[0]["issued"] == ["access=flp.access.L1.2", "refresh=flp.refresh.L1.2"]
    # The checker reads a capture as it reads a trace.
    done = subprocess.run([os.environ.get("FAULTLINE_BIN", "faultline"), "check", recorded["capture"]], capture_output=True, text=True, timeout=30)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "trace problems" not in done.stdout


def test_a_forward_replay_hands_out_fresh_tokens_and_answers_as_recorded(start_replay, recorded):
    with CountingListener(recorded["port"]) as host:
        replay = start_replay(recorded["capture"], "--listen", "127.0.0.1:0", "--rules", recorded["folder"])
        with httpx_client(replay.listeners[0].url) as client:
            login = client.post(f"{recorded['url']}/oauth/token", data={"grant_type": "password", "username": "ann", "password": "another-password"})
            assert login.status_code == 200, login.text
            access, refresh = tokens_of(login)
            assert access not in recorded["raw"] and refresh not in recorded["raw"]
            assert not access.startswith("flp.") and client.cookies.get("session")
            me = client.get(f"{recorded['url']}/v1/messages", headers={"Authorization": f"Bearer {access}"})
            assert (me.status_code, me.content) == (200, recorded["messages"])
            new_access, _ = tokens_of(client.post(f"{recorded['url']}/oauth/token", data={"grant_type": "refresh_token", "refresh_token": refresh}))
            assert new_access != access
            assert client.get(f"{recorded['url']}/v1/messages", headers={"Authorization": f"Bearer {new_access}"}).status_code == 200
            # Reusing the rotated refresh token gets a rejection, as from the recorded backend.
            reuse = client.post(f"{recorded['url']}/oauth/token", data={"grant_type": "refresh_token", "refresh_token": refresh})
            assert (reuse.status_code, reuse.json()["error"]) == (400, "invalid_grant")
            # A token from the recorded run is not one this replay issued: no match, and it says why.
            stale = client.get(f"{recorded['url']}/v1/messages", headers={"Authorization": f"Bearer {recorded['raw'][0]}"})
            assert stale.status_code == 502 and stale.headers["X-Faultline-Error"] == "replay-unmatched"
            assert "nearest: GET " in stale.text and "/v1/messages (recorded flow" in stale.text and "credentials" in stale.text
            assert recorded["raw"][0] not in stale.text
        assert replay.stop() == 0
        assert host.connections == 0
    trace = replay.trace()
    assert [event["recorded_flow"] for event in trace.of("replay.matched")] == [1, 2, 3, 4]
    assert all(event["upstream"] == "replay" for event in trace.of("request.forwarded"))
    assert len(trace.of("replay.rotated")) == 1 and len(trace.of("replay.unmatched")) == 1
    # The replay's own trace follows the lineage of the fresh tokens.
    assert len(trace.of("lineage.login")) == 1 and len(trace.of("lineage.refresh")) == 1


def test_nothing_reaches_the_network_even_for_unmatched_requests_and_tunnels(start_replay, recorded, tmp_path):
    confdir = tmp_path / "confdir"
    confdir.mkdir(mode=0o700)
    with CountingListener(recorded["port"]) as host, CountingListener() as elsewhere:
        replay = start_replay(recorded["capture"], "--listen", "127.0.0.1:0", "--confdir", str(confdir))
        proxy = replay.listeners[0].url
        with httpx_client(proxy) as client:
            assert client.get(f"{recorded['url']}/never-recorded").status_code == 502
            assert client.get(f"http://127.0.0.1:{elsewhere.port}/other-host").status_code == 502
        # A CONNECT that is not TLS would be tunnelled by a live proxy: here it is refused.
        done = curl("-s", "-o", "/dev/null", "-w", "%{http_code}", "-p", "-x", proxy, f"http://127.0.0.1:{elsewhere.port}/x", timeout=20)
        assert replay.stop() == 0
        assert (host.connections, elsewhere.connections) == (0, 0), done
    trace = replay.trace()
    assert {event["code"] for event in trace.of("upstream.error")} <= {"replay-unmatched", "replay-offline"}


def test_unmatched_forward_is_the_only_way_to_the_network(start_replay, recorded):
    with CountingListener() as elsewhere:
        replay = start_replay(recorded["capture"], "--listen", "127.0.0.1:0", "--unmatched", "forward")
        with httpx_client(replay.listeners[0].url) as client:
            try:
                client.get(f"http://127.0.0.1:{elsewhere.port}/other-host")
            except Exception:
                pass  # the stand-in host closes at once; what matters is that it was reached
        wait_until(lambda: elsewhere.connections == 1, 10, "the unmatched request to reach the network")
        replay.stop()


def test_as_a_plain_origin_with_rules_on_top(start_replay, recorded, tmp_path):
    rules = tmp_path / "rules"
    rules.mkdir()
    (rules / "auth-profile.json5").write_text(open(os.path.join(recorded["folder"], "auth-profile.json5")).read())
    (rules / "force-401.json5").write_text("""{
      rules: [{ name: "first-messages-401", match: { path: "/v1/messages" }, when: { times: 1 },
                actions: [{ respond: { status: 401, json: { error: "invalid_token" } } }] }],
    }""")
    replay = start_replay(recorded["capture"], "--listen", "127.0.0.1:0", "--mode", "origin", "--rules", str(rules))
    base = replay.listeners[0].url
    assert replay.listeners[0].mode == "reverse" and replay.listeners[0].upstream == recorded["url"]
    with httpx_client() as client:
        access, _ = tokens_of(client.post(f"{base}/oauth/token", data={"grant_type": "password", "username": "ann", "password": "x"}))
        first = client.get(f"{base}/v1/messages", headers={"Authorization": f"Bearer {access}"})
        second = client.get(f"{base}/v1/messages", headers={"Authorization": f"Bearer {access}"})
    assert (first.status_code, second.status_code) == (401, 200)
    replay.stop()
    trace = replay.trace()
    assert len(trace.of("rule.fired")) == 1
    assert [event["recorded_flow"] for event in trace.of("replay.matched")] == [1, 2]


def test_a_replayed_response_can_be_held_and_released(start_replay, recorded, tmp_path):
    rules = tmp_path / "rules"
    rules.mkdir()
    (rules / "hold.json5").write_text("""{
      rules: [{ name: "hold-login", phase: "response", match: { path: "/oauth/token" },
                actions: [{ hold: { name: "login-response", timeout: 30 } }] }],
    }""")
    control_file = tmp_path / "control.json"
    replay = start_replay(recorded["capture"], "--listen", "127.0.0.1:0", "--rules", str(rules), "--control-file", str(control_file))
    binary = os.environ.get("FAULTLINE_BIN", "faultline")
    control = ["--control-file", str(control_file)]
    import threading
    result = {}

    def login():
        with httpx_client(replay.listeners[0].url) as client:
            result["response"] = client.post(f"{recorded['url']}/oauth/token", data={"grant_type": "password", "username": "ann", "password": "x"})

    thread = threading.Thread(target=login)
    thread.start()
    held = subprocess.run([binary, "holds", "wait", "login-response", "--timeout", "10", *control], capture_output=True, text=True, timeout=20)
    assert held.returncode == 0, held.stderr
    assert "response" not in result
    released = subprocess.run([binary, "release", "login-response", *control], capture_output=True, text=True, timeout=20)
    assert released.returncode == 0, released.stderr
    thread.join(20)
    assert result["response"].status_code == 200 and result["response"].json()["access_token"].startswith("flr")
    replay.stop()


@pytest.mark.parametrize("policy, statuses", [("none", [200, 502]), ("last", [200, 200]), ("cycle", [200, 200])])
def test_repeat_policies(start_replay, recorded, policy, statuses):
    replay = start_replay(recorded["capture"], "--listen", "127.0.0.1:0", "--repeat", policy)
    with httpx_client(replay.listeners[0].url) as client:
        answers = [client.post(f"{recorded['url']}/oauth/token", data={"grant_type": "password", "username": "ann", "password": "x"}) for _ in range(2)]
    assert [answer.status_code for answer in answers] == statuses
    if policy == "none":
        assert "all used (--repeat none)" in answers[1].text
    replay.stop()


def test_intercepted_https_is_replayed_without_a_handshake_upstream(start_faultline, start_replay, certificates, tmp_path):
    """An intercepted CONNECT to a recorded host is answered from the capture: the client's TLS
    ends at Faultline, and a socket standing in on the recorded host's port once the real origin
    is gone sees no connection at all (so no handshake)."""
    confdir = tmp_path / "confdir"
    confdir.mkdir(mode=0o700)
    capture_proxy = start_faultline("--listen", "127.0.0.1:0", "--capture", "--confdir", str(confdir), "--upstream-ca", certificates["ca.pem"])
    ca = str(confdir / "ca.pem")
    wait_until(lambda: os.path.exists(ca) and os.path.getsize(ca) > 0, 10, "the CA")
    tls_origin = Origin(tls_context=server_context(certificates)).start()
    try:
        url = f"https://localhost:{tls_origin.port}/echo?replay-tls"
        with httpx_client(capture_proxy.listeners[0].url, verify=client_context(ca)) as client:
            recorded = client.get(url, headers={"Authorization": "Bearer tls-secret-token-1"})
        assert recorded.status_code == 200
    finally:
        tls_origin.stop()
    capture_proxy.stop()
    with CountingListener(tls_origin.port) as host:
        replay = start_replay(capture_proxy.trace_file, "--listen", "127.0.0.1:0", "--confdir", str(confdir))
        with httpx_client(replay.listeners[0].url, verify=client_context(ca)) as client:
            replayed = client.get(url, headers={"Authorization": "Bearer tls-secret-token-1"})
        replay.stop()
        assert host.connections == 0
    assert replayed.status_code == 200, replayed.text
    # The echo's body told the Authorization it saw: the capture scrubbed it to its pseudonym.
    assert "tls-secret-token-1" not in replayed.text and "flp.access.none.1" in replayed.text
    trace = replay.trace()
    assert trace.of("tls.handshake", side="client") and not trace.of("tls.handshake", side="upstream")
    assert trace.one("replay.matched")["status"] == 200


def test_a_bad_capture_is_refused_with_its_line(start_faultline, tmp_path, faultline_binary):
    broken = tmp_path / "broken.jsonl"
    broken.write_text('{"faultline_trace":1,"faultline":"t","created":"x","fingerprint":"hmac-sha256-64"}\nnot json\n')
    done = subprocess.run([faultline_binary, "replay", "serve", str(broken), "--listen", "127.0.0.1:0"], capture_output=True, text=True, timeout=20)
    assert done.returncode == 2
    assert re.search(r"broken\.jsonl:2: ", done.stderr), done.stderr
    missing = subprocess.run([faultline_binary, "replay", "serve", str(tmp_path / "nope.jsonl")], capture_output=True, text=True, timeout=20)
    assert missing.returncode == 2 and "no such file" in missing.stderr
    usage = subprocess.run([faultline_binary, "replay", "serve", str(broken), "--repeat", "sometimes"], capture_output=True, text=True, timeout=20)
    assert usage.returncode == 2


def test_kept_secrets_make_a_private_file_that_says_so(start_faultline, origin):
    proxy = start_faultline("--listen", "127.0.0.1:0", "--capture", "--capture-secrets", "keep")
    with httpx_client(proxy.listeners[0].url) as client:
        assert client.get(f"{origin.url}/echo?kept", headers={"Authorization": "Bearer kept-raw-token"}).status_code == 200
    proxy.stop()
    assert stat.S_IMODE(os.stat(proxy.trace_file).st_mode) == 0o600
    text = open(proxy.trace_file, encoding="utf-8").read()
    assert json.loads(text.split("\n", 1)[0])["capture"]["secrets"] == "kept"
    assert "Bearer kept-raw-token" in text
    assert any("RAW SECRETS KEPT" in line for line in proxy.stderr.splitlines())


@pytest.mark.parametrize("through", ["har", "imported capture"])
def test_a_har_written_by_mitmproxy_is_served_with_faults_on_top(start_replay, origin, tmp_path, faultline_binary, through):
    from harness.mitmdump import Mitmdump

    mark = f"har-served-{through.replace(' ', '-')}"
    with Mitmdump(str(tmp_path)) as recorder:
        with httpx_client(recorder.url) as client:
            recorded = client.post(f"{origin.url}/echo?{mark}", json={"item": "milk"}, headers={"Authorization": "Bearer mitm-token-1"})
            cookie = client.get(f"{origin.url}/set-cookie?name=session&value=mitm-cookie-1&{mark}")
    assert recorded.status_code == 200 and cookie.status_code == 200
    source = recorder.har_path
    if through == "imported capture":
        source = str(tmp_path / "imported.jsonl")
        done = subprocess.run([faultline_binary, "har", "import", recorder.har_path, "-o", source], capture_output=True, text=True, timeout=30)
        assert done.returncode == 0, done.stderr
    rules = tmp_path / "rules"
    rules.mkdir()
    (rules / "fault.json5").write_text("""{
      rules: [{ name: "first-echo-503", phase: "response", match: { path: "/echo" }, when: { times: 1 },
                actions: [{ rewrite: { status: 503 } }] }],
    }""")
    seen = len(origin.seen(mark))
    replay = start_replay(source, "--listen", "127.0.0.1:0", "--rules", str(rules))
    with httpx_client(replay.listeners[0].url) as client:
        first = client.post(f"{origin.url}/echo?{mark}", json={"item": "milk"}, headers={"Authorization": "Bearer mitm-token-1"})
        second = client.post(f"{origin.url}/echo?{mark}", json={"item": "milk"}, headers={"Authorization": "Bearer mitm-token-1"})
        set_cookie = client.get(f"{origin.url}/set-cookie?name=session&value=mitm-cookie-1&{mark}")
    replay.stop()
    # The rule's fault first, then the recorded answer; the origin saw nothing of the replay.
    assert first.status_code == 503
    assert second.status_code == 200 and second.json()["target"] == recorded.json()["target"]
    # The recorded cookie was issued by the recorded server: the replay hands out a fresh one.
    assert set_cookie.status_code == 200 and set_cookie.cookies.get("session", "").startswith("flr")
    assert len(origin.seen(mark)) == seen


def test_a_client_that_asks_for_100_continue_gets_it_from_the_replay(start_replay, recorded):
    import socket
    replay = start_replay(recorded["capture"], "--listen", "127.0.0.1:0", "--mode", "origin")
    listener = replay.listeners[0]
    body = b"grant_type=password&username=ann&password=x"
    with socket.create_connection((listener.host, listener.port), timeout=10) as sock:
        sock.sendall(
            b"POST /oauth/token HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\n"
            b"Expect: 100-continue\r\nContent-Length: %d\r\n\r\n" % len(body))
        # The body goes only after the interim answer, as curl would wait for it (RFC 9110 §10.1.1).
        interim = b""
        while b"\r\n\r\n" not in interim:
            chunk = sock.recv(4096)
            assert chunk, f"closed before 100 Continue: {interim!r}"
            interim += chunk
        assert interim.startswith(b"HTTP/1.1 100 Continue\r\n"), interim
        sock.sendall(body)
        final = b""
        while b"access_token" not in final:
            chunk = sock.recv(4096)
            assert chunk, final
            final += chunk
        assert final.startswith(b"HTTP/1.1 200 "), final
    replay.stop()


def test_a_request_a_rule_changed_is_recorded_and_replayed_as_it_went_upstream(start_faultline, start_replay, origin, tmp_path):
    rules = tmp_path / "rules"
    rules.mkdir()
    (rules / "rewrite.json5").write_text("""{
      rules: [{ name: "to-v2", match: { path: "/echo" }, actions: [{ rewrite: { path: "/echo", query: "v=2" } }] }],
    }""")
    proxy = start_faultline("--listen", "127.0.0.1:0", "--capture", "--rules", str(rules))
    with httpx_client(proxy.listeners[0].url) as client:
        assert client.get(f"{origin.url}/echo?v=1").json()["target"] == "/echo?v=2"
        assert client.get(f"{origin.url}/status/204").status_code == 204
    proxy.stop()
    trace = Trace.load(proxy.trace_file)
    edited, plain = trace.of("request.forwarded")
    # Only the request a rule changed carries its upstream head; the other's is request.received's.
    assert edited["request"]["url"].endswith("/echo?v=2") and "request" not in plain
    replay = start_replay(proxy.trace_file, "--listen", "127.0.0.1:0")
    with httpx_client(replay.listeners[0].url) as client:
        assert client.get(f"{origin.url}/echo?v=2").json()["target"] == "/echo?v=2"
        assert client.get(f"{origin.url}/echo?v=1").status_code == 502
        assert client.get(f"{origin.url}/status/204").status_code == 204
    replay.stop()

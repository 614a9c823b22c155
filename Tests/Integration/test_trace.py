"""The trace as a product: its header, redaction of every secret, and completeness when the proxy is
stopped with SIGINT or SIGTERM in the middle of traffic."""
import base64
import re
import secrets
import signal
import threading

import pytest

from harness.http_clients import requests_session
from harness.rawhttp import RawConnection, request_bytes
from harness.trace import FINGERPRINT, Trace, header_values
from harness.waiting import wait_until

FP = r"fp:[0-9a-f]{16}"


def test_trace_starts_with_a_versioned_header_and_announces_listeners(faultline, nginx):
    requests_session(faultline.forward.url).get(f"{nginx.url}/index.html", timeout=15)
    trace = faultline.trace()
    trace.assert_well_formed()
    assert trace.header["faultline_trace"] == 1
    assert "seq" not in trace.header
    started = trace.one("listener.started")
    assert str(faultline.forward.port) in str(started), started
    for event in trace.events:
        assert re.match(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d", event["wall"]), event


def test_configured_names_are_redacted_only_when_configured(start_faultline, origin):
    """Control for the test below: X-Api-Key and ?signature= are not secret by default, so it is
    the --redact-header / --redact-query options that hide them there."""
    proxy = start_faultline("--listen", "127.0.0.1:0")
    api_key, signature = secrets.token_urlsafe(20), secrets.token_urlsafe(20)
    requests_session(proxy.forward.url).get(
        f"{origin.url}/echo?signature={signature}", headers={"X-Api-Key": api_key}, timeout=15)
    text = proxy.trace().text
    assert api_key in text and signature in text


def test_secrets_appear_only_as_fingerprints(start_faultline, origin):
    proxy = start_faultline(
        "--listen", "127.0.0.1:0", "--redact-header", "X-Api-Key", "--redact-query", "signature")
    token, other_token = secrets.token_urlsafe(24), secrets.token_urlsafe(24)
    session_id, api_key, query_key, signature = (secrets.token_urlsafe(20) for _ in range(4))
    proxy_password = secrets.token_urlsafe(16)
    proxy_credentials = base64.b64encode(f"tester:{proxy_password}".encode()).decode()

    session = requests_session(proxy.forward.url)
    seen_by_origin = []
    for bearer in (token, token, other_token):
        response = session.get(
            f"{origin.url}/echo?api_key={query_key}&page=2&signature={signature}",
            headers={
                "Authorization": f"Bearer {bearer}",
                "Cookie": f"sid={session_id}; theme=dark",
                "X-Api-Key": api_key,
                "Proxy-Authorization": f"Basic {proxy_credentials}",
            },
            timeout=15,
        )
        seen_by_origin.append({name.lower(): value for name, value in response.json()["headers"]})
    set_cookie = session.get(f"{origin.url}/set-cookie?name=session", timeout=15).headers["Set-Cookie"]
    cookie_secret = re.match(r"session=([^;]+);", set_cookie).group(1)
    session.close()

    # Redaction is for the trace only: the origin gets the real values.
    assert seen_by_origin[0]["authorization"] == f"Bearer {token}"
    assert seen_by_origin[0]["x-api-key"] == api_key
    assert "proxy-authorization" not in seen_by_origin[0], "Proxy-Authorization is for the proxy only"

    trace = proxy.trace()
    everything = trace.text + proxy.stderr + proxy.stdout
    for name, secret in [("bearer token", token), ("second bearer token", other_token), ("cookie", session_id),
                         ("X-Api-Key", api_key), ("api_key query", query_key), ("signature query", signature),
                         ("Set-Cookie", cookie_secret),
                         ("proxy credentials", proxy_credentials), ("proxy password", proxy_password)]:
        assert secret not in everything, f"the {name} appears in the trace or output"

    received = trace.requests("/echo")
    assert len(received) == 3
    authorizations = [header_values(e["headers"], "authorization")[0] for e in received]
    for value in authorizations:
        assert re.fullmatch(f"Bearer {FP}", value), value
    assert authorizations[0] == authorizations[1] != authorizations[2], "equal tokens, equal fingerprints"
    cookies = [header_values(e["headers"], "cookie")[0] for e in received]
    assert re.match(f"sid={FP}", cookies[0]), cookies[0]
    assert cookies[0] == cookies[1] == cookies[2]
    api_keys = [header_values(e["headers"], "x-api-key")[0] for e in received]
    assert FINGERPRINT.match(api_keys[0]) and len(set(api_keys)) == 1, api_keys
    for event in received:
        assert re.search(f"api_key={FP}", event["url"]) and "page=2" in event["url"], event["url"]
        assert re.search(f"signature={FP}", event["url"]), event["url"]
    set_cookies = [v for e in trace.of("response.received") for v in header_values(e["headers"], "set-cookie")]
    assert len(set_cookies) == 1 and re.match(f"session={FP}", set_cookies[0]), set_cookies


def test_trace_to_stdout(start_faultline, nginx):
    proxy = start_faultline("--listen", "127.0.0.1:0", "--trace", "-")
    requests_session(proxy.forward.url).get(f"{nginx.url}/index.html", timeout=15)
    assert proxy.stop() == 0
    trace = Trace.load(proxy.stdout_path)
    trace.assert_well_formed()
    trace.assert_complete_flow(trace.flow_for("/index.html"), status=200)


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_stopping_during_traffic_leaves_a_complete_trace(start_faultline, nginx, sig):
    proxy = start_faultline("--listen", "127.0.0.1:0")
    stop_clients = threading.Event()
    lock = threading.Lock()
    successes = [0]

    def client(number):
        session = requests_session(proxy.forward.url)
        request = 0
        while not stop_clients.is_set():
            request += 1
            try:
                response = session.get(f"{nginx.url}/index.html?c={number}&r={request}", timeout=10)
            except Exception:
                break  # the proxy is gone
            if response.status_code == 200:
                with lock:
                    successes[0] += 1
        session.close()

    clients = [threading.Thread(target=client, args=(n,), daemon=True) for n in range(4)]
    for thread in clients:
        thread.start()
    try:
        wait_until(lambda: successes[0] >= 100, 30, "100 requests through the proxy")
        code = proxy.stop(sig)
    finally:
        stop_clients.set()
        for thread in clients:
            thread.join(15)
    assert code == 0, f"exit {code} on {sig.name}; stderr: {proxy.stderr}"

    trace = Trace.load(proxy.trace_path)
    trace.assert_well_formed()
    assert trace.events[-1]["seq"] == len(trace.events)
    # Stopping closes every client connection, and those last events reach the file too.
    opened = {event["conn"] for event in trace.of("connection.opened")}
    closed = {event["conn"] for event in trace.of("connection.closed")}
    assert opened and opened <= closed, f"connections opened but never closed in the trace: {opened - closed}"
    # Every response a client received was traced before it was sent.
    delivered = len(trace.of("response.delivered", status=200))
    assert delivered >= successes[0], f"{successes[0]} responses received, {delivered} traced"


def test_secrets_in_less_obvious_places_are_redacted_too(faultline, origin):
    token, cookie_a, cookie_b, refresh, code = (secrets.token_urlsafe(18) for _ in range(5))
    padded = secrets.token_urlsafe(12) + "=="  # base64 padding inside a cookie value
    with RawConnection("127.0.0.1", faultline.forward.port) as connection:
        connection.send(request_bytes("GET", f"{origin.url}/echo?refresh_token={refresh}&x=1", [
            ("Host", origin.authority),
            ("authorization", f"bearer {token}"),  # lower-case name and scheme
            ("Cookie", f"a={cookie_a}"),
            ("Cookie", f"b={cookie_b}; pad={padded}"),  # a second Cookie line
            ("Referer", f"http://app.invalid/callback?code={code}"),
        ]))
        assert connection.read_response().status == 200
    text = faultline.trace().text
    for name, secret in [("lower-case bearer token", token), ("first Cookie line", cookie_a),
                         ("second Cookie line", cookie_b), ("padded cookie", padded),
                         ("refresh_token query", refresh), ("code in Referer", code)]:
        assert secret not in text, f"the {name} appears in the trace"


def test_awkward_field_values_round_trip_through_the_trace(faultline, origin):
    values = ['say "hi"', "back\\slash", "tab\there", "snow \u2603 man", "{\"json\": [1, 2]}", "</script>"]
    with RawConnection("127.0.0.1", faultline.forward.port) as connection:
        connection.send(request_bytes("GET", f"{origin.url}/echo?awkward", [("Host", origin.authority)] + [
            (f"X-Awkward-{i}", value) for i, value in enumerate(values)]))
        assert connection.read_response().status == 200
    trace = faultline.trace()
    headers = trace.requests("awkward")[0]["headers"]
    for i, value in enumerate(values):
        assert header_values(headers, f"X-Awkward-{i}") == [value]

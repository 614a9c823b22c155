"""Forward mode with real clients against real origins: plain GETs, keep-alive, header handling,
interim and close-delimited responses, and concurrency."""
import hashlib
import json
import socket
import threading
import uuid
from concurrent.futures import ThreadPoolExecutor

import pytest

from harness.clients import curl_ok
from harness.http_clients import Sequential, requests_session
from harness.python_origin import pattern_bytes
from harness.rawhttp import RawConnection, request_bytes
from harness.trace import FINGERPRINT, header_values


def marker():
    return uuid.uuid4().hex[:12]


def test_curl_get_arrives_intact_and_traces_one_flow(faultline, nginx):
    body = curl_ok("-x", faultline.forward.url, f"{nginx.url}/random-1m.bin")
    assert body == nginx.read("random-1m.bin")

    trace = faultline.trace()
    trace.assert_well_formed()
    flow = trace.flow_for("/random-1m.bin")
    trace.assert_complete_flow(flow, status=200)
    received = trace.one("request.received", flow=flow)
    assert (received["method"], received["host"], received["port"], received["path"], received["version"]) == (
        "GET", "127.0.0.1", nginx.port, "/random-1m.bin", "HTTP/1.1")
    assert received["url"] == f"{nginx.url}/random-1m.bin"
    assert header_values(received["headers"], "host") == [f"127.0.0.1:{nginx.port}"]
    forwarded = trace.one("request.forwarded", flow=flow)
    assert forwarded["upstream"].endswith(f":{nginx.port}") and forwarded["reused"] is False
    assert trace.one("response.received", flow=flow)["status"] == 200
    delivered = trace.one("response.delivered", flow=flow)
    assert delivered["body"]["length"] == 1 << 20
    assert FINGERPRINT.match(delivered["body"]["fp"]), delivered
    # The flow sits inside its client connection's lifetime.
    conn = received["conn"]
    opened = trace.one("connection.opened", conn=conn)
    closed = trace.one("connection.closed", conn=conn)
    assert opened["seq"] < received["seq"] < delivered["seq"] < closed["seq"]


@pytest.mark.parametrize("library", ["requests", "httpx"])
def test_keep_alive_client_uses_one_upstream_connection(faultline, nginx, library):
    client = Sequential(library, faultline.forward.url)
    expected = nginx.read("index.html")
    try:
        for i in range(20):
            response = client.get(f"{nginx.url}/index.html?i={i}")
            assert response.status_code == 200 and response.content == expected
    finally:
        client.close()

    trace = faultline.trace()
    received = trace.requests("/index.html")
    assert len(received) == 20
    assert len({event["conn"] for event in received}) == 1, "the client should have kept one connection"
    forwarded = trace.of("request.forwarded")
    assert [event["reused"] for event in forwarded] == [False] + [True] * 19
    assert len({event["upstream_conn"] for event in forwarded}) == 1
    for event in received:
        trace.assert_complete_flow(event["flow"], status=200)


def test_forwarded_request_has_via_the_target_host_and_no_hop_by_hop_fields(faultline, origin):
    with RawConnection("127.0.0.1", faultline.forward.port) as connection:
        # RFC 9112 §3.2.2: with absolute-form, the target's authority replaces whatever Host says.
        connection.send(request_bytes("GET", f"{origin.url}/echo?hop", [
            ("Host", "elsewhere.invalid"),
            ("Connection", "keep-alive, X-Hop"),
            ("X-Hop", "only for the proxy"),
            ("Proxy-Connection", "keep-alive"),
            ("Keep-Alive", "timeout=5"),
            ("X-End-To-End", "kept"),
        ]))
        response = connection.read_response()
    assert response.status == 200
    assert response.header("via") == "1.1 faultline"
    seen = {name.lower(): value for name, value in json.loads(response.body)["headers"]}
    assert seen["host"] == origin.authority
    assert seen["via"] == "1.1 faultline"
    assert seen["x-end-to-end"] == "kept"
    for removed in ("x-hop", "proxy-connection", "keep-alive"):
        assert removed not in seen, f"hop-by-hop field {removed} reached the origin: {seen}"
    faultline.trace()


def test_several_set_cookie_fields_stay_separate_and_in_order(faultline, origin):
    # RFC 9110 §5.3: Set-Cookie cannot be combined into one field line; order matters too.
    with RawConnection("127.0.0.1", faultline.forward.port) as connection:
        connection.send(request_bytes(
            "GET", f"{origin.url}/set-cookie?name=first&value=1&extra=3", [("Host", origin.authority)]))
        response = connection.read_response()
    assert response.headers_named("set-cookie") == [
        "first=1; Path=/; HttpOnly", "extra0=v0; Path=/", "extra1=v1; Path=/", "extra2=v2; Path=/"]
    faultline.trace()


def _ipv6_loopback():
    try:
        with socket.socket(socket.AF_INET6) as probe:
            probe.bind(("::1", 0))
        return True
    except OSError:
        return False


@pytest.mark.skipif(not _ipv6_loopback(), reason="no IPv6 loopback on this machine")
def test_ipv6_listener_and_an_upstream_named_localhost(start_faultline, nginx):
    proxy = start_faultline("--listen", "[::1]:0")
    assert proxy.forward.host == "[::1]"
    # nginx listens on 127.0.0.1 only: if localhost resolves to ::1 first, the proxy must fall back.
    body = curl_ok("-x", proxy.forward.url, f"http://localhost:{nginx.port}/index.html")
    assert body == nginx.read("index.html")
    trace = proxy.trace()
    received = trace.one("request.received")
    assert (received["host"], received["port"]) == ("localhost", nginx.port)
    assert trace.one("request.forwarded")["upstream"] == f"127.0.0.1:{nginx.port}"


def test_field_values_with_obs_text_pass_through_unchanged(faultline, origin):
    # RFC 9110 §5.5: field values may carry obs-text (0x80-0xFF); a proxy forwards them as they are.
    with RawConnection("127.0.0.1", faultline.forward.port) as connection:
        connection.send(b"GET " + origin.url.encode() + b"/echo?obs-text HTTP/1.1\r\nHost: "
                        + origin.authority.encode() + b"\r\nX-Latin: caf\xe9\r\n\r\n")
        response = connection.read_response()
    seen = dict(json.loads(response.body)["headers"])
    # The origin (http.server) decodes field values as Latin-1, so 0xE9 arrives as "é".
    assert seen["X-Latin"] == "caf\u00e9", f"the origin received {seen['X-Latin'].encode('latin-1')!r}"
    faultline.trace()


def test_100_continue_is_relayed_before_the_body_is_sent(faultline, origin):
    body = pattern_bytes(200_000, seed=3)
    with RawConnection("127.0.0.1", faultline.forward.port) as connection:
        connection.send(request_bytes("POST", f"{origin.url}/echo?continue", [
            ("Host", origin.authority),
            ("Content-Length", str(len(body))),
            ("Expect", "100-continue"),
        ]))
        # RFC 9110 §10.1.1: the client waits for 100 before sending the body; here it waits for good.
        interim = connection.read_response(timeout=5)
        assert interim.status == 100, f"expected 100 Continue first, got {interim.status}"
        connection.send(body)
        final = connection.read_response()
    assert final.status == 200
    report = json.loads(final.body)
    assert report["sent_continue"] is True
    assert report["body_length"] == len(body)
    assert report["body_sha256"] == hashlib.sha256(body).hexdigest()
    trace = faultline.trace()
    trace.assert_complete_flow(trace.flow_for("/echo?continue"), status=200)


def test_close_delimited_response_is_rechunked_for_http11_and_the_connection_survives(faultline, origin):
    expected = pattern_bytes(50_000, seed=7)
    with RawConnection("127.0.0.1", faultline.forward.port) as connection:
        connection.send(request_bytes("GET", f"{origin.url}/close-delimited?size=50000", [("Host", origin.authority)]))
        response = connection.read_response()
        assert response.status == 200
        assert response.chunked, f"an HTTP/1.1 client should get chunked framing, got {response.headers}"
        assert response.body == expected
        connection.send(request_bytes("GET", f"{origin.url}/echo?after-close-delimited", [("Host", origin.authority)]))
        assert connection.read_response().status == 200

    trace = faultline.trace()
    flow = trace.flow_for("/close-delimited")
    trace.assert_complete_flow(flow, status=200)
    assert trace.one("response.delivered", flow=flow)["body"]["length"] == 50_000


def test_close_delimited_response_to_http10_client_ends_with_close(faultline, origin):
    expected = pattern_bytes(30_000, seed=7)
    with RawConnection("127.0.0.1", faultline.forward.port) as connection:
        connection.send(request_bytes(
            "GET", f"{origin.url}/close-delimited?size=30000", [("Host", origin.authority)], version="HTTP/1.0"))
        response = connection.read_response()
        assert response.status == 200 and not response.chunked
        assert response.body == expected
    faultline.trace()


def test_head_response_keeps_its_content_length_and_has_no_body(faultline, nginx):
    size = len(nginx.read("random-1m.bin"))
    with RawConnection("127.0.0.1", faultline.forward.port) as connection:
        connection.send(request_bytes("HEAD", f"{nginx.url}/random-1m.bin", [("Host", f"127.0.0.1:{nginx.port}")]))
        head = connection.read_response(method="HEAD")
        assert head.status == 200 and head.header("content-length") == str(size)
        # No body bytes may follow: the next response on the connection must parse cleanly.
        connection.send(request_bytes("GET", f"{nginx.url}/index.html", [("Host", f"127.0.0.1:{nginx.port}")]))
        follow = connection.read_response()
        assert follow.status == 200 and follow.body == nginx.read("index.html")
    faultline.trace()


def test_fifty_concurrent_clients_are_not_delayed_by_a_held_response(faultline, nginx, origin):
    key = marker()
    gate = origin.gate(key)
    held = {}

    def held_request():
        session = requests_session(faultline.forward.url)
        try:
            response = session.get(f"{origin.url}/slow?key={key}", timeout=60)
            held["status"], held["text"] = response.status_code, response.text
        finally:
            session.close()

    held_thread = threading.Thread(target=held_request, daemon=True)
    held_thread.start()
    try:
        gate.wait_arrived()
        expected = nginx.read("index.html")

        def client(number):
            session = requests_session(faultline.forward.url)
            try:
                for request in range(20):
                    response = session.get(f"{nginx.url}/index.html?client={number}&request={request}", timeout=30)
                    assert response.status_code == 200 and response.content == expected
                return 20
            finally:
                session.close()

        with ThreadPoolExecutor(max_workers=50) as pool:
            done = list(pool.map(client, range(50), timeout=90))
        assert done == [20] * 50
        assert not held, "the held response completed before it was released"
    finally:
        gate.release()
    held_thread.join(15)
    assert held.get("status") == 200 and held["text"] == f"released {key}\n"

    trace = faultline.trace()
    statuses = [event["status"] for event in trace.of("response.delivered")]
    assert len(statuses) == 1001 and set(statuses) == {200}
    assert len({event["conn"] for event in trace.requests()}) == 51

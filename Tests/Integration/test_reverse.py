"""Reverse mode: origin-form requests to one fixed upstream, alone and next to a forward listener."""
import hashlib

import pytest

from harness.clients import curl_ok
from harness.http_clients import httpx_client
from harness.rawhttp import RawConnection, request_bytes
from harness.trace import header_values
from harness.waiting import closed_port


@pytest.fixture
def reverse_proxy(start_faultline, origin):
    return start_faultline("--listen", "127.0.0.1:0", "--mode", f"reverse:{origin.url}")


def test_banner_names_the_upstream(reverse_proxy, origin):
    listener = reverse_proxy.reverse
    assert listener.upstream is not None and str(origin.port) in listener.upstream, listener


def test_httpx_base_url_reaches_the_upstream_with_host_rewritten(reverse_proxy, origin):
    listener = reverse_proxy.reverse
    body = b"reverse body " * 1000
    with httpx_client(base_url=listener.url) as client:
        for i in range(5):
            response = client.get(f"/echo?reverse={i}")
            assert response.status_code == 200
            report = response.json()
            assert report["target"] == f"/echo?reverse={i}"
            seen = {name.lower(): value for name, value in report["headers"]}
            assert seen["host"] == origin.authority, "Host must name the upstream, not the proxy"
            assert seen["via"] == "1.1 faultline"
        posted = client.post("/echo?reverse-post", content=body).json()
    assert (posted["method"], posted["body_length"]) == ("POST", len(body))
    assert posted["body_sha256"] == hashlib.sha256(body).hexdigest()

    trace = reverse_proxy.trace()
    received = trace.requests("reverse=")
    assert len(received) == 5
    for event in received:
        assert (event["host"], event["port"], event["path"]) == ("127.0.0.1", origin.port, "/echo")
        # The trace keeps what the client sent: its Host named the proxy.
        assert header_values(event["headers"], "host") == [f"{listener.host}:{listener.port}"]
        trace.assert_complete_flow(event["flow"], status=200)
    assert [e["reused"] for e in trace.of("request.forwarded")] == [False] + [True] * 5


def test_absolute_form_is_accepted_and_still_goes_to_the_upstream(reverse_proxy, origin):
    # RFC 9112 §3.2.2: a server accepts absolute-form; the reverse proxy keeps its fixed upstream.
    with RawConnection("127.0.0.1", reverse_proxy.reverse.port) as connection:
        connection.send(request_bytes("GET", "http://elsewhere.invalid/echo?absolute", [("Host", "elsewhere.invalid")]))
        response = connection.read_response()
    assert response.status == 200
    assert b'"/echo?absolute"' in response.body
    reverse_proxy.trace()


def test_connect_is_refused_in_reverse_mode(reverse_proxy):
    with RawConnection("127.0.0.1", reverse_proxy.reverse.port) as connection:
        connection.send(request_bytes("CONNECT", "example.com:443", [("Host", "example.com:443")]))
        response = connection.read_response()
        assert response.status == 501 and response.header("x-faultline-error")
        connection.assert_closed_by_peer()
    trace = reverse_proxy.trace()
    assert trace.one("protocol.error")["status"] == 501


def test_unreachable_upstream_answers_502(start_faultline):
    proxy = start_faultline("--listen", "127.0.0.1:0", "--mode", f"reverse:http://127.0.0.1:{closed_port()}")
    with httpx_client(base_url=proxy.reverse.url) as client:
        response = client.get("/anything")
    assert response.status_code == 502 and response.text.startswith("faultline:")
    assert proxy.trace().one("upstream.error")["status"] == 502


def test_forward_and_reverse_listeners_in_one_process(start_faultline, nginx, origin):
    proxy = start_faultline(
        "--listen", "127.0.0.1:0", "--listen", "127.0.0.1:0", "--mode", f"reverse:{origin.url}")
    assert [listener.mode for listener in proxy.listeners] == ["forward", "reverse"]
    assert proxy.forward.port != proxy.reverse.port

    assert curl_ok("-x", proxy.forward.url, f"{nginx.url}/index.html") == nginx.read("index.html")
    with httpx_client(base_url=proxy.reverse.url) as client:
        assert client.get("/echo?two-listeners").json()["target"] == "/echo?two-listeners"
    # A forward listener refuses origin-form, which proves the two listeners keep their own modes.
    with RawConnection("127.0.0.1", proxy.forward.port) as connection:
        connection.send(request_bytes("GET", "/echo", [("Host", "127.0.0.1")]))
        assert connection.read_response().status == 400

    trace = proxy.trace()
    assert len(trace.of("listener.started")) == 2
    trace.assert_complete_flow(trace.flow_for("/index.html"), status=200)
    trace.assert_complete_flow(trace.flow_for("two-listeners"), status=200)

"""Malformed requests over a raw socket. Each is refused with its status, traced as a
protocol.error, and the connection is closed, so a request smuggled behind it on the same
connection never reaches the origin (RFC 9112 §11.2 on request smuggling)."""
import uuid

import pytest

from harness.rawhttp import PeerClosed, RawConnection, request_bytes


def malformed_cases():
    """name -> (expected status, builder(target, host) -> bytes)."""

    def raw(text):
        return text.encode("latin-1")

    return {
        "content-length-with-transfer-encoding": (400, lambda t, h: request_bytes(
            "POST", t, [("Host", h), ("Content-Length", "5"), ("Transfer-Encoding", "chunked")], b"0\r\n\r\n")),
        "invalid-chunk-size": (400, lambda t, h: request_bytes(
            "POST", t, [("Host", h), ("Transfer-Encoding", "chunked")], b"zz\r\nhello\r\n0\r\n\r\n")),
        "obsolete-line-folding": (400, lambda t, h: raw(
            f"GET {t} HTTP/1.1\r\nHost: {h}\r\nX-Folded: first\r\n second\r\n\r\n")),
        "missing-host": (400, lambda t, h: raw(f"GET {t} HTTP/1.1\r\nUser-Agent: raw\r\n\r\n")),
        "transfer-encoding-gzip": (501, lambda t, h: request_bytes(
            "POST", t, [("Host", h), ("Transfer-Encoding", "gzip")], b"hello")),
        "http-2.0-version": (505, lambda t, h: raw(f"GET {t} HTTP/2.0\r\nHost: {h}\r\n\r\n")),
        "request-line-too-long": (414, lambda t, h: raw(f"GET {t}&{'a' * 10_000} HTTP/1.1\r\nHost: {h}\r\n\r\n")),
        "header-section-too-large": (431, lambda t, h: request_bytes(
            "GET", t, [("Host", h)] + [(f"X-Filler-{i}", "b" * 1000) for i in range(100)])),
    }


CASES = malformed_cases()


@pytest.fixture(params=["forward", "reverse"])
def proxy_and_target(request, start_faultline, origin):
    """(listener, target(path) function, Host value) for either mode, in front of the Python origin."""
    if request.param == "forward":
        proxy = start_faultline("--listen", "127.0.0.1:0")
        return proxy, proxy.forward, (lambda path: f"{origin.url}{path}"), origin.authority
    proxy = start_faultline("--listen", "127.0.0.1:0", "--mode", f"reverse:{origin.url}")
    listener = proxy.reverse
    return proxy, listener, (lambda path: path), f"{listener.host}:{listener.port}"


@pytest.mark.parametrize("case", list(CASES))
def test_malformed_request_is_refused_and_nothing_behind_it_is_forwarded(proxy_and_target, origin, case):
    proxy, listener, target, host = proxy_and_target
    status, build = CASES[case]
    mark = uuid.uuid4().hex[:12]
    malformed = build(target(f"/echo?malformed-{mark}"), host)
    smuggled = request_bytes("GET", target(f"/echo?smuggled-{mark}"), [("Host", host)])

    with RawConnection("127.0.0.1", listener.port) as connection:
        connection.send(malformed + smuggled)
        try:
            response = connection.read_response()
        except PeerClosed as closed:
            raise AssertionError(f"{case}: the proxy closed without answering {status}") from closed
        assert response.status == status, f"{case}: expected {status}, got {response.status} {response.body[:200]!r}"
        assert response.header("x-faultline-error"), response.headers
        assert response.body.startswith(b"faultline:"), response.body[:200]
        connection.assert_closed_by_peer()

    trace = proxy.trace()
    errors = trace.of("protocol.error")
    assert len(errors) == 1, errors
    assert (errors[0]["side"], errors[0]["status"]) == ("client", status), errors[0]
    assert errors[0]["code"] == response.header("x-faultline-error")
    assert not trace.requests(f"smuggled-{mark}"), "the request after the malformed one was parsed"
    assert not origin.seen(f"smuggled-{mark}"), "the request after the malformed one reached the origin"


def test_origin_form_to_a_forward_listener_is_refused(faultline):
    with RawConnection("127.0.0.1", faultline.forward.port) as connection:
        connection.send(request_bytes("GET", "/index.html", [("Host", "127.0.0.1")]))
        response = connection.read_response()
        assert response.status == 400 and response.body.startswith(b"faultline:")
        connection.assert_closed_by_peer()
    assert faultline.trace().one("protocol.error")["status"] == 400


def test_a_scheme_other_than_http_and_https_in_absolute_form_is_not_implemented(faultline):
    # https:// is fetched over TLS (test_tls_interception.py); ftp:// and the rest are refused.
    with RawConnection("127.0.0.1", faultline.forward.port) as connection:
        connection.send(request_bytes("GET", "ftp://example.invalid/", [("Host", "example.invalid")]))
        response = connection.read_response()
    assert response.status == 501 and response.header("x-faultline-error") == "unsupported-scheme"
    faultline.trace()


def test_request_that_already_passed_through_faultline_is_a_loop(faultline, origin):
    with RawConnection("127.0.0.1", faultline.forward.port) as connection:
        connection.send(request_bytes(
            "GET", f"{origin.url}/echo?looped", [("Host", origin.authority), ("Via", "1.1 faultline")]))
        response = connection.read_response()
    assert response.status == 508
    assert not origin.seen("looped")
    faultline.trace()

"""Tunnels: CONNECT to a TLS origin (the client verifies the origin's certificate end to end) and
WebSocket upgrades relayed after 101.

The proxy intercepts every CONNECT by default (test_tls_interception.py); the CONNECT tests here
start it with `--ignore localhost --ignore 127.0.0.1`, so their tunnels stay opaque byte relays."""
import json
import os
import socket
import ssl

import pytest

from harness.clients import curl
from harness.http_clients import requests_session
from harness.rawhttp import RawConnection, request_bytes
from harness.waiting import closed_port
from harness.websocket import OP_BINARY, OP_TEXT, WebSocketClient


@pytest.fixture
def tunnelling(start_faultline):
    """A forward proxy that tunnels CONNECTs to loopback origins instead of intercepting them."""
    return start_faultline("--listen", "127.0.0.1:0", "--ignore", "localhost", "--ignore", "127.0.0.1")


def test_curl_connect_verifies_the_origin_certificate_through_the_tunnel(tunnelling, tls_origin, certificates):
    url = f"https://localhost:{tls_origin.port}/echo?through-connect"
    done = curl("-x", tunnelling.forward.url, "--cacert", certificates["ca.pem"], url)
    assert done.returncode == 0, done.stderr.decode(errors="replace")
    report = json.loads(done.stdout)
    assert report["target"] == "/echo?through-connect"
    # The tunnel is opaque: the origin sees no Via, and the proxy sees no request inside it.
    assert "Via" not in dict(report["headers"])
    # curl has exited; the tunnel ends once the origin closes its side too.
    tunnelling.wait_for_event("tunnel.closed")

    trace = tunnelling.trace()
    connect = trace.one("request.received", method="CONNECT")
    assert (connect["host"], connect["port"]) == ("localhost", tls_origin.port)
    opened = trace.one("tunnel.opened", flow=connect["flow"])
    assert (opened.get("intercepted"), opened.get("reason")) == (False, "ignored"), opened
    closed = trace.one("tunnel.closed", flow=connect["flow"])
    assert opened["seq"] < closed["seq"]
    assert closed["bytes_from_client"] > 0 and closed["bytes_from_upstream"] > 0
    assert not trace.requests("through-connect"), "bytes inside the tunnel must not be parsed as requests"


def test_tunnel_closes_cleanly_after_both_sides_finish(tunnelling, tls_origin, certificates):
    """A hand-driven TLS client: the tunnel must relay each side's FIN, and the proxy closes the
    client connection only after tracing tunnel.closed."""
    context = ssl.create_default_context(cafile=certificates["ca.pem"])
    raw = socket.create_connection(("127.0.0.1", tunnelling.forward.port), timeout=10)
    try:
        authority = f"localhost:{tls_origin.port}"
        raw.sendall(request_bytes("CONNECT", authority, [("Host", authority)]))
        head = b""
        while b"\r\n\r\n" not in head:
            piece = raw.recv(1)  # byte by byte: nothing of the TLS stream may be consumed here
            assert piece, f"proxy closed during the CONNECT answer: {head!r}"
            head += piece
        assert head.split(b" ")[1] == b"200", head
        tls = context.wrap_socket(raw, server_hostname="localhost")
        tls.sendall(request_bytes("GET", "/echo?hand-driven", [("Host", authority), ("Connection", "close")]))
        response = b""
        while True:
            try:
                piece = tls.recv(65536)
            except (ssl.SSLEOFError, ConnectionResetError):
                break
            if not piece:
                break
            response += piece
        assert response.startswith(b"HTTP/1.1 200"), response[:200]
        assert b"/echo?hand-driven" in response
        raw = tls
        raw.shutdown(socket.SHUT_WR)  # TCP FIN (CPython drops the TLS layer here, no close_notify)
        raw.settimeout(10)
        while True:  # the proxy closes once both sides are done; it must not leave us hanging
            try:
                if not raw.recv(65536):
                    break
            except (ssl.SSLError, ConnectionResetError):
                break
    finally:
        raw.close()

    trace = tunnelling.trace()
    closed = trace.one("tunnel.closed")
    assert closed["bytes_from_client"] > 0 and closed["bytes_from_upstream"] > 0


def test_curl_rejects_a_certificate_from_an_untrusted_ca_through_the_tunnel(tunnelling, tls_origin, tmp_path):
    # Without our CA, verification must fail: the tunnel does not terminate TLS.
    done = curl("-x", tunnelling.forward.url, "--cacert", "/dev/null", f"https://localhost:{tls_origin.port}/echo")
    assert done.returncode in (35, 60, 77), (done.returncode, done.stderr)
    tunnelling.trace()


def test_requests_session_reuses_one_tunnel_for_several_https_requests(tunnelling, tls_origin, certificates):
    session = requests_session(tunnelling.forward.url)
    session.verify = certificates["ca.pem"]

    def fetch(i):
        # Responses stay local: a live urllib3 response keeps the socket's file descriptor open
        # even after session.close(), and the tunnel would never see the client's FIN.
        response = session.get(f"https://localhost:{tls_origin.port}/echo?tunnel-{i}", timeout=15)
        return response.status_code, response.json()["target"]

    for i in range(5):
        assert fetch(i) == (200, f"/echo?tunnel-{i}")
    session.close()
    tunnelling.wait_for_event("tunnel.closed")

    trace = tunnelling.trace()
    assert len(trace.of("request.received", method="CONNECT")) == 1
    closed = trace.one("tunnel.closed")
    assert closed["bytes_from_client"] > 0 and closed["bytes_from_upstream"] > 0


def test_connect_to_a_closed_port_answers_502(tunnelling):
    port = closed_port()
    with RawConnection("127.0.0.1", tunnelling.forward.port) as connection:
        connection.send(request_bytes("CONNECT", f"127.0.0.1:{port}", [("Host", f"127.0.0.1:{port}")]))
        response = connection.read_response()
    assert response.status == 502
    assert response.header("x-faultline-error")
    assert response.body.startswith(b"faultline:")
    trace = tunnelling.trace()
    assert trace.one("upstream.error")["status"] == 502
    assert not trace.of("tunnel.opened")


def test_websocket_messages_echo_through_the_forward_proxy(faultline, ws_origin):
    client = WebSocketClient.through_proxy(
        "127.0.0.1", faultline.forward.port, f"127.0.0.1:{ws_origin.port}", path="/ws?echo")
    messages = ["hello", "é ü 漢字", "x" * 70_000]
    for text in messages:
        client.send_text(text)
        opcode, payload = client.receive()
        assert (opcode, payload.decode()) == (OP_TEXT, text)
    blob = os.urandom(300_000)
    client.send_binary(blob)
    assert client.receive() == (OP_BINARY, blob)
    client.close()

    trace = faultline.trace()
    flow = trace.flow_for("/ws?echo")
    assert trace.one("response.received", flow=flow)["status"] == 101
    opened = trace.one("tunnel.opened", flow=flow)
    closed = trace.one("tunnel.closed", flow=flow)
    assert opened["seq"] < closed["seq"]
    sent = sum(len(m.encode()) for m in messages) + len(blob)
    assert closed["bytes_from_client"] > sent and closed["bytes_from_upstream"] >= sent

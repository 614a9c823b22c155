"""Connection management: pipelining, idle timeouts, stale pooled upstream connections, clients
that leave in the middle, HTTP/1.0 keep-alive, and CONNECT with bytes sent before the 200."""
import json
import socket
import struct
import time
import uuid

import pytest

from harness.http_clients import requests_session
from harness.python_origin import pattern_bytes
from harness.rawhttp import RawConnection, request_bytes
from harness.waiting import wait_until


def test_pipelined_requests_are_answered_in_order(faultline, origin):
    # RFC 9112 §9.3.2: responses to pipelined requests come back in request order.
    targets = [f"/echo?pipelined-{i}" for i in range(5)]
    with RawConnection("127.0.0.1", faultline.forward.port) as connection:
        connection.send(b"".join(
            request_bytes("GET", f"{origin.url}{target}", [("Host", origin.authority)]) for target in targets))
        answered = [json.loads(connection.read_response().body)["target"] for _ in targets]
    assert answered == targets
    trace = faultline.trace()
    for target in targets:
        trace.assert_complete_flow(trace.flow_for(target), status=200)


def test_idle_client_connection_is_closed_after_the_idle_timeout(start_faultline, origin):
    proxy = start_faultline("--listen", "127.0.0.1:0", "--idle-timeout", "0.5")
    with RawConnection("127.0.0.1", proxy.forward.port) as connection:
        connection.send(request_bytes("GET", f"{origin.url}/echo?before-idle", [("Host", origin.authority)]))
        assert connection.read_response().status == 200
        connection.assert_closed_by_peer(timeout=10)
    trace = proxy.trace()
    closed = trace.one("connection.closed", conn=trace.requests("before-idle")[0]["conn"])
    assert "idle" in closed.get("reason", ""), closed


def test_a_stale_pooled_upstream_connection_does_not_fail_the_next_request(faultline, origin):
    # The origin closes its side right after each /then-close response without saying so; the
    # next request must not get an error because the proxy picked that connection from its pool
    # (RFC 9112 §9.3.1 lets a proxy retry a request without a body on a new connection).
    session = requests_session(faultline.forward.url)
    for i in range(5):
        response = session.get(f"{origin.url}/then-close?size=100&i={i}", timeout=15)
        assert response.status_code == 200 and response.content == pattern_bytes(100, seed=11)
    session.close()
    trace = faultline.trace()
    assert not trace.of("upstream.error"), trace.of("upstream.error")
    assert [e["status"] for e in trace.of("response.delivered")] == [200] * 5


def test_client_leaving_mid_exchange_does_not_disturb_the_proxy(faultline, origin):
    key = uuid.uuid4().hex[:12]
    gate = origin.gate(key)
    leaving = RawConnection("127.0.0.1", faultline.forward.port)
    leaving.send(request_bytes("GET", f"{origin.url}/slow?key={key}", [("Host", origin.authority)]))
    gate.wait_arrived()
    received = faultline.wait_for_event("request.received", where=lambda event: key in event["url"])
    # An abortive close (RST) while the origin still holds the response.
    leaving.sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    leaving.close()
    faultline.wait_for_event("connection.closed", conn=received["conn"])
    gate.release()

    session = requests_session(faultline.forward.url)
    assert session.get(f"{origin.url}/echo?after-abort", timeout=15).status_code == 200
    session.close()
    trace = faultline.trace()
    assert not trace.of("response.delivered", flow=received["flow"]), "nothing can be delivered to a client that left"


def test_http10_client_with_keep_alive_keeps_its_connection(faultline, origin):
    with RawConnection("127.0.0.1", faultline.forward.port) as connection:
        for i in range(3):
            connection.send(request_bytes("GET", f"{origin.url}/echo?http10-{i}",
                                          [("Host", origin.authority), ("Connection", "keep-alive")],
                                          version="HTTP/1.0"))
            response = connection.read_response()
            assert response.status == 200 and not response.chunked
            assert "keep-alive" in (response.header("connection") or "").lower(), response.headers
    trace = faultline.trace()
    assert len({event["conn"] for event in trace.requests("http10-")}) == 1


def test_connect_relays_bytes_sent_before_the_200(faultline, origin):
    # A client may send its first tunnel bytes right behind the CONNECT head; they must go up.
    request = request_bytes("GET", "/echo?early-tunnel-bytes", [("Host", origin.authority), ("Connection", "close")])
    with RawConnection("127.0.0.1", faultline.forward.port) as connection:
        connection.send(request_bytes("CONNECT", origin.authority, [("Host", origin.authority)]) + request)
        assert connection.read_head()[1] == 200
        response = connection.read_response()
    assert response.status == 200
    assert json.loads(response.body)["target"] == "/echo?early-tunnel-bytes"
    faultline.wait_for_event("tunnel.closed")
    assert faultline.trace().one("tunnel.closed")["bytes_from_client"] == len(request)


@pytest.mark.timeout(90)
def test_running_out_of_file_descriptors_is_survivable(start_faultline, origin):
    proxy = start_faultline("--listen", "127.0.0.1:0", file_limit=64)
    clients = []
    try:
        for i in range(100):  # twice what 64 descriptors can carry (each needs an upstream too)
            client = socket.create_connection(("127.0.0.1", proxy.forward.port), timeout=10)
            client.sendall(request_bytes("GET", f"{origin.url}/echo?flood-{i}", [("Host", origin.authority)]))
            clients.append(client)
        # An observation window, not an ordering: the proxy must stay up while saturated. 12 s
        # because the crash this guards against comes about 9 s into the exhaustion.
        end = time.monotonic() + 12
        while time.monotonic() < end:
            assert proxy.process.poll() is None, f"faultline died while out of descriptors: {proxy.stderr}"
            time.sleep(0.05)
    finally:
        for client in clients:
            client.close()

    def serves_again():
        assert proxy.process.poll() is None, f"faultline died after the flood: {proxy.stderr}"
        try:
            return requests_session(proxy.forward.url).get(f"{origin.url}/echo?after-flood", timeout=5).status_code == 200
        except OSError:
            return False

    wait_until(serves_again, 20, "faultline to serve again after the descriptor flood")

"""The header timeout (`--header-timeout`, haproxy's `timeout http-request`): a request head has
that long from its first byte to its end. A slowloris client, which sends a byte now and then to
hold a connection for the whole idle timeout, gets 408 and is closed; clients beside it are
served as usual.

| client | gets | trace |
|---|---|---|
| a head that stops half-way (or trickles) | `408 Request Timeout`, `Connection: close`, then FIN | `protocol.error` `code: "header-timeout"`, `status: 408` |
| a whole head | its response | nothing new |
"""
import time

import pytest

from harness.http_clients import requests_session
from harness.rawhttp import RawConnection

pytestmark = pytest.mark.timeout(60)

SLOW_CLIENTS = 20


def trickle(connection):
    """One more byte of the head (a trickle does not restart the clock); a connection the proxy
    has already answered and closed refuses it, which is fine."""
    try:
        connection.send(b"b")
    except (BrokenPipeError, ConnectionResetError):
        pass


def test_slowloris_clients_get_408_while_other_clients_are_served(start_faultline, origin):
    """20 connections each send half a request head, then one more byte a few times; with
    `--header-timeout 1` every one is answered 408 and closed within a few seconds (the idle
    timeout, 120 s, would have held them), while a requests client beside them is served."""
    proxy = start_faultline("--listen", "127.0.0.1:0", "--header-timeout", "1")
    port = proxy.forward.port
    slow = [RawConnection("127.0.0.1", port) for _ in range(SLOW_CLIENTS)]
    try:
        for connection in slow:
            connection.send(f"GET {origin.url}/echo?slowloris HTTP/1.1\r\nHost: {origin.authority}\r\nX-A".encode())
        started = time.monotonic()
        served = 0
        with requests_session() as session:
            # Traffic beside the slow clients, until they have all been answered (bounded).
            for index in range(200):
                response = session.get(f"{origin.url}/echo?beside-{index}",
                                       proxies={"http": f"http://127.0.0.1:{port}"}, timeout=10)
                assert response.status_code == 200
                served += 1
                for connection in slow:
                    trickle(connection)
                answered = [event for event in proxy.events_so_far() if event.get("event") == "protocol.error"]
                if len(answered) >= SLOW_CLIENTS:
                    break
        for connection in slow:
            response = connection.read_response(timeout=10)
            assert response.status == 408, response
            assert response.header("Connection") == "close"
            connection.assert_closed_by_peer()
        assert time.monotonic() - started < 30, "the slow clients were held far past the header timeout"
    finally:
        for connection in slow:
            connection.close()

    trace = proxy.trace()
    errors = trace.of("protocol.error")
    assert len(errors) == SLOW_CLIENTS, errors
    assert {(error["code"], error["status"], error["side"]) for error in errors} == {("header-timeout", 408, "client")}
    assert served >= 1 and trace.requests("beside-0")
    assert not origin.seen("slowloris")


def test_a_head_sent_in_pieces_within_the_timeout_is_served(start_faultline, origin):
    """A head that arrives in three pieces, all within the timeout, is an ordinary request."""
    proxy = start_faultline("--listen", "127.0.0.1:0", "--header-timeout", "5")
    with RawConnection("127.0.0.1", proxy.forward.port) as connection:
        for piece in (f"GET {origin.url}/echo?pieces HTTP/1.1\r\n", f"Host: {origin.authority}\r\n", "\r\n"):
            connection.send(piece.encode())
        assert connection.read_response().status == 200
    assert not proxy.trace().of("protocol.error")

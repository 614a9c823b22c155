"""The send timeout (`--send-timeout`, nginx's `send_timeout`): output waiting for a client that
reads none of it is bounded; the time counts between two writes that move some of it
(Sources/FaultlineServer/Driver/ClientConnectionHandler+SendTimeout.swift). The clients are raw
sockets with a small SO_RCVBUF that never call recv, so the kernel's buffers fill at once and
the rest waits in the proxy.

| client | Faultline | trace |
|---|---|---|
| HTTP/1, a 1 GiB download it stops reading | closes the connection after the timeout; another client is served meanwhile | `protocol.error` code `send-timeout`, `flow.aborted` reason `send-timeout`, `connection.closed` reason `send-timeout` |
| HTTP/1, its upload stops after its 1 GiB answer began (the body timeout leaves the connection to close after flush) | the same: the close does not wait for ever | `protocol.error` `body-timeout`, then `protocol.error` `send-timeout`, `connection.closed` `send-timeout` |
| HTTP/2, a stream with every window open, the socket not read | the same | the same |
| HTTP/1, a slow reader that keeps reading | served on, well past the timeout | no `send-timeout` |

Every wait has a deadline; nothing is ordered by sleeping."""
import socket
import time

import hpack
import pytest

from harness import h2_raw
from harness.http_clients import requests_session

pytestmark = pytest.mark.timeout(60)

SMALL_BUFFER = 4096


def start_reverse(start_faultline, nginx, *args):
    return start_faultline("--listen", "127.0.0.1:0", "--mode", f"reverse:{nginx.url}", *args)


def non_reading_socket(port):
    """A connection whose receive buffer is small (set before connecting, so the window it
    offers is small too); the tests never read it until they look for the close."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, SMALL_BUFFER)
    sock.settimeout(10)
    sock.connect(("127.0.0.1", port))
    return sock


def assert_closed_by_peer(sock, timeout=15):
    """Reads (and drops) what the kernel still holds until the peer's FIN or reset."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        sock.settimeout(max(0.01, deadline - time.monotonic()))
        try:
            if not sock.recv(1 << 16):
                return
        except ConnectionResetError:
            return
    raise AssertionError(f"the connection was still open after {timeout}s")


def wait_for_send_timeout_cut(proxy, sock, started):
    """Waits for the proxy to close `sock`'s connection for the send timeout, then for the close
    to reach the socket; returns the seconds since `started`."""
    proxy.wait_for_event("connection.closed", timeout=15, reason="send-timeout")
    elapsed = time.monotonic() - started
    assert_closed_by_peer(sock)
    return elapsed


def assert_cut_by_send_timeout(proxy, flow_aborted=True):
    """The trace of one connection cut by the send timeout; returns its protocol.error."""
    trace = proxy.trace()
    [error] = trace.of("protocol.error", code="send-timeout")
    assert error["side"] == "client" and error["queued_bytes"] > 0, error
    [closed] = trace.of("connection.closed", conn=error["conn"])
    assert closed["reason"] == "send-timeout", closed
    assert closed["seq"] > error["seq"]
    aborted = [event for event in trace.of("flow.aborted") if event["conn"] == error["conn"]]
    if flow_aborted:
        assert [event["reason"] for event in aborted] == ["send-timeout"], aborted
    else:
        assert not aborted, aborted
    return error


def test_an_http1_client_that_stops_reading_is_closed(start_faultline, nginx):
    proxy = start_reverse(start_faultline, nginx, "--send-timeout", "1")
    with non_reading_socket(proxy.reverse.port) as sock:
        sock.sendall(b"GET /big-1g.bin HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        started = time.monotonic()
        # Another client is served while the download is stuck.
        with requests_session() as session:
            response = session.get(proxy.reverse.url + "/index.html", timeout=10)
            assert response.status_code == 200
        elapsed = wait_for_send_timeout_cut(proxy, sock, started)
    assert 0.9 < elapsed < 10, elapsed  # never before the timeout; about 1.25 of it
    assert_cut_by_send_timeout(proxy)


def test_a_close_after_flush_does_not_wait_for_ever(start_faultline, nginx):
    """A GET whose body stops after 10 of its 1,000 octets; nginx answers at once with 1 GiB,
    which the client does not read. The body timeout (1 s) ends the flow once its response has
    begun: the connection is to close once what waits has been flushed, which never happens.
    The send timeout (3 s) bounds that wait too."""
    proxy = start_reverse(start_faultline, nginx, "--body-timeout", "1", "--send-timeout", "3")
    with non_reading_socket(proxy.reverse.port) as sock:
        sock.sendall(b"GET /big-1g.bin HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 1000\r\n\r\n" + b"x" * 10)
        started = time.monotonic()
        proxy.wait_for_event("protocol.error", timeout=15, code="body-timeout")
        elapsed = wait_for_send_timeout_cut(proxy, sock, started)
    assert 2.9 < elapsed < 12, elapsed
    error = assert_cut_by_send_timeout(proxy, flow_aborted=False)
    [body] = proxy.trace().of("protocol.error", code="body-timeout")
    assert body["seq"] < error["seq"], "the close after flush was waiting when the send timeout ran out"


def test_an_http2_client_that_stops_reading_is_closed(start_faultline, nginx):
    """Every flow-control window open (so nothing waits inside nghttp2 for one): the DATA goes
    to the socket and waits there."""
    proxy = start_reverse(start_faultline, nginx, "--send-timeout", "1")
    block = hpack.Encoder().encode([(":method", "GET"), (":scheme", "http"),
                                    (":authority", f"127.0.0.1:{proxy.reverse.port}"), (":path", "/big-1g.bin")])
    largest = (1 << 31) - 1
    with non_reading_socket(proxy.reverse.port) as sock:
        sock.sendall(h2_raw.PREFACE + h2_raw.settings([(h2_raw.INITIAL_WINDOW_SIZE, largest)])
                     + h2_raw.window_update(0, largest - 65_535) + h2_raw.headers(1, block))
        started = time.monotonic()
        elapsed = wait_for_send_timeout_cut(proxy, sock, started)
    assert 0.9 < elapsed < 10, elapsed  # never before the timeout; about 1.25 of it
    assert_cut_by_send_timeout(proxy)


def test_a_slow_reader_is_served_past_the_timeout(start_faultline, nginx):
    """Reads 16 KiB every 0.1 s for 3.5 s (a slow reader's pace, not an ordering): the proxy
    holds bytes for it all along and its megabytes of kernel send buffer do not drain enough to
    let a write move within the 1 s timeout, but the kernel's send queue shrinks at every read,
    so the clock never runs out."""
    proxy = start_reverse(start_faultline, nginx, "--send-timeout", "1")
    with non_reading_socket(proxy.reverse.port) as sock:
        sock.sendall(b"GET /big-1g.bin HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        received = 0
        end = time.monotonic() + 3.5
        while time.monotonic() < end:
            chunk = sock.recv(16 << 10)
            assert chunk, f"closed after {received} octets"
            received += len(chunk)
            time.sleep(0.1)
        assert received > 100_000
    events = proxy.events_so_far()
    assert not [event for event in events if event.get("code") == "send-timeout"]

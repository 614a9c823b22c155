"""HTTP/2 clients that stall a connection instead of using it, from a raw client
(harness/h2_raw.py) at a reverse listener to the static nginx: each gets its connection closed
within a bound, and the trace says why (Sources/FaultlineProxy/HTTP2ProxySession+Stalls.swift).

| client does | Faultline | trace |
|---|---|---|
| its response waits for a window it never opens (initial window 0, or the 65,535 octets are in and it sends no WINDOW_UPDATE), then FIN (SHUT_WR) | RST_STREAM CANCEL on the stream, then closes at once: no socket left in CLOSE_WAIT | `flow.aborted` reason `client-gone`, `connection.closed` |
| the same without the FIN | after `--idle-timeout` without a DATA byte leaving: RST_STREAM CANCEL, GOAWAY NO_ERROR "idle", close | `flow.aborted` reason `idle-timeout`, `connection.closed` reason `idle-timeout` |
| a HEADERS without END_HEADERS, then nothing | after `--header-timeout`: GOAWAY PROTOCOL_ERROR "header-timeout" (as nginx), close | `protocol.error` code `header-timeout`, `http2.goaway`, `connection.closed` |

Every wait has a deadline; nothing is ordered by sleeping."""
import socket
import subprocess
import time

import pytest

from harness import h2, h2_raw
from harness.h2_raw import RawH2

pytestmark = pytest.mark.timeout(60)

BIG = "/random-1m.bin"  # far more than any window here
DEFAULT_WINDOW = 65_535
CANCEL = h2_raw.CODES["CANCEL"]
PROTOCOL_ERROR = h2_raw.CODES["PROTOCOL_ERROR"]


def start_reverse(start_faultline, nginx, *args):
    return start_faultline("--listen", "127.0.0.1:0", "--mode", f"reverse:{nginx.url}", *args)


def close_waits(port):
    """The proxy's sockets on `port` in CLOSE_WAIT (the peer's FIN read, ours never sent)."""
    result = subprocess.run(["ss", "-Htan", "state", "close-wait", f"( sport = :{port} )"],
                            capture_output=True, text=True, timeout=10, check=True)
    return [line for line in result.stdout.splitlines() if line.strip()]


def served_after(proxy):
    result = h2.curl_h2(proxy.reverse.url + "/index.html", prior_knowledge=True, timeout=15)
    assert result.ok and result.http2 and result.status == 200, result.describe()


def stalled_download(client, window_zero):
    """Requests the big file on stream 1 and waits until the response is stuck: the head (HEADERS
    are not flow-controlled) and, with the default window, exactly 65,535 octets of DATA."""
    client.handshake([(h2_raw.INITIAL_WINDOW_SIZE, 0)] if window_zero else [])
    client.send(client.request(1, BIG))
    if window_zero:
        return client.read_until(lambda r: 1 in r.heads, 15, "the response head")
    return client.read_until(lambda r: len(r.data.get(1, b"")) >= DEFAULT_WINDOW, 15, "a full window of DATA")


@pytest.mark.parametrize("window_zero", [True, False], ids=["window-0", "window-65535-full"])
def test_fin_on_a_response_waiting_for_the_window_closes_the_connection(start_faultline, nginx, window_zero):
    """The client half-closes while its response waits for a window only it could open: the
    stream is reset and the connection closed at once (the idle timeout is 120 s here), so the
    proxy keeps no socket in CLOSE_WAIT."""
    proxy = start_reverse(start_faultline, nginx)
    with RawH2(proxy.reverse.port, credit="none") as client:
        received = stalled_download(client, window_zero)
        assert received.status(1) == 200, received.describe()
        client.sock.shutdown(socket.SHUT_WR)
        started = time.monotonic()
        received = client.read_until_closed(10)
        assert received.closed, received.describe()
        elapsed = time.monotonic() - started
        assert received.resets == {1: CANCEL}, received.describe()
        assert 1 not in received.ended
        assert len(received.data.get(1, b"")) == (0 if window_zero else DEFAULT_WINDOW), received.describe()
        assert not close_waits(proxy.reverse.port)
    assert elapsed < 10

    served_after(proxy)
    trace = proxy.trace()
    [received_event] = [event for event in trace.of("request.received") if event.get("path") == BIG]
    [aborted] = trace.of("flow.aborted", flow=received_event["flow"])
    assert aborted["reason"] == "client-gone", aborted
    [closed] = trace.of("connection.closed", conn=received_event["conn"])
    assert closed["reason"] == "client-closed", closed
    assert closed["seq"] > aborted["seq"]
    assert not trace.of("response.delivered", flow=received_event["flow"])


def test_a_response_waiting_for_the_window_without_a_fin_is_closed_by_the_idle_timeout(start_faultline, nginx):
    """No FIN, no WINDOW_UPDATE: the connection's only activity is output it cannot send, which
    the idle timeout (2 s here) bounds as it bounds a connection with no stream."""
    proxy = start_reverse(start_faultline, nginx, "--idle-timeout", "2")
    with RawH2(proxy.reverse.port, credit="none") as client:
        stalled_download(client, window_zero=False)
        started = time.monotonic()
        received = client.read_until_closed(20)
        elapsed = time.monotonic() - started
        assert received.closed, received.describe()
        assert received.resets == {1: CANCEL}, received.describe()
        assert received.goaway is not None and received.goaway.error == "NO_ERROR", received.describe()
        assert received.goaway.debug == b"idle"
        assert len(received.data[1]) == DEFAULT_WINDOW
        assert not close_waits(proxy.reverse.port)
    # Not before the timeout (less a little for when the clock started), and not long after.
    assert 1.5 < elapsed < 15, elapsed

    trace = proxy.trace()
    [received_event] = [event for event in trace.of("request.received") if event.get("path") == BIG]
    [aborted] = trace.of("flow.aborted", flow=received_event["flow"])
    assert aborted["reason"] == "idle-timeout", aborted
    [closed] = trace.of("connection.closed", conn=received_event["conn"])
    assert closed["reason"] == "idle-timeout", closed
    sent = trace.of("http2.goaway", side="proxy")
    assert [(event["code"], event.get("debug")) for event in sent] == [("NO_ERROR", "idle")], sent


def test_a_header_block_left_without_its_end_is_cut_after_the_header_timeout(start_faultline, nginx):
    """A HEADERS without END_HEADERS, then nothing: no other frame can be read until the block
    ends (RFC 9113 §6.10), so after the header timeout (1 s here) the connection is ended with
    GOAWAY PROTOCOL_ERROR."""
    proxy = start_reverse(start_faultline, nginx, "--header-timeout", "1")
    with RawH2(proxy.reverse.port) as client:
        client.handshake()
        block = client.request_block("/index.html?never-finished")
        client.send(h2_raw.headers(1, block[:5], end_stream=True, end_headers=False))
        started = time.monotonic()
        received = client.read_until_closed(15)
        elapsed = time.monotonic() - started
        assert received.closed, received.describe()
        assert received.goaway is not None, received.describe()
        assert (received.goaway.error, received.goaway.debug) == ("PROTOCOL_ERROR", b"header-timeout")
        assert received.goaway.last_stream_id == 0, "the unfinished stream was never processed"
        assert not received.heads
    assert 0.5 < elapsed < 10, elapsed

    served_after(proxy)
    trace = proxy.trace()
    [error] = trace.of("protocol.error", code="header-timeout")
    assert error["side"] == "client" and "END_HEADERS" in error["message"], error
    sent = trace.of("http2.goaway", side="proxy")
    assert [(event["code"], event.get("debug"), event.get("last_stream_id")) for event in sent] == \
        [("PROTOCOL_ERROR", "header-timeout", 0)], sent
    [closed] = trace.of("connection.closed", conn=error["conn"])
    assert closed["reason"] == "http2-PROTOCOL_ERROR", closed
    assert not trace.requests("never-finished")


def test_a_header_block_finished_by_its_continuation_in_time_is_served(start_faultline, nginx):
    """The same block finished by a CONTINUATION with END_HEADERS within the timeout is an
    ordinary request; the connection lives on past the timeout."""
    proxy = start_reverse(start_faultline, nginx, "--header-timeout", "1")
    with RawH2(proxy.reverse.port) as client:
        client.handshake()
        block = client.request_block("/index.html?finished-in-time")
        client.send(h2_raw.headers(1, block[:5], end_stream=True, end_headers=False))
        client.send(h2_raw.continuation(1, block[5:], end_headers=True))
        received = client.read_until(lambda r: 1 in r.ended, 15, "the answer")
        assert received.status(1) == 200 and bytes(received.data[1]) == nginx.read("index.html")
        # Past the header timeout, the connection still serves.
        received = client.observe(1.5)
        assert not received.closed and received.goaway is None, received.describe()
        client.send(client.request(3, "/index.html?after"))
        received = client.read_until(lambda r: 3 in r.ended, 15, "the second answer")
        assert received.status(3) == 200
    trace = proxy.trace()
    assert not trace.of("protocol.error")

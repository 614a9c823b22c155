"""Stopping Faultline (SIGTERM) with HTTP/2 clients connected: a graceful shutdown (RFC 9113 §6.8).
Each HTTP/2 client connection gets GOAWAY NO_ERROR naming the last stream the proxy accepted; its
open streams finish; streams opened after the GOAWAY are not processed; the connection closes once
it is done, and the process exits 0 with a complete trace. What is still open after the grace
period (`--shutdown-grace`, 5 s by default) is cut. HTTP/1.1 connections are closed at once, as
they always were.

A stream is kept in flight by the Python origin's gate (/slow?key=K answers once the test releases
it), so every ordering comes from the gate and the frames the client reads, never from sleeps."""
import secrets
import signal
import socket

import pytest

from harness.h2 import GoAwayAwareH2c
from harness.trace import Trace

pytestmark = pytest.mark.timeout(60)


def start_reverse(start_faultline, origin, *args):
    return start_faultline("--listen", "127.0.0.1:0", "--mode", f"reverse:{origin.url}", *args)


def sigterm(proxy):
    proxy.process.send_signal(signal.SIGTERM)


def test_sigterm_sends_goaway_and_the_open_stream_finishes(start_faultline, origin):
    proxy = start_reverse(start_faultline, origin)
    key = f"drain-{secrets.token_hex(4)}"
    gate = origin.gate(key)
    client = GoAwayAwareH2c(proxy.reverse.port)
    try:
        done = client.request("GET", "/status/204")
        client.read_until(lambda: client.streams[done].ended, what="the first answer")
        held = client.request("GET", f"/slow?key={key}")
        gate.wait_arrived()

        sigterm(proxy)
        client.read_until(lambda: client.goaways, what="GOAWAY")
        [goaway] = client.goaways
        assert goaway["error"] == "NO_ERROR", goaway
        assert goaway["last_stream_id"] == held, f"GOAWAY should name stream {held}, the highest accepted: {goaway}"
        assert goaway["debug"] == "shutdown", goaway

        # A stream opened after the GOAWAY is not processed (nghttp2 ignores its HEADERS).
        late = client.request("GET", "/status/201")
        assert proxy.process.poll() is None, "faultline exited while a stream was still open"

        gate.release()
        client.read_until(lambda: client.streams[held].ended and client.closed, what="the held stream's end and the close")
        answer = client.streams[held]
        assert answer.status == 200 and answer.body == f"released {key}\n".encode(), answer
        assert answer.reset is None, answer
        assert client.streams[late].headers == [] and not client.streams[late].ended, client.streams[late]
    finally:
        client.close()
        gate.release()

    assert proxy.exited() == 0, proxy.stderr
    assert "were cut" not in proxy.stderr, proxy.stderr
    trace = Trace.load(proxy.trace_path)
    trace.assert_well_formed()
    assert trace.events[-1]["seq"] == len(trace.events)
    [received] = [event for event in trace.of("request.received") if event.get("stream") == held]
    trace.assert_complete_flow(received["flow"], status=200)
    assert not [event for event in trace.of("request.received") if event.get("stream") == late], \
        "the stream opened after the GOAWAY became a flow"
    sent = [event for event in trace.of("http2.goaway") if event["side"] == "proxy"]
    assert [(event["code"], event["last_stream_id"], event["debug"]) for event in sent] == [("NO_ERROR", held, "shutdown")]
    [closed] = trace.of("connection.closed", conn=received["conn"])
    assert closed["reason"] == "shutdown", closed
    assert closed["seq"] > trace.one("response.delivered", flow=received["flow"])["seq"]


def test_streams_still_open_after_the_grace_period_are_cut(start_faultline, origin):
    proxy = start_reverse(start_faultline, origin, "--shutdown-grace", "1")
    key = f"cut-{secrets.token_hex(4)}"
    gate = origin.gate(key)
    client = GoAwayAwareH2c(proxy.reverse.port)
    try:
        held = client.request("GET", f"/slow?key={key}")
        gate.wait_arrived()
        sigterm(proxy)
        client.read_until(lambda: client.goaways, what="GOAWAY")
        assert client.goaways[0]["error"] == "NO_ERROR" and client.goaways[0]["last_stream_id"] == held
        # The gate stays shut: the grace period (1 s) runs out and the connection is cut.
        client.read_until(lambda: client.closed, timeout=15, what="the cut")
        assert not client.streams[held].ended, client.streams[held]
    finally:
        client.close()
        gate.release()

    assert proxy.exited() == 0, proxy.stderr
    assert "HTTP/2 streams still open after the 1 s shutdown grace period were cut" in proxy.stderr, proxy.stderr
    trace = Trace.load(proxy.trace_path)
    trace.assert_well_formed()
    [received] = [event for event in trace.of("request.received") if event.get("stream") == held]
    [aborted] = trace.of("flow.aborted", flow=received["flow"])
    assert aborted["reason"] == "the connection closed while the proxy was shutting down", aborted
    assert trace.of("connection.closed", conn=received["conn"])


def test_a_second_signal_ends_the_grace_period_at_once(start_faultline, origin):
    """Ctrl-C twice: the first SIGINT starts the drain (GOAWAY, a 60 s grace period), the second
    closes what is still open right away, and the process still ends cleanly (exit 0, a whole
    trace, the flow ended as aborted)."""
    proxy = start_reverse(start_faultline, origin, "--shutdown-grace", "60")
    key = f"twice-{secrets.token_hex(4)}"
    gate = origin.gate(key)
    client = GoAwayAwareH2c(proxy.reverse.port)
    try:
        held = client.request("GET", f"/slow?key={key}")
        gate.wait_arrived()
        proxy.process.send_signal(signal.SIGINT)
        client.read_until(lambda: client.goaways, what="GOAWAY")
        assert proxy.process.poll() is None, "faultline exited while a stream was still open"
        proxy.process.send_signal(signal.SIGINT)
        # Well inside the 60 s grace period, with the gate still shut.
        client.read_until(lambda: client.closed, timeout=15, what="the close after the second SIGINT")
        assert not client.streams[held].ended, client.streams[held]
        proxy.process.wait(15)
    finally:
        client.close()
        gate.release()

    assert proxy.stop() == 0, proxy.stderr
    assert "faultline: second SIGINT: closing what is still open" in proxy.stderr, proxy.stderr
    assert "HTTP/2 streams still open at the second signal were cut" in proxy.stderr, proxy.stderr
    assert "stopped by SIGINT" in proxy.stderr and "grace period were cut" not in proxy.stderr, proxy.stderr
    trace = Trace.load(proxy.trace_path)
    trace.assert_well_formed()
    [received] = [event for event in trace.of("request.received") if event.get("stream") == held]
    assert trace.of("flow.aborted", flow=received["flow"])


def test_an_idle_http2_connection_gets_goaway_and_is_closed(start_faultline, origin):
    proxy = start_reverse(start_faultline, origin)
    client = GoAwayAwareH2c(proxy.reverse.port)
    try:
        done = client.request("GET", "/status/204")
        client.read_until(lambda: client.streams[done].ended, what="the answer")
        sigterm(proxy)
        client.read_until(lambda: client.closed, what="the close")
        assert [(g["error"], g["last_stream_id"]) for g in client.goaways] == [("NO_ERROR", done)], client.goaways
    finally:
        client.close()
    assert proxy.exited() == 0, proxy.stderr


def test_http1_connections_are_closed_at_once_as_before(start_faultline, origin):
    """HTTP/1.1 has no graceful ending a server can start: a request in flight is cut, and the
    grace period does not wait for it (nothing else is open, so the process exits at once)."""
    proxy = start_reverse(start_faultline, origin, "--shutdown-grace", "30")
    key = f"h1-{secrets.token_hex(4)}"
    gate = origin.gate(key)
    with socket.create_connection(("127.0.0.1", proxy.reverse.port), timeout=15) as sock:
        sock.sendall(f"GET /slow?key={key} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode())
        gate.wait_arrived()
        sigterm(proxy)
        try:
            answer = sock.recv(65536)
        except ConnectionResetError:
            answer = b""
        assert answer == b"", f"an HTTP/1.1 request in flight got {answer!r} instead of the close"
        # The process exits while the gate is still shut, well inside the 30 s grace period: it
        # did not wait for the request.
        proxy.process.wait(15)
    gate.release()
    assert proxy.stop() == 0, proxy.stderr
    trace = Trace.load(proxy.trace_path)
    trace.assert_well_formed()
    [received] = trace.of("request.received")
    assert received["version"] == "HTTP/1.1"
    [aborted] = trace.of("flow.aborted", flow=received["flow"])
    assert aborted["reason"] == "the proxy is shutting down", aborted
    [closed] = trace.of("connection.closed", conn=received["conn"])
    assert closed["reason"] == "shutdown", closed

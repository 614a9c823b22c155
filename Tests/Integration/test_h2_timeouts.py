"""The client timeouts on HTTP/2, from a raw client (harness/h2_raw.py) at a reverse listener: a
HEADERS frame whose payload trickles in is bounded by `--header-timeout` as an unfinished
CONTINUATION is (HeaderBlockTracker), and each stream's request body by `--body-timeout`
(HTTP2ProxySession+BodyTimeout.swift).

| client does | Faultline | trace |
|---|---|---|
| sends a HEADERS frame one octet at a time, slower than the header timeout | GOAWAY PROTOCOL_ERROR "header-timeout", close | `protocol.error` code `header-timeout` |
| stops a request body mid-way on one stream, another stream beside it | 408 on that stream, then RST_STREAM NO_ERROR; the other stream and later ones are served | `protocol.error` code `body-timeout`, status 408 |
| sends a body in pieces, each within the timeout, longer than it in all | the response | nothing new |
| uploads to an origin that stops reading: the proxy withholds the stream's credit and the client must wait | no 408 however long it waits; the whole body once the origin reads | nothing new |

A trickle is paced by sleeping (a slow client's pace, not an ordering); every wait has a
deadline."""
import hashlib
import json
import random
import time
import uuid

import pytest

from harness import h2_raw
from harness.h2_raw import RawH2
from test_h2_bodies import H2Uploader

pytestmark = pytest.mark.timeout(60)

NO_ERROR = h2_raw.CODES["NO_ERROR"]


def start_reverse(start_faultline, upstream, *args):
    return start_faultline("--listen", "127.0.0.1:0", "--mode", f"reverse:{upstream.url}", *args)


def test_a_trickled_headers_frame_is_cut_after_the_header_timeout(start_faultline, nginx):
    """A whole HEADERS frame (END_HEADERS set) arriving an octet every 0.2 s: nghttp2 hands on
    nothing until the frame is complete, so only the header clock, started by the frame's header,
    stops it (the idle timeout is 120 s here)."""
    proxy = start_reverse(start_faultline, nginx, "--header-timeout", "1")
    with RawH2(proxy.reverse.port) as client:
        client.handshake()
        frame = client.request(1, "/index.html?trickled")
        assert frame[4] & 0x4, "END_HEADERS: one frame carries the whole block"
        started = time.monotonic()
        sent = 0
        for octet in frame[:-1]:
            if not client.send(bytes([octet])):
                break
            sent += 1
            if client.observe(0.2).closed:
                break
        received = client.read_until_closed(15)
        elapsed = time.monotonic() - started
        assert received.closed, received.describe()
        assert sent < len(frame) - 1, "the frame was cut off before the client could finish it"
        assert received.goaway is not None, received.describe()
        assert (received.goaway.error, received.goaway.debug) == ("PROTOCOL_ERROR", b"header-timeout")
        assert received.goaway.last_stream_id == 0
        assert not received.heads
    assert 0.5 < elapsed < 10, elapsed

    trace = proxy.trace()
    [error] = trace.of("protocol.error", code="header-timeout")
    assert error["side"] == "client", error
    [closed] = trace.of("connection.closed", conn=error["conn"])
    assert closed["reason"] == "http2-PROTOCOL_ERROR", closed
    assert not trace.requests("trickled")


def test_a_stream_whose_body_stops_gets_408_and_the_others_carry_on(start_faultline, origin):
    proxy = start_reverse(start_faultline, origin, "--body-timeout", "1")
    with RawH2(proxy.reverse.port) as client:
        client.handshake()
        client.send(
            client.request(1, "/echo?stalled", method="POST", extra=[("content-length", "1000")], end_stream=False),
            h2_raw.data(1, b"x" * 10))
        started = time.monotonic()
        client.send(client.request(3, "/echo?beside"))
        received = client.read_until(lambda r: 3 in r.ended, 15, "the answer beside the stalled upload")
        assert received.status(3) == 200, received.describe()
        received = client.read_until(lambda r: 1 in r.resets, 15, "the stalled stream's end")
        elapsed = time.monotonic() - started
        assert received.status(1) == 408, received.describe()
        assert 1 in received.ended
        assert received.resets == {1: NO_ERROR}, "asks the client to stop the body (RFC 9113 §8.1)"
        assert not received.closed and received.goaway is None, received.describe()
        # The connection serves on.
        client.send(client.request(5, "/echo?after"))
        received = client.read_until(lambda r: 5 in r.ended, 15, "an answer after the timeout")
        assert received.status(5) == 200, received.describe()
    assert 0.5 < elapsed < 10, elapsed

    trace = proxy.trace()
    flow = trace.flow_for("stalled")
    [error] = trace.of("protocol.error", code="body-timeout")
    assert (error["flow"], error["status"], error["side"]) == (flow, 408, "client"), error
    [delivered] = trace.of("response.delivered", flow=flow)
    assert delivered["status"] == 408
    assert not trace.of("flow.aborted", flow=flow), "the flow ends as an HTTP/1 body timeout does"
    assert sorted(event["status"] for event in trace.of("response.delivered")) == [200, 200, 408]


def test_a_body_whose_pieces_keep_coming_is_served(start_faultline, origin):
    """Three pieces, each within the 2 s timeout of the one before: the timeout is the longest
    silence, not the body's whole time."""
    proxy = start_reverse(start_faultline, origin, "--body-timeout", "2")
    with RawH2(proxy.reverse.port) as client:
        client.handshake()
        client.send(client.request(1, "/echo?pieces", method="POST", extra=[("content-length", "30")],
                                   end_stream=False))
        for index in range(3):
            time.sleep(0.9)  # a slow uploader's pace, not an ordering: 2.7 s in all, over the timeout
            client.send(h2_raw.data(1, b"y" * 10, end_stream=index == 2))
        received = client.read_until(lambda r: 1 in r.ended, 15, "the answer")
        assert received.status(1) == 200, received.describe()
        assert 1 not in received.resets
    assert not proxy.trace().of("protocol.error")


def test_a_stream_the_proxy_stops_by_flow_control_does_not_time_out(start_faultline, origin):
    """Stream 1 uploads 16 MiB to an origin that reads the head and then nothing: the proxy
    withholds the stream's credit (RFC 9113 §5.2.2) once the sockets are full, so the client
    stops for want of window. That silence is the proxy's: over 2.5 body timeouts (1 s) the
    stream is not answered 408, and released, the upload completes intact."""
    proxy = start_reverse(start_faultline, origin, "--body-timeout", "1")
    payload = random.Random(24).randbytes(16 << 20)
    key = uuid.uuid4().hex[:12]
    gate = origin.gate(key)
    client = H2Uploader(proxy.reverse.port, f"/slow?key={key}&hold=before-body", payload)
    try:
        gate.wait_arrived()
        stalled_at = client.upload_until_stalled()
        # H2Uploader.read fails the test on RST_STREAM; a 408 would be a response head.
        end = time.monotonic() + 2.5
        while (remaining := end - time.monotonic()) > 0:
            client.read(remaining)
        assert 1 not in client.heads and client.offset == stalled_at, "stream 1 stayed stalled, unanswered"
    finally:
        gate.release()
    client.until(lambda: 1 in client.ended, 30, "end of the upload after the release")
    client.sock.close()
    answer = json.loads(client.bodies[1])
    assert answer == {"body_length": len(payload), "body_sha256": hashlib.sha256(payload).hexdigest()}
    assert not proxy.trace().of("protocol.error")

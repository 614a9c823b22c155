"""HTTP/2 limits and abuse, from a raw client (harness/h2_raw.py) at a reverse listener: what
Faultline advertises and enforces (Sources/FaultlineHTTP2/HTTP2Limits.swift, defaults) and what a
client breaking the protocol gets. Every case ends with the proxy serving the next connection.

| client does | Faultline answers (nghttp2 1.52) | trace |
|---|---|---|
| more streams than SETTINGS_MAX_CONCURRENT_STREAMS (100) before ACKing our SETTINGS | RST_STREAM REFUSED_STREAM for the extra ones; the others are served | `protocol.error` `http2-stream-error` per refused stream |
| the same after ACKing them | the same: REFUSED_STREAM for the extra one only, as nginx does (RFC 9113 §5.1.2 allows that or a connection error, which is what nghttp2 alone would do); its late trailers are ignored | `protocol.error` `http2-stream-error` per refused stream |
| a HEADERS on a stream ID below one it opened, that it skipped (RFC 9113 §5.1.1) | GOAWAY PROTOCOL_ERROR naming the last stream processed (nghttp2 alone ignores the frame) | `protocol.error` `http2-PROTOCOL_ERROR`, `http2.goaway` |
| a header list over SETTINGS_MAX_HEADER_LIST_SIZE (64 KiB, §6.5.2) | RST_STREAM ENHANCE_YOUR_CALM on that stream; no 431 (the stream is gone) | `protocol.error` `http2-stream-error` |
| one field over nghttp2's HPACK limit (64 KiB name + value) | GOAWAY COMPRESSION_ERROR | `protocol.error` `http2-COMPRESSION_ERROR`, `http2.goaway` |
| more than 8 CONTINUATION frames after a HEADERS (CVE-2024-27316 class) | GOAWAY ENHANCE_YOUR_CALM, connection closed | `protocol.error` `http2-ENHANCE_YOUR_CALM`, `http2.goaway` |
| more than 1000 RST_STREAM at once (+33/s; CVE-2023-44487 rapid reset) | GOAWAY INTERNAL_ERROR (nghttp2's own rate limit; its code, not ENHANCE_YOUR_CALM); streams of the same read above its last stream start no flow | `protocol.error` `http2-INTERNAL_ERROR`, `http2.goaway` |
| a frame of the wrong size, invalid SETTINGS, ... | GOAWAY FRAME_SIZE_ERROR / PROTOCOL_ERROR / FLOW_CONTROL_ERROR | `protocol.error` `http2-CODE`, `http2.goaway` |
"""
import ssl

import pytest

from harness import h2, h2_raw
from harness.h2_raw import RawH2

pytestmark = pytest.mark.timeout(60)

REFUSED_STREAM = h2_raw.CODES["REFUSED_STREAM"]
MIB = 1 << 20


@pytest.fixture
def proxy(start_faultline, nginx):
    """A reverse listener to the static nginx (HTTP/1.1 upstream)."""
    return start_faultline("--listen", "127.0.0.1:0", "--mode", f"reverse:{nginx.url}")


def served_after(proxy):
    """The proxy still serves: a new h2c connection (curl) gets the page."""
    result = h2.curl_h2(proxy.reverse.url + "/index.html", prior_knowledge=True, timeout=15)
    assert result.ok and result.http2 and result.status == 200, result.describe()
    return result


def connection_errors(trace, code):
    return [event for event in trace.of("protocol.error", side="client") if event["code"] == f"http2-{code}"]


def assert_goaway_traced(trace, goaway):
    """The GOAWAY the client received is in the trace as sent by the proxy, with its code and
    last stream."""
    sent = trace.of("http2.goaway", side="proxy")
    assert [(event["code"], event.get("last_stream_id")) for event in sent] == \
        [(goaway.error, goaway.last_stream_id)], sent


# -- SETTINGS_MAX_CONCURRENT_STREAMS (RFC 9113 §5.1.2) -----------------------------------------


def test_streams_over_the_limit_before_the_settings_ack_are_refused_and_the_rest_served(proxy, nginx):
    """110 requests in the first flight, before the client has even read our SETTINGS: nghttp2
    applies the limit it sent (100) and refuses the streams past it with REFUSED_STREAM (safe to
    retry, §8.7); the 100 it took are answered on the same connection."""
    extra = 10
    with RawH2(proxy.reverse.port) as client:
        frames = [client.request(2 * index + 1, f"/index.html?n={index}") for index in range(100 + extra)]
        client.start()
        client.send(*frames)
        streams = [2 * index + 1 for index in range(100 + extra)]
        received = client.read_until(lambda r: all(s in r.ended or s in r.resets for s in streams), 30,
                                     "an answer or a reset on every stream")
        limit = client.advertised(h2_raw.MAX_CONCURRENT_STREAMS)
    assert limit == 100, received.settings
    refused = sorted(stream for stream, code in received.resets.items() if code == REFUSED_STREAM)
    assert refused == streams[limit:], received.describe()
    assert len(received.resets) == extra, received.describe()
    answered = [stream for stream in streams[:limit] if received.status(stream) == 200]
    assert answered == streams[:limit], received.describe()
    body = nginx.read("index.html")
    assert all(bytes(received.data[stream]) == body for stream in answered)
    assert received.goaway is None and not received.closed

    served_after(proxy)
    trace = proxy.trace()
    stream_errors = [e for e in trace.of("protocol.error", code="http2-stream-error")]
    assert sorted(event["stream"] for event in stream_errors) == refused, stream_errors
    # A refused stream never became a flow: nothing of it reached the origin.
    first_connection = trace.of("request.received")[0]["conn"]
    assert sorted(e["stream"] for e in trace.of("request.received", conn=first_connection)) == streams[:limit]


def test_a_stream_over_the_acknowledged_limit_is_refused_alone(proxy, nginx):
    """Once the client has ACKed our SETTINGS, stream 201 (the 101st open) is refused with
    REFUSED_STREAM, which the client may retry (RFC 9113 §8.7), and the 100 streams in flight go
    on: no GOAWAY (§5.1.2 allows either; nghttp2 alone would end the connection). Late trailers on
    the refused stream are ignored; once one stream has ended, a new one is served."""
    with RawH2(proxy.reverse.port) as client:
        client.handshake()
        limit = client.advertised(h2_raw.MAX_CONCURRENT_STREAMS)
        assert limit == 100
        # Requests that stay open: their bodies come later.
        client.send(*[client.request(2 * index + 1, f"/index.html?open={index}", method="POST", end_stream=False)
                      for index in range(limit)])
        extra = 2 * limit + 1
        client.send(client.request(extra, "/index.html?one-too-many"))
        received = client.read_until(lambda r: extra in r.resets, 20, "RST_STREAM on the extra stream")
        assert received.resets == {extra: REFUSED_STREAM}, received.describe()
        # Trailers the client had on their way (§5.1: frames after our reset are ignored).
        client.send(h2_raw.headers(extra, client.block([("x-late", "trailer")]), end_stream=True))
        # Stream 1 ends both ways: the limit lets one more in.
        client.send(client.body(1, b"done"))
        client.read_until(lambda r: 1 in r.ended, 20, "the end of stream 1")
        client.send(client.request(extra + 2, "/index.html?after-one-ended"))
        received = client.read_until(lambda r: extra + 2 in r.ended, 20, "the answer on the next stream")
        assert received.status(extra + 2) == 200 and bytes(received.data[extra + 2]) == nginx.read("index.html")
        assert received.goaway is None and not received.closed, received.describe()
        assert set(received.resets) == {extra}, received.describe()

    served_after(proxy)
    trace = proxy.trace()
    (error,) = trace.of("protocol.error", code="http2-stream-error")
    assert error["stream"] == extra and "REFUSED_STREAM" in error["message"], error
    assert not trace.of("http2.goaway", side="proxy"), "no connection error"
    assert not trace.requests("one-too-many"), "the refused stream became no flow"
    assert trace.requests("after-one-ended")


# -- stream identifiers (RFC 9113 §5.1.1) ------------------------------------------------------


def test_headers_on_a_skipped_lower_stream_id_end_the_connection(proxy, nginx):
    """Streams 1 and 5 are answered; a HEADERS on 3, below 5 and never opened (implicitly closed
    when 5 opened), is a connection error: GOAWAY PROTOCOL_ERROR naming 5, the last stream
    processed. nghttp2 alone would ignore it. Stream 3 reaches no flow; the proxy serves on."""
    with RawH2(proxy.reverse.port) as client:
        client.handshake()
        client.send(client.request(1, "/index.html?one"), client.request(5, "/index.html?five"))
        client.read_until(lambda r: 1 in r.ended and 5 in r.ended, 20, "answers on streams 1 and 5")
        client.send(client.request(3, "/index.html?three"))
        received = client.read_until(lambda r: r.goaway, 20, "GOAWAY")
        client.read_until_closed(10)
    assert received.goaway is not None, received.describe()
    assert received.goaway.error == "PROTOCOL_ERROR" and received.goaway.last_stream_id == 5, received.goaway
    assert received.status(1) == 200 and received.status(5) == 200 and 3 not in received.heads
    assert received.closed

    served_after(proxy)
    trace = proxy.trace()
    (error,) = connection_errors(trace, "PROTOCOL_ERROR")
    assert "stream 3" in error["message"] and "§5.1.1" in error["message"], error
    assert_goaway_traced(trace, received.goaway)
    assert not trace.requests("three")
    assert trace.of("connection.closed", conn=error["conn"])[0]["reason"] == "http2-PROTOCOL_ERROR"


# -- SETTINGS_MAX_HEADER_LIST_SIZE (§6.5.2) ----------------------------------------------------


def test_an_oversize_header_list_resets_its_stream_only(proxy, nginx):
    """20 fields of 4000 bytes (80 KiB counted as §6.5.2 does, over the 64 KiB advertised): that
    stream is reset with ENHANCE_YOUR_CALM before it becomes a flow; the streams before and after
    it on the same connection are answered, and so is the next connection."""
    big = [(f"x-big-{index}", "b" * 4000) for index in range(20)]
    result = h2.h2_exchange(proxy.reverse.port, [
        ("GET", "/index.html?before", []),
        ("GET", "/index.html?big", big),
        ("GET", "/index.html?after", []),
    ])
    before, oversize, after = result.streams
    assert oversize.reset_name == "ENHANCE_YOUR_CALM" and oversize.status is None, oversize
    for other in (before, after):
        assert other.ended and other.status == 200 and other.body == nginx.read("index.html"), other
    assert result.goaway is None and not result.closed

    served_after(proxy)
    trace = proxy.trace()
    (error,) = trace.of("protocol.error", code="http2-stream-error")
    assert error["stream"] == oversize.stream and "maxHeaderListSize" in error["message"], error
    assert not trace.requests("?big"), "the refused request reached no flow"
    assert not trace.of("http2.goaway")


def test_a_header_field_over_the_hpack_limit_ends_the_connection(proxy):
    """One field of 100,000 bytes (75,000 after Huffman coding): nghttp2's HPACK decoder takes at most 64 KiB per field, so the
    block cannot be decoded and the compression context is lost: GOAWAY COMPRESSION_ERROR
    (§4.3). The proxy serves the next connection."""
    with RawH2(proxy.reverse.port) as client:
        block = client.request_block("/index.html?huge", extra=[("x-huge", "h" * 100_000)])
        pieces = [block[i:i + 16384] for i in range(0, len(block), 16384)]
        client.start()
        client.send(h2_raw.headers(1, pieces[0], end_headers=False),
                    *[h2_raw.continuation(1, piece, end_headers=index == len(pieces) - 2)
                      for index, piece in enumerate(pieces[1:])])
        received = client.read_until(lambda r: r.goaway, 10, "GOAWAY")
        client.read_until_closed(10)
    assert received.goaway is not None and received.goaway.error == "COMPRESSION_ERROR", received.describe()

    served_after(proxy)
    trace = proxy.trace()
    assert len(connection_errors(trace, "COMPRESSION_ERROR")) == 1, trace.of("protocol.error")
    assert_goaway_traced(trace, received.goaway)


# -- CONTINUATION flood (CVE-2024-27316 class) -------------------------------------------------


def flood(client, frames, cap_bytes):
    """Sends `frames()` (a batch of frames) again and again, never waiting, until the peer has
    answered with a GOAWAY, closed the connection, or `cap_bytes` went out; returns the bytes
    sent. An endless sender as far as the proxy can tell: the cap is far beyond any limit it
    should have, and the test asserts the sender stopped well before it."""
    while client.sent_bytes < cap_bytes:
        if not client.send(frames()) or client.poll().goaway or client.received.closed:
            break
    return client.sent_bytes


@pytest.mark.parametrize("payload", [0, 16384], ids=["empty-frames", "16KiB-frames"])
def test_a_continuation_flood_is_cut_off_with_enhance_your_calm(proxy, payload):
    """HEADERS without END_HEADERS, then CONTINUATION frames without end (empty ones, as the
    attack sends them, or full 16 KiB ones of header fields): after the 8 allowed (Limits
    .maxContinuations) nghttp2 stops the block, the connection ends with GOAWAY
    ENHANCE_YOUR_CALM and is closed. The proxy never holds more than the 64 KiB header list;
    its resident set does not grow with what the client keeps sending."""
    rss_before = proxy.rss_bytes()
    with RawH2(proxy.reverse.port) as client:
        client.handshake()
        client.send(h2_raw.headers(1, client.request_block("/index.html?flood"), end_headers=False))
        field = client.block([("x-flood", "f" * (payload - 16))], indexed=False) if payload else b""
        frame = h2_raw.continuation(1, field)
        batch = frame * max(1, 16384 // len(frame))
        sent = flood(client, lambda: batch, cap_bytes=64 * MIB)
        received = client.read_until(lambda r: r.goaway, 10, "GOAWAY")
        client.read_until_closed(10)
        continuations_sent = sent // (9 + len(field))
    assert received.goaway is not None, received.describe()
    assert received.goaway.error == "ENHANCE_YOUR_CALM" and received.goaway.last_stream_id == 1, received.goaway
    assert received.closed
    # The sender stopped because the proxy had closed, long before the cap: what it got out is
    # what loopback buffers take, not the 64 MiB it was ready to send.
    assert sent < 16 * MIB, f"{sent} bytes ({continuations_sent} CONTINUATION frames) went out before the close"
    growth = proxy.rss_bytes() - rss_before
    assert growth < 4 * MIB, f"RSS grew {growth / MIB:.1f} MiB during the flood"
    assert not received.heads, "the flooded request was never answered"
    print(f"CONTINUATION flood ({payload}-byte frames): {sent} bytes ({continuations_sent} frames) sent "
          f"before the close; RSS {rss_before / MIB:.1f} MiB before, growth {growth / MIB:.2f} MiB")

    served_after(proxy)
    trace = proxy.trace()
    (error,) = connection_errors(trace, "ENHANCE_YOUR_CALM")
    assert "CONTINUATION" in error["message"], error
    assert_goaway_traced(trace, received.goaway)
    assert not trace.requests("flood")


# -- rapid reset (CVE-2023-44487) --------------------------------------------------------------


def test_rapid_reset_is_cut_off_by_the_reset_rate_limit(proxy, nginx):
    """A client that opens streams and resets each at once, as fast as it can: nghttp2's token
    bucket (Limits.resetBurst 1000, refilled 33 per second) runs dry and it sends GOAWAY —
    INTERNAL_ERROR, the code of nghttp2 1.52's CVE-2023-44487 backport (not ENHANCE_YOUR_CALM).
    Not before a thousand resets; the connection closes; a connection opened before the flood
    is still served, and so is a new one."""
    other = RawH2(proxy.reverse.port)
    other.start()
    other.send(other.request(1, "/index.html?before-flood"))
    other.read_until(lambda r: 1 in r.ended, 10, "the first answer on the other connection")
    with other, RawH2(proxy.reverse.port) as client:
        client.start()
        stream = -1

        def open_and_reset():
            nonlocal stream
            stream += 2
            return client.request(stream, "/index.html?rapid") + h2_raw.rst_stream(stream, h2_raw.CODES["CANCEL"])

        def batch():
            return b"".join(open_and_reset() for _ in range(50))

        sent = flood(client, batch, cap_bytes=16 * MIB)
        received = client.read_until(lambda r: r.goaway, 10, "GOAWAY")
        client.read_until_closed(10)
        streams_opened = (stream + 1) // 2
        assert received.goaway is not None, received.describe()
        assert received.goaway.error == "INTERNAL_ERROR", received.goaway
        # The bucket holds 1000 tokens; the test runs for a few seconds at most (33 more each).
        assert 2 * 1000 - 1 <= received.goaway.last_stream_id <= 2 * 1500 - 1, received.goaway
        # The client stopped because the proxy had closed: far below the cap (600,000
        # streams); how far past stream 2001 it got is loopback buffering, not the proxy.
        assert sent < 8 * MIB, f"{sent} bytes ({streams_opened} streams) before the proxy closed"
        print(f"rapid reset: GOAWAY {received.goaway.error} last stream {received.goaway.last_stream_id}; "
              f"the client opened and reset {streams_opened} streams ({sent} bytes) before the close")
        assert received.closed

        other.send(other.request(3, "/index.html?after-flood"))
        other.read_until(lambda r: 3 in r.ended, 10, "the answer after the flood")
        assert other.received.status(3) == 200 and bytes(other.received.data[3]) == nginx.read("index.html")
    served_after(proxy)
    trace = proxy.trace()
    (error,) = connection_errors(trace, "INTERNAL_ERROR")
    assert "rapid reset" in error["message"], error
    assert_goaway_traced(trace, received.goaway)
    # Streams above the GOAWAY's last stream were not processed (§6.8): no flow, even those
    # nghttp2 still let through in the read that emptied the bucket.
    flooded = trace.of("request.received", conn=error["conn"])
    assert max(event["stream"] for event in flooded) <= received.goaway.last_stream_id, \
        f"{sum(event['stream'] > received.goaway.last_stream_id for event in flooded)} flows above the GOAWAY"


# -- malformed frames (RFC 9113 §4, §5.4.1, §6) -------------------------------------------------


MALFORMED = [
    # (id, frames after the preface, GOAWAY code)
    ("length-field-of-16MiB", lambda c: h2_raw.frame(h2_raw.HEADERS, h2_raw.END_HEADERS, 1, b"x" * 64,
                                                     length=0xFFFFFF), "FRAME_SIZE_ERROR"),
    ("headers-over-max-frame-size", lambda c: h2_raw.headers(1, b"\0" * 16385), "FRAME_SIZE_ERROR"),
    ("settings-of-5-bytes", lambda c: h2_raw.frame(h2_raw.SETTINGS, 0, 0, b"\0" * 5), "FRAME_SIZE_ERROR"),
    ("ping-of-7-bytes", lambda c: h2_raw.frame(h2_raw.PING, 0, 0, b"\0" * 7), "FRAME_SIZE_ERROR"),
    ("settings-on-a-stream", lambda c: h2_raw.settings([], stream=1), "PROTOCOL_ERROR"),
    ("settings-enable-push-2", lambda c: h2_raw.settings([(h2_raw.ENABLE_PUSH, 2)]), "PROTOCOL_ERROR"),
    ("settings-max-frame-size-1000", lambda c: h2_raw.settings([(h2_raw.MAX_FRAME_SIZE, 1000)]), "PROTOCOL_ERROR"),
    ("settings-initial-window-2^31", lambda c: h2_raw.settings([(h2_raw.INITIAL_WINDOW_SIZE, 1 << 31)]),
     "FLOW_CONTROL_ERROR"),
    ("window-update-of-zero", lambda c: h2_raw.window_update(0, 0), "PROTOCOL_ERROR"),
    ("headers-on-an-even-stream", lambda c: c.request(2, "/index.html?even"), "PROTOCOL_ERROR"),
    ("continuation-without-headers", lambda c: h2_raw.continuation(1, b"", end_headers=True), "PROTOCOL_ERROR"),
    ("rst-stream-on-an-idle-stream", lambda c: h2_raw.rst_stream(1, 0), "PROTOCOL_ERROR"),
    ("data-on-an-idle-stream", lambda c: h2_raw.data(1, b"surprise", end_stream=True), "PROTOCOL_ERROR"),
]


@pytest.mark.parametrize("make, code", [case[1:] for case in MALFORMED], ids=[case[0] for case in MALFORMED])
def test_a_malformed_frame_ends_the_connection_with_goaway(proxy, make, code):
    """A connection error (§5.4.1): GOAWAY with the code RFC 9113 gives the violation, then the
    connection closes; the proxy lives on and serves the next connection."""
    with RawH2(proxy.reverse.port) as client:
        client.start()
        client.send(make(client))
        received = client.read_until(lambda r: r.goaway, 10, "GOAWAY")
        client.read_until_closed(10)
    assert received.goaway is not None, received.describe()
    assert received.goaway.error == code, received.goaway
    assert received.goaway.last_stream_id == 0 and not received.heads
    assert received.closed

    served_after(proxy)
    trace = proxy.trace()
    assert len(connection_errors(trace, code)) == 1, trace.of("protocol.error")
    assert_goaway_traced(trace, received.goaway)
    first = trace.of("connection.closed")[0]
    assert first["reason"] == f"http2-{code}", first


def test_http1_bytes_after_alpn_h2_end_the_connection_with_goaway(start_faultline, origin, tmp_path):
    """A TLS client that chose h2 by ALPN and then speaks HTTP/1.1: not the connection preface
    (§3.4), so our SETTINGS, GOAWAY PROTOCOL_ERROR, close."""
    confdir = tmp_path / "confdir"
    confdir.mkdir(mode=0o700)
    proxy = start_faultline("--listen", "127.0.0.1:0", "--tls", "--mode", f"reverse:{origin.url}",
                            "--confdir", str(confdir))
    context = ssl.create_default_context()
    context.check_hostname, context.verify_mode = False, ssl.CERT_NONE  # the raw client checks no certificate
    context.set_alpn_protocols(["h2"])
    with RawH2(proxy.reverse.port, tls_context=context) as client:
        assert client.sock.selected_alpn_protocol() == "h2"
        client.send(b"GET /echo?after-alpn-h2 HTTP/1.1\r\nHost: localhost\r\n\r\n")
        received = client.read_until(lambda r: r.goaway, 10, "GOAWAY")
        client.read_until_closed(10)
    assert received.goaway is not None and received.goaway.error == "PROTOCOL_ERROR", received.describe()
    assert received.frames[0][0] == h2_raw.SETTINGS, "our preface comes first"
    trace = proxy.trace()
    (error,) = connection_errors(trace, "PROTOCOL_ERROR")
    assert "preface" in error["message"], error
    assert_goaway_traced(trace, received.goaway)
    assert not origin.seen("after-alpn-h2")

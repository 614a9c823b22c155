"""HTTP/2 limits and abuse, from a raw client (harness/h2_raw.py) at a reverse listener: what
Faultline advertises and enforces (Sources/FaultlineHTTP2/HTTP2Limits.swift, defaults) and what a
client breaking the protocol gets. Every case ends with the proxy serving the next connection.

| client does | Faultline answers (nghttp2 1.52) | trace |
|---|---|---|
| more streams than SETTINGS_MAX_CONCURRENT_STREAMS (100) before ACKing our SETTINGS | RST_STREAM REFUSED_STREAM for the extra ones; the others are served | `protocol.error` `http2-stream-error` per refused stream |
| the same after ACKing them | GOAWAY PROTOCOL_ERROR (nghttp2 makes it a connection error; RFC 9113 §5.1.2 asks for a stream error) | `protocol.error` `http2-PROTOCOL_ERROR`, `http2.goaway` |
| a header list over SETTINGS_MAX_HEADER_LIST_SIZE (64 KiB, §6.5.2) | RST_STREAM ENHANCE_YOUR_CALM on that stream; no 431 (the stream is gone) | `protocol.error` `http2-stream-error` |
| one field over nghttp2's HPACK limit (64 KiB name + value) | GOAWAY COMPRESSION_ERROR | `protocol.error` `http2-COMPRESSION_ERROR`, `http2.goaway` |
| more than 8 CONTINUATION frames after a HEADERS (CVE-2024-27316 class) | GOAWAY ENHANCE_YOUR_CALM, connection closed | `protocol.error` `http2-ENHANCE_YOUR_CALM`, `http2.goaway` |
| more than 1000 RST_STREAM at once (+33/s; CVE-2023-44487 rapid reset) | GOAWAY INTERNAL_ERROR (nghttp2's own rate limit; its code, not ENHANCE_YOUR_CALM) | `protocol.error` `http2-INTERNAL_ERROR`, `http2.goaway` |
| a frame of the wrong size, invalid SETTINGS, ... | GOAWAY FRAME_SIZE_ERROR / PROTOCOL_ERROR / FLOW_CONTROL_ERROR | `protocol.error` `http2-CODE`, `http2.goaway` |
"""
import ssl

import pytest

from harness import h2, h2_raw
from harness.h2_raw import RawH2

pytestmark = pytest.mark.timeout(60)

REFUSED_STREAM, ENHANCE_YOUR_CALM = h2_raw.CODES["REFUSED_STREAM"], h2_raw.CODES["ENHANCE_YOUR_CALM"]
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


def test_a_stream_over_the_acknowledged_limit_ends_the_connection(proxy):
    """Once the client has ACKed our SETTINGS, nghttp2 treats stream 101 as a connection error:
    GOAWAY PROTOCOL_ERROR naming the last stream it took (RFC 9113 §5.1.2 allows a stream error
    there; nghttp2 chose the connection). The open flows end, the proxy serves others."""
    with RawH2(proxy.reverse.port) as client:
        client.start()
        client.read_until(lambda r: r.settings, 10, "our SETTINGS")  # ACKed on arrival
        limit = client.advertised(h2_raw.MAX_CONCURRENT_STREAMS)
        # Requests that stay open: their bodies never come.
        client.send(*[client.request(2 * index + 1, f"/index.html?open={index}", method="POST", end_stream=False)
                      for index in range(limit)])
        client.send(client.request(2 * limit + 1, "/index.html?one-too-many"))
        received = client.read_until(lambda r: r.goaway, 20, "GOAWAY")
        client.read_until_closed(10)
    assert received.goaway is not None, received.describe()
    assert received.goaway.error == "PROTOCOL_ERROR" and received.goaway.last_stream_id == 2 * limit - 1
    assert received.closed

    served_after(proxy)
    trace = proxy.trace()
    (error,) = connection_errors(trace, "PROTOCOL_ERROR")
    assert "max concurrent streams" in error["message"], error
    assert_goaway_traced(trace, received.goaway)
    assert not trace.requests("one-too-many")


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

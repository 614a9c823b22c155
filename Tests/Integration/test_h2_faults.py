"""Transport faults over HTTP/2 break one stream, never the connection: the example
Rules/transport-faults.json5 (a fault per `X-Faultline-Fault` value) applied to one stream of a
connection whose other streams complete. What HTTP/1.1 does with the connection (TCP reset,
close, a bad chunk line), HTTP/2 does with the stream: RST_STREAM, after whatever part of the
response the fault lets through (RFC 9113 §5.4.2, §8.1)."""
import pytest

from harness import h2
from harness.python_origin import pattern_bytes

pytestmark = pytest.mark.timeout(60)

INTERNAL_ERROR, PROTOCOL_ERROR = 0x2, 0x1


@pytest.fixture
def faulty(start_faultline, rules_folder, origin):
    folder = rules_folder("transport-faults.json5", profile=False)
    return start_faultline("--listen", "127.0.0.1:0", "--mode", f"reverse:{origin.url}", "--rules", folder)


def fault(kind):
    return [("x-faultline-fault", kind)]


# (fault, path, RST_STREAM code, response head seen, body bytes that get through)
CASES = [
    ("reset", "/echo", INTERNAL_ERROR, False, 0),
    ("close-before-response", "/echo", INTERNAL_ERROR, False, 0),
    ("close-mid-body", "/close-delimited?size=4000", INTERNAL_ERROR, True, 512),
    ("truncate", "/close-delimited?size=4000", INTERNAL_ERROR, True, 512),
    ("malformed-chunk", "/chunked?pieces=3&size=1000&trailers=0", PROTOCOL_ERROR, True, None),
]


@pytest.mark.parametrize("kind, path, code, head, through", CASES, ids=[case[0] for case in CASES])
def test_a_fault_resets_its_stream_and_the_others_complete(faulty, kind, path, code, head, through):
    result = h2.h2_exchange(faulty.reverse.port, [
        ("GET", "/echo?before", []),
        ("GET", path, fault(kind)),
        ("GET", "/echo?after", []),
    ])
    before, broken, after = result.streams
    assert broken.reset == code, (kind, broken)
    assert (broken.status is not None) == head, broken
    if through is not None:
        assert len(broken.body) == through, (kind, len(broken.body))
        assert broken.body == pattern_bytes(4000, seed=7)[:through]
    for other in (before, after):
        assert other.ended and other.reset is None and other.status == 200, other
    assert result.goaway is None and not result.closed, "a stream fault must not end the connection"

    trace = faulty.trace()
    requests = trace.of("request.received")
    assert len({event["conn"] for event in requests}) == 1
    broken_flow = next(event["flow"] for event in requests if event["stream"] == broken.stream)
    assert trace.one("rule.fired", flow=broken_flow)["rule"].endswith(f"/{kind}")


CURL_SEES = {INTERNAL_ERROR: "INTERNAL_ERROR", PROTOCOL_ERROR: "PROTOCOL_ERROR"}


@pytest.mark.parametrize("kind, path, code, head, through", CASES, ids=[case[0] for case in CASES])
def test_curl_reports_each_fault_as_its_stream_reset(faulty, kind, path, code, head, through):  # noqa: ARG001
    """curl names the reset and its code ("HTTP/2 stream 1 was not closed cleanly:
    INTERNAL_ERROR", exit 92, CURLE_HTTP2_STREAM). (curl 7.88 keeps none of a reset stream's
    body; the raw client above shows the bytes that got through.)"""
    result = h2.curl_h2(faulty.reverse.url + path, "-H", f"X-Faultline-Fault: {kind}", prior_knowledge=True)
    assert result.exit_code == 92, result.describe()
    assert "was not closed cleanly" in result.error and CURL_SEES[code] in result.error, result.describe()


def test_a_stalled_stream_does_not_stall_the_others(faulty):
    """`stall` (2 s, then the transport breaks) on one stream: the other streams are answered
    at once, the stalled one is reset when its stall ends."""
    result = h2.h2_exchange(faulty.reverse.port, [
        ("GET", "/echo?stalled", fault("stall")),
        ("GET", "/echo?free1", []),
        ("GET", "/echo?free2", []),
    ])
    stalled, *free = result.streams
    assert stalled.reset == INTERNAL_ERROR and stalled.status is None, stalled
    assert all(outcome.ended and outcome.status == 200 for outcome in free), free
    trace = faulty.trace()
    flows = {event["url"].rsplit("?", 1)[1]: event["flow"] for event in trace.of("request.received")}
    stall_started = trace.one("fault.injected", flow=flows["stalled"])
    # The client closed the connection once the stalled stream was reset, 2 s after the stall began.
    assert trace.one("connection.closed")["mono_ns"] - stall_started["mono_ns"] >= 2_000_000_000
    for name in ("free1", "free2"):
        delivered = trace.one("response.delivered", flow=flows[name])
        assert delivered["mono_ns"] - stall_started["mono_ns"] < 1_000_000_000, "answered during the 2 s stall"


def _forwarded_flows(trace):
    return {event["flow"] for event in trace.of("request.forwarded")}


def _flow_of_stream(trace, stream):
    return next(event["flow"] for event in trace.of("request.received") if event["stream"] == stream)


def test_refused_stream_is_not_processed(faulty, origin):
    result = h2.h2_exchange(faulty.reverse.port, [
        ("GET", "/echo?before", []),
        ("GET", "/echo?refused", fault("refused-stream")),
        ("GET", "/echo?after", []),
    ])
    before, refused, after = result.streams
    assert refused.reset == 0x7 and refused.reset_name == "REFUSED_STREAM" and refused.status is None, refused
    assert before.status == after.status == 200 and result.goaway is None
    trace = faulty.trace()
    assert _flow_of_stream(trace, refused.stream) not in _forwarded_flows(trace)


def test_curl_retries_a_refused_stream_then_gives_up(faulty):
    """REFUSED_STREAM tells curl the request was not processed: it retries on a new connection
    (each retry refused again by the header rule) and gives up after 5 (harness/h2.py)."""
    result = h2.curl_h2(faulty.reverse.url + "/echo", "-H", "X-Faultline-Fault: refused-stream",
                        prior_knowledge=True)
    assert result.exit_code == 56, result.describe()
    requests = faulty.trace().of("request.received")
    assert len(requests) > 1 and len({event["conn"] for event in requests}) == len(requests)


def test_cancel_mid_body_resets_with_cancel_after_512_bytes(faulty):
    result = h2.h2_exchange(faulty.reverse.port, [
        ("GET", "/close-delimited?size=4000", fault("cancel-mid-body")), ("GET", "/echo?other", []),
    ])
    cut, other = result.streams
    assert cut.status == 200 and cut.reset_name == "CANCEL", cut
    assert cut.body == pattern_bytes(4000, seed=7)[:512]
    assert other.ended and other.status == 200


def test_goaway_refuses_this_stream_and_later_ones(faulty):
    """The kept stream is answered first (python-h2 drops frames after a GOAWAY, so the
    exchange goes in two waves); then a goaway on one of two streams refuses both."""
    result = h2.h2_exchange(faulty.reverse.port, [("GET", "/echo?kept", [])],
                            then=[("GET", "/echo?away", fault("goaway")), ("GET", "/echo?later", [])])
    kept, away, later = result.streams
    assert result.goaway == {"last_stream_id": kept.stream, "error_code": 0, "error": "NO_ERROR"}, result
    assert kept.ended and kept.status == 200, kept
    assert away.status is None and later.status is None
    assert result.closed, "the connection closes: no stream is left"
    trace = faulty.trace()
    forwarded = _forwarded_flows(trace)
    assert _flow_of_stream(trace, away.stream) not in forwarded
    assert _flow_of_stream(trace, later.stream) not in forwarded
    sent = trace.one("http2.goaway", side="proxy")
    assert (sent["code"], sent["last_stream_id"]) == ("NO_ERROR", kept.stream)


def test_goaway_after_lets_this_stream_finish(faulty):
    """nghttp, two streams both asking for goaway-after: the first processed names itself in the
    GOAWAY and is answered; the other is refused, never forwarded."""
    base = faulty.reverse.url
    result = h2.nghttp_get(base + "/echo?one", base + "/echo?two", "-H", "X-Faultline-Fault: goaway-after")
    assert result.goaway is not None and result.goaway[2] == "NO_ERROR", result.describe()
    last = result.goaway[0]
    assert [stream for stream in result.headers] == [last], result.describe()
    assert result.status == 200 and result.not_processed
    trace = faulty.trace()
    forwarded = _forwarded_flows(trace)
    assert [event["stream"] for event in trace.of("request.received") if event["flow"] in forwarded] == [last]


def test_httpx_sees_goaway_as_connection_terminated(faulty):
    with h2.httpx_h2_client(prior_knowledge=True) as client:
        result = h2.httpx_h2_get(client, faulty.reverse.url + "/echo", headers={"X-Faultline-Fault": "goaway"})
    assert result.goaway is not None and result.goaway["error"] == "NO_ERROR", result.describe()

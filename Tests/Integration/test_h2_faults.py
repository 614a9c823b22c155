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
    stall_ended = max(event["seq"] for event in trace.flow(flows["stalled"]))
    stall_started = trace.one("rule.fired", flow=flows["stalled"])
    for name in ("free1", "free2"):
        delivered = trace.one("response.delivered", flow=flows[name])
        assert delivered["seq"] < stall_ended
        assert delivered["mono_ns"] - stall_started["mono_ns"] < 1_000_000_000, "answered during the 2 s stall"

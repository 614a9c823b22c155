"""Upstreams that misbehave: refused connections, slow answers, malformed and truncated responses.
The client gets a proxy-made error (502/504, `X-Faultline-Error`, body starting "faultline:")
when nothing was sent yet, a cut connection otherwise, and the trace says which it was."""
import uuid

from harness.clients import curl
from harness.http_clients import requests_session
from harness.rawhttp import PeerClosed, RawConnection, request_bytes
from harness.waiting import closed_port


def test_refused_upstream_answers_502_and_keeps_the_client_connection(faultline, nginx):
    port = closed_port()
    session = requests_session(faultline.forward.url)
    refused = session.get(f"http://127.0.0.1:{port}/nothing-here", timeout=15)
    assert refused.status_code == 502
    code = refused.headers.get("X-Faultline-Error")
    assert code, f"502 without X-Faultline-Error: {refused.headers}"
    assert refused.text.startswith("faultline:"), refused.text
    # The request was complete, so the proxy keeps the client connection for the next one.
    assert session.get(f"{nginx.url}/index.html", timeout=15).status_code == 200
    session.close()

    trace = faultline.trace()
    flow = trace.flow_for("/nothing-here")
    error = trace.one("upstream.error", flow=flow)
    assert (error["status"], error["code"]) == (502, code)
    delivered = trace.one("response.delivered", flow=flow)
    assert delivered["status"] == 502 and delivered["synthetic"] is True
    assert not trace.of("request.forwarded", flow=flow)
    assert len({event["conn"] for event in trace.requests()}) == 1


def test_response_timeout_answers_504_then_the_origin_is_released(start_faultline, origin):
    faultline = start_faultline("--listen", "127.0.0.1:0", "--response-timeout", "1")
    key = uuid.uuid4().hex[:12]
    gate = origin.gate(key)
    session = requests_session(faultline.forward.url)
    try:
        timed_out = session.get(f"{origin.url}/slow?key={key}", timeout=15)
    finally:
        gate.release()
        session.close()
    assert gate.arrived.is_set(), "the request never reached the origin"
    assert timed_out.status_code == 504
    assert timed_out.headers.get("X-Faultline-Error")
    assert timed_out.text.startswith("faultline:")

    trace = faultline.trace()
    flow = trace.flow_for(key)
    error = trace.one("upstream.error", flow=flow)
    assert error["status"] == 504 and error["code"] == timed_out.headers["X-Faultline-Error"]
    assert trace.one("response.delivered", flow=flow)["synthetic"] is True


def test_malformed_upstream_responses_answer_502(faultline, origin):
    for kind in ("bad-length", "garbage"):
        with RawConnection("127.0.0.1", faultline.forward.port) as connection:
            connection.send(request_bytes("GET", f"{origin.url}/broken?kind={kind}", [("Host", origin.authority)]))
            response = connection.read_response()
            assert response.status == 502, (kind, response.status, response.body)
            assert response.header("x-faultline-error") and response.body.startswith(b"faultline:")
    trace = faultline.trace()
    for kind in ("bad-length", "garbage"):
        flow = trace.flow_for(f"kind={kind}")
        errors = trace.of("protocol.error", flow=flow) + trace.of("upstream.error", flow=flow)
        assert len(errors) == 1 and errors[0]["status"] == 502, errors
        if errors[0]["event"] == "protocol.error":
            assert errors[0]["side"] == "upstream"


def test_truncated_upstream_response_cuts_the_client_connection(faultline, origin):
    # The head (Content-Length: 1000) already went to the client, so no error page can follow:
    # the client must see a short body and a closed connection, never a complete-looking response.
    with RawConnection("127.0.0.1", faultline.forward.port) as connection:
        connection.send(request_bytes("GET", f"{origin.url}/broken?kind=truncated", [("Host", origin.authority)]))
        try:
            response = connection.read_response()
        except PeerClosed:
            response = None
        assert response is None, f"a truncated body was delivered as complete: {len(response.body)} bytes"
    done = curl("-x", faultline.forward.url, f"{origin.url}/broken?kind=truncated&curl")
    assert done.returncode == 18, f"curl should report a partial transfer (18), got {done.returncode}"

    trace = faultline.trace()
    flow = trace.flow_for("kind=truncated&curl")
    assert trace.of("protocol.error", flow=flow) or trace.of("upstream.error", flow=flow)
    assert not trace.of("response.delivered", flow=flow), "a cut response must not be traced as delivered"

"""Transport faults as real clients see them: Rules/transport-faults.json5 (X-Faultline-Fault:
<kind> on a request) and Rules/reset-upload.json5, through curl and httpx, against the fake
auth backend. Each fault must surface as the client's own failure for a broken network or
server (curl's exit code, httpx's exception), never as a normal-looking response; and the
backend's counters say whether the request reached it."""
import os
import time

import httpx
import pytest

from harness.auth_backend import AVATAR
from harness.clients import curl

FAULTS = "transport-faults.json5"
UPLOAD = "reset-upload.json5"
HEADER = "X-Faultline-Fault"

# curl exit codes (curl(1) "EXIT CODES").
PARTIAL_FILE = 18
OPERATION_TIMEOUT = 28
EMPTY_REPLY = 52
RECV_ERROR = 56


@pytest.fixture
def fault_proxy(start_with_rules, rules_folder, auth_backend):
    """The proxy with transport-faults.json5 (and the profile), and a valid access token."""
    proxy = start_with_rules(rules_folder(FAULTS))
    access, _, _ = auth_backend.login("carol")
    return proxy, access


def _curl_avatar(proxy, backend, access, kind, *extra, timeout=20):
    """GETs /v1/avatar through the proxy with the fault header; returns (exit code, body bytes
    received, stderr). The body goes to a file so a partial body is measurable."""
    output = os.path.join(proxy.workdir, f"curl-{kind}-{time.monotonic_ns()}.out")
    done = curl("-x", proxy.forward.url, "-o", output, "-H", f"Authorization: Bearer {access}",
                "-H", f"{HEADER}: {kind}", *extra, f"{backend.url}/v1/avatar", timeout=timeout)
    received = open(output, "rb").read() if os.path.exists(output) else b""
    return done.returncode, received, done.stderr.decode(errors="replace")


def _httpx_avatar(proxy, backend, access, kind, timeout=15):
    """The same GET with a fresh httpx client; returns the exception it raised (None if none)."""
    with httpx.Client(proxy=proxy.forward.url, trust_env=False, timeout=timeout) as client:
        try:
            response = client.get(f"{backend.url}/v1/avatar",
                                  headers={"Authorization": f"Bearer {access}", HEADER: kind})
        except httpx.HTTPError as error:
            return error
    raise AssertionError(f"httpx got a complete response despite fault {kind}: {response.status_code}, "
                         f"{len(response.content)} bytes")


def _fault_flows(trace, kind):
    """The flows the rule for `kind` fired on, each with its fault.injected event."""
    fired = trace.of("rule.fired", rule=f"transport-faults/{kind}")
    return [(event["flow"], trace.one("fault.injected", flow=event["flow"])) for event in fired]


def test_reset_before_the_backend_is_a_connection_reset(fault_proxy, auth_backend):
    proxy, access = fault_proxy
    code, received, stderr = _curl_avatar(proxy, auth_backend, access, "reset")
    assert code == RECV_ERROR and received == b"", (code, stderr)
    assert "reset" in stderr.lower(), stderr
    error = _httpx_avatar(proxy, auth_backend, access, "reset")
    assert isinstance(error, (httpx.ReadError, httpx.RemoteProtocolError)), repr(error)
    assert auth_backend.calls("/v1/avatar") == 0, "a request-phase reset must not reach the backend"

    flows = _fault_flows(proxy.trace(), "reset")
    assert len(flows) == 2
    for flow, injected in flows:
        assert (injected["fault"], injected["phase"]) == ("reset", "request")
    assert not [e for e in proxy.trace().of("request.forwarded") if e["flow"] in {f for f, _ in flows}]


def test_close_before_response_is_an_empty_reply_after_the_backend_acted(fault_proxy, auth_backend):
    proxy, access = fault_proxy
    code, received, stderr = _curl_avatar(proxy, auth_backend, access, "close-before-response")
    assert code == EMPTY_REPLY and received == b"", (code, stderr)
    error = _httpx_avatar(proxy, auth_backend, access, "close-before-response")
    assert isinstance(error, httpx.RemoteProtocolError), repr(error)
    assert "without sending a response" in str(error), str(error)
    # The ambiguous outcome: the backend answered both, the clients saw nothing.
    assert auth_backend.calls("/v1/avatar") == 2

    trace = proxy.trace()
    for flow, injected in _fault_flows(trace, "close-before-response"):
        assert (injected["fault"], injected["phase"]) == ("close-before-response", "response")
        assert trace.one("response.received", flow=flow)["status"] == 200
        assert not trace.of("response.delivered", flow=flow)


def test_close_mid_body_cuts_the_body_with_a_reset(fault_proxy, auth_backend):
    proxy, access = fault_proxy
    code, received, stderr = _curl_avatar(proxy, auth_backend, access, "close-mid-body")
    # The reset may overtake the 512 bytes in the client's socket (exit 56) or come after them
    # (exit 18, a short body); never a whole body.
    assert code in (RECV_ERROR, PARTIAL_FILE), (code, stderr)
    assert len(received) <= 512 and AVATAR.startswith(received)
    error = _httpx_avatar(proxy, auth_backend, access, "close-mid-body")
    assert isinstance(error, (httpx.ReadError, httpx.RemoteProtocolError)), repr(error)

    trace = proxy.trace()
    flows = _fault_flows(trace, "close-mid-body")
    assert len(flows) == 2
    for _, injected in flows:
        assert (injected["fault"], injected["phase"]) == ("close-mid-body", "response")


def test_truncate_closes_cleanly_after_part_of_the_body(fault_proxy, auth_backend):
    proxy, access = fault_proxy
    code, received, stderr = _curl_avatar(proxy, auth_backend, access, "truncate")
    assert code == PARTIAL_FILE, (code, stderr)
    assert received == AVATAR[:512]
    assert f"{len(AVATAR) - 512} bytes remaining" in stderr, stderr
    error = _httpx_avatar(proxy, auth_backend, access, "truncate")
    assert isinstance(error, httpx.RemoteProtocolError), repr(error)
    assert "incomplete" in str(error) or "peer closed" in str(error), str(error)
    flows = _fault_flows(proxy.trace(), "truncate")
    assert [injected["fault"] for _, injected in flows] == ["truncate", "truncate"]


def test_malformed_chunk_is_a_framing_error(fault_proxy, auth_backend):
    proxy, access = fault_proxy
    code, received, stderr = _curl_avatar(proxy, auth_backend, access, "malformed-chunk")
    assert code == RECV_ERROR, (code, stderr)
    assert "chunk" in stderr.lower(), stderr
    assert not received.startswith(AVATAR[:64])
    error = _httpx_avatar(proxy, auth_backend, access, "malformed-chunk")
    assert isinstance(error, httpx.RemoteProtocolError), repr(error)
    flows = _fault_flows(proxy.trace(), "malformed-chunk")
    assert [injected["fault"] for _, injected in flows] == ["malformed-chunk", "malformed-chunk"]


def test_stall_outlasts_a_short_client_timeout(fault_proxy, auth_backend):
    """A client whose timeout (0.5 s) is shorter than the 2 s stall gives up on its own: the
    proxy sent nothing at all during the stall, not even a status line."""
    proxy, access = fault_proxy
    code, received, stderr = _curl_avatar(proxy, auth_backend, access, "stall", "--max-time", "0.5")
    assert code == OPERATION_TIMEOUT and received == b"", (code, stderr)
    error = _httpx_avatar(proxy, auth_backend, access, "stall", timeout=0.5)
    assert isinstance(error, httpx.ReadTimeout), repr(error)


def test_stall_ends_with_a_close_for_a_patient_client(fault_proxy, auth_backend):
    """A client with a longer timeout (10 s) sees the stall end: nothing for 2 s, then the
    connection closes without a response (curl: empty reply)."""
    proxy, access = fault_proxy
    started = time.monotonic()
    code, received, stderr = _curl_avatar(proxy, auth_backend, access, "stall", "--max-time", "10")
    waited = time.monotonic() - started
    assert code == EMPTY_REPLY and received == b"", (code, stderr)
    assert waited >= 2.0, f"the stall ended after {waited:.2f}s, before its 2 s"
    started = time.monotonic()
    error = _httpx_avatar(proxy, auth_backend, access, "stall", timeout=10)
    assert isinstance(error, httpx.RemoteProtocolError), repr(error)
    assert time.monotonic() - started >= 2.0
    assert auth_backend.calls("/v1/avatar") == 2  # the backend answered; the proxy sat on it

    trace = proxy.trace()
    for flow, injected in _fault_flows(trace, "stall"):
        assert (injected["fault"], injected["phase"]) == ("stall", "response")
        assert not trace.of("response.delivered", flow=flow)


def test_requests_without_the_header_pass_untouched(fault_proxy, auth_backend):
    """The control for every test above: the same request without the header is whole."""
    proxy, access = fault_proxy
    with httpx.Client(proxy=proxy.forward.url, trust_env=False, timeout=15) as client:
        response = client.get(f"{auth_backend.url}/v1/avatar", headers={"Authorization": f"Bearer {access}"})
    assert response.status_code == 200 and response.content == AVATAR
    trace = proxy.trace()
    assert not trace.of("rule.fired") and not trace.of("fault.injected")


# -- reset-upload.json5 --------------------------------------------------------------------------

UPLOAD_BODY = os.urandom(64 * 1024)


def test_upload_is_reset_before_reaching_the_backend(start_with_rules, rules_folder, auth_backend):
    proxy = start_with_rules(rules_folder(UPLOAD, enable=[UPLOAD]))
    done = curl("-x", proxy.forward.url, "--data-binary", "@-", "-H", "Content-Type: application/octet-stream",
                f"{auth_backend.url}/upload", input=UPLOAD_BODY)
    assert done.returncode == RECV_ERROR, (done.returncode, done.stderr)
    with httpx.Client(proxy=proxy.forward.url, trust_env=False, timeout=15) as client:
        with pytest.raises((httpx.ReadError, httpx.RemoteProtocolError, httpx.WriteError)):
            client.post(f"{auth_backend.url}/upload", content=UPLOAD_BODY)
    assert auth_backend.uploads() == []

    trace = proxy.trace()
    fired = trace.of("rule.fired", rule="reset-upload/reset-upload")
    assert len(fired) == 2
    for event in fired:
        assert trace.one("fault.injected", flow=event["flow"])["fault"] == "reset"
        assert not trace.of("request.forwarded", flow=event["flow"])


def test_upload_response_cut_after_the_backend_stored_it(start_with_rules, rules_folder, auth_backend):
    """The other rule of reset-upload.json5, switched over: the upload is stored, the answer is
    cut 10 bytes into its body. The client cannot tell success from failure."""
    folder = rules_folder(UPLOAD, enable=[UPLOAD, f"{UPLOAD}#cut-upload-response"],
                          disable=[f"{UPLOAD}#reset-upload"])
    proxy = start_with_rules(folder)
    with httpx.Client(proxy=proxy.forward.url, trust_env=False, timeout=15) as client:
        with pytest.raises((httpx.ReadError, httpx.RemoteProtocolError)):
            client.post(f"{auth_backend.url}/upload", content=UPLOAD_BODY)
    assert len(auth_backend.uploads()) == 1 and auth_backend.uploads()[0][0] == len(UPLOAD_BODY)
    trace = proxy.trace()
    fired = trace.one("rule.fired", rule="reset-upload/cut-upload-response")
    injected = trace.one("fault.injected", flow=fired["flow"])
    assert (injected["fault"], injected["phase"]) == ("close-mid-body", "response")
    assert not trace.of("rule.fired", rule="reset-upload/reset-upload")


def test_reset_upload_is_off_by_default(start_with_rules, rules_folder, auth_backend):
    """The shipped file is off: copied as is, uploads pass."""
    proxy = start_with_rules(rules_folder(UPLOAD))
    with httpx.Client(proxy=proxy.forward.url, trust_env=False, timeout=15) as client:
        response = client.post(f"{auth_backend.url}/upload", content=UPLOAD_BODY)
    assert response.status_code == 200 and response.json()["received"] == len(UPLOAD_BODY)
    assert not proxy.trace().of("rule.fired")


# -- the HTTP/2-minded kinds, as HTTP/1.1 clients see them (test_h2_faults.py for HTTP/2) --------


def test_refused_stream_on_http1_is_a_reset(fault_proxy, auth_backend):
    """HTTP/1.1 has no RST_STREAM codes: `{ kind: "reset", code: "REFUSED_STREAM" }` is a reset."""
    proxy, access = fault_proxy
    code, received, stderr = _curl_avatar(proxy, auth_backend, access, "refused-stream")
    assert code == RECV_ERROR and received == b"", (code, stderr)
    assert auth_backend.calls("/v1/avatar") == 0


def test_goaway_on_http1_closes_before_the_response(fault_proxy, auth_backend):
    proxy, access = fault_proxy
    code, received, stderr = _curl_avatar(proxy, auth_backend, access, "goaway")
    assert code == EMPTY_REPLY and received == b"", (code, stderr)
    assert auth_backend.calls("/v1/avatar") == 0, "this request is not processed"
    ((flow, injected),) = _fault_flows(proxy.trace(), "goaway")
    assert (injected["fault"], injected["phase"]) == ("goaway", "request")


def test_goaway_after_on_http1_answers_with_connection_close(fault_proxy, auth_backend):
    proxy, access = fault_proxy
    with httpx.Client(proxy=proxy.forward.url, trust_env=False, timeout=15) as client:
        response = client.get(f"{auth_backend.url}/v1/avatar",
                              headers={"Authorization": f"Bearer {access}", HEADER: "goaway-after"})
        again = client.get(f"{auth_backend.url}/v1/avatar", headers={"Authorization": f"Bearer {access}"})
    assert response.status_code == 200 and response.headers.get("connection") == "close"
    assert again.status_code == 200
    trace = proxy.trace()
    first, second = trace.of("request.received")
    assert first["conn"] != second["conn"], "the connection closed after the goaway-after response"

"""HTTP/2 to origins: Faultline offers `h2, http/1.1` by ALPN to every https upstream and speaks
HTTP/2 to the origins that pick h2 (each flow a stream of a pooled upstream connection), HTTP/1.1
to the others; `--http1-only` offers only http/1.1.

Origins: nginx with an h2 TLS listener (harness/h2_origin.py: /protocol says what nginx saw) and
the scripted python-h2 server over TLS (harness/h2_server.py: /echo returns the header block and
body digest it received, /rst/CODE and /goaway/CODE misbehave). Clients speak HTTP/1.1 (Python's
http.client) or HTTP/2 (curl with prior knowledge), so the translation is seen both ways
(RFC 9113 §8.2.2 connection-specific fields, §8.3.1 `:authority` for Host, trailers)."""
import hashlib
import http.client
import json
import os
import subprocess

import pytest

from harness import h2
from harness.h2_server import ScriptedH2Server
from harness.tls import server_context

pytestmark = pytest.mark.timeout(60)


@pytest.fixture(scope="module")
def h2_tls_server(certificates):
    """The scripted HTTP/2 server over TLS (ALPN h2 only)."""
    server = ScriptedH2Server(tls_context=server_context(certificates)).start()
    yield server
    server.stop()


def reverse_to(start_faultline, url, certificates, *extra):
    return start_faultline("--listen", "127.0.0.1:0", "--mode", f"reverse:{url}", "--upstream-ca",
                           certificates["ca.pem"], *extra)


def http1(proxy, method, path, body=None, headers=None, connection=None):
    """One HTTP/1.1 exchange with the proxy's reverse listener (on `connection` when given, to keep
    it alive between calls); returns (status, headers dict, body bytes)."""
    connection = connection or http.client.HTTPConnection("127.0.0.1", proxy.reverse.port, timeout=20)
    connection.request(method, path, body=body, headers=headers or {})
    response = connection.getresponse()
    return response.status, {name.lower(): value for name, value in response.getheaders()}, response.read()


def forwarded(trace):
    return trace.of("request.forwarded")


def test_http1_client_reaches_an_h2_origin_over_h2(start_faultline, h2_origin, certificates):
    proxy = reverse_to(start_faultline, h2_origin.tls_url, certificates)
    status, headers, body = http1(proxy, "GET", "/protocol")
    assert status == 200 and body == b"HTTP/2.0 h2\n", body
    # The response came over HTTP/2: Via names it so (RFC 9110 §7.6.3); no HTTP/2 field leaks.
    assert headers.get("via", "").startswith("2 "), headers
    trace = proxy.trace()
    (sent,) = forwarded(trace)
    assert sent["upstream_version"] == "HTTP/2"
    assert trace.one("response.received", flow=sent["flow"])["version"] == "HTTP/2"
    assert trace.one("tls.handshake", side="upstream")["alpn"] == "h2"


def test_http1_only_keeps_the_upstream_on_http1(start_faultline, h2_origin, certificates):
    proxy = reverse_to(start_faultline, h2_origin.tls_url, certificates, "--http1-only")
    status, _, body = http1(proxy, "GET", "/protocol")
    assert status == 200 and body == b"HTTP/1.1 \n", body
    trace = proxy.trace()
    assert "upstream_version" not in forwarded(trace)[0]
    assert trace.one("tls.handshake", side="upstream")["alpn"] == "http/1.1"


def test_the_request_is_translated_to_an_h2_header_block(start_faultline, h2_tls_server, certificates):
    proxy = reverse_to(start_faultline, h2_tls_server.url, certificates)
    payload = os.urandom(200_000)  # over the 65,535-byte initial window: WINDOW_UPDATEs must flow
    status, _, body = http1(proxy, "POST", "/echo?x=1", body=payload, headers={
        "Content-Type": "application/octet-stream", "Connection": "keep-alive, X-Hop", "X-Hop": "1",
        "Keep-Alive": "timeout=5", "X-Test": "kept", "Cookie": "a=1; b=2", "TE": "trailers"})
    assert status == 200, body
    echoed = json.loads(body)
    block = [tuple(pair) for pair in echoed["headers"]]
    names = [name for name, _ in block]
    # Pseudo-headers first (§8.3.1), :authority from Host, the origin-form target as :path.
    assert names[:4] == [":method", ":scheme", ":authority", ":path"], names
    assert dict(block[:4]) == {":method": "POST", ":scheme": "https", ":authority": f"127.0.0.1:{h2_tls_server.port}",
                               ":path": "/echo?x=1"}
    # Connection-specific fields and those Connection names are gone (§8.2.2); TE: trailers stays.
    for gone in ("host", "connection", "keep-alive", "x-hop", "transfer-encoding", "upgrade"):
        assert gone not in names, block
    fields = dict(block[4:])
    assert fields["te"] == "trailers" and fields["x-test"] == "kept" and fields["cookie"] == "a=1; b=2"
    assert fields["content-length"] == str(len(payload)) and fields["via"].startswith("1.1 ")
    assert echoed["body_length"] == len(payload)
    assert echoed["body_sha256"] == hashlib.sha256(payload).hexdigest()


def test_an_h2_client_streams_body_and_trailers_to_an_h2_origin(start_faultline, h2_tls_server, certificates, tmp_path):
    proxy = reverse_to(start_faultline, h2_tls_server.url, certificates)
    payload = os.urandom(300_000)
    path = tmp_path / "payload.bin"
    path.write_bytes(payload)
    # Chunked upload from curl over h2c: a body without length, ended by END_STREAM both ways.
    result = h2.curl_h2(proxy.reverse.url + "/echo", "-H", "Transfer-Encoding: chunked", "-T", str(path),
                        "-H", "Cookie: a=1", "-H", "Cookie: b=2", prior_knowledge=True)
    assert result.ok and result.http2 and result.status == 200, result.describe()
    echoed = json.loads(result.body)
    fields = dict(tuple(pair) for pair in echoed["headers"] if not pair[0].startswith(":"))
    assert "content-length" not in fields and "transfer-encoding" not in fields
    assert fields["via"].startswith("2 "), fields  # received over HTTP/2 (RFC 9110 §7.6.3)
    assert echoed["body_length"] == len(payload) and echoed["body_sha256"] == hashlib.sha256(payload).hexdigest()
    trace = proxy.trace()
    (received,) = trace.of("request.received")
    assert received["version"] == "HTTP/2"
    assert trace.one("request.forwarded", flow=received["flow"])["upstream_version"] == "HTTP/2"


def test_an_h2_download_arrives_whole(start_faultline, h2_origin, certificates):
    proxy = reverse_to(start_faultline, h2_origin.tls_url, certificates)
    with open(h2_origin.path("random-1m.bin"), "rb") as handle:
        expected = hashlib.sha256(handle.read()).hexdigest()
    status, headers, body = http1(proxy, "GET", "/random-1m.bin")
    assert status == 200 and len(body) == 1024 * 1024, headers
    assert hashlib.sha256(body).hexdigest() == expected
    # nginx states the length: the HTTP/1.1 client gets Content-Length, not chunks.
    assert headers["content-length"] == str(1024 * 1024) and "transfer-encoding" not in headers


def test_sequential_flows_share_one_pooled_h2_connection(start_faultline, h2_tls_server, certificates):
    proxy = reverse_to(start_faultline, h2_tls_server.url, certificates)
    before = h2_tls_server.connections
    connection = http.client.HTTPConnection("127.0.0.1", proxy.reverse.port, timeout=20)
    for index in range(3):
        status, _, body = http1(proxy, "GET", f"/pooled/{index}", connection=connection)
        assert status == 200 and body == f"h2 /pooled/{index}\n".encode()
    sent = forwarded(proxy.trace())
    assert [event["reused"] for event in sent] == [False, True, True]
    assert len({event["upstream_conn"] for event in sent}) == 1
    assert h2_tls_server.connections - before == 1
    streams = [request["stream"] for request in h2_tls_server.requests if request["path"].startswith("/pooled/")]
    assert streams == [1, 3, 5], "one HTTP/2 session continues across the pooled flows (RFC 9113 §5.1.1)"


@pytest.mark.parametrize("path, code", [("/rst/7", "upstream-reset"), ("/goaway/0", "upstream-stream-closed")])
def test_an_origin_that_refuses_the_stream_gets_a_502(start_faultline, h2_tls_server, certificates, path, code):
    proxy = reverse_to(start_faultline, h2_tls_server.url, certificates)
    status, headers, body = http1(proxy, "GET", path)
    assert status == 502 and headers.get("x-faultline-error") == code, (status, headers, body)
    error = proxy.trace().one("protocol.error", side="upstream")
    assert error["code"] == code and error["status"] == 502


def test_an_origin_reset_mid_body_cuts_the_client(start_faultline, h2_tls_server, certificates):
    proxy = reverse_to(start_faultline, h2_tls_server.url, certificates)
    result = h2.h2_exchange(proxy.reverse.port, [("GET", "/rst-after-headers/2", []), ("GET", "/after", [])])
    cut, after = result.streams
    # The head and "partial" went out; then the client's stream is reset, not ended cleanly, and
    # the other stream of the connection is answered.
    assert cut.status == 200 and cut.body == b"partial" and cut.reset_name == "INTERNAL_ERROR", cut
    assert not cut.ended
    assert after.status == 200 and after.body == b"h2 /after\n", after
    assert proxy.trace().one("protocol.error", side="upstream")["code"] == "upstream-reset"


def test_upstream_h2c_speaks_prior_knowledge_to_a_plain_upstream(start_faultline, h2_origin):
    proxy = start_faultline("--listen", "127.0.0.1:0", "--mode", f"reverse:{h2_origin.h2c_url}", "--upstream-h2c")
    connection = http.client.HTTPConnection("127.0.0.1", proxy.reverse.port, timeout=20)
    for _ in range(2):
        status, _, body = http1(proxy, "GET", "/protocol", connection=connection)
        assert status == 200 and body == b"HTTP/2.0 h2c\n", body
    # An h2c client too: :scheme stays http (RFC 9113 §8.3.1).
    result = h2.curl_h2(proxy.reverse.url + "/request", prior_knowledge=True)
    assert result.ok and result.status == 200, result.describe()
    assert json.loads(result.body)["scheme"] == "http" and json.loads(result.body)["protocol"] == "HTTP/2.0"
    sent = forwarded(proxy.trace())
    assert [event["upstream_version"] for event in sent] == ["HTTP/2"] * 3
    assert sent[1]["reused"] is True, "the h2c connection went back to the pool"


def test_upstream_h2c_contradicts_http1_only(faultline_binary):
    result = subprocess.run([faultline_binary, "run", "--upstream-h2c", "--http1-only"], capture_output=True, text=True,
                            timeout=15)
    assert result.returncode == 2 and "--upstream-h2c and --http1-only contradict" in result.stderr, result.stderr

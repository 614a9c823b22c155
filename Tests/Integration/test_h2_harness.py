"""The HTTP/2 harness, proven without Faultline: nghttp, h2load, curl and httpx (harness/h2.py)
each get HTTP/2 from the nginx origin (harness/h2_origin.py) over TLS and over h2c; each reports
(and does not hang on) a closed port, an HTTP/1.1-only server and a server that never answers;
and each reports the RST_STREAM and GOAWAY frames of the scripted server (harness/h2_server.py) as
harness/h2.py's docstring says, which is what tests of Faultline's HTTP/2 will assert on."""
import json
import time

import pytest

from harness import h2
from harness.h2_server import ScriptedH2Server
from harness.tls import server_context
from harness.waiting import closed_port

pytestmark = pytest.mark.timeout(30)


def protocol_line(tls):
    return b"HTTP/2.0 h2\n" if tls else b"HTTP/2.0 h2c\n"


def base(h2_origin, tls):
    return h2_origin.tls_url if tls else h2_origin.h2c_url


# -- HTTP/2 from nginx -------------------------------------------------------------------------


@pytest.mark.parametrize("tls", [True, False], ids=["tls", "h2c"])
def test_nghttp_gets_http2(h2_origin, tls):
    result = h2.nghttp_get(base(h2_origin, tls) + "/protocol", cacert=h2_origin.ca)
    assert result.ok, result.describe()
    assert result.protocol == ("h2" if tls else "h2c")
    assert result.status == 200 and result.body == protocol_line(tls)
    assert not result.warnings, "the origin's certificate verifies against its CA"
    kinds = [frame.type for frame in result.received()]
    assert "HEADERS" in kinds and "DATA" in kinds, result.describe()
    assert result.received("DATA")[-1].end_stream
    assert not result.rst_streams and result.goaway is None


def test_nghttp_body_across_many_frames_and_streams(h2_origin):
    """1 MiB three times on one connection (-m 3): the bodies come out whole, per stream."""
    result = h2.nghttp_get(h2_origin.h2c_url + "/random-1m.bin", "-m", "3")
    assert result.ok, result.describe()
    assert len(result.bodies) == 3
    assert all(body == h2_origin.read("random-1m.bin") for body in result.bodies.values())
    assert len(result.received("DATA")) >= 3 * 64  # frames of 16 KiB at most


def test_a_data_frame_read_in_two_pieces_around_a_sent_frame_is_parsed_whole():
    """nghttp logs a DATA frame after its last piece; a frame that spans two socket reads has
    what nghttp sent in between (here a WINDOW_UPDATE) logged between its pieces. Both pieces are
    the frame's, and the sent frame's log line is not body. (CI once saw 1 MiB bodies come out
    with a log line inside.)"""
    stdout = (b"[  0.001] Connected\n"
              b"[  0.002] recv (stream_id=1) :status: 200\n"
              b"first half "
              b"[  0.003] send WINDOW_UPDATE frame <length=4, flags=0x00, stream_id=0>\n"
              b"          (window_size_increment=33000)\n"
              b"second half"
              b"[  0.004] recv DATA frame <length=22, flags=0x00, stream_id=1>\n"
              b"stream three"
              b"[  0.005] recv DATA frame <length=12, flags=0x01, stream_id=3>\n"
              b"          ; END_STREAM\n"
              b"cut by a deadline")
    protocol, frames, headers, bodies, errors, _ = h2.parse_nghttp(stdout, "")
    assert protocol == "h2c" and not errors
    assert bodies == {1: b"first half second half", 3: b"stream threecut by a deadline"}
    assert [(f.direction, f.type, f.stream) for f in frames] == [
        ("send", "WINDOW_UPDATE", 0), ("recv", "DATA", 1), ("recv", "DATA", 3)]
    assert headers == {1: [(":status", "200")]}


def test_nghttp_warns_about_an_unknown_ca_but_goes_on(h2_origin):
    result = h2.nghttp_get(h2_origin.tls_url + "/protocol")
    assert result.status == 200, result.describe()
    assert any("Certificate verification failed" in warning for warning in result.warnings)


def test_nghttp_refuses_a_proxy(h2_origin):
    with pytest.raises(ValueError, match="does not support HTTP proxies"):
        h2.nghttp_get(h2_origin.h2c_url, proxy="http://127.0.0.1:1")


@pytest.mark.parametrize("tls", [True, False], ids=["tls", "h2c"])
def test_h2load_reports_the_counts(h2_origin, tls):
    result = h2.h2load(base(h2_origin, tls) + "/index.html", clients=2, streams=10, requests=400)
    assert result.ok, result.describe()
    assert result.protocol == ("h2" if tls else "h2c")
    assert (result.total, result.succeeded, result.failed, result.errored) == (400, 400, 0, 0)
    assert result.status_codes["2xx"] == 400
    assert result.rps > 0 and result.duration > 0


def test_h2load_for_a_duration(h2_origin):
    result = h2.h2load(h2_origin.h2c_url + "/index.html", clients=2, streams=5, duration=1)
    assert result.ok, result.describe()
    assert result.succeeded > 0 and 0.9 < result.duration < 5


@pytest.mark.parametrize("prior_knowledge", [False, True], ids=["alpn", "prior-knowledge"])
def test_curl_gets_http2_over_tls(h2_origin, prior_knowledge):
    result = h2.curl_h2(h2_origin.tls_ip_url + "/protocol", prior_knowledge=prior_knowledge, cacert=h2_origin.ca)
    assert result.ok, result.describe()
    assert result.http2 and result.status == 200 and result.body == protocol_line(True)
    assert result.header("content-type") == "text/plain"


def test_curl_gets_h2c_with_prior_knowledge(h2_origin):
    result = h2.curl_h2(h2_origin.h2c_url + "/request?q=1", "-H", "X-Test: yes", prior_knowledge=True)
    assert result.ok, result.describe()
    assert result.http2 and result.status == 200
    seen = json.loads(result.body)
    assert (seen["protocol"], seen["http2"], seen["uri"], seen["x_test"]) == ("HTTP/2.0", "h2c", "/request?q=1", "yes")


@pytest.mark.parametrize("tls", [True, False], ids=["tls", "h2c"])
def test_httpx_gets_http2(h2_origin, tls):
    with h2.httpx_h2_client(cacert=h2_origin.ca, prior_knowledge=not tls) as client:
        result = h2.httpx_h2_get(client, base(h2_origin, tls) + "/request", headers={"X-Test": "httpx"})
        again = h2.httpx_h2_get(client, base(h2_origin, tls) + "/random-1m.bin")
    assert result.ok, result.describe()
    assert result.http_version == "HTTP/2" and result.status == 200
    seen = json.loads(result.body)
    assert (seen["protocol"], seen["http2"], seen["x_test"]) == ("HTTP/2.0", "h2" if tls else "h2c", "httpx")
    assert again.ok and again.body == h2_origin.read("random-1m.bin"), again.describe()


def test_the_h2c_listener_speaks_no_http1(h2_origin):
    """nginx 1.22 answers HTTP/1.1 on an h2c listener with a GOAWAY, not with a response: a test that
    sends HTTP/1.1 there by mistake fails instead of passing for the wrong reason."""
    result = h2.curl_h2(h2_origin.h2c_url + "/protocol")  # --http2 on http:// is an HTTP/1.1 Upgrade
    assert not result.ok and result.status == 0, result.describe()


# -- failures are reported, not hung on ---------------------------------------------------------


def test_each_runner_reports_a_closed_port():
    url = f"http://127.0.0.1:{closed_port()}/"
    started = time.monotonic()
    nghttp = h2.nghttp_get(url, timeout=10)
    assert not nghttp.ok and any("Could not connect" in error for error in nghttp.errors), nghttp.describe()
    load = h2.h2load(url, clients=2, streams=2, requests=8, timeout=10)
    assert (load.succeeded, load.failed, load.errored) == (0, 8, 8) and not load.timed_out, load.describe()
    curl = h2.curl_h2(url, prior_knowledge=True, timeout=10)
    assert curl.exit_code == 7 and "Couldn't connect" in curl.error, curl.describe()
    with h2.httpx_h2_client(prior_knowledge=True) as client:
        result = h2.httpx_h2_get(client, url)
    assert type(result.error).__name__ == "ConnectError", result.describe()
    assert time.monotonic() - started < 5, "a refused connection is reported at once"


def test_each_runner_reports_an_http1_only_server(origin):
    """The Python origin (HTTP/1.1 only) answers the HTTP/2 preface with an HTTP/1 error."""
    url = f"http://127.0.0.1:{origin.port}/echo"
    nghttp = h2.nghttp_get(url, timeout=10)
    assert not nghttp.ok and any("expected SETTINGS frame" in error for error in nghttp.errors), nghttp.describe()
    load = h2.h2load(url, clients=1, streams=2, requests=4, timeout=10)
    assert load.succeeded == 0 and load.failed == 4 and not load.timed_out, load.describe()
    curl = h2.curl_h2(url, prior_knowledge=True, timeout=10)
    assert not curl.ok and curl.status == 0 and not curl.timed_out, curl.describe()
    with h2.httpx_h2_client(prior_knowledge=True) as client:
        result = h2.httpx_h2_get(client, url)
    assert type(result.error).__name__ == "RemoteProtocolError", result.describe()


def test_each_runner_reports_an_http1_only_tls_server(tls_origin, certificates):
    """Over TLS without ALPN h2: nghttp and h2load (offering h2 alone) fail, curl --http2 and httpx
    fall back to HTTP/1.1, which `http_version` shows."""
    url = f"https://localhost:{tls_origin.port}/echo"
    nghttp = h2.nghttp_get(url, cacert=certificates["ca.pem"], timeout=10)
    assert any("HTTP/2 protocol was not selected" in error for error in nghttp.errors), nghttp.describe()
    load = h2.h2load(url, clients=1, streams=1, requests=2, timeout=10)
    assert load.succeeded == 0 and load.protocol is None, load.describe()
    curl = h2.curl_h2(url, cacert=certificates["ca.pem"], timeout=10)
    assert curl.ok and curl.http_version == "1.1", curl.describe()
    with h2.httpx_h2_client(cacert=certificates["ca.pem"]) as client:
        result = h2.httpx_h2_get(client, url)
    assert result.ok and result.http_version == "HTTP/1.1", result.describe()


def test_each_runner_gives_up_on_a_server_that_never_answers(h2_server):
    url = h2_server.url + "/stall"
    started = time.monotonic()
    nghttp = h2.nghttp_get(url, timeout=3)  # its own timeout (-t) is 1 s
    assert "Timeout" in nghttp.errors and nghttp.not_processed and not nghttp.timed_out, nghttp.describe()
    load = h2.h2load(url, clients=1, streams=2, requests=2, inactivity=1, timeout=5)
    assert load.timeout == 2 and load.succeeded == 0, load.describe()
    curl = h2.curl_h2(url, prior_knowledge=True, timeout=3)
    assert curl.exit_code == 28 and "timed out" in curl.error, curl.describe()
    with h2.httpx_h2_client(prior_knowledge=True, timeout=1) as client:
        result = h2.httpx_h2_get(client, url)
    assert type(result.error).__name__ == "ReadTimeout", result.describe()
    assert time.monotonic() - started < 10


def test_a_child_past_its_deadline_is_killed_and_reported(h2_server):
    """The deadline behind the clients' own timeouts: h2load with no inactivity timeout is killed."""
    result = h2.h2load(h2_server.url + "/stall", clients=1, streams=1, requests=1, inactivity=60, timeout=1)
    assert result.timed_out and result.returncode is None and not result.ok


# -- how each client reports RST_STREAM and GOAWAY ----------------------------------------------

RESETS = [(1, "PROTOCOL_ERROR"), (2, "INTERNAL_ERROR"), (7, "REFUSED_STREAM"), (8, "CANCEL")]


@pytest.mark.parametrize("code, name", RESETS, ids=[name for _, name in RESETS])
def test_nghttp_sees_rst_stream(h2_server, code, name):
    result = h2.nghttp_get(f"{h2_server.url}/rst/{code}")
    assert result.rst_streams == [(13, code, name)], result.describe()  # nghttp's first request is stream 13
    assert result.not_processed and not result.ok and result.status is None


def test_nghttp_sees_rst_stream_after_the_response_began(h2_server):
    result = h2.nghttp_get(f"{h2_server.url}/rst-after-headers/2")
    assert result.status == 200 and result.body == b"partial", result.describe()
    assert result.rst_streams == [(13, 2, "INTERNAL_ERROR")] and result.not_processed


def test_nghttp_sees_goaway(h2_server):
    before = h2.nghttp_get(f"{h2_server.url}/goaway/11")
    assert before.goaway == (0, 11, "ENHANCE_YOUR_CALM") and before.not_processed, before.describe()
    after = h2.nghttp_get(f"{h2_server.url}/goaway-after/0")
    assert after.ok and after.goaway == (13, 0, "NO_ERROR"), after.describe()


@pytest.mark.parametrize("code, name", [(1, "PROTOCOL_ERROR"), (2, "INTERNAL_ERROR"), (8, "CANCEL")])
def test_curl_reports_rst_stream_as_exit_92(h2_server, code, name):
    result = h2.curl_h2(f"{h2_server.url}/rst/{code}", prior_knowledge=True)
    assert result.exit_code == 92, result.describe()
    assert result.error == f"HTTP/2 stream 1 was not closed cleanly: {name} (err {code})"
    assert result.status == 0


def test_curl_retries_a_refused_stream_then_gives_up(h2_server):
    seen = len(h2_server.requests)
    result = h2.curl_h2(f"{h2_server.url}/rst/7", prior_knowledge=True)
    assert result.exit_code == 56 and result.error == "Connection died, tried 5 times before giving up", \
        result.describe()
    assert len(h2_server.requests) - seen == 6  # the first try and five retries


def test_curl_reports_goaway_and_a_cut(h2_server):
    goaway = h2.curl_h2(f"{h2_server.url}/goaway/0", prior_knowledge=True)
    assert goaway.exit_code == 16 and goaway.error == "Error in the HTTP2 framing layer", goaway.describe()
    after = h2.curl_h2(f"{h2_server.url}/goaway-after/0", prior_knowledge=True)
    assert after.ok and after.body == b"h2 /goaway-after/0\n", after.describe()
    cut = h2.curl_h2(f"{h2_server.url}/close", prior_knowledge=True)
    assert cut.exit_code == 18, cut.describe()
    assert cut.error == "HTTP/2 stream 1 was not closed cleanly before end of the underlying stream"


def test_httpx_reports_rst_stream_and_goaway(h2_server):
    with h2.httpx_h2_client(prior_knowledge=True) as client:
        reset = h2.httpx_h2_get(client, f"{h2_server.url}/rst/7")
        assert type(reset.error).__name__ == "RemoteProtocolError", reset.describe()
        assert reset.stream_reset == {"stream": 1, "error_code": 7, "error": "REFUSED_STREAM"}
        late = h2.httpx_h2_get(client, f"{h2_server.url}/rst-after-headers/2")
        assert late.stream_reset == {"stream": 3, "error_code": 2, "error": "INTERNAL_ERROR"}, late.describe()
        goaway = h2.httpx_h2_get(client, f"{h2_server.url}/goaway/11")
        assert goaway.goaway == {"last_stream_id": 0, "error_code": 11, "error": "ENHANCE_YOUR_CALM"}, \
            goaway.describe()
        after = h2.httpx_h2_get(client, f"{h2_server.url}/goaway-after/0")  # a new connection
        assert after.ok and after.http_version == "HTTP/2", after.describe()
        cut = h2.httpx_h2_get(client, f"{h2_server.url}/close")
        assert str(cut.error) == "Server disconnected" and cut.stream_reset is None and cut.goaway is None


def test_h2load_counts_resets_and_goaways_as_failures(h2_server):
    reset = h2.h2load(f"{h2_server.url}/rst/7", clients=2, streams=2, requests=10)
    assert (reset.succeeded, reset.failed, reset.errored) == (0, 10, 10), reset.describe()
    goaway = h2.h2load(f"{h2_server.url}/goaway-after/0", clients=2, streams=1, requests=10)
    # each connection gets one answer, then GOAWAY; h2load does not reconnect
    assert goaway.succeeded == 2 and goaway.failed == 8, goaway.describe()


def test_the_scripted_server_over_tls(certificates):
    """The scripted server also speaks h2 over TLS (ALPN h2): the same reports through TLS."""
    server = ScriptedH2Server(tls_context=server_context(certificates)).start()
    try:
        url = f"https://localhost:{server.port}"
        ok = h2.curl_h2(url + "/hello", cacert=certificates["ca.pem"])
        assert ok.ok and ok.http2 and ok.body == b"h2 /hello\n", ok.describe()
        reset = h2.curl_h2(url + "/rst/8", cacert=certificates["ca.pem"])
        assert reset.exit_code == 92 and "CANCEL (err 8)" in reset.error, reset.describe()
        nghttp = h2.nghttp_get(url + "/goaway/2", cacert=certificates["ca.pem"])
        assert nghttp.protocol == "h2" and nghttp.goaway == (0, 2, "INTERNAL_ERROR"), nghttp.describe()
        assert not nghttp.warnings
    finally:
        server.stop()

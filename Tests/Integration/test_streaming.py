"""Bodies that stream: chunked in both directions (with trailers) and bodies far larger than any
buffer Faultline should hold, with its peak memory checked from /proc."""
import hashlib
import json
import os
import socket
import subprocess
import time
import uuid

import pytest

from harness.clients import clean_env, curl, curl_ok
from harness.http_clients import httpx_client
from harness.python_origin import chunked_body, pattern_bytes
from harness.rawhttp import RawConnection, request_bytes

# Faultline streams bodies: per connection it queues at most its backpressure watermark (256 KiB)
# per direction plus read buffers, so its resident set should not grow with the body size. The
# Swift runtime and Foundation take roughly 20-30 MiB resident. 64 MiB leaves that headroom and
# still catches any buffering of a whole body (the bodies here are 4 and 16 times larger).
PEAK_RSS_LIMIT = 64 * 1024 * 1024
GIB = 1 << 30


def test_chunked_upload_with_curl_reaches_the_origin_intact(faultline, origin):
    body = os.urandom(3_000_000)
    # `-T -` reads stdin, whose length curl cannot know, so it sends Transfer-Encoding: chunked.
    output = curl_ok("-x", faultline.forward.url, "-T", "-", f"{origin.url}/sink?curl-chunked", input=body)
    report = json.loads(output)
    assert report["chunked"] is True and report["chunks"] >= 1
    assert report["body_length"] == len(body)
    assert report["body_sha256"] == hashlib.sha256(body).hexdigest()

    trace = faultline.trace()
    flow = trace.flow_for("curl-chunked")
    trace.assert_complete_flow(flow, status=200)
    assert trace.one("request.forwarded", flow=flow)["body"]["length"] == len(body)


def test_chunked_upload_from_an_httpx_generator_reaches_the_origin_intact(faultline, origin):
    pieces = [pattern_bytes(10_000 + i, seed=i) for i in range(40)]
    with httpx_client(faultline.forward.url) as client:
        response = client.post(f"{origin.url}/sink?httpx-generator", content=iter(pieces))
    assert response.status_code == 200
    report = response.json()
    body = b"".join(pieces)
    assert report["chunked"] is True
    assert (report["body_length"], report["body_sha256"]) == (len(body), hashlib.sha256(body).hexdigest())
    faultline.trace()


def test_request_trailers_are_forwarded(faultline, origin):
    chunks = [b"hello ", b"chunked ", b"world"]
    encoded = b"".join(b"%x\r\n%s\r\n" % (len(c), c) for c in chunks) + b"0\r\nX-Upload-Check: 42\r\n\r\n"
    with RawConnection("127.0.0.1", faultline.forward.port) as connection:
        connection.send(request_bytes("POST", f"{origin.url}/echo?request-trailers", [
            ("Host", origin.authority), ("Transfer-Encoding", "chunked"), ("Trailer", "X-Upload-Check")]) + encoded)
        response = connection.read_response()
    report = json.loads(response.body)
    assert report["body_sha256"] == hashlib.sha256(b"".join(chunks)).hexdigest()
    assert ["X-Upload-Check", "42"] in report["trailers"], report
    faultline.trace()


def test_chunked_response_with_trailers_arrives_intact(faultline, origin):
    expected = chunked_body(16, 3000)
    with RawConnection("127.0.0.1", faultline.forward.port) as connection:
        connection.send(request_bytes("GET", f"{origin.url}/chunked?pieces=16&size=3000", [("Host", origin.authority)]))
        response = connection.read_response()
    assert response.status == 200 and response.chunked
    assert response.body == expected
    assert ("X-Body-SHA256", hashlib.sha256(expected).hexdigest()) in response.trailers, response.trailers

    # curl decodes the chunks the same way.
    assert curl_ok("-x", faultline.forward.url, f"{origin.url}/chunked?pieces=16&size=3000") == expected

    trace = faultline.trace()
    for event in trace.of("response.delivered"):
        assert event["body"]["length"] == len(expected)


def _zeros_sha256(size):
    digest = hashlib.sha256()
    block = bytes(1 << 20)
    for _ in range(size // len(block)):
        digest.update(block)
    return digest.hexdigest()


@pytest.mark.timeout(180)
def test_one_gib_download_streams_with_bounded_memory(faultline, nginx):
    idle_rss = faultline.rss_bytes()
    done = curl("-x", faultline.forward.url, "-o", "/dev/null", "-w", "%{http_code} %{size_download}",
                f"{nginx.url}/big-1g.bin", timeout=150)
    assert done.returncode == 0, done.stderr.decode(errors="replace")
    assert done.stdout.decode().split() == ["200", str(GIB)]
    peak = faultline.peak_rss_bytes()
    assert peak < PEAK_RSS_LIMIT, f"peak RSS {peak / 2**20:.1f} MiB (idle {idle_rss / 2**20:.1f} MiB) for a 1 GiB body"

    trace = faultline.trace()
    flow = trace.flow_for("/big-1g.bin")
    trace.assert_complete_flow(flow, status=200)
    assert trace.one("response.delivered", flow=flow)["body"]["length"] == GIB


@pytest.mark.timeout(180)
def test_256_mib_upload_streams_with_bounded_memory(faultline, origin, tmp_path):
    size = 256 << 20
    upload = tmp_path / "upload.bin"
    with open(upload, "wb") as handle:
        handle.truncate(size)  # sparse: zeros that cost no disk
    idle_rss = faultline.rss_bytes()
    output = curl_ok("-x", faultline.forward.url, "-T", str(upload), f"{origin.url}/sink?big-upload", timeout=150)
    report = json.loads(output)
    assert report["chunked"] is False
    assert report["body_length"] == size
    assert report["body_sha256"] == _zeros_sha256(size)
    peak = faultline.peak_rss_bytes()
    assert peak < PEAK_RSS_LIMIT, f"peak RSS {peak / 2**20:.1f} MiB (idle {idle_rss / 2**20:.1f} MiB) for a 256 MiB upload"

    trace = faultline.trace()
    assert trace.one("request.forwarded", flow=trace.flow_for("big-upload"))["body"]["length"] == size


def _watch_peak_rss(faultline, seconds):
    """Samples faultline's resident set for `seconds` (an observation window, not a wait for an
    event: a proxy without backpressure fills memory at gigabytes per second, well inside it) and
    returns the largest value, stopping early once the limit is crossed."""
    end = time.monotonic() + seconds
    peak = 0
    while time.monotonic() < end and peak < PEAK_RSS_LIMIT:
        peak = max(peak, faultline.rss_bytes())
        time.sleep(0.02)
    return peak


def test_client_that_stops_reading_does_not_make_the_proxy_buffer(faultline, nginx):
    with RawConnection("127.0.0.1", faultline.forward.port) as connection:
        connection.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 64 * 1024)
        connection.send(request_bytes("GET", f"{nginx.url}/big-1g.bin", [("Host", f"127.0.0.1:{nginx.port}")]))
        assert connection.read_head()[1] == 200
        connection.read_exact(1 << 20, time.monotonic() + 10)
        peak = _watch_peak_rss(faultline, 1.0)
    assert peak < PEAK_RSS_LIMIT, f"RSS reached {peak / 2**20:.1f} MiB while the client did not read"
    faultline.trace()


@pytest.mark.timeout(120)
def test_origin_that_stops_reading_does_not_make_the_proxy_buffer(faultline, origin, tmp_path):
    size = 256 << 20
    upload = tmp_path / "upload.bin"
    with open(upload, "wb") as handle:
        handle.truncate(size)
    key = uuid.uuid4().hex[:12]
    gate = origin.gate(key)
    command = ["curl", "-sS", "--max-time", "90", "-x", faultline.forward.url, "-T", str(upload),
               f"{origin.url}/slow?key={key}&hold=before-body"]
    curl_process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=clean_env())
    try:
        gate.wait_arrived()
        peak = _watch_peak_rss(faultline, 1.0)
    finally:
        gate.release()
        try:
            out, err = curl_process.communicate(timeout=100)
        except subprocess.TimeoutExpired:
            curl_process.kill()
            raise AssertionError("curl did not finish the upload after the origin was released")
    assert peak < PEAK_RSS_LIMIT, f"RSS reached {peak / 2**20:.1f} MiB while the origin did not read"
    assert curl_process.returncode == 0, err.decode(errors="replace")
    report = json.loads(out)
    assert report == {"body_length": size, "body_sha256": _zeros_sha256(size)}
    faultline.trace()

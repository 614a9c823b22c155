"""Bodies over HTTP/2 from clients: flow control keeps Faultline's memory flat whatever the size
(50 MiB down and up with curl --http2-prior-knowledge, the resident set sampled from /proc during
the transfer), a stream whose reader never opens its window stalls only itself, and `delay` and
`throttle` rules slow only the stream they match (RFC 9113 §5.2: flow control and pacing are per
stream; the other streams of the connection go on).

Orderings come from completion on the wire (which stream ended first) and from the trace; the
only clock readings are lower bounds on a rule's delay or rate, which a proxy can never beat."""
import hashlib
import json
import os
import random
import select
import socket
import subprocess
import threading
import time
import uuid

import pytest
from h2 import events as h2_events
from h2.config import H2Configuration
from h2.connection import H2Connection

from harness import h2
from harness.clients import clean_env
from harness.h2_raw import RawH2
from harness.python_origin import chunked_body

pytestmark = pytest.mark.timeout(60)

MIB = 1 << 20
BODY_SIZE = 50 * MIB
# Faultline queues at most maximumPendingUpstreamBytes (256 KiB) per stream and direction, plus
# the client's window it has already filled and read buffers. 20 MiB over the resident set it
# had after a first HTTP/2 exchange is room for allocator noise and still far below the body.
RSS_GROWTH_LIMIT = 20 * MIB


@pytest.fixture
def to_nginx(start_faultline, nginx):
    return start_faultline("--listen", "127.0.0.1:0", "--mode", f"reverse:{nginx.url}")


@pytest.fixture
def to_origin(start_faultline, origin):
    return start_faultline("--listen", "127.0.0.1:0", "--mode", f"reverse:{origin.url}")


@pytest.fixture(scope="module")
def big_file(nginx):
    """50 MiB of seeded random bytes among nginx's static files; returns (name, sha256)."""
    name = "h2-50m.bin"
    payload = random.Random(50).randbytes(BODY_SIZE)
    with open(nginx.path(name), "wb") as handle:
        handle.write(payload)
    return name, hashlib.sha256(payload).hexdigest()


class RssSampler:
    """Samples a process's VmRSS (/proc/PID/status) every few milliseconds on a thread while in
    the `with` block; `peak` is the largest value seen, `samples` how many were taken."""

    def __init__(self, proxy, interval=0.005):
        self.proxy, self.interval = proxy, interval
        self.peak, self.samples = 0, 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="rss-sampler", daemon=True)

    def _run(self):
        while not self._stop.is_set():
            try:
                self.peak = max(self.peak, self.proxy.rss_bytes())
            except (OSError, AssertionError):
                return  # the process is gone: the test's own assertions say why
            self.samples += 1
            self._stop.wait(self.interval)

    def __enter__(self):
        self._thread.start()
        return self

    def observe(self, seconds):
        """Keeps sampling for `seconds`: an observation window for something that must *not*
        happen (a proxy that buffers fills memory well inside it), never a wait for an event."""
        self._stop.wait(seconds)

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join(5)


def warmed_baseline(proxy):
    """The resident set after one small HTTP/2 exchange (the HTTP/2 code paths and their first
    buffers are in), against which growth is measured."""
    warm = h2.curl_h2(proxy.reverse.url + "/index.html", prior_knowledge=True, timeout=15)
    assert warm.ok and warm.http2, warm.describe()
    return proxy.rss_bytes()


def report(what, baseline, sampler):
    print(f"{what}: RSS baseline {baseline / MIB:.1f} MiB, peak {sampler.peak / MIB:.1f} MiB "
          f"(+{(sampler.peak - baseline) / MIB:.1f} MiB) over {sampler.samples} samples")


# -- 50 MiB each way ---------------------------------------------------------------------------


@pytest.mark.timeout(120)
def test_50_mib_download_keeps_memory_flat(to_nginx, big_file):
    name, digest = big_file
    baseline = warmed_baseline(to_nginx)
    with RssSampler(to_nginx) as sampler:
        result = h2.curl_h2(f"{to_nginx.reverse.url}/{name}", prior_knowledge=True, timeout=100)
    assert result.ok and result.http2 and result.status == 200, result.describe()
    assert len(result.body) == BODY_SIZE and hashlib.sha256(result.body).hexdigest() == digest
    report("50 MiB h2 download", baseline, sampler)
    assert sampler.samples > 10, "the transfer was too short to sample"
    assert sampler.peak - baseline < RSS_GROWTH_LIMIT, \
        f"RSS peaked {(sampler.peak - baseline) / MIB:.1f} MiB over {baseline / MIB:.1f} MiB for a 50 MiB body"

    trace = to_nginx.trace()
    flow = trace.flow_for(f"/{name}")
    trace.assert_complete_flow(flow, status=200)
    assert trace.one("request.received", flow=flow)["version"] == "HTTP/2"
    assert trace.one("response.delivered", flow=flow)["body"]["length"] == BODY_SIZE


@pytest.mark.timeout(120)
def test_50_mib_upload_keeps_memory_flat(to_origin, tmp_path):
    payload = random.Random(51).randbytes(BODY_SIZE)
    upload = tmp_path / "upload.bin"
    upload.write_bytes(payload)
    baseline = warmed_baseline(to_origin)
    with RssSampler(to_origin) as sampler:
        result = h2.curl_h2(f"{to_origin.reverse.url}/sink?h2-upload", "-T", str(upload), prior_knowledge=True,
                            timeout=100)
    assert result.ok and result.http2 and result.status == 200, result.describe()
    answer = json.loads(result.body)
    assert answer["body_length"] == BODY_SIZE and answer["body_sha256"] == hashlib.sha256(payload).hexdigest()
    report("50 MiB h2 upload", baseline, sampler)
    assert sampler.samples > 10, "the transfer was too short to sample"
    assert sampler.peak - baseline < RSS_GROWTH_LIMIT, \
        f"RSS peaked {(sampler.peak - baseline) / MIB:.1f} MiB over {baseline / MIB:.1f} MiB for a 50 MiB upload"

    trace = to_origin.trace()
    flow = trace.flow_for("h2-upload")
    assert trace.one("request.forwarded", flow=flow)["body"]["length"] == BODY_SIZE


@pytest.mark.timeout(120)
def test_an_origin_that_stops_reading_an_h2_upload_keeps_memory_flat(to_origin, origin, tmp_path):
    """The origin takes the request head and then reads nothing until released: Faultline keeps
    at most its bound for the flow and stops crediting the client's stream (§5.2), so curl's
    50 MiB wait in curl, not in the proxy; released, every byte arrives."""
    payload = random.Random(52).randbytes(BODY_SIZE)
    upload = tmp_path / "upload.bin"
    upload.write_bytes(payload)
    baseline = warmed_baseline(to_origin)
    key = uuid.uuid4().hex[:12]
    gate = origin.gate(key)
    command = ["curl", "-sS", "--max-time", "90", "--http2-prior-knowledge", "-T", str(upload),
               f"{to_origin.reverse.url}/slow?key={key}&hold=before-body"]
    curl = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=clean_env())
    try:
        gate.wait_arrived()
        with RssSampler(to_origin) as sampler:
            sampler.observe(1.0)
    finally:
        gate.release()
        try:
            out, err = curl.communicate(timeout=100)
        except subprocess.TimeoutExpired:
            curl.kill()
            raise AssertionError("curl did not finish the upload after the origin was released")
    report("50 MiB h2 upload held by the origin", baseline, sampler)
    assert curl.returncode == 0, err.decode(errors="replace")
    assert json.loads(out) == {"body_length": BODY_SIZE, "body_sha256": hashlib.sha256(payload).hexdigest()}
    assert sampler.peak - baseline < RSS_GROWTH_LIMIT, \
        f"RSS reached +{(sampler.peak - baseline) / MIB:.1f} MiB while the origin did not read"


class H2Uploader:
    """One python-h2 client connection that uploads on stream 1 as fast as the proxy's windows
    allow (RFC 9113 §6.9) and answers everything else; every socket operation has a deadline."""

    def __init__(self, port, path, payload):
        self.connection = H2Connection(H2Configuration(client_side=True, header_encoding="utf-8"))
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=10)
        self.authority = f"127.0.0.1:{port}"
        self.payload, self.offset = payload, 0
        self.bodies, self.heads, self.ended = {}, {}, []
        self.connection.initiate_connection()
        self.connection.send_headers(1, self._pseudo("POST", path) + [("content-length", str(len(payload)))])
        self.sock.sendall(self.connection.data_to_send())

    def _pseudo(self, method, path):
        return [(":method", method), (":scheme", "http"), (":authority", self.authority), (":path", path)]

    def get(self, stream, path):
        self.connection.send_headers(stream, self._pseudo("GET", path), end_stream=True)
        self.sock.sendall(self.connection.data_to_send())

    def upload(self):
        """Sends as much of the payload as the stream and connection windows allow now."""
        while self.offset < len(self.payload):
            room = min(self.connection.local_flow_control_window(1), self.connection.max_outbound_frame_size,
                       len(self.payload) - self.offset)
            if room <= 0:
                break
            end = self.offset + room
            self.connection.send_data(1, self.payload[self.offset:end], end_stream=end == len(self.payload))
            self.offset = end
        self.sock.sendall(self.connection.data_to_send())

    def upload_until_stalled(self):
        """Uploads until the proxy stops crediting stream 1 (half a second without a frame and
        less than a frame of window left), within 20 s, short of the whole payload; returns the
        offset it stalled at."""
        deadline = time.monotonic() + 20
        while True:
            assert time.monotonic() < deadline, f"the upload never stalled ({self.offset} bytes sent)"
            self.upload()
            if not self.read(0.5) and self.connection.local_flow_control_window(1) < 16384:
                break
        assert self.offset < len(self.payload), "the proxy and the sockets took the whole upload"
        return self.offset

    def read(self, wait):
        """Handles what arrives within `wait` seconds; False if nothing did."""
        if not select.select([self.sock], [], [], wait)[0]:
            return False
        data = self.sock.recv(1 << 16)
        assert data, "the proxy closed the connection"
        for event in self.connection.receive_data(data):
            if isinstance(event, h2_events.ResponseReceived):
                self.heads[event.stream_id] = dict(event.headers)
            elif isinstance(event, h2_events.DataReceived):
                self.bodies[event.stream_id] = self.bodies.get(event.stream_id, b"") + event.data
                self.connection.acknowledge_received_data(event.flow_controlled_length, event.stream_id)
            elif isinstance(event, h2_events.StreamEnded):
                self.ended.append(event.stream_id)
            elif isinstance(event, (h2_events.StreamReset, h2_events.ConnectionTerminated)):
                raise AssertionError(f"the proxy ended a stream or the connection: {event}")
        self.sock.sendall(self.connection.data_to_send())
        return True

    def until(self, predicate, timeout, what):
        deadline = time.monotonic() + timeout
        while not predicate():
            assert time.monotonic() < deadline, f"no {what} within {timeout}s"
            self.upload()
            self.read(min(0.1, max(0.0, deadline - time.monotonic())))


def test_an_origin_that_stops_reading_one_upload_leaves_the_other_streams_alone(to_origin, origin):
    """Stream 1 uploads 16 MiB to an origin that reads the head and then nothing: the client
    sends what the windows allow until no more credit comes (the proxy holds its bound for the
    flow and the sockets' buffers are full). Stream 3 on the same connection is still answered
    at once: the stalled upload withholds its own stream's credit, it does not stop the proxy
    reading the connection. Released, the upload completes intact."""
    payload = random.Random(53).randbytes(16 * MIB)
    key = uuid.uuid4().hex[:12]
    gate = origin.gate(key)
    client = H2Uploader(to_origin.reverse.port, f"/slow?key={key}&hold=before-body", payload)
    try:
        gate.wait_arrived()
        stalled_at = client.upload_until_stalled()
        client.get(3, "/echo?beside-a-stalled-upload")
        started = time.monotonic()
        client.until(lambda: 3 in client.ended, 10, "answer on stream 3")
        answered_in = time.monotonic() - started
        assert client.heads[3][":status"] == "200" and client.offset == stalled_at, "stream 1 stayed stalled"
    finally:
        gate.release()
    client.until(lambda: 1 in client.ended, 30, "end of the upload after the release")
    client.sock.close()
    answer = json.loads(client.bodies[1])
    assert answer == {"body_length": len(payload), "body_sha256": hashlib.sha256(payload).hexdigest()}
    print(f"stalled upload: {stalled_at} bytes in before the stall; stream 3 answered in {answered_in:.3f}s")


# -- a reader that never opens its window ----------------------------------------------------


def test_a_stream_whose_window_stays_shut_does_not_stall_another(to_nginx, nginx, big_file):
    """Stream 1 downloads 50 MiB and its reader never sends a WINDOW_UPDATE for it (the
    connection window is credited for everything): after 65,535 bytes (the initial window,
    §6.9.2) it stops. Stream 3, opened then on the same connection, gets its 1 MiB whole; stream
    1 has not received a byte past its window; the proxy holds no more than its bounded queue
    for the stalled stream."""
    name, _ = big_file
    baseline = warmed_baseline(to_nginx)
    with RawH2(to_nginx.reverse.port, credit="all") as client:
        client.starved.add(1)
        client.handshake()
        client.send(client.request(1, f"/{name}"))
        window = 65535
        client.read_until(lambda r: len(r.data.get(1, b"")) >= window, 10, "stream 1's first window")
        with RssSampler(to_nginx) as sampler:
            client.send(client.request(3, "/random-1m.bin"))
            received = client.read_until(lambda r: 3 in r.ended, 20, "stream 3's whole body")
            # Stream 1 may not move: half a second in which a proxy ignoring its window would.
            client.observe(0.5)
    assert received.status(3) == 200 and bytes(received.data[3]) == nginx.read("random-1m.bin")
    assert 1 not in received.ended and len(received.data[1]) == window, received.describe()
    assert not received.resets and received.goaway is None
    report("one stream stalled by its window", baseline, sampler)
    assert sampler.peak - baseline < RSS_GROWTH_LIMIT

    trace = to_nginx.trace()
    trace.assert_complete_flow(trace.flow_for("/random-1m.bin"), status=200)


# -- delay and throttle rules, one stream each ---------------------------------------------------

PACE_RULES = """{
  description: "Slow down one stream, chosen by its X-Pace header.",
  rules: [
    { name: "late-answer", phase: "response", match: { headers: { "x-pace": "delay-response" } },
      actions: [{ delay: 2 }] },
    { name: "late-forward", match: { headers: { "x-pace": "delay-request" } }, actions: [{ delay: 2 }] },
    { name: "slow-down", phase: "response", match: { headers: { "x-pace": "throttle-response" } },
      actions: [{ throttle: 32768 }] },
    { name: "slow-up", match: { headers: { "x-pace": "throttle-request" } }, actions: [{ throttle: 32768 }] },
  ],
}
"""
DELAY_NS = 2_000_000_000
RATE = 32768  # bytes per second
PACED_SIZE = 64 * 1024  # two seconds at RATE


@pytest.fixture
def paced(start_faultline, origin, tmp_path):
    folder = tmp_path / "rules"
    folder.mkdir()
    (folder / "pace.json5").write_text(PACE_RULES)
    return start_faultline("--listen", "127.0.0.1:0", "--mode", f"reverse:{origin.url}", "--rules", str(folder))


def pace(kind):
    return [("x-pace", kind)]


def flows_by_marker(trace):
    return {event["url"].rsplit("marker=", 1)[1]: event["flow"] for event in trace.of("request.received")}


@pytest.mark.parametrize("kind", ["delay-response", "delay-request"])
def test_a_delay_on_one_stream_leaves_the_others_alone(paced, kind):
    """Three streams on one connection, the first delayed 2 s (before its answer goes out, or
    before its request goes upstream): the other two end first, and the delayed one's trace shows
    the 2 s where the rule put them."""
    with RawH2(paced.reverse.port) as client:
        client.handshake()
        client.send(client.request(1, "/echo?marker=slow", extra=pace(kind)),
                    client.request(3, "/echo?marker=free1"),
                    client.request(5, "/echo?marker=free2"))
        received = client.read_until(lambda r: {1, 3, 5} <= set(r.ended), 15, "the three answers")
    assert all(received.status(stream) == 200 for stream in (1, 3, 5)), received.describe()
    assert received.ended[-1] == 1, f"the delayed stream ended last: {received.ended}"

    trace = paced.trace()
    flows = flows_by_marker(trace)
    assert trace.one("rule.fired", flow=flows["slow"])["rule"].endswith("late-answer" if kind == "delay-response"
                                                                        else "late-forward")
    if kind == "delay-response":
        start = trace.one("response.received", flow=flows["slow"])
    else:
        start = trace.one("request.received", flow=flows["slow"])
    delivered = trace.one("response.delivered", flow=flows["slow"])
    assert delivered["mono_ns"] - start["mono_ns"] >= DELAY_NS, (start, delivered)
    for name in ("free1", "free2"):
        assert trace.one("response.delivered", flow=flows[name])["seq"] < delivered["seq"]


def test_a_response_throttle_on_one_stream_leaves_the_others_alone(paced):
    """64 KiB paced down at 32 KiB/s on stream 1, 256 KiB unpaced on stream 3 and the echo on
    stream 5: 3 and 5 end first, and stream 1 takes at least the ~2 s its rate allows."""
    paced_path = f"/chunked?pieces=8&size=8192&trailers=0&marker=paced"
    free_path = f"/chunked?pieces=32&size=8192&trailers=0&marker=free"
    with RawH2(paced.reverse.port) as client:
        client.handshake()
        started = time.monotonic()
        client.send(client.request(1, paced_path, extra=pace("throttle-response")),
                    client.request(3, free_path),
                    client.request(5, "/echo?marker=echo"))
        ended_at = {}

        def note_ends(received):
            for stream in received.ended:
                ended_at.setdefault(stream, time.monotonic() - started)
            return {1, 3, 5} <= set(received.ended)

        received = client.read_until(note_ends, 20, "the three answers")
    assert bytes(received.data[1]) == chunked_body(8, 8192) and bytes(received.data[3]) == chunked_body(32, 8192)
    assert received.ended[-1] == 1, f"the throttled stream ended last: {received.ended} at {ended_at}"
    least = (PACED_SIZE - RATE // 50) / RATE  # the first 20 ms slice goes at once
    assert ended_at[1] >= least, f"64 KiB at {RATE} B/s took {ended_at[1]:.2f}s, less than {least:.2f}s"
    print(f"response throttle: the paced stream ended after {ended_at[1]:.2f}s, the others after "
          f"{ended_at[3]:.2f}s and {ended_at[5]:.2f}s")

    trace = paced.trace()
    flows = flows_by_marker(trace)
    assert trace.one("rule.fired", flow=flows["paced"])["rule"].endswith("slow-down")
    assert not trace.of("rule.fired", flow=flows["free"])


def test_a_request_throttle_on_one_stream_leaves_the_others_alone(paced):
    """Two 64 KiB uploads on one connection, the first paced up at 32 KiB/s: the second reaches
    the origin and is answered first; the first takes at least ~2 s to go upstream."""
    body = os.urandom(PACED_SIZE)
    with RawH2(paced.reverse.port) as client:
        client.handshake()
        started = time.monotonic()
        client.send(client.request(1, "/sink?marker=paced", method="POST", extra=pace("throttle-request"),
                                   end_stream=False),
                    client.body(1, body),
                    client.request(3, "/sink?marker=free", method="POST", end_stream=False),
                    client.body(3, body))
        received = client.read_until(lambda r: {1, 3} <= set(r.ended), 20, "both answers")
        elapsed = time.monotonic() - started
    for stream in (1, 3):
        answer = json.loads(bytes(received.data[stream]))
        assert answer["body_length"] == PACED_SIZE and answer["body_sha256"] == hashlib.sha256(body).hexdigest()
    assert received.ended == [3, 1], received.ended
    least = (PACED_SIZE - RATE // 50) / RATE
    assert elapsed >= least, f"a 64 KiB upload at {RATE} B/s took {elapsed:.2f}s, less than {least:.2f}s"

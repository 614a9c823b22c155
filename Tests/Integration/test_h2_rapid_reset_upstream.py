"""What an HTTP/2 rapid reset (CVE-2023-44487) costs the origin behind Faultline, and the cap on
new upstream connects (`--max-upstream-connects`, `--upstream-connect-queue`;
Sources/FaultlineServer/Upstream/UpstreamConnector.swift).

| client does | the origin sees | the client gets | trace |
|---|---|---|---|
| 16 h2c connections open 900 streams each and reset every one right after its HEADERS | a handful of connections (none for a stream reset in the read that opened it; the rest capped and pooled), not one per stream | nothing on the reset streams; a client beside it is served | `request.received` and `flow.aborted` per stream, no `request.forwarded` |
| h2load, 1,000 streams at once, connects capped at 2 per origin and loop | every request, over connections opened 2 at a time | every request answered | |
| more new connects than the cap and the queue hold (an origin that never answers a SYN) | at most the cap in flight | 503 `connect-queue-full` for those past the queue; a reset stream's place in the queue frees at once | `upstream.error` `connect-queue-full` |
"""
import http.client
import os
import socket
import threading
import time

import pytest

from harness import h2, h2_raw, rapid_reset
from harness.h2_raw import RawH2
from harness.nginx import Nginx
from harness.waiting import wait_until

pytestmark = pytest.mark.timeout(120)

CONNECTIONS = 16
STREAMS_PER_CONNECTION = 900  # under the reset budget (1000): no GOAWAY cuts the flood short
# What the origin may see for the 14,400 reset streams (1 in the runs so far; 14,400 before the
# fix, one per stream): a stream whose RST_STREAM lands in the read after its HEADERS costs one
# connection (its connect has started, capped at 32 per loop, and ends in the pool), a stream
# reset in the same read costs none.
MOST_UPSTREAM_CONNECTIONS = 100


@pytest.fixture(scope="module")
def counting_nginx(tmp_path_factory):
    """An nginx of this module's own, so that its `accepts` counts this module's connections."""
    server = Nginx(str(tmp_path_factory.mktemp("nginx-counting"))).start()
    yield server
    server.stop()


def descriptors(pid):
    try:
        return len(os.listdir(f"/proc/{pid}/fd"))
    except FileNotFoundError:
        return 0


def fetch(port, path):
    """One request on a new HTTP/1.1 connection: (status, seconds)."""
    started = time.monotonic()
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        connection.request("GET", path)
        response = connection.getresponse()
        response.read()
        return response.status, time.monotonic() - started
    finally:
        connection.close()


def test_reset_streams_open_almost_no_upstream_connections(start_faultline, counting_nginx):
    """16 attacking connections × 900 streams, each reset right after its HEADERS, in batches of
    50 per write, all at once; a client beside them asks for the page over and over. The origin
    accepts at most MOST_UPSTREAM_CONNECTIONS connections for the 14,400 streams, the proxy's
    descriptors stay low, and every request of the client beside the attack is answered."""
    proxy = start_faultline("--listen", "127.0.0.1:0", "--mode", f"reverse:{counting_nginx.url}")
    port = proxy.reverse.port
    assert fetch(port, "/index.html?warm")[0] == 200
    before = counting_nginx.status()
    attack_done = threading.Event()
    peak = {"descriptors": descriptors(proxy.pid)}
    beside = []

    def watch_descriptors():
        while not attack_done.is_set():
            peak["descriptors"] = max(peak["descriptors"], descriptors(proxy.pid))
            attack_done.wait(0.005)

    def client_beside():
        while (not attack_done.is_set() or len(beside) < 5) and len(beside) < 500:
            beside.append(fetch(port, f"/index.html?beside={len(beside)}"))

    results = [None] * CONNECTIONS

    def attacker(index):
        results[index] = rapid_reset.flood(port, f"/index.html?rapid={index}", STREAMS_PER_CONNECTION)

    helpers = [threading.Thread(target=watch_descriptors), threading.Thread(target=client_beside)]
    attackers = [threading.Thread(target=attacker, args=(index,)) for index in range(CONNECTIONS)]
    for thread in helpers + attackers:
        thread.start()
    for thread in attackers:
        thread.join(60)
    attack_done.set()
    for thread in helpers:
        thread.join(60)
    assert all(result is not None and result.ping_acked for result in results), results
    streams = sum(result.streams for result in results)
    # Every attacking connection's end reached the proxy, so every connect it asked for has started.
    closed = CONNECTIONS + 1 + len(beside)
    wait_until(lambda: sum(event["event"] == "connection.closed" for event in proxy.events_so_far()) >= closed,
               30, f"{closed} connection.closed in the live trace", interval=0.2)
    # The client beside mostly reuses pooled connections: what the origin accepted is counted
    # for both together.
    accepted = counting_nginx.accepted_since(before)
    print(f"rapid reset through Faultline: {streams} streams reset on {CONNECTIONS} connections, "
          f"{len(beside)} requests beside them; the origin accepted {accepted} connections in all; "
          f"proxy descriptors peaked at {peak['descriptors']}")
    assert streams == CONNECTIONS * STREAMS_PER_CONNECTION
    assert accepted <= MOST_UPSTREAM_CONNECTIONS, f"{accepted} upstream connections for {streams} reset streams"
    assert peak["descriptors"] <= 2 * MOST_UPSTREAM_CONNECTIONS + CONNECTIONS + 64, peak
    statuses = [status for status, _ in beside]
    assert statuses and all(status == 200 for status in statuses), statuses
    assert max(seconds for _, seconds in beside) < 5, beside
    trace = proxy.trace()
    flooded = [event for event in trace.of("request.received") if "rapid=" in event.get("url", "")]
    assert len(flooded) == streams, len(flooded)
    flows = {event["flow"] for event in flooded}
    forwarded = [event for event in trace.of("request.forwarded") if event["flow"] in flows]
    assert len(forwarded) <= MOST_UPSTREAM_CONNECTIONS, len(forwarded)


def test_h2load_through_a_tight_connect_cap_completes_every_request(start_faultline, counting_nginx):
    """10 connections × 100 streams at once (1,000 streams, each wanting an upstream connection
    of its own), with new connects capped at 2 per origin and loop: the rest wait in the queue
    (1,024 per loop) and every request is answered, the later ones over pooled connections."""
    proxy = start_faultline(
        "--listen", "127.0.0.1:0", "--mode", f"reverse:{counting_nginx.url}", "--max-upstream-connects", "2")
    before = counting_nginx.status()
    result = h2.h2load(proxy.reverse.url + "/index.html", clients=10, streams=100, requests=4000)
    accepted = counting_nginx.accepted_since(before)
    print(f"h2load -c10 -m100 -n4000 through --max-upstream-connects 2: {result.succeeded} of {result.total} "
          f"succeeded, {result.rps} req/s; the origin accepted {accepted} connections")
    assert result.ok, result.describe()
    assert result.status_codes.get("2xx") == 4000, result.describe()
    assert not proxy.trace().of("upstream.error")


class SilentOrigin:
    """A listening socket whose accept queue is full: the kernel drops every further SYN, so a
    connect to it stays in flight until the proxy's connect timeout."""

    def __init__(self):
        self.listener = socket.socket()
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(0)
        self.port = self.listener.getsockname()[1]
        # Linux queues backlog + 1 connections (one here); this one fills the queue.
        self.fillers = [socket.create_connection(("127.0.0.1", self.port), timeout=5)]

    def close(self):
        for sock in self.fillers + [self.listener]:
            sock.close()


@pytest.fixture
def silent_origin():
    origin = SilentOrigin()
    yield origin
    origin.close()


def test_connects_past_the_cap_and_the_queue_get_503_and_a_reset_frees_its_place(start_faultline, silent_origin):
    """One loop, 1 connect in flight and 2 waiting at most, to an origin that never completes a
    handshake: of streams 1..9, stream 1 connects, 3 and 5 wait, 7 and 9 get 503
    connect-queue-full at once (`upstream.error`). Resetting 1, 3 and 5 empties the queue (1 keeps
    its place until its connect ends): of 11, 13 and 15, two wait and only 15 is refused."""
    proxy = start_faultline(
        "--listen", "127.0.0.1:0", "--mode", f"reverse:http://127.0.0.1:{silent_origin.port}", "--loops", "1",
        "--max-upstream-connects", "1", "--upstream-connect-queue", "2", "--connect-timeout", "30")
    with RawH2(proxy.reverse.port) as client:
        client.handshake()
        client.send(*(client.request(stream, f"/wait?s={stream}") for stream in (1, 3, 5, 7, 9)))
        received = client.read_until(lambda r: {7, 9} <= set(r.ended), 10, "503 on streams 7 and 9")
        assert (received.status(7), received.status(9)) == (503, 503), received.describe()
        assert ("x-faultline-error", "connect-queue-full") in received.heads[7], received.heads[7]
        assert ("retry-after", "1") in received.heads[7], received.heads[7]
        assert not {1, 3, 5} & set(received.heads), received.describe()

        client.send(*(h2_raw.rst_stream(stream, h2_raw.CODES["CANCEL"]) for stream in (1, 3, 5)))
        client.send(*(client.request(stream, f"/wait?s={stream}") for stream in (11, 13, 15)))
        received = client.read_until(lambda r: 15 in r.ended, 10, "503 on stream 15")
        assert received.status(15) == 503, received.describe()
        assert not {11, 13} & set(received.heads), received.describe()

    trace = proxy.trace()
    errors = trace.of("upstream.error")
    assert sorted(event["code"] for event in errors) == ["connect-queue-full"] * 3, errors
    assert all(event["status"] == 503 for event in errors), errors


def test_waiting_counts_against_the_connect_timeout(start_faultline, silent_origin):
    """With a 1 s connect timeout, 1 connect in flight and 2 waiting: stream 1's connect times out
    at 1 s (504 connect-timeout), and its place goes to stream 3, whose own connect times out a
    second later; stream 5, still waiting at 1 s, gets 504 connect-queue-timeout then, not after
    a turn of its own."""
    proxy = start_faultline(
        "--listen", "127.0.0.1:0", "--mode", f"reverse:http://127.0.0.1:{silent_origin.port}", "--loops", "1",
        "--max-upstream-connects", "1", "--upstream-connect-queue", "2", "--connect-timeout", "1")
    with RawH2(proxy.reverse.port) as client:
        client.handshake()
        client.send(*(client.request(stream, f"/wait?s={stream}") for stream in (1, 3, 5)))
        received = client.read_until(lambda r: {1, 5} <= set(r.ended), 10, "answers on streams 1 and 5")
        assert (received.status(1), received.status(5)) == (504, 504), received.describe()
        assert ("x-faultline-error", "connect-queue-timeout") in received.heads[5], received.heads[5]
        received = client.read_until(lambda r: 3 in r.ended, 10, "the answer on stream 3")
        assert received.status(3) == 504, received.describe()
    codes = {event["flow"]: event["code"] for event in proxy.trace().of("upstream.error")}
    assert sorted(codes.values()) == ["connect-queue-timeout", "connect-timeout", "connect-timeout"], codes

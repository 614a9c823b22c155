"""Connection limits (`--max-connections`, the open-file limit): what a client past the limit
gets, what the proxy says at start, and how it lives through running out of descriptors (EMFILE).

| situation | the client gets | trace |
|---|---|---|
| an HTTP/1 connection over `--max-connections` on a plain listener | 503, `Connection: close`, `X-Faultline-Error: too-many-connections`, then FIN | `connection.rejected` `answer: "503"` |
| an h2c (prior knowledge) connection over it | closed, not a byte written | `connection.rejected` `answer: "closed"`, `detail: "http2"` |
| a TLS listener's connection over it | closed before the handshake | `connection.rejected` `answer: "closed"`, `detail: "tls"` |
| the process out of descriptors (EMFILE) | waits in the backlog; accepted once descriptors are free | `listener.paused` `code: "too-many-open-files"` |
"""
import socket
import ssl
import time

import pytest

from harness import h2_raw
from harness.h2_raw import RawH2
from harness.http_clients import requests_session
from harness.rawhttp import RawConnection, request_bytes
from harness.waiting import wait_until

pytestmark = pytest.mark.timeout(60)


def get(connection, origin, marker):
    """A keep-alive GET through a forward listener on `connection`; returns the response."""
    connection.send(request_bytes("GET", f"{origin.url}/echo?{marker}", [("Host", origin.authority)]))
    return connection.read_response()


def test_an_http1_connection_over_the_limit_gets_503_and_reaches_nothing(start_faultline, origin):
    """Two connections held open (keep-alive) at `--max-connections 2`: the third is accepted,
    answered 503 with `Connection: close` and closed; its request reaches neither the rules nor
    the origin. Once one of the two closes, a new connection is served."""
    proxy = start_faultline("--listen", "127.0.0.1:0", "--max-connections", "2")
    port = proxy.forward.port
    held = [RawConnection("127.0.0.1", port) for _ in range(2)]
    try:
        for index, connection in enumerate(held):
            assert get(connection, origin, f"held-{index}").status == 200
        with RawConnection("127.0.0.1", port) as third:
            response = get(third, origin, "over-the-limit")
            assert response.status == 503, response
            assert response.header("Connection") == "close"
            assert response.header("X-Faultline-Error") == "too-many-connections"
            assert response.header("Retry-After") == "1"
            assert b"too many connections" in response.body
            third.assert_closed_by_peer()
        assert not origin.seen("over-the-limit")

        held.pop().close()
        proxy.wait_for_event("connection.closed")
        with RawConnection("127.0.0.1", port) as fourth:
            assert get(fourth, origin, "after-one-closed").status == 200
    finally:
        for connection in held:
            connection.close()

    trace = proxy.trace()
    (rejected,) = trace.of("connection.rejected")
    assert (rejected["reason"], rejected["limit"], rejected["answer"], rejected["detail"]) == \
        ("max-connections", 2, "503", "http1"), rejected
    assert not trace.of("connection.opened", conn=rejected["conn"]), "a rejected connection has no session"
    assert not trace.requests("over-the-limit")
    assert trace.requests("after-one-closed")


def test_h2c_and_tls_connections_over_the_limit_are_closed(start_faultline, origin, tmp_path):
    """At `--max-connections 1` with one connection held: an h2c client (its preface) on the plain
    listener is closed without a byte (an HTTP/1 answer means nothing to it), and a client of
    the TLS listener is closed before any handshake (answering would cost one)."""
    confdir = tmp_path / "confdir"
    confdir.mkdir(mode=0o700)
    proxy = start_faultline("--listen", "127.0.0.1:0", "--mode", f"reverse:{origin.url}",
                            "--listen", "127.0.0.1:0", "--mode", f"reverse:{origin.url}", "--tls",
                            "--confdir", str(confdir), "--max-connections", "1")
    plain, tls = proxy.listeners
    with RawConnection("127.0.0.1", plain.port) as held:
        held.send(request_bytes("GET", "/echo?held", [("Host", origin.authority)]))
        assert held.read_response().status == 200

        with RawH2(plain.port) as client:
            client.start()
            client.send(client.request(1, "/echo?h2c-over-the-limit"))
            received = client.read_until_closed(10)
        assert received.closed and not received.frames, received.describe()

        context = ssl.create_default_context()
        context.check_hostname, context.verify_mode = False, ssl.CERT_NONE  # never gets that far
        with socket.create_connection(("127.0.0.1", tls.port), timeout=10) as raw:
            with pytest.raises((ssl.SSLError, ConnectionError)):
                with context.wrap_socket(raw, server_hostname="localhost"):
                    pass
    assert not origin.seen("over-the-limit")

    trace = proxy.trace()
    rejected = trace.of("connection.rejected")
    assert sorted((event["answer"], event["detail"]) for event in rejected) == \
        [("closed", "http2"), ("closed", "tls")], rejected
    assert not trace.requests("over-the-limit")


def test_a_low_open_file_limit_is_reported_at_start(start_faultline):
    """RLIMIT_NOFILE 256 (soft and hard): the proxy cannot raise it and says so, with the
    connection limit it derived (half of what is left after a reserve)."""
    proxy = start_faultline("--listen", "127.0.0.1:0", file_limit=256)
    wait_until(lambda: "at most 108 client connections" in proxy.stderr, 10, "the notice on stderr")
    assert "open-file limit is 256 and cannot be raised" in proxy.stderr, proxy.stderr


@pytest.mark.timeout(90)
def test_running_out_of_descriptors_pauses_accepting_and_is_traced(start_faultline, origin):
    """RLIMIT_NOFILE 64 with `--max-connections 1000` (which the proxy warns does not fit): idle
    clients take every descriptor, accept fails with EMFILE, and the loops pause accepting
    (traced `listener.paused`, at most one per loop per 100 ms) instead of spinning. A connection
    opened before goes on being served over its pooled upstream connection; once the clients
    leave, new connections are accepted again."""
    proxy = start_faultline("--listen", "127.0.0.1:0", "--loops", "2", "--max-connections", "1000",
                            file_limit=64)
    wait_until(lambda: "--max-connections 1000 needs more descriptors than the 64 allowed" in proxy.stderr, 10,
               "the warning on stderr (it follows the banner)")
    port = proxy.forward.port
    early = RawConnection("127.0.0.1", port)
    clients = []
    try:
        assert get(early, origin, "before-the-flood").status == 200
        started = time.monotonic()
        for _ in range(80):  # more than the 64 descriptors the process may hold
            clients.append(socket.create_connection(("127.0.0.1", port), timeout=10))
        paused = proxy.wait_for_event("listener.paused", timeout=20, code="too-many-open-files")
        assert paused["retry_ms"] == 100 and "errno 24" in paused["error"], paused

        assert get(early, origin, "during-the-flood").status == 200, "an open connection goes on"
        saturated_for = time.monotonic() - started
    finally:
        for client in clients:
            client.close()
    early.close()

    def serves_again():
        try:
            return requests_session(proxy.forward.url).get(f"{origin.url}/echo?after-the-flood",
                                                            timeout=5).status_code == 200
        except OSError:
            return False

    wait_until(serves_again, 20, "the proxy to accept and serve again once the clients left")
    elapsed = time.monotonic() - started
    trace = proxy.trace()
    pauses = trace.of("listener.paused")
    # Backing off, not spinning: at most one event per loop per 100 ms (plus one each to start).
    assert 1 <= len(pauses) <= 2 * (elapsed / 0.1 + 1), (len(pauses), elapsed, saturated_for)
    assert trace.requests("after-the-flood")
    print(f"EMFILE: {len(pauses)} listener.paused events in {elapsed:.1f}s")

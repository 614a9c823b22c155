"""The body timeout (`--body-timeout`, nginx's `client_body_timeout`): a request body may go that
long without a byte while the proxy reads it. An upload that stops mid-body gets 408 and is
closed, and its upstream connection with the half request is closed; an upload that keeps sending is served however long
it takes in all.

| client | gets | trace |
|---|---|---|
| a body that stops (no response yet) | `408 Request Timeout`, `Connection: close`, then FIN | `protocol.error` `code: "body-timeout"`, `status: 408` |
| a body whose pieces come within the timeout | its response | nothing new |
"""
import time

import pytest

from harness.http_clients import requests_session
from harness.rawhttp import RawConnection

pytestmark = pytest.mark.timeout(60)


def test_an_upload_that_stops_gets_408_and_is_closed(start_faultline, origin):
    proxy = start_faultline("--listen", "127.0.0.1:0", "--body-timeout", "1")
    port = proxy.forward.port
    started = time.monotonic()
    with RawConnection("127.0.0.1", port) as connection:
        connection.send((f"POST {origin.url}/echo?stalled HTTP/1.1\r\nHost: {origin.authority}\r\n"
                         "Content-Length: 1000\r\n\r\n").encode() + b"x" * 10)
        # A requests client beside it is served while the upload hangs.
        with requests_session() as session:
            response = session.get(f"{origin.url}/echo?beside", proxies={"http": f"http://127.0.0.1:{port}"},
                                   timeout=10)
            assert response.status_code == 200
        response = connection.read_response(timeout=15)
        assert response.status == 408, response
        assert response.header("Connection") == "close"
        connection.assert_closed_by_peer()
    assert time.monotonic() - started < 20, "the stalled upload was held far past the body timeout"

    trace = proxy.trace()
    errors = trace.of("protocol.error")
    assert [(error["code"], error["status"], error["side"]) for error in errors] == [("body-timeout", 408, "client")]
    assert sorted(event["status"] for event in trace.of("response.delivered")) == [200, 408]


def test_an_upload_whose_pieces_keep_coming_is_served(start_faultline, origin):
    """Three pieces, each within the 2 s timeout of the one before: the timeout is the longest
    silence, not the body's whole time."""
    proxy = start_faultline("--listen", "127.0.0.1:0", "--body-timeout", "2")
    with RawConnection("127.0.0.1", proxy.forward.port) as connection:
        connection.send((f"POST {origin.url}/echo?pieces HTTP/1.1\r\nHost: {origin.authority}\r\n"
                         "Content-Length: 30\r\n\r\n").encode())
        for _ in range(3):
            connection.send(b"y" * 10)
            time.sleep(0.9)  # a slow uploader's pace, not an ordering: 2.7 s in all, over the timeout
        response = connection.read_response(timeout=10)
        assert response.status == 200, response
    assert origin.seen("pieces")
    assert not proxy.trace().of("protocol.error")

"""Tunnels on HTTP/2 streams: a CONNECT (RFC 9113 §8.5) to a forward listener relays the stream's
DATA to a TCP connection and back, and an extended CONNECT for WebSocket (RFC 8441) goes to the
origin as the HTTP/1.1 upgrade it stands for, after which the stream carries the WebSocket frames.
Faultline advertises SETTINGS_ENABLE_CONNECT_PROTOCOL; other `:protocol`s get a 501.

The client is python-h2 over a socket (no stock client sends these over h2c); the origins are the
session's Python origin (HTTP/1.1) and the WebSocket echo server."""
import os
import socket
import time

import h2.config
import h2.connection
import h2.events
import h2.settings
import pytest

from harness.waiting import free_port

pytestmark = pytest.mark.timeout(60)

ENABLE_CONNECT_PROTOCOL = 0x8


class StreamClient:
    """One h2c connection (prior knowledge) and one stream on it, read with deadlines."""

    def __init__(self, port, timeout=15):
        self.deadline = time.monotonic() + timeout
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=timeout)
        self.connection = h2.connection.H2Connection(h2.config.H2Configuration(
            client_side=True, header_encoding="utf-8",
            validate_outbound_headers=False))  # python-h2 4.1 wants :path on every request, CONNECT too
        self.connection.initiate_connection()
        self.sock.sendall(self.connection.data_to_send())
        self.settings = {}
        self.headers, self.data, self.ended, self.reset = None, bytearray(), False, None

    def open(self, headers):
        # The server must have said it takes extended CONNECT before a client may send one (RFC 8441 §4).
        self.read_until(lambda: ENABLE_CONNECT_PROTOCOL in self.settings)
        self.stream = self.connection.get_next_available_stream_id()
        self.connection.send_headers(self.stream, headers)
        self.sock.sendall(self.connection.data_to_send())
        self.read_until(lambda: self.headers is not None or self.reset is not None)
        return dict(self.headers or [])

    def send(self, data, end=False):
        self.connection.send_data(self.stream, data, end_stream=end)
        self.sock.sendall(self.connection.data_to_send())

    def read_until(self, done):
        while not done():
            remaining = self.deadline - time.monotonic()
            if remaining <= 0:
                raise AssertionError(f"deadline passed: headers {self.headers}, {len(self.data)} bytes, reset {self.reset}")
            self.sock.settimeout(remaining)
            chunk = self.sock.recv(65536)
            if not chunk:
                raise AssertionError("the proxy closed the connection")
            for event in self.connection.receive_data(chunk):
                if isinstance(event, h2.events.RemoteSettingsChanged):
                    self.settings.update({int(key): value.new_value for key, value in event.changed_settings.items()})
                elif isinstance(event, h2.events.ResponseReceived):
                    self.headers = event.headers
                elif isinstance(event, h2.events.DataReceived):
                    self.data += event.data
                    self.connection.acknowledge_received_data(event.flow_controlled_length, event.stream_id)
                elif isinstance(event, h2.events.StreamEnded):
                    self.ended = True
                elif isinstance(event, h2.events.StreamReset):
                    self.reset = event.error_code
            self.sock.sendall(self.connection.data_to_send())

    def close(self):
        self.sock.close()


def websocket_frame(payload):
    """A masked text frame (RFC 6455 §5.2)."""
    mask = os.urandom(4)
    return bytes([0x81, 0x80 | len(payload)]) + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload))


def parse_frame(data):
    """(opcode, payload, rest) of an unmasked server frame with a short payload, or None."""
    if len(data) < 2 or len(data) < 2 + (data[1] & 0x7F):
        return None
    length = data[1] & 0x7F
    return data[0] & 0x0F, bytes(data[2:2 + length]), data[2 + length:]


def test_connect_relays_the_stream_to_a_tcp_connection(faultline, origin):
    client = StreamClient(faultline.forward.port)
    try:
        head = client.open([(":method", "CONNECT"), (":authority", origin.authority)])
        assert head[":status"] == "200", head
        request = f"GET /echo?tunnel HTTP/1.1\r\nHost: {origin.authority}\r\nConnection: close\r\n\r\n".encode()
        client.send(request, end=True)
        # The origin answers and closes: its FIN ends the stream (RFC 9113 §8.5).
        client.read_until(lambda: client.ended)
    finally:
        client.close()
    assert bytes(client.data).startswith(b"HTTP/1.1 200"), bytes(client.data[:200])
    assert b'"target": "/echo?tunnel"' in bytes(client.data)
    trace = faultline.trace()
    received = trace.one("request.received", method="CONNECT")
    assert received["version"] == "HTTP/2" and received["stream"] == 1
    opened = trace.one("tunnel.opened", flow=received["flow"])
    assert opened["kind"] == "connect" and opened["target"] == origin.authority
    # Inside a stream there is no TLS handshake of the connection's own to intercept.
    assert opened["intercepted"] is False and opened["reason"] == "http2-connect"
    closed = trace.one("tunnel.closed", flow=received["flow"])
    assert closed["bytes_from_client"] == len(request) and closed["bytes_from_upstream"] == len(client.data)
    assert closed["reason"] == "both-closed"


def test_connect_to_a_closed_port_is_a_502_on_the_stream(faultline):
    client = StreamClient(faultline.forward.port)
    try:
        head = client.open([(":method", "CONNECT"), (":authority", f"127.0.0.1:{free_port()}")])
        client.read_until(lambda: client.ended)
    finally:
        client.close()
    assert head[":status"] == "502" and head["x-faultline-error"] == "connect-failed", head
    assert bytes(client.data).startswith(b"faultline: ")
    assert faultline.trace().one("upstream.error")["code"] == "connect-failed"


@pytest.mark.parametrize("listener", ["forward", "reverse"])
def test_extended_connect_carries_a_websocket(start_faultline, ws_origin, listener):
    authority = f"127.0.0.1:{ws_origin.port}"
    if listener == "forward":
        proxy = start_faultline("--listen", "127.0.0.1:0")
        port = proxy.forward.port
    else:
        proxy = start_faultline("--listen", "127.0.0.1:0", "--mode", f"reverse:http://{authority}")
        port = proxy.reverse.port
    client = StreamClient(port)
    try:
        head = client.open([(":method", "CONNECT"), (":protocol", "websocket"), (":scheme", "http"),
                            (":path", "/chat"), (":authority", authority), ("sec-websocket-version", "13")])
        # Success is a 2xx, and none of HTTP/1.1's upgrade fields (RFC 8441 §5).
        assert head[":status"] == "200", head
        assert "upgrade" not in head and "sec-websocket-accept" not in head and "connection" not in head
        for text in (b"hello over h2", b"and again"):
            client.send(websocket_frame(text))
            client.read_until(lambda: parse_frame(client.data) is not None)
            opcode, payload, rest = parse_frame(client.data)
            assert (opcode, payload) == (0x1, text)
            client.data = bytearray(rest)
    finally:
        client.close()
    trace = proxy.trace()
    received = trace.one("request.received", version="HTTP/2")
    # The flow is the HTTP/1.1 upgrade it stands for: rules see a GET with Upgrade: websocket.
    assert received["method"] == "GET" and received["url"] == f"http://{authority}/chat"
    assert trace.one("response.received", flow=received["flow"])["status"] == 101
    opened = trace.one("tunnel.opened", flow=received["flow"])
    assert opened["kind"] == "upgrade"


def test_extended_connect_for_another_protocol_is_refused(faultline, origin):
    client = StreamClient(faultline.forward.port)
    try:
        head = client.open([(":method", "CONNECT"), (":protocol", "webtransport"), (":scheme", "http"),
                            (":path", "/"), (":authority", origin.authority)])
        client.read_until(lambda: client.ended)
    finally:
        client.close()
    assert head[":status"] == "501" and head["x-faultline-error"] == "extended-connect-unsupported", head


def test_the_proxy_advertises_extended_connect(faultline):
    client = StreamClient(faultline.forward.port)
    try:
        client.read_until(lambda: ENABLE_CONNECT_PROTOCOL in client.settings)
    finally:
        client.close()
    assert client.settings[ENABLE_CONNECT_PROTOCOL] == 1

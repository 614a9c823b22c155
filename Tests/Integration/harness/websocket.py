"""A WebSocket echo origin (the `websockets` package) and a small RFC 6455 client that performs
the handshake through a forward proxy with an absolute-form request, as browsers' proxies see it."""
import base64
import hashlib
import os
import struct
import threading
import time

from websockets.sync.server import serve

from .rawhttp import RawConnection, request_bytes

GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"  # RFC 6455 §1.3
OP_TEXT, OP_BINARY, OP_CLOSE, OP_PING, OP_PONG = 0x1, 0x2, 0x8, 0x9, 0xA


class EchoServer:
    """Echoes every message back on the same connection."""

    def __init__(self):
        self.server = serve(self._echo, "127.0.0.1", 0, max_size=None, compression=None)
        self.port = self.server.socket.getsockname()[1]
        self.thread = threading.Thread(target=self.server.serve_forever, name="ws-origin", daemon=True)

    @staticmethod
    def _echo(connection):
        for message in connection:
            connection.send(message)

    def start(self):
        self.thread.start()
        return self

    def stop(self):
        self.server.shutdown()
        self.thread.join(10)


class WebSocketClient:
    """Client side of RFC 6455 over a RawConnection; frames are masked (§5.3)."""

    def __init__(self, connection, handshake_response):
        self.connection = connection
        self.handshake_response = handshake_response

    @classmethod
    def through_proxy(cls, proxy_host, proxy_port, target_authority, path="/", timeout=10):
        """Connects to the proxy and upgrades `GET http://target_authority/path` to a WebSocket."""
        key = base64.b64encode(os.urandom(16)).decode()
        connection = RawConnection(proxy_host, proxy_port, timeout)
        connection.send(request_bytes("GET", f"http://{target_authority}{path}", [
            ("Host", target_authority),
            ("Upgrade", "websocket"),
            ("Connection", "Upgrade"),
            ("Sec-WebSocket-Key", key),
            ("Sec-WebSocket-Version", "13"),
        ]))
        response = connection.read_response()
        assert response.status == 101, f"handshake answered {response.status} {response.reason}: {response.body!r}"
        expected = base64.b64encode(hashlib.sha1((key + GUID).encode()).digest()).decode()
        assert response.header("sec-websocket-accept") == expected, f"bad Sec-WebSocket-Accept in {response.headers}"
        return cls(connection, response)

    def send(self, opcode, payload):
        header = bytes([0x80 | opcode])
        length = len(payload)
        if length < 126:
            header += bytes([0x80 | length])
        elif length < 1 << 16:
            header += bytes([0x80 | 126]) + struct.pack("!H", length)
        else:
            header += bytes([0x80 | 127]) + struct.pack("!Q", length)
        mask = os.urandom(4)
        masked = bytes(b ^ mask[i % 4] for i, b in enumerate(payload)) if length < 4096 else _mask_fast(payload, mask)
        self.connection.send(header + mask + masked)

    def send_text(self, text):
        self.send(OP_TEXT, text.encode())

    def send_binary(self, data):
        self.send(OP_BINARY, data)

    def receive(self, timeout=10):
        """Returns (opcode, payload) of the next frame (messages from the echo server are unfragmented)."""
        deadline = time.monotonic() + timeout
        first, second = self.connection.read_exact(2, deadline)
        opcode = first & 0x0F
        length = second & 0x7F
        if length == 126:
            (length,) = struct.unpack("!H", self.connection.read_exact(2, deadline))
        elif length == 127:
            (length,) = struct.unpack("!Q", self.connection.read_exact(8, deadline))
        assert not second & 0x80, "server frames must not be masked (RFC 6455 §5.1)"
        return opcode, self.connection.read_exact(length, deadline)

    def close(self, timeout=10):
        """Closing handshake (§5.5.1): send close, await the echo of it, then the TCP close."""
        self.send(OP_CLOSE, struct.pack("!H", 1000))
        opcode, _ = self.receive(timeout)
        assert opcode == OP_CLOSE, f"expected a close frame, got opcode {opcode}"
        self.connection.assert_closed_by_peer(timeout)
        self.connection.close()


def _mask_fast(payload, mask):
    repeated = (mask * (len(payload) // 4 + 1))[: len(payload)]
    return (int.from_bytes(payload, "big") ^ int.from_bytes(repeated, "big")).to_bytes(len(payload), "big")

"""A raw-socket HTTP/1.1 client for what libraries hide: exact framing, trailers, interim
responses, malformed requests, and whether the peer closed the connection."""
import socket
import time
from dataclasses import dataclass, field


@dataclass
class RawResponse:
    version: str
    status: int
    reason: str
    headers: list  # [(name, value)] in order
    body: bytes = b""
    trailers: list = field(default_factory=list)
    chunked: bool = False

    def header(self, name):
        """The first value of `name`, or None."""
        for key, value in self.headers:
            if key.lower() == name.lower():
                return value
        return None

    def headers_named(self, name):
        return [value for key, value in self.headers if key.lower() == name.lower()]


class PeerClosed(Exception):
    """The peer closed the connection before a complete response arrived."""


class RawConnection:
    """One TCP connection with an overall deadline for every read."""

    def __init__(self, host, port, timeout=10):
        self.sock = socket.create_connection((host, port), timeout=timeout)
        self.timeout = timeout
        self.buffer = b""
        self.eof = False

    def close(self):
        self.sock.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def send(self, data):
        self.sock.sendall(data)

    def _fill(self, deadline):
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise TimeoutError("deadline passed while reading from the proxy")
        self.sock.settimeout(remaining)
        try:
            data = self.sock.recv(65536)
        except ConnectionResetError:
            data = b""
        if not data:
            self.eof = True
            return False
        self.buffer += data
        return True

    def _line(self, deadline):
        while b"\r\n" not in self.buffer:
            if not self._fill(deadline):
                raise PeerClosed(f"connection closed inside a line; buffered {self.buffer[:200]!r}")
        line, self.buffer = self.buffer.split(b"\r\n", 1)
        return line

    def _exact(self, count, deadline):
        while len(self.buffer) < count:
            if not self._fill(deadline):
                raise PeerClosed(f"connection closed after {len(self.buffer)} of {count} body bytes")
        data, self.buffer = self.buffer[:count], self.buffer[count:]
        return data

    def read_exact(self, count, deadline):
        """Exactly `count` bytes, or PeerClosed / TimeoutError at the monotonic `deadline`."""
        return self._exact(count, deadline)

    def read_head(self, timeout=None):
        """Reads one response head; returns (version, status, reason, headers)."""
        deadline = time.monotonic() + (timeout or self.timeout)
        while b"\r\n\r\n" not in self.buffer:
            if not self._fill(deadline):
                raise PeerClosed(f"connection closed before a response head; got {self.buffer[:300]!r}")
        head, self.buffer = self.buffer.split(b"\r\n\r\n", 1)
        lines = head.decode("latin-1").split("\r\n")
        version, status, *reason = lines[0].split(" ", 2)
        headers = []
        for line in lines[1:]:
            name, _, value = line.partition(":")
            headers.append((name, value.strip()))
        return version, int(status), (reason[0] if reason else ""), headers

    def read_response(self, method="GET", timeout=None):
        """Reads one complete response (an interim 1xx counts as one, with no body)."""
        deadline = time.monotonic() + (timeout or self.timeout)
        version, status, reason, headers = self.read_head(timeout)
        response = RawResponse(version, status, reason, headers)
        te = (response.header("transfer-encoding") or "").lower()
        if method == "HEAD" or 100 <= status < 200 or status in (204, 304):
            return response
        if te:
            assert te == "chunked", f"unexpected Transfer-Encoding {te!r}"
            response.chunked = True
            body = bytearray()
            while True:
                size_line = self._line(deadline)
                size = int(size_line.split(b";")[0].strip(), 16)
                if size == 0:
                    break
                body += self._exact(size, deadline)
                assert self._exact(2, deadline) == b"\r\n", "chunk data not followed by CRLF"
            while True:
                line = self._line(deadline)
                if not line:
                    break
                name, _, value = line.decode("latin-1").partition(":")
                response.trailers.append((name, value.strip()))
            response.body = bytes(body)
        elif response.header("content-length") is not None:
            response.body = self._exact(int(response.header("content-length")), deadline)
        else:
            response.body = self.read_until_eof(deadline - time.monotonic())
        return response

    def read_final_response(self, method="GET", timeout=None):
        """Skips interim responses; returns (final, [interim statuses])."""
        interim = []
        while True:
            response = self.read_response(method, timeout)
            if 100 <= response.status < 200 and response.status != 101:
                interim.append(response.status)
                continue
            return response, interim

    def read_until_eof(self, timeout=None):
        """Everything until the peer closes; fails if it does not close before the deadline."""
        deadline = time.monotonic() + (timeout or self.timeout)
        while self._fill(deadline):
            pass
        data, self.buffer = self.buffer, b""
        return data

    def assert_closed_by_peer(self, timeout=5):
        """The peer closes the connection (FIN or RST) within `timeout`, sending nothing more."""
        rest = self.read_until_eof(timeout)
        assert rest == b"", f"expected the connection to close, but got more bytes: {rest[:300]!r}"


def request_bytes(method, target, headers=(), body=b"", version="HTTP/1.1"):
    """Serializes a request exactly as given (no header is added); text is sent as UTF-8."""
    lines = [f"{method} {target} {version}"] + [f"{name}: {value}" for name, value in headers]
    return ("\r\n".join(lines) + "\r\n\r\n").encode("utf-8") + body

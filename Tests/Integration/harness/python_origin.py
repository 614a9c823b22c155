"""An in-process HTTP/1.1 origin with the endpoints the tests need, on a loopback port.

Endpoints (every request is logged in `Origin.requests` as it arrives, before its body is read):
  /echo, /sink       JSON: method, target, headers, body length and sha256, chunked?, chunk count,
                     trailers, and whether a 100 Continue was sent
  /chunked?pieces=N&size=S[&trailers=0]
                     chunked response of deterministic bytes with trailer X-Body-SHA256 (unless
                     trailers=0: URLSession on Linux crashes on response trailers)
  /close-delimited?size=N
                     HTTP/1.0 response without Content-Length, ended by closing the connection
  /set-cookie?name=N[&value=V][&extra=K]
                     200 with Set-Cookie: N=V; Path=/; HttpOnly (V random when not given), then K
                     more Set-Cookie fields extraI=vI
  /slow?key=K        waits until the test releases gate K (see `Origin.gate`), then 200 "released K";
                     with &hold=before-body it waits before reading the request body, then answers
                     the body's length and sha256 as JSON
  /status/N          an empty response with status N
  /then-close?size=N a Content-Length response that does not announce Connection: close, after
                     which the origin closes the connection anyway (a stale keep-alive connection)
  /broken?kind=K     a broken response: bad-length (Content-Length: abc), truncated (Content-Length
                     1000, 500 bytes, close), garbage (not HTTP at all)
"""
import hashlib
import json
import secrets
import socket
import ssl
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

GATE_DEADLINE = 60  # seconds a held request waits at most, so no origin thread outlives a test run


def pattern_bytes(size, seed=0):
    """Deterministic, incompressible-looking bytes (repeated SHA-256 blocks)."""
    out = bytearray()
    block = hashlib.sha256(str(seed).encode()).digest()
    while len(out) < size:
        out += block
        block = hashlib.sha256(block).digest()
    return bytes(out[:size])


def chunked_body(pieces, size):
    """The body /chunked?pieces=&size= sends, so tests can compute what they should receive."""
    return b"".join(pattern_bytes(size, seed=i) for i in range(pieces))


class Gate:
    """A response the test holds: `arrived` is set when the request reaches the origin; the
    response is sent once `release()` is called."""

    def __init__(self, key):
        self.key = key
        self.arrived = threading.Event()
        self.released = threading.Event()

    def release(self):
        self.released.set()

    def wait_arrived(self, timeout=10):
        assert self.arrived.wait(timeout), f"request for gate {self.key!r} did not reach the origin in {timeout}s"


class Origin:
    """A ThreadingHTTPServer running in a daemon thread; `tls_context` makes it HTTPS."""

    def __init__(self, tls_context=None):
        self.tls_context = tls_context
        self.requests = []  # dicts: method, target, path, headers
        self._lock = threading.Lock()
        self._gates = {}
        origin = self

        class Handler(OriginHandler):
            pass

        Handler.origin = origin
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        if tls_context is not None:
            # The handshake runs in the handler thread (OriginHandler.setup), so a client that never
            # completes it cannot block the accept loop.
            self.server.socket = tls_context.wrap_socket(
                self.server.socket, server_side=True, do_handshake_on_connect=False)
        self.port = self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever, name="python-origin", daemon=True)

    def start(self):
        self.thread.start()
        return self

    def stop(self):
        with self._lock:
            for gate in self._gates.values():
                gate.release()
        self.server.shutdown()
        self.server.server_close()

    @property
    def url(self):
        return f"{'https' if self.tls_context else 'http'}://127.0.0.1:{self.port}"

    @property
    def authority(self):
        return f"127.0.0.1:{self.port}"

    def gate(self, key):
        """The gate for /slow?key=`key`, created on first use by either side."""
        with self._lock:
            if key not in self._gates:
                self._gates[key] = Gate(key)
            return self._gates[key]

    def log(self, entry):
        with self._lock:
            self.requests.append(entry)

    def seen(self, marker):
        """Requests whose target contains `marker`."""
        with self._lock:
            return [r for r in self.requests if marker in r["target"]]


class OriginHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "FaultlineTestOrigin/1"
    origin = None  # set per server
    sent_continue = False

    def log_message(self, format, *args):  # keep pytest output clean
        pass

    def setup(self):
        super().setup()
        self.sent_continue = False
        if isinstance(self.connection, ssl.SSLSocket):
            self.connection.settimeout(10)
            self.connection.do_handshake()
            self.connection.settimeout(None)

    def handle_expect_100(self):
        self.sent_continue = True
        return super().handle_expect_100()

    def handle_one_request(self):
        try:
            super().handle_one_request()
        except (ConnectionError, ssl.SSLError, socket.timeout):
            self.close_connection = True

    def dispatch(self):
        url = urlsplit(self.path)
        query = {key: values[-1] for key, values in parse_qs(url.query).items()}
        self.origin.log(
            {"method": self.command, "target": self.path, "path": url.path, "headers": list(self.headers.items())}
        )
        route = {
            "/echo": self.echo,
            "/sink": self.echo,
            "/chunked": self.chunked,
            "/close-delimited": self.close_delimited,
            "/set-cookie": self.set_cookie,
            "/slow": self.slow,
            "/then-close": self.then_close,
            "/broken": self.broken,
        }.get(url.path)
        if url.path.startswith("/status/"):
            route = self.status
        if route is None:
            self.send_bytes(404, b"no such endpoint\n")
        else:
            route(query)

    do_GET = do_POST = do_PUT = do_DELETE = do_PATCH = do_OPTIONS = dispatch

    def do_HEAD(self):
        self.origin.log({"method": "HEAD", "target": self.path, "path": urlsplit(self.path).path,
                         "headers": list(self.headers.items())})
        self.send_response(200)
        self.send_header("Content-Length", "1234")
        self.end_headers()

    # -- body helpers ----------------------------------------------------------------------

    def read_body(self):
        """Reads the request body piece by piece; returns (length, sha256, chunked, chunks, trailers)."""
        digest = hashlib.sha256()
        length = 0
        chunks = 0
        trailers = []
        chunked = "chunked" in (self.headers.get("Transfer-Encoding") or "").lower()
        if chunked:
            while True:
                size = int(self.rfile.readline(4096).split(b";")[0].strip(), 16)
                if size == 0:
                    break
                chunks += 1
                remaining = size
                while remaining:
                    piece = self.rfile.read(min(remaining, 1 << 16))
                    if not piece:
                        raise ConnectionError("request body cut short")
                    digest.update(piece)
                    length += len(piece)
                    remaining -= len(piece)
                assert self.rfile.readline(4) == b"\r\n"
            while True:
                line = self.rfile.readline(8192)
                if line in (b"\r\n", b"\n", b""):
                    break
                name, _, value = line.decode("latin-1").partition(":")
                trailers.append([name, value.strip()])
        else:
            remaining = int(self.headers.get("Content-Length") or 0)
            while remaining:
                piece = self.rfile.read(min(remaining, 1 << 16))
                if not piece:
                    raise ConnectionError("request body cut short")
                digest.update(piece)
                length += len(piece)
                remaining -= len(piece)
        return length, digest.hexdigest(), chunked, chunks, trailers

    def send_bytes(self, status, body, content_type="text/plain", extra=()):
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        for name, value in extra:
            self.send_header(name, value)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    # -- endpoints -------------------------------------------------------------------------

    def echo(self, query):
        length, sha, chunked, chunks, trailers = self.read_body()
        report = {
            "method": self.command,
            "target": self.path,
            "version": self.request_version,
            "headers": list(self.headers.items()),
            "body_length": length,
            "body_sha256": sha,
            "chunked": chunked,
            "chunks": chunks,
            "trailers": trailers,
            "sent_continue": self.sent_continue,
        }
        self.send_bytes(200, json.dumps(report).encode(), "application/json")

    def chunked(self, query):
        pieces, size = int(query.get("pieces", 8)), int(query.get("size", 1000))
        body = chunked_body(pieces, size)
        self.send_response(200)
        self.send_header("Content-Type", "application/octet-stream")
        self.send_header("Transfer-Encoding", "chunked")
        trailers = query.get("trailers", "1") != "0"
        if trailers:
            self.send_header("Trailer", "X-Body-SHA256")
        self.end_headers()
        for i in range(pieces):
            piece = body[i * size : (i + 1) * size]
            self.wfile.write(b"%x\r\n" % len(piece) + piece + b"\r\n")
        trailer = b"X-Body-SHA256: " + hashlib.sha256(body).hexdigest().encode() + b"\r\n" if trailers else b""
        self.wfile.write(b"0\r\n" + trailer + b"\r\n")

    def close_delimited(self, query):
        self.read_body()
        body = pattern_bytes(int(query.get("size", 10000)), seed=7)
        self.wfile.write(b"HTTP/1.0 200 OK\r\nContent-Type: application/octet-stream\r\n\r\n" + body)
        self.wfile.flush()
        self.close_connection = True

    def set_cookie(self, query):
        self.read_body()
        # Without ?value= the origin makes the secret up, so it never appears in a request URL.
        value = query.get("value") or secrets.token_urlsafe(18)
        cookies = [("Set-Cookie", f"{query.get('name', 'session')}={value}; Path=/; HttpOnly")]
        cookies += [("Set-Cookie", f"extra{i}=v{i}; Path=/") for i in range(int(query.get("extra", 0)))]
        self.send_bytes(200, b"cookie set\n", extra=cookies)

    def slow(self, query):
        hold_body = query.get("hold") == "before-body"
        if not hold_body:
            self.read_body()
        gate = self.origin.gate(query.get("key", "default"))
        gate.arrived.set()
        released = gate.released.wait(GATE_DEADLINE)
        if hold_body and released:
            length, sha, *_ = self.read_body()
            self.send_bytes(200, json.dumps({"body_length": length, "body_sha256": sha}).encode(), "application/json")
            return
        body = f"released {gate.key}\n" if released else f"gate {gate.key} never released\n"
        try:
            self.send_bytes(200 if released else 500, body.encode())
        except OSError:
            self.close_connection = True  # the proxy gave up on us (504) and closed the connection

    def then_close(self, query):
        self.read_body()
        body = pattern_bytes(int(query.get("size", 100)), seed=11)
        self.wfile.write(b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n" % len(body) + body)
        self.wfile.flush()
        self.close_connection = True

    def broken(self, query):
        self.read_body()
        kind = query.get("kind")
        if kind == "bad-length":
            self.wfile.write(b"HTTP/1.1 200 OK\r\nContent-Length: abc\r\n\r\nhello")
        elif kind == "truncated":
            self.wfile.write(b"HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n" + b"t" * 500)
        else:
            self.wfile.write(b"NOT HTTP AT ALL\r\n\r\n")
        self.wfile.flush()
        self.close_connection = True

    def status(self, query):
        self.read_body()
        self.send_bytes(int(urlsplit(self.path).path.rsplit("/", 1)[1]), b"")

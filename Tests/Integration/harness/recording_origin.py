"""A loopback HTTP/1.1 origin that keeps every request whole (method, target, path, query, headers
and the body bytes) and answers with what the test chose: by default a JSON echo naming the
origin, or exact bytes, or nothing at all (a stall). For tests that must see exactly what reached
the origin (a rewritten request, a routed one, how many copies arrived) or that need an answer
byte for byte (a JSON text with a big integer)."""
import json
import threading
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit

from .waiting import wait_until

STALL_DEADLINE = 30  # seconds a stalled answer waits at most, so no origin thread outlives a test


@dataclass
class Recorded:
    """One request as the origin read it."""

    number: int  # 1 for the first request this origin read
    method: str
    target: str
    path: str
    query: str
    headers: list  # [(name, value)] in order
    body: bytes

    def header(self, name):
        """The first value of `name` (case-insensitive), or None."""
        for key, value in self.headers:
            if key.lower() == name.lower():
                return value
        return None

    def headers_named(self, name):
        return [value for key, value in self.headers if key.lower() == name.lower()]


@dataclass
class Answer:
    """What the origin sends back: exactly these headers (Content-Length added) and body."""

    status: int = 200
    body: bytes = b""
    headers: tuple = (("Content-Type", "application/octet-stream"),)


STALL = object()  # an `answer` returning this sends nothing until the origin stops (or the deadline)


class RecordingOrigin:
    """A ThreadingHTTPServer in a daemon thread. `answer(recorded)` returns an `Answer`, or `STALL`;
    without one every request gets `echo(recorded)`."""

    def __init__(self, name="origin", answer=None):
        self.name = name
        self.answer = answer or self.echo
        self.requests = []
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        origin = self

        class Handler(_RecordingHandler):
            pass

        Handler.origin = origin
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.port = self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever, name=f"recording-origin-{name}", daemon=True)

    def start(self):
        self.thread.start()
        return self

    def stop(self):
        self._stopping.set()  # stalled answers end now
        self.server.shutdown()
        self.server.server_close()

    @property
    def url(self):
        return f"http://127.0.0.1:{self.port}"

    @property
    def authority(self):
        return f"127.0.0.1:{self.port}"

    def echo(self, recorded):
        """The default answer: JSON with this origin's name and the request as read."""
        report = {
            "origin": self.name,
            "method": recorded.method,
            "target": recorded.target,
            "path": recorded.path,
            "query": recorded.query,
            "headers": recorded.headers,
            "body": recorded.body.decode("latin-1"),
        }
        return Answer(200, json.dumps(report).encode(), (("Content-Type", "application/json"),))

    def record(self, method, target, headers, body):
        url = urlsplit(target)
        with self._lock:
            recorded = Recorded(len(self.requests) + 1, method, target, url.path, url.query, headers, body)
            self.requests.append(recorded)
        return recorded

    def seen(self, path=None):
        """Requests read so far (only those whose path is `path`, if given)."""
        with self._lock:
            return [r for r in self.requests if path is None or r.path == path]

    def wait_for(self, count, path=None, timeout=10):
        """Waits (with a deadline) until at least `count` requests (to `path`) were read; returns them."""
        return wait_until(lambda: len(self.seen(path)) >= count and self.seen(path), timeout,
                          f"{count} request(s) to {path or 'any path'} at origin {self.name}")

    def stall(self):
        """Blocks an answer until the origin stops (or the deadline); True if it stopped."""
        return self._stopping.wait(STALL_DEADLINE)


class _RecordingHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "FaultlineRecordingOrigin/1"
    origin = None  # set per server

    def log_message(self, format, *args):  # keep pytest output clean
        pass

    def handle_one_request(self):
        try:
            super().handle_one_request()
        except ConnectionError:
            self.close_connection = True

    def _read_body(self):
        if "chunked" in (self.headers.get("Transfer-Encoding") or "").lower():
            body = bytearray()
            while True:
                size = int(self.rfile.readline(4096).split(b";")[0].strip(), 16)
                if size == 0:
                    break
                body += self.rfile.read(size)
                self.rfile.readline(4)
            while self.rfile.readline(8192) not in (b"\r\n", b"\n", b""):
                pass
            return bytes(body)
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        if len(body) != length:
            raise ConnectionError("request body cut short")
        return body

    def dispatch(self):
        body = self._read_body()
        recorded = self.origin.record(self.command, self.path, list(self.headers.items()), body)
        answer = self.origin.answer(recorded)
        if answer is STALL:
            self.origin.stall()
            self.close_connection = True
            return
        try:
            self.send_response(answer.status)
            for name, value in answer.headers:
                self.send_header(name, value)
            self.send_header("Content-Length", str(len(answer.body)))
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(answer.body)
        except OSError:
            self.close_connection = True

    do_GET = do_POST = do_PUT = do_DELETE = do_PATCH = do_OPTIONS = do_HEAD = dispatch

"""HTTP/2 clients as the tests run them: nghttp, h2load and curl as child processes with deadlines
(each also given its own timeout below the deadline, so it normally reports the timeout itself),
and httpx with `h2`. Every runner returns a parsed result, also when the transfer failed; a child
that outlives its deadline is killed and its result says `timed_out`. None of them raises for an
HTTP/2 error: tests assert on the result.

How each client reports the HTTP/2 errors a peer sends (nghttp2 1.52, curl 7.88.1, httpx 0.28.1
with h2 4.1.0; test_h2_harness.py checks each against harness/h2_server.py):

| peer sends | nghttp -v | curl | httpx | h2load |
|---|---|---|---|---|
| RST_STREAM (code C) | frame `recv RST_STREAM` `(error_code=NAME(0xC))`; "Some requests were not processed" | exit 92 "HTTP/2 stream N was not closed cleanly: NAME (err C)" | `RemoteProtocolError("<StreamReset stream_id:N, error_code:C, remote_reset:True>")` | failed and errored |
| RST_STREAM REFUSED_STREAM (7) | as above | retries on a new connection, then exit 56 "Connection died, tried 5 times before giving up" | as above, code 7 (no retry) | failed (no retry) |
| GOAWAY before the response | frame `recv GOAWAY` `(last_stream_id=L, error_code=NAME(0xC), ...)`; not processed | exit 16 "Error in the HTTP2 framing layer" (whatever the code) | `RemoteProtocolError("<ConnectionTerminated error_code:C, last_stream_id:L, additional_data:None>")` | failed |
| GOAWAY after the response | the frame; the request succeeded | success | success (the next request opens a new connection) | that request succeeded; the connection's later ones fail, h2load does not reconnect |
| TCP close mid-stream | "Some requests were not processed" | exit 18 "HTTP/2 stream N was not closed cleanly before end of the underlying stream" | `RemoteProtocolError("Server disconnected")` | failed |

Stream ids: curl's first request is stream 1, httpx's 1, 3, 5 ... on one connection, nghttp's 13
(it first sends PRIORITY frames for streams 3 to 11).

nghttp and h2load exit 0 whatever happened: their results are read from the output alone.
Neither can go through an HTTP proxy (no CONNECT): for a forward proxy use curl or httpx, and
point nghttp and h2load at a reverse listener or an h2c origin. Through a forward proxy, HTTP/2
is https only: curl 7.88 and httpx send an http:// URL to the proxy as HTTP/1.1 (absolute form)
whatever they were told (curl learned --proxy-http2 in 8.1), and do h2 inside a CONNECT tunnel.
"""
import json
import os
import re
import socket
import ssl
import subprocess
import tempfile
import time
from dataclasses import dataclass, field

import h2.config
import h2.connection
import h2.events
import h2.settings
import httpx

from . import h2load_output
from .clients import clean_env

# RFC 9113 section 7.
ERROR_CODES = {
    0x0: "NO_ERROR", 0x1: "PROTOCOL_ERROR", 0x2: "INTERNAL_ERROR", 0x3: "FLOW_CONTROL_ERROR",
    0x4: "SETTINGS_TIMEOUT", 0x5: "STREAM_CLOSED", 0x6: "FRAME_SIZE_ERROR", 0x7: "REFUSED_STREAM",
    0x8: "CANCEL", 0x9: "COMPRESSION_ERROR", 0xa: "CONNECT_ERROR", 0xb: "ENHANCE_YOUR_CALM",
    0xc: "INADEQUATE_SECURITY", 0xd: "HTTP_1_1_REQUIRED",
}


def _run(command, timeout, env=None):
    """Runs `command` with a deadline; returns (returncode or None when killed, stdout bytes,
    stderr text, timed_out)."""
    try:
        done = subprocess.run(command, capture_output=True, timeout=timeout, env=env or clean_env(),
                              stdin=subprocess.DEVNULL)
        return done.returncode, done.stdout, done.stderr.decode("utf-8", "replace"), False
    except subprocess.TimeoutExpired as expired:  # the child was killed; keep what it printed
        return None, expired.stdout or b"", (expired.stderr or b"").decode("utf-8", "replace"), True


def _seconds(timeout):
    """A client's own timeout: 2 s below the deadline, at least 1 s."""
    return max(1, int(timeout) - 2)


# -- nghttp ------------------------------------------------------------------------------------


@dataclass
class Frame:
    """One frame nghttp logged. `fields` holds what its detail lines say, parsed for the frames
    tests assert on: RST_STREAM and GOAWAY `error_code` (int) and `error` (name), GOAWAY
    `last_stream_id`; `flags_text` is nghttp's "; END_STREAM | END_HEADERS" line, if any."""

    direction: str  # "recv" or "send"
    type: str  # "HEADERS", "DATA", "RST_STREAM", "GOAWAY", "SETTINGS", ...
    stream: int
    length: int
    flags: int
    time: float
    detail: list = field(default_factory=list)
    fields: dict = field(default_factory=dict)
    flags_text: str = ""

    @property
    def end_stream(self):
        return self.type in ("HEADERS", "DATA") and bool(self.flags & 0x1)


@dataclass
class NghttpResult:
    command: list
    returncode: int | None
    stdout: bytes
    stderr: str
    timed_out: bool
    protocol: str | None = None  # "h2" (TLS, from "The negotiated protocol") or "h2c" (cleartext, connected)
    frames: list = field(default_factory=list)
    headers: dict = field(default_factory=dict)  # stream id -> [(name, value)] received, trailers included
    bodies: dict = field(default_factory=dict)  # stream id -> bytes received (empty with -n)
    errors: list = field(default_factory=list)  # nghttp's [ERROR] lines and its "not processed" summary
    warnings: list = field(default_factory=list)  # [WARNING] lines, e.g. certificate verification

    def received(self, kind=None):
        """The frames received, of type `kind` if given."""
        return [f for f in self.frames if f.direction == "recv" and (kind is None or f.type == kind)]

    @property
    def status(self):
        """The :status of the first stream that got one, as an int (None if none did)."""
        for stream in sorted(self.headers):
            for name, value in self.headers[stream]:
                if name == ":status":
                    return int(value)
        return None

    @property
    def body(self):
        """The body of the first stream that received DATA (b"" if none)."""
        return self.bodies[min(self.bodies)] if self.bodies else b""

    @property
    def rst_streams(self):
        """[(stream, error code, error name)] of the RST_STREAM frames received."""
        return [(f.stream, f.fields.get("error_code"), f.fields.get("error")) for f in self.received("RST_STREAM")]

    @property
    def goaway(self):
        """(last_stream_id, error code, error name) of the first GOAWAY received, or None."""
        frames = self.received("GOAWAY")
        if not frames:
            return None
        f = frames[0]
        return f.fields.get("last_stream_id"), f.fields.get("error_code"), f.fields.get("error")

    @property
    def not_processed(self):
        """True when nghttp said some requests were not processed (reset, refused, cut)."""
        return any(e.startswith("Some requests were not processed") for e in self.errors)

    @property
    def ok(self):
        """Every request answered, nothing nghttp calls an error, no deadline missed."""
        return not self.timed_out and not self.errors and self.status is not None

    def describe(self):
        """A short account for assertion messages."""
        frames = ", ".join(f"{f.type}({f.stream}){' ' + f.fields.get('error', '') if 'error' in f.fields else ''}"
                           for f in self.received())
        return (f"nghttp exit {self.returncode}{' (killed at its deadline)' if self.timed_out else ''}, "
                f"protocol {self.protocol}, status {self.status}, received [{frames}], errors {self.errors}, "
                f"warnings {self.warnings}")


_FRAME = re.compile(rb"\[ *(\d+\.\d+)\] (send|recv) ([A-Z_]+) frame <length=(\d+), flags=0x([0-9a-f]+), "
                    rb"stream_id=(\d+)>\n")
_LOG_LINE = re.compile(rb"\[ *\d+\.\d+\] [^\n]*\n")
_DETAIL = re.compile(rb" {10}[^\n]*\n")
_HEADER = re.compile(rb"\[ *\d+\.\d+\] recv \(stream_id=(\d+)\) ([^\n]*?): ([^\n]*)\n")
_ERROR_CODE = re.compile(r"error_code=([A-Z0-9_]+)\(0x([0-9a-f]+)\)")
_LAST_STREAM = re.compile(r"last_stream_id=(\d+)")
_NEXT_LOG_LINE = re.compile(rb"\[ *\d+\.\d+\] ")


def parse_nghttp(stdout, stderr, tls=False):
    """Parses `nghttp -v` output into (protocol, frames, headers, bodies, errors, warnings). The
    protocol is "h2c" once a cleartext connection is made, and what ALPN chose over TLS (`tls`).

    With -v nghttp writes its log and the response bodies to stdout, unseparated: a body chunk
    is written as it arrives, without a newline, and its frame's `recv DATA frame` line follows
    once the whole frame is in. A frame that spans two socket reads arrives in two chunks, and
    whatever nghttp sent in between (a WINDOW_UPDATE) is logged between them; so whatever is not
    a log line is held and given to the DATA frame logged next. (A body that begins with ten
    spaces right after a log line would be taken for a detail line; the tests' bodies do not.)
    """
    frames, headers, bodies, errors, warnings = [], {}, {}, [], []
    protocol = None
    position = 0
    pending = b""
    while position < len(stdout):
        match = _FRAME.match(stdout, position)
        if match:
            time, direction, kind, length, flags, stream = match.groups()
            frame = Frame(direction.decode(), kind.decode(), int(stream), int(length), int(flags, 16), float(time))
            position = match.end()
            while (detail := _DETAIL.match(stdout, position)):
                frame.detail.append(detail.group().decode("utf-8", "replace").strip())
                position = detail.end()
            _frame_fields(frame)
            frames.append(frame)
            if frame.direction == "recv" and frame.type == "DATA" and pending:
                bodies[frame.stream] = bodies.get(frame.stream, b"") + pending
                pending = b""
            continue
        match = _HEADER.match(stdout, position)
        if match:
            stream = int(match[1])
            headers.setdefault(stream, []).append((match[2].decode("utf-8", "replace"),
                                                   match[3].decode("utf-8", "replace")))
            position = match.end()
            continue
        match = _LOG_LINE.match(stdout, position)
        if match:
            line = match.group().decode("utf-8", "replace").strip()
            if "[ERROR]" in line:
                errors.append(line.split("[ERROR]", 1)[1].strip())
            elif line.endswith("] Connected") and not tls:
                protocol = "h2c"
            position = match.end()
            continue
        if stdout.startswith(b"The negotiated protocol: ", position):
            end = stdout.find(b"\n", position)
            end = len(stdout) if end < 0 else end
            protocol = stdout[position + len(b"The negotiated protocol: "):end].decode().strip()
            position = end + 1
            continue
        # Body bytes: up to the next log line of any kind, held for the next DATA frame's line.
        following = _NEXT_LOG_LINE.search(stdout, position + 1)
        end = following.start() if following else len(stdout)
        pending += stdout[position:end]
        position = end
    if pending:  # a frame cut by a deadline: its bytes belong to the stream logged last
        stream = frames[-1].stream if frames else 0
        bodies[stream] = bodies.get(stream, b"") + pending
    for line in stderr.splitlines():
        line = line.strip()
        if line.startswith("[ERROR]"):
            errors.append(line[len("[ERROR]"):].strip())
        elif line.startswith("[WARNING]"):
            warnings.append(line[len("[WARNING]"):].strip())
        elif line.startswith("Some requests were not processed"):
            errors.append(line)
    for frame in frames:  # streams that got DATA with -n have an empty body, not none
        if frame.direction == "recv" and frame.type == "DATA":
            bodies.setdefault(frame.stream, b"")
    return protocol, frames, headers, bodies, errors, warnings


def _frame_fields(frame):
    for line in frame.detail:
        if line.startswith(";") and not frame.flags_text:
            frame.flags_text = line.lstrip("; ")
        code = _ERROR_CODE.search(line)
        if code:
            frame.fields["error"], frame.fields["error_code"] = code[1], int(code[2], 16)
        last = _LAST_STREAM.search(line)
        if last:
            frame.fields["last_stream_id"] = int(last[1])


def nghttp_get(url, *args, proxy=None, cacert=None, timeout=30, null_out=False):
    """`nghttp -v [-n] -t SECONDS ARGS URL` (more URLs or -m N go in `args`). `cacert`: the CA to
    verify the server against (nghttp has no option for it; it reads SSL_CERT_FILE). nghttp only
    warns when verification fails (see `warnings`), it never refuses. `null_out` (-n) discards
    the bodies (frames and headers are still parsed). Returns an NghttpResult.

    nghttp cannot use an HTTP proxy (it has no CONNECT): `proxy` is refused with a ValueError, so a
    test cannot believe it went through one."""
    if proxy is not None:
        raise ValueError("nghttp does not support HTTP proxies (no CONNECT): use curl_h2 or httpx_h2_client "
                         "through a forward proxy, nghttp against a reverse listener")
    command = ["nghttp", "-v", "-t", str(_seconds(timeout)), *(["-n"] if null_out else []), *args, url]
    env = clean_env(SSL_CERT_FILE=cacert) if cacert else clean_env()
    returncode, stdout, stderr, timed_out = _run(command, timeout, env)
    result = NghttpResult(command, returncode, stdout, stderr, timed_out)
    (result.protocol, result.frames, result.headers, result.bodies, result.errors,
     result.warnings) = parse_nghttp(stdout, stderr, tls=url.startswith("https:"))
    return result


# -- h2load ------------------------------------------------------------------------------------


@dataclass
class H2loadResult:
    command: list
    returncode: int | None
    stdout: str
    stderr: str
    timed_out: bool
    protocol: str | None = None  # "Application protocol:" (h2, h2c, or http/1.1 if allowed)
    duration: float | None = None  # seconds, "finished in"
    rps: float | None = None  # "finished in ..., N req/s": succeeded requests over the duration
    total: int = 0
    started: int = 0
    done: int = 0
    succeeded: int = 0
    failed: int = 0
    errored: int = 0
    timeout: int = 0
    status_codes: dict = field(default_factory=dict)  # "2xx" -> count
    request_failures: int = 0  # "Process Request Failure" lines: some requests a GOAWAY cut off, not all

    @property
    def ok(self):
        """The summary printed, every request succeeded."""
        return not self.timed_out and self.total > 0 and self.succeeded == self.total

    def describe(self):
        return (f"h2load{' (killed at its deadline)' if self.timed_out else ''}: protocol {self.protocol}, "
                f"{self.total} total, {self.succeeded} succeeded, {self.failed} failed, {self.errored} errored, "
                f"{self.timeout} timeout, status {self.status_codes}, {self.rps} req/s; stderr {self.stderr[-300:]!r}")


def parse_h2load(result):
    """Fills `result` from h2load's summary (harness/h2load_output.py)."""
    for key, value in h2load_output.parse(result.stdout).items():
        setattr(result, key, value)
    return result


def h2load(url, clients=1, streams=1, requests=None, *, duration=None, warm_up=None, threads=1,
           timeout=None, inactivity=10, h2_only=True, args=()):
    """`h2load -c CLIENTS -m STREAMS (-n REQUESTS | -D DURATION [--warm-up-time W]) -t THREADS
    -N INACTIVITY [--npn-list=h2] ARGS URL`: CLIENTS connections, each with up to STREAMS
    concurrent streams; REQUESTS defaults to CLIENTS x STREAMS. `h2_only` offers only h2 over TLS (h2load would fall back to http/1.1);
    http:// URLs are h2c with prior knowledge. The deadline defaults to the run's length plus 30 s.
    h2load verifies no certificate. Returns an H2loadResult."""
    command = ["h2load", f"-c{clients}", f"-m{streams}", f"-t{threads}", "-N", f"{inactivity}s"]
    if duration is not None:
        command += ["-D", f"{duration}s"]
        if warm_up:
            command += ["--warm-up-time", f"{warm_up}s"]
    else:
        command += ["-n", str(requests if requests is not None else clients * streams)]
    if h2_only:
        command.append("--npn-list=h2")
    command += [*args, url]
    if timeout is None:
        timeout = (duration or 0) + (warm_up or 0) + 30
    returncode, stdout, stderr, timed_out = _run(command, timeout)
    return parse_h2load(H2loadResult(command, returncode, stdout.decode("utf-8", "replace"), stderr, timed_out))


# -- curl --------------------------------------------------------------------------------------


@dataclass
class CurlResult:
    command: list
    exit_code: int | None  # None when killed at the deadline
    error: str  # curl's error text (%{errormsg}), "" on success
    status: int  # 0 when no response came
    http_version: str  # curl's %{http_version}: "2", "1.1", "1.0", or "0" when none
    body: bytes
    headers: list  # [(name, value)] of the final response
    stderr: str
    timed_out: bool
    info: dict = field(default_factory=dict)  # curl's whole -w '%{json}'

    @property
    def ok(self):
        return self.exit_code == 0

    @property
    def http2(self):
        return self.http_version == "2"

    def header(self, name):
        name = name.lower()
        return next((value for key, value in self.headers if key.lower() == name), None)

    def describe(self):
        return (f"curl exit {self.exit_code}{' (killed at its deadline)' if self.timed_out else ''} "
                f"{self.error!r}, HTTP/{self.http_version} {self.status}, {len(self.body)} body bytes")


def curl_h2(url, *args, prior_knowledge=False, proxy=None, cacert=None, timeout=30):
    """curl -sS with --http2 (ALPN h2 over TLS; the Upgrade to h2c on http://, which nginx 1.22 and
    most servers ignore: HTTP/1.1 then) or --http2-prior-knowledge (h2c straight away, or h2
    over TLS without falling back), `-x PROXY`, `--cacert CACERT`, and `args` (-X, -d, -H ...).
    Body, response headers and curl's -w '%{json}' (http_version, response_code, exitcode,
    errormsg) go to temporary files; returns a CurlResult."""
    with tempfile.TemporaryDirectory(prefix="curl-h2-") as folder:
        body_path, head_path = os.path.join(folder, "body"), os.path.join(folder, "head")
        command = ["curl", "-sS", "--max-time", str(_seconds(timeout)),
                   "--http2-prior-knowledge" if prior_knowledge else "--http2",
                   "-o", body_path, "-D", head_path, "-w", "%{json}"]
        if proxy:
            command += ["-x", proxy]
        if cacert:
            command += ["--cacert", cacert]
        command += [*args, url]
        returncode, stdout, stderr, timed_out = _run(command, timeout)
        body = _read(body_path)
        head = _read(head_path).decode("latin-1")
    try:
        info = json.loads(stdout.decode("utf-8", "replace")) if stdout else {}
    except ValueError:
        info = {}
    error = info.get("errormsg") or ""
    if not error and returncode:
        error = next((line.split(") ", 1)[1] for line in stderr.splitlines()
                      if line.startswith("curl: (") and ") " in line), "")
    return CurlResult(command, returncode, error, int(info.get("response_code") or 0),
                      str(info.get("http_version") or "0"), body, _final_headers(head), stderr, timed_out, info)


def _read(path):
    try:
        with open(path, "rb") as handle:
            return handle.read()
    except FileNotFoundError:
        return b""


def _final_headers(head):
    """The header fields of the last response head in curl's -D file (after any 1xx or the
    proxy's CONNECT answer)."""
    blocks = [block for block in head.replace("\r\n", "\n").split("\n\n") if block.strip()]
    if not blocks:
        return []
    return [tuple(part.strip() for part in line.split(":", 1)) for line in blocks[-1].split("\n")[1:] if ":" in line]


# -- httpx -------------------------------------------------------------------------------------


def httpx_h2_client(proxy=None, cacert=None, prior_knowledge=False, timeout=15, **options):
    """httpx.Client(http2=True): h2 over TLS when the server's ALPN picks it (HTTP/1.1 otherwise);
    with `prior_knowledge` also http1=False, so http:// URLs are h2c with prior knowledge and TLS
    offers only h2. `cacert` is the only CA trusted; the machine's proxy settings are ignored.
    The caller closes the client (use it as a context manager)."""
    options.setdefault("verify", ssl.create_default_context(cafile=cacert) if cacert else True)
    return httpx.Client(http2=True, http1=not prior_knowledge, proxy=proxy, trust_env=False, timeout=timeout,
                        **options)


@dataclass
class HttpxResult:
    status: int | None = None
    http_version: str | None = None  # "HTTP/2" or "HTTP/1.1"
    body: bytes = b""
    headers: list = field(default_factory=list)
    error: Exception | None = None
    stream_reset: dict | None = None  # {"stream", "error_code", "error"} from a StreamReset
    goaway: dict | None = None  # {"last_stream_id", "error_code", "error"} from a ConnectionTerminated

    @property
    def ok(self):
        return self.error is None

    def describe(self):
        if self.error is not None:
            return f"httpx raised {type(self.error).__name__}: {self.error}"
        return f"httpx {self.http_version} {self.status}, {len(self.body)} body bytes"


_STREAM_RESET = re.compile(r"<StreamReset stream_id:(\d+), error_code:(?:ErrorCodes\.)?([A-Z_0-9]+)")
_TERMINATED = re.compile(r"<ConnectionTerminated error_code:(?:ErrorCodes\.)?([A-Z_0-9]+), last_stream_id:(\d+)")


def _code(text):
    if text.isdigit():
        return int(text), ERROR_CODES.get(int(text), f"0x{int(text):x}")
    code = next((number for number, name in ERROR_CODES.items() if name == text), None)
    return code, text


def httpx_h2_get(client, url, **request):
    """`client.request(method, url)` (method from `request`, GET by default) caught into an
    HttpxResult: httpx turns a peer's RST_STREAM and GOAWAY into RemoteProtocolError whose text is
    h2's event, parsed here into `stream_reset` and `goaway`."""
    method = request.pop("method", "GET")
    try:
        response = client.request(method, url, **request)
    except httpx.HTTPError as error:
        result = HttpxResult(error=error)
        text = str(error)
        reset = _STREAM_RESET.search(text)
        if reset:
            code, name = _code(reset[2])
            result.stream_reset = {"stream": int(reset[1]), "error_code": code, "error": name}
        terminated = _TERMINATED.search(text)
        if terminated:
            code, name = _code(terminated[1])
            result.goaway = {"last_stream_id": int(terminated[2]), "error_code": code, "error": name}
        return result
    return HttpxResult(response.status_code, response.http_version, response.content,
                       list(response.headers.items()))


# -- a raw multiplexing client (Python's h2) -----------------------------------------------------


@dataclass
class StreamOutcome:
    """What one stream of `h2_exchange` got: response headers and trailers as sent, the body,
    and the RST_STREAM code if the peer reset it."""

    stream: int
    headers: list = field(default_factory=list)  # [(name, value)] of the response head
    trailers: list = field(default_factory=list)
    body: bytes = b""
    reset: int | None = None  # RST_STREAM error code
    ended: bool = False  # END_STREAM received

    @property
    def status(self):
        return next((int(value) for name, value in self.headers if name == ":status"), None)

    @property
    def reset_name(self):
        return None if self.reset is None else ERROR_CODES.get(self.reset, f"0x{self.reset:x}")


@dataclass
class ExchangeResult:
    streams: list  # StreamOutcome per request, in request order
    goaway: dict | None = None  # {"last_stream_id", "error_code", "error"} of a GOAWAY received
    closed: bool = False  # the peer closed the connection


def h2_exchange(port, requests, host="127.0.0.1", timeout=20, then=()):
    """Opens one h2c connection (prior knowledge) to `host:port` and sends every request at
    once, each on its own stream: `requests` are (method, path, headers[, body]) with `headers`
    a list of (name, value); the `then` requests go together once the first ones are done.
    Reads until every stream ended or was reset, the connection closed, or `timeout` (then
    raises). For orderings clients such as httpx cannot show: several streams of one
    connection, some reset by the peer and others not.

    python-h2 takes a GOAWAY as the end of the connection and rejects the frames of streams the
    GOAWAY keeps, so a test of those waits for them (`then`) or uses nghttp."""
    connection = h2.connection.H2Connection(h2.config.H2Configuration(client_side=True, header_encoding="utf-8"))
    connection.local_settings.update({h2.settings.SettingCodes.INITIAL_WINDOW_SIZE: 1 << 24})
    deadline = time.monotonic() + timeout
    outcomes, by_stream = [], {}
    result = ExchangeResult(outcomes)
    with socket.create_connection((host, port), timeout=timeout) as sock:
        connection.initiate_connection()
        connection.increment_flow_control_window(1 << 24)
        for wave in (requests, then):
            if wave:
                _send_wave(connection, sock, wave, host, port, outcomes, by_stream)
                _read_until_done(connection, sock, outcomes, by_stream, result, deadline, timeout)
    return result


def _send_wave(connection, sock, requests, host, port, outcomes, by_stream):
    for request in requests:
        method, path, headers, body = (*request, b"")[:4]
        stream = connection.get_next_available_stream_id()
        pseudo = [(":method", method), (":scheme", "http"), (":authority", f"{host}:{port}"), (":path", path)]
        connection.send_headers(stream, pseudo + list(headers), end_stream=not body)
        if body:
            connection.send_data(stream, body, end_stream=True)
        outcome = StreamOutcome(stream)
        outcomes.append(outcome)
        by_stream[stream] = outcome
    sock.sendall(connection.data_to_send())


def _read_until_done(connection, sock, outcomes, by_stream, result, deadline, timeout):
    while not result.closed and not all(outcome.ended or outcome.reset is not None for outcome in outcomes):
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise AssertionError(f"h2_exchange: streams still open after {timeout}s: {outcomes}")
        sock.settimeout(remaining)
        data = sock.recv(65536)
        if not data:
            result.closed = True
            break
        for event in connection.receive_data(data):
            outcome = by_stream.get(getattr(event, "stream_id", None))
            if isinstance(event, h2.events.ResponseReceived):
                outcome.headers = list(event.headers)
            elif isinstance(event, h2.events.TrailersReceived):
                outcome.trailers = list(event.headers)
            elif isinstance(event, h2.events.DataReceived):
                outcome.body += event.data
                connection.acknowledge_received_data(event.flow_controlled_length, event.stream_id)
            elif isinstance(event, h2.events.StreamEnded):
                outcome.ended = True
            elif isinstance(event, h2.events.StreamReset):
                outcome.reset = int(event.error_code)
            elif isinstance(event, h2.events.ConnectionTerminated):
                code = int(event.error_code)
                result.goaway = {"last_stream_id": event.last_stream_id, "error_code": code,
                                 "error": ERROR_CODES.get(code, f"0x{code:x}")}
        sock.sendall(connection.data_to_send())


# -- a raw client that reads GOAWAY itself -------------------------------------------------------


class GoAwayAwareH2c:
    """One h2c connection (prior knowledge) that keeps the peer's GOAWAY frames away from
    python-h2 and records them itself: python-h2 takes a GOAWAY as the end of the connection and
    then rejects the frames of the streams the GOAWAY keeps (RFC 9113 §6.8 lets them finish),
    and refuses to open new streams, which a test of a graceful shutdown needs to do. GOAWAY
    touches no HPACK state, so the rest of the byte stream stays python-h2's to parse.

    `request` opens a stream; `read_until(condition, timeout)` reads (each wait bounded by the
    deadline) until `condition()` holds, and raises when the deadline passes first. What each
    stream got is in `streams` (StreamOutcome by id), the GOAWAYs in `goaways`, and `closed`
    says the peer closed the connection."""

    def __init__(self, port, host="127.0.0.1", timeout=20):
        self.host, self.port = host, port
        self.connection = h2.connection.H2Connection(
            h2.config.H2Configuration(client_side=True, header_encoding="utf-8"))
        self.sock = socket.create_connection((host, port), timeout=timeout)
        self.streams = {}
        self.goaways = []
        self.closed = False
        self._buffer = b""
        self.connection.initiate_connection()
        self.sock.sendall(self.connection.data_to_send())

    def request(self, method, path, headers=()):
        """Sends a request without a body on a new stream; returns its id."""
        stream = self.connection.get_next_available_stream_id()
        pseudo = [(":method", method), (":scheme", "http"), (":authority", f"{self.host}:{self.port}"),
                  (":path", path)]
        self.connection.send_headers(stream, pseudo + list(headers), end_stream=True)
        self.streams[stream] = StreamOutcome(stream)
        self.sock.sendall(self.connection.data_to_send())
        return stream

    def read_until(self, condition, timeout=10, what="the condition"):
        deadline = time.monotonic() + timeout
        while not condition():
            if self.closed:
                raise AssertionError(f"the connection closed before {what}: streams {self.streams}, goaways {self.goaways}")
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise AssertionError(f"no {what} within {timeout}s: streams {self.streams}, goaways {self.goaways}")
            self.sock.settimeout(remaining)
            try:
                data = self.sock.recv(65536)
            except socket.timeout:
                continue
            except ConnectionResetError:
                data = b""
            if not data:
                self.closed = True
                continue
            self._receive(data)

    def _receive(self, data):
        self._buffer += data
        passed = b""
        while len(self._buffer) >= 9:
            length = int.from_bytes(self._buffer[0:3], "big")
            if len(self._buffer) < 9 + length:
                break
            frame, self._buffer = self._buffer[:9 + length], self._buffer[9 + length:]
            if frame[3] == 0x7:  # GOAWAY (RFC 9113 §6.8)
                code = int.from_bytes(frame[13:17], "big")
                self.goaways.append({
                    "last_stream_id": int.from_bytes(frame[9:13], "big") & 0x7FFFFFFF, "error_code": code,
                    "error": ERROR_CODES.get(code, f"0x{code:x}"), "debug": frame[17:].decode("utf-8", "replace")})
            else:
                passed += frame
        for event in self.connection.receive_data(passed) if passed else []:
            outcome = self.streams.get(getattr(event, "stream_id", None))
            if isinstance(event, h2.events.ResponseReceived):
                outcome.headers = list(event.headers)
            elif isinstance(event, h2.events.DataReceived):
                outcome.body += event.data
                self.connection.acknowledge_received_data(event.flow_controlled_length, event.stream_id)
            elif isinstance(event, h2.events.StreamEnded):
                outcome.ended = True
            elif isinstance(event, h2.events.StreamReset):
                outcome.reset = int(event.error_code)
        pending = self.connection.data_to_send()
        if pending:
            try:
                self.sock.sendall(pending)
            except OSError:
                pass  # the peer is closing; what it sent is read all the same

    def close(self):
        self.sock.close()

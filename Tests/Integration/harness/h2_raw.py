"""A raw HTTP/2 client, frame by frame over a socket (h2c with prior knowledge, or TLS with ALPN
h2 when given an SSLContext), for what no well-behaved client sends: more streams than the peer
allows, oversize header lists, endless CONTINUATION frames, thousands of streams reset at once,
frames of the wrong length, invalid SETTINGS, a stream whose window is never opened.

Frames are built by hand (RFC 9113 §4.1: 24-bit length, type, flags, 31-bit stream id), so
malformed ones are as easy as good ones; header blocks are HPACK-encoded with `hpack` (h2's own
HPACK package, installed with h2 from requirements.txt; one encoder per connection, so blocks
must be sent in the order they were made). What the peer sends
is parsed into `Received` as it is read: SETTINGS (ACKed automatically unless told not to),
response heads (decoded: the HPACK state stays in step), DATA per stream (with WINDOW_UPDATEs as
`credit` says), RST_STREAM codes, the GOAWAY, and whether the peer closed the connection.

Every read has a deadline; a missed one raises an AssertionError that says what was received."""
import errno
import select
import socket
import struct
import time
from dataclasses import dataclass, field

import hpack

from .h2 import ERROR_CODES

PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"

# Frame types (RFC 9113 §6) and flags.
DATA, HEADERS, PRIORITY, RST_STREAM, SETTINGS, PUSH_PROMISE, PING, GOAWAY, WINDOW_UPDATE, CONTINUATION = range(10)
END_STREAM, ACK, END_HEADERS, PADDED, PRIORITY_FLAG = 0x1, 0x1, 0x4, 0x8, 0x20
TYPE_NAMES = ["DATA", "HEADERS", "PRIORITY", "RST_STREAM", "SETTINGS", "PUSH_PROMISE", "PING", "GOAWAY",
              "WINDOW_UPDATE", "CONTINUATION"]

# SETTINGS parameters (RFC 9113 §6.5.2).
HEADER_TABLE_SIZE, ENABLE_PUSH, MAX_CONCURRENT_STREAMS, INITIAL_WINDOW_SIZE, MAX_FRAME_SIZE, \
    MAX_HEADER_LIST_SIZE = range(1, 7)

CODES = {name: code for code, name in ERROR_CODES.items()}


def frame(kind, flags, stream, payload=b"", length=None):
    """One frame; `length` overrides the header's length field (for malformed frames)."""
    size = len(payload) if length is None else length
    return struct.pack(">I", size)[1:] + bytes([kind, flags]) + struct.pack(">I", stream & 0x7FFFFFFF) + payload


def settings(pairs=(), stream=0):
    return frame(SETTINGS, 0, stream, b"".join(struct.pack(">HI", key, value) for key, value in pairs))


def settings_ack():
    return frame(SETTINGS, ACK, 0)


def headers(stream, block, end_stream=True, end_headers=True):
    return frame(HEADERS, (END_STREAM if end_stream else 0) | (END_HEADERS if end_headers else 0), stream, block)


def continuation(stream, block, end_headers=False):
    return frame(CONTINUATION, END_HEADERS if end_headers else 0, stream, block)


def data(stream, payload, end_stream=False):
    return frame(DATA, END_STREAM if end_stream else 0, stream, payload)


def rst_stream(stream, code):
    return frame(RST_STREAM, 0, stream, struct.pack(">I", code))


def window_update(stream, increment):
    return frame(WINDOW_UPDATE, 0, stream, struct.pack(">I", increment))


def ping(opaque=b"\0" * 8):
    return frame(PING, 0, 0, opaque)


@dataclass
class Goaway:
    last_stream_id: int
    code: int
    debug: bytes

    @property
    def error(self):
        return ERROR_CODES.get(self.code, f"0x{self.code:x}")


@dataclass
class Received:
    """What the peer sent so far."""

    settings: list = field(default_factory=list)  # [[(id, value)]] of each non-ACK SETTINGS
    settings_acks: int = 0
    heads: dict = field(default_factory=dict)  # stream -> [(name, value)] of the response head
    data: dict = field(default_factory=dict)  # stream -> bytearray of DATA payload (padding included)
    ended: list = field(default_factory=list)  # streams that got END_STREAM, in the order they did
    resets: dict = field(default_factory=dict)  # stream -> RST_STREAM code
    goaway: Goaway | None = None
    closed: bool = False  # reading found the end: the peer closed (EOF or reset)
    refused_send: bool = False  # a write failed: the peer had closed (what it sent may still be read)
    frames: list = field(default_factory=list)  # (type, flags, stream, length) of every frame

    def status(self, stream):
        return next((int(value) for name, value in self.heads.get(stream, []) if name == ":status"), None)

    def describe(self):
        kinds = {}
        for kind, _, _, _ in self.frames:
            name = TYPE_NAMES[kind] if kind < len(TYPE_NAMES) else hex(kind)
            kinds[name] = kinds.get(name, 0) + 1
        return (f"frames {kinds}, heads {sorted(self.heads)}, ended {len(self.ended)}, "
                f"resets {dict(sorted(self.resets.items())[:12])}{'...' if len(self.resets) > 12 else ''}, "
                f"goaway {self.goaway}, closed {self.closed}, refused_send {self.refused_send}")


class RawH2:
    """One client connection. `credit`: "all" sends WINDOW_UPDATE for every DATA byte on the
    stream and the connection; "connection" only on the connection (stream windows stay as
    they are); "none" sends none. `starved` streams never get stream-level credit whatever
    `credit` says. Use as a context manager."""

    def __init__(self, port, host="127.0.0.1", tls_context=None, server_hostname="localhost", timeout=10,
                 credit="all", auto_ack=True):
        self.host, self.port = host, port
        sock = socket.create_connection((host, port), timeout=timeout)
        if tls_context is not None:
            sock = tls_context.wrap_socket(sock, server_hostname=server_hostname)
        self.sock = sock
        self.encoder = hpack.Encoder()
        self.decoder = hpack.Decoder()
        self.decoder.max_allowed_table_size = 1 << 16
        self.received = Received()
        self.credit = credit
        self.starved = set()
        self.auto_ack = auto_ack
        self.sent_bytes = 0
        self._buffer = b""
        self._block = None  # (stream, bytes) of a header block awaiting CONTINUATION

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def close(self):
        try:
            self.sock.close()
        except OSError:
            pass

    # -- sending -------------------------------------------------------------------------------

    def block(self, pairs, indexed=True):
        """An HPACK header block for `pairs` (literal, not indexed, when `indexed` is False)."""
        if indexed:
            return self.encoder.encode(pairs)
        return self.encoder.encode([hpack.NeverIndexedHeaderTuple(name, value) for name, value in pairs])

    def request_block(self, path, method="GET", extra=()):
        pairs = [(":method", method), (":scheme", "http"), (":authority", f"{self.host}:{self.port}"), (":path", path)]
        return self.block(pairs + list(extra))

    def request(self, stream, path, method="GET", extra=(), end_stream=True):
        """The HEADERS frame of a request (not sent)."""
        return headers(stream, self.request_block(path, method, extra), end_stream=end_stream)

    def send(self, *frames):
        """Writes the frames; False if the peer has already closed the connection (nothing is
        written after that: what the peer sent before closing stays readable)."""
        if self.received.refused_send:
            return False
        payload = b"".join(frames)
        try:
            self.sock.sendall(payload)
        except (BrokenPipeError, ConnectionResetError):
            self.received.refused_send = True
            return False
        self.sent_bytes += len(payload)
        return True

    def start(self, pairs=()):
        """The connection preface: the magic and our SETTINGS (RFC 9113 §3.4)."""
        return self.send(PREFACE + settings(pairs))

    def handshake(self, pairs=(), timeout=10):
        """The preface, then waits for the peer's SETTINGS (ACKed at once, before anything else
        is sent: an ACK inside a header block would be a protocol error of its own, §4.3), its
        ACK of ours, and the WINDOW_UPDATE that opens its connection window if it sends one with
        its SETTINGS (as Faultline does)."""
        self.start(pairs)
        self.read_until(lambda r: r.settings and r.settings_acks, timeout, "SETTINGS and the ACK of ours")
        self.poll()
        return self.received

    def body(self, stream, payload, end_stream=True, size=16384):
        """DATA frames of at most `size` bytes (the default SETTINGS_MAX_FRAME_SIZE) carrying
        `payload`, the last with END_STREAM."""
        pieces = [payload[i:i + size] for i in range(0, len(payload), size)] or [b""]
        return b"".join(data(stream, piece, end_stream and index == len(pieces) - 1)
                        for index, piece in enumerate(pieces))

    # -- receiving -----------------------------------------------------------------------------

    def poll(self):
        """Reads what has arrived without waiting; returns the received state."""
        while not self.received.closed and select.select([self.sock], [], [], 0)[0]:
            if not self._read_once():
                break
        return self.received

    def read_until(self, predicate, timeout, what="the expected frames"):
        """Reads until `predicate(received)` holds (returns the received state) or the peer
        closed (then returns too: the caller asserts), failing after `timeout` seconds."""
        deadline = time.monotonic() + timeout
        while not predicate(self.received):
            if self.received.closed:
                return self.received
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise AssertionError(f"no {what} within {timeout}s: {self.received.describe()}")
            ready = select.select([self.sock], [], [], remaining)[0]
            if ready:
                self._read_once()
        return self.received

    def observe(self, seconds):
        """Reads whatever arrives during `seconds`: an observation window for showing that
        something does *not* happen (a stalled stream moving), never for ordering events."""
        end = time.monotonic() + seconds
        while not self.received.closed and (remaining := end - time.monotonic()) > 0:
            if select.select([self.sock], [], [], remaining)[0]:
                self._read_once()
        return self.received

    def read_until_closed(self, timeout):
        return self.read_until(lambda received: received.closed, timeout, "close")

    def _read_once(self):
        try:
            chunk = self.sock.recv(1 << 16)
        except (ConnectionResetError, BrokenPipeError):
            chunk = b""
        except OSError as error:
            if error.errno in (errno.EAGAIN, errno.EWOULDBLOCK):
                return True
            raise
        if not chunk:
            self.received.closed = True
            return False
        self._buffer += chunk
        answers = []
        while len(self._buffer) >= 9:
            length = int.from_bytes(self._buffer[:3], "big")
            if len(self._buffer) < 9 + length:
                break
            kind, flags = self._buffer[3], self._buffer[4]
            stream = int.from_bytes(self._buffer[5:9], "big") & 0x7FFFFFFF
            payload = self._buffer[9:9 + length]
            self._buffer = self._buffer[9 + length:]
            answers += self._handle(kind, flags, stream, payload)
        if answers:
            self.send(*answers)
        return True

    def _handle(self, kind, flags, stream, payload):
        received = self.received
        received.frames.append((kind, flags, stream, len(payload)))
        if kind == SETTINGS:
            if flags & ACK:
                received.settings_acks += 1
                return []
            received.settings.append([struct.unpack(">HI", payload[i:i + 6]) for i in range(0, len(payload), 6)])
            return [settings_ack()] if self.auto_ack else []
        if kind in (HEADERS, CONTINUATION):
            if kind == HEADERS:
                block = payload
                if flags & PADDED:
                    block = block[1:len(block) - block[0]]
                if flags & PRIORITY_FLAG:
                    block = block[5:]
                self._block = (stream, block)
            else:
                self._block = (stream, self._block[1] + payload)
            if flags & END_HEADERS:
                fields = self.decoder.decode(self._block[1])
                if stream not in received.heads:
                    received.heads[stream] = [(name, value) for name, value in fields]
                self._block = None
            if kind == HEADERS and flags & END_STREAM:
                received.ended.append(stream)
            return []
        if kind == DATA:
            received.data.setdefault(stream, bytearray()).extend(payload)
            if flags & END_STREAM:
                received.ended.append(stream)
            answers = []
            if payload and self.credit in ("all", "connection"):
                answers.append(window_update(0, len(payload)))
            if payload and self.credit == "all" and stream not in self.starved and not flags & END_STREAM:
                answers.append(window_update(stream, len(payload)))
            return answers
        if kind == RST_STREAM:
            received.resets[stream] = struct.unpack(">I", payload[:4])[0]
        elif kind == GOAWAY:
            last, code = struct.unpack(">II", payload[:8])
            received.goaway = Goaway(last & 0x7FFFFFFF, code, bytes(payload[8:]))
        elif kind == PING and not flags & ACK:
            return [frame(PING, ACK, 0, payload)]
        return []

    def advertised(self, parameter):
        """The value of SETTINGS `parameter` in the peer's first SETTINGS, or None."""
        for pairs in self.received.settings[:1]:
            for key, value in pairs:
                if key == parameter:
                    return value
        return None

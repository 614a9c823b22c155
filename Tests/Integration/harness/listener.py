"""A listening socket that stands in for a real host and counts who connects to it: the proof
that a replay reaches no network."""
import socket
import threading


class CountingListener:
    """Listens on 127.0.0.1 (an ephemeral port, or `port`) and accepts and closes every
    connection, counting them. Use as a context manager."""

    def __init__(self, port=0):
        self.socket = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.socket.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.socket.bind(("127.0.0.1", port))
        self.socket.listen(16)
        self.socket.settimeout(0.05)
        self.port = self.socket.getsockname()[1]
        self.connections = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._accept, name="counting-listener", daemon=True)

    def _accept(self):
        while not self._stop.is_set():
            try:
                connection, _ = self.socket.accept()
            except (socket.timeout, OSError):
                continue
            self.connections += 1
            connection.close()

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join(5)
        self.socket.close()

"""`faultline backend`, the reference auth backend (README.md "The reference backend"), as a
process on an ephemeral loopback port: its address comes from its banner, its counters from
GET /_backend/stats, and it stops on SIGTERM with exit 0."""
import re
import signal
import subprocess
import threading

import httpx

from .clients import clean_env

BANNER = re.compile(r"^faultline \S+: reference backend on (?P<url>http://\S+) ")


class ReferenceBackend:
    def __init__(self, binary):
        self.binary = binary
        self.process = None
        self.url = None
        self._lines = []
        self._changed = threading.Condition()
        self._done = False

    def start(self, timeout=15):
        """Starts `faultline backend --listen 127.0.0.1:0` and waits (with a deadline) for its
        banner; returns self."""
        self.process = subprocess.Popen(
            [self.binary, "backend", "--listen", "127.0.0.1:0"], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE, env=clean_env())
        threading.Thread(target=self._drain, name="backend-stderr", daemon=True).start()
        with self._changed:
            self._changed.wait_for(lambda: self._banner() or self._done, timeout)
            banner = self._banner()
        if banner is None:
            self.stop()
            raise AssertionError(f"faultline backend printed no banner within {timeout}s: {self._lines}")
        self.url = banner["url"]
        return self

    def _banner(self):
        for line in self._lines:
            match = BANNER.match(line)
            if match:
                return match
        return None

    def _drain(self):
        for raw in self.process.stderr:
            with self._changed:
                self._lines.append(raw.decode("utf-8", "replace").rstrip("\n"))
                self._changed.notify_all()
        with self._changed:
            self._done = True
            self._changed.notify_all()

    def stats(self):
        """The backend's counters (GET /_backend/stats)."""
        with httpx.Client(trust_env=False, timeout=10) as client:
            response = client.get(self.url + "/_backend/stats")
        response.raise_for_status()
        return response.json()

    def stop(self, timeout=10):
        """SIGTERM, then the exit status (idempotent; kills it if it does not stop in time)."""
        if self.process is None:
            return None
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
        try:
            return self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(timeout)
            raise AssertionError(f"faultline backend did not stop within {timeout}s of SIGTERM")

"""An nginx origin serving static files from a temporary prefix (`daemon off`, own logs and
temp paths, so nothing outside the prefix is touched)."""
import os
import random
import signal
import string
import subprocess
import urllib.request

from .waiting import accepts_connections, free_port, wait_until

TEMPLATE = os.path.join(os.path.dirname(__file__), "..", "fixtures", "nginx.conf.template")
BIG_FILE_SIZE = 1 << 30  # sparse: costs no disk, nginx reads zeros


def nginx_binary():
    for candidate in ("/usr/sbin/nginx", "/usr/local/sbin/nginx", "/usr/bin/nginx"):
        if os.access(candidate, os.X_OK):
            return candidate
    raise AssertionError("nginx is not installed (Scripts/ensure-dependencies --test installs it)")


class Nginx:
    """Static files: index.html, random-1m.bin (1 MiB random) and big-1g.bin (1 GiB sparse)."""

    def __init__(self, prefix):
        self.prefix = prefix
        self.root = os.path.join(prefix, "html")
        self.process = None
        self.port = None

    def start(self):
        os.makedirs(self.root, exist_ok=True)
        os.chmod(self.prefix, 0o755)  # worker processes may run as another user
        with open(os.path.join(self.root, "index.html"), "w") as handle:
            handle.write("<html><body>faultline integration origin</body></html>\n")
        with open(os.path.join(self.root, "random-1m.bin"), "wb") as handle:
            handle.write(random.Random(1).randbytes(1 << 20))
        with open(os.path.join(self.root, "big-1g.bin"), "wb") as handle:
            handle.truncate(BIG_FILE_SIZE)
        for attempt in range(3):  # free_port can race with another process taking the port
            self.port = free_port()
            self._write_config()
            if self._launch():
                return self
        raise AssertionError(f"nginx did not start; error log:\n{self.error_log()}")

    def _write_config(self):
        with open(TEMPLATE) as handle:
            template = string.Template(handle.read())
        user_line = "user root root;" if os.geteuid() == 0 else ""
        with open(os.path.join(self.prefix, "nginx.conf"), "w") as handle:
            handle.write(template.substitute(user_line=user_line, prefix=self.prefix, port=self.port, root=self.root))

    def _launch(self):
        self.process = subprocess.Popen(
            [nginx_binary(), "-p", self.prefix, "-c", os.path.join(self.prefix, "nginx.conf"),
             "-e", os.path.join(self.prefix, "error.log")],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )
        wait_until(lambda: self.process.poll() is not None or accepts_connections("127.0.0.1", self.port),
                   10, "nginx to listen")
        return self.process.poll() is None

    def stop(self):
        if self.process and self.process.poll() is None:
            self.process.send_signal(signal.SIGQUIT)  # graceful: workers finish, then exit
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(10)

    def path(self, name):
        return os.path.join(self.root, name)

    def read(self, name):
        with open(self.path(name), "rb") as handle:
            return handle.read()

    def status(self):
        """nginx's stub_status: {"active", "accepts", "handled", "requests"}. The query is a
        connection of its own, counted in `accepts`."""
        direct = urllib.request.build_opener(urllib.request.ProxyHandler({}))  # never through a proxy
        with direct.open(f"{self.url}/nginx-status", timeout=10) as response:
            lines = response.read().decode().splitlines()
        accepts, handled, requests = (int(word) for word in lines[2].split())
        return {"active": int(lines[0].split(":")[1]), "accepts": accepts, "handled": handled, "requests": requests}

    def accepted_since(self, before):
        """TCP connections nginx accepted since `before` (a `status()`), not counting the status
        queries themselves."""
        return self.status()["accepts"] - before["accepts"] - 1

    @property
    def url(self):
        return f"http://127.0.0.1:{self.port}"

    def error_log(self):
        try:
            with open(os.path.join(self.prefix, "error.log")) as handle:
                return handle.read()
        except FileNotFoundError:
            return "(no error log)"

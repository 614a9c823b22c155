"""The `faultline` process under test: started with `run`, its banner parsed for the real ports,
stopped with a signal, its exit status and trace checked."""
import json
import os
import re
import resource
import signal
import subprocess
import threading
from dataclasses import dataclass

from .trace import Trace
from .waiting import wait_until

BANNER = re.compile(r"^faultline (?P<version>\S+): (?P<listeners>.+); trace to (?P<trace>.+) \(Ctrl-C stops\)$")
LISTENER = re.compile(
    r"^(?P<mode>forward|reverse) proxy on (?P<host>\S+):(?P<port>\d+)(?P<tls> \(TLS\))?(?: to (?P<upstream>\S+))?$")


@dataclass
class Listener:
    """One listener as the banner announced it."""

    mode: str  # "forward" or "reverse"
    host: str
    port: int
    upstream: str | None = None
    tls: bool = False  # the listener terminates TLS itself (`--tls`; "(TLS)" in the banner)

    @property
    def url(self):
        """`http://host:port` (`https://` on a TLS listener), for proxy settings (forward) or a
        base URL (reverse)."""
        return f"{'https' if self.tls else 'http'}://{self.host}:{self.port}"


class Faultline:
    """A running `faultline run` process. Use `start_faultline` (conftest) to get one."""

    def __init__(self, binary, args, trace_path, workdir, file_limit=None, command=("run",)):
        self.binary = binary
        self.command = list(command)  # `run`, or `replay serve CAPTURE`: both print the same banner
        self.args = list(args)
        self.trace_path = trace_path
        self.workdir = workdir
        self.file_limit = file_limit  # RLIMIT_NOFILE for the process, to test descriptor exhaustion
        self.process = None
        self.listeners = []
        self.version = None
        self.returncode = None
        self._stderr_lines = []
        self._stderr_changed = threading.Condition()
        self._stderr_done = False
        self.stdout_path = os.path.join(workdir, f"{os.path.basename(trace_path)}.stdout")

    # -- lifecycle -------------------------------------------------------------------------

    def start(self, timeout=15):
        """Starts the process and waits (with a deadline) for its banner; returns self."""
        command = [self.binary, *self.command, *self.args]
        if "--trace" not in self.args:
            command += ["--trace", self.trace_path]
        self._stdout = open(self.stdout_path, "wb")
        self.process = subprocess.Popen(
            command, stdin=subprocess.DEVNULL, stdout=self._stdout, stderr=subprocess.PIPE, cwd=self.workdir,
            preexec_fn=None if self.file_limit is None else self._apply_file_limit,
        )
        threading.Thread(target=self._drain_stderr, name="faultline-stderr", daemon=True).start()
        banner = self._wait_for_banner(timeout)
        match = BANNER.match(banner)
        assert match, f"banner does not match the contract: {banner!r}"
        self.version = match["version"]
        for part in match["listeners"].split(", "):
            listener = LISTENER.match(part)
            assert listener, f"listener in banner not understood: {part!r} (banner {banner!r})"
            self.listeners.append(
                Listener(listener["mode"], listener["host"], int(listener["port"]), listener["upstream"],
                         tls=listener["tls"] is not None)
            )
        return self

    def _apply_file_limit(self):
        """Runs in the child between fork and exec."""
        resource.setrlimit(resource.RLIMIT_NOFILE, (self.file_limit, self.file_limit))

    def _drain_stderr(self):
        for raw in self.process.stderr:
            with self._stderr_changed:
                self._stderr_lines.append(raw.decode("utf-8", "replace").rstrip("\n"))
                self._stderr_changed.notify_all()
        with self._stderr_changed:
            self._stderr_done = True
            self._stderr_changed.notify_all()

    def _wait_for_banner(self, timeout):
        def banner_or_exit():
            return any(line.startswith("faultline ") for line in self._stderr_lines) or self._stderr_done

        with self._stderr_changed:
            arrived = self._stderr_changed.wait_for(banner_or_exit, timeout)
            lines = list(self._stderr_lines)
        banners = [line for line in lines if line.startswith("faultline ")]
        if not arrived or not banners:
            self.kill()
            raise AssertionError(
                f"faultline printed no banner within {timeout}s (exit {self.process.poll()}); "
                f"command {[self.binary, *self.command, *self.args]}; stderr: {lines}"
            )
        return banners[0]

    def exited(self, timeout=15):
        """Waits (with a deadline) for the process to end by itself after a signal the test sent,
        without signalling again (a second SIGTERM cuts a drain short); returns the exit status."""
        if self.returncode is None:
            try:
                self.returncode = self.process.wait(timeout)
            except subprocess.TimeoutExpired:
                self.kill()
                raise AssertionError(f"faultline did not exit within {timeout}s") from None
            self._finish_streams()
        return self.returncode

    def stop(self, sig=signal.SIGTERM, timeout=15):
        """Sends `sig` and waits for the exit; returns the exit status (idempotent)."""
        if self.returncode is not None:
            return self.returncode
        if self.process.poll() is None:
            self.process.send_signal(sig)
        try:
            self.returncode = self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            self.kill()
            raise AssertionError(f"faultline did not exit within {timeout}s of {signal.Signals(sig).name}")
        self._finish_streams()
        return self.returncode

    def kill(self):
        """Last resort when the process does not cooperate."""
        if self.process and self.process.poll() is None:
            self.process.kill()
            self.process.wait(10)
        self._finish_streams()

    def _finish_streams(self):
        with self._stderr_changed:
            self._stderr_changed.wait_for(lambda: self._stderr_done, 5)
        self._stdout.close()

    # -- what it produced ------------------------------------------------------------------

    @property
    def pid(self):
        return self.process.pid

    @property
    def stderr(self):
        """Everything printed to stderr so far, as one string."""
        with self._stderr_changed:
            return "\n".join(self._stderr_lines)

    @property
    def stdout(self):
        with open(self.stdout_path, "rb") as handle:
            return handle.read().decode("utf-8", "replace")

    def trace(self):
        """Stops the process if it runs (SIGTERM, exit 0 expected) and returns its parsed trace."""
        if self.returncode is None:
            code = self.stop()
            assert code == 0, f"faultline exited {code} on SIGTERM; stderr: {self.stderr}"
        return Trace.load(self.trace_file)

    @property
    def trace_file(self):
        """Where the trace is: the --trace file (the test's own, or the one the fixture chose), or
        the captured stdout for `--trace -`."""
        argument = self._trace_argument()
        return self.stdout_path if argument == "-" else os.path.join(self.workdir, argument)

    def _trace_argument(self):
        if "--trace" in self.args:
            return self.args[self.args.index("--trace") + 1]
        return self.trace_path

    def events_so_far(self):
        """The events written so far (complete lines only), while the process runs."""
        try:
            with open(self.trace_file, "rb") as handle:
                text = handle.read().decode("utf-8", "replace")
        except FileNotFoundError:
            return []
        lines = text.split("\n")[1:-1]  # skip the header; the last piece may be a partial line
        return [json.loads(line) for line in lines if line]

    def wait_for_event(self, kind, timeout=10, where=None, **match):
        """Polls the live trace until an event of `kind` with the `match` fields (and for which
        `where(event)` holds, if given) appears; returns it. For events that follow something the
        test cannot observe otherwise (a peer closing); the trace reaches the file every 100 ms."""
        def found():
            for event in self.events_so_far():
                if event.get("event") == kind and all(event.get(k) == v for k, v in match.items()):
                    if where is None or where(event):
                        return event
            return None

        return wait_until(found, timeout, f"{kind} {match} in the live trace")

    def listener(self, mode="forward"):
        """The first listener of `mode`."""
        for listener in self.listeners:
            if listener.mode == mode:
                return listener
        raise AssertionError(f"no {mode} listener in {self.listeners}")

    @property
    def forward(self):
        return self.listener("forward")

    @property
    def reverse(self):
        return self.listener("reverse")

    def peak_rss_bytes(self):
        """VmHWM (peak resident set size) from /proc, in bytes."""
        return _proc_status_kib(self.pid, "VmHWM") * 1024

    def rss_bytes(self):
        return _proc_status_kib(self.pid, "VmRSS") * 1024


def _proc_status_kib(pid, field):
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    raise AssertionError(f"{field} not in /proc/{pid}/status")

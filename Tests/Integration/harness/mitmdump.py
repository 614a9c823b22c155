"""mitmproxy's `mitmdump` as a reference HAR recorder: a forward proxy on an ephemeral loopback
port that writes every flow it saw to a HAR file when it stops. The executable is the one pinned
in requirements.txt, from the virtual environment running the tests.

    with Mitmdump(str(tmp_path)) as recorder:
        httpx_client(recorder.url).get(...)
    har = recorder.har  # parsed after mitmdump exited

Its configuration folder (the CA it generates on first start) is private to the test
(`--set confdir=`), so nothing under ~/.mitmproxy is read or written."""
import json
import os
import re
import signal
import subprocess
import sys
import threading

from .clients import clean_env

# mitmdump takes --listen-port 0 and prints the port it was given:
#   [03:49:17.184] HTTP(S) proxy listening at 127.0.0.1:36819.
LISTENING = re.compile(r"proxy listening at (?P<host>[0-9.]+):(?P<port>[0-9]+)")


def executable():
    """mitmdump next to the running interpreter (sys.executable unresolved: in a venv it is a
    symlink, and the venv's bin folder is where pip put mitmdump)."""
    path = os.path.join(os.path.dirname(sys.executable), "mitmdump")
    if not os.access(path, os.X_OK):
        raise AssertionError(
            f"{path} is not an executable: install Tests/Integration/requirements.txt into the venv running pytest")
    return path


class Mitmdump:
    """A running `mitmdump` writing a HAR on exit. `args` are added to its command line (for
    example `--set`, `save_stream_filter=~u /echo`). A context manager: entering starts it,
    leaving stops it and parses its HAR into `har`."""

    def __init__(self, workdir, *args):
        self.workdir = workdir
        self.args = list(args)
        self.har_path = os.path.join(workdir, "mitmdump.har")
        self.confdir = os.path.join(workdir, "mitmproxy-confdir")
        self.process = None
        self.host = None
        self.port = None
        self.returncode = None
        self.har = None
        self._lines = []
        self._changed = threading.Condition()
        self._output_done = False

    # -- lifecycle -------------------------------------------------------------------------

    def start(self, timeout=30):
        """Starts mitmdump and waits (with a deadline) until it says where it listens; returns self."""
        command = [executable(), "--listen-host", "127.0.0.1", "--listen-port", "0",
                   "--set", f"confdir={self.confdir}", "--set", f"hardump={self.har_path}", *self.args]
        self.process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                        stderr=subprocess.STDOUT, cwd=self.workdir, env=clean_env())
        threading.Thread(target=self._drain, name="mitmdump-output", daemon=True).start()

        def listening_or_exited():
            return any(LISTENING.search(line) for line in self._lines) or self._output_done

        with self._changed:
            self._changed.wait_for(listening_or_exited, timeout)
            found = [match for match in map(LISTENING.search, self._lines) if match]
        if not found:
            code = self.process.poll()
            if code is None and self._output_done:  # its output ended first: it is exiting now
                try:
                    code = self.process.wait(5)
                except subprocess.TimeoutExpired:
                    pass
            self.kill()
            why = f"exited {code} before listening" if code is not None else f"reported no port within {timeout}s"
            raise AssertionError(f"mitmdump {why}; command {command}; output:\n{self.output}")
        self.host, self.port = found[0]["host"], int(found[0]["port"])
        return self

    def stop(self, sig=signal.SIGINT, timeout=20):
        """Sends `sig` (SIGINT or SIGTERM: both make mitmdump write its HAR, then exit 0), waits
        for the exit with a deadline and returns the parsed HAR (idempotent)."""
        if self.process is None or self.returncode is not None:
            return self.har
        if self.process.poll() is None:
            self.process.send_signal(sig)
        try:
            self.returncode = self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            self.kill()
            raise AssertionError(f"mitmdump did not exit within {timeout}s of {signal.Signals(sig).name}; "
                                 f"output:\n{self.output}")
        self._finish_output()
        assert self.returncode == 0, f"mitmdump exited {self.returncode}; output:\n{self.output}"
        # The HAR is written by the addon's `done` hook, before the process exits: no waiting now.
        assert os.path.exists(self.har_path), f"mitmdump exited without writing {self.har_path}; output:\n{self.output}"
        with open(self.har_path, encoding="utf-8") as handle:
            self.har = json.load(handle)
        return self.har

    def kill(self):
        """Last resort when the process does not cooperate."""
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait(10)
        self._finish_output()

    def __enter__(self):
        return self.start()

    def __exit__(self, kind, value, traceback):
        if kind is None:
            self.stop()
        else:  # the test failed already: stop quietly, keep its error
            try:
                self.stop()
            except AssertionError:
                self.kill()

    # -- what it printed -------------------------------------------------------------------

    @property
    def url(self):
        """`http://127.0.0.1:PORT`, for a client's proxy setting."""
        return f"http://{self.host}:{self.port}"

    @property
    def output(self):
        """Everything mitmdump printed so far (stdout and stderr), as one string."""
        with self._changed:
            return "\n".join(self._lines)

    def _drain(self):
        for raw in self.process.stdout:
            with self._changed:
                self._lines.append(raw.decode("utf-8", "replace").rstrip("\n"))
                self._changed.notify_all()
        with self._changed:
            self._output_done = True
            self._changed.notify_all()

    def _finish_output(self):
        with self._changed:
            self._changed.wait_for(lambda: self._output_done, 5)
        if self.process is not None and self.process.stdout is not None:
            self.process.stdout.close()

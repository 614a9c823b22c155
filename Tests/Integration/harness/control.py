"""The control commands (`faultline holds`, `release NAME`, `fail NAME`; README.md "Driving a
running proxy") run as a user runs them, against one proxy found through its own --control-file
(so two proxies in one test, or a user's own proxy, never answer for each other)."""
import json
import os

from .clients import run
from .waiting import wait_until


class Control:
    """`faultline <command> --control-file FILE ...` for the proxy that wrote FILE."""

    def __init__(self, binary, control_file):
        self.binary = binary
        self.control_file = control_file

    def command(self, *args, timeout=15):
        """Runs one control command; returns the CompletedProcess (exit status not checked)."""
        return run([self.binary, *args, "--control-file", self.control_file], timeout=timeout)

    def wait_ready(self, timeout=10):
        """Waits until the proxy has written its control file."""
        wait_until(lambda: os.path.exists(self.control_file) and os.path.getsize(self.control_file) > 0,
                   timeout, f"the control file {self.control_file}")

    def holds(self):
        """`faultline holds --json`: every held flow, oldest first."""
        done = self.command("holds", "--json")
        assert done.returncode == 0, f"faultline holds exited {done.returncode}: {done.stderr.decode(errors='replace')}"
        return json.loads(done.stdout)

    def holds_named(self, name):
        return [hold for hold in self.holds() if hold["name"] == name]

    def wait_for_holds(self, name, count=1, timeout=10):
        """Polls `faultline holds` until at least `count` flows are held under `name`; returns
        those holds, oldest first."""
        return wait_until(lambda: len(self.holds_named(name)) >= count and self.holds_named(name), timeout,
                          f"{count} hold(s) named {name!r} in `faultline holds`")

    def wait_hold_gone(self, flow, timeout=10):
        """Polls `faultline holds` until no hold is listed for `flow`."""
        wait_until(lambda: not [hold for hold in self.holds() if hold["flow"] == flow], timeout,
                   f"the hold of flow {flow} to leave `faultline holds`")

    def release(self, name, *options):
        """`faultline release NAME --json [options]`; returns the CompletedProcess."""
        return self.command("release", name, "--json", *options)

    def fail(self, name, *options):
        return self.command("fail", name, "--json", *options)


def released_flows(done, key="released"):
    """The flow ids a successful `release --json` (or `fail --json`, key "failed") ended."""
    assert done.returncode == 0, f"exited {done.returncode}: {done.stderr.decode(errors='replace')}"
    return [hold["flow"] for hold in json.loads(done.stdout)[key]]

"""`faultline explore` as the tests run it: a command with a deadline, its JSON report read back,
and the Python clients of Tests/Integration/fixtures/explore as client commands.

The clients run with the interpreter running the tests (it has `requests`); `faultline explore`
gives them http_proxy and FAULTLINE_PROXY itself, so the environment it starts with has no proxy
variable of the machine's (`clean_env`)."""
import json
import os
import subprocess
import sys
from dataclasses import dataclass

import pytest

from .clients import clean_env
from .reference_backend import ReferenceBackend
from .rules import copy_examples

CLIENTS = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "fixtures", "explore"))


# fixtures/explore/late_refresh.py's user signs out when a refresh has not answered within this
# many seconds. In arrival order the refresh answers in about 25 ms (two 10 ms settles), so the
# logout never comes; when the scheduler waits with the refresh's answer pending, the logout
# comes and ends the wait, which may last up to --max-wait: 0.45 s, longer than the patience.
# Both margins (0.2 s) absorb a loaded machine's hiccups.
LATE_REFRESH_PATIENCE = 0.25
LATE_REFRESH_WINDOWS = ("--settle", "10", "--max-wait", "450")


def client(name, *args):
    """The command running fixtures/explore/NAME.py with `args`."""
    return [sys.executable, os.path.join(CLIENTS, f"{name}.py"), *map(str, args)]


@dataclass
class Exploration:
    """How one `faultline explore` ended: its exit status, outputs, and the JSON report (when it
    was asked for one with `report=`)."""

    code: int
    stdout: str
    stderr: str
    report: dict | None

    def run(self, index):
        """The report's run of schedule `index`."""
        found = [run for run in self.report["runs"] if run["index"] == index]
        assert len(found) == 1, f"no single run {index} in the report: {[run['index'] for run in self.report['runs']]}"
        return found[0]

    def finding(self, clause):
        """The report's finding for `clause`; fails the test (with the report's gist) without one."""
        found = [finding for finding in self.report["findings"] if finding["clause"] == clause]
        assert found, f"no schedule broke {clause}: {self.gist()}"
        return found[0]

    def violated(self):
        """Schedule number → the clauses that run broke."""
        return {run["index"]: run["violated"] for run in self.report["runs"]}

    def gist(self):
        """What went wrong, for an assertion message: exit status, stderr's end, every run."""
        runs = "\n".join(
            f"  {run['index']}: {run['schedule']} {run['violated']} {run['diverged']} {run['client']}"
            for run in (self.report or {}).get("runs", []))
        return f"exit {self.code}\nstderr: {self.stderr[-2000:]}\nruns:\n{runs}"


def explore(binary, *args, client, report=None, timeout=120, env=None):
    """Runs `faultline explore ARGS -- CLIENT…` to its end (failing the test past `timeout`
    seconds). With `report=PATH` it asks for the JSON report there and reads it back."""
    command = [binary, "explore", *map(str, args)]
    if report is not None:
        command += ["--format", "json", "--output", str(report)]
    command += ["--", *client]
    try:
        done = subprocess.run(
            command, capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL, env=env or clean_env())
    except subprocess.TimeoutExpired as expired:
        raise AssertionError(f"faultline explore did not finish within {timeout}s: {command}\n{expired.stderr}") from expired
    parsed = None
    if report is not None and os.path.exists(report):
        with open(report, encoding="utf-8") as handle:
            parsed = json.load(handle)
    return Exploration(done.returncode, done.stdout, done.stderr, parsed)


def reset_command(backend):
    """`--before-each`'s command that gives `faultline backend` a fresh state."""
    return f"curl -sS --max-time 10 -X POST {backend.url}/_backend/reset"


# -- fixtures (imported by the test_explore_* modules) -------------------------------------


@pytest.fixture(scope="module")
def backend(faultline_binary):
    """One `faultline backend` for a module's explorations (each resets it with --before-each)."""
    server = ReferenceBackend(faultline_binary).start()
    yield server
    assert server.stop() == 0


@pytest.fixture(scope="module")
def race_rules(tmp_path_factory):
    """A rules folder with the auth profile and force-401-first-business.json5: every login's
    first three business calls get 401, which starts the refreshes the clients race."""
    return copy_examples(str(tmp_path_factory.mktemp("explore-rules")), "force-401-first-business.json5")

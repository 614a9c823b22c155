"""`faultline explore` when the client or the user misbehaves (issue 21, "Faults and bad input"):

- a client that hangs is killed, with what it started, at --client-timeout and reported;
- a client that exits non-zero is reported, and fails the exploration only with
  --fail-on-client-error (the JUnit report's `exploration` case says so); it ran with the proxy
  variables pointing at the proxy;
- a step held past --step-timeout goes, and the run says diverged (a replayed wait longer than
  the step timeout: deterministic);
- SIGINT (Ctrl-C) once the first schedule's progress line is out stops after the current
  schedule and still writes a whole report, which `explore merge` reads back;
- a --schedule string that does not read is refused (exit 2) naming the column, and nothing runs;
- an exploration that cannot run (--before-each fails, the client cannot be started) exits 2
  saying why, and its JUnit report skips every clause instead of passing it."""
import json
import os
import queue
import shlex
import signal
import subprocess
import threading
import time
import xml.etree.ElementTree as ElementTree

import pytest

from harness.clients import clean_env
from harness.explore import backend, client, explore, race_rules, reset_command  # noqa: F401
from harness.waiting import wait_until

pytestmark = pytest.mark.timeout(90)

FAST = ("--settle", "10", "--max-wait", "100")


def shell(script):
    return ["/bin/sh", "-c", script]


def dead(pid):
    """Gone, or a zombie waiting for init to reap it (it was killed and runs no more)."""
    try:
        with open(f"/proc/{pid}/stat", encoding="utf-8") as handle:
            return handle.read().rsplit(")", 1)[1].split()[0] == "Z"
    except FileNotFoundError:
        return True


def test_a_client_that_hangs_is_killed_at_its_timeout_and_reported(faultline_binary, backend, tmp_path):
    pids = tmp_path / "pids"
    # The shell starts a sleep that would outlive it if only the shell were killed.
    hang = shell(f"curl -sS -o /dev/null {backend.url}/v1/me; sleep 60 & echo $! >> {pids}; echo waiting for ever; wait")
    started = time.monotonic()
    result = explore(
        faultline_binary, *FAST, "--schedules", "1", "--client-timeout", "1", "--fail-on-client-error", client=hang,
        report=tmp_path / "report.json", timeout=60)
    assert time.monotonic() - started < 30
    assert result.code == 1, result.gist()
    run = result.run(0)
    assert run["client"]["timedOut"] is True and "exitStatus" not in run["client"], run
    assert run["client"]["problem"].startswith("was killed at its timeout"), run
    assert result.report["findings"] == []
    # The baseline's client and the schedule's were killed with everything they started.
    sleepers = [int(line) for line in pids.read_text().split()]
    assert len(sleepers) == 2, sleepers
    wait_until(lambda: all(dead(pid) for pid in sleepers), 10, "the clients' sleeps to be killed")
    text = subprocess.run([faultline_binary, "explore", "merge", str(tmp_path / "report.json")], capture_output=True,
                          text=True, timeout=30, env=clean_env()).stdout
    assert "FAILED: 1 client failure" in text and "schedule 0: was killed at its timeout" in text, text


def test_a_client_that_exits_non_zero_is_reported_and_fails_only_when_asked(faultline_binary, backend, tmp_path):
    environment = tmp_path / "environment.json"
    dump = " ".join(map(shlex.quote, client("dump_environment", environment)))
    failing = shell(f"curl -sS -o /dev/null {backend.url}/v1/me; {dump}; echo 'gave up: no session'; exit 3")
    result = explore(faultline_binary, *FAST, "--schedules", "2", client=failing, report=tmp_path / "report.json")
    assert result.code == 0, result.gist()
    for run in result.report["runs"]:
        assert run["client"] == {"exitStatus": 3, "timedOut": False, "problem": "exited 3: gave up: no session"}, run
    assert result.report["findings"] == []

    # The client ran through the proxy: every proxy variable names it.
    variables = json.loads(environment.read_text())
    proxy = variables["FAULTLINE_PROXY"]
    assert proxy.startswith("http://127.0.0.1:")
    for name in ("http_proxy", "https_proxy", "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY"):
        assert variables[name] == proxy, name

    strict = subprocess.run(
        [faultline_binary, "explore", *FAST, "--schedules", "2", "--fail-on-client-error", "--format", "junit", "--",
         *failing], capture_output=True, text=True, timeout=60, env=clean_env())
    assert strict.returncode == 1, strict.stderr
    cases = {case.get("name"): case for case in ElementTree.fromstring(strict.stdout).iter("testcase")}
    failure = cases["exploration"].find("failure")
    assert failure is not None and failure.get("message") == "2 client failures", strict.stdout
    assert "schedule 1: exited 3: gave up: no session" in failure.text
    assert all(case.find("failure") is None for name, case in cases.items() if name != "exploration")


def test_a_step_past_its_timeout_goes_and_the_run_says_diverged(faultline_binary, backend, tmp_path):
    # Decision 0 waits (w) for up to 3 s, but the request may stay held for 1 s only.
    result = explore(
        faultline_binary, "--settle", "10", "--schedule", "random:1:w", "--max-wait", "3000", "--step-timeout", "1",
        client=shell(f"curl -sS -o /dev/null -w '%{{http_code}}' {backend.url}/v1/count"),
        report=tmp_path / "report.json")
    assert result.code == 0, result.gist()
    run = result.run(0)
    assert run["diverged"] == ["request GET /v1/count (flow 1) went by its step timeout (1.0 seconds)"], run
    assert run["client"] == {"exitStatus": 0, "timedOut": False}, "the request went on and was answered"
    assert result.report["baseline"]["diverged"] == []


def test_sigint_stops_after_the_current_schedule_and_writes_the_report(faultline_binary, backend, race_rules, tmp_path):
    report = tmp_path / "report.json"
    command = [faultline_binary, "explore", "--rules", race_rules, "--before-each", reset_command(backend), *FAST,
               "--schedules", "10", "--format", "json", "--output", str(report), "--",
               *client("ordered_race", backend.url)]
    process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True, env=clean_env())
    lines = queue.Queue()

    def read_stderr():
        for line in process.stderr:
            lines.put(line)

    threading.Thread(target=read_stderr, daemon=True).start()
    seen = []
    try:
        deadline = time.monotonic() + 60
        while not any("1/10 schedules" in line for line in seen):
            seen.append(lines.get(timeout=max(deadline - time.monotonic(), 0.01)))
        process.send_signal(signal.SIGINT)
        code = process.wait(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(10)
    assert code == 1, "".join(seen)  # the unlocked client breaks single-flight-refresh
    parsed = json.loads(report.read_text())
    assert parsed["interrupted"] is True
    # The schedule running when the signal came finished; none started after it.
    indices = [run["index"] for run in parsed["runs"]]
    assert indices in ([0], [0, 1]), indices
    assert all(finding.get("shrunk") is None for finding in parsed["findings"]), "it shrank after the stop"
    merged = subprocess.run([faultline_binary, "explore", "merge", str(report)], capture_output=True, text=True,
                            timeout=30, env=clean_env())
    assert merged.returncode == 1, merged.stderr
    assert "interrupted: the report covers the runs made before the stop" in merged.stdout


@pytest.mark.parametrize("schedule, column, says", [
    ("pct3:x:0", 6, "the seed must be a whole number, found 'x'"),
    ("random:1:0.a.1", 12, "choice 2 must be a step index (0, 1, …) or w, found 'a'"),
    ("rand:1:0", 1, "unknown strategy 'rand'"),
    ("random:1", 9, "expected ':' after the seed"),
    ("random:1:0..1", 12, "choice 2 must be a step index (0, 1, …) or w, found ''"),
])
def test_a_bad_schedule_is_refused_naming_the_column(faultline_binary, tmp_path, schedule, column, says):
    ran = tmp_path / "ran"
    done = subprocess.run(
        [faultline_binary, "explore", "--schedule", schedule, "--", "/bin/sh", "-c", f"touch {ran}"],
        capture_output=True, text=True, timeout=30, env=clean_env())
    assert done.returncode == 2, done.stderr
    assert f"schedule '{schedule}': column {column}: {says}" in done.stderr, done.stderr
    assert done.stdout == "" and not ran.exists()


def test_an_exploration_that_cannot_run_exits_2_and_says_why(faultline_binary, tmp_path):
    ran = tmp_path / "ran"
    command = [faultline_binary, "explore", *FAST, "--schedules", "2", "--before-each", "echo backend is down >&2; exit 7"]
    text = subprocess.run([*command, "--", "/bin/sh", "-c", f"touch {ran}"], capture_output=True, text=True,
                          timeout=30, env=clean_env())
    assert text.returncode == 2, text.stderr
    assert "NOT RUN: --before-each 'echo backend is down >&2; exit 7' exited 7: backend is down" in text.stdout
    assert not ran.exists(), "the client ran although --before-each failed"

    missing = subprocess.run([faultline_binary, "explore", *FAST, "--format", "junit", "--", str(tmp_path / "no-such-client")],
                             capture_output=True, text=True, timeout=30, env=clean_env())
    assert missing.returncode == 2, missing.stderr
    cases = {case.get("name"): case for case in ElementTree.fromstring(missing.stdout).iter("testcase")}
    failure = cases.pop("exploration").find("failure")
    assert failure is not None and "cannot run" in failure.get("message") and "no-such-client" in failure.get("message")
    # No schedule ran, so no clause passed: each of the ten is skipped, saying why.
    assert len(cases) == 10
    for name, case in cases.items():
        skipped = case.find("skipped")
        assert skipped is not None and skipped.get("message").startswith("the exploration could not run: cannot run"), name

"""`faultline explore` with real clients from another ecosystem (issue 21, "A real client from
another ecosystem"): Python apps written with `requests` and threads, run once per schedule
against `faultline backend`.

- Three calls that refresh on 401 (fixtures/explore/token_race.py): with no lock the run breaks
  single-flight-refresh (already in arrival order: three 401s, three refreshes); with a lock and
  a check that the rejected token is still the current one, 50 PCT schedules pass, every call
  ending 200.
- A user who signs out while a refresh is on its way (fixtures/explore/late_refresh.py): a
  client that adopts the late refresh's tokens is caught as no-reactivation. The scheduler finds
  it by keeping the refresh's answer pending while the logout, sent on the user's timer,
  overtakes it (a wait); the failing schedule shrinks to that one deviation, and the report's
  reproduce command, run as printed, fails the same way. The correct clients (revoking or
  ignoring the late tokens) pass the same schedules, and say they met the late refresh.

The same clients against a capture instead of a backend are in test_explore_replay.py."""
import os
import subprocess

import pytest

from harness.clients import clean_env
from harness.explore import (  # noqa: F401
    LATE_REFRESH_PATIENCE, LATE_REFRESH_WINDOWS, backend, client, explore, race_rules, reset_command)

pytestmark = pytest.mark.timeout(120)

# Fast windows for loopback: a decision after 10 ms of quiet, a wait of 100 ms at most.
FAST = ("--settle", "10", "--max-wait", "100")


def test_requests_threads_without_a_lock_break_single_flight_refresh(faultline_binary, backend, race_rules, tmp_path):
    keep = tmp_path / "kept"
    result = explore(
        faultline_binary, "--rules", race_rules, "--before-each", reset_command(backend), "--schedules", "3",
        *FAST, "--shrink-runs", "4", "--keep", keep, client=client("token_race", backend.url),
        report=tmp_path / "report.json")
    assert result.code == 1, result.gist()
    finding = result.finding("single-flight-refresh")
    # In arrival order (the baseline) the three 401s come together and start overlapping
    # refreshes, so the schedule that breaks it needs no deviation at all.
    assert "single-flight-refresh" in result.report["baseline"]["violated"], result.gist()
    # (Not every schedule: when one refresh answers before the next 401 is handled, the next
    # refresh presents the rotated token, and the run breaks no-stale-refresh instead.)
    assert finding["shrunkDeviations"] == 0 and finding["shrunk"]["schedule"].endswith(":"), finding
    # Each failing run's trace and its HTML timeline are kept where --keep says.
    first = finding["first"]
    assert first["trace"] == str(keep / f"schedule-{first['index']}.jsonl") and os.path.exists(first["trace"])
    assert first["html"] == str(keep / f"schedule-{first['index']}.html") and os.path.exists(first["html"])


def test_requests_threads_with_a_lock_pass_fifty_pct_schedules(faultline_binary, backend, race_rules, tmp_path):
    result = explore(
        faultline_binary, "--rules", race_rules, "--before-each", reset_command(backend), "--schedules", "50",
        "--strategy", "pct", "--settle", "5", "--max-wait", "100", client=client("token_race", backend.url, "--lock"),
        report=tmp_path / "report.json", timeout=150)
    assert result.code == 0, result.gist()
    report = result.report
    assert report["findings"] == [] and "problem" not in report
    assert len(report["runs"]) == 50
    # Every call of every run ended 200 (the client exits 1 otherwise) and no run diverged.
    assert [run for run in report["runs"] if run["client"] != {"exitStatus": 0, "timedOut": False} or run["diverged"]] == []
    # The schedules did reorder the calls, refreshes and retries: many orders were seen.
    assert len({run["interleaving"] for run in report["runs"]}) >= 10, result.gist()


def explore_late_refresh(binary, backend, rules, variant, tmp_path, *more, note=None, name="report"):
    """Explores fixtures/explore/late_refresh.py in `variant` (adopt, revoke, ignore) against the
    backend; `note` is the file the client marks each late refresh in."""
    return explore(
        binary, "--rules", rules, "--before-each", reset_command(backend), *LATE_REFRESH_WINDOWS, *more,
        client=client("late_refresh", backend.url, variant, LATE_REFRESH_PATIENCE, *([note] if note else [])),
        report=tmp_path / f"{name}.json")


def notes(path):
    return open(path, encoding="utf-8").read().split() if os.path.exists(path) else []


def text_report(binary, report_path):
    """The text report of a JSON report (`explore merge` of that one report)."""
    done = subprocess.run(
        [binary, "explore", "merge", str(report_path)], capture_output=True, text=True, timeout=30, env=clean_env())
    assert done.returncode in (0, 1), done.stderr
    return done.stdout


def test_a_client_adopting_a_late_refresh_after_logout_is_no_reactivation(faultline_binary, backend, race_rules, tmp_path):
    keep = tmp_path / "kept"
    result = explore_late_refresh(
        faultline_binary, backend, race_rules, "adopt", tmp_path, "--strategy", "random", "--seed", "1",
        "--schedules", "12", "--shrink-runs", "8", "--keep", keep)
    assert result.code == 1, result.gist()
    assert result.report["baseline"]["violated"] == [], "in arrival order the refresh answers in time"
    finding = result.finding("no-reactivation")
    assert [finding["clause"] for finding in result.report["findings"]] == ["no-reactivation"], result.gist()
    # The flaw needs one deviation from arrival order: waiting while the refresh's answer is
    # pending, so that the logout overtakes it.
    assert finding["shrunkDeviations"] == 1, finding
    shrunk = finding["shrunk"]["schedule"]
    assert shrunk.split(":")[2].split(".").count("w") == 1, shrunk
    assert "no-reactivation" in finding["shrunk"]["violated"]

    # The text report says what ran and, for the clause, how often, the first and the shrunk
    # schedules with their kept traces, and the command that replays the shrunk one.
    text = text_report(faultline_binary, tmp_path / "report.json")
    interleavings = len({run["interleaving"] for run in result.report["runs"]})
    assert "12 schedules run in " in text and f"{interleavings} distinct interleavings" in text, text
    first = finding["first"]
    assert f"✗ no-reactivation: broken by {finding['schedules']} of 12 schedules" in text, text
    assert f"first:  schedule {first['index']}  {first['schedule']}  trace: {first['trace']}" in text, text
    assert f"shrunk: {shrunk}  (1 deviation from arrival order, " in text, text
    assert os.path.exists(first["trace"]) and os.path.exists(first["html"]) and first["html"].startswith(str(keep))
    # The reproduce line, run as the report prints it, breaks the same clause again.
    reproduce = [line.split("reproduce: ", 1)[1] for line in text.splitlines() if "reproduce: " in line]
    assert len(reproduce) == 1 and f"--schedule '{shrunk}'" in reproduce[0], text
    command = reproduce[0].replace("faultline ", f"{faultline_binary} ", 1) + f" > {tmp_path / 'again.txt'}"
    again = subprocess.run(["/bin/sh", "-c", command], capture_output=True, text=True, timeout=60, env=clean_env())
    replayed = open(tmp_path / "again.txt", encoding="utf-8").read()
    assert again.returncode == 1, f"{command}\n{replayed}\n{again.stderr}"
    assert "FAILED: 1 clause broken: no-reactivation" in replayed, replayed

    # The correct clients meet the same late refresh in that schedule and pass.
    for variant in ("revoke", "ignore"):
        note = tmp_path / f"{variant}.note"
        correct = explore_late_refresh(
            faultline_binary, backend, race_rules, variant, tmp_path, "--schedule", shrunk, note=note, name=variant)
        assert correct.code == 0, correct.gist()
        assert correct.report["runs"][0]["schedule"] == shrunk and correct.report["runs"][0]["diverged"] == []
        assert notes(note) == ["late"], f"the {variant} client did not see the refresh answer after its logout"


def test_clients_revoking_late_tokens_pass_the_schedules_that_catch_the_flaw(faultline_binary, backend, race_rules, tmp_path):
    note = tmp_path / "late.note"
    result = explore_late_refresh(
        faultline_binary, backend, race_rules, "revoke", tmp_path, "--strategy", "random", "--seed", "1",
        "--schedules", "12", note=note)
    assert result.code == 0, result.gist()
    assert result.report["findings"] == [] and all(run["diverged"] == [] for run in result.report["runs"])
    # The same seed gives the same choices as in the test above, where the adopting client broke
    # no-reactivation: here too some schedules delivered the refresh after the logout.
    assert "late" in notes(note), "no schedule delivered the refresh after the logout"

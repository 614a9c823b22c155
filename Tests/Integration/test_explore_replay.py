"""`faultline explore --replay CAPTURE`: the Python clients of test_explore_clients.py explored
against captures of their own sessions instead of a backend (issue 21: "All of them run against
`faultline backend` and against a capture").

Each client's session is recorded once, in arrival order, through `faultline run --capture` with
the auth profile and the forced 401s, in front of a `faultline backend` that is then stopped; a
listener on its port counts who connects. Every schedule then starts from the capture's state
with no reset and no backend: the unlocked requests client breaks single-flight-refresh, the
locked one passes, the client adopting a late refresh after logout is caught as no-reactivation
(and the revoking one passes the shrunk schedule, meeting the late refresh), and nothing reaches
the backend's port."""
import os
import subprocess

import pytest

from harness.clients import clean_env
from harness.explore import LATE_REFRESH_PATIENCE, LATE_REFRESH_WINDOWS, client, explore, race_rules  # noqa: F401
from harness.faultline import Faultline
from harness.listener import CountingListener
from harness.reference_backend import ReferenceBackend

pytestmark = pytest.mark.timeout(120)

FAST = ("--settle", "10", "--max-wait", "100")


@pytest.fixture(scope="module")
def recorded(faultline_binary, race_rules, tmp_path_factory):
    """Captures of the three sessions (token_race without and with the lock, late_refresh) against
    one backend, which is stopped before the tests run; returns the capture paths, the backend's
    URL and port."""
    folder = tmp_path_factory.mktemp("explore-captures")
    backend = ReferenceBackend(faultline_binary).start()
    captures = {}
    try:
        sessions = {
            "unlocked": client("token_race", backend.url),
            "locked": client("token_race", backend.url, "--lock"),
            "late": client("late_refresh", backend.url, "ignore", LATE_REFRESH_PATIENCE),
        }
        for name, command in sessions.items():
            proxy = Faultline(
                faultline_binary, ["--listen", "127.0.0.1:0", "--rules", race_rules, "--capture", "--control", "off"],
                str(folder / f"{name}.jsonl"), str(folder)).start()
            try:
                url = proxy.listeners[0].url
                done = subprocess.run(command, capture_output=True, text=True, timeout=60,
                                      env=clean_env(http_proxy=url, HTTP_PROXY=url))
            finally:
                assert proxy.stop() == 0, proxy.stderr
            assert done.returncode in (0, 1), done.stdout + done.stderr
            captures[name] = proxy.trace_file
    finally:
        assert backend.stop() == 0
    port = int(backend.url.rsplit(":", 1)[1])
    return {"captures": captures, "url": backend.url, "port": port}


@pytest.fixture
def no_backend(recorded):
    """The stopped backend's port, listened on and counted: it must see no connection."""
    with CountingListener(recorded["port"]) as listener:
        yield listener
    assert listener.connections == 0, "the exploration reached the recorded backend's port"


def explore_capture(binary, recorded, rules, capture, command, tmp_path, *more, name="report"):
    return explore(binary, "--replay", recorded["captures"][capture], "--rules", rules, *more,
                   client=command, report=tmp_path / f"{name}.json")


def test_requests_threads_without_a_lock_break_single_flight_refresh_against_a_capture(
        faultline_binary, recorded, race_rules, no_backend, tmp_path):
    result = explore_capture(faultline_binary, recorded, race_rules, "unlocked",
                             client("token_race", recorded["url"]), tmp_path, *FAST, "--schedules", "3",
                             "--shrink-runs", "4")
    assert result.code == 1, result.gist()
    finding = result.finding("single-flight-refresh")
    assert "single-flight-refresh" in result.report["baseline"]["violated"] and finding["shrunkDeviations"] == 0


def test_requests_threads_with_a_lock_pass_against_a_capture(faultline_binary, recorded, race_rules, no_backend, tmp_path):
    result = explore_capture(faultline_binary, recorded, race_rules, "locked",
                             client("token_race", recorded["url"], "--lock"), tmp_path, "--schedules", "20",
                             "--settle", "5", "--max-wait", "100")
    assert result.code == 0, result.gist()
    assert result.report["findings"] == [] and len(result.report["runs"]) == 20
    # The capture answered every call of every run: 200s all the way (exit 0), nothing diverged.
    assert all(run["client"] == {"exitStatus": 0, "timedOut": False} and not run["diverged"]
               for run in result.report["runs"]), result.gist()
    assert len({run["interleaving"] for run in result.report["runs"]}) >= 5, result.gist()


def test_a_late_refresh_adopted_after_logout_is_no_reactivation_against_a_capture(
        faultline_binary, recorded, race_rules, no_backend, tmp_path):
    common = (*LATE_REFRESH_WINDOWS, "--strategy", "random", "--seed", "1", "--schedules", "12")
    adopt = explore_capture(faultline_binary, recorded, race_rules, "late",
                            client("late_refresh", recorded["url"], "adopt", LATE_REFRESH_PATIENCE), tmp_path, *common,
                            "--shrink-runs", "8", name="adopt")
    assert adopt.code == 1, adopt.gist()
    assert [finding["clause"] for finding in adopt.report["findings"]] == ["no-reactivation"], adopt.gist()
    finding = adopt.finding("no-reactivation")
    assert finding["shrunkDeviations"] == 1, finding

    # The revoking client meets the same late refresh in the shrunk schedule, and passes.
    note = tmp_path / "late.note"
    revoke = explore_capture(faultline_binary, recorded, race_rules, "late",
                             client("late_refresh", recorded["url"], "revoke", LATE_REFRESH_PATIENCE, note), tmp_path,
                             *LATE_REFRESH_WINDOWS, "--schedule", finding["shrunk"]["schedule"], name="revoke")
    assert revoke.code == 0, revoke.gist()
    assert revoke.report["runs"][0]["diverged"] == [], revoke.gist()
    assert os.path.exists(note) and note.read_text().split() == ["late"], "the refresh did not answer after the logout"

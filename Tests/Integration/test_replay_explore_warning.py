"""A capture whose wall clock runs backwards, given to `faultline explore --replay`, loads with the
same warning on standard error as `faultline replay serve` prints (issue 25 item 4): once for the
exploration, not once per schedule, naming the entry; and the exploration runs."""

import pytest

from harness.explore import explore
from harness.faultline import Faultline
from harness.http_clients import httpx_client
from harness.trace import step_clock_back

pytestmark = pytest.mark.timeout(120)


@pytest.fixture
def stepped(faultline_binary, origin, tmp_path):
    """Two requests to the test origin recorded through `faultline run --capture`, the second
    one's wall clock then put a minute before the first's (a clock stepped back). Returns the
    capture's path and the two `request.received` events."""
    proxy = Faultline(faultline_binary, ["--listen", "127.0.0.1:0", "--capture", "--control", "off"],
                      str(tmp_path / "recorded.jsonl"), str(tmp_path)).start()
    try:
        with httpx_client(proxy.listeners[0].url) as client:
            for name in ("first", "second"):
                assert client.get(f"{origin.url}/echo?step={name}").status_code == 200
    finally:
        assert proxy.stop() == 0, proxy.stderr
    path = tmp_path / "stepped.jsonl"
    first, second = step_clock_back(proxy.trace_file, path)
    return path, first, second


def test_explore_replay_warns_once_on_stderr_that_the_recorded_clock_runs_backwards(
        faultline_binary, origin, stepped, tmp_path):
    path, first, second = stepped
    # The client fetches both recorded URLs through the proxy explore gives it (http_proxy).
    script = ("import os, urllib.request as u\n"
              f"for name in ('first', 'second'): u.urlopen('{origin.url}/echo?step=' + name, timeout=10).read()\n")
    result = explore(faultline_binary, "--replay", path, "--schedules", "2", "--settle", "5", "--max-wait", "50",
                     client=["python3", "-c", script], report=tmp_path / "report.json")
    assert result.code == 0, result.gist()
    assert len(result.report["runs"]) == 2 and all(run["client"]["exitStatus"] == 0 for run in result.report["runs"])
    warnings = [line for line in result.stderr.splitlines() if "the recorded clock runs backwards" in line]
    assert len(warnings) == 1, result.stderr
    [warning] = warnings
    assert warning.startswith("faultline replay: WARNING: ") and "at 1 entry" in warning
    assert f"flow {second['flow']} at {second['wall']}, after flow {first['flow']} at {first['wall']}" in warning

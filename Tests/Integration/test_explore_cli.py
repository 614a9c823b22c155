"""`faultline explore` on the command line (issue 21, "Determinism", "Sharding", the report's
formats): a client whose every move follows from the order of its answers
(fixtures/explore/ordered_race.py: one thread, a new connection per request, three calls that
refresh on 401 with no single flight) against `faultline backend`.

- A schedule found with `random`, replayed 20 times with `--schedule`, gives the same run each
  time: the same steps let go in the same order with the same pending sets (the trace's
  `explore.step` events and the `hold.ended` events they end with `ended_by: explore`), the
  same interleaving hash and the same verdict, with the proxy's default event loops.
- 4 shards of 12 schedules, merged with `explore merge`, equal the unsharded run schedule for
  schedule (schedule string and clauses broken), and so do their findings.
- `--format json` decodes, `--format junit` is XML with one test case per clause plus
  `exploration`, `--format html` is one page with no script and nothing loaded."""
import json
import os
import re
import shlex
import subprocess
import sys
import xml.etree.ElementTree as ElementTree
from html.parser import HTMLParser

import pytest

from harness.clients import clean_env
from harness.explore import backend, client, explore, race_rules, reset_command  # noqa: F401
from harness.trace import Trace

pytestmark = pytest.mark.timeout(120)

WINDOWS = ("--settle", "10", "--max-wait", "100")
# Replaying a schedule gives the same run when each decision meets the same pending steps: the
# settle window must outlast the client's reaction to the answer just let go (the requests it
# sends next). A Python client on a loaded 2-core machine sometimes needs more than 10 ms (one
# replay in 60 decided before a retry arrived), so the tests of sameness settle for 50 ms.
REPLAYABLE = ("--settle", "50", "--max-wait", "100")
CLAUSES = ["single-flight-refresh", "no-stale-refresh", "bounded-retry", "logout-boundary", "account-isolation",
           "no-reactivation", "exactly-once", "dependency-respected", "replay-safe-retry",
           "retry-after-respected"]


def ordered_race(backend, *options):
    return client("ordered_race", backend.url, *options)


def steps(trace_path):
    """A run's decisions as the trace says them: each `explore.step` (choice, step, pending) and
    the `hold.ended` of the explore hold it let go."""
    trace = Trace.load(trace_path)
    decisions = [(event["choice"], event.get("step"), tuple(event["pending"])) for event in trace.of("explore.step")]
    released = [(event["flow"], event["name"]) for event in trace.of("hold.ended") if event.get("ended_by") == "explore"]
    return decisions, released


def test_a_schedule_replayed_twenty_times_gives_the_same_run(faultline_binary, backend, race_rules, tmp_path):
    common = ("--rules", race_rules, "--before-each", reset_command(backend), *REPLAYABLE, "--shrink-runs", "0")
    found = explore(
        faultline_binary, *common, "--strategy", "random", "--seed", "7", "--schedules", "1",
        client=ordered_race(backend), report=tmp_path / "found.json")
    assert found.code == 1, found.gist()
    original = found.run(0)
    schedule = original["schedule"]
    assert any(choice not in ("", "0") for choice in schedule.split(":")[2].split(".")), f"no deviation in {schedule}"

    keep = tmp_path / "replays"
    replayed = explore(
        faultline_binary, *common, "--schedule", schedule, "--schedules", "20", "--keep", keep,
        client=ordered_race(backend), report=tmp_path / "replayed.json", timeout=110)
    assert replayed.code == 1, replayed.gist()
    runs = replayed.report["runs"]
    assert len(runs) == 20
    outcomes = {(run["schedule"], run["interleaving"], tuple(run["violated"]), tuple(run["diverged"])) for run in runs}
    assert outcomes == {(schedule, original["interleaving"], tuple(original["violated"]), ())}, replayed.gist()
    # Failing runs keep their traces: every replay let the same steps go, in the same order, out
    # of the same pending steps (flows numbered alike), each released by the explorer.
    orders = {index: steps(keep / f"schedule-{index}.jsonl") for index in range(20)}
    first_decisions, first_released = orders[0]
    assert len(first_decisions) == original["decisions"] and len(first_released) == len(
        [decision for decision in first_decisions if decision[0] != "w"])
    different = {index: order for index, order in orders.items() if order != orders[0]}
    assert not different, f"replays that went otherwise than replay 0: {sorted(different)}"


def test_four_shards_merged_equal_the_unsharded_run(faultline_binary, backend, race_rules, tmp_path):
    common = ("--rules", race_rules, "--before-each", reset_command(backend), *REPLAYABLE, "--strategy", "random",
              "--seed", "5", "--schedules", "12", "--shrink-runs", "0")
    whole = explore(faultline_binary, *common, client=ordered_race(backend), report=tmp_path / "whole.json")
    assert whole.code == 1, whole.gist()
    shards = []
    for shard in range(1, 5):
        part = explore(
            faultline_binary, *common, "--shard", f"{shard}/4", client=ordered_race(backend),
            report=tmp_path / f"shard-{shard}.json")
        assert part.code == 1, part.gist()
        # Schedule i belongs to shard (i mod 4) + 1.
        assert [run["index"] for run in part.report["runs"]] == list(range(shard - 1, 12, 4))
        shards.append(tmp_path / f"shard-{shard}.json")
    merged_path = tmp_path / "merged.json"
    done = subprocess.run(
        [faultline_binary, "explore", "merge", *map(str, reversed(shards)), "--format", "json", "--output", str(merged_path)],
        capture_output=True, text=True, timeout=30, env=clean_env())
    assert done.returncode == 1, done.stderr
    merged = json.loads(merged_path.read_text())

    def by_index(report):
        return [(run["index"], run["schedule"], run["violated"]) for run in report["runs"]]

    assert by_index(merged) == by_index(whole.report), "the merged shards differ from the unsharded run"
    assert len(by_index(merged)) == 12
    assert "shard" not in merged

    def findings(report):
        return [(finding["clause"], finding["schedules"], finding["first"]["index"], finding["first"]["schedule"])
                for finding in report["findings"]]

    assert findings(merged) == findings(whole.report)

    # Reports of another exploration, or a shard given twice, are refused.
    other = json.loads(shards[0].read_text())
    other["seed"] += 1
    (tmp_path / "other.json").write_text(json.dumps(other))
    for reports, says in (([shards[1], tmp_path / "other.json"], "the reports are of different explorations"),
                          ([shards[0], shards[0]], "a shard appears twice: 1/4, 1/4")):
        refused = subprocess.run([faultline_binary, "explore", "merge", *map(str, reports)], capture_output=True,
                                 text=True, timeout=30, env=clean_env())
        assert refused.returncode == 2 and says in refused.stderr, refused.stderr


class PageOutline(HTMLParser):
    """Counts the page's elements and collects what would run or load something."""

    def __init__(self):
        super().__init__()
        self.tags = []
        self.loads = []

    def handle_starttag(self, tag, attributes):
        self.tags.append(tag)
        for name, value in attributes:
            if name in ("src", "href") and value and re.match(r"^[a-z]+:", value):
                self.loads.append((tag, name, value))
            if name.startswith("on"):
                self.loads.append((tag, name, value))


def test_the_report_formats_parse(faultline_binary, backend, race_rules, tmp_path):
    common = ("--rules", race_rules, "--before-each", reset_command(backend), *WINDOWS, "--schedules", "2",
              "--shrink-runs", "0", "--keep", tmp_path / "kept")
    outputs = {}
    for format in ("json", "junit", "html"):
        done = subprocess.run(
            [faultline_binary, "explore", *map(str, common), "--format", format, "--", *ordered_race(backend)],
            capture_output=True, text=True, timeout=60, env=clean_env())
        assert done.returncode == 1, done.stderr
        outputs[format] = done.stdout

    report = json.loads(outputs["json"])
    assert report["schedules"] == 2 and len(report["runs"]) == 2
    broken = [finding["clause"] for finding in report["findings"]]
    assert "single-flight-refresh" in broken

    suites = ElementTree.fromstring(outputs["junit"])
    cases = suites.findall("./testsuite/testcase")
    assert [case.get("name") for case in cases] == CLAUSES + ["exploration"]
    assert suites.get("tests") == str(len(CLAUSES) + 1)
    failed = [case.get("name") for case in cases if case.find("failure") is not None]
    assert sorted(failed) == sorted(broken), outputs["junit"]
    assert "reproduce: faultline explore --rules" in cases[0].find("failure").text

    page = PageOutline()
    page.feed(outputs["html"])
    assert outputs["html"].startswith("<!DOCTYPE html>")
    assert page.tags.count("html") == 1 and page.tags.count("body") == 1
    assert "script" not in page.tags and page.loads == [], page.loads
    assert "single-flight-refresh" in outputs["html"] and "FAILED" in outputs["html"]


def test_only_the_failing_runs_traces_stay_in_the_temp_folder(faultline_binary, backend, race_rules, tmp_path):
    temporary = tmp_path / "tmp"
    temporary.mkdir()
    environment = clean_env(TMPDIR=str(temporary))
    passing = explore(
        faultline_binary, *WINDOWS, "--schedules", "1", client=["curl", "-sS", "-o", "/dev/null", f"{backend.url}/v1/me"],
        report=tmp_path / "passing.json", env=environment)
    assert passing.code == 0, passing.gist()
    assert sorted(temporary.iterdir()) == [], "a passing exploration left folders behind"

    failing = explore(
        faultline_binary, "--rules", race_rules, "--before-each", reset_command(backend), *WINDOWS, "--schedules", "1",
        "--shrink-runs", "0", client=ordered_race(backend), report=tmp_path / "failing.json", env=environment)
    assert failing.code == 1, failing.gist()
    # What the report points to stays: the failing runs' traces and timelines, in one folder.
    left = sorted(temporary.iterdir())
    assert len(left) == 1 and left[0].name.startswith("faultline-explore-"), left
    assert sorted(path.name for path in left[0].iterdir()) == [
        "baseline.html", "baseline.jsonl", "schedule-0.html", "schedule-0.jsonl"]
    assert failing.run(0)["trace"] == str(left[0] / "schedule-0.jsonl")


def test_clients_through_tls_interception_trust_the_ca_bundle_they_are_given(
        faultline_binary, tls_origin, certificates, tmp_path):
    """curl (CURL_CA_BUNDLE) and requests (REQUESTS_CA_BUNDLE) reach an https origin through the
    intercepting proxy of each schedule, trusting only what explore points them at; the bundle's
    folder is gone afterwards."""
    url = f"https://localhost:{tls_origin.port}/echo"
    environment = tmp_path / "environment.json"
    dump = " ".join(map(shlex.quote, client("dump_environment", environment)))
    fetch = f"import requests; requests.get({url!r}, timeout=20).raise_for_status()"
    script = (f"curl -sS --fail -o /dev/null {url} && {shlex.quote(sys.executable)} -c {shlex.quote(fetch)} "
              f"&& test -s \"$SSL_CERT_FILE\" && {dump}")
    result = explore(
        faultline_binary, "--upstream-ca", certificates["ca.pem"], *WINDOWS, "--schedules", "2",
        "--fail-on-client-error", client=["/bin/sh", "-c", script], report=tmp_path / "report.json")
    assert result.code == 0, result.gist()
    assert all(run["decisions"] >= 4 for run in result.report["runs"]), "the intercepted flows were not scheduled"
    variables = json.loads(environment.read_text())
    bundle = variables["SSL_CERT_FILE"]
    assert variables["REQUESTS_CA_BUNDLE"] == bundle and variables["CURL_CA_BUNDLE"] == bundle
    assert variables["NODE_EXTRA_CA_CERTS"] != bundle and os.path.dirname(variables["NODE_EXTRA_CA_CERTS"]) == os.path.dirname(bundle)
    assert not os.path.exists(os.path.dirname(bundle)), "the CA bundle's folder was left behind"

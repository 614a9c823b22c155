"""`faultline check --format html` over every trace `faultline demo --all` keeps, for the tests that
open the reports in a browser (test_check_report_browser.py, test_check_report_layout.py).

    reports = demo_reports(binary, folder)     # [Report], in the demo's order
    report.name, report.code, report.violations (the JSON report's), report.html (a path)

Each trace is checked against the demo's contract (Rules/contracts/session.contract.json5) twice:
`--format json` for what the page must show, `--format html --output` for the page."""
import json
import os
import re
from dataclasses import dataclass

from .clients import clean_env, run

REPOSITORY = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
CONTRACT = os.path.join(REPOSITORY, "Rules", "contracts", "session.contract.json5")


@dataclass
class Report:
    """One demo trace checked: the exit status and violations of `--format json`, and the page
    `--format html --output` wrote."""

    name: str
    code: int
    violations: list
    html: str

    @property
    def broken_variant(self):
        return not self.name.endswith("-correct")


def check(binary, trace, *args):
    """`faultline check TRACE --contract <the demo's> ARGS`: (exit status, stdout, stderr)."""
    done = run([binary, "check", trace, "--contract", CONTRACT, *args], timeout=60)
    return done.returncode, done.stdout.decode(), done.stderr.decode(errors="replace")


def demo_traces(binary, folder):
    """The traces of `faultline demo --all --traces FOLDER/traces` (22: 10 correct runs, 12 broken
    variants), in the demo's order."""
    done = run([binary, "demo", "--all", "--traces", os.path.join(folder, "traces")], timeout=120,
               env=clean_env(TMPDIR=str(folder)))
    out = done.stdout.decode(errors="replace")
    assert done.returncode == 0, f"demo exit {done.returncode}:\n{out}\n{done.stderr.decode(errors='replace')}"
    paths = re.findall(r"^  trace: (\S+)$", out, re.MULTILINE)
    assert len(paths) == 22, f"the mutation table is 10 correct runs and 12 broken variants:\n{out}"
    return paths


def checked_report(binary, trace, folder):
    """`trace` checked as JSON and as a page written into `folder`: a `Report`."""
    name = os.path.basename(trace).removesuffix(".jsonl")
    code, out, err = check(binary, trace, "--format", "json")
    assert code in (0, 1), f"{name}: json exit {code}: {err}"
    listed = json.loads(out)["violations"]
    html = os.path.join(folder, f"{name}.html")
    html_code, out, err = check(binary, trace, "--format", "html", "--output", html)
    assert html_code == code, f"{name}: html exit {html_code}, json exit {code}: {err}"
    assert out == "" and os.path.getsize(html) > 0, f"{name}: with --output the page goes to the file"
    return Report(name, code, listed, html)


def demo_reports(binary, folder):
    """Every demo trace checked: [Report], in the demo's order."""
    return [checked_report(binary, trace, str(folder)) for trace in demo_traces(binary, folder)]

"""`faultline check --format html|svg`: the demo's traces (its broken variants and the correct
clients), drawn. The SVG validates as XML; the HTML report is one self-contained page (no script,
no external resource) whose inline SVGs validate as XML and hold one timeline group per
violation of the JSON report; `--violation N` picks a picture, and a trace with none says so.
Every format names the trace by its file name, never the folder it was read from."""
import json
import os
import re
import xml.etree.ElementTree as ElementTree

import pytest

from harness.clients import clean_env, run

SVG = "{http://www.w3.org/2000/svg}"
CLAUSES = ["single-flight-refresh", "no-stale-refresh", "bounded-retry", "logout-boundary", "account-isolation",
           "no-reactivation", "exactly-once", "dependency-respected", "replay-safe-retry",
           "retry-after-respected"]


@pytest.fixture(scope="module")
def demo_traces(faultline_binary, tmp_path_factory):
    """The traces `faultline demo --traces DIR` keeps: {name: path}."""
    folder = tmp_path_factory.mktemp("demo")
    done = run([faultline_binary, "demo", "--traces", str(folder / "traces")], timeout=120,
               env=clean_env(TMPDIR=str(folder)))
    out = done.stdout.decode(errors="replace")
    assert done.returncode == 0, f"demo exit {done.returncode}:\n{out}\n{done.stderr.decode(errors='replace')}"
    paths = re.findall(r"^  trace: (\S+)$", out, re.MULTILINE)
    assert paths, out
    return {path.rsplit("/", 1)[-1].removesuffix(".jsonl"): path for path in paths}


def check(binary, trace, *args):
    done = run([binary, "check", trace, *args], timeout=60)
    return done.returncode, done.stdout.decode(), done.stderr.decode(errors="replace")


def violations(binary, trace):
    code, out, err = check(binary, trace, "--format", "json")
    assert code in (0, 1), err
    return code, json.loads(out)["violations"]


def timeline_groups(svg_root):
    return [g for g in svg_root.iter(f"{SVG}g") if g.get("class") == "violation-timeline"]


def test_the_html_report_draws_one_timeline_per_violation(faultline_binary, demo_traces, tmp_path):
    broken = 0
    for name, trace in demo_traces.items():
        expected_code, listed = violations(faultline_binary, trace)
        broken += bool(listed)
        target = tmp_path / f"{name}.html"
        code, out, err = check(faultline_binary, trace, "--format", "html", "--output", str(target))
        assert code == expected_code, f"{name}: html exit {code}, json exit {expected_code}: {err}"
        assert out == "", "with --output the report goes to the file"
        page = target.read_text(encoding="utf-8")
        assert page.startswith("<!DOCTYPE html>"), page[:200]
        assert "<script" not in page.lower(), "the report needs no script"
        assert not re.search(r"""(src|href)\s*=|<link|@import|url\(""", page), "the report loads nothing"
        assert ("passed" if expected_code == 0 else "failed") in re.search(r'class="verdict (\w+)"', page).group(1)
        listed_clauses = re.findall(r'<li class="(?:broken|idle|held|skipped|disabled)">[✗○✓?-] ([a-z-]+)', page)
        assert sorted(listed_clauses) == sorted(CLAUSES), f"{name}: the clauses are listed once each: {listed_clauses}"
        pictures = re.findall(r"<svg\b.*?</svg>", page, re.DOTALL)
        groups = []
        for picture in pictures:
            root = ElementTree.fromstring(picture)  # raises on anything not well-formed
            assert root.tag == f"{SVG}svg"
            groups += timeline_groups(root)
        assert len(groups) == len(listed), f"{name}: {len(groups)} timelines for {len(listed)} violations"
        assert [g.get("data-clause") for g in groups] == [v["clause"] for v in listed]
        for group, violation in zip(groups, listed):
            texts = ["".join(t.itertext()) for t in group.iter(f"{SVG}text")]
            for seq in violation["witnesses"]:
                assert any(t == str(seq) or t.startswith(f"seq {seq} ") or t == f"seq {seq}" for t in texts), \
                    f"{name}: witness seq {seq} unlabelled in {texts}"
            offending = [e["seq"] for e in violation["timeline"] if e["marker"] == "offending"]
            drawn = [g for g in group.iter(f"{SVG}g") if "fl-offending" in (g.get("class") or "").split()
                     or "fl-mark-offending" in (g.get("class") or "").split()]
            assert len(drawn) >= len(offending) > 0, f"{name}: the offending request is not highlighted"
    assert broken >= 2, f"the demo should have broken variants: {list(demo_traces)}"


def test_svg_writes_one_violation_as_a_document(faultline_binary, demo_traces, tmp_path):
    name, trace, listed = next(
        (name, trace, v) for name, trace in demo_traces.items()
        for v in [violations(faultline_binary, trace)[1]] if len(v) >= 2)
    for number in range(1, len(listed) + 1):
        code, out, err = check(faultline_binary, trace, "--format", "svg", "--violation", str(number))
        assert code == 1, err
        assert out.startswith('<?xml version="1.0" encoding="UTF-8"?>\n<svg'), out[:200]
        root = ElementTree.fromstring(out.encode())
        [group] = timeline_groups(root)
        assert group.get("data-clause") == listed[number - 1]["clause"]
        title = "".join(next(t for t in group.iter(f"{SVG}text") if t.get("class") == "fl-title").itertext())
        assert f"violation {number} of {len(listed)}" in title, title
    # The default is the first violation, to a file as well.
    target = tmp_path / "first.svg"
    code, out, err = check(faultline_binary, trace, "--format", "svg", "--output", str(target))
    assert code == 1 and out == ""
    first = ElementTree.parse(target).getroot()
    assert "violation 1 of" in "".join(first.itertext())
    # A number past the list is a usage error.
    code, out, err = check(faultline_binary, trace, "--format", "svg", "--violation", str(len(listed) + 1))
    assert code == 2 and out == "" and f"lists {len(listed)} violations" in err, err
    code, _, err = check(faultline_binary, trace, "--format", "html", "--violation", "1")
    assert code == 2 and "--format svg" in err, err


def test_svg_of_a_trace_without_violations_says_so(faultline_binary, demo_traces, tmp_path):
    correct = next(trace for name, trace in demo_traces.items() if name.endswith("-correct"))
    target = tmp_path / "none.svg"
    code, out, err = check(faultline_binary, correct, "--format", "svg", "--output", str(target))
    assert code == 0, err
    assert out == "" and not target.exists()
    assert "no violation to draw" in err, err


def test_reports_name_the_trace_file_not_its_folder(faultline_binary, demo_traces, tmp_path):
    """Reports get attached to pull requests and CI runs: text, JSON, JUnit and HTML name the trace
    by its file name, and the folder it was read from (pytest's, here) is in none of them, nor in
    the verdict `--output` leaves on standard error."""
    trace = next(trace for name, trace in demo_traces.items() if not name.endswith("-correct"))
    folder, file_name = os.path.split(trace)
    expected = {
        "text": f"{file_name}: FAILED",
        "json": None,  # names no file at all
        "junit": 'classname="faultline.contract.' + re.sub(r"[^\w-]", "_", file_name) + '"',
        "html": f"<title>faultline check: {file_name}</title>",
    }
    for report_format, named in expected.items():
        code, out, err = check(faultline_binary, trace, "--format", report_format)
        assert code == 1, err
        assert folder not in out and os.path.basename(folder) not in out, f"--format {report_format} names the folder"
        assert named is None or named in out, f"--format {report_format} does not name {file_name}"
    code, out, err = check(faultline_binary, trace, "--format", "html", "--output", str(tmp_path / "report.html"))
    assert code == 1 and err.startswith(f"{file_name}: FAILED") and folder not in err, err
    page = (tmp_path / "report.html").read_text(encoding="utf-8")
    assert f">{file_name}: FAILED" in page and folder not in page


def test_the_svg_title_names_the_trace_file_not_its_folder(faultline_binary, demo_traces):
    trace = next(trace for name, trace in demo_traces.items() if not name.endswith("-correct"))
    folder, file_name = os.path.split(trace)
    code, out, err = check(faultline_binary, trace, "--format", "svg")
    assert code == 1, err
    title = "".join(next(t for t in ElementTree.fromstring(out.encode()).iter(f"{SVG}text")
                         if t.get("class") == "fl-title").itertext())
    assert title.startswith(f"{file_name}: violation 1 of"), title
    assert folder not in out

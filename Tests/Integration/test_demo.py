"""`faultline demo`: it leaves nothing behind unless asked to keep the traces, the README's
sample output is what it prints, and with --http2 the same clauses catch the same clients over
HTTP/2."""
import functools
import os
import re

import pytest

from harness.clients import clean_env, run
from harness.trace import Trace

REPOSITORY = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
# The demo's contract, kept beside its traces (the same as Rules/contracts/session.contract.json5).
CONTRACT = "session.contract.json5"


def demo(binary, *args, tmp, timeout=60):
    """Runs `faultline demo ARGS` with its temp folder in `tmp`; returns (exit, stdout, stderr)."""
    done = run([binary, "demo", *args], timeout=timeout, env=clean_env(TMPDIR=str(tmp)))
    return done.returncode, done.stdout.decode(errors="replace"), done.stderr.decode(errors="replace")


def trace_paths(out):
    return re.findall(r"^  trace: (\S+)$", out, re.MULTILINE)


def test_the_demo_leaves_no_folder_behind(faultline_binary, tmp_path):
    code, out, err = demo(faultline_binary, tmp=tmp_path)
    assert code == 0, f"exit {code}: {out}\n{err}"
    assert os.listdir(tmp_path) == [], f"the demo left {os.listdir(tmp_path)} in its temp folder"
    assert trace_paths(out) == [], f"the demo names trace files it did not keep:\n{out}"
    assert "--keep" in out, f"the output should say how to keep the traces:\n{out}"


def test_keep_keeps_the_traces_and_says_where(faultline_binary, tmp_path):
    code, out, err = demo(faultline_binary, "--keep", tmp=tmp_path)
    assert code == 0, f"exit {code}: {out}\n{err}"
    [folder] = os.listdir(tmp_path)
    folder = os.path.join(tmp_path, folder)
    assert f"traces in {folder}" in out, out
    paths = trace_paths(out)
    assert paths, f"no trace: lines with --keep:\n{out}"
    assert sorted(paths + [os.path.join(folder, CONTRACT)]) == sorted(
        os.path.join(folder, name) for name in os.listdir(folder))
    for path in paths:
        with open(path, encoding="utf-8") as handle:
            assert handle.readline().startswith('{"faultline_trace":1'), path


def test_a_traces_folder_of_ones_own_is_kept(faultline_binary, tmp_path):
    chosen = tmp_path / "mine"
    code, out, _ = demo(faultline_binary, "--traces", str(chosen), tmp=tmp_path)
    assert code == 0, out
    assert os.listdir(tmp_path) == ["mine"], os.listdir(tmp_path)
    assert sorted(trace_paths(out) + [str(chosen / CONTRACT)]) == sorted(
        str(chosen / name) for name in os.listdir(chosen))
    assert trace_paths(out), out


def clause_lines(text):
    """The `clauses:` list of a text report, each line stripped."""
    lines = [line.strip() for line in text.split("\n")]
    start = lines.index("clauses:") + 1
    return lines[start:lines.index("", start)]


def test_a_kept_trace_checked_with_the_kept_contract_gives_the_demos_verdict(faultline_binary, tmp_path):
    """Issue 20: the demo printed `✓ exactly-once` where `check` on the kept trace printed `?`, and
    neither said which contract it used. The demo keeps its contract beside the traces and says
    how to use it; both reports name it first and list the same clauses."""
    chosen = tmp_path / "kept"
    code, out, _ = demo(faultline_binary, "--traces", str(chosen), tmp=tmp_path)
    assert code == 0, out
    contract = str(chosen / CONTRACT)
    assert f"  faultline check --contract {contract} TRACE" in out, out
    [path] = [path for path in trace_paths(out) if path.endswith("late-401-refresh-on-stale-401.jsonl")]
    demo_report = out.split("verdict: contract broken: no-stale-refresh\n", 1)[1].split("  expected:", 1)[0]
    assert demo_report.lstrip().startswith(f"contract: {CONTRACT} (all 10 clauses on; "), demo_report

    done = run([faultline_binary, "check", "--contract", contract, path], timeout=30)
    text = done.stdout.decode()
    assert done.returncode == 1, text
    assert text.startswith(f"contract: {CONTRACT} (all 10 clauses on; "), text
    assert clause_lines(text) == clause_lines(demo_report), (text, demo_report)
    assert "○ exactly-once: nothing to judge, no request matched a declared callback" in clause_lines(text)
    assert "✓ exactly-once" not in text

    done = run([faultline_binary, "check", path], timeout=30)
    default = done.stdout.decode()
    assert default.startswith("contract: built-in default (all 10 clauses on; declares no callbacks, steps or "
                              "dependencies; retry identity Idempotency-Key)\n"), default
    assert "? exactly-once: not checked, the contract declares no callbacks" in clause_lines(default)


def test_over_http2_the_same_clauses_catch_the_same_clients(faultline_binary, tmp_path):
    chosen = tmp_path / "h2"
    code, out, err = demo(faultline_binary, "--http2", "--all", "--traces", str(chosen), tmp=tmp_path)
    assert code == 0, f"exit {code}: {out}\n{err}"
    assert out.startswith("Faultline demo: reference backend and proxy in this process; the client speaks HTTP/2"), out
    assert "Every verdict is the expected one" in out, out
    # The whole mutation table: the correct client through 10 races, 12 broken variants, each
    # caught by the clause the HTTP/1.1 table names (Tests/FaultlineDemoTests checks the clauses).
    assert out.count("expected: no violation ✓") == 10, out
    assert out.count(" ✓\n") == 22 and "✗ (unexpected)" not in out, out
    for clause in ["single-flight-refresh", "no-stale-refresh", "bounded-retry", "logout-boundary",
                   "account-isolation", "no-reactivation", "exactly-once", "dependency-respected",
                   "replay-safe-retry", "retry-after-respected"]:
        assert f"expected: {clause} ✓" in out, f"{clause} not caught over HTTP/2:\n{out}"
    paths = trace_paths(out)
    assert len(paths) == 22, out
    for path in paths:
        trace = Trace.load(path)
        trace.assert_well_formed()
        received = trace.of("request.received")
        assert received, path
        # Every request came as a stream of the one h2c connection the client opened.
        assert {event.get("version") for event in received} == {"HTTP/2"}, path
        assert len({event["conn"] for event in received}) == 1, f"{path}: more than one client connection"
        streams = [event["stream"] for event in received]
        assert len(set(streams)) == len(streams) and all(stream % 2 == 1 for stream in streams), (path, streams)


def test_the_default_demo_speaks_http1(faultline_binary, tmp_path):
    chosen = tmp_path / "h1"
    code, out, _ = demo(faultline_binary, "--traces", str(chosen), tmp=tmp_path)
    assert code == 0, out
    for path in trace_paths(out):
        received = Trace.load(path).of("request.received")
        assert received and {event.get("version") for event in received} == {"HTTP/1.1"}, path


# -- the README's sample ---------------------------------------------------------------------

ELISION = "…"


def normalised(line, folder):
    """What may differ between two runs of the same demo: the trace folder, timings, seq numbers
    (the races interleave differently; their column width follows them) and event counts."""
    line = line.replace(folder, "DIR") if folder else line
    line = re.sub(r"\+\d+\.\d+s", "+T", line)
    line = re.sub(r"seq +\d+", "seq N", line)
    line = re.sub(r"\b\d+ events?\b", "N events", line)
    return line.rstrip()


def readme_sample():
    """The code block under "## What the demo shows" in README.md, with the command it shows."""
    with open(os.path.join(REPOSITORY, "README.md"), encoding="utf-8") as handle:
        text = handle.read()
    section = text.split("\n## What the demo shows\n", 1)[1].split("\n## ", 1)[0]
    block = re.search(r"^```\n(.*?)^```$", section, re.MULTILINE | re.DOTALL)
    assert block, "README.md: no code block under 'What the demo shows'"
    lines = block.group(1).rstrip("\n").split("\n")
    assert lines[0].startswith("$ faultline demo"), f"the sample should start with the command: {lines[0]!r}"
    return lines[0][2:].split(), lines[1:]


def matches(sample, output):
    """True when the sample lines equal the output lines, where a sample line `…` stands for one
    or more output lines (leftmost-shortest match with backtracking)."""
    @functools.lru_cache(maxsize=None)
    def match(i, j):
        if i == len(sample):
            return j == len(output)
        if sample[i] == ELISION:
            return any(match(i + 1, k) for k in range(j + 1, len(output) + 1))
        return j < len(output) and sample[i] == output[j] and match(i + 1, j + 1)
    return match(0, 0)


def test_the_readme_sample_is_what_the_demo_prints(faultline_binary, tmp_path):
    command, sample = readme_sample()
    assert command[:2] == ["faultline", "demo"], command
    code, out, err = demo(faultline_binary, *command[2:], tmp=tmp_path)
    assert code == 0, f"exit {code}: {out}\n{err}"
    folder = re.search(r"traces in (\S+)", out)
    sample_folder = re.search(r"traces in (\S+)", "\n".join(sample))
    got = [normalised(line, folder and folder.group(1)) for line in out.rstrip("\n").split("\n")]
    want = [normalised(line, sample_folder and sample_folder.group(1)) for line in sample]
    assert sum(line != ELISION for line in want) >= 10, "the sample should show a good part of the output"
    if not matches(want, got):
        first = next((line for line in want if line != ELISION and line not in got), None)
        raise AssertionError(
            "README.md's demo sample is not what `faultline demo` prints"
            + (f"; first sample line not in the output: {first!r}" if first else " (lines out of order)")
            + "\n--- output (normalised) ---\n" + "\n".join(got))


@pytest.mark.timeout(240)
@pytest.mark.parametrize("http2", [False, True], ids=["http1", "http2"])
def test_explore_catches_every_broken_client_without_ordering_rules(faultline_binary, tmp_path, http2):
    """`faultline demo --explore`: the races with the auth profile and no rule that holds or
    orders; every broken client is caught by a schedule the scheduler chose, and the correct
    client keeps the contract in every schedule (a 5 ms settle keeps the test short)."""
    args = ["--explore", "--settle", "5", "--schedules", "8"] + (["--http2"] if http2 else [])
    code, out, err = demo(faultline_binary, *args, tmp=tmp_path, timeout=240)
    assert code == 0, f"exit {code}: {out}\n{err}"
    assert out.startswith("Faultline demo, explored: no ordering rules; pct3, seed 1, up to 8 schedules per case"), out
    assert out.count("▶ correct client:") == 2 and out.count("▶ broken client (") == 3, out
    assert out.count("✓\n") == 5 and "✗" not in out, out
    assert len(re.findall(r"^  8 schedules, \d+ distinct orders?: no violation$", out, re.MULTILINE)) == 2, out
    for clause in ("single-flight-refresh", "no-stale-refresh"):
        assert re.search(rf"^  found [^\n]*{clause}[^\n]* after \d+ schedules?: pct3:\d+:", out, re.MULTILINE), out
    assert "Every broken client was caught by exploration alone" in out, out


@pytest.mark.timeout(60)
def test_explore_says_its_max_wait_and_refuses_a_bad_one(faultline_binary, tmp_path):
    """`--max-wait` is the logout races' wait (100 ms unless given), named in the first line; a
    value that is not milliseconds in range is refused before anything runs."""
    for value in ("x", "-1", "10001"):
        code, out, err = demo(faultline_binary, "--explore", "--max-wait", value, tmp=tmp_path, timeout=30)
        assert code == 2, f"--max-wait {value}: exit {code}: {out}\n{err}"
        assert f"faultline demo: --max-wait takes milliseconds from 0 to 10000, not '{value}'" in err, err
        assert out == "", out
    code, out, err = demo(faultline_binary, "--help", tmp=tmp_path, timeout=30)
    assert "--max-wait MS" in out and "logs out on a timer (default 100" in out, out

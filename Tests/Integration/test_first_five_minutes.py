"""README.md "First five minutes", run as a new user runs it: every command of its console blocks,
in order, in three "terminals" (the backend and the proxy as processes of their own, the client's
commands in one bash session, so its variables and background jobs behave as typed), the release
in the web UI done in Chromium, and Ctrl-C as SIGINT. What each command prints is compared with the
README, up to the parts that differ between runs (tokens, ports, tickets, times, hold IDs, event
counts), as test_demo.py does for the demo's sample.

The walkthrough uses the ports it documents (9000 and 8080 on 127.0.0.1): a newcomer types them,
so the test does too. Its working folder is private, with `Rules` linking to the repository's."""
import os
import queue
import re
import signal
import subprocess
import threading
import time

import pytest

REPOSITORY = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
DEADLINE = 20  # seconds for any one command, or for a process's expected lines
MARK = "@@faultline-walkthrough-done@@"

VARIABLE = [
    (re.compile(r"\b(at|rt)_[A-Za-z0-9_-]+"), r"\1_…"),
    (re.compile(r"127\.0\.0\.1:(?!9000\b|8080\b)\d+"), "127.0.0.1:PORT"),
    (re.compile(r"ticket=\S+"), "ticket=…"),
    (re.compile(r"with the CA \S+"), "with the CA CA"),
    (re.compile(r"#\d+"), "#N"),
    (re.compile(r"\b\d+\.\ds\b"), "T"),
    (re.compile(r"\b\d+ events\b"), "N events"),
]


def normalised(line):
    for pattern, replacement in VARIABLE:
        line = pattern.sub(replacement, line)
    return line.rstrip()


def walkthrough():
    """The console blocks of the section, as steps: (command, expected output lines)."""
    with open(os.path.join(REPOSITORY, "README.md"), encoding="utf-8") as handle:
        text = handle.read()
    assert "\n## First five minutes\n" in text, "README.md has no 'First five minutes' section"
    section = text.split("\n## First five minutes\n", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"^```console\n(.*?)^```$", section, re.MULTILINE | re.DOTALL)
    assert len(blocks) >= 5, f"the section should show its commands in console blocks: {len(blocks)} found"
    steps = []
    for block in blocks:
        for line in block.rstrip("\n").split("\n"):
            if line.startswith("$ ") or line == "^C":
                steps.append((line[2:] if line.startswith("$ ") else line, []))
            else:
                assert steps, f"output before any command: {line!r}"
                steps[-1][1].append(line)
    return steps


class Lines:
    """The merged stdout and stderr of a process, line by line, read on a thread."""

    def __init__(self, process):
        self.process = process
        self.queue = queue.Queue()
        self.seen = []
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for raw in self.process.stdout:
            self.queue.put(raw.decode("utf-8", "replace").rstrip("\n"))
        self.queue.put(None)

    def take(self, count=None, until=None, what="output"):
        """The next `count` lines, or the lines before one starting with `until`; fails at the deadline."""
        taken = []
        deadline = time.monotonic() + DEADLINE
        while True:
            if count is not None and len(taken) >= count:
                return taken
            remaining = deadline - time.monotonic()
            try:
                line = self.queue.get(timeout=max(remaining, 0.01))
            except queue.Empty:
                raise AssertionError(f"{what}: nothing more within {DEADLINE}s; so far {taken}") from None
            if line is None:
                if count is None and until is None:
                    return taken
                raise AssertionError(f"{what}: the process ended; so far {taken}")
            self.seen.append(line)
            if until is not None and line.startswith(until):
                return taken
            taken.append(line)


def assert_prints(command, expected, actual):
    want = [normalised(line) for line in expected]
    got = [normalised(line) for line in actual]
    assert got == want, f"$ {command}\nREADME says:\n" + "\n".join(want) + "\nit printed:\n" + "\n".join(got)


def release_in_the_web_ui(chromium, address, hold):
    """Opens the address `faultline ui` printed and clicks Release on the hold, as the README says."""
    from playwright.sync_api import expect

    tab = chromium.new_page()
    tab.page.goto(address, wait_until="load")
    item = tab.page.locator(f'#holds li.hold[data-hold="{hold}"]')
    expect(item).to_be_visible(timeout=DEADLINE * 1000)
    item.locator("button.release").click()
    expect(item).to_have_count(0, timeout=DEADLINE * 1000)


@pytest.mark.timeout(180)
def test_the_first_five_minutes_print_what_the_readme_shows(faultline_binary, chromium, tmp_path):
    steps = walkthrough()
    folder = tmp_path / "walkthrough"
    folder.mkdir()
    os.symlink(os.path.join(REPOSITORY, "Rules"), folder / "Rules")
    env = dict(os.environ)
    env["PATH"] = os.path.dirname(faultline_binary) + os.pathsep + env["PATH"]
    env["FAULTLINE_HOME"] = str(tmp_path / "home")
    for name in ("http_proxy", "https_proxy", "all_proxy", "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "no_proxy"):
        env.pop(name, None)

    def start(command):
        process = subprocess.Popen(["bash", "-c", "exec " + command], cwd=folder, env=env, stdin=subprocess.DEVNULL,
                                   stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        started.append(process)
        return process, Lines(process)

    started = []
    shell = subprocess.Popen(["bash", "--noprofile", "--norc"], cwd=folder, env=env, stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    started.append(shell)
    client = Lines(shell)
    proxy = None
    ran = []
    try:
        for command, expected in steps:
            ran.append(command)
            if command.startswith("faultline backend") or command.startswith("faultline run"):
                process, lines = start(command)
                if command.startswith("faultline run"):
                    proxy = (process, lines)
                assert_prints(command, expected, lines.take(count=len(expected), what=command))
            elif command == "^C":
                assert proxy is not None, "Ctrl-C before the proxy was started"
                process, lines = proxy
                process.send_signal(signal.SIGINT)
                assert process.wait(timeout=DEADLINE) == 0
                assert_prints("^C (the proxy's last lines)", expected, lines.take(what="the proxy after Ctrl-C"))
            else:
                # The mark starts a line of its own even after output with no newline at its end
                # (curl's JSON), as a terminal's next prompt does; the empty line it leaves after
                # output that did end a line is not the command's.
                shell.stdin.write(f"{command}\nstatus=$?; printf '\\n{MARK} %s\\n' $status\n".encode())
                shell.stdin.flush()
                printed = client.take(until=MARK, what=command)
                if printed and printed[-1] == "":
                    printed.pop()
                assert_prints(command, expected, printed)
                status = client.seen[-1].split()[-1]
                assert status == "0", f"$ {command} exited {status}"
                if command == "faultline ui":
                    address = printed[0]
                    assert address.startswith("http://127.0.0.1:") and "/ui/login?ticket=" in address, printed
                    release_in_the_web_ui(chromium, address, "refresh-response")
        assert ran[-1].startswith("faultline check"), "the walkthrough ends with the check"
        # Every secret stayed out of the trace: the tokens the client saw are nowhere in it.
        with open(folder / "session.jsonl", encoding="utf-8") as handle:
            trace = handle.read()
        for name in ("login.json", "refreshed.json", "again.json"):
            with open(folder / name, encoding="utf-8") as handle:
                for value in re.findall(r'"((?:at|rt)_[^"]+)"', handle.read()):
                    assert value not in trace, f"a token of {name} is in the trace"
        assert '"ended_by":"control"' in trace.replace(" ", ""), "the holds were released from outside"
    finally:
        for process in started:
            if process.poll() is None:
                process.kill()
                process.wait(timeout=10)

"""The command line: version, help, usage errors (exit 2 with a suggestion), a busy port (exit 1),
and what happens when Faultline's CA cannot be made."""
import queue
import re
import socket
import subprocess
import threading
import time

import pytest

from harness.clients import clean_env, run


def faultline(binary, *args, timeout=10):
    done = run([binary, *args], timeout=timeout)
    return done.returncode, done.stdout.decode(errors="replace"), done.stderr.decode(errors="replace")


def test_version(faultline_binary):
    code, out, _ = faultline(faultline_binary, "--version")
    assert code == 0
    assert re.fullmatch(r"faultline \d+\.\d+\.\d+\S*\n", out), out


@pytest.mark.parametrize("args", [["--help"], ["help"], ["run", "--help"], ["help", "run"]], ids=" ".join)
def test_help_exits_0(faultline_binary, args):
    code, out, _ = faultline(faultline_binary, *args)
    assert code == 0
    assert "usage: faultline" in out
    if "run" in args:
        for option in ("--listen", "--mode", "--trace", "--redact-header", "--response-timeout"):
            assert option in out, f"run --help does not mention {option}"


@pytest.mark.parametrize("args, mentions", [
    (["run", "--lisen", "127.0.0.1:0"], ["--lisen", "did you mean '--listen'"]),
    (["run", "--listen", "127.0.0.1:0", "--trce", "-"], ["did you mean '--trace'"]),
    (["rn"], ["did you mean 'run'"]),
    (["run", "--listen", "not-an-address"], ["not-an-address"]),
    (["run", "--listen", "127.0.0.1:0", "--mode", "sideways"], ["sideways"]),
    (["run", "--listen", "127.0.0.1:0", "--response-timeout", "soon"], ["--response-timeout"]),
    (["run", "--listen"], ["--listen"]),
], ids=["misspelt-option", "misspelt-trace", "misspelt-command", "bad-address", "bad-mode", "bad-timeout",
        "missing-value"])
def test_usage_errors_exit_2_with_a_clear_message(faultline_binary, args, mentions):
    code, out, err = faultline(faultline_binary, *args)
    assert code == 2, f"{args}: exit {code}, stderr {err!r}"
    for text in mentions:
        assert text in err, f"{args}: stderr {err!r} does not mention {text!r}"
    assert "Ctrl-C stops" not in err, "a usage error must not start the proxy"


def test_port_in_use_exits_1(faultline_binary, tmp_path):
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        code, _, err = faultline(
            faultline_binary, "run", "--listen", f"127.0.0.1:{port}", "--trace", str(tmp_path / "t.jsonl"))
    assert code == 1, f"exit {code}, stderr {err!r}"
    assert "address already in use" in err.lower(), err
    assert str(port) in err, f"the message should name the port: {err!r}"


def test_an_unusable_ca_folder_stops_a_run_that_asks_for_tls(faultline_binary, tmp_path):
    env = clean_env(FAULTLINE_HOME="/dev/null/faultline")  # a folder that cannot be created
    done = run([faultline_binary, "run", "--listen", "127.0.0.1:0", "--control", "off", "--ignore", "pinned.test",
                "--trace", str(tmp_path / "t.jsonl")], env=env)
    assert done.returncode == 1, done
    assert b"/dev/null/faultline" in done.stderr, done.stderr


def test_an_unusable_ca_folder_leaves_a_plain_proxy_running_without_interception(faultline_binary, tmp_path):
    env = clean_env(FAULTLINE_HOME="/dev/null/faultline")
    process = subprocess.Popen(
        [faultline_binary, "run", "--listen", "127.0.0.1:0", "--control", "off", "--trace", str(tmp_path / "t.jsonl")],
        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    lines = queue.Queue()
    def read():
        for line in iter(process.stderr.readline, b""):
            lines.put(line)
        lines.put(None)  # end of stderr: the process is gone

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    seen = []
    try:
        deadline = time.monotonic() + 15
        while not any(b"TLS interception is off" in line for line in seen):
            remaining = deadline - time.monotonic()
            assert remaining > 0, f"no notice within 15 s: {seen}"
            try:
                line = lines.get(timeout=remaining)
            except queue.Empty:
                continue
            assert line is not None, f"faultline exited {process.wait(timeout=10)}: {seen}"
            seen.append(line)
    finally:
        process.terminate()
        code = process.wait(timeout=10)
    reader.join(timeout=10)
    assert code == 0, seen
    assert any(line.startswith(b"faultline ") and b"forward proxy on" in line for line in seen), seen


def test_intercept_lists_without_a_forward_listener_are_a_usage_error(faultline_binary, tmp_path):
    code, _, err = faultline(
        faultline_binary, "run", "--listen", "127.0.0.1:0", "--mode", "reverse:http://127.0.0.1:9",
        "--ignore", "pinned.test", "--confdir", str(tmp_path / "conf"), "--trace", str(tmp_path / "t.jsonl"))
    assert code == 2, err
    assert "forward listener" in err, err

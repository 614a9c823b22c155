"""The command line: version, help, usage errors (exit 2 with a suggestion) and a busy port (exit 1)."""
import re
import socket

import pytest

from harness.clients import run


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

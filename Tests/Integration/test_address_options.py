"""Options that take an address or URL with a port: a port above 65535 is named as out of range
(not as "not an address"), and the command exits 2 without starting anything."""
import pytest

from harness.clients import run

OUT_OF_RANGE = [
    (["run", "--listen", "127.0.0.1:99999"], "--listen", "99999"),
    (["run", "--listen", "99999"], "--listen", "99999"),
    (["run", "--listen", "[::1]:65536"], "--listen", "65536"),
    (["run", "--listen", "127.0.0.1:0", "--control", "127.0.0.1:70000"], "--control", "70000"),
    (["run", "--listen", "127.0.0.1:0", "--mode", "reverse:http://127.0.0.1:99999"], "--mode", "99999"),
    (["backend", "--listen", "127.0.0.1:99999"], "--listen", "99999"),
    (["holds", "--control", "http://127.0.0.1:99999", "--token", "t"], "--control", "99999"),
]


@pytest.mark.parametrize("args, option, port", OUT_OF_RANGE, ids=[" ".join(args) for args, _, _ in OUT_OF_RANGE])
def test_a_port_above_65535_is_named_out_of_range(faultline_binary, args, option, port):
    done = run([faultline_binary, *args], timeout=10)
    err = done.stderr.decode(errors="replace")
    assert done.returncode == 2, f"{args}: exit {done.returncode}, stderr {err!r}"
    # Listeners take 0 (any free port); an upstream or control URL needs 1-65535.
    assert f"port {port} is out of range" in err and "-65535" in err, f"{args}: {err!r}"
    assert option in err, f"{args}: the message should name {option}: {err!r}"
    assert "Ctrl-C stops" not in err, "a usage error must not start anything"


@pytest.mark.parametrize("args", [
    ["run", "--listen", "127.0.0.1:http"],
    ["backend", "--listen", "127.0.0.1:80a"],
], ids=" ".join)
def test_a_port_that_is_no_number_says_so(faultline_binary, args):
    done = run([faultline_binary, *args], timeout=10)
    err = done.stderr.decode(errors="replace")
    assert done.returncode == 2, f"{args}: exit {done.returncode}, stderr {err!r}"
    assert "port must be a number 0-65535" in err, err
    assert "expected IP:PORT" in err, err

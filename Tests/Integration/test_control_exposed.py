"""A control API bound beyond loopback (`--control 0.0.0.0:PORT`, as in the container image) warns
when the proxy starts and prints the token a caller on the host needs; every call still needs that
token. On loopback the token stays in the control file only. The exposed proxies run in a network
namespace of their own (harness/netns.py), so their 0.0.0.0 is reachable only over its loopback."""
import json
import re

from harness import netns
from harness.clients import run
from harness.faultline import Faultline
from harness.waiting import wait_until

TOKEN_LINE = re.compile(r"^faultline: control token: (.+)$", re.MULTILINE)


def control_port(proxy):
    match = re.search(r"; control on (\S+):(\d+) \(Ctrl-C stops\)", proxy.stderr)
    assert match, f"no control address in the banner: {proxy.stderr!r}"
    return match.group(1), int(match.group(2))


def status(proxy, port, token=None, path="/v1/health"):
    """The control API's answer status, asked from inside the proxy's namespace."""
    headers = ["-H", f"Authorization: Bearer {token}"] if token is not None else []
    command = netns.inside(proxy.pid, ["curl", "-sS", "--max-time", "8", "-o", "/dev/null", "-w", "%{http_code}",
                                       *headers, f"http://127.0.0.1:{port}{path}"])
    done = run(command, timeout=10)
    assert done.returncode == 0, done.stderr
    return int(done.stdout)


def start_isolated(faultline_binary, tmp_path, *args):
    netns.require()
    wrapper = netns.isolating_wrapper(str(tmp_path), faultline_binary)
    return Faultline(wrapper, ["--listen", "127.0.0.1:0", *args], str(tmp_path / "trace.jsonl"), str(tmp_path))


def test_an_exposed_control_api_warns_prints_its_token_and_requires_it(faultline_binary, tmp_path):
    control_file = tmp_path / "control.json"
    proxy = start_isolated(faultline_binary, tmp_path, "--control", "0.0.0.0:0", "--control-file", str(control_file))
    proxy.start()
    try:
        host, port = control_port(proxy)
        assert host == "0.0.0.0"
        wait_until(lambda: TOKEN_LINE.search(proxy.stderr), 10, "the control token line after the banner")
        warning = [line for line in proxy.stderr.splitlines() if "WARNING" in line and "control API" in line]
        assert warning, f"no warning about the exposed control API: {proxy.stderr!r}"
        assert "0.0.0.0" in warning[0] and "token" in warning[0], warning
        printed = TOKEN_LINE.findall(proxy.stderr)
        assert len(printed) == 1, f"the start should print the control token once: {len(printed)} lines"
        token = printed[0]
        assert token == json.loads(control_file.read_text())["token"], "the printed token is not the control file's"
        assert status(proxy, port, token) == 200
        for path in ("/v1/health", "/v1/holds", "/v1/rules", "/nope"):
            assert status(proxy, port, path=path) == 401, path
            assert status(proxy, port, token + "x", path=path) == 401, path
        assert proxy.stop() == 0, proxy.stderr
    finally:
        proxy.kill()


def test_a_token_of_ones_own_is_not_echoed(faultline_binary, tmp_path):
    mine = "my-own-control-token-0123456789"
    proxy = start_isolated(faultline_binary, tmp_path, "--control", "0.0.0.0:0", "--control-token", mine,
                           "--control-file", str(tmp_path / "control.json"))
    proxy.start()
    try:
        _, port = control_port(proxy)
        wait_until(lambda: TOKEN_LINE.search(proxy.stderr), 10, "the control token line after the banner")
        assert "WARNING" in proxy.stderr and "control API" in proxy.stderr, proxy.stderr
        assert mine not in proxy.stderr, "a token given on the command line must not be printed back"
        assert TOKEN_LINE.findall(proxy.stderr) == ["(given with --control-token)"], proxy.stderr
        assert status(proxy, port, mine) == 200
        assert status(proxy, port) == 401
        assert proxy.stop() == 0, proxy.stderr
    finally:
        proxy.kill()


def test_a_loopback_control_api_neither_warns_nor_prints_its_token(start_faultline, tmp_path):
    control_file = tmp_path / "control.json"
    proxy = start_faultline("--listen", "127.0.0.1:0", "--control", "127.0.0.1:0", "--control-file", str(control_file))
    token = json.loads(control_file.read_text())["token"]
    assert proxy.stop() == 0  # everything it printed has been read
    assert token not in proxy.stderr
    assert "WARNING" not in proxy.stderr and not TOKEN_LINE.search(proxy.stderr), proxy.stderr

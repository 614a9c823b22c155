"""What a new user met on the command line (issue 20, items 9 and 11), each as they typed it:
a `--mode` before its `--listen` opened a listener nobody asked for, a missing rules folder was an
error at `nodir:1:1`, the banner named neither the rules nor `faultline ui`, `backend --help` said
`(default: locked)` for an account name and nothing of passwords, the top-level help left out
`rules from-capture`, and every command's help listed `--help` among its options."""
import re
import socket

import pytest

from harness.clients import run
from harness.rules import RULES


def faultline(binary, *args, timeout=15):
    done = run([binary, *args], timeout=timeout)
    return done.returncode, done.stdout.decode(errors="replace"), done.stderr.decode(errors="replace")


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def port_is_free(port):
    with socket.socket() as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(("127.0.0.1", port))
        except OSError:
            return False
        return True


def test_a_mode_before_its_listen_is_refused_naming_the_order(faultline_binary):
    port = free_port()
    code, _, err = faultline(faultline_binary, "run", "--mode", "reverse:http://127.0.0.1:9",
                             "--listen", f"127.0.0.1:{port}", "--trace", "-")
    assert code == 2, err
    assert (f"faultline run: --mode reverse:http://127.0.0.1:9 comes before any --listen, but each --mode applies "
            f"to the --listen before it; write --listen 127.0.0.1:{port} --mode reverse:http://127.0.0.1:9") in err, err
    assert port_is_free(port)


@pytest.mark.parametrize("command, exit_code", [(["rules", "check"], 1), (["run", "--trace", "-", "--rules"], 2)],
                         ids=["rules check", "run"])
def test_a_missing_rules_folder_is_named_without_a_made_up_position(faultline_binary, tmp_path, command, exit_code):
    missing = str(tmp_path / "nodir")
    code, _, err = faultline(faultline_binary, *command, missing)
    assert code == exit_code, err
    assert f"{missing}: cannot read the rules folder: No such file or directory" in err, err
    assert f"{missing}:1:1" not in err
    assert "have errors" not in err, "a folder that is not there has no errors in it"


def test_the_banner_names_the_rules_and_the_web_ui(start_faultline):
    proxy = start_faultline("--listen", "127.0.0.1:0", "--rules", RULES)
    lines = proxy.stderr.split("\n")
    [rules] = [line for line in lines if line.startswith("faultline: rules from ")]
    folder = re.escape(RULES)
    assert re.fullmatch(
        rf"faultline: rules from {folder}: 9 scenarios, \d on \((?:[\w-]+, )*force-401-first-business(?:, [\w-]+)*\), "
        rf"\d+ rules, auth profile {folder}/auth-profile\.json5; 'faultline rules list' shows them", rules), rules
    assert any("'faultline ui' prints its address" in line for line in lines), proxy.stderr


def test_helps_say_what_a_new_user_needs(faultline_binary):
    for args in (["run", "--help"], ["backend", "--help"], ["check", "--help"], ["rules", "check", "--help"]):
        code, out, _ = faultline(faultline_binary, *args)
        assert code == 0, args
        options = out.split("\noptions:\n", 1)[-1]
        assert not re.search(r"^  --help\b", options, re.MULTILINE), f"{args} lists --help:\n{out}"
    _, backend, _ = faultline(faultline_binary, "backend", "--help")
    assert "(default: locked)" not in backend
    assert "Any account name signs in with any password" in backend, backend
    assert "the account named 'locked' is refused" in backend
    _, top, _ = faultline(faultline_binary, "--help")
    assert "rules from-capture" in top, top

"""Rule files as a user edits them: the running proxy reloads a changed folder (`rules.reloaded`),
refuses a broken edit while the last good rules keep running (`rules.rejected`, and stderr names
file:line:column), and `faultline rules check` reports every error with its position and a
suggestion, exiting 1."""
import os
import subprocess

import httpx
import pytest

from harness.rules import copy_examples, line_column, set_scenario_enabled, write_atomically

UPLOAD = "reset-upload.json5"
BODY = b"u" * 4096


def _upload(proxy, backend):
    """One upload through a fresh connection: 'stored' or 'reset'."""
    with httpx.Client(proxy=proxy.forward.url, trust_env=False, timeout=15) as client:
        try:
            response = client.post(f"{backend.url}/upload", content=BODY)
        except (httpx.ReadError, httpx.RemoteProtocolError, httpx.WriteError):
            return "reset"
    assert response.status_code == 200, response.text
    return "stored"


def _events(proxy, kind):
    return [event for event in proxy.events_so_far() if event["event"] == kind]


def test_hot_reload_applies_a_good_edit_and_refuses_a_broken_one(start_with_rules, rules_folder, auth_backend):
    folder = rules_folder(UPLOAD)  # shipped off
    path = os.path.join(folder, UPLOAD)
    proxy = start_with_rules(folder)
    assert _upload(proxy, auth_backend) == "stored"

    # 1. The user switches the scenario on; the proxy notices by itself.
    set_scenario_enabled(path, True)
    reloaded = proxy.wait_for_event("rules.reloaded", timeout=10)
    assert reloaded["directory"] == folder and reloaded["scenarios"] == 1
    assert _upload(proxy, auth_backend) == "reset"
    assert len(auth_backend.uploads()) == 1

    # 2. A typo: refused, with its position, and the last good rules keep running.
    with open(path, encoding="utf-8") as handle:
        good = handle.read()
    broken = good.replace("match:", "mathc:", 1)
    write_atomically(path, broken)
    rejected = proxy.wait_for_event("rules.rejected", timeout=10)
    line, column = line_column(broken, "mathc:")
    expected = f"{path}:{line}:{column}: unknown key 'mathc' in rule 'reset-upload' (did you mean 'match'?)"
    assert rejected["errors"] == [expected]
    assert expected in proxy.stderr, proxy.stderr
    assert "not reloaded; the last good rules keep running" in proxy.stderr
    assert _upload(proxy, auth_backend) == "reset"
    assert len(auth_backend.uploads()) == 1

    # 3. Put right and switched off again: loaded, and uploads pass.
    write_atomically(path, good)
    proxy.wait_for_event("rules.reloaded", timeout=10, where=lambda event: event["seq"] > rejected["seq"])
    set_scenario_enabled(path, False)
    proxy.wait_for_event("rules.reloaded", timeout=10, where=lambda event: len(_events(proxy, "rules.reloaded")) >= 3)
    assert _upload(proxy, auth_backend) == "stored"
    assert len(auth_backend.uploads()) == 2

    trace = proxy.trace()
    kinds = [event["event"] for event in trace.events if event["event"].startswith("rules.")]
    assert kinds == ["rules.loaded", "rules.reloaded", "rules.rejected", "rules.reloaded", "rules.reloaded"]
    fired = trace.of("rule.fired", rule="reset-upload/reset-upload")
    assert len(fired) == 2
    assert all(trace.one("fault.injected", flow=event["flow"])["fault"] == "reset" for event in fired)


def test_reload_of_a_broken_profile_keeps_the_lineages_going(start_with_rules, rules_folder, auth_backend):
    """The profile is reloaded like any file: a broken one is refused and roles stay as they were."""
    folder = rules_folder("duplicate-callback.json5")
    path = os.path.join(folder, "auth-profile.json5")
    proxy = start_with_rules(folder)
    with open(path, encoding="utf-8") as handle:
        good = handle.read()
    broken = good.replace("refresh: {", "refesh: {", 1)
    write_atomically(path, broken)
    rejected = proxy.wait_for_event("rules.rejected", timeout=10)
    line, column = line_column(broken, "refesh:")
    assert len(rejected["errors"]) == 1
    assert rejected["errors"][0].startswith(f"{path}:{line}:{column}: unknown key 'refesh'")
    assert "did you mean 'refresh'?" in rejected["errors"][0]
    with httpx.Client(proxy=proxy.forward.url, trust_env=False, timeout=15) as client:
        assert client.post(f"{auth_backend.url}/jobs/j1/complete").status_code == 200
    auth_backend.wait_for_callbacks("j1", 2)  # still a callback, still duplicated
    trace = proxy.trace()
    assert trace.one("request.received", role="callback")


def _check(binary, folder):
    done = subprocess.run([binary, "rules", "check", folder], capture_output=True, timeout=30)
    return done.returncode, done.stdout.decode() + done.stderr.decode()


def test_rules_check_names_every_error_with_its_position_and_a_suggestion(faultline_binary, tmp_path):
    folder = copy_examples(str(tmp_path / "rules"), "transport-faults.json5", "hold-refresh-until-logout.json5")
    assert _check(faultline_binary, folder)[0] == 0

    faults = os.path.join(folder, "transport-faults.json5")
    text = open(faults, encoding="utf-8").read()
    text = text.replace('actions: [{ fault: "reset" }]', 'actions: [{ fault: "rest" }]', 1)
    write_atomically(faults, text)
    hold = os.path.join(folder, "hold-refresh-until-logout.json5")
    hold_text = open(hold, encoding="utf-8").read().replace('onTimeout: "release"', 'onTimeout: "relase"', 1)
    hold_text = hold_text.replace("timeout: 30,", "timeout: -1,", 1)
    write_atomically(hold, hold_text)

    code, output = _check(faultline_binary, folder)
    assert code == 1, output
    fault_at = line_column(text, '"rest"')
    release_at = line_column(hold_text, '"relase"')
    timeout_at = line_column(hold_text, "-1,")
    lines = output.splitlines()
    expected = [
        f"{faults}:{fault_at[0]}:{fault_at[1]}: ",
        f"{hold}:{timeout_at[0]}:{timeout_at[1]}: ",
        f"{hold}:{release_at[0]}:{release_at[1]}: ",
    ]
    for prefix in expected:
        assert any(line.startswith(prefix) for line in lines), f"no error at {prefix!r} in:\n{output}"
    fault_line = next(line for line in lines if line.startswith(expected[0]))
    assert "found \"rest\"" in fault_line and "(did you mean 'reset'?)" in fault_line, fault_line
    release_line = next(line for line in lines if line.startswith(expected[2]))
    assert "(did you mean 'release'?)" in release_line, release_line
    assert f"3 error(s) in {folder}" in output, output


def test_rules_check_reports_a_json5_syntax_error_where_it_is(faultline_binary, tmp_path):
    folder = copy_examples(str(tmp_path / "rules"), "duplicate-callback.json5")
    path = os.path.join(folder, "duplicate-callback.json5")
    text = open(path, encoding="utf-8").read()
    broken = text.replace('name: "deliver-twice",', 'name: "deliver-twice"', 1)  # a comma missing
    assert broken != text
    write_atomically(path, broken)
    code, output = _check(faultline_binary, folder)
    assert code == 1, output
    errors = [line for line in output.splitlines() if line.startswith(path + ":")]
    assert len(errors) == 1, output
    # The parser stops at the first token that cannot follow: the key after the missing comma.
    line, column = line_column(broken, 'match: { role: "callback" }')
    assert errors[0].startswith(f"{path}:{line}:{column}: "), output
    assert "1 error(s) in" in output


@pytest.mark.parametrize("arguments", [["rules"], ["rules", "check"], ["rules", "lint", "Rules"]])
def test_rules_usage_errors_exit_2(faultline_binary, arguments):
    done = subprocess.run([faultline_binary, *arguments], capture_output=True, timeout=30)
    assert done.returncode == 2, (arguments, done.returncode, done.stderr)
    assert b"faultline rules check DIR" in done.stderr + done.stdout, done


def test_rules_check_help(faultline_binary):
    done = subprocess.run([faultline_binary, "rules", "check", "--help"], capture_output=True, timeout=30)
    assert done.returncode == 0, done.stderr
    assert b"usage: faultline rules check DIR" in done.stdout + done.stderr


def test_reload_keeps_counters_of_an_unchanged_scenario_and_rearms_an_edited_one(
        start_with_rules, rules_folder, auth_backend):
    """What force-401-first-business.json5 tells its users about re-arming it: a reload that
    finds the scenario unchanged keeps its `times` counter; an edit starts it afresh."""
    folder = rules_folder("force-401-first-business.json5")
    path = os.path.join(folder, "force-401-first-business.json5")
    proxy = start_with_rules(folder)
    access, _, _ = auth_backend.login("gina")

    def statuses(count):
        with httpx.Client(proxy=proxy.forward.url, trust_env=False, timeout=15) as client:
            return [client.get(f"{auth_backend.url}/v1/count", headers={"Authorization": f"Bearer {access}"})
                    .status_code for _ in range(count)]

    assert statuses(4) == [401, 401, 401, 200]
    # Rewritten unchanged (a later modification time, the same text): reloaded, still spent.
    stat = os.stat(path)
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 2_000_000_000))
    proxy.wait_for_event("rules.reloaded", timeout=10)
    assert statuses(1) == [200]
    # Edited: a new scenario as far as the engine is concerned, armed again.
    with open(path, encoding="utf-8") as handle:
        text = handle.read()
    write_atomically(path, text.replace("description: \"", "description: \"(edited) ", 1))
    proxy.wait_for_event("rules.reloaded", timeout=10, where=lambda event: len(_events(proxy, "rules.reloaded")) >= 2)
    assert statuses(4) == [401, 401, 401, 200]
    fired = proxy.trace().of("rule.fired", rule="force-401-first-business/expire-first-three")
    assert [event["hit"] for event in fired] == [1, 2, 3, 1, 2, 3]

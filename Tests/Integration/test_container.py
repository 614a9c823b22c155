"""The container image's run stage, as Scripts/container-check rebuilds it without Docker: a chroot
of Debian bookworm (minbase) with Scripts/runtime-packages, the release binary and the rules where
the Dockerfile puts them, run with the Dockerfile's ENV, ENTRYPOINT and CMD. The script runs this
file as root in fresh mount, network and PID namespaces, with a volume bind-mounted at
/var/lib/faultline; clients (curl) run outside the chroot, over the namespace's loopback. Anywhere
else every test here is skipped."""
import json
import os
import re
import stat

import pytest

from harness.clients import curl, run
from harness.faultline import Faultline
from harness.trace import Trace
from harness.waiting import wait_until

ROOT = os.environ.get("FAULTLINE_CONTAINER_ROOT")
VOLUME = os.environ.get("FAULTLINE_CONTAINER_VOLUME")
REPOSITORY = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
TOKEN_LINE = re.compile(r"^faultline: control token: (\S+)$", re.MULTILINE)
# Docker's default environment for a container of a Debian image (PATH comes from the image).
BASE_ENVIRONMENT = {"PATH": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "HOME": "/root"}

pytestmark = pytest.mark.skipif(
    not ROOT, reason="run by Scripts/container-check, in a chroot of the image's run stage")


def say(text):
    """A line of the check's report (pytest runs with -s)."""
    print(f"\n  container-check: {text}")


# -- the Dockerfile's run stage ------------------------------------------------------------

class RunStage:
    """The instructions after the Dockerfile's last FROM, continuation lines joined."""

    def __init__(self):
        with open(os.path.join(REPOSITORY, "Dockerfile"), encoding="utf-8") as handle:
            text = handle.read().replace("\\\n", " ")
        lines = [line.strip() for line in text.splitlines() if line.strip() and not line.strip().startswith("#")]
        last_from = max(index for index, line in enumerate(lines) if line.startswith("FROM "))
        self.instructions = [tuple(line.split(None, 1)) for line in lines[last_from:]]

    def all(self, name):
        return [argument for instruction, argument in self.instructions if instruction == name]

    def one(self, name):
        values = self.all(name)
        assert len(values) == 1, f"the run stage should have one {name}, not {values}"
        return values[0]

    @property
    def environment(self):
        pairs = {}
        for argument in self.all("ENV"):
            for word in argument.split():
                key, equals, value = word.partition("=")
                assert equals, f"ENV {argument!r}: use the KEY=VALUE form"
                pairs[key] = value
        return pairs

    def exec_form(self, name):
        value = json.loads(self.one(name))
        assert isinstance(value, list) and all(isinstance(word, str) for word in value), f"{name} in exec form"
        return value

    @property
    def volumes(self):
        return [path for argument in self.all("VOLUME") for path in json.loads(argument)]

    @property
    def exposed(self):
        return {int(word.split("/")[0]) for argument in self.all("EXPOSE") for word in argument.split()}


@pytest.fixture(scope="module")
def stage():
    return RunStage()


def in_container(stage, *args):
    """What `docker run IMAGE ARGS` executes (ARGS replace CMD), as a chroot command."""
    environment = {**BASE_ENVIRONMENT, **stage.environment}
    return ["chroot", ROOT, "/usr/bin/env", "-i", *[f"{key}={value}" for key, value in environment.items()],
            *stage.exec_form("ENTRYPOINT"), *args]


@pytest.fixture
def entrypoint(stage, tmp_path):
    """An executable that runs the image's ENTRYPOINT with its arguments, for the `Faultline`
    harness (which runs `BINARY run ARGS`); it execs, so its pid is the proxy's."""
    path = tmp_path / "entrypoint"
    quoted = " ".join("'" + word.replace("'", "'\\''") + "'" for word in in_container(stage))
    path.write_text(f'#!/bin/sh\nexec {quoted} "$@"\n')
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return str(path)


def default_command(stage, entrypoint, tmp_path, name):
    """The image started without arguments: ENTRYPOINT + CMD, not yet started."""
    command = stage.exec_form("CMD")
    assert command[0] == "run", f"the default command should run the proxy: {command}"
    return Faultline(entrypoint, command[1:], str(tmp_path / f"{name}.jsonl"), str(tmp_path))


def test_the_run_stage_is_what_this_check_rebuilds(stage):
    """Scripts/container-check reproduces exactly these instructions; anything new must be added
    there too before this passes."""
    assert stage.one("FROM") == "debian:bookworm-slim"
    known = {"FROM", "COPY", "RUN", "ENV", "VOLUME", "EXPOSE", "ENTRYPOINT", "CMD"}
    assert {name for name, _ in stage.instructions} <= known, stage.instructions
    assert sorted(stage.all("COPY")) == sorted([
        "Scripts/runtime-packages /tmp/runtime-packages",
        "--from=build /usr/local/bin/faultline /usr/local/bin/faultline",
        "Rules /etc/faultline/rules",
    ]), stage.all("COPY")
    install = stage.one("RUN")
    assert "apt-get install -y --no-install-recommends $(sed 's/#.*//' /tmp/runtime-packages)" in install, install
    assert install.count("apt-get install") == 1, install
    assert stage.environment == {"FAULTLINE_HOME": "/var/lib/faultline"}
    assert stage.volumes == ["/var/lib/faultline"]
    command = stage.exec_form("CMD")
    assert command[command.index("--rules") + 1] == "/etc/faultline/rules", command
    for option in ("--listen", "--control"):
        port = int(command[command.index(option) + 1].rsplit(":", 1)[1])
        assert port in stage.exposed, f"{option} port {port} is not in EXPOSE {stage.exposed}"


def test_every_library_the_binary_loads_is_in_the_image():
    done = run(["chroot", ROOT, "/usr/bin/ldd", "/usr/local/bin/faultline"], timeout=30)
    listing = done.stdout.decode(errors="replace")
    missing = [line.split()[0] for line in listing.splitlines() if "not found" in line]
    assert not missing, f"the run stage lacks {missing} (ldd in the chroot):\n{listing}"
    assert done.returncode == 0, listing + done.stderr.decode(errors="replace")
    libraries = [line.split()[0] for line in listing.splitlines() if "=>" in line]
    assert not [name for name in libraries if "swift" in name.lower() or "XCTest" in name or "Testing" in name], \
        f"the binary should carry the Swift runtime and no test framework: {libraries}"
    say(f"the binary loads {', '.join(libraries)}")


def test_version(stage):
    done = run(in_container(stage, "--version"), timeout=30)
    out = done.stdout.decode(errors="replace")
    assert done.returncode == 0, done
    assert re.fullmatch(r"faultline \d+\.\d+\.\d+\S*\n", out), out
    say(out.strip())


def test_the_demo_runs_and_leaves_nothing_behind(stage):
    before = sorted(os.listdir(os.path.join(ROOT, "tmp")))
    done = run(in_container(stage, "demo"), timeout=120)
    out = done.stdout.decode(errors="replace")
    assert done.returncode == 0, f"demo exited {done.returncode}:\n{out}\n{done.stderr.decode(errors='replace')}"
    assert "Every verdict is the expected one" in out, out
    assert sorted(os.listdir(os.path.join(ROOT, "tmp"))) == before, "the demo left files in /tmp"
    cases = len(re.findall(r"^▶ ", out, re.MULTILINE))
    say(f"faultline demo: {cases} cases, every verdict as expected")


def listening_sockets():
    """(address, port) of every TCP socket listening in this network namespace (/proc/net/tcp)."""
    found = set()
    with open(os.path.join(ROOT, "proc", "net", "tcp"), encoding="ascii") as handle:
        for line in handle.readlines()[1:]:
            local, state = line.split()[1], line.split()[3]
            if state == "0A":
                address, port = local.split(":")
                octets = bytes.fromhex(address)[::-1]
                found.add((".".join(str(octet) for octet in octets), int(port, 16)))
    return found


def control(port, token=None, path="/v1/health"):
    headers = ["-H", f"Authorization: Bearer {token}"] if token is not None else []
    done = curl("-w", "\n%{http_code}", *headers, f"http://127.0.0.1:{port}{path}", timeout=10)
    assert done.returncode == 0, done.stderr
    body, _, status = done.stdout.decode().rpartition("\n")
    return int(status), body


def shipped_rule_files():
    return {name for name in os.listdir(os.path.join(REPOSITORY, "Rules"))
            if name.endswith(".json5") and name != "auth-profile.json5"}


def test_the_default_command_serves_with_the_example_rules(stage, entrypoint, tmp_path, origin):
    proxy = default_command(stage, entrypoint, tmp_path, "default").start()
    try:
        listener = proxy.listener("forward")
        assert listener.host == "0.0.0.0" and listener.port in stage.exposed, proxy.listeners
        banner = re.search(r"; control on (\S+):(\d+) \(Ctrl-C stops\)", proxy.stderr)
        assert banner and banner.group(1) == "0.0.0.0", proxy.stderr
        control_port = int(banner.group(2))
        assert control_port in stage.exposed
        # What `docker run -p` needs: both sockets listen on every address, not only loopback.
        assert {("0.0.0.0", listener.port), ("0.0.0.0", control_port)} <= listening_sockets()
        wait_until(lambda: TOKEN_LINE.search(proxy.stderr), 10, "the control token printed at start")
        token = TOKEN_LINE.search(proxy.stderr).group(1)
        assert any("WARNING" in line and "control API" in line for line in proxy.stderr.splitlines()), proxy.stderr

        status, body = control(control_port, token)
        assert status == 200 and json.loads(body)["rules"] is True, body
        for path in ("/v1/health", "/v1/rules", "/v1/holds"):
            assert control(control_port, path=path)[0] == 401, path
            assert control(control_port, "not-" + token, path=path)[0] == 401, path
        status, body = control(control_port, token, "/v1/rules")
        loaded = {os.path.basename(rule["file"]) for rule in json.loads(body)}
        assert loaded == shipped_rule_files(), f"rules loaded from {loaded}"

        # The forward proxy, through the shipped rules: force-401-first-business answers the first
        # three business requests itself; the fourth reaches the origin.
        url = f"{origin.url}/echo"
        statuses = []
        for _ in range(4):
            done = curl("-x", f"http://127.0.0.1:{listener.port}", "-o", "/dev/null", "-w", "%{http_code}", url,
                        timeout=10)
            assert done.returncode == 0, done.stderr
            statuses.append(int(done.stdout))
        assert statuses == [401, 401, 401, 200], statuses
        assert proxy.stop() == 0, proxy.stderr
    finally:
        proxy.kill()
    trace = Trace.load(proxy.trace_file)
    trace.assert_well_formed()
    assert len(trace.requests("/echo")) == 4
    assert len(trace.of("rule.fired")) == 3
    say(f"default command: forward proxy on 0.0.0.0:{listener.port}, control API on 0.0.0.0:{control_port} "
        f"(token printed, required), the rules of {len(loaded)} example files loaded, curl got {statuses}")


def test_the_ca_lives_in_the_volume_and_survives_a_restart(stage, entrypoint, tmp_path):
    for name in os.listdir(VOLUME):
        os.remove(os.path.join(VOLUME, name))
    fingerprints = []
    for start in ("first", "second"):
        proxy = default_command(stage, entrypoint, tmp_path, start).start()
        try:
            event = proxy.wait_for_event("tls.configured", timeout=10)
            fingerprints.append(event["ca_sha256"])
            assert proxy.stop() == 0, proxy.stderr
        finally:
            proxy.kill()
        assert os.path.isfile(os.path.join(VOLUME, "ca.pem")), os.listdir(VOLUME)
        assert stat.S_IMODE(os.stat(os.path.join(VOLUME, "ca-key.pem")).st_mode) == 0o600
    assert fingerprints[0] == fingerprints[1], f"a restart made a new CA: {fingerprints}"
    say(f"CA in the volume (/var/lib/faultline), the same after a restart: {fingerprints[0]}")

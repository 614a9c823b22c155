"""`faultline replay client CAPTURE --target URL`: a capture recorded from real traffic (httpx
through `faultline run --capture` in reverse mode in front of `faultline backend`) is replayed
against fresh reference backends, directly and through another Faultline whose trace shows what
the server saw: the same answers, the recorded connections side by side, live credentials in
place of the capture's pseudonyms, differences a rule injects, and unusable input refused.

Nothing is ordered by sleeping: the proof of concurrency is a request of one connection held
while the other connection's requests go on (the test waits for them in the live trace, then
releases the hold), and every process, request and wait has a deadline."""
import json
import os
import re
import shutil
import subprocess
import threading
from collections import defaultdict

import httpx
import pytest

from harness.clients import clean_env, run
from harness.reference_backend import ReferenceBackend
from harness.rule_proxy import rules_proxy_starter
from harness.rules import RULES
from harness.trace import Trace, header_values

PASSWORD = "pw-Replay-7f3a91c2"
# What the reference backend's credentials look like (RandomToken: a prefix, 32 base64url chars).
LIVE_TOKEN = re.compile(r"\b(?:at|rt|sess)_[A-Za-z0-9_-]{32}")
PSEUDONYM = re.compile(r"flp\.[a-z0-9-]+\.[A-Za-z0-9]+\.\d+")

# For the Faultline between the replay and the backend: connection A's first /v1/messages and
# connection B's first /v1/me are both sent once the login is answered, in no particular order.
# Whichever reaches the rules first is held (until the test releases it): one rule, counted
# atomically across the proxy's event loops, so the other is the second and is not held. It can
# only be answered while the first is held if the recorded connections are replayed side by side.
# (Their request.received events may come in either order: two loops record them.)
HOLD_THE_FIRST = """{
  rules: [
    { name: "hold-first", match: { method: "GET", pathRegex: "^/v1/(messages|me)$" }, when: { times: 1 },
      actions: [{ hold: { name: "first", timeout: 40 } }] },
  ],
}
"""
BREAK_COUNT = """{
  rules: [
    { name: "count-fails", match: { method: "GET", path: "/v1/count" },
      actions: [{ respond: { status: 500, json: { error: "injected" } } }] },
  ],
}
"""


class Secrets(list):
    """The recording's live secrets, for checking that no output holds one; their repr names
    none of them, so a failing test's traceback does not print them."""

    def __repr__(self):
        return f"<{len(self)} secrets>"


@pytest.fixture
def reference_backend(faultline_binary):
    """Returns `start()`: a fresh `faultline backend` on an ephemeral port; all are stopped (and
    must exit 0) at teardown."""
    started = []

    def start():
        backend = ReferenceBackend(faultline_binary)
        started.append(backend)
        return backend.start()

    yield start
    codes = [backend.stop() for backend in started]
    assert all(code in (0, None) for code in codes), f"faultline backend exit statuses {codes}"


@pytest.fixture
def rules_dir(tmp_path):
    """Returns `make(name, **files)`: a folder holding the given rule files."""
    def make(name, with_profile=False, **files):
        folder = tmp_path / name
        folder.mkdir()
        if with_profile:
            shutil.copyfile(os.path.join(RULES, "auth-profile.json5"), folder / "auth-profile.json5")
        for file, text in files.items():
            (folder / f"{file}.json5").write_text(text)
        return str(folder)

    return make


@pytest.fixture
def capture(start_faultline, reference_backend, rules_dir):
    """A capture of one user's session, recorded through `faultline run --capture` with the auth
    profile: login, business calls on two kept-alive connections (A with the Bearer token, B with
    the session cookie; one pair at the same moment), a refresh, a call with the refreshed token,
    a logout, and B's cookie refused after it. Returns (path, the live secrets of the recording)."""
    backend = reference_backend()
    proxy = start_faultline(
        "--listen", "127.0.0.1:0", "--mode", f"reverse:{backend.url}", "--capture", "--rules",
        rules_dir("capture-rules", with_profile=True), "--control", "off")
    base = proxy.reverse.url
    secrets = Secrets([PASSWORD])
    with httpx.Client(base_url=base, trust_env=False, timeout=10) as a, \
            httpx.Client(base_url=base, trust_env=False, timeout=10) as b:
        login = a.post("/oauth/token", data={"grant_type": "password", "username": "alice", "password": PASSWORD})
        assert login.status_code == 200, login.text
        tokens = login.json()
        session = login.cookies["session"]
        secrets += [tokens["access_token"], tokens["refresh_token"], session]
        bearer = {"Authorization": f"Bearer {tokens['access_token']}"}
        cookie = {"Cookie": f"session={session}"}
        assert a.get("/v1/messages", headers=bearer).status_code == 200
        assert b.get("/v1/me", headers=cookie).status_code == 200
        # Both connections busy at once, as two screens loading together.
        together = threading.Barrier(2, timeout=10)
        answers = {}

        def call(name, send):
            together.wait()
            answers[name] = send()

        threads = [
            threading.Thread(target=call, args=("count", lambda: a.get("/v1/count", headers=bearer))),
            threading.Thread(target=call, args=("note", lambda: b.post(
                "/v1/notes", json={"text": "hello"}, headers={**cookie, "Idempotency-Key": "note-1"}))),
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(15)
        assert [answers["count"].status_code, answers["note"].status_code] == [200, 201], answers
        refresh = a.post("/oauth/token", data={"grant_type": "refresh_token", "refresh_token": tokens["refresh_token"]})
        assert refresh.status_code == 200, refresh.text
        renewed = refresh.json()
        secrets += [renewed["access_token"], renewed["refresh_token"]]
        renewed_bearer = {"Authorization": f"Bearer {renewed['access_token']}"}
        assert a.get("/v1/me", headers=renewed_bearer).status_code == 200
        assert a.post("/logout", headers=renewed_bearer).status_code == 204
        assert b.get("/v1/me", headers=cookie).status_code == 401
    proxy.stop()
    path = proxy.trace_file
    text = open(path, encoding="utf-8").read()
    assert not [secret for secret in secrets if secret in text], "a live secret of the recording is in the capture"
    return path, secrets


def replay(binary, capture_path, *args, timeout=60):
    """Runs `faultline replay client`; returns (exit status, stdout, stderr)."""
    done = run([binary, "replay", "client", capture_path, *args], timeout=timeout)
    return done.returncode, done.stdout.decode("utf-8", "replace"), done.stderr.decode("utf-8", "replace")


def finish(process, timeout):
    """The (stdout, stderr) of a replay started with Popen, once it exits; killed (and the test
    failed) if it outlives `timeout` seconds."""
    try:
        out, err = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        process.communicate(timeout=10)
        raise AssertionError(f"faultline replay client did not finish within {timeout}s")
    return out.decode("utf-8", "replace"), err.decode("utf-8", "replace")


def report_lines(stdout):
    """The per-request lines: number → (method, url, recorded, now, mark)."""
    pattern = re.compile(r"^#(\d+) (\S+) (\S+)  recorded (\S+) → now (.+?)  \[(same|DIFF)\]$")
    lines = {}
    for line in stdout.splitlines():
        match = pattern.match(line)
        if match:
            lines[int(match[1])] = match.groups()[1:]
    return lines


def recorded_requests(capture_path):
    """The capture's upstream requests in the order the replay numbers them, the order they
    arrived (`request.received`): (conn, method, path with query). Two concurrent requests can
    go upstream in the other order, so the forwarding order is not the numbering."""
    trace = Trace.load(capture_path)
    forwarded = {event["flow"] for event in trace.of("request.forwarded")}
    requests = []
    for event in trace.of("request.received"):
        if "duplicate_of" in event or event["flow"] not in forwarded:
            continue
        sent = trace.sent_upstream(event["flow"])
        url = sent["url"]
        requests.append((event["conn"], sent["method"], url[url.index("/", 8):]))
    return requests


def paths_by_connection(requests):
    """Request sequences per connection, as a sorted list of tuples (connection IDs differ between
    traces; the grouping and each group's order are what must match)."""
    groups = defaultdict(list)
    for conn, method, path in requests:
        groups[conn].append(f"{method} {path}")
    return sorted(tuple(group) for group in groups.values())


def assert_no_live_secret(text, secrets=()):
    """Reports show the capture's pseudonyms, never a credential the backend issued or a secret
    the test supplied (the message names none of them)."""
    assert not LIVE_TOKEN.search(text), "a live credential of the backend is in the replay's output"
    assert not [secret for secret in secrets if secret in text], "a secret of the recording is in the replay's output"


def test_a_recorded_session_replays_the_same_against_a_fresh_backend(faultline_binary, capture, reference_backend):
    """(b) Every request gets the answer it got when recorded (statuses and JSON bodies, the
    credentials being the backend's new ones), the recorded credentials never reach the server,
    and the report shows pseudonyms only."""
    capture_path, secrets = capture
    backend = reference_backend()
    code, out, err = replay(
        faultline_binary, capture_path, "--target", backend.url, "--compare", "body",
        "--secret", f"flp.password.none.1={PASSWORD}", "--timeout", "10")
    assert code == 0, f"exit {code}\n{out}\n{err}"
    lines = report_lines(out)
    requests = recorded_requests(capture_path)
    assert len(lines) == len(requests) == 9, out
    assert [line[4] for line in lines.values()] == ["same"] * 9, out
    # Lines come as answers do (the two connections' concurrent pair in either order); their
    # numbers are the recorded order.
    assert [(method, url[url.index("/", 8):]) for _, (method, url, *_) in sorted(lines.items())] == \
        [(method, path) for _, method, path in requests]
    assert all(recorded == now for _, _, recorded, now, _ in lines.values()), out
    assert sorted(line[2] for line in lines.values()) == sorted(["200"] * 6 + ["201", "204", "401"]), out
    assert "9 requests on 2 connections" in out and "PASSED: every answer is the same as recorded" in out, out
    assert "sent as recorded" not in out, "a pseudonym went to the server without its live value"
    # stderr is no terminal here: no progress lines, only the final one.
    assert re.fullmatch(
        r"faultline replay client: 9/9 requests \(100 %\), 0 different, \d+\.\d s: PASSED: [^\n]+\n", err), err
    assert_no_live_secret(out + err, secrets)
    stats = backend.stats()
    assert (stats["logins"], stats["refreshes"], stats["logouts"]) == (1, 1, 1), stats
    # Only the last call (after the logout) was refused, as recorded; the password was accepted.
    assert stats["unauthorized"] == 1 and stats["rejectedLogins"] == 0, stats


@pytest.fixture
def start_rules_proxy(start_faultline, faultline_binary, tmp_path):
    return rules_proxy_starter(start_faultline, faultline_binary, tmp_path)


def test_connections_replay_side_by_side_each_in_order_on_one_connection(
        faultline_binary, capture, reference_backend, start_rules_proxy):
    """(b) Concurrency as recorded, seen from a Faultline in front of the backend: while the first
    of connection A's /v1/messages and connection B's /v1/me is held, the other one arrives; and
    each recorded connection's requests arrive in order on one connection of their own."""
    capture_path, secrets = capture
    backend = reference_backend()
    witness = start_rules_proxy(
        {"hold.json5": HOLD_THE_FIRST}, listen=("--listen", "127.0.0.1:0", "--mode", f"reverse:{backend.url}"))
    replaying = subprocess.Popen(
        [faultline_binary, "replay", "client", capture_path, "--target", witness.reverse.url, "--speed", "0",
         "--secret", f"flp.password.none.1={PASSWORD}", "--timeout", "45"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=clean_env())
    try:
        held = witness.control.wait_for_holds("first", timeout=15)[0]
        held_request = witness.wait_for_event("request.received", flow=held["flow"])
        other_path = "/v1/me" if held_request["path"] == "/v1/messages" else "/v1/messages"
        other = witness.wait_for_event("request.received", timeout=15, path=other_path)
        assert witness.control.holds_named("first"), "the hold ended before the other connection's request came"
    except BaseException:
        replaying.kill()
        replaying.communicate(timeout=10)
        raise
    witness.control.release("first")
    out, err = finish(replaying, timeout=45)
    assert replaying.returncode == 0, f"exit {replaying.returncode}\n{out}\n{err}"
    trace = witness.trace()
    ended = trace.one("hold.ended", flow=held["flow"])
    assert ended["ended_by"] == "control" and held_request["conn"] != other["conn"]
    # Overlap: the held request had arrived before the other was answered, and the other arrived
    # before the hold ended (the held one is answered only after). Not `hold.started` before the
    # other's answer: on a busy machine the held flow's loop can be descheduled between the
    # rule's decision and its trace, while the other loop serves the other request whole (CI).
    other_answered = trace.one("response.delivered", flow=other["flow"])
    assert other["seq"] < ended["seq"] and held_request["seq"] < other_answered["seq"], \
        "the two connections' requests did not overlap"
    replayed = [(event["conn"], event["method"], event["url"][event["url"].index("/", 8):])
                for event in trace.of("request.received")]
    assert paths_by_connection(replayed) == paths_by_connection(recorded_requests(capture_path))
    assert len({conn for conn, *_ in replayed}) == 2, "a recorded connection was replayed on more than one"
    assert_no_live_secret(out + err, secrets)


def test_the_server_sees_live_credentials_never_pseudonyms(
        faultline_binary, capture, reference_backend, start_faultline):
    """The capture's pseudonyms are replaced wherever the replay learned a live value: a Faultline
    capturing with raw secrets in front of the backend shows what the server got (its file is
    read here and never printed)."""
    capture_path, _ = capture
    backend = reference_backend()
    witness = start_faultline(
        "--listen", "127.0.0.1:0", "--mode", f"reverse:{backend.url}", "--control", "off", "--capture",
        "--capture-secrets", "keep")
    code, out, err = replay(
        faultline_binary, capture_path, "--target", witness.reverse.url, "--speed", "4",
        "--secret", f"flp.password.none.1={PASSWORD}")
    assert code == 0, f"exit {code}\n{out}\n{err}"
    witness.stop()
    seen = Trace.load(witness.trace_file)
    forwarded = seen.of("request.forwarded")
    assert len(forwarded) == 9
    for number, event in enumerate(forwarded, start=1):
        sent = json.dumps(seen.sent_upstream(event["flow"])) + json.dumps(event.get("content", {}))
        assert not PSEUDONYM.search(sent), f"request #{number} reached the server with a pseudonym"
    login = forwarded[0]["content"]["data"]
    assert f"password={PASSWORD}" in login, "the --secret value was not sent in place of the password"
    bearers = [header_values(seen.sent_upstream(event["flow"])["headers"], "Authorization") for event in forwarded]
    assert all(LIVE_TOKEN.fullmatch(value.removeprefix("Bearer ")) for values in bearers for value in values)


def test_a_rule_injected_difference_is_reported_and_allow_decides(
        faultline_binary, capture, reference_backend, rules_dir, start_faultline):
    """(c) A rule answers /v1/count with 500: the report names that request as DIFF (200 → 500),
    the summary lists it, exit 1; with --allow 1 the same replay exits 0."""
    capture_path, secrets = capture
    backend = reference_backend()
    breaker = start_faultline(
        "--listen", "127.0.0.1:0", "--mode", f"reverse:{backend.url}", "--control", "off",
        "--rules", rules_dir("break", count=BREAK_COUNT))
    code, out, err = replay(
        faultline_binary, capture_path, "--target", breaker.reverse.url, "--speed", "0",
        "--secret", f"flp.password.none.1={PASSWORD}")
    assert code == 1, f"exit {code}\n{out}\n{err}"
    lines = report_lines(out)
    differing = {number: line for number, line in lines.items() if line[4] == "DIFF"}
    assert len(differing) == 1, out
    number, (method, url, recorded, now, _) = next(iter(differing.items()))
    assert (method, url.endswith("/v1/count"), recorded, now) == ("GET", True, "200", "500"), out
    assert f"#{number} GET {url}: status 200 → 500" in out
    assert "FAILED: 1 difference, more than --allow 0" in out
    assert "1 different" in err.splitlines()[-1], err
    code, out, err = replay(
        faultline_binary, capture_path, "--target", breaker.reverse.url, "--speed", "0",
        "--secret", f"flp.password.none.1={PASSWORD}", "--allow", "1", "--format", "json")
    assert code == 0, f"exit {code}\n{out}\n{err}"
    report = json.loads(out)
    assert report["passed"] and report["summary"]["differences"] == 1 and report["summary"]["allowed"] == 1
    assert [request["outcome"] for request in report["requests"]].count("different") == 1
    assert_no_live_secret(out + err, secrets)


def test_an_https_target_is_verified_against_the_given_ca(
        faultline_binary, capture, reference_backend, start_faultline, tmp_path):
    """https targets: TLS over the blocking socket, the certificate checked against --target-ca
    (here a Faultline TLS listener's CA); without it every request fails and the report says why."""
    capture_path, _ = capture
    backend = reference_backend()
    confdir = str(tmp_path / "confdir")
    tls_front = start_faultline(
        "--listen", "127.0.0.1:0", "--tls", "--mode", f"reverse:{backend.url}", "--confdir", confdir,
        "--control", "off")
    ca = run([faultline_binary, "ca", "path", "--confdir", confdir]).stdout.decode().strip()
    target = tls_front.reverse.url
    assert target.startswith("https://")
    code, out, err = replay(
        faultline_binary, capture_path, "--target", target, "--target-ca", ca, "--speed", "0",
        "--secret", f"flp.password.none.1={PASSWORD}")
    assert code == 0, f"exit {code}\n{out}\n{err}"
    code, out, err = replay(faultline_binary, capture_path, "--target", target, "--speed", "0", "--timeout", "5")
    assert code == 1, out
    assert "9 failed" in out and "TLS" in out, out


def test_unusable_input_exits_2(faultline_binary, capture, tmp_path, start_faultline):
    """(d) A capture with a malformed line is refused with FILE:LINE; no --target is a usage error;
    a plain trace is not a capture; bad option values are named."""
    capture_path, _ = capture
    broken = str(tmp_path / "broken.jsonl")
    with open(capture_path, encoding="utf-8") as source:
        lines = source.read().split("\n")
    lines[2] = '{"seq": 2, "event": '
    with open(broken, "w", encoding="utf-8") as handle:
        handle.write("\n".join(lines))
    code, out, err = replay(faultline_binary, broken, "--target", "http://127.0.0.1:9")
    assert code == 2 and out == ""
    assert f"{broken}:3:" in err, err

    code, _, err = replay(faultline_binary, capture_path)
    assert code == 2 and "--target URL is required" in err, err
    code, _, err = replay(faultline_binary, capture_path, "--target", "ftp://x")
    assert code == 2 and "--target" in err, err
    code, _, err = replay(faultline_binary, capture_path, "--target", "http://127.0.0.1:9", "--spede", "2")
    assert code == 2 and "did you mean '--speed'" in err, err
    code, _, err = replay(faultline_binary, capture_path, "--target", "http://127.0.0.1:9", "--compare", "bdy")
    assert code == 2 and "did you mean 'body'" in err, err
    code, _, err = replay(faultline_binary, str(tmp_path / "missing.jsonl"), "--target", "http://127.0.0.1:9")
    assert code == 2 and "no such file" in err, err

    plain = start_faultline("--listen", "127.0.0.1:0", "--control", "off")
    plain.stop()
    code, _, err = replay(faultline_binary, plain.trace_file, "--target", "http://127.0.0.1:9")
    assert code == 2 and "plain trace" in err, err

    done = run([faultline_binary, "replay", "client", "--help"])
    assert done.returncode == 0 and b"--target URL" in done.stdout


def test_progress_goes_to_stderr_when_asked(faultline_binary, capture, reference_backend):
    """`--progress` says how far a replay got on stderr even when stderr is no terminal: lines
    counting up before the final one, and nothing of them on stdout."""
    capture_path, secrets = capture
    backend = reference_backend()
    code, out, err = replay(
        faultline_binary, capture_path, "--target", backend.url, "--speed", "0", "--progress",
        "--secret", f"flp.password.none.1={PASSWORD}")
    assert code == 0, f"exit {code}\n{out}\n{err}"
    progress = re.compile(r"^faultline replay client: (\d)/9 requests \((\d+) %\), 0 different, \d+\.\d s$")
    lines = err.splitlines()
    counts = [int(match[1]) for match in map(progress.match, lines[:-1]) if match]
    assert counts and counts == sorted(counts) and counts[-1] < 9, err
    assert lines[-1].startswith("faultline replay client: 9/9 requests (100 %)"), err
    assert "faultline replay client:" not in out
    assert_no_live_secret(out + err, secrets)


def test_speed_scales_the_recorded_gaps(faultline_binary, start_faultline, origin, rules_dir):
    """A request that went upstream a second after the first (a recorded `delay`) is sent that
    long after it at --speed 1, half as long at --speed 2, and at once at --speed 0. Only lower
    bounds are asserted, except for speed 0, whose bound is the recorded gap itself."""
    recorder = start_faultline(
        "--listen", "127.0.0.1:0", "--mode", f"reverse:{origin.url}", "--capture", "--control", "off",
        "--rules", rules_dir("late-second", second="""{
          rules: [{ name: "late", match: { path: "/sink" }, actions: [{ delay: 1 }] }],
        }"""))
    with httpx.Client(base_url=recorder.reverse.url, trust_env=False, timeout=10) as client:
        assert client.get("/echo?first").status_code == 200
        assert client.get("/sink?second").status_code == 200
    assert recorder.stop() == 0
    forwarded = [event["mono_ns"] for event in Trace.load(recorder.trace_file).of("request.forwarded")]
    gap = (forwarded[1] - forwarded[0]) / 1e9
    assert gap >= 1.0, gap
    sent_after = {}
    for speed in ("1", "2", "0"):
        code, out, err = replay(faultline_binary, recorder.trace_file, "--target", origin.url, "--speed", speed,
                                "--format", "json")
        assert code == 0, f"exit {code}\n{out}\n{err}"
        requests = json.loads(out)["requests"]
        sent_after[speed] = requests[1]["sent_after_seconds"] - requests[0]["sent_after_seconds"]
    assert sent_after["1"] >= gap - 0.01, sent_after
    assert sent_after["2"] >= gap / 2 - 0.01, sent_after
    assert sent_after["0"] < gap / 2, sent_after

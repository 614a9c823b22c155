"""`faultline replay serve`'s options as a user types them (`--match`, `--ignore-param`,
`--repeat`, `--order recorded` with its deadline), `faultline rules from-capture` run as a command,
and `faultline check` reading a replay's own trace. The matching and ordering logic has its unit
tests (Tests/FaultlineReplayTests); these prove the command line reaches it."""
import json
import os
import re
import subprocess

import pytest

from harness.clients import run
from harness.control import Control
from harness.http_clients import httpx_client
from harness.overlap import Background, record_overlapped

pytestmark = pytest.mark.timeout(90)


def echoed(response, name):
    """The value of request header `name` that the origin's /echo saw when it answered."""
    assert response.status_code == 200, response.text
    return [value for key, value in response.json()["headers"] if key.lower() == name.lower()]


@pytest.fixture
def two_tries(start_faultline, origin):
    """A capture of two identical requests (the same method, URL and body) that differ only in an
    `X-Try` header the origin echoes, so each recorded answer says which one it is."""
    proxy = start_faultline("--listen", "127.0.0.1:0", "--capture")
    url = f"{origin.url}/echo?item=1&session=s1"
    with httpx_client(proxy.listeners[0].url) as client:
        for attempt in ("1", "2"):
            assert echoed(client.get(url, headers={"X-Try": attempt}), "X-Try") == [attempt]
    assert proxy.stop() == 0
    return proxy.trace_file, url


def tries_answered(start_replay, capture, url, *options, headers=(), query=None):
    """Sends one GET per entry of `headers` through `replay serve CAPTURE *options`; returns the
    answers."""
    replay = start_replay(capture, "--listen", "127.0.0.1:0", *options)
    with httpx_client(replay.listeners[0].url) as client:
        answers = [client.get(query or url, headers=header) for header in headers]
    assert replay.stop() == 0
    return answers


@pytest.mark.parametrize("policy, tries", [("last", ["1", "2", "2", "2"]), ("cycle", ["1", "2", "1", "2"])])
def test_repeat_decides_what_comes_after_the_recording(start_replay, two_tries, policy, tries):
    capture, url = two_tries
    answers = tries_answered(start_replay, capture, url, "--repeat", policy, headers=[{"X-Try": "9"}] * 4)
    assert [echoed(answer, "X-Try")[0] for answer in answers] == tries


def test_match_header_picks_the_recording_that_sent_it(start_replay, two_tries):
    capture, url = two_tries
    # Without the header in the match, the first request gets the first recording whatever it sends.
    first = tries_answered(start_replay, capture, url, headers=[{"X-Try": "2"}])
    assert echoed(first[0], "X-Try") == ["1"]
    chosen = tries_answered(
        start_replay, capture, url, "--match", "method,host,path,query,header:X-Try",
        headers=[{"X-Try": "2"}, {"X-Try": "1"}, {"X-Try": "3"}])
    assert [answer.status_code for answer in chosen] == [200, 200, 502]
    assert [echoed(answer, "X-Try") for answer in chosen[:2]] == [["2"], ["1"]]
    assert chosen[2].headers["X-Faultline-Error"] == "replay-unmatched" and "x-try" in chosen[2].text.lower()


def test_match_refuses_a_part_it_does_not_know(faultline_binary, two_tries):
    capture, _ = two_tries
    done = run([faultline_binary, "replay", "serve", capture, "--listen", "127.0.0.1:0", "--match", "method,colour"], timeout=20)
    assert done.returncode == 2
    assert b"unknown part 'colour'" in done.stderr and b"header:NAME" in done.stderr


def test_ignore_param_drops_a_volatile_query_parameter(start_replay, two_tries):
    capture, url = two_tries
    other_session = url.replace("session=s1", "session=s2")
    strict = tries_answered(start_replay, capture, url, query=other_session, headers=[{}])
    assert strict[0].status_code == 502 and "session" in strict[0].text
    relaxed = tries_answered(start_replay, capture, url, "--ignore-param", "session", query=other_session, headers=[{}])
    assert echoed(relaxed[0], "X-Try") == ["1"]


@pytest.fixture
def overlapped(start_faultline, origin, tmp_path):
    """A capture in which two requests overlapped (harness/overlap.py)."""
    return record_overlapped(start_faultline, origin, tmp_path)


def test_order_recorded_holds_an_answer_until_what_came_before_it_has_happened(start_replay, overlapped, tmp_path):
    capture, base, recorded_sink = overlapped
    control_file = str(tmp_path / "replay-control.json")
    replay = start_replay(capture, "--listen", "127.0.0.1:0", "--order", "recorded", "--order-timeout", "30",
                          "--control-file", control_file)
    assert "answers wait for the recorded order" in replay.stderr
    sink = Background(lambda: httpx_client(replay.listeners[0].url), f"{base}/sink?first")
    # /sink's recorded answer came after /echo's: it waits for /echo, which only the test sends,
    # and the trace says so while it waits.
    waiting = replay.wait_for_event("replay.waiting", recorded_flow=recorded_sink)
    flow = waiting["flow"]
    assert any("/echo" in step and "delivered" in step for step in waiting["waiting_for"]), waiting
    assert waiting["deadline_s"] == 30
    assert not sink.done() and not [e for e in replay.events_so_far() if e.get("event") == "response.delivered"]
    with httpx_client(replay.listeners[0].url) as client:
        assert client.get(f"{base}/echo?second").status_code == 200
    assert sink.result(20).status_code == 200
    assert replay.stop() == 0
    trace = replay.trace()
    assert [event["flow"] for event in trace.of("response.delivered")][-1] == flow
    assert trace.one("replay.matched", flow=flow)["recorded_flow"] == recorded_sink
    assert not trace.of("replay.diverged")


def test_without_order_recorded_the_answer_does_not_wait(start_replay, overlapped):
    capture, base, _ = overlapped
    replay = start_replay(capture, "--listen", "127.0.0.1:0")
    with httpx_client(replay.listeners[0].url) as client:
        assert client.get(f"{base}/sink?first").status_code == 200
    assert replay.stop() == 0
    assert not replay.trace().of("replay.diverged")


def test_a_client_that_diverges_is_answered_at_the_deadline_and_told_where(start_replay, overlapped):
    capture, base, recorded_sink = overlapped
    replay = start_replay(capture, "--listen", "127.0.0.1:0", "--order", "recorded", "--order-timeout", "1")
    with httpx_client(replay.listeners[0].url) as client:
        # /echo never comes: /sink's answer goes at the deadline instead of never.
        assert client.get(f"{base}/sink?first").status_code == 200
    assert replay.stop() == 0
    notice = [line for line in replay.stderr.splitlines() if "diverged from the recorded order" in line]
    assert notice and re.search(rf"at recorded flow {recorded_sink}: waited 1(\.0)?s for the recorded order; still missing: .*/echo", notice[0]), notice
    diverged = replay.trace().one("replay.diverged")
    assert diverged["recorded_flow"] == recorded_sink and any("/echo" in step for step in diverged["missing"])


def test_rules_from_capture_stage_the_recorded_order_against_a_live_origin(
        faultline_binary, start_faultline, overlapped, tmp_path):
    capture, base, _ = overlapped
    rules = tmp_path / "order-rules"
    rules.mkdir()
    written = rules / "recorded-order.json5"
    done = run([faultline_binary, "rules", "from-capture", capture, "-o", str(written), "--hold-timeout", "20"], timeout=20)
    assert done.returncode == 0, done.stderr
    assert written.exists() and b"recorded-order.json5" in done.stdout + done.stderr
    checked = run([faultline_binary, "rules", "check", str(rules)], timeout=20)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    text = written.read_text()
    assert "timeout: 20" in text or '"timeout": 20' in text, text
    # Against the live origin, /sink's answer now waits for /echo as it did when recorded.
    control_file = str(tmp_path / "live-control.json")
    live = start_faultline("--listen", "127.0.0.1:0", "--rules", str(rules), "--control-file", control_file)
    sink = Background(lambda: httpx_client(live.listeners[0].url), f"{base}/sink?first")
    Control(live.binary, control_file).wait_for_holds(json5_hold_name(text))
    assert not sink.done()
    with httpx_client(live.listeners[0].url) as client:
        assert client.get(f"{base}/echo?second").status_code == 200
    assert sink.result(20).status_code == 200
    assert live.stop() == 0
    trace = live.trace()
    ended = trace.one("hold.ended")
    assert ended["ended_by"] != "timeout", ended
    sink_flow = trace.one("request.received", path="/sink")["flow"]
    assert [event["flow"] for event in trace.of("response.delivered")][-1] == sink_flow


def json5_hold_name(text):
    """The name of the one hold a generated rule file holds."""
    names = re.findall(r"hold: \{ name: \"([^\"]+)\"|\"hold\": \{\s*\"name\": \"([^\"]+)\"", text)
    flat = [a or b for a, b in names]
    assert len(flat) == 1, text
    return flat[0]


def test_check_reads_a_replays_own_trace(faultline_binary, start_replay, overlapped):
    capture, base, _ = overlapped
    replay = start_replay(capture, "--listen", "127.0.0.1:0")
    with httpx_client(replay.listeners[0].url) as client:
        assert client.get(f"{base}/echo?second").status_code == 200
        assert client.get(f"{base}/never-recorded").status_code == 502
    assert replay.stop() == 0
    done = subprocess.run([faultline_binary, "check", replay.trace_file, "--format", "json"],
                          capture_output=True, text=True, timeout=30)
    assert done.returncode == 0, done.stdout + done.stderr
    report = json.loads(done.stdout)
    assert report["violations"] == [] and os.path.getsize(replay.trace_file) > 0

"""Fixes the new proxy core makes to how flows end, written before the fix (each starts as a failing
test): a client that leaves while its request or response is held ends the hold (`hold.ended`
with `outcome: "client-gone"`, then `flow.aborted`) and nothing of it reaches the origin; `release
NAME` takes the oldest hold that is still alive; `hold.ended` says what ended it (`ended_by`:
control, event, deadline, client-gone); a response-phase rule can match on the request body;
`jsonSet` changes one value and leaves every other byte of the body alone; a rewritten status gets
its own reason phrase; a `duplicate` copy is a flow with the same response timeout as the original.

Rule files are written by each test (harness/rule_proxy.py); the holds are driven with the real
commands (`faultline holds`, `release`, `fail`) through the proxy's own --control-file
(harness/control.py). Nothing is ordered by sleeping: the test waits for a hold to be listed, for
an event in the live trace, or for a request at the origin, each with a deadline. The hold
deadlines of 0.3 s are the proxy's own timers under test."""
import json
import socket
import struct
import uuid

import httpx
import pytest

from harness.control import released_flows
from harness.rawhttp import PeerClosed, RawConnection, request_bytes
from harness.recording_origin import STALL, Answer, RecordingOrigin
from harness.rule_proxy import rules_proxy_starter
from harness.waiting import wait_until

# A client can leave by closing its socket (FIN: what the kernel sends for a killed curl) or by
# resetting it (RST: SO_LINGER 0). Both mean nobody will read the response.
LEAVING = ["close", "reset"]

# Where hold.ended names the event reference that released the hold (with `ended_by: "event"`).
# Not `event`: every trace line's `event` field is its kind ("hold.ended"; README.md "The trace"),
# so the reference gets the name hold.started already gives it.
EVENT_REFERENCE_FIELD = "release_on"


@pytest.fixture
def rules_proxy(start_faultline, faultline_binary, tmp_path):
    return rules_proxy_starter(start_faultline, faultline_binary, tmp_path)


@pytest.fixture
def recording_origin():
    """Returns `make(name="origin", answer=None)`: a started RecordingOrigin, stopped at teardown."""
    started = []

    def make(name="origin", answer=None):
        server = RecordingOrigin(name, answer).start()
        started.append(server)
        return server

    yield make
    for server in started:
        server.stop()


def scenario(*rules, description="Written by test_flow_core_fixes.py."):
    """A scenario file's text (JSON, which is JSON5) holding `rules`."""
    return f"// {description}\n" + json.dumps({"description": description, "rules": list(rules)}, indent=2) + "\n"


def hold_rule(hold, path="/held", phase="request", name="hold-it", **match):
    """A rule holding flows to `path` (response phase: only 200 responses) with the `hold` action."""
    rule_match = {"path": path, **match}
    rule = {"name": name, "match": rule_match, "actions": [{"hold": hold}]}
    if phase == "response":
        rule["phase"] = "response"
        rule_match.setdefault("status", 200)
    return rule


def marker():
    return uuid.uuid4().hex[:10]


def send_get(proxy, origin, target):
    """Opens a raw connection to the forward listener and sends `GET http://origin<target>`;
    returns the open RawConnection (the caller closes it)."""
    connection = RawConnection("127.0.0.1", proxy.forward.port, timeout=10)
    connection.send(request_bytes("GET", f"http://{origin.authority}{target}", [("Host", origin.authority)]))
    return connection


def leave(connection, how):
    """The client goes away: a close (FIN) or an abortive close (RST)."""
    if how == "reset":
        connection.sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    connection.close()


def barrier(proxy, origin):
    """A later request through the same proxy that must reach the origin: once it has, a held
    request the proxy had (wrongly) let go would have arrived before it on any sane schedule."""
    path = f"/after-{marker()}"
    with httpx.Client(proxy=proxy.forward.url, trust_env=False, timeout=10) as client:
        assert client.get(f"{origin.url}{path}").status_code == 200
    origin.wait_for(1, path)


def assert_fields(traced, /, **expected):
    """The traced event's fields named in `expected` have those values ("<absent>": no such
    field); the message shows the whole event."""
    actual = {key: traced.get(key, "<absent>") for key in expected}
    assert actual == expected, (
        f"{traced['event']} of flow {traced.get('flow')}: {actual}, expected {expected}: {traced}")


def live_events(proxy, kind, **match):
    return [e for e in proxy.events_so_far() if e.get("event") == kind and all(e.get(k) == v for k, v in match.items())]


# -- 1. a client leaves while its request is held ---------------------------------------------


@pytest.mark.parametrize("how", LEAVING)
def test_client_leaving_a_held_request_ends_the_hold_and_nothing_reaches_the_origin(
        rules_proxy, recording_origin, how):
    origin = recording_origin()
    proxy = rules_proxy({"core.json5": scenario(hold_rule({"name": "h"}))})
    mark = marker()
    connection = send_get(proxy, origin, f"/held?{mark}")
    try:
        held = proxy.control.wait_for_holds("h")[0]
        assert held["phase"] == "request", held
        flow = held["flow"]
    finally:
        leave(connection, how)

    ended = proxy.wait_for_event("hold.ended", timeout=10, flow=flow)
    assert_fields(ended, outcome="client-gone", ended_by="client-gone")
    aborted = proxy.wait_for_event("flow.aborted", timeout=10, flow=flow)
    assert ended["seq"] < aborted["seq"], (ended, aborted)
    proxy.control.wait_hold_gone(flow)

    # Nothing is held any more, so a release finds nothing (exit 1, the API's 404 message)...
    released = proxy.control.release("h")
    assert released.returncode == 1, (released.returncode, released.stdout, released.stderr)
    assert "no hold named 'h'" in released.stderr.decode(), released.stderr
    # ...and the request never reaches the origin, not even after that release.
    barrier(proxy, origin)
    assert origin.seen("/held") == [], origin.seen("/held")

    trace = proxy.trace()
    assert len(trace.of("hold.ended", flow=flow)) == 1
    assert not trace.of("request.forwarded", flow=flow)
    assert not trace.of("response.delivered", flow=flow)


# -- 2. `release NAME` takes the oldest hold whose client is still there ------------------------


@pytest.mark.parametrize("how", LEAVING)
def test_release_takes_the_oldest_live_hold(rules_proxy, recording_origin, how):
    """A and B are held under "h", A first; A leaves. Once the trace says A's flow is over
    (flow.aborted), `release h` must take B: a hold whose client is gone is not a candidate, even
    if it is the oldest."""
    origin = recording_origin()
    proxy = rules_proxy({"core.json5": scenario(hold_rule({"name": "h"}))})
    first = send_get(proxy, origin, "/held?client=A")
    second = None
    try:
        flow_a = proxy.control.wait_for_holds("h", 1)[0]["flow"]
        second = send_get(proxy, origin, "/held?client=B")
        holds = proxy.control.wait_for_holds("h", 2)
        assert holds[0]["flow"] == flow_a, holds  # oldest first
        flow_b = holds[1]["flow"]
    finally:
        leave(first, how)
    try:
        # A is gone: its flow ends (flow.aborted), after which only B is worth releasing.
        proxy.wait_for_event("flow.aborted", timeout=10, flow=flow_a)
        done = proxy.control.release("h")
        assert released_flows(done) == [flow_b], f"release took {done.stdout!r}, not B's flow {flow_b}"
        response = second.read_response(timeout=10)
    finally:
        second.close()
    assert response.status == 200, response
    answer = json.loads(response.body)
    assert (answer["path"], answer["query"]) == ("/held", "client=B"), answer
    assert [request.query for request in origin.seen("/held")] == ["client=B"]

    trace = proxy.trace()
    assert trace.one("hold.ended", flow=flow_b)["outcome"] == "released"
    trace.assert_complete_flow(flow_b, status=200)
    assert not trace.of("request.forwarded", flow=flow_a)


# -- 3. a client leaves while its response is held --------------------------------------------


@pytest.mark.parametrize("how", LEAVING)
def test_client_leaving_a_held_response_ends_the_hold(rules_proxy, recording_origin, how):
    origin = recording_origin()
    proxy = rules_proxy({"core.json5": scenario(hold_rule({"name": "h"}, path="/held-response", phase="response"))})
    connection = send_get(proxy, origin, f"/held-response?{marker()}")
    try:
        held = proxy.control.wait_for_holds("h")[0]
        assert held["phase"] == "response", held
        flow = held["flow"]
    finally:
        leave(connection, how)
    assert len(origin.seen("/held-response")) == 1  # the request did go out; its answer is held

    ended = proxy.wait_for_event("hold.ended", timeout=10, flow=flow)
    assert_fields(ended, outcome="client-gone", ended_by="client-gone")
    aborted = proxy.wait_for_event("flow.aborted", timeout=10, flow=flow)
    assert ended["seq"] < aborted["seq"], (ended, aborted)
    proxy.control.wait_hold_gone(flow)

    trace = proxy.trace()
    assert trace.one("response.received", flow=flow)["status"] == 200
    assert not trace.of("response.delivered", flow=flow)


# -- 4. `hold.ended` says what ended it ----------------------------------------------------------

CONTROL_ENDINGS = [
    # (command, options, outcome, what the client gets: a status, or None for a reset)
    pytest.param("release", (), "released", 200, id="release"),
    pytest.param("release", ("--status", "503", "--body", "answered by the test"), "released-with-response", 503,
                 id="release-with-status"),
    pytest.param("fail", (), "failed", None, id="fail"),
]


@pytest.mark.parametrize("phase", ["request", "response"])
@pytest.mark.parametrize("command, options, outcome, client_status", CONTROL_ENDINGS)
def test_hold_ended_through_the_control_api_says_control(
        rules_proxy, recording_origin, phase, command, options, outcome, client_status):
    origin = recording_origin()
    proxy = rules_proxy({"core.json5": scenario(hold_rule({"name": "h"}, phase=phase))})
    connection = send_get(proxy, origin, f"/held?{marker()}")
    try:
        flow = proxy.control.wait_for_holds("h")[0]["flow"]
        done = proxy.control.command(command, "h", "--json", *options)
        assert released_flows(done, "failed" if command == "fail" else "released") == [flow]
        if client_status is None:
            with pytest.raises(PeerClosed):
                connection.read_response(timeout=10)
        else:
            response = connection.read_response(timeout=10)
            assert response.status == client_status, response
            if client_status == 503:
                assert response.body == b"answered by the test"
    finally:
        connection.close()

    ended = proxy.wait_for_event("hold.ended", timeout=10, flow=flow)
    assert_fields(ended, outcome=outcome, ended_by="control")


EVENT_REFERENCES = [
    # (the reference as a rule file writes it, the request that makes it happen)
    pytest.param("rule:trigger", ("GET", "/trigger"), id="rule"),
    pytest.param("logout.forwarded", ("POST", "/logout"), id="flow-event"),
]


@pytest.mark.parametrize("reference, trigger", EVENT_REFERENCES)
def test_hold_released_by_an_event_says_event_and_which(rules_proxy, recording_origin, reference, trigger):
    origin = recording_origin()
    rules = [
        hold_rule({"name": "h", "release": {"on": reference}}),
        {"name": "trigger", "match": {"path": "/trigger"}, "actions": [{"respond": {"status": 204}}]},
    ]
    files = {"core.json5": scenario(*rules)}
    if reference.startswith("logout."):
        files["auth-profile.json5"] = '// Only a logout endpoint.\n{ logout: { method: "POST", path: "/logout" } }\n'
    proxy = rules_proxy(files)
    connection = send_get(proxy, origin, f"/held?{marker()}")
    try:
        held = proxy.control.wait_for_holds("h")[0]
        flow = held["flow"]
        assert held["release_on"] == reference, held
        method, path = trigger
        with httpx.Client(proxy=proxy.forward.url, trust_env=False, timeout=10) as client:
            client.request(method, f"{origin.url}{path}")
        response = connection.read_response(timeout=10)
    finally:
        connection.close()
    assert response.status == 200, response
    assert len(origin.seen("/held")) == 1

    ended = proxy.wait_for_event("hold.ended", timeout=10, flow=flow)
    assert_fields(ended, outcome="released", ended_by="event", **{EVENT_REFERENCE_FIELD: reference})


TIMEOUT_FORMS = [
    # (onTimeout, `applied`, the status it applies or None, what the client gets: status or None for a reset)
    pytest.param("release", "release", None, 200, id="release"),
    pytest.param({"status": 503}, "status", 503, 503, id="status"),
    pytest.param("reset", "reset", None, None, id="reset"),
]


@pytest.mark.parametrize("phase", ["request", "response"])
@pytest.mark.parametrize("on_timeout, applied, status, client_status", TIMEOUT_FORMS)
def test_hold_deadline_says_deadline_and_what_it_applied(
        rules_proxy, recording_origin, phase, on_timeout, applied, status, client_status):
    origin = recording_origin()
    hold = {"name": "h", "timeout": 0.3, "onTimeout": on_timeout}
    proxy = rules_proxy({"core.json5": scenario(hold_rule(hold, phase=phase))})
    connection = send_get(proxy, origin, f"/held?{marker()}")
    try:
        if client_status is None:
            with pytest.raises(PeerClosed):
                connection.read_response(timeout=10)
        else:
            response = connection.read_response(timeout=10)
            assert response.status == client_status, response
    finally:
        connection.close()

    ended = proxy.wait_for_event("hold.ended", timeout=10)
    started = proxy.wait_for_event("hold.started", timeout=10, flow=ended["flow"])
    assert started["timeout_s"] == 0.3 and started["phase"] == phase, started
    assert ended["mono_ns"] - started["mono_ns"] >= 300_000_000, (started, ended)
    assert_fields(ended, ended_by="deadline", applied=applied)
    if status is not None:
        assert_fields(ended, status=status)
    assert len(origin.seen("/held")) == (1 if phase == "response" or applied == "release" else 0)


# -- 5. a response-phase rule matching on the request body ----------------------------------------

BODY_MATCHES = [
    # (the body match, a body that matches, one that does not)
    pytest.param({"contains": "magic"}, b"there is magic in here", b"nothing special here", id="contains"),
    pytest.param({"json": {"/kind": "magic"}}, b'{"kind": "magic", "n": 1}', b'{"kind": "plain", "n": 1}', id="json"),
]


@pytest.mark.parametrize("body_match, matching, other", BODY_MATCHES)
def test_response_rule_matching_the_request_body_fires(rules_proxy, origin, body_match, matching, other):
    rule = {
        "name": "teapot-on-magic", "phase": "response",
        "match": {"path": "/echo", "body": body_match},
        "actions": [{"rewrite": {"status": 418}}],
    }
    proxy = rules_proxy({"core.json5": scenario(rule)})
    mark = marker()
    headers = {"Content-Type": "application/json" if body_match.get("json") else "text/plain"}
    with httpx.Client(proxy=proxy.forward.url, trust_env=False, timeout=10) as client:
        magic = client.post(f"{origin.url}/echo?{mark}-magic", content=matching, headers=headers)
        plain = client.post(f"{origin.url}/echo?{mark}-plain", content=other, headers=headers)
    assert magic.status_code == 418, (magic.status_code, magic.text)
    assert magic.json()["body_length"] == len(matching)  # the origin's answer, status rewritten
    assert plain.status_code == 200, (plain.status_code, plain.text)

    trace = proxy.trace()
    fired = trace.one("rule.fired", rule="core/teapot-on-magic")
    assert fired["flow"] == trace.flow_for(f"{mark}-magic")
    assert fired["phase"] == "response"


# -- 6. jsonSet keeps every other byte ---------------------------------------------------------

ORIGINAL_JSON = b'{"id": 12345678901234567890, "b": "x",  "a": 1.10}'
EDITED_JSON = b'{"id": 12345678901234567890, "b": "y",  "a": 1.10}'


def test_json_set_changes_one_value_and_keeps_the_body_exact(rules_proxy, recording_origin):
    """A big integer beyond 2^53, keys out of order, odd spacing and a trailing-zero decimal all
    survive: only the bytes of "/b" change."""
    json_answer = Answer(200, ORIGINAL_JSON, (("Content-Type", "application/json"),))
    origin = recording_origin(answer=lambda request: json_answer)
    rule = {"name": "set-b", "phase": "response", "match": {"path": "/doc"},
            "actions": [{"rewrite": {"jsonSet": {"/b": "y"}}}]}
    proxy = rules_proxy({"core.json5": scenario(rule)})
    with RawConnection("127.0.0.1", proxy.forward.port, timeout=10) as connection:
        connection.send(request_bytes("GET", f"http://{origin.authority}/doc", [("Host", origin.authority)]))
        response = connection.read_response()
    assert response.status == 200, response
    assert response.body == EDITED_JSON, response.body
    assert response.header("content-length") == str(len(EDITED_JSON)), response.headers
    assert response.header("transfer-encoding") is None, response.headers
    proxy.trace().one("rule.fired", rule="core/set-b")


# -- 7. a rewritten status gets its own reason phrase ----------------------------------------------

REASONS = [
    pytest.param(418, "I'm a teapot", id="418"),
    pytest.param(451, "Unavailable For Legal Reasons", id="451"),
    pytest.param(299, None, id="unregistered-299"),
]


@pytest.mark.parametrize("status, reason", REASONS)
def test_rewritten_status_gets_its_reason_phrase(rules_proxy, origin, status, reason):
    """The origin answers 500 Internal Server Error; the rewritten status must not keep that
    phrase (RFC 9110 §15: the phrase belongs to the code). A code without a registered phrase
    still gets one (RFC 9112 §4 allows an empty one, but clients print it)."""
    rule = {"name": "restatus", "phase": "response", "match": {"path": "/status/500"},
            "actions": [{"rewrite": {"status": status}}]}
    proxy = rules_proxy({"core.json5": scenario(rule)})
    with RawConnection("127.0.0.1", proxy.forward.port, timeout=10) as connection:
        connection.send(request_bytes("GET", f"{origin.url}/status/500", [("Host", origin.authority)]))
        version, code, phrase, _ = connection.read_head()
    assert (version, code) == ("HTTP/1.1", status)
    if reason is not None:
        assert phrase == reason, f"status line 'HTTP/1.1 {code} {phrase}', expected reason {reason!r}"
    else:
        assert phrase.strip(), f"status line 'HTTP/1.1 {code} {phrase}' has no reason phrase"
        assert phrase != "Internal Server Error", f"the rewritten {code} kept the origin's phrase {phrase!r}"
    proxy.trace()


# -- 8. duplicates are flows with the same timeouts ---------------------------------------------

CALLBACK_BODY = b'{"job": 7, "state": "done"}'


def copies_of(trace, original):
    return [event["flow"] for event in trace.of("request.received", duplicate_of=original)]


def test_duplicates_are_flows_each_forwarded_answered_and_discarded(rules_proxy, recording_origin):
    origin = recording_origin()
    rule = {"name": "twice-more", "match": {"method": "POST", "path": "/callback"},
            "actions": [{"duplicate": {"count": 2}}]}
    proxy = rules_proxy({"core.json5": scenario(rule)})
    with httpx.Client(proxy=proxy.forward.url, trust_env=False, timeout=10) as client:
        response = client.post(f"{origin.url}/callback", content=CALLBACK_BODY,
                               headers={"Content-Type": "application/json"})
    assert response.status_code == 200
    received = origin.wait_for(3, "/callback")
    assert len(received) == 3 and [r.body for r in received] == [CALLBACK_BODY] * 3, received
    wait_until(lambda: len(live_events(proxy, "response.discarded")) >= 2, 10, "two response.discarded events")

    trace = proxy.trace()
    originals = [e for e in trace.of("request.received", path="/callback") if "duplicate_of" not in e]
    assert len(originals) == 1, originals
    original = originals[0]
    copies = copies_of(trace, original["flow"])
    assert len(copies) == 2 and original["flow"] not in copies, copies
    for copy in copies:
        kinds = [kind for kind in trace.flow_kinds(copy)
                 if kind in ("request.received", "request.forwarded", "response.received", "response.discarded",
                             "response.delivered", "upstream.error")]
        assert kinds == ["request.received", "request.forwarded", "response.received", "response.discarded"], (
            copy, trace.flow(copy))
    assert len(trace.of("response.delivered")) == 1


def test_duplicates_time_out_like_the_original(rules_proxy, recording_origin):
    """The origin answers the first /callback (the original: the copies go after its response)
    and never the copies. With --response-timeout 1 each copy ends with upstream.error
    response-timeout, as the original would have."""
    def answer(request):
        return Answer(200, b"stored\n") if request.number == 1 else STALL

    origin = recording_origin(answer=answer)
    rule = {"name": "twice-more", "match": {"method": "POST", "path": "/callback"},
            "actions": [{"duplicate": {"count": 2, "timing": "after-response"}}]}
    proxy = rules_proxy({"core.json5": scenario(rule)}, "--response-timeout", "1")
    with httpx.Client(proxy=proxy.forward.url, trust_env=False, timeout=10) as client:
        response = client.post(f"{origin.url}/callback", content=CALLBACK_BODY)
    assert response.status_code == 200 and response.content == b"stored\n"
    origin.wait_for(3, "/callback")

    original = proxy.wait_for_event("request.received", timeout=10, path="/callback", method="POST",
                                    where=lambda event: "duplicate_of" not in event)["flow"]
    copies = wait_until(lambda: len(live_events(proxy, "request.received", duplicate_of=original)) == 2
                        and [e["flow"] for e in live_events(proxy, "request.received", duplicate_of=original)],
                        10, "two copies of the callback in the live trace")
    errors = wait_until(lambda: len([e for e in live_events(proxy, "upstream.error") if e.get("flow") in copies]) == 2
                        and [e for e in live_events(proxy, "upstream.error") if e.get("flow") in copies],
                        10, "upstream.error for both copies (the response timeout is 1 s; the origin never answers)")
    assert [error["code"] for error in errors] == ["response-timeout"] * 2, errors

    trace = proxy.trace()
    for copy in copies:
        assert not trace.of("response.discarded", flow=copy)
        assert not trace.of("response.delivered", flow=copy)


@pytest.mark.parametrize("framing", ["content-length", "chunked"])
def test_duplicates_of_a_body_over_the_limit_stream_it(rules_proxy, recording_origin, framing):
    """A body over the rules' 256 KiB read limit cannot be kept for copies made later: the copies
    start at once and get the body as it arrives (traced as timing "streamed", never skipped), and
    the origin receives it whole three times."""
    origin = recording_origin()
    rule = {"name": "twice-more", "match": {"method": "POST", "path": "/upload"},
            "actions": [{"duplicate": {"count": 2}}]}
    proxy = rules_proxy({"core.json5": scenario(rule)})
    body = bytes(range(256)) * (300 * 1024 // 256)  # 300 KiB
    content = body if framing == "content-length" else iter([body[:100_000], body[100_000:]])
    with httpx.Client(proxy=proxy.forward.url, trust_env=False, timeout=20) as client:
        response = client.post(f"{origin.url}/upload", content=content)
    assert response.status_code == 200
    received = origin.wait_for(3, "/upload")
    assert [len(r.body) for r in received] == [len(body)] * 3
    assert all(r.body == body for r in received)
    wait_until(lambda: len(live_events(proxy, "response.discarded")) >= 2, 10, "two response.discarded events")
    scheduled = proxy.trace().one("duplicate.scheduled")
    assert scheduled["timing"] == "streamed" and scheduled["count"] == 2, scheduled
    assert "skipped" not in scheduled, scheduled

"""Rule actions that edit the request before it goes upstream, written before they exist (each
starts as a failing test): a request-phase `rewrite` (method, path, query, headers, body,
`jsonSet`) and `route` (send the flow to another origin: a URL, an object with a port, a URL with a
path prefix), in forward mode, reverse mode and inside TLS interception; and the linter's error for
a route that is not http(s).

The origins are RecordingOrigins (harness/recording_origin.py) that keep each request whole and
answer with a JSON echo naming themselves ("A" or "B"), so a test sees both what arrived and who
answered."""
import json
import os
import subprocess

import pytest

from harness.clients import curl, curl_ok
from harness.http_clients import httpx_client
from harness.recording_origin import RecordingOrigin
from harness.rule_proxy import rules_proxy_starter
from harness.rules import line_column
from harness.waiting import wait_until


@pytest.fixture
def rules_proxy(start_faultline, faultline_binary, tmp_path):
    return rules_proxy_starter(start_faultline, faultline_binary, tmp_path)


@pytest.fixture
def origins():
    """Two started RecordingOrigins, A and B, stopped at teardown."""
    a, b = RecordingOrigin("A").start(), RecordingOrigin("B").start()
    yield a, b
    a.stop()
    b.stop()


def scenario(*rules, description="Written by test_request_edits.py."):
    """A scenario file's text (JSON, which is JSON5) holding `rules`."""
    return f"// {description}\n" + json.dumps({"description": description, "rules": list(rules)}, indent=2) + "\n"


def reverse_to(origin):
    return ("--listen", "127.0.0.1:0", "--mode", f"reverse:{origin.url}")


def only(requests):
    assert len(requests) == 1, f"expected one request, got {requests}"
    return requests[0]


# -- 1. rewrite: method, path, query and headers ------------------------------------------------

EDIT_RULE = {
    "name": "r", "match": {"path": "/old"},
    "actions": [{"rewrite": {"method": "PUT", "path": "/new", "query": "x=1",
                             "headers": {"set": {"X-Edited": "yes"}, "remove": ["X-Remove-Me"]}}}],
}


def assert_edited(origin, answer):
    """The origin got PUT /new?x=1 with X-Edited and without X-Remove-Me, and answered it."""
    assert origin.seen("/old") == [], "the unedited request reached the origin"
    edited = only(origin.seen("/new"))
    assert (edited.method, edited.path, edited.query) == ("PUT", "/new", "x=1"), edited
    assert edited.headers_named("X-Edited") == ["yes"], edited.headers
    assert edited.headers_named("X-Remove-Me") == [], edited.headers
    assert edited.headers_named("X-Keep-Me") == ["kept"], edited.headers  # the rest passes as it was
    assert (answer["origin"], answer["method"], answer["target"]) == ("A", "PUT", "/new?x=1"), answer


def test_request_rewrite_with_curl_in_forward_mode(rules_proxy, origins):
    a, _ = origins
    proxy = rules_proxy({"edits.json5": scenario(EDIT_RULE)})
    body = curl_ok("-x", proxy.forward.url, "-H", "X-Remove-Me: please", "-H", "X-Keep-Me: kept",
                   f"{a.url}/old", timeout=20)
    assert_edited(a, json.loads(body))
    trace = proxy.trace()
    fired = trace.one("rule.fired", rule="edits/r")
    assert fired["phase"] == "request"
    trace.assert_complete_flow(fired["flow"], status=200)


def test_request_rewrite_with_httpx_in_reverse_mode(rules_proxy, origins):
    a, _ = origins
    proxy = rules_proxy({"edits.json5": scenario(EDIT_RULE)}, listen=reverse_to(a))
    with httpx_client(base_url=proxy.reverse.url, timeout=10) as client:
        response = client.get("/old", headers={"X-Remove-Me": "please", "X-Keep-Me": "kept"})
    assert response.status_code == 200, response.text
    assert_edited(a, response.json())
    proxy.trace().one("rule.fired", rule="edits/r")


# -- 2. rewrite: the request body ------------------------------------------------------------------


@pytest.mark.parametrize("framing", ["content-length", "chunked"])
def test_request_body_rewrite_replaces_the_body_and_its_length(rules_proxy, origins, framing):
    a, _ = origins
    rule = {"name": "replace-body", "phase": "request", "match": {"method": "POST", "path": "/upload"},
            "actions": [{"rewrite": {"body": "replaced"}}]}
    proxy = rules_proxy({"edits.json5": scenario(rule)})
    original = b"the original upload body, longer than eight bytes"
    content = original if framing == "content-length" else iter([original[:10], original[10:]])
    with httpx_client(proxy.forward.url, timeout=10) as client:
        response = client.post(f"{a.url}/upload", content=content)
    assert response.status_code == 200, response.text
    received = only(a.seen("/upload"))
    assert received.body == b"replaced", received
    assert received.headers_named("Content-Length") == ["8"], received.headers
    assert received.headers_named("Transfer-Encoding") == [], received.headers
    proxy.trace().one("rule.fired", rule="edits/replace-body")


def test_request_json_set_edits_one_field_and_keeps_every_other_byte(rules_proxy, origins):
    """The request body is edited as text: the big integer beside the edited field (above 2^53,
    which a Double would round) and the spacing reach the origin byte for byte. (A number written
    in the rule file itself is read as a 64-bit float, README "Faults: rule files".)"""
    a, _ = origins
    rule = {"name": "set-n", "phase": "request", "match": {"method": "POST", "path": "/json"},
            "actions": [{"rewrite": {"jsonSet": {"/n": 2}}}]}
    proxy = rules_proxy({"edits.json5": scenario(rule)})
    with httpx_client(proxy.forward.url, timeout=10) as client:
        response = client.post(f"{a.url}/json", content=b'{"n": 1, "id": 12345678901234567890,  "keep": "me"}',
                               headers={"Content-Type": "application/json"})
    assert response.status_code == 200, response.text
    expected = b'{"n": 2, "id": 12345678901234567890,  "keep": "me"}'
    received = only(a.seen("/json"))
    assert received.body == expected, received.body
    assert received.headers_named("Content-Length") == [str(len(expected))], received.headers


# -- 3. route: another origin for some requests ----------------------------------------------------


def route_rule(route):
    return {"name": "to-b", "match": {"path": "/v1/flags"}, "actions": [{"route": route}]}


def assert_routed_to(proxy_trace, b, path_marker):
    """The routed flow's request.forwarded names B's address as its upstream."""
    flow = proxy_trace.flow_for(path_marker)
    forwarded = proxy_trace.one("request.forwarded", flow=flow)
    assert forwarded["upstream"].endswith(f":{b.port}"), (
        f"routed flow went to {forwarded['upstream']}, not B: {forwarded}")
    proxy_trace.assert_complete_flow(flow, status=200)
    return flow


ROUTE_FORMS = [
    pytest.param(lambda b: f"http://127.0.0.1:{b.port}", id="url"),
    pytest.param(lambda b: {"port": b.port}, id="port-object"),
]


@pytest.mark.parametrize("form", ROUTE_FORMS)
def test_route_sends_matching_requests_to_the_other_origin(rules_proxy, origins, form):
    a, b = origins
    proxy = rules_proxy({"routes.json5": scenario(route_rule(form(b)))})
    flags = json.loads(curl_ok("-x", proxy.forward.url, f"{a.url}/v1/flags?routed", timeout=20))
    other = json.loads(curl_ok("-x", proxy.forward.url, f"{a.url}/other?direct", timeout=20))
    assert flags["origin"] == "B" and flags["target"] == "/v1/flags?routed", flags
    assert other["origin"] == "A" and other["target"] == "/other?direct", other
    assert a.seen("/v1/flags") == [] and only(b.seen("/v1/flags"))
    assert only(a.seen("/other")) and b.seen("/other") == []

    trace = proxy.trace()
    assert trace.one("rule.fired", rule="routes/to-b")["flow"] == assert_routed_to(trace, b, "routed")
    direct = trace.one("request.forwarded", flow=trace.flow_for("direct"))
    assert direct["upstream"].endswith(f":{a.port}"), direct


def test_route_with_a_path_prefix(rules_proxy, origins):
    a, b = origins
    proxy = rules_proxy({"routes.json5": scenario(route_rule(f"http://127.0.0.1:{b.port}/stub"))})
    answer = json.loads(curl_ok("-x", proxy.forward.url, f"{a.url}/v1/flags?prefixed", timeout=20))
    assert answer["origin"] == "B" and answer["target"] == "/stub/v1/flags?prefixed", answer
    assert only(b.seen("/stub/v1/flags")) and a.seen() == []
    assert_routed_to(proxy.trace(), b, "prefixed")


def test_route_in_reverse_mode(rules_proxy, origins):
    a, b = origins
    proxy = rules_proxy({"routes.json5": scenario(route_rule(f"http://127.0.0.1:{b.port}"))}, listen=reverse_to(a))
    with httpx_client(base_url=proxy.reverse.url, timeout=10) as client:
        flags = client.get("/v1/flags?routed")
        other = client.get("/other?direct")
    assert flags.status_code == 200 and flags.json()["origin"] == "B", flags.text
    assert other.status_code == 200 and other.json()["origin"] == "A", other.text
    assert a.seen("/v1/flags") == [] and only(b.seen("/v1/flags"))
    assert_routed_to(proxy.trace(), b, "routed")


# -- 4. route inside TLS interception ---------------------------------------------------------


def test_route_from_an_intercepted_https_request_to_a_plain_http_origin(
        rules_proxy, origins, tls_origin, certificates, tmp_path):
    """An https request to the TLS origin, intercepted (the proxy's CA, in a private --confdir),
    is routed to plain-http B. Fragile in one way: it needs interception as
    test_tls_interception.py sets it up (a CA written at start, curl trusting only it); if
    interception changes, this fails before the route is tried (see the curl exit code)."""
    _, b = origins
    confdir = tmp_path / "confdir"
    confdir.mkdir(mode=0o700)
    proxy = rules_proxy({"routes.json5": scenario(route_rule(f"http://127.0.0.1:{b.port}"))},
                        "--confdir", str(confdir), "--upstream-ca", certificates["ca.pem"])
    ca = os.path.join(confdir, "ca.pem")
    wait_until(lambda: os.path.exists(ca) and os.path.getsize(ca) > 0, 10, f"{ca} to be written")
    url = f"https://localhost:{tls_origin.port}/v1/flags?intercepted"
    done = curl("-x", proxy.forward.url, "--cacert", ca, url, timeout=20)
    assert done.returncode == 0, f"curl exited {done.returncode}: {done.stderr.decode(errors='replace')}"
    assert tls_origin.seen("/v1/flags") == [], "the TLS origin was asked although the rule routes to B"
    assert only(b.seen("/v1/flags"))
    answer = json.loads(done.stdout)
    assert answer["origin"] == "B" and answer["target"] == "/v1/flags?intercepted", answer

    trace = proxy.trace()
    received = trace.one("request.received", flow=trace.flow_for("intercepted"))
    assert received["url"] == url
    assert_routed_to(trace, b, "intercepted")


# -- 5. the linter refuses a route that is not http(s) ----------------------------------------------

LINT_TEXT = """// A route to a scheme the proxy cannot speak.
{
  rules: [
    {
      name: "bad-route",
      match: { path: "/v1/flags" },
      actions: [{ route: "ftp://x" }],
    },
  ],
}
"""


def rules_check(binary, folder):
    done = subprocess.run([binary, "rules", "check", folder], capture_output=True, timeout=30)
    return done.returncode, done.stdout.decode() + done.stderr.decode()


def test_rules_check_refuses_a_route_that_is_not_http(faultline_binary, tmp_path):
    folder = tmp_path / "rules"
    folder.mkdir()
    path = folder / "routes.json5"
    path.write_text(LINT_TEXT)
    code, output = rules_check(faultline_binary, str(folder))
    assert code != 0, output
    line, column = line_column(LINT_TEXT, '"ftp://x"')
    prefix = f"{path}:{line}:{column}: "
    errors = [text for text in output.splitlines() if text.startswith(prefix)]
    assert errors, f"no error at {prefix!r} (the route's value) in:\n{output}"
    assert "ftp" in errors[0], errors[0]

    # The control: the same file with an http route passes.
    path.write_text(LINT_TEXT.replace('"ftp://x"', '"http://127.0.0.1:8080"'))
    code, output = rules_check(faultline_binary, str(folder))
    assert code == 0, output

"""retry-after-respected with real clients: requests on urllib3's `Retry`, which honours
`Retry-After` by default (`respect_retry_after_header=True`) and can be told not to. A rule's
`rateLimit` answers the first call 429 with `Retry-After: 1`; a Python origin answers 503 with an
HTTP-date, as servers in the wild do. `faultline check` passes the client that waited and names
the clause, with the wait asked and the wait kept, for the one that did not."""
import json
import threading
from email.utils import formatdate
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
import time

import pytest
from requests.adapters import HTTPAdapter
from urllib3.util.retry import Retry

from harness.clients import run
from harness.http_clients import requests_session

RATE_LIMIT = """{
  rules: [{ name: "busy", match: { path: "/v1/count" }, when: { times: 1 }, actions: [{ rateLimit: 1 }] }],
}
"""


class Origin(BaseHTTPRequestHandler):
    """200 for everything, except that the first GET /v1/status of a run is a 503 saying to come
    back at a date two seconds ahead."""
    unavailable_once = threading.Event()

    def do_GET(self):
        if self.path == "/v1/status" and not Origin.unavailable_once.is_set():
            Origin.unavailable_once.set()
            self.send_response(503)
            self.send_header("Retry-After", formatdate(time.time() + 2, usegmt=True))
        else:
            self.send_response(200)
        self.send_header("Content-Length", "2")
        self.end_headers()
        self.wfile.write(b"ok")

    def log_message(self, *args):
        pass


@pytest.fixture
def origin():
    Origin.unavailable_once.clear()
    server = ThreadingHTTPServer(("127.0.0.1", 0), Origin)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()
    thread.join(timeout=10)


def retrying_session(proxy_url, respect):
    """requests with one retry on 429 and 503, waiting for `Retry-After` when `respect`."""
    session = requests_session(proxy_url)
    retry = Retry(total=1, status_forcelist=[429, 503], respect_retry_after_header=respect, backoff_factor=0)
    session.mount("http://", HTTPAdapter(max_retries=retry))
    return session


def checked(binary, proxy):
    proxy.stop()
    done = run([binary, "check", proxy.trace_file, "--format", "json"], timeout=30)
    return done.returncode, json.loads(done.stdout.decode())


@pytest.mark.parametrize("respect", [True, False], ids=["waits", "ignores"])
def test_a_rate_limit_rule_and_a_client_that_waits_or_not(
        faultline_binary, start_with_rules, tmp_path, origin, respect):
    rules = tmp_path / "rules"
    rules.mkdir()
    (rules / "busy.json5").write_text(RATE_LIMIT)
    proxy = start_with_rules(str(rules))
    with retrying_session(proxy.forward.url, respect) as session:
        started = time.monotonic()
        response = session.get(f"{origin}/v1/count", timeout=15)
        took = time.monotonic() - started
    assert response.status_code == 200, response.text
    assert (took >= 1) == respect, took  # urllib3's own behaviour, not a timed check of Faultline
    trace = proxy.trace()
    answer = trace.one("response.delivered", status=429)
    assert answer["synthetic"] is True and answer["retry_after"] == "1"
    assert len(trace.of("request.received")) == 2

    code, report = checked(faultline_binary, proxy)
    if respect:
        assert code == 0 and report["passed"], report
        assert "retry-after-respected" in report["clausesChecked"]
        assert all(entry["clause"] != "retry-after-respected" for entry in report["clausesUnexercised"]), report
        return
    assert code == 1, report
    [violation] = report["violations"]
    assert violation["clause"] == "retry-after-respected"
    assert violation["summary"].startswith("GET /v1/count was sent again at seq "), violation
    assert violation["details"]["retry_after"] == "1" and violation["details"]["retry_after_ms"] == "1000"
    assert int(violation["details"]["waited_ms"]) < 1000
    assert [event["marker"] for event in violation["timeline"]] == ["context", "boundary", "offending"]


@pytest.mark.parametrize("respect", [True, False], ids=["waits", "ignores"])
def test_a_servers_http_date_is_judged_from_delivery(faultline_binary, start_faultline, origin, respect):
    proxy = start_faultline("--listen", "127.0.0.1:0")
    with retrying_session(proxy.forward.url, respect) as session:
        response = session.get(f"{origin}/v1/status", timeout=15)
    assert response.status_code == 200
    answer = proxy.trace().one("response.delivered", status=503)
    assert answer["retry_after"].endswith(" GMT") and "synthetic" not in answer

    code, report = checked(faultline_binary, proxy)
    if respect:
        assert code == 0 and report["passed"], report
        return
    assert code == 1, report
    [violation] = report["violations"]
    assert violation["clause"] == "retry-after-respected"
    # The date was two seconds ahead at the server, to the second: one to two seconds asked.
    assert 900 <= int(violation["details"]["retry_after_ms"]) <= 2100, violation["details"]

"""HTTP/2 clients through Faultline: curl with --http2 (ALPN h2 on an intercepted CONNECT and on a
TLS listener) and --http2-prior-knowledge (h2c on plain listeners), nghttp and h2load at a reverse
listener, httpx with h2. Each stream is a flow with its own HTTP/1.1 upstream; the trace says
`version: "HTTP/2"` and the stream. `--http1-only` keeps HTTP/1.1.

The origin is the session's Python origin (HTTP/1.1; harness/python_origin.py), or its TLS twin
for interception. Orderings come from the origin's gates and Faultline's holds, never sleeps."""
import hashlib
import json
import os
from concurrent.futures import ThreadPoolExecutor

import pytest

from harness import h2
from harness.control import Control, released_flows
from harness.python_origin import chunked_body
from harness.waiting import wait_until

pytestmark = pytest.mark.timeout(60)

HOLD_RULES = """{
  description: "Requests to /status/201 wait for `faultline release h2-held`.",
  rules: [
    {
      name: "hold-one",
      match: { path: "/status/201" },
      actions: [{ hold: { name: "h2-held", timeout: 30, onTimeout: "release" } }],
    },
  ],
}
"""


@pytest.fixture
def reverse(start_faultline, origin):
    """A reverse listener to the Python origin."""
    return start_faultline("--listen", "127.0.0.1:0", "--mode", f"reverse:{origin.url}")


def received(trace, **match):
    return trace.of("request.received", **match)


# -- h2c with prior knowledge on plain listeners ---------------------------------------------


def test_curl_prior_knowledge_reverse_listener(reverse, origin):
    body = os.urandom(3000)
    result = h2.curl_h2(reverse.reverse.url + "/echo?x=1", "-H", "Content-Type: application/octet-stream",
                        "--data-binary", f"@{_write(reverse, body)}", "-H", "Cookie: a=1", "-H", "Cookie: b=2",
                        prior_knowledge=True)
    assert result.ok and result.http2 and result.status == 200, result.describe()
    echoed = json.loads(result.body)
    # The origin got HTTP/1.1 with Host from :authority, the body intact, the cookie crumbs as
    # one field (RFC 9113 §8.2.3).
    assert echoed["method"] == "POST" and echoed["target"] == "/echo?x=1"
    headers = {name.lower(): value for name, value in echoed["headers"]}
    assert headers["host"] == f"127.0.0.1:{origin.port}"
    assert headers["cookie"] == "a=1; b=2"
    assert echoed["body_length"] == len(body) and echoed["body_sha256"] == hashlib.sha256(body).hexdigest()
    # Connection-specific fields from the origin never reach the HTTP/2 client (§8.2.2).
    assert result.header("connection") is None and result.header("transfer-encoding") is None

    trace = reverse.trace()
    (request,) = received(trace)
    assert request["version"] == "HTTP/2" and request["stream"] == 1 and request["method"] == "POST"
    delivered = trace.one("response.delivered", flow=request["flow"])
    assert delivered["status"] == 200
    assert trace.of("http2.settings", side="client"), "the client's SETTINGS are traced"


def test_curl_prior_knowledge_forward_listener(faultline, origin):
    """A plain forward listener accepts h2c too: the request names its origin in :scheme and
    :authority (absolute form, RFC 9113 §8.3.1)."""
    # curl sends http:// through a proxy as HTTP/1.1 (harness/h2.py), so talk h2c to the
    # forward listener directly with the origin in :authority.
    result = h2.curl_h2(f"{faultline.forward.url}/echo", "-H", f"Host: 127.0.0.1:{origin.port}",
                        prior_knowledge=True)
    assert result.ok and result.http2 and result.status == 200, result.describe()
    assert json.loads(result.body)["target"] == "/echo"
    (request,) = received(faultline.trace())
    assert request["version"] == "HTTP/2" and request["port"] == origin.port


def test_chunked_response_with_trailers_becomes_data_and_trailers(reverse):
    result = h2.nghttp_get(reverse.reverse.url + "/chunked?pieces=5&size=7000")
    assert result.ok and result.protocol == "h2c", result.describe()
    assert result.body == chunked_body(5, 7000)
    names = [name for name, _ in result.headers[min(result.headers)]]
    assert "x-body-sha256" in names, "the origin's chunked trailer arrives as HTTP/2 trailers"
    assert "transfer-encoding" not in names


def test_nghttp_three_streams_one_connection(reverse):
    urls = [reverse.reverse.url + f"/echo?n={n}" for n in range(3)]
    result = h2.nghttp_get(urls[0], *urls[1:])
    assert result.ok, result.describe()
    assert len(result.bodies) == 3
    trace = reverse.trace()
    requests = received(trace)
    assert len({request["conn"] for request in requests}) == 1, "one client connection"
    assert len({request["stream"] for request in requests}) == 3, "three streams"
    for request in requests:
        trace.assert_complete_flow(request["flow"], status=200)


def test_h2load_many_streams(reverse):
    result = h2.h2load(reverse.reverse.url + "/status/204", clients=4, streams=10, requests=400)
    assert result.ok, result.describe()
    assert result.protocol == "h2c" and result.status_codes.get("2xx") == 400


def test_httpx_prior_knowledge(reverse):
    with h2.httpx_h2_client(prior_knowledge=True) as client:
        results = [h2.httpx_h2_get(client, reverse.reverse.url + f"/echo?n={n}") for n in range(3)]
    assert all(result.ok and result.http_version == "HTTP/2" and result.status == 200 for result in results), \
        [result.describe() for result in results]
    streams = sorted(request["stream"] for request in received(reverse.trace()))
    assert streams == [1, 3, 5]


# -- ALPN h2 on TLS ------------------------------------------------------------------------------


def test_curl_http2_through_interception(start_faultline, tmp_path, tls_origin, certificates):
    confdir = _confdir(tmp_path)
    proxy = start_faultline("--listen", "127.0.0.1:0", "--confdir", confdir, "--upstream-ca", certificates["ca.pem"])
    ca = _wait_ca(confdir)
    result = h2.curl_h2(f"https://localhost:{tls_origin.port}/echo", proxy=proxy.forward.url, cacert=ca)
    assert result.ok and result.http2 and result.status == 200, result.describe()
    trace = proxy.trace()
    handshake = trace.one("tls.handshake", side="client")
    assert handshake["alpn"] == "h2" and handshake["intercepted"] is True
    request = next(event for event in received(trace) if event["method"] == "GET")
    assert request["version"] == "HTTP/2" and request["url"] == f"https://localhost:{tls_origin.port}/echo"
    # The upstream side stays HTTP/1.1 (the Python origin does no ALPN; it answers HTTP/1.1).
    assert trace.one("response.received", flow=request["flow"])["version"] == "HTTP/1.1"


def test_curl_http2_on_tls_listener(start_faultline, tmp_path, origin):
    confdir = _confdir(tmp_path)
    proxy = start_faultline("--listen", "127.0.0.1:0", "--tls", "--mode", f"reverse:{origin.url}",
                            "--confdir", confdir)
    ca = _wait_ca(confdir)
    listener = proxy.reverse
    result = h2.curl_h2(f"https://localhost:{listener.port}/echo", "--resolve", f"localhost:{listener.port}:127.0.0.1",
                        cacert=ca)
    assert result.ok and result.http2 and result.status == 200, result.describe()
    assert proxy.trace().one("tls.handshake", side="client")["alpn"] == "h2"


def test_http1_only_keeps_http1(start_faultline, tmp_path, origin, tls_origin, certificates):
    confdir = _confdir(tmp_path)
    proxy = start_faultline("--listen", "127.0.0.1:0", "--listen", "127.0.0.1:0", "--mode", f"reverse:{origin.url}",
                            "--confdir", confdir, "--upstream-ca", certificates["ca.pem"], "--http1-only")
    ca = _wait_ca(confdir)
    over_tls = h2.curl_h2(f"https://localhost:{tls_origin.port}/echo", proxy=proxy.forward.url, cacert=ca)
    assert over_tls.ok and over_tls.http_version == "1.1", over_tls.describe()
    prior = h2.curl_h2(proxy.reverse.url + "/echo", prior_knowledge=True)
    assert not prior.ok, f"h2c must not be served with --http1-only: {prior.describe()}"
    trace = proxy.trace()
    assert trace.one("tls.handshake", side="client")["alpn"] == "http/1.1"
    assert not trace.of("http2.settings")


# -- a hold on one stream ----------------------------------------------------------------------


def test_hold_on_one_of_three_streams_lets_the_others_complete(start_faultline, origin, tmp_path):
    """Three concurrent streams on one connection (nghttp); the rule holds one. The other two
    complete while it is held; `faultline release` lets it finish."""
    folder = tmp_path / "rules"
    folder.mkdir()
    (folder / "hold.json5").write_text(HOLD_RULES)
    control_file = str(tmp_path / "control.json")
    proxy = start_faultline("--listen", "127.0.0.1:0", "--mode", f"reverse:{origin.url}", "--rules", str(folder),
                            "--control-file", control_file)
    control = Control(proxy.binary, control_file)
    control.wait_ready()
    base = proxy.reverse.url
    with ThreadPoolExecutor(1) as pool:
        run = pool.submit(h2.nghttp_get, base + "/status/201", base + "/echo?n=0", base + "/echo?n=1")
        (hold,) = control.wait_for_holds("h2-held")
        for n in range(2):
            proxy.wait_for_event("response.delivered", where=_delivered_for(proxy, f"/echo?n={n}"))
        assert not [event for event in proxy.events_so_far()
                    if event.get("event") == "response.delivered" and event.get("flow") == hold["flow"]]
        assert released_flows(control.release("h2-held")) == [hold["flow"]]
        result = run.result(timeout=30)
    assert result.ok and len(result.headers) == 3, result.describe()
    statuses = sorted(int(dict(fields)[":status"]) for fields in result.headers.values())
    assert statuses == [200, 200, 201]
    trace = proxy.trace()
    requests = received(trace)
    assert len({request["conn"] for request in requests}) == 1, "all three on one connection"
    held_delivered = trace.one("response.delivered", flow=hold["flow"])
    for request in requests:
        if request["flow"] != hold["flow"]:
            assert trace.one("response.delivered", flow=request["flow"])["seq"] < held_delivered["seq"]


def test_upstream_gate_on_one_stream_does_not_block_the_others(reverse, origin):
    """The origin holds one stream's response; the other streams of the connection complete."""
    gate = origin.gate("h2-gate")
    base = reverse.reverse.url
    with ThreadPoolExecutor(1) as pool:
        run = pool.submit(h2.nghttp_get, base + "/slow?key=h2-gate", base + "/echo?n=0", base + "/echo?n=1")
        gate.wait_arrived()
        for n in range(2):
            reverse.wait_for_event("response.delivered", where=_delivered_for(reverse, f"/echo?n={n}"))
        gate.release()
        result = run.result(timeout=30)
    assert result.ok and len(result.bodies) == 3, result.describe()
    assert b"released h2-gate\n" in result.bodies.values()


# -- helpers -----------------------------------------------------------------------------------


def _write(proxy, body):
    path = os.path.join(proxy.workdir, f"body-{hashlib.sha256(body).hexdigest()[:8]}")
    with open(path, "wb") as handle:
        handle.write(body)
    return path


def _delivered_for(proxy, target):
    """A `wait_for_event` filter: the delivery of the flow whose request URL ends with `target`."""
    def matches(event):
        flows = [request["flow"] for request in proxy.events_so_far()
                 if request.get("event") == "request.received" and request.get("url", "").endswith(target)]
        return event.get("flow") in flows

    return matches


def _confdir(tmp_path):
    folder = tmp_path / "confdir"
    folder.mkdir(mode=0o700, exist_ok=True)
    return str(folder)


def _wait_ca(confdir):
    path = os.path.join(confdir, "ca.pem")
    wait_until(lambda: os.path.exists(path) and os.path.getsize(path) > 0, 10, f"{path} to be written")
    return path


"""TLS interception: after CONNECT the proxy reads the ClientHello and either terminates TLS with a
certificate its CA mints for the SNI name (and runs HTTP, rules and the trace inside), or relays
the bytes untouched (an ignored host, or bytes that are not TLS). Also reverse mode to a TLS
upstream and a listener that terminates TLS itself.

Each proxy gets a private `--confdir`, so its CA (`<confdir>/ca.pem`) is made for the test. The
origins: the session's `tls_origin` (certificate for localhost from the throwaway CA in
`certificates`), the plain `origin`, and per-test `CertifiedOrigin`s with their own CA and names.
"""
import hashlib
import json
import os
import re
import socket
import ssl
import threading
import time
import uuid
from concurrent.futures import ThreadPoolExecutor

import pytest

from harness.clients import curl
from harness.http_clients import httpx_client
from harness.python_origin import chunked_body, pattern_bytes
from harness.rawhttp import RawConnection, request_bytes
from harness.tls import (
    certificate_common_name,
    client_context,
    connect_tunnel,
    handshake_through,
    make_certificates,
    name_field,
    server_context,
)
from harness.tls_origins import CertifiedOrigin
from harness.waiting import closed_port, wait_until

# curl exit codes (curl(1) "EXIT CODES").
PEER_CERTIFICATE_REJECTED = 60
HINT_LINE = "does not trust the Faultline CA"
RULES = """// A forced 401 on HTTPS requests to /deny/**, only when the scheme is https.
{
  description: "HTTPS requests under /deny get 401 without reaching the origin.",
  rules: [
    {
      name: "deny-https",
      match: { scheme: "https", path: "/deny/**" },
      actions: [
        {
          respond: {
            status: 401,
            headers: { "WWW-Authenticate": 'Bearer error="invalid_token"' },
            json: { error: "invalid_token" },
          },
        },
      ],
    },
  ],
}
"""


def marker():
    return uuid.uuid4().hex[:12]


# -- fixtures and helpers --------------------------------------------------------------------


@pytest.fixture
def confdir(tmp_path):
    """A private Faultline configuration folder (where the CA lives)."""
    folder = tmp_path / "confdir"
    folder.mkdir(mode=0o700)
    return str(folder)


@pytest.fixture
def intercepting(start_faultline, confdir):
    """Returns `start(*args, listen=(...), own_ca=True)`: `faultline run` with the `listen` arguments
    (default a forward listener on an ephemeral loopback port), `--confdir <private>` and `args`.
    With `own_ca` it waits (with a deadline) for `<confdir>/ca.pem` and stores its path as
    `proxy.faultline_ca`."""

    def start(*args, listen=("--listen", "127.0.0.1:0"), own_ca=True):
        proxy = start_faultline(*listen, "--confdir", confdir, *args)
        proxy.confdir = confdir
        if own_ca:
            path = os.path.join(confdir, "ca.pem")
            wait_until(lambda: os.path.exists(path) and os.path.getsize(path) > 0, 10, f"{path} to be written")
            proxy.faultline_ca = path
        return proxy

    return start


@pytest.fixture
def make_origin(tmp_path):
    """Returns `make(names=..., common_name=...)`: a started CertifiedOrigin with its own CA,
    stopped at teardown."""
    started = []

    def make(**options):
        origin = CertifiedOrigin(str(tmp_path / f"origin-{len(started)}"), **options).start()
        started.append(origin)
        return origin

    yield make
    for origin in started:
        origin.stop()


def fetch(proxy, url, cafile, *extra, through_proxy=True):
    """curl `url` (through the proxy's forward listener unless `through_proxy` is False),
    trusting only `cafile`. Returns (exit code, HTTP status or 0, body bytes, stderr text)."""
    output = os.path.join(proxy.workdir, f"curl-{marker()}.out")
    proxy_args = ["-x", proxy.forward.url] if through_proxy else []
    done = curl(*proxy_args, "--cacert", cafile, "-o", output, "-w", "%{http_code}", *extra, url)
    body = open(output, "rb").read() if os.path.exists(output) else b""
    status = int(done.stdout.decode().strip() or 0)
    return done.returncode, status, body, done.stderr.decode(errors="replace")


def assert_no_key_material(trace, *key_files):
    """No private key, nor any line of the given PEM key files, appears in the trace."""
    assert "PRIVATE KEY" not in trace.text
    for path in key_files:
        if not os.path.exists(path):
            continue
        with open(path) as handle:
            lines = [line.strip() for line in handle if not line.startswith("-----")]
        for line in lines:
            if len(line) >= 16:
                assert line not in trace.text, f"a line of {path} is in the trace"


def ca_key_files(confdir):
    """Every file in the configuration folder that looks like a private key."""
    return [os.path.join(confdir, name) for name in os.listdir(confdir) if "key" in name]


def read_until_closed(sock, timeout):
    """Reads until the peer closes (FIN or reset); returns what arrived. Fails after `timeout`."""
    deadline = time.monotonic() + timeout
    received = b""
    while True:
        remaining = deadline - time.monotonic()
        assert remaining > 0, f"the peer did not close within {timeout}s; got {received[:200]!r}"
        sock.settimeout(remaining)
        try:
            piece = sock.recv(65536)
        except (ConnectionResetError, ssl.SSLEOFError, ssl.SSLZeroReturnError):
            return received
        except socket.timeout:
            continue
        if not piece:
            return received
        received += piece


# -- interception in forward mode ------------------------------------------------------------


def test_curl_through_interception_gets_the_origin_answer_and_a_faultline_certificate(
        intercepting, tls_origin, certificates):
    proxy = intercepting("--upstream-ca", certificates["ca.pem"])
    mark = marker()
    url = f"https://localhost:{tls_origin.port}/echo?{mark}"
    code, status, body, stderr = fetch(proxy, url, proxy.faultline_ca, "-v")
    assert (code, status) == (0, 200), stderr
    assert json.loads(body)["target"] == f"/echo?{mark}"
    assert len(tls_origin.seen(mark)) == 1

    # curl was shown a certificate issued by the Faultline CA, not the origin's.
    authority = certificate_common_name(proxy.faultline_ca)
    assert re.search(r"issuer:.*" + re.escape(authority), stderr), stderr
    assert "Faultline Integration Test CA" not in stderr
    # The same seen by Python's ssl (verified against the Faultline CA only).
    tls = handshake_through(proxy.forward.port, f"localhost:{tls_origin.port}", proxy.faultline_ca, "localhost")
    with tls:
        certificate = tls.getpeercert()
    assert name_field(certificate["issuer"]) == authority
    assert ("DNS", "localhost") in certificate["subjectAltName"]

    trace = proxy.trace()
    flow = trace.flow_for(mark)
    trace.assert_complete_flow(flow, status=200)
    received = trace.one("request.received", flow=flow)
    assert (received["method"], received["url"]) == ("GET", url)
    client_side = trace.of("tls.handshake", side="client")
    assert len(client_side) == 2, client_side  # curl's, then Python's
    first = client_side[0]
    # curl offers h2 and http/1.1; Faultline prefers h2 (RFC 7301 §3.2, server preference).
    assert (first["sni"], first["alpn"], first["version"]) == ("localhost", "h2", "TLSv1.3"), first
    assert first["cipher"], first
    assert (first["certificate_host"], first["certificate_minted"]) == ("localhost", True), first
    assert first["intercepted"] is True, first
    assert first.get("conn") == received["conn"], (first, received)
    # The second connection to the same host is served from the certificate cache.
    assert (client_side[1]["certificate_host"], client_side[1]["certificate_minted"]) == ("localhost", False)
    upstream = trace.of("tls.handshake", side="upstream")
    assert upstream, "no upstream handshake traced"
    assert upstream[0]["verified"] is True and upstream[0]["sni"] == "localhost", upstream[0]
    assert "localhost" in upstream[0]["peer_subject"], upstream[0]
    assert upstream[0]["version"] in ("TLSv1.2", "TLSv1.3") and upstream[0]["cipher"], upstream[0]
    assert not trace.of("tls.failed")
    assert_no_key_material(trace, *ca_key_files(proxy.confdir))


def test_httpx_keeps_one_client_connection_and_one_upstream_connection(intercepting, tls_origin, certificates):
    proxy = intercepting("--upstream-ca", certificates["ca.pem"])
    mark = marker()
    with httpx_client(proxy.forward.url, verify=client_context(proxy.faultline_ca)) as client:
        for i in range(5):
            response = client.get(f"https://localhost:{tls_origin.port}/echo?{mark}-{i}")
            assert response.status_code == 200
            assert response.json()["target"] == f"/echo?{mark}-{i}"

    trace = proxy.trace()
    flows = [trace.flow_for(f"{mark}-{i}") for i in range(5)]
    for flow in flows:
        trace.assert_complete_flow(flow, status=200)
    received = [trace.one("request.received", flow=flow) for flow in flows]
    assert all(event["url"].startswith(f"https://localhost:{tls_origin.port}/echo?") for event in received)
    assert len({event["conn"] for event in received}) == 1, "httpx should have kept one connection"
    assert len(trace.of("request.received", method="CONNECT")) == 1
    forwarded = [trace.one("request.forwarded", flow=flow) for flow in flows]
    assert [event["reused"] for event in forwarded] == [False] + [True] * 4, forwarded
    assert len({event["upstream_conn"] for event in forwarded}) == 1, forwarded
    assert len(trace.of("tls.handshake", side="client")) == 1
    assert len(trace.of("tls.handshake", side="upstream")) == 1


def test_rule_forces_401_on_an_https_request_that_never_reaches_the_origin(
        intercepting, tls_origin, origin, certificates, tmp_path):
    rules = tmp_path / "rules"
    rules.mkdir()
    (rules / "tls-rules.json5").write_text(RULES)
    proxy = intercepting("--rules", str(rules), "--upstream-ca", certificates["ca.pem"])
    mark = marker()
    denied_url = f"https://localhost:{tls_origin.port}/deny/{mark}"
    with httpx_client(proxy.forward.url, verify=client_context(proxy.faultline_ca)) as client:
        denied = client.get(denied_url)
        allowed = client.get(f"https://localhost:{tls_origin.port}/echo?{mark}-allowed")
        # The same path over plain HTTP: the rule asks for https, so the origin answers (404).
        plain = client.get(f"{origin.url}/deny/{mark}-plain")
    assert denied.status_code == 401 and denied.json() == {"error": "invalid_token"}
    assert denied.headers["www-authenticate"] == 'Bearer error="invalid_token"'
    assert allowed.status_code == 200 and allowed.json()["target"] == f"/echo?{mark}-allowed"
    assert plain.status_code == 404
    assert not tls_origin.seen(f"/deny/{mark}"), "the forced 401 must not reach the origin"
    assert len(origin.seen(f"/deny/{mark}-plain")) == 1

    trace = proxy.trace()
    fired = trace.one("rule.fired", rule="tls-rules/deny-https")
    received = trace.one("request.received", flow=fired["flow"])
    assert received["url"] == denied_url
    delivered = trace.one("response.delivered", flow=fired["flow"])
    assert (delivered["status"], delivered.get("synthetic")) == (401, True), delivered
    assert not trace.of("request.forwarded", flow=fired["flow"])
    assert not trace.of("rule.fired", flow=trace.flow_for(f"{mark}-plain"))


def test_ignored_host_is_tunnelled_with_the_origin_certificate(intercepting, tls_origin, certificates):
    proxy = intercepting("--ignore", "localhost")
    mark = marker()
    url = f"https://localhost:{tls_origin.port}/echo?{mark}"
    code, status, body, stderr = fetch(proxy, url, certificates["ca.pem"])
    assert (code, status) == (0, 200), stderr
    assert json.loads(body)["target"] == f"/echo?{mark}"
    code, status, _, stderr = fetch(proxy, url + "-faultline-ca", proxy.faultline_ca)
    assert code == PEER_CERTIFICATE_REJECTED, (code, stderr)

    trace = proxy.trace()
    opened = trace.of("tunnel.opened")
    assert len(opened) == 2, opened
    for event in opened:
        assert (event.get("intercepted"), event.get("reason")) == (False, "ignored"), event
    assert not trace.of("tls.handshake")
    assert not trace.requests(mark), "bytes inside an ignored tunnel must not be parsed as requests"


def test_ignore_matches_the_sni_name_when_the_connect_names_an_address(intercepting, tls_origin, certificates):
    proxy = intercepting("--ignore", "localhost")
    mark = marker()
    tls = handshake_through(proxy.forward.port, f"127.0.0.1:{tls_origin.port}", certificates["ca.pem"], "localhost")
    with tls:
        assert name_field(tls.getpeercert()["issuer"]) == "Faultline Integration Test CA"
        tls.sendall(request_bytes("GET", f"/echo?{mark}", [("Host", "localhost"), ("Connection", "close")]))
        response = read_until_closed(tls, 10)
    assert response.startswith(b"HTTP/1.1 200"), response[:200]
    assert f"/echo?{mark}".encode() in response

    trace = proxy.trace()
    opened = trace.one("tunnel.opened")
    assert (opened.get("intercepted"), opened.get("reason")) == (False, "ignored"), opened
    assert not trace.of("tls.handshake")


@pytest.mark.parametrize("glob, intercepted", [("local*", True), ("*.test", False)])
def test_intercept_globs_choose_the_hosts_to_intercept(intercepting, tls_origin, certificates, glob, intercepted):
    proxy = intercepting("--intercept", glob, "--upstream-ca", certificates["ca.pem"])
    mark = marker()
    url = f"https://localhost:{tls_origin.port}/echo?{mark}"
    trusted = proxy.faultline_ca if intercepted else certificates["ca.pem"]
    code, status, body, stderr = fetch(proxy, url, trusted)
    assert (code, status) == (0, 200), stderr
    assert json.loads(body)["target"] == f"/echo?{mark}"

    trace = proxy.trace()
    if intercepted:
        trace.assert_complete_flow(trace.flow_for(mark), status=200)
        assert trace.one("tls.handshake", side="client")["sni"] == "localhost"
    else:
        opened = trace.one("tunnel.opened")
        assert (opened.get("intercepted"), opened.get("reason")) == (False, "ignored"), opened
        assert not trace.of("tls.handshake") and not trace.requests(mark)


def test_client_that_does_not_trust_the_faultline_ca_gets_a_hint(intercepting, tls_origin, certificates):
    proxy = intercepting("--upstream-ca", certificates["ca.pem"])
    mark = marker()
    code, _, _, stderr = fetch(proxy, f"https://localhost:{tls_origin.port}/echo?{mark}", certificates["ca.pem"])
    assert code == PEER_CERTIFICATE_REJECTED, (code, stderr)
    # Python's ssl refuses the same way.
    with pytest.raises(ssl.SSLCertVerificationError):
        handshake_through(proxy.forward.port, f"localhost:{tls_origin.port}", certificates["ca.pem"], "localhost")
    assert not tls_origin.seen(mark)
    wait_until(lambda: HINT_LINE in proxy.stderr, 10, f"{HINT_LINE!r} on faultline's stderr")

    trace = proxy.trace()
    failed = trace.of("tls.failed", side="client")
    assert len(failed) == 2, failed
    for event in failed:
        assert event["code"] == "client-rejected-certificate", event
        assert event["message"], event
        assert "faultline ca" in event.get("hint", ""), event
    assert not trace.requests(mark)


def test_certificate_for_another_name_is_a_502_hostname_mismatch(intercepting, make_origin):
    other = make_origin(names=("DNS:other.test",), common_name="other.test")
    proxy = intercepting("--upstream-ca", other.ca)
    mark = marker()
    code, status, body, stderr = fetch(proxy, f"https://localhost:{other.port}/echo?{mark}", proxy.faultline_ca)
    assert (code, status) == (0, 502), (code, status, stderr)
    assert body.startswith(b"faultline:"), body
    assert not other.seen(mark)

    trace = proxy.trace()
    error = trace.one("upstream.error", flow=trace.flow_for(mark))
    assert error["code"] == "hostname-mismatch", error
    assert error["message"], error
    assert trace.one("response.delivered", flow=error["flow"])["status"] == 502
    assert not [e for e in trace.of("tls.handshake", side="upstream") if e.get("verified")]


def test_origin_certificate_from_an_unknown_ca_is_a_502_with_the_reason(intercepting, tls_origin):
    proxy = intercepting()  # no --upstream-ca: the throwaway CA is in no trust store
    mark = marker()
    code, status, body, stderr = fetch(proxy, f"https://localhost:{tls_origin.port}/echo?{mark}", proxy.faultline_ca)
    assert (code, status) == (0, 502), (code, status, stderr)
    assert not tls_origin.seen(mark)

    trace = proxy.trace()
    error = trace.one("upstream.error", flow=trace.flow_for(mark))
    assert error["code"] == "upstream-certificate-invalid", error
    # OpenSSL's verification reason for a chain that ends at an unknown root.
    assert re.search(r"issuer|self.signed|unknown ca", error["message"], re.IGNORECASE), error


def test_insecure_upstream_accepts_an_unknown_ca_and_says_so(intercepting, make_origin):
    stranger = make_origin()  # localhost names, issued by a CA the proxy is not told about
    proxy = intercepting("--insecure-upstream")
    wait_until(lambda: re.search(r"insecure|not verif", proxy.stderr, re.IGNORECASE), 10,
               "a warning about --insecure-upstream on stderr")
    mark = marker()
    code, status, body, stderr = fetch(proxy, f"https://localhost:{stranger.port}/echo?{mark}", proxy.faultline_ca)
    assert (code, status) == (0, 200), stderr
    assert json.loads(body)["target"] == f"/echo?{mark}"

    trace = proxy.trace()
    trace.assert_complete_flow(trace.flow_for(mark), status=200)
    upstream = trace.one("tls.handshake", side="upstream")
    assert upstream["verified"] is False, upstream
    assert trace.one("tls.handshake", side="client")["certificate_host"] == "localhost"


def test_user_ca_signs_the_certificates(intercepting, tls_origin, certificates, tmp_path):
    user = tmp_path / "user-ca"
    user.mkdir()
    user_ca = make_certificates(str(user), ca_name="Faultline Test User CA")
    proxy = intercepting("--ca-cert", user_ca["ca.pem"], "--ca-key", user_ca["ca.key"],
                         "--upstream-ca", certificates["ca.pem"], own_ca=False)
    mark = marker()
    url = f"https://localhost:{tls_origin.port}/echo?{mark}"
    code, status, body, stderr = fetch(proxy, url, user_ca["ca.pem"], "-v")
    assert (code, status) == (0, 200), stderr
    assert json.loads(body)["target"] == f"/echo?{mark}"
    assert re.search(r"issuer:.*Faultline Test User CA", stderr), stderr

    trace = proxy.trace()
    assert trace.one("tls.handshake", side="client")["certificate_minted"] is True
    assert_no_key_material(trace, user_ca["ca.key"])


def test_the_ca_is_kept_in_the_confdir_across_runs(intercepting, tls_origin, certificates):
    first = intercepting("--upstream-ca", certificates["ca.pem"])
    with open(first.faultline_ca, "rb") as handle:
        authority = handle.read()
    first.trace()
    second = intercepting("--upstream-ca", certificates["ca.pem"])
    with open(second.faultline_ca, "rb") as handle:
        assert handle.read() == authority, "a second run made a new CA: users would have to trust it again"
    code, status, _, stderr = fetch(second, f"https://localhost:{tls_origin.port}/echo?{marker()}", first.faultline_ca)
    assert (code, status) == (0, 200), stderr
    second.trace()


def test_intercepted_connect_to_a_closed_port_answers_502(intercepting):
    proxy = intercepting()
    port = closed_port()
    code, status, _, stderr = fetch(proxy, f"https://localhost:{port}/echo", proxy.faultline_ca)
    # Either the CONNECT itself is refused (curl exit 56, "CONNECT tunnel failed, response 502") or
    # the 502 comes inside the intercepted TLS connection: never a hang, never a 200.
    assert (code, status) == (0, 502) or (code == 56 and "502" in stderr), (code, status, stderr)
    trace = proxy.trace()
    assert trace.of("upstream.error"), "the refused connect is not in the trace"


@pytest.mark.parametrize("connect_host, expected", [
    ("127.0.0.1", ("IP Address", "127.0.0.1")), ("localhost", ("DNS", "localhost"))])
def test_without_sni_the_certificate_names_the_connect_host(
        intercepting, tls_origin, certificates, connect_host, expected):
    proxy = intercepting("--upstream-ca", certificates["ca.pem"])
    mark = marker()
    tls = handshake_through(proxy.forward.port, f"{connect_host}:{tls_origin.port}", proxy.faultline_ca, None)
    with tls:
        certificate = tls.getpeercert()
        tls.sendall(request_bytes("GET", f"/echo?{mark}", [("Host", connect_host), ("Connection", "close")]))
        response = read_until_closed(tls, 10)
    assert certificate["subjectAltName"] == (expected,), certificate
    assert response.startswith(b"HTTP/1.1 200"), response[:200]

    trace = proxy.trace()
    handshake = trace.one("tls.handshake", side="client")
    assert (handshake["sni"], handshake["certificate_host"]) == (None, connect_host), handshake
    received = trace.one("request.received", flow=trace.flow_for(mark))
    assert received["url"] == f"https://{connect_host}:{tls_origin.port}/echo?{mark}", received


def test_the_sni_name_wins_over_an_address_in_the_connect(intercepting, tls_origin, certificates):
    proxy = intercepting("--upstream-ca", certificates["ca.pem"])
    tls = handshake_through(proxy.forward.port, f"127.0.0.1:{tls_origin.port}", proxy.faultline_ca, "localhost")
    with tls:
        assert tls.getpeercert()["subjectAltName"] == (("DNS", "localhost"),)
    handshake = proxy.trace().one("tls.handshake", side="client")
    assert (handshake["sni"], handshake["certificate_host"]) == ("localhost", "localhost"), handshake


def test_requests_inside_go_to_the_sni_name_at_the_connect_address(intercepting, make_origin):
    # The origin's certificate names only "localhost": checked against the CONNECT address
    # (127.0.0.1) it would fail. The client asked for localhost in SNI and accepted a certificate
    # for it, so localhost is what Faultline asks for upstream and checks, at the address given.
    origin = make_origin(names=("DNS:localhost",), common_name="localhost")
    proxy = intercepting("--upstream-ca", origin.ca)
    mark = marker()
    tls = handshake_through(proxy.forward.port, f"127.0.0.1:{origin.port}", proxy.faultline_ca, "localhost")
    with tls:
        tls.sendall(request_bytes("GET", f"/echo?{mark}", [("Host", "localhost:443"), ("Connection", "close")]))
        response = read_until_closed(tls, 10)
    assert response.startswith(b"HTTP/1.1 200"), response[:300]
    echoed = json.loads(response.split(b"\r\n\r\n", 1)[1])
    assert ["Host", "localhost:443"] in echoed["headers"], "the client's own Host goes up unchanged"

    trace = proxy.trace()
    upstream = trace.one("tls.handshake", side="upstream")
    assert (upstream["sni"], upstream["verified"]) == ("localhost", True), upstream
    forwarded = trace.one("request.forwarded", flow=trace.flow_for(mark))
    assert forwarded["upstream"] == f"127.0.0.1:{origin.port}", forwarded


def test_a_client_waiting_for_the_server_to_speak_first_is_tunnelled(intercepting):
    # SSH, SMTP and the like: after the 200 the client says nothing until the server's banner.
    with socket.create_server(("127.0.0.1", 0)) as server:
        server.settimeout(10)
        port = server.getsockname()[1]
        proxy = intercepting()
        raw, status, head = connect_tunnel(proxy.forward.port, f"127.0.0.1:{port}")
        with raw:
            assert status == 200, head
            accepted, _ = server.accept()  # the proxy connects once the client has stayed silent
            with accepted:
                accepted.sendall(b"SSH-2.0-FaultlineTest\r\n")
                raw.settimeout(10)
                assert raw.recv(100) == b"SSH-2.0-FaultlineTest\r\n"
                raw.sendall(b"SSH-2.0-Client\r\n")
                accepted.settimeout(10)
                assert accepted.recv(100) == b"SSH-2.0-Client\r\n"
    opened = proxy.trace().one("tunnel.opened")
    assert (opened["intercepted"], opened["reason"]) == (False, "client-silent"), opened


def test_an_upstream_that_sent_close_notify_is_not_reused(intercepting, certificates):
    # A server that ends its TLS session after each response (close_notify) but leaves the TCP
    # connection open: a pooled connection it has closed must not carry the next request, which
    # for a POST (not retried) would be a 502.
    context = server_context(certificates)
    served = []

    def answer(connection):
        connection.settimeout(10)
        with context.wrap_socket(connection, server_side=True) as tls:
            data = b""
            while b"\r\n\r\n" not in data:
                data += tls.recv(65536)
            head, body = data.split(b"\r\n\r\n", 1)
            length = int(re.search(rb"(?i)content-length: *(\d+)", head).group(1))
            while len(body) < length:
                body += tls.recv(65536)
            served.append(head.split(b" ")[1])
            tls.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
            try:
                tls.unwrap()  # close_notify; then waits for the proxy's answer or its close
            except (ssl.SSLError, OSError):
                pass

    with socket.create_server(("127.0.0.1", 0)) as server:
        server.settimeout(10)
        port = server.getsockname()[1]
        threads = []

        def accept_two():
            for _ in range(2):
                try:
                    connection, _ = server.accept()
                except OSError:
                    return
                thread = threading.Thread(target=answer, args=(connection,), daemon=True)
                thread.start()
                threads.append(thread)

        acceptor = threading.Thread(target=accept_two, daemon=True)
        acceptor.start()
        proxy = intercepting("--upstream-ca", certificates["ca.pem"])
        with httpx_client(proxy.forward.url, verify=client_context(proxy.faultline_ca)) as client:
            statuses = [client.post(f"https://localhost:{port}/post-{i}", content=b"payload").status_code
                        for i in range(2)]
        acceptor.join(timeout=10)
        for thread in threads:
            thread.join(timeout=10)
    assert statuses == [200, 200], proxy.trace().of("upstream.error")
    assert served == [b"/post-0", b"/post-1"]
    forwarded = [event["upstream_conn"] for event in proxy.trace().of("request.forwarded")]
    assert len(set(forwarded)) == 2, "the second request must go on a new upstream connection"


def test_tls_1_2_client_is_served(intercepting, tls_origin, certificates):
    proxy = intercepting("--upstream-ca", certificates["ca.pem"])
    context = client_context(proxy.faultline_ca)
    context.maximum_version = ssl.TLSVersion.TLSv1_2
    with httpx_client(proxy.forward.url, verify=context) as client:
        assert client.get(f"https://localhost:{tls_origin.port}/echo?tls12").status_code == 200
    handshake = proxy.trace().one("tls.handshake", side="client")
    assert handshake["version"] == "TLSv1.2", handshake


def test_client_offering_only_h2_is_refused_with_http1_only(intercepting, tls_origin, certificates):
    """With --http1-only Faultline serves HTTP/1.1 alone inside intercepted TLS; a client that
    offers only h2 gets the no_application_protocol alert (RFC 7301 §3.2), not a connection it
    cannot use. (Without the flag h2 is chosen: test_h2_clients.py.)"""
    proxy = intercepting("--upstream-ca", certificates["ca.pem"], "--http1-only")
    raw, status, head = connect_tunnel(proxy.forward.port, f"localhost:{tls_origin.port}")
    context = client_context(proxy.faultline_ca)
    context.set_alpn_protocols(["h2"])
    with raw:
        assert status == 200, head
        with pytest.raises(ssl.SSLError, match="no application protocol"):
            context.wrap_socket(raw, server_hostname="localhost")
    failed = proxy.trace().one("tls.failed", side="client")
    assert failed["code"] == "no-application-protocol", failed


def test_bodies_cross_the_interception_intact(intercepting, tls_origin, certificates):
    proxy = intercepting("--upstream-ca", certificates["ca.pem"])
    upload = os.urandom(3 << 20)
    base = f"https://localhost:{tls_origin.port}"
    with httpx_client(proxy.forward.url, verify=client_context(proxy.faultline_ca)) as client:
        echoed = client.post(f"{base}/echo?upload", content=upload)
        assert echoed.status_code == 200
        assert echoed.json()["body_sha256"] == hashlib.sha256(upload).hexdigest()
        chunked = client.get(f"{base}/chunked?pieces=200&size=10000")
        assert chunked.status_code == 200 and chunked.content == chunked_body(200, 10000)
        # Ended by the origin closing its TLS connection (without close_notify, as Python's
        # server does).
        delimited = client.get(f"{base}/close-delimited?size=300000")
        assert delimited.status_code == 200 and delimited.content == pattern_bytes(300000, seed=7)
    trace = proxy.trace()
    for marker_text in ("upload", "chunked", "close-delimited"):
        trace.assert_complete_flow(trace.flow_for(marker_text), status=200)


def test_stale_pooled_tls_upstream_connection_is_replaced(intercepting, tls_origin, certificates):
    """/then-close answers without announcing Connection: close and then closes: the pooled TLS
    connection is dead, and the next request must go on a fresh one."""
    proxy = intercepting("--upstream-ca", certificates["ca.pem"])
    mark = marker()
    with httpx_client(proxy.forward.url, verify=client_context(proxy.faultline_ca)) as client:
        first = client.get(f"https://localhost:{tls_origin.port}/then-close?size=100&{mark}-1")
        assert first.status_code == 200 and len(first.content) == 100
        second = client.get(f"https://localhost:{tls_origin.port}/echo?{mark}-2")
        assert second.status_code == 200 and second.json()["target"] == f"/echo?{mark}-2"
    trace = proxy.trace()
    for suffix in ("1", "2"):
        trace.assert_complete_flow(trace.flow_for(f"{mark}-{suffix}"), status=200)


def test_secrets_inside_intercepted_tls_are_fingerprinted(intercepting, tls_origin, certificates):
    proxy = intercepting("--upstream-ca", certificates["ca.pem"])
    token, cookie = "tok-" + uuid.uuid4().hex, "ck-" + uuid.uuid4().hex
    with httpx_client(proxy.forward.url, verify=client_context(proxy.faultline_ca)) as client:
        response = client.get(f"https://localhost:{tls_origin.port}/echo?secrets",
                              headers={"Authorization": f"Bearer {token}", "Cookie": f"session={cookie}"})
    assert response.status_code == 200
    assert ["Authorization", f"Bearer {token}"] in response.json()["headers"], "the origin must get the real token"
    trace = proxy.trace()
    assert token not in trace.text and cookie not in trace.text
    received = trace.one("request.received", flow=trace.flow_for("secrets"))
    assert any(name.lower() == "authorization" for name, _ in received["headers"]), received


def test_many_clients_at_once_through_interception(intercepting, tls_origin, certificates):
    proxy = intercepting("--upstream-ca", certificates["ca.pem"])
    mark = marker()

    def one(i):
        with httpx_client(proxy.forward.url, verify=client_context(proxy.faultline_ca)) as client:
            response = client.get(f"https://localhost:{tls_origin.port}/echo?{mark}-{i}")
            return response.status_code, response.json()["target"]

    with ThreadPoolExecutor(20) as pool:
        results = list(pool.map(one, range(40)))
    assert results == [(200, f"/echo?{mark}-{i}") for i in range(40)]
    trace = proxy.trace()
    handshakes = trace.of("tls.handshake", side="client")
    assert len(handshakes) == 40 and all(e["certificate_host"] == "localhost" for e in handshakes)
    assert any(e["certificate_minted"] for e in handshakes)


def test_client_leaving_mid_response_does_not_disturb_the_next(intercepting, tls_origin, certificates):
    proxy = intercepting("--upstream-ca", certificates["ca.pem"])
    tls = handshake_through(proxy.forward.port, f"localhost:{tls_origin.port}", proxy.faultline_ca, "localhost")
    with tls:
        tls.sendall(request_bytes("GET", "/chunked?pieces=2000&size=10000", [("Host", "localhost")]))
        assert tls.recv(1000)  # some of the 20 MB, then we leave
    with httpx_client(proxy.forward.url, verify=client_context(proxy.faultline_ca)) as client:
        assert client.get(f"https://localhost:{tls_origin.port}/echo?after-leaving").status_code == 200
    trace = proxy.trace()
    trace.assert_complete_flow(trace.flow_for("after-leaving"), status=200)


# -- bytes that are not TLS ------------------------------------------------------------------


def test_plain_http_inside_connect_is_tunnelled(intercepting, origin):
    proxy = intercepting()
    mark = marker()
    done = curl("-p", "-x", proxy.forward.url, f"http://localhost:{origin.port}/echo?{mark}")
    assert done.returncode == 0, done.stderr.decode(errors="replace")
    assert json.loads(done.stdout)["target"] == f"/echo?{mark}"
    assert len(origin.seen(mark)) == 1

    trace = proxy.trace()
    opened = trace.one("tunnel.opened")
    assert (opened.get("intercepted"), opened.get("reason")) == (False, "not-tls"), opened
    assert not trace.requests(mark), "bytes inside the tunnel must not be parsed as requests"
    assert not trace.of("tls.handshake")


def _client_hello():
    """A real ClientHello (Python's ssl over memory BIOs) for a handshake the test then abandons."""
    context = ssl.create_default_context()
    incoming, outgoing = ssl.MemoryBIO(), ssl.MemoryBIO()
    engine = context.wrap_bio(incoming, outgoing, server_hostname="localhost")
    with pytest.raises(ssl.SSLWantReadError):
        engine.do_handshake()
    return outgoing.read()


@pytest.mark.parametrize("sent", ["half-a-record", "client-hello-only"])
def test_client_that_stalls_the_handshake_is_closed_after_the_timeout(intercepting, tls_origin, certificates, sent):
    proxy = intercepting("--tls-handshake-timeout", "1", "--upstream-ca", certificates["ca.pem"])
    raw, status, head = connect_tunnel(proxy.forward.port, f"localhost:{tls_origin.port}")
    with raw:
        assert status == 200, head
        if sent == "half-a-record":
            raw.sendall(bytes([0x16, 0x03, 0x01, 0x00, 0xC8, 0x01]))  # a handshake record of 200 bytes, 1 sent
        elif sent == "client-hello-only":
            raw.sendall(_client_hello())  # then never answer the ServerHello
        started = time.monotonic()
        read_until_closed(raw, 10)
        elapsed = time.monotonic() - started
    # Closed by the timeout, not at once (a lower bound only: the upper one is the deadline above).
    assert elapsed >= 0.5, f"closed after {elapsed:.2f}s, before the 1 s handshake timeout"

    trace = proxy.trace()
    failed = trace.one("tls.failed", side="client")
    assert failed["code"] == "handshake-timeout", failed
    assert not trace.of("tls.handshake", side="client")


# -- reverse mode and TLS listeners ----------------------------------------------------------


def test_reverse_mode_to_a_tls_upstream(intercepting, tls_origin, certificates):
    proxy = intercepting("--upstream-ca", certificates["ca.pem"],
                         listen=("--listen", "127.0.0.1:0", "--mode", f"reverse:https://localhost:{tls_origin.port}"))
    mark = marker()
    with httpx_client(base_url=proxy.reverse.url) as client:
        response = client.get(f"/echo?{mark}")
    assert response.status_code == 200 and response.json()["target"] == f"/echo?{mark}"
    assert len(tls_origin.seen(mark)) == 1

    trace = proxy.trace()
    trace.assert_complete_flow(trace.flow_for(mark), status=200)
    upstream = trace.one("tls.handshake", side="upstream")
    assert (upstream["sni"], upstream["verified"]) == ("localhost", True), upstream
    assert not trace.of("tls.handshake", side="client")


def test_an_https_url_sent_to_the_forward_proxy_is_fetched_over_tls(intercepting, tls_origin, certificates):
    """`GET https://…` in the request line (absolute-form, RFC 9112 §3.2.2), not CONNECT: the
    proxy fetches it over a verified TLS connection of its own, as mitmproxy and squid do."""
    proxy = intercepting("--upstream-ca", certificates["ca.pem"], own_ca=False)
    mark = marker()
    with RawConnection("127.0.0.1", proxy.forward.port) as connection:
        connection.send(request_bytes("GET", f"https://localhost:{tls_origin.port}/echo?{mark}",
                                      [("Host", f"localhost:{tls_origin.port}")]))
        response = connection.read_response()
    assert response.status == 200 and json.loads(response.body)["target"] == f"/echo?{mark}"
    assert len(tls_origin.seen(mark)) == 1
    trace = proxy.trace()
    received = trace.one("request.received")
    assert received["url"] == f"https://localhost:{tls_origin.port}/echo?{mark}"
    trace.assert_complete_flow(received["flow"], status=200)
    upstream = trace.one("tls.handshake", side="upstream")
    assert (upstream["sni"], upstream["verified"]) == ("localhost", True), upstream


def test_reverse_mode_to_an_upstream_with_the_wrong_name_is_a_502(intercepting, make_origin):
    other = make_origin(names=("DNS:other.test",), common_name="other.test")
    proxy = intercepting("--upstream-ca", other.ca,
                         listen=("--listen", "127.0.0.1:0", "--mode", f"reverse:https://localhost:{other.port}"))
    with httpx_client(base_url=proxy.reverse.url) as client:
        response = client.get("/echo?wrong-name")
    assert response.status_code == 502 and response.text.startswith("faultline:")
    assert proxy.trace().one("upstream.error")["code"] == "hostname-mismatch"


def test_tls_listener_presents_a_certificate_for_the_address_or_the_sni_name(intercepting, tls_origin, certificates):
    proxy = intercepting("--upstream-ca", certificates["ca.pem"], listen=(
        "--listen", "127.0.0.1:0", "--tls", "--mode", f"reverse:https://localhost:{tls_origin.port}"))
    assert proxy.reverse.tls and proxy.reverse.url.startswith("https://"), proxy.reverse
    port = proxy.reverse.port
    mark = marker()
    # curl sends no SNI for an IP literal: the certificate must name 127.0.0.1 itself.
    code, status, body, stderr = fetch(proxy, f"https://127.0.0.1:{port}/echo?{mark}-ip", proxy.faultline_ca,
                                       through_proxy=False)
    assert (code, status) == (0, 200), stderr
    assert json.loads(body)["target"] == f"/echo?{mark}-ip"
    code, status, body, stderr = fetch(proxy, f"https://localhost:{port}/echo?{mark}-name", proxy.faultline_ca,
                                       through_proxy=False)
    assert (code, status) == (0, 200), stderr
    context = client_context(proxy.faultline_ca)
    context.check_hostname = False
    with context.wrap_socket(socket.create_connection(("127.0.0.1", port), timeout=10)) as tls:
        certificate = tls.getpeercert()
    assert ("IP Address", "127.0.0.1") in certificate["subjectAltName"], certificate
    # Plain HTTP on a TLS listener is not served as HTTP.
    plain = curl(f"http://127.0.0.1:{port}/echo?{mark}-plain", timeout=15)
    assert plain.returncode != 0 or not plain.stdout.startswith(b"{"), plain
    assert not tls_origin.seen(f"{mark}-plain")

    trace = proxy.trace()
    for suffix in ("ip", "name"):
        trace.assert_complete_flow(trace.flow_for(f"{mark}-{suffix}"), status=200)
    client_side = trace.of("tls.handshake", side="client")
    assert [(e["sni"], e["certificate_host"]) for e in client_side[:2]] == [
        (None, "127.0.0.1"), ("localhost", "localhost")], client_side
    assert [e["intercepted"] for e in client_side[:2]] == [False, False], "a TLS listener intercepts no CONNECT"

    assert_no_key_material(trace, *ca_key_files(proxy.confdir))

"""Foundation's URLSession (the HTTP stack of the iOS apps Faultline tests) in a child process:
through the forward listener via `http_proxy` (Foundation on Linux ignores
connectionProxyDictionary; libcurl under it honours http_proxy), against a reverse listener, and through TLS interception via `https_proxy`, where it refuses the Faultline CA.
With the Faultline CA as its system bundle (a private mount namespace), it negotiates HTTP/2 by
ALPN with a TLS listener and through interception (see "HTTP/2" below)."""
import hashlib
import os
import shutil

import pytest

from harness.clients import clean_env, run
from harness.python_origin import chunked_body
from harness.waiting import wait_until


def fetch(client, urls, prefix=(), **env):
    """Runs the URLSession client (after `prefix`, a command it runs under); returns
    {url: (status, sha256)}."""
    done = run([*prefix, client, *urls], timeout=60, env=clean_env(**env))
    assert done.returncode == 0, f"URLSession client failed: {done.stderr.decode(errors='replace')}"
    results = {}
    for line in done.stdout.decode().splitlines():
        status, digest, url = line.split(" ", 2)
        results[url] = (int(status), digest)
    assert set(results) == set(urls), done.stdout
    return results


def test_urlsession_through_the_forward_proxy(faultline, nginx, urlsession_client):
    files = ["index.html", "random-1m.bin"]
    urls = [f"{nginx.url}/{name}" for name in files]
    results = fetch(urlsession_client, urls, http_proxy=faultline.forward.url)
    for name, url in zip(files, urls):
        assert results[url] == (200, hashlib.sha256(nginx.read(name)).hexdigest())

    trace = faultline.trace()
    for name in files:
        flow = trace.flow_for(f"/{name}")
        trace.assert_complete_flow(flow, status=200)
        assert trace.one("request.received", flow=flow)["method"] == "GET"


def test_urlsession_against_a_reverse_listener(start_faultline, origin, urlsession_client):
    proxy = start_faultline("--listen", "127.0.0.1:0", "--mode", f"reverse:{origin.url}")
    # trailers=0: FoundationNetworking on Linux traps ("Transfer completed, but there's no
    # response") when a chunked response carries trailers, with or without a proxy.
    urls = [f"{proxy.reverse.url}/chunked?pieces=9&size=5000&trailers=0", f"{proxy.reverse.url}/status/204"]
    results = fetch(urlsession_client, urls)
    assert results[urls[0]] == (200, hashlib.sha256(chunked_body(9, 5000)).hexdigest())
    assert results[urls[1]] == (204, hashlib.sha256(b"").hexdigest())

    trace = proxy.trace()
    trace.assert_complete_flow(trace.flow_for("/chunked?pieces=9"), status=200)
    trace.assert_complete_flow(trace.flow_for("/status/204"), status=204)


def test_urlsession_refusing_the_faultline_ca_is_traced_with_the_hint(faultline, tls_origin, urlsession_client):
    # FoundationNetworking on Linux verifies against the system store only, which does not hold
    # the Faultline CA: the intercepted handshake fails, and the trace says why and what to do.
    url = f"https://localhost:{tls_origin.port}/echo?urlsession-untrusted"
    done = run([urlsession_client, url], timeout=60, env=clean_env(https_proxy=faultline.forward.url))
    assert done.returncode != 0
    assert b"certificate" in done.stdout + done.stderr, done
    assert not tls_origin.seen("urlsession-untrusted")
    faultline.wait_for_event("tls.failed")
    failed = faultline.trace().one("tls.failed")
    assert (failed["side"], failed["code"]) == ("client", "client-rejected-certificate"), failed
    assert "faultline ca" in failed["hint"], failed


# -- HTTP/2 ------------------------------------------------------------------------------------
#
# FoundationNetworking on Linux is libcurl underneath (the system's libcurl.so.4: 7.88.1 with
# nghttp2 1.52 on Debian bookworm). URLSession sets no CURLOPT_HTTP_VERSION, so libcurl's default
# applies: CURL_HTTP_VERSION_2TLS, ALPN "h2, http/1.1" on every https connection, h2 when the
# server picks it (plain http stays HTTP/1.1). So URLSession does speak HTTP/2 to Faultline's TLS
# listener and through interception. What stands in the way is trust: FoundationNetworking gives
# libcurl the system bundle (/etc/ssl/certs/ca-certificates.crt, libcurl's default CAINFO) and
# has no way to add a CA on Linux (its URLSessionCertificateAuthorityInfoFile variable exists on
# Android only; server-trust challenges are not delivered). The tests therefore run the client in
# a private mount namespace where that bundle is the Faultline CA (`unshare -m` and a bind mount:
# root or unprivileged user namespaces; skipped without them).

SYSTEM_BUNDLE = "/etc/ssl/certs/ca-certificates.crt"


def trusting(ca):
    """The command prefix that runs a child in a private mount namespace whose system CA bundle
    is `ca`; skips the test when this machine cannot make one."""
    if shutil.which("unshare") is None or not os.path.exists(SYSTEM_BUNDLE):
        pytest.skip(f"needs unshare (util-linux) and {SYSTEM_BUNDLE}")
    namespace = ["unshare", "-m"] if os.geteuid() == 0 else ["unshare", "-r", "-m"]
    prefix = [*namespace, "--", "sh", "-c", f'mount --bind "$0" {SYSTEM_BUNDLE} && exec "$@"', ca]
    probe = run([*prefix, "true"], timeout=10)
    if probe.returncode != 0:
        pytest.skip(f"cannot replace the CA bundle in a mount namespace: {probe.stderr.decode(errors='replace')}")
    return prefix


def fetch_trusting(client, ca, urls, **env):
    """`fetch`, with `ca` as the only CA the client trusts."""
    return fetch(client, urls, prefix=trusting(ca), **env)


def _private_confdir(tmp_path):
    folder = tmp_path / "confdir"
    folder.mkdir(mode=0o700)
    return str(folder)


def _wait_ca(confdir):
    path = os.path.join(confdir, "ca.pem")
    wait_until(lambda: os.path.exists(path) and os.path.getsize(path) > 0, 10, f"{path} to be written")
    return path


def test_urlsession_negotiates_h2_with_a_tls_listener(start_faultline, origin, urlsession_client, tmp_path):
    confdir = _private_confdir(tmp_path)
    proxy = start_faultline("--listen", "127.0.0.1:0", "--tls", "--mode", f"reverse:{origin.url}",
                            "--confdir", confdir)
    base = f"https://localhost:{proxy.reverse.port}"
    urls = [f"{base}/chunked?pieces=9&size=5000&trailers=0", f"{base}/status/204", f"{base}/echo?urlsession-h2"]
    results = fetch_trusting(urlsession_client, _wait_ca(confdir), urls)
    assert results[urls[0]] == (200, hashlib.sha256(chunked_body(9, 5000)).hexdigest())
    assert results[urls[1]] == (204, hashlib.sha256(b"").hexdigest())
    assert results[urls[2]][0] == 200

    trace = proxy.trace()
    assert {event["alpn"] for event in trace.of("tls.handshake", side="client")} == {"h2"}
    requests = trace.of("request.received")
    assert [event["version"] for event in requests] == ["HTTP/2"] * 3, requests
    assert all(isinstance(event["stream"], int) and event["stream"] % 2 == 1 for event in requests)
    for marker, status in (("/chunked?pieces=9", 200), ("/status/204", 204), ("urlsession-h2", 200)):
        trace.assert_complete_flow(trace.flow_for(marker), status=status)


def test_urlsession_negotiates_h2_through_interception(start_faultline, tls_origin, certificates, urlsession_client,
                                                      tmp_path):
    confdir = _private_confdir(tmp_path)
    proxy = start_faultline("--listen", "127.0.0.1:0", "--confdir", confdir, "--upstream-ca", certificates["ca.pem"])
    url = f"https://localhost:{tls_origin.port}/chunked?pieces=4&size=3000&trailers=0"
    results = fetch_trusting(urlsession_client, _wait_ca(confdir), [url], https_proxy=proxy.forward.url)
    assert results[url] == (200, hashlib.sha256(chunked_body(4, 3000)).hexdigest())

    trace = proxy.trace()
    handshake = trace.one("tls.handshake", side="client")
    assert handshake["alpn"] == "h2" and handshake["intercepted"] is True, handshake
    request = next(event for event in trace.of("request.received") if event["method"] == "GET")
    assert request["version"] == "HTTP/2" and request["url"] == url, request
    trace.assert_complete_flow(request["flow"], status=200)

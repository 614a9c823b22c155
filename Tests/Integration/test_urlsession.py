"""Foundation's URLSession (the HTTP stack of the iOS apps Faultline tests) in a child process:
through the forward listener via `http_proxy` (Foundation on Linux ignores
connectionProxyDictionary; libcurl under it honours http_proxy), against a reverse listener, and through TLS interception via `https_proxy`, where it refuses the Faultline CA."""
import hashlib

from harness.clients import clean_env, run
from harness.python_origin import chunked_body


def fetch(client, urls, **env):
    """Runs the URLSession client; returns {url: (status, sha256)}."""
    done = run([client, *urls], timeout=60, env=clean_env(**env))
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

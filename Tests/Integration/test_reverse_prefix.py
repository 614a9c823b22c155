"""Reverse mode to an upstream URL with a path (`--mode reverse:http://host:port/api`): every
request's path goes upstream under that prefix; rules and the trace's `path` keep the client's."""
import json

import pytest

from harness.clients import curl_ok, run


def test_the_upstream_path_prefix_is_kept(start_faultline, origin):
    proxy = start_faultline("--listen", "127.0.0.1:0", "--mode", f"reverse:{origin.url}/api/")
    listener = proxy.reverse
    assert listener.upstream is not None and listener.upstream.endswith("/api"), listener
    marker = "prefix-kept"
    body = curl_ok("-s", f"{listener.url}/echo?{marker}=1")
    # The origin has no /api/echo: its 404 shows where the request went.
    assert body == b"no such endpoint\n"
    assert [r["target"] for r in origin.seen(marker)] == [f"/api/echo?{marker}=1"]
    received = proxy.trace().requests(marker)
    assert len(received) == 1
    assert received[0]["path"] == "/echo"
    assert received[0]["url"].endswith(f"/api/echo?{marker}=1"), received[0]["url"]


@pytest.mark.parametrize("upstream, mentions", [
    ("http://127.0.0.1:9/api?x=1", "must name only a host, a port and a path prefix"),
    ("http://127.0.0.1:9/a%zz", "bad path prefix '/a%zz'"),
], ids=["query", "bad-escape"])
def test_an_upstream_url_that_cannot_be_kept_is_refused(faultline_binary, upstream, mentions):
    done = run([faultline_binary, "run", "--listen", "127.0.0.1:0", "--mode", f"reverse:{upstream}"], timeout=10)
    err = done.stderr.decode(errors="replace")
    assert done.returncode == 2, f"exit {done.returncode}, stderr {err!r}"
    assert mentions in err, err

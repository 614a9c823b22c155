"""HAR 1.2 both ways with real clients: `faultline har export` of a capture (`run --capture`) and
of a plain trace validates against fixtures/har-1.2.schema.json (harness/har.py) and keeps every
secret as the capture wrote it; a HAR recorded by mitmproxy's mitmdump (harness/mitmdump.py) is
imported with `faultline har import` into a private capture that `faultline check` reads; usage
errors and malformed HAR files exit 2 naming the entry and field. Serving an imported HAR with
`replay serve` is tested with replay itself."""
import json
import os
import re
import secrets
import socket
import stat

from harness.clients import run
from harness.har import cookie, entries, header, response_body, validate_har
from harness.http_clients import httpx_client
from harness.mitmdump import Mitmdump
from harness.python_origin import chunked_body
from harness.trace import Trace

PSEUDONYM = r"flp\.[a-z0-9-]+\.[A-Za-z0-9]+\.[0-9]+"
FINGERPRINT = r"fp:[0-9a-f]{16}"


def har_command(binary, *args):
    """`faultline har ARGS`, bounded; returns the CompletedProcess (stdout bytes, stderr text)."""
    done = run([binary, "har", *args], timeout=30)
    done.stderr = done.stderr.decode("utf-8", "replace")
    return done


def leaked(text, named_secrets):
    """The names (never the values) of the secrets that appear in `text`."""
    return sorted(name for name, value in named_secrets.items() if value in text)


def file_mode(path):
    return stat.S_IMODE(os.stat(path).st_mode)


def send_through(proxy_url, origin, run_id, token, sid, password):
    """A GET with a query, a JSON POST with a bearer token, a cookie and a password, and a binary
    chunked download, one after the other; returns the three httpx responses."""
    with httpx_client(proxy_url) as client:
        return [
            client.get(f"{origin.url}/echo", params={"q": "fault line", "marker": f"har-get-{run_id}"}),
            client.post(f"{origin.url}/echo?marker=har-post-{run_id}", json={"user": "ann", "password": password},
                        headers={"Authorization": f"Bearer {token}", "Cookie": f"sid={sid}; theme=dark"}),
            client.get(f"{origin.url}/chunked?pieces=2&size=40&trailers=0&marker=har-binary-{run_id}"),
        ]


# -- export ---------------------------------------------------------------------------------

def test_a_capture_exports_as_valid_har_with_pseudonyms_and_no_secret(start_faultline, origin, faultline_binary, tmp_path):
    proxy = start_faultline("--listen", "127.0.0.1:0", "--capture")
    named = {"token": secrets.token_urlsafe(24), "sid": secrets.token_urlsafe(18), "password": secrets.token_urlsafe(16)}
    run_id = secrets.token_hex(4)
    sent = send_through(proxy.forward.url, origin, run_id, named["token"], named["sid"], named["password"])
    assert [response.status_code for response in sent] == [200, 200, 200]
    trace = proxy.trace()  # stops the proxy: the capture is complete
    assert trace.header["capture"]["secrets"] == "pseudonyms"

    har_path = str(tmp_path / "export.har")
    done = har_command(faultline_binary, "export", proxy.trace_file, "-o", har_path)
    assert done.returncode == 0, done.stderr
    assert f"3 entries from {proxy.trace_file} to {har_path}" in done.stderr
    assert file_mode(har_path) == 0o644  # pseudonyms only: nothing to hide
    with open(har_path, encoding="utf-8") as handle:
        text = handle.read()
    har = validate_har(json.loads(text))
    assert leaked(text, named) == [], "raw secrets in the exported HAR"
    assert leaked(trace.text, named) == [], "raw secrets in the capture"

    get, post, binary = entries(har)
    assert [entry["request"]["method"] for entry in entries(har)] == ["GET", "POST", "GET"]
    assert [entry["request"]["url"] for entry in entries(har)] == [str(response.request.url) for response in sent]
    assert [entry["response"]["status"] for entry in entries(har)] == [200, 200, 200]
    assert har["log"]["creator"]["name"] == "faultline"
    assert "pseudonyms" in har["log"]["comment"]

    # The pseudonyms are the capture's, at the same places; the rest is what was sent.
    received = trace.one("request.received", flow=post["_faultline"]["flow"])
    authorization = header(post["request"], "authorization")
    assert re.fullmatch(f"Bearer {PSEUDONYM}", authorization), authorization
    assert [["Authorization", authorization]] == [pair for pair in received["headers"] if pair[0] == "Authorization"]
    assert re.fullmatch(PSEUDONYM, cookie(post["request"], "sid")["value"])
    assert cookie(post["request"], "sid")["value"] in text and cookie(post["request"], "sid")["value"] in trace.text
    posted = json.loads(post["request"]["postData"]["text"])
    assert posted["user"] == "ann" and re.fullmatch(PSEUDONYM, posted["password"])
    assert post["request"]["postData"]["mimeType"] == "application/json"
    assert post["request"]["bodySize"] == len(sent[1].request.content)
    # The pseudonym is not as long as the password: Content-Length follows the body the entry
    # holds, so a tool that sends the entry again sends a well-framed request (issue 20).
    text_length = len(post["request"]["postData"]["text"].encode())
    assert text_length != len(sent[1].request.content)
    assert header(post["request"], "content-length") == str(text_length), post["request"]["headers"]
    assert "it was %d on the wire" % len(sent[1].request.content) in post["request"]["comment"]
    for entry in (get, post):  # a response echoing a pseudonym is fitted the same way
        length = header(entry["response"], "content-length")
        if length is not None and "text" in entry["response"]["content"]:
            assert int(length) == len(entry["response"]["content"]["text"].encode()), entry["response"]
    # The origin echoed the headers it got; the echo carries the pseudonyms, not the secrets.
    echoed = dict(json.loads(response_body(post))["headers"])
    assert echoed["Authorization"] == authorization

    assert {"name": "q", "value": "fault line"} in get["request"]["queryString"]
    assert json.loads(response_body(get))["target"] == sent[0].request.url.raw_path.decode()
    assert binary["response"]["content"]["encoding"] == "base64"
    assert response_body(binary) == chunked_body(2, 40) == sent[2].content

    for entry in entries(har):  # faultline's IDs, as the trace has them
        ids = entry["_faultline"]
        event = trace.one("request.received", flow=ids["flow"])
        assert (ids["connection"], ids["seq"]) == (event["conn"], event["seq"])
        assert entry["startedDateTime"] == event["wall"]
    for marker in ("har-get", "har-post", "har-binary"):
        assert len(origin.seen(f"marker={marker}-{run_id}")) == 1


def test_a_plain_trace_exports_as_valid_har_without_bodies(start_faultline, origin, faultline_binary, tmp_path):
    proxy = start_faultline("--listen", "127.0.0.1:0")
    named = {"token": secrets.token_urlsafe(24), "sid": secrets.token_urlsafe(18), "password": secrets.token_urlsafe(16)}
    sent = send_through(proxy.forward.url, origin, secrets.token_hex(4), named["token"], named["sid"], named["password"])
    proxy.trace()

    done = har_command(faultline_binary, "export", proxy.trace_file)  # to stdout
    assert done.returncode == 0, done.stderr
    text = done.stdout.decode("utf-8")
    har = validate_har(json.loads(text))
    assert leaked(text, named) == [], "raw secrets in the exported HAR"
    assert "fingerprints" in har["log"]["comment"]
    get, post, binary = entries(har)
    assert re.fullmatch(f"Bearer {FINGERPRINT}", header(post["request"], "authorization"))
    for entry, response in zip(entries(har), sent):
        content = entry["response"]["content"]
        assert "text" not in content and "not captured" in content["comment"]
        assert content["size"] == entry["response"]["bodySize"] == len(response.content)
    assert "postData" not in post["request"] and post["request"]["bodySize"] == len(sent[1].request.content)


# -- import ---------------------------------------------------------------------------------

def closed_loopback_port():
    """A loopback port nothing listens on (bound, then closed)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_a_mitmdump_har_imports_into_a_private_capture_that_check_reads(origin, faultline_binary, tmp_path):
    token = f"Bearer {secrets.token_urlsafe(24)}"
    run_id = secrets.token_hex(4)
    with Mitmdump(str(tmp_path)) as recorder:
        with httpx_client(recorder.url) as client:
            sent = [
                client.post(f"{origin.url}/echo?marker=har-import-{run_id}", json={"n": 1}, headers={"Authorization": token}),
                client.get(f"{origin.url}/chunked?pieces=2&size=40&trailers=0&marker=har-import-bin-{run_id}"),
                client.get(f"{origin.url}/set-cookie?name=session&value=v123&marker=har-import-cookie-{run_id}"),
            ]
            failed = client.get(f"http://127.0.0.1:{closed_loopback_port()}/unreachable")
    assert [response.status_code for response in sent] == [200, 200, 200] and failed.status_code == 502
    # mitmdump writes a failed flow as status 0 with an empty content (no size: not valid HAR 1.2).
    assert [entry["response"]["status"] for entry in entries(recorder.har)] == [200, 200, 200, 0]

    capture_path = str(tmp_path / "imported.jsonl")
    done = har_command(faultline_binary, "import", recorder.har_path, "-o", capture_path)
    assert done.returncode == 0, done.stderr
    assert f"{recorder.har_path}: entries[3]: no response (status 0" in done.stderr
    assert f"3 exchanges from {recorder.har_path} to {capture_path}; secrets kept raw" in done.stderr
    assert file_mode(capture_path) == 0o600  # mitmdump wrote the token in clear, and so does the capture

    capture = Trace.load(capture_path)
    capture.assert_well_formed()
    assert capture.header["capture"]["secrets"] == "kept"
    assert [event["url"] for event in capture.of("request.received")] == [str(response.request.url) for response in sent]
    assert [event["status"] for event in capture.of("response.delivered")] == [200, 200, 200]

    checked = run([faultline_binary, "check", capture_path, "--format", "json"], timeout=30)
    assert checked.returncode in (0, 1), checked.stderr.decode("utf-8", "replace")
    report = json.loads(checked.stdout)
    assert report["eventCount"] == len(capture.events)
    # Its only complaint is the truth: the secrets are in clear.
    assert {problem["kind"] for problem in report["traceProblems"]} <= {"raw-secret"}

    # Exported again, the bodies are mitmdump's, byte for byte.
    again = har_command(faultline_binary, "export", capture_path)
    assert again.returncode == 0, again.stderr
    assert "do not share it" in again.stderr
    exported = validate_har(json.loads(again.stdout))
    assert [response_body(entry) for entry in entries(exported)] == [response.content for response in sent]
    same_token = header(entries(exported)[0]["request"], "authorization") == token
    assert same_token, "the imported Authorization header did not come back unchanged"


# -- usage and malformed input ----------------------------------------------------------------

def minimal_har(*urls):
    return {"log": {"version": "1.2", "creator": {"name": "hand", "version": "1"}, "entries": [
        {"startedDateTime": "2026-03-01T10:00:00Z", "time": 1, "cache": {}, "timings": {"send": 0, "wait": 1, "receive": 0},
         "request": {"method": "GET", "url": url, "httpVersion": "HTTP/1.1", "cookies": [], "headers": [],
                     "queryString": [], "headersSize": -1, "bodySize": 0},
         "response": {"status": 200, "statusText": "OK", "httpVersion": "HTTP/1.1", "cookies": [], "headers": [],
                      "content": {"size": 2, "mimeType": "text/plain", "text": "ok"}, "redirectURL": "",
                      "headersSize": -1, "bodySize": 2}}
        for url in urls]}}


def test_usage_errors_and_malformed_hars_exit_2_naming_the_place(faultline_binary, tmp_path):
    def write(name, content):
        path = str(tmp_path / name)
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(content if isinstance(content, str) else json.dumps(content))
        return path

    good = write("good.har", minimal_har("http://127.0.0.1:9/a"))
    for args, expected in [
        ((), "usage: faultline har export"),
        (("exprot", good), "expected 'export' or 'import', not 'exprot' (did you mean 'export'?)"),
        (("export",), "a trace or capture file is required"),
        (("export", good, good), "expected one input file, got 2"),
        (("export", good, "--ouput", "x"), "unknown option '--ouput' (did you mean '--output'?)"),
        (("import", good), "-o CAPTURE is required"),
        (("export", str(tmp_path / "missing.jsonl")), "missing.jsonl: no such file"),
    ]:
        done = har_command(faultline_binary, *args)
        assert done.returncode == 2, (args, done.returncode, done.stderr)
        assert expected in done.stderr + done.stdout.decode(), (args, done.stderr)

    broken = write("broken.har", minimal_har("http://127.0.0.1:9/a", "/relative", "http://127.0.0.1:9/c"))
    capture_path = str(tmp_path / "never.jsonl")
    done = har_command(faultline_binary, "import", broken, "-o", capture_path)
    assert done.returncode == 2 and done.stderr.strip() == f"{broken}: entries[1].request.url: not an absolute http(s) URL"
    assert not os.path.exists(capture_path)
    done = har_command(faultline_binary, "export", broken)
    assert done.returncode == 2 and "entries[1].request.url" in done.stderr and done.stdout == b""

    not_json = write("not-json.har", '{"log": {"entries": [')
    done = har_command(faultline_binary, "import", not_json, "-o", capture_path)
    assert done.returncode == 2 and done.stderr.startswith(f"{not_json}: not valid JSON"), done.stderr

    trace = write("trace.jsonl", '{"faultline_trace":1,"faultline":"0","created":"x","fingerprint":"x"}\n')
    done = har_command(faultline_binary, "import", trace, "-o", capture_path)
    assert done.returncode == 2 and "not a HAR file" in done.stderr

    done = har_command(faultline_binary, "export", good, "-o", str(tmp_path / "no" / "such" / "dir.har"))
    assert done.returncode == 1 and "cannot write" in done.stderr

    for args in (("--help",), ("export", "--help"), ("import", "-h")):
        done = har_command(faultline_binary, *args)
        assert done.returncode == 0 and done.stdout.startswith(b"usage: faultline har"), args

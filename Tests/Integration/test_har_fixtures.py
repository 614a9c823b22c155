"""The HAR fixtures are honest: a HAR that mitmproxy's mitmdump (harness/mitmdump.py) records in
front of the Python origin validates against fixtures/har-1.2.schema.json (harness/har.py) and
holds the requests that were sent, and the schema rejects what HAR 1.2 forbids (a missing
creator, a string time, unknown fields, a content without size, ...) while accepting every
optional field and `_custom` fields. No faultline process is involved."""
import copy
import json
import secrets

import pytest

from harness.har import cookie, entries, header, response_body, validate_har
from harness.http_clients import httpx_client
from harness.mitmdump import Mitmdump
from harness.python_origin import chunked_body

TOKEN = "Bearer secret-token-123"


# -- a HAR recorded by mitmdump -------------------------------------------------------------

def test_mitmdump_records_what_httpx_sent_as_valid_har(origin, tmp_path):
    payload = {"user": "alice", "scopes": ["read", "write"], "note": "é"}
    run = secrets.token_hex(4)  # the origin is shared by the session: this test's requests carry it
    with Mitmdump(str(tmp_path)) as recorder:
        with httpx_client(recorder.url) as client:
            sent = [
                client.get(f"{origin.url}/echo", params={"q": "fault line", "marker": f"har-get-{run}"}),
                client.post(f"{origin.url}/echo?marker=har-post-{run}", json=payload, headers={"Authorization": TOKEN}),
                client.get(f"{origin.url}/echo?marker=har-cookie-{run}", headers={"Cookie": "flavour=oat; sid=abc"}),
                client.get(f"{origin.url}/set-cookie?name=session&value=v123&marker=har-set-cookie-{run}"),
                client.get(f"{origin.url}/chunked?pieces=2&size=40&trailers=0&marker=har-binary-{run}"),
            ]
    har = validate_har(recorder.har)
    assert all(response.status_code == 200 for response in sent)

    recorded = entries(har)  # one client, one request at a time: the HAR keeps the sending order
    assert [entry["request"]["method"] for entry in recorded] == ["GET", "POST", "GET", "GET", "GET"]
    assert [entry["request"]["url"] for entry in recorded] == [str(response.request.url) for response in sent]
    assert [entry["response"]["status"] for entry in recorded] == [200] * 5
    assert har["log"]["creator"] == {"name": "mitmproxy", "version": "11.0.2", "comment": ""}

    get, post, with_cookie, set_cookie, binary = recorded
    assert {"name": "q", "value": "fault line"} in get["request"]["queryString"]
    assert json.loads(response_body(get))["target"] == sent[0].request.url.raw_path.decode()
    assert [response_body(entry) for entry in recorded] == [response.content for response in sent]

    assert header(post["request"], "authorization") == TOKEN  # mitmdump keeps credentials in clear
    assert post["request"]["postData"]["mimeType"] == "application/json"
    assert post["request"]["postData"]["text"] == sent[1].request.content.decode("utf-8")
    assert json.loads(post["request"]["postData"]["text"]) == payload
    assert post["request"]["bodySize"] == len(sent[1].request.content)

    assert cookie(with_cookie["request"], "flavour")["value"] == "oat"
    assert cookie(with_cookie["request"], "sid")["value"] == "abc"
    assert header(with_cookie["request"], "COOKIE") == "flavour=oat; sid=abc"

    assert header(set_cookie["response"], "set-cookie") == "session=v123; Path=/; HttpOnly"
    session = cookie(set_cookie["response"], "session")
    assert (session["value"], session["path"], session["httpOnly"]) == ("v123", "/", True)
    assert set_cookie["response"]["content"] == {"size": 11, "compression": 0, "mimeType": "text/plain",
                                                 "text": "cookie set\n"}

    assert binary["response"]["content"]["encoding"] == "base64"  # bytes that are not text
    assert response_body(binary) == chunked_body(2, 40)

    for marker in ("har-get", "har-post", "har-cookie", "har-set-cookie", "har-binary"):
        assert len(origin.seen(f"marker={marker}-{run}")) == 1, f"{marker} did not reach the origin exactly once"


# -- what the schema accepts --------------------------------------------------------------

def small_har():
    """One POST entry with every optional field left out, except postData (so its rules can be
    broken)."""
    return {"log": {
        "version": "1.2",
        "creator": {"name": "faultline-tests", "version": "1"},
        "entries": [{
            "startedDateTime": "2026-01-02T03:04:05.678Z",
            "time": 12.5,
            "request": {
                "method": "POST", "url": "http://127.0.0.1:8080/login?next=%2F", "httpVersion": "HTTP/1.1",
                "cookies": [], "headers": [{"name": "Content-Type", "value": "application/json"}],
                "queryString": [{"name": "next", "value": "/"}],
                "postData": {"mimeType": "application/json", "text": "{\"user\":\"a\"}"},
                "headersSize": -1, "bodySize": 12,
            },
            "response": {
                "status": 200, "statusText": "OK", "httpVersion": "HTTP/1.1", "cookies": [], "headers": [],
                "content": {"size": 0, "mimeType": "text/plain"}, "redirectURL": "", "headersSize": -1, "bodySize": 0,
            },
            "cache": {},
            "timings": {"send": 0.5, "wait": 10, "receive": 2},
        }],
    }}


def full_har():
    """`small_har` with every optional field of the spec filled in."""
    har = small_har()
    log = har["log"]
    log.update(browser={"name": "Firefox", "version": "3.6", "comment": ""}, comment="all of it", pages=[{
        "startedDateTime": "2026-01-02T04:04:05+01:00", "id": "page_0", "title": "Login",
        "pageTimings": {"onContentLoad": 1720, "onLoad": -1, "comment": ""}, "comment": "",
    }])
    log["creator"]["comment"] = ""
    entry = log["entries"][0]
    entry.update(pageref="page_0", serverIPAddress="127.0.0.1", connection="52492", comment="",
                 cache={"beforeRequest": None, "afterRequest": {"expires": "2026-01-02T04:00:00", "lastAccess":
                        "2026-01-02T03:04:05", "eTag": "", "hitCount": 0, "comment": ""}, "comment": ""})
    entry["timings"].update(blocked=0, dns=-1, connect=15, ssl=-1, comment="")
    entry["time"] = 27.5
    request, response = entry["request"], entry["response"]
    request["comment"] = ""
    request["cookies"] = [{"name": "sid", "value": "abc", "path": "/", "domain": "127.0.0.1", "expires":
                           "2026-07-24T19:20:30.123+02:00", "httpOnly": True, "secure": False, "comment": ""}]
    request["headers"][0]["comment"] = ""
    request["queryString"][0]["comment"] = ""
    request["postData"].update(params=[{"name": "file", "value": "x", "fileName": "a.pdf", "contentType":
                                        "application/pdf", "comment": ""}], comment="")
    response.update(status=302, statusText="Found", redirectURL="http://127.0.0.1:8080/", comment="")
    response["content"].update(size=33, compression=0, text="PGh0bWw+PC9odG1sPgo=", encoding="base64", comment="")
    return har


def with_custom_fields(har):
    """`har` with a `_faultline` field in every object."""
    log = har["log"]
    entry = log["entries"][0]
    objects = [har, log, log["creator"], entry, entry["request"], entry["request"]["headers"][0],
               entry["request"]["queryString"][0], entry["request"]["postData"], entry["response"],
               entry["response"]["content"], entry["cache"], entry["timings"]]
    for index, part in enumerate(objects):
        part["_faultline"] = {"fault": "reset", "index": index}
    return har


@pytest.mark.parametrize("make", [small_har, full_har, lambda: with_custom_fields(full_har())],
                         ids=["every-optional-field-left-out", "every-optional-field", "custom-fields-everywhere"])
def test_the_schema_accepts_valid_har(make):
    validate_har(make())


# -- what validate_har rejects --------------------------------------------------------------

def entry0(har):
    return har["log"]["entries"][0]


UNKNOWN_FIELD = "does not match any of the regexes: '^_'"  # jsonschema's words for a field not allowed
REJECTED = {
    # id: (how to break a valid HAR, what the error names)
    "missing-creator": (lambda har: har["log"].pop("creator"), "$.log: 'creator' is a required property"),
    "time-as-string": (lambda har: entry0(har).update(time="12.5"), "$.log.entries[0].time: '12.5' is not of type"),
    "unknown-entry-field": (lambda har: entry0(har).update(priority="high"),
                            f"$.log.entries[0]: 'priority' {UNKNOWN_FIELD}"),
    "content-without-size": (lambda har: entry0(har)["response"]["content"].pop("size"),
                             "$.log.entries[0].response.content: 'size' is a required property"),
    "unknown-request-field": (lambda har: entry0(har)["request"].update(fragment="#top"),
                              f"$.log.entries[0].request: 'fragment' {UNKNOWN_FIELD}"),
    "unknown-response-field": (lambda har: entry0(har)["response"].update(trailers=[]),
                               f"$.log.entries[0].response: 'trailers' {UNKNOWN_FIELD}"),
    "unknown-timings-field": (lambda har: entry0(har)["timings"].update(queued=1),
                              f"$.log.entries[0].timings: 'queued' {UNKNOWN_FIELD}"),
    "unknown-content-field": (lambda har: entry0(har)["response"]["content"].update(charset="utf-8"),
                              f"$.log.entries[0].response.content: 'charset' {UNKNOWN_FIELD}"),
    "unknown-postdata-field": (lambda har: entry0(har)["request"]["postData"].update(encoding="base64"),
                               f"$.log.entries[0].request.postData: 'encoding' {UNKNOWN_FIELD}"),
    "postdata-without-text-or-params": (
        lambda har: entry0(har)["request"]["postData"].pop("text"),
        "$.log.entries[0].request.postData: {'mimeType': 'application/json'} is not valid under any"),
    "started-not-iso-8601": (lambda har: entry0(har).update(startedDateTime="Fri, 02 Jan 2026 03:04:05 GMT"),
                             "$.log.entries[0].startedDateTime: 'Fri, 02 Jan 2026 03:04:05 GMT' does not match"),
    "fractional-body-size": (lambda har: entry0(har)["response"].update(bodySize=1.5),
                             "$.log.entries[0].response.bodySize: 1.5 is not of type 'integer'"),
    "size-below-unknown": (lambda har: entry0(har)["request"].update(headersSize=-2),
                           "$.log.entries[0].request.headersSize: -2 is less than the minimum of -1"),
    "send-unknown": (lambda har: entry0(har)["timings"].update(send=-1),
                     "$.log.entries[0].timings.send: -1 is less than the minimum of 0"),
    "connect-negative-not-minus-one": (lambda har: entry0(har)["timings"].update(connect=-0.5),
                                       "$.log.entries[0].timings.connect: -0.5 is not valid"),
    "time-not-sum-of-timings": (lambda har: entry0(har).update(time=99),
                                "$.log.entries[0].time: 99 is not the sum of its timings (12.5)"),
    "pageref-names-no-page": (lambda har: entry0(har).update(pageref="page_9"),
                              "$.log.entries[0].pageref: 'page_9' names no page"),
}


@pytest.mark.parametrize("breaks, named", REJECTED.values(), ids=REJECTED.keys())
def test_validate_har_rejects_invalid_har(breaks, named):
    har = small_har()
    validate_har(copy.deepcopy(har))  # the mutant's parent is valid
    breaks(har)
    with pytest.raises(AssertionError) as rejected:
        validate_har(har)
    assert named in str(rejected.value), f"expected {named!r} in:\n{rejected.value}"


def test_validate_har_lists_every_problem():
    har = small_har()
    har["log"].pop("creator")
    entry0(har)["time"] = "12.5"
    entry0(har)["response"]["content"].pop("size")
    with pytest.raises(AssertionError) as rejected:
        validate_har(har)
    lines = str(rejected.value).splitlines()
    assert lines[0] == "not a valid HAR 1.2 document (3 problems):"
    assert [line.split(":")[0] for line in lines[1:]] == [
        "$.log", "$.log.entries[0].response.content", "$.log.entries[0].time"]


def test_a_recorded_har_keeps_passing_with_faultline_fields(origin, tmp_path):
    """What an importer will see from Faultline: mitmdump's HAR plus `_faultline` annotations."""
    with Mitmdump(str(tmp_path)) as recorder:
        with httpx_client(recorder.url) as client:
            assert client.get(f"{origin.url}/status/204?marker=har-annotated").status_code == 204
    har = validate_har(recorder.har)
    [entry] = entries(har)
    entry["_faultline"] = {"flow": 1, "rule": "example/reset"}
    entry["response"]["_faultline"] = {"fault": "reset"}
    entry["timings"]["_faultline"] = {"stalled": 0}
    validate_har(har)
    entry["faultline"] = {}  # without the underscore it is not a custom field
    with pytest.raises(AssertionError) as rejected:
        validate_har(har)
    assert f"$.log.entries[0]: 'faultline' {UNKNOWN_FIELD}" in str(rejected.value)

"""HAR 1.2 documents: the JSON Schema in fixtures/har-1.2.schema.json (written from the spec),
`validate_har` that fails a test with every problem and where it is, small readers for what
tests look at (entries, headers, cookies, bodies), and `har_entry`/`write_har_log` for tests that
write a recording by hand."""
import base64
import functools
import json
import math
import os
from datetime import datetime, timezone

from jsonschema import Draft202012Validator

SCHEMA_PATH = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "fixtures",
                           "har-1.2.schema.json")
TIME_TOLERANCE_MS = 1.0  # entry.time against the sum of its timings: exporters round each phase


def load_schema(path=SCHEMA_PATH):
    """The HAR 1.2 schema (a fresh dict each call, so a caller may change its copy), checked
    against its metaschema."""
    with open(path, encoding="utf-8") as handle:
        schema = json.load(handle)
    Draft202012Validator.check_schema(schema)
    return schema


@functools.lru_cache(maxsize=1)
def _default_validator():
    return Draft202012Validator(load_schema())


def json_path(parts):
    """`$.log.entries[0].time` for the path parts ("log", "entries", 0, "time")."""
    text = "$"
    for part in parts:
        text += f"[{part}]" if isinstance(part, int) else f".{part}"
    return text


def schema_problems(document, schema=None):
    """Every schema error as `path: message`, sorted by path; why each alternative of a failed
    anyOf/oneOf failed follows on indented lines of the same problem."""
    validator = _default_validator() if schema is None else Draft202012Validator(schema)
    problems = []
    for error in sorted(validator.iter_errors(document), key=lambda e: _sort_key(e.absolute_path)):
        lines = [f"{json_path(error.absolute_path)}: {error.message}"]
        lines += [f"    or {json_path(alternative.absolute_path)}: {alternative.message}"
                  for alternative in error.context or ()]
        problems.append("\n".join(lines))
    return problems


def _sort_key(parts):
    """Orders paths as the document does: indexes by number, keys by name."""
    return [(0, part, "") if isinstance(part, int) else (1, 0, str(part)) for part in parts]


def spec_problems(document):
    """What the spec requires and a schema cannot say: an entry's `time` is the sum of its timings
    that are not -1 (within TIME_TOLERANCE_MS), and a `pageref` names a page of the log. Skips
    whatever is malformed (the schema reports that)."""
    log = document.get("log") if isinstance(document, dict) else None
    if not isinstance(log, dict) or not isinstance(log.get("entries"), list):
        return []
    pages = log.get("pages") if isinstance(log.get("pages"), list) else []
    page_ids = {page.get("id") for page in pages if isinstance(page, dict)}
    problems = []
    for index, entry in enumerate(log["entries"]):
        if not isinstance(entry, dict):
            continue
        where = json_path(("log", "entries", index))
        timings, time = entry.get("timings"), entry.get("time")
        if isinstance(timings, dict) and _is_number(time):
            phases = [value for key, value in timings.items() if not key.startswith("_") and _is_number(value)]
            total = sum(value for value in phases if value >= 0)
            if not math.isclose(time, total, abs_tol=TIME_TOLERANCE_MS):
                problems.append(f"{where}.time: {time!r} is not the sum of its timings ({total!r})")
        if "pageref" in entry and entry["pageref"] not in page_ids:
            problems.append(f"{where}.pageref: {entry['pageref']!r} names no page of log.pages")
    return problems


def _is_number(value):
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def validate_har(document, schema=None):
    """Raises an AssertionError listing every schema error and spec violation (see
    `spec_problems`), each with its path, or returns `document` when there are none."""
    problems = schema_problems(document, schema) + spec_problems(document)
    if problems:
        raise AssertionError(f"not a valid HAR 1.2 document ({len(problems)} problems):\n" + "\n".join(problems))
    return document


def entries(document):
    """The entries of a HAR document, in the order the file has them."""
    return document["log"]["entries"]


def header(entry_part, name):
    """The first value of header `name` (case-insensitive) of a request or response, or None."""
    for field in entry_part.get("headers", ()):
        if field["name"].lower() == name.lower():
            return field["value"]
    return None


def cookie(entry_part, name):
    """The first cookie object named `name` (case-sensitive, as cookie names are) of a request or
    response, or None."""
    for item in entry_part.get("cookies", ()):
        if item["name"] == name:
            return item
    return None


def response_body(entry):
    """The response body as bytes (base64 decoded when `content.encoding` says so; other text as
    UTF-8), or None when the HAR holds no text for it."""
    content = entry["response"]["content"]
    if "text" not in content:
        return None
    if content.get("encoding") == "base64":
        return base64.b64decode(content["text"], validate=True)
    assert "encoding" not in content, f"unknown content.encoding {content['encoding']!r}"
    return content["text"].encode("utf-8")


def har_entry(at, method, url, request_headers, request_body, response_body, response_headers=None,
              mime="application/json"):
    """One 200 exchange started at `at` (epoch seconds): headers as (name, value) pairs, a form
    body when `request_body` is not empty, and a response of `mime` (its only header a matching
    Content-Type unless `response_headers` says otherwise)."""
    if response_headers is None:
        response_headers = [("Content-Type", mime)]
    started = datetime.fromtimestamp(at, timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.000Z")
    request = {"method": method, "url": url, "httpVersion": "HTTP/1.1", "cookies": [], "queryString": [],
               "headers": [{"name": k, "value": v} for k, v in request_headers], "headersSize": -1,
               "bodySize": len(request_body)}
    if request_body:
        request["postData"] = {"mimeType": "application/x-www-form-urlencoded", "text": request_body}
    return {"startedDateTime": started, "time": 1, "cache": {}, "timings": {"send": 0, "wait": 1, "receive": 0},
            "request": request,
            "response": {"status": 200, "statusText": "OK", "httpVersion": "HTTP/1.1", "cookies": [],
                         "headers": [{"name": k, "value": v} for k, v in response_headers],
                         "content": {"size": len(response_body), "mimeType": mime, "text": response_body},
                         "redirectURL": "", "headersSize": -1, "bodySize": len(response_body)}}


def write_har_log(path, entries):
    """A HAR 1.2 file at `path` (a pathlib.Path) holding `entries`."""
    path.write_text(json.dumps({"log": {"version": "1.2", "creator": {"name": "hand", "version": "1"},
                                        "entries": entries}}))

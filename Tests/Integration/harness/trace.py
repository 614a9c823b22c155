"""Reading a Faultline trace (JSON Lines, README.md "The trace") and asking it questions."""
import json
import re
from datetime import datetime, timedelta

FINGERPRINT = re.compile(r"^fp:[0-9a-f]{16}$")
FLOW_EVENTS = ["request.received", "request.forwarded", "response.received", "response.delivered"]


class Trace:
    """A parsed trace: `header` is line 1, `events` the rest in file order."""

    def __init__(self, header, events, text):
        self.header = header
        self.events = events
        self.text = text

    @classmethod
    def load(cls, path):
        """Parses every line; a line that is not a JSON object fails with its line number."""
        with open(path, "rb") as handle:
            raw = handle.read()
        text = raw.decode("utf-8")
        assert text.endswith("\n"), f"trace {path} does not end with a newline (last line cut?): {text[-200:]!r}"
        lines = text.split("\n")[:-1]
        assert lines, f"trace {path} is empty"
        parsed = []
        for number, line in enumerate(lines, start=1):
            try:
                value = json.loads(line)
            except json.JSONDecodeError as error:
                raise AssertionError(f"trace {path} line {number} is not JSON ({error}): {line[:300]!r}")
            assert isinstance(value, dict), f"trace {path} line {number} is not an object: {line[:300]!r}"
            parsed.append(value)
        header = parsed[0]
        assert header.get("faultline_trace") == 1, f"trace header is not version 1: {header}"
        return cls(header, parsed[1:], text)

    # -- integrity -------------------------------------------------------------------------

    def assert_well_formed(self):
        """Sequence numbers run 1..N without gaps in file order; every event has the common fields
        and monotonic timestamps never go backwards."""
        seqs = [event.get("seq") for event in self.events]
        assert seqs == list(range(1, len(self.events) + 1)), f"seq is not gapless 1..N: {_runs(seqs)}"
        last_mono = None
        for event in self.events:
            for field in ("seq", "wall", "mono_ns", "event"):
                assert field in event, f"event lacks {field!r}: {event}"
            assert isinstance(event["mono_ns"], int), f"mono_ns is not an integer: {event}"
            if last_mono is not None:
                assert event["mono_ns"] >= last_mono, f"mono_ns went backwards at seq {event['seq']}"
            last_mono = event["mono_ns"]

    # -- queries ---------------------------------------------------------------------------

    def of(self, kind, **match):
        """Events of `kind` whose fields equal every `match` value."""
        return [e for e in self.events if e["event"] == kind and all(e.get(k) == v for k, v in match.items())]

    def one(self, kind, **match):
        found = self.of(kind, **match)
        assert len(found) == 1, f"expected one {kind} {match}, found {len(found)}: {found}"
        return found[0]

    def sent_upstream(self, flow_id):
        """In a capture, the request of `flow_id` as it went upstream: `request.forwarded`'s
        `request` when a rule changed it, else what `request.received` shows (method, url, headers)."""
        forwarded = self.of("request.forwarded", flow=flow_id)[-1]
        if "request" in forwarded:
            return forwarded["request"]
        received = self.one("request.received", flow=flow_id)
        return {key: received[key] for key in ("method", "url", "headers")}

    def flow(self, flow_id):
        """Every event of one flow, in order."""
        return [e for e in self.events if e.get("flow") == flow_id]

    def flow_kinds(self, flow_id):
        return [e["event"] for e in self.flow(flow_id)]

    def connection(self, conn_id):
        return [e for e in self.events if e.get("conn") == conn_id]

    def requests(self, path_contains=None):
        """request.received events, optionally only those whose url contains a marker."""
        found = self.of("request.received")
        if path_contains is not None:
            found = [e for e in found if path_contains in e.get("url", "")]
        return found

    def flow_for(self, path_contains):
        """The flow id of the one request whose url contains `path_contains`."""
        found = self.requests(path_contains)
        assert len(found) == 1, f"expected one request with {path_contains!r} in its url, found {found}"
        return found[0]["flow"]

    def assert_complete_flow(self, flow_id, status=None):
        """The flow has the four exchange events once each, in order (interim 1xx responses aside)."""
        kinds = [e["event"] for e in self.flow(flow_id) if e["event"] in FLOW_EVENTS and not _interim(e)]
        assert kinds == FLOW_EVENTS, f"flow {flow_id} events {self.flow_kinds(flow_id)}, expected {FLOW_EVENTS}"
        if status is not None:
            delivered = [e for e in self.flow(flow_id) if e["event"] == "response.delivered"][0]
            assert delivered["status"] == status, f"flow {flow_id} delivered {delivered}, expected {status}"


def header_values(headers, name):
    """Values of `name` in a trace header list [[name, value], ...], case-insensitively."""
    return [value for key, value in headers if key.lower() == name.lower()]


def _interim(event):
    """A traced 1xx other than 101, which precedes the final response (RFC 9110 §15.2)."""
    status = event.get("status")
    return event["event"] == "response.received" and isinstance(status, int) and 100 <= status < 200 and status != 101


def _runs(seqs):
    """A short description of where a sequence breaks, for assertion messages."""
    for index, (a, b) in enumerate(zip(seqs, seqs[1:])):
        if b != a + 1:
            return f"break after index {index}: {a} then {b} (first={seqs[:1]}, count={len(seqs)})"
    return f"first={seqs[:1]}, count={len(seqs)}"


def step_clock_back(capture, out, seconds=60):
    """Writes `capture` (a trace file) to `out` with its second request's wall clock put `seconds`
    before the first's, a clock stepped back between them; returns the two `request.received`
    events as written."""
    lines = open(capture, encoding="utf-8").read().splitlines()
    events = [json.loads(line) for line in lines]
    received = [index for index, event in enumerate(events) if event.get("event") == "request.received"]
    first, second = events[received[0]], events[received[1]]
    stamp = datetime.strptime(first["wall"][:19], "%Y-%m-%dT%H:%M:%S") - timedelta(seconds=seconds)
    second["wall"] = stamp.strftime("%Y-%m-%dT%H:%M:%S") + first["wall"][19:]
    lines[received[1]] = json.dumps(second, separators=(",", ":"))
    with open(out, "w", encoding="utf-8") as handle:
        handle.write("\n".join(lines) + "\n")
    return first, second

"""h2load's summary, parsed. Standard library only and no package-relative imports: harness/h2.py
uses it, and so does Benchmarks/h2, which loads this file by its path.

What h2load (nghttp2 1.52) prints, and what each field becomes:

    Application protocol: h2                                    -> protocol ("h2", "h2c", "http/1.1")
    finished in 2.31ms, 43215.21 req/s, 3.34MB/s                -> duration (s), rps (succeeded / duration)
    requests: 100 total, 100 started, 100 done, 100 succeeded, 0 failed, 0 errored, 0 timeout
    status codes: 100 2xx, 0 3xx, 0 4xx, 0 5xx                  -> status_codes {"2xx": 100, ...}
    Process Request Failure:4                                   -> request_failures (a count of such lines)

A run that never connected prints no "Application protocol" line: protocol stays None.
"""
import re

FINISHED = re.compile(r"^finished in ([\d.]+)(us|ms|s), ([\d.]+) req/s", re.MULTILINE)
REQUESTS = re.compile(r"^requests: (\d+) total, (\d+) started, (\d+) done, (\d+) succeeded, (\d+) failed, "
                      r"(\d+) errored, (\d+) timeout", re.MULTILINE)
STATUS = re.compile(r"^status codes: (.*)$", re.MULTILINE)
PROTOCOL = re.compile(r"^Application protocol: (\S+)", re.MULTILINE)
UNITS = {"us": 1e-6, "ms": 1e-3, "s": 1.0}
COUNTS = ("total", "started", "done", "succeeded", "failed", "errored", "timeout")


def parse(text):
    """A dict: protocol, duration, rps (None when not printed), the COUNTS (0 when not printed),
    status_codes and request_failures."""
    out = {"protocol": None, "duration": None, "rps": None, **dict.fromkeys(COUNTS, 0), "status_codes": {},
           "request_failures": len(re.findall(r"^Process Request Failure", text, re.MULTILINE))}
    protocol = PROTOCOL.search(text)
    if protocol:
        out["protocol"] = protocol[1]
    finished = FINISHED.search(text)
    if finished:
        out["duration"] = float(finished[1]) * UNITS[finished[2]]
        out["rps"] = float(finished[3])
    counts = REQUESTS.search(text)
    if counts:
        out.update(zip(COUNTS, (int(n) for n in counts.groups())))
    status = STATUS.search(text)
    if status:
        out["status_codes"] = {kind: int(n) for n, kind in re.findall(r"(\d+) (\dxx)", status[1])}
    return out

-- wrk script for the proxy benchmark.
--
-- Environment (set by Benchmarks/run):
--   BENCH_TARGET  the URL to request. An absolute URL (http://127.0.0.1:ORIGIN/b100) is sent as an
--                 absolute-form request target, as a client of a forward proxy does
--                 (RFC 9112 §3.2.2); a path (/b100) is sent in origin-form (the direct baseline).
--   BENCH_HOST    the Host header (the origin's authority, not the proxy's).
--   BENCH_CLOSE   "1" to send `Connection: close`: the server (or proxy) closes after each
--                 response and wrk opens a new connection for the next request.
--
-- done() prints one machine-readable line that Benchmarks/run parses:
--   BENCH_RESULT requests=N duration_us=N p50_us=N p99_us=N ...

local target = os.getenv("BENCH_TARGET") or "/"
local host = os.getenv("BENCH_HOST")
local close = os.getenv("BENCH_CLOSE") == "1"

-- No request() function: wrk then formats the request once per thread (in wrk.init) from
-- wrk.method/path/headers and sends the same bytes every time, its fastest path.
wrk.method = "GET"
wrk.path = target
if host then wrk.headers["Host"] = host end
if close then wrk.headers["Connection"] = "close" end

done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    "BENCH_RESULT requests=%d duration_us=%d bytes=%d p50_us=%d p90_us=%d p99_us=%d max_us=%d " ..
    "mean_us=%.1f err_connect=%d err_read=%d err_write=%d err_status=%d err_timeout=%d\n",
    summary.requests, summary.duration, summary.bytes,
    latency:percentile(50), latency:percentile(90), latency:percentile(99), latency.max,
    latency.mean, e.connect, e.read, e.write, e.status, e.timeout))
end

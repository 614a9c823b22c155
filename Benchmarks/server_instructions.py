"""Instructions per proxied request of the whole `faultline` process, under callgrind.

`Benchmarks/micro --server` runs it. Faultline runs under `valgrind --tool=callgrind` (all its
threads: the event loop, the trace writer) twice, while one keep-alive client connection sends
`REQUESTS[0]` and then `REQUESTS[1]` requests through it to a small HTTP/1.1 origin in this
process; the difference of the two totals, divided by the difference of the counts, is what one
more request costs: start-up, TLS set-up and shutdown cancel out. Exact and unmoved by whatever
else the machine runs, unlike times, so two builds compare on a busy machine.

The `haproxy` row measures haproxy the same way (one thread, as Faultline's one loop here;
configs/haproxy.cfg, the configuration Benchmarks/run gives it, which logs nothing where
Faultline writes its trace): the baseline the issue's goals are set against.

`--h2` measures HTTP/2 instead: Faultline's reverse listener over h2c (prior knowledge) in front
of the same origin, loaded by h2load on one connection with `--streams` requests in flight, and
as the baseline nginx's HTTP/2 reverse proxy (configs/nginx-h2-proxy.conf, the configuration
Benchmarks/h2 gives it, as one process: no master, one worker, as Faultline's one loop here).

Work that runs by the clock rather than by the request is left out of the count: the rules
watcher checks its folder every 300 ms on its own thread, and under callgrind, many times
slower than a real run, the 400 requests take long enough for that polling to add about 9,000
instructions a request to `fl+rewrite` (210,363 with it, 201,635 without, one build; its
`RuleSetLoader.signature(of:)` was the largest item of the difference). `--toggle-collect`
stops the count inside it.
"""

from __future__ import annotations

import http.server
import os
import re
import shutil
import socket
import socketserver
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

HERE = Path(__file__).resolve().parent
REQUESTS = (200, 600)
# Entering this function stops callgrind's count and leaving it starts it again (see above).
CLOCK_DRIVEN = "*RuleSetLoader*signature*"
BODY = b"x" * 100


class _Origin(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_GET(self) -> None:  # noqa: N802 (the http.server name)
        self.send_response(200)
        self.send_header("Content-Length", str(len(BODY)))
        self.end_headers()
        self.wfile.write(BODY)

    def log_message(self, *_: object) -> None:
        pass


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _faultline_argv(binary: Path, port: int, workdir: Path, rules: Path | None) -> list[str]:
    argv = [str(binary), "run", "--listen", f"127.0.0.1:{port}", "--control", "off", "--trace",
            str(workdir / "trace.jsonl"), "--loops", "1"]
    return argv + (["--rules", str(rules)] if rules is not None else [])


def _run_script():
    """Benchmarks/run as a module: its config rendering and rule files are the ones measured here."""
    sys.path.insert(0, str(HERE))
    import benchmodules  # noqa: E402  (next to this script)
    return benchmodules.load_script("run")


def _render_config(name: str, workdir: Path, values: dict[str, str], edit: Callable[[str], str]) -> Path:
    """configs/`name` with its `{{...}}` placeholders filled as Benchmarks/run fills them, then
    `edit`ed for the one-process form measured here, written into `workdir`."""
    config = _run_script().render(HERE / "configs" / name, workdir / name, values)
    config.write_text(edit(config.read_text()))
    return config


def _haproxy_argv(port: int, workdir: Path) -> list[str]:
    config = _render_config("haproxy.cfg", workdir, {"PROXY_PORT": str(port)},
                            lambda text: text.replace("nbthread 2", "nbthread 1"))
    return ["haproxy", "-db", "-f", str(config)]


def _faultline_h2_argv(binary: Path, port: int, workdir: Path, origin_port: int) -> list[str]:
    return [str(binary), "run", "--listen", f"127.0.0.1:{port}", "--mode", f"reverse:http://127.0.0.1:{origin_port}",
            "--control", "off", "--trace", str(workdir / "trace.jsonl"), "--loops", "1"]


def _nginx_h2_argv(port: int, workdir: Path, origin_port: int) -> list[str]:
    def one_process_h2c(text: str) -> str:
        # One process, as Faultline's one loop; h2c needs no certificate.
        text = text.replace("master_process on;", "master_process off;").replace(
            "worker_processes 2;", "worker_processes 1;")
        return "\n".join(line for line in text.splitlines() if "ssl_certificate" not in line)
    values = {"RUNDIR": str(workdir), "PROXY_PORT": str(port), "H1_PORT": str(origin_port), "LISTEN": "http2"}
    config = _render_config("nginx-h2-proxy.conf", workdir, values, one_process_h2c)
    (workdir / "nginx-tmp").mkdir(exist_ok=True)
    return [shutil.which("nginx") or "nginx", "-c", str(config), "-p", str(workdir)]


def _keepalive_client(port: int, origin_port: int, requests: int) -> None:
    """`requests` requests one after the other on one keep-alive HTTP/1.1 connection."""
    request = (f"GET http://127.0.0.1:{origin_port}/ HTTP/1.1\r\nHost: 127.0.0.1:{origin_port}\r\n\r\n"
               .encode())
    with socket.create_connection(("127.0.0.1", port), timeout=60) as client:
        for _ in range(requests):
            client.sendall(request)
            received = b""
            while not received.endswith(BODY):
                chunk = client.recv(65536)
                if not chunk:
                    raise RuntimeError("the proxy closed the connection")
                received += chunk


def _h2load_client(streams: int) -> Callable[[int, int, int], None]:
    """h2load over h2c with prior knowledge: one connection, `streams` requests in flight."""
    def load(port: int, _origin_port: int, requests: int) -> None:
        done = subprocess.run(["h2load", "-n", str(requests), "-c", "1", "-m", str(streams), f"http://127.0.0.1:{port}/"],
                              capture_output=True, text=True, timeout=300)
        if f"{requests} succeeded" not in done.stdout:
            raise RuntimeError(f"h2load did not get {requests} answers: {done.stdout[-400:]} {done.stderr[-400:]}")
    return load


def _total(argv_for_port: Callable[[int], list[str]], origin_port: int, requests: int, workdir: Path,
           load: Callable[[int, int, int], None] = _keepalive_client) -> int:
    """Callgrind's instruction total for a run of the proxy `argv_for_port(port)` starts, serving
    `requests` requests sent by `load`."""
    port = _free_port()
    out = workdir / f"callgrind.{requests}"
    proxy_argv = argv_for_port(port)
    # --collect-atstart=yes after --toggle-collect: the toggle alone turns the count off at start.
    argv = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", f"--toggle-collect={CLOCK_DRIVEN}",
            "--collect-atstart=yes"] + proxy_argv
    proxy = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                if time.monotonic() > deadline or proxy.poll() is not None:
                    raise RuntimeError(f"{proxy_argv[0]} under callgrind did not listen on {port}")
                time.sleep(0.1)
        load(port, origin_port, requests)
    finally:
        proxy.terminate()
        proxy.wait(timeout=120)
    for line in out.read_text(errors="replace").splitlines():
        if line.startswith("totals:"):
            return int(line.split()[1])
    raise RuntimeError(f"no totals in {out}")


def _self_costs(profile: Path) -> dict[str, int]:
    """Instructions executed in each function itself (not its callees), from callgrind_annotate."""
    text = subprocess.run(["callgrind_annotate", "--auto=no", "--threshold=100", str(profile)],
                          check=True, capture_output=True, text=True).stdout
    costs: dict[str, int] = {}
    for line in text.splitlines():
        match = re.match(r"\s*([\d,]+) \([^)]*\)\s+(.*)", line)
        if match and "PROGRAM TOTALS" not in line:
            name = match.group(2).split(" [")[0]
            costs[name] = costs.get(name, 0) + int(match.group(1).replace(",", ""))
    return costs


def _measure(argv_for: Callable[[Path, int], Callable[[int], list[str]]], top: int,
             load: Callable[[int, int, int], None] = _keepalive_client) -> tuple[float, list]:
    """One more request's instructions through the proxy `argv_for(workdir, origin_port)` starts,
    and with `top` the functions that execute most of them (their own instructions per request,
    the two runs' profiles subtracted: start-up cancels out)."""
    origin = socketserver.ThreadingTCPServer(("127.0.0.1", 0), _Origin)
    origin.daemon_threads = True
    threading.Thread(target=origin.serve_forever, daemon=True).start()
    try:
        with tempfile.TemporaryDirectory(prefix="faultline-instructions-") as name:
            workdir = Path(name)
            origin_port = origin.server_address[1]
            argv_for_port = argv_for(workdir, origin_port)
            totals = [_total(argv_for_port, origin_port, n, workdir, load) for n in REQUESTS]
            functions = []
            if top:
                longer, shorter = (_self_costs(workdir / f"callgrind.{n}") for n in reversed(REQUESTS))
                functions = sorted(((longer.get(f, 0) - shorter.get(f, 0)) / (REQUESTS[1] - REQUESTS[0]), f)
                                   for f in longer.keys() | shorter.keys())[::-1][:top]
    finally:
        origin.shutdown()
    return (totals[1] - totals[0]) / (REQUESTS[1] - REQUESTS[0]), functions


def instructions_per_request(
    binary: Path | None, rewrite: bool = False, top: int = 0
) -> tuple[float, list]:
    """One more keep-alive HTTP/1.1 request's instructions, and with `top` the functions that
    execute most of them. With `rewrite`, under Benchmarks/run's `fl+rewrite` rules (50 that
    never match, one that rewrites every response). Without `binary`, haproxy's."""
    def argv_for(workdir: Path, _origin_port: int) -> Callable[[int], list[str]]:
        if binary is None:
            return partial(_haproxy_argv, workdir=workdir)
        rules = None
        if rewrite:
            rules = workdir / "rules"
            _run_script().write_rules(rules, rewrite=True)
        return partial(_faultline_argv, binary, workdir=workdir, rules=rules)
    return _measure(argv_for, top)


def h2_instructions_per_request(binary: Path | None, streams: int, top: int = 0) -> tuple[float, list]:
    """One more HTTP/2 request's instructions over h2c, `streams` in flight on one connection;
    without `binary`, nginx's HTTP/2 reverse proxy's."""
    def argv_for(workdir: Path, origin_port: int) -> Callable[[int], list[str]]:
        if binary is None:
            return partial(_nginx_h2_argv, workdir=workdir, origin_port=origin_port)
        return partial(_faultline_h2_argv, binary, workdir=workdir, origin_port=origin_port)
    return _measure(argv_for, top, _h2load_client(streams))


def _print_functions(rows: list[tuple[str, list]]) -> None:
    for row, functions in rows:
        if functions:
            print(f"\n{row}: the {len(functions)} functions with the most instructions of their own per request")
            for cost, function in functions:
                print(f"  {cost:>8,.0f}  {function[-150:]}")


def report(binary: Path, top: int = 0) -> None:
    plain, plain_functions = instructions_per_request(binary, top=top)
    rewrite, rewrite_functions = instructions_per_request(binary, rewrite=True, top=top)
    haproxy, haproxy_functions = instructions_per_request(None, top=top) if shutil.which("haproxy") else (0.0, [])
    print(f"whole proxy, instructions per keep-alive request (valgrind --tool=callgrind, all threads, "
          f"{REQUESTS[1]} minus {REQUESTS[0]} requests on one connection), {binary}:")
    print(f"  faultline   {plain:>10,.0f}")
    print(f"  fl+rewrite  {rewrite:>10,.0f}  ({rewrite / plain:.2f}x: Benchmarks/run's 50 rules that never match "
          f"and one rewriting every response)")
    if haproxy:
        print(f"  haproxy     {haproxy:>10,.0f}  (faultline / haproxy = {plain / haproxy:.2f}x; haproxy logs nothing, "
              f"faultline writes its trace)")
    else:
        print("  haproxy     not measured: no haproxy on PATH (apt-get install haproxy)")
    _print_functions([("faultline", plain_functions), ("fl+rewrite", rewrite_functions),
                      ("haproxy", haproxy_functions)])


def report_h2(binary: Path, streams: int, top: int = 0) -> None:
    if not shutil.which("h2load"):
        sys.exit("--h2 needs h2load on PATH (apt-get install nghttp2-client)")
    faultline, faultline_functions = h2_instructions_per_request(binary, streams, top)
    nginx, nginx_functions = h2_instructions_per_request(None, streams, top) if shutil.which("nginx") else (0.0, [])
    print(f"whole proxy, instructions per HTTP/2 request (valgrind --tool=callgrind, all threads, h2c, "
          f"{REQUESTS[1]} minus {REQUESTS[0]} requests on one connection, {streams} at a time), {binary}:")
    print(f"  faultline   {faultline:>10,.0f}")
    if nginx:
        print(f"  nginx       {nginx:>10,.0f}  (faultline / nginx = {faultline / nginx:.2f}x; nginx's HTTP/2 "
              f"reverse proxy logs nothing, faultline writes its trace)")
    else:
        print("  nginx       not measured: no nginx on PATH (apt-get install nginx)")
    _print_functions([("faultline", faultline_functions), ("nginx", nginx_functions)])


if __name__ == "__main__":
    report(Path(sys.argv[1]) if len(sys.argv) > 1 else Path(os.environ.get("FAULTLINE_BIN", "faultline")),
           int(sys.argv[2]) if len(sys.argv) > 2 else 0)

"""The web UI's doors, tried without a browser (http.client, curl, the `faultline ui` command):
what a page, a script or another site can and cannot do on the control listener.

- `faultline ui` prints one fresh one-time address per run (exit 0), found through the control file
  ($FAULTLINE_HOME/control.json or --control-file), and exits 1 with a clear message when no proxy runs.
- `GET /ui/login?ticket=T` trades the ticket once for a cookie that is exactly
  `faultline_ui_<port>=<session>; Path=/ui; HttpOnly; SameSite=Strict`; a spent, unknown or missing
  ticket gets 403 and no cookie; a login from a foreign Host does not spend it; at most 32 unspent
  tickets and 32 sessions are kept, the oldest going first.
- Without the cookie every /ui/ path is 401 (an HTML page for the page and its assets, JSON for the
  API); the cookie does not open /v1/* and the bearer token does not open /ui/api/*; the bearer
  token keeps working for scripts.
- A state-changing call under /ui/api/ needs `Origin: http://<Host>`: a wrong or missing Origin
  is 403 and changes nothing (the hold is still held, the rule still enabled and still firing).
- A `Host` that is not a loopback name is 403 for everybody (DNS rebinding), bearer and cookie alike;
  `--control 0.0.0.0:PORT` leaves Host unchecked.
- /ui/api/v1/events (NDJSON, chunked) replays the recent trace lines, then `{"ui":"live","after":SEQ}`.
- Neither the session cookie nor the ticket nor the token reaches the trace.

The proxies run rules written here (harness/rule_proxy.py): `ui/hold-gate` holds `GET /echo?hold=gate`
until the control API releases it, `ui/force-401` answers `/echo?force=401` with 401. Held requests
are curl processes in the background, each with a deadline; nothing is ordered by sleeping."""
import http.client
import json
import re
import secrets
import socket
import subprocess

from harness import netns
from harness.clients import clean_env, run
from harness.faultline import Faultline
from harness.ui import ADDRESS, ask, curl_through, hold_one
from harness.waiting import wait_until


# -- faultline ui -------------------------------------------------------------------------------


def test_faultline_ui_prints_a_fresh_one_time_address_each_run(ui_proxy):
    ui = ui_proxy.ui
    addresses = [ui.address() for _ in range(3)]
    tickets = [ADDRESS.match(address)["ticket"] for address in addresses]
    assert len(set(tickets)) == 3, f"each run must print a new ticket: {addresses}"
    assert ui.token not in "".join(addresses), "the address must not carry the bearer token"
    # Each works, in any order, and only once.
    for address in reversed(addresses):
        session = ui.login(address)
        assert session.value not in tickets, "the session must not be the ticket"
        answer = ask(ui.port, "GET", address.removeprefix(ui.origin))
        assert answer.status == 403 and not answer.header("Set-Cookie"), answer
    assert len({session.value for session in ui.sessions}) == 3


def test_faultline_ui_finds_the_proxy_through_faultline_home(start_faultline, faultline_binary, tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    proxy = start_faultline("--listen", "127.0.0.1:0", "--control-file", str(home / "control.json"))
    wait_until(lambda: (home / "control.json").exists() and (home / "control.json").stat().st_size, 10,
               "the control file")
    port = int(json.loads((home / "control.json").read_text())["url"].rsplit(":", 1)[1])
    done = run([faultline_binary, "ui"], env=clean_env(FAULTLINE_HOME=str(home), HOME=str(tmp_path / "nobody")))
    assert done.returncode == 0, done.stderr
    match = ADDRESS.match(done.stdout.decode().strip())
    assert match and int(match["port"]) == port, done.stdout
    assert proxy.stop() == 0
    # Stopped: the control file is gone, and `faultline ui` says there is nothing to open.
    done = run([faultline_binary, "ui"], env=clean_env(FAULTLINE_HOME=str(home), HOME=str(tmp_path / "nobody")))
    assert done.returncode == 1 and done.stdout == b"", done
    assert "no running faultline found" in done.stderr.decode() and str(home / "control.json") in done.stderr.decode()


def test_faultline_ui_without_a_proxy_exits_1_and_says_why(faultline_binary, tmp_path):
    empty = tmp_path / "empty-home"
    empty.mkdir()
    done = run([faultline_binary, "ui"], env=clean_env(FAULTLINE_HOME=str(empty), HOME=str(tmp_path / "nobody")))
    assert done.returncode == 1, done
    assert done.stdout == b"", "nothing that looks like an address may be printed"
    assert done.stderr.decode().strip() == f"faultline ui: no running faultline found (looked for {empty}/control.json)"
    # A control file a killed proxy left behind: its process is gone, and the message says so.
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    gone = subprocess.Popen(["true"])
    gone.wait()
    (empty / "control.json").write_text(json.dumps({"url": f"http://127.0.0.1:{port}", "token": "0" * 64,
                                                    "pid": gone.pid}))
    done = run([faultline_binary, "ui"], env=clean_env(FAULTLINE_HOME=str(empty), HOME=str(tmp_path / "nobody")))
    assert done.returncode == 1 and done.stdout == b"", done
    assert "no running faultline found" in done.stderr.decode() and "gone" in done.stderr.decode(), done.stderr
    # A stray argument is a usage error.
    done = run([faultline_binary, "ui", "now"], env=clean_env(FAULTLINE_HOME=str(empty)))
    assert done.returncode == 2 and done.stdout == b"", done


# -- tickets and the cookie ---------------------------------------------------------------------


def test_the_cookie_is_path_ui_httponly_samesite_strict_and_named_after_the_port(ui_proxy):
    ui = ui_proxy.ui
    session = ui.login()
    assert session.name == f"faultline_ui_{ui.port}"
    assert re.fullmatch(r"[0-9a-f]{64}", session.value), "the session value should be 256 random bits in hex"
    attributes = [part.strip() for part in session.set_cookie.split(";")[1:]]
    assert sorted(attributes) == sorted(["Path=/ui", "HttpOnly", "SameSite=Strict"]), session.set_cookie
    # Nothing else: no Domain (host-only), no Expires/Max-Age (a browser-session cookie).
    assert not re.search(r"(?i)domain|expires|max-age", session.set_cookie), session.set_cookie


def test_a_spent_unknown_or_missing_ticket_gets_403_and_no_cookie(ui_proxy):
    ui = ui_proxy.ui
    address = ui.address()
    session = ui.login(address)
    path = address.removeprefix(ui.origin)
    refused = {
        "spent": path,
        "unknown": "/ui/login?ticket=" + secrets.token_hex(32),
        "missing": "/ui/login",
        "empty": "/ui/login?ticket=",
        "the session value as a ticket": "/ui/login?ticket=" + session.value,
        "the bearer token as a ticket": "/ui/login?ticket=" + ui.token,
    }
    for what, target in refused.items():
        answer = ask(ui.port, "GET", target)
        assert answer.status == 403, f"{what}: {answer}"
        assert not answer.header("Set-Cookie"), f"{what}: a refused login set a cookie: {answer.headers}"
        assert not answer.header("Location"), f"{what}: {answer.headers}"
        assert answer.header("Content-Type") == ["text/html; charset=utf-8"], f"{what}: {answer.headers}"
        assert b"faultline ui" in answer.body, f"{what}: the page should say how to get a new address"
    # The refusals revoked nothing: the session from the good ticket still opens the page.
    assert ask(ui.port, "GET", "/ui/", headers=session.header).status == 200


def test_a_login_from_a_foreign_host_does_not_spend_the_ticket(ui_proxy):
    """A rebinding page that learns an address cannot burn it, nor get a cookie for it."""
    ui = ui_proxy.ui
    address = ui.address()
    path = address.removeprefix(ui.origin)
    answer = ask(ui.port, "GET", path, host=f"rebind.attacker.example:{ui.port}")
    assert answer.status == 403 and not answer.header("Set-Cookie"), answer
    assert ui.login(address).value


def test_tickets_and_sessions_are_bounded_the_oldest_going_first(ui_proxy):
    """32 unspent tickets and 32 sessions at most (UISessions): a script that asks for addresses in
    a loop cannot grow the proxy's memory; the oldest ticket, then the oldest session, stop working."""
    ui = ui_proxy.ui

    def ticket():
        answer = ui.v1("POST", "/v1/ui/tickets")
        assert answer.status == 200, answer
        value = answer.json()
        assert value["path"] == "/ui/login?ticket=" + value["ticket"] and value["expires_in_s"] == 300, value
        return value["path"]

    paths = [ticket() for _ in range(33)]
    assert ask(ui.port, "GET", paths[0]).status == 403, "the 33rd ticket should have pushed out the first"
    sessions = [ui.login(ui.origin + path) for path in paths[1:]]  # 32 sessions
    first = ui.login()  # the 33rd session pushes out the oldest
    assert ask(ui.port, "GET", "/ui/", headers=sessions[0].header).status == 401
    for session in (sessions[1], sessions[-1], first):
        assert ask(ui.port, "GET", "/ui/", headers=session.header).status == 200


# -- without the cookie -------------------------------------------------------------------------


def test_without_a_session_every_ui_path_is_401(ui_proxy):
    ui = ui_proxy.ui
    session = ui.login()
    forged = {"Cookie": f"{session.name}={secrets.token_hex(32)}"}
    other_port = {"Cookie": f"faultline_ui_{ui.port + 1}={session.value}"}  # right value, another listener's name
    for headers in ({}, forged, other_port, ui.bearer):
        for path in ("/ui/", "/ui/index.html", "/ui/app.js", "/ui/app.css"):
            answer = ask(ui.port, "GET", path, headers=headers)
            assert answer.status == 401, f"{path} with {list(headers)}: {answer}"
            assert answer.header("Content-Type") == ["text/html; charset=utf-8"], answer.headers
            assert b"faultline ui" in answer.body, answer
            assert b"app.js" not in answer.body and b"function" not in answer.body, "no asset without a session"
        for method, path in (("GET", "/ui/api/v1/holds"), ("GET", "/ui/api/v1/rules"), ("GET", "/ui/api/v1/events"),
                             ("GET", "/ui/api/v1/health"), ("POST", "/ui/api/v1/holds/gate/release")):
            answer = ask(ui.port, method, path, headers={**headers, "Origin": ui.origin})
            assert answer.status == 401, f"{method} {path} with {list(headers)}: {answer}"
            assert answer.header("Content-Type") == ["application/json"], answer.headers
            assert "faultline ui" in answer.json()["error"], answer
    # With it, the same paths answer.
    for path, kind in (("/ui/", "text/html"), ("/ui/app.js", "text/javascript"), ("/ui/app.css", "text/css")):
        answer = ask(ui.port, "GET", path, headers=session.header)
        assert answer.status == 200 and answer.header("Content-Type")[0].startswith(kind), f"{path}: {answer}"
    assert ui.api("GET", "/v1/holds", session, origin=None).status == 200


def test_the_cookie_does_not_open_v1_and_the_bearer_token_still_does(ui_proxy, origin, background_curl):
    ui = ui_proxy.ui
    session = ui.login()
    client, hold = hold_one(ui_proxy, origin, background_curl, "cookie-on-v1")
    same_origin = {**session.header, "Origin": ui.origin}
    for method, path in (("GET", "/v1/health"), ("GET", "/v1/holds"), ("POST", "/v1/holds/gate/release"),
                         ("POST", "/v1/rules/ui/force-401/disable"), ("POST", "/v1/ui/tickets")):
        answer = ask(ui.port, method, path, headers=same_origin)
        assert answer.status == 401, f"{method} {path} with the cookie: {answer}"
    assert [h["id"] for h in ui.holds()] == [hold["id"]] and client.running(), "the cookie released the hold"
    assert ui.rule("ui/force-401")["rule_enabled"] is True
    # The scripts' way keeps working: bearer token on /v1/*, and the command line.
    assert ui.v1("GET", "/v1/health").status == 200
    assert [h["id"] for h in ui_proxy.control.holds()] == [hold["id"]]
    done = ui_proxy.control.release("gate")
    assert done.returncode == 0, done.stderr
    code, status, body, err = client.result()
    assert (code, status) == (0, 200), (code, status, body, err)
    assert json.loads(body)["target"].endswith("n=cookie-on-v1")


# -- Origin on state-changing calls -------------------------------------------------------------


WRONG_ORIGINS = {
    "missing": None,
    "another site": "http://attacker.example",
    "another port of this host": "http://127.0.0.1:1",
    "https": "https://127.0.0.1:{port}",
    "localhost for a 127.0.0.1 Host": "http://localhost:{port}",
    "null": "null",
    "a longer host": "http://127.0.0.1:{port}.attacker.example",
    "a path after it": "http://127.0.0.1:{port}/ui/",
}


def wrong_origins(port):
    return {what: value if value is None else value.format(port=port) for what, value in WRONG_ORIGINS.items()}


def test_a_release_without_the_pages_origin_is_403_and_the_flow_stays_held(ui_proxy, origin, background_curl):
    ui = ui_proxy.ui
    session = ui.login()
    client, hold = hold_one(ui_proxy, origin, background_curl, "origin-release")
    for what, value in wrong_origins(ui.port).items():
        for action, body in (("release", {"id": hold["id"]}), ("release", {"id": hold["id"], "status": 418}),
                             ("fail", {"id": hold["id"]})):
            answer = ui.api("POST", f"/v1/holds/gate/{action}", session, origin=value, body=body)
            assert answer.status == 403, f"{action} with Origin {what} ({value!r}): {answer}"
            assert "Origin" in answer.json()["error"], answer
    assert [h["id"] for h in ui.holds()] == [hold["id"]], "a refused call ended the hold"
    assert client.running(), "the held client got an answer from a refused call"
    # The page's own Origin: 200, and curl gets the origin's answer.
    answer = ui.api("POST", "/v1/holds/gate/release", session, body={"id": hold["id"]})
    assert answer.status == 200, answer
    assert [h["flow"] for h in answer.json()["released"]] == [hold["flow"]]
    code, status, body, err = client.result()
    assert (code, status) == (0, 200), (code, status, body, err)
    assert json.loads(body)["target"].endswith("n=origin-release")


def test_a_rule_switch_without_the_pages_origin_is_403_and_the_rule_keeps_firing(ui_proxy, origin):
    ui = ui_proxy.ui
    session = ui.login()
    forced = f"{origin.url}/echo?force=401"
    assert curl_through(ui_proxy, forced)[0] == 401
    for what, value in wrong_origins(ui.port).items():
        answer = ui.api("POST", "/v1/rules/ui/force-401/disable", session, origin=value)
        assert answer.status == 403, f"disable with Origin {what} ({value!r}): {answer}"
        for path, body in (("/v1/marks", {"label": "forged"}), ("/v1/state/reset", None), ("/v1/rules/reload", None)):
            answer = ui.api("POST", path, session, origin=value, body=body)
            assert answer.status == 403, f"POST {path} with Origin {what} ({value!r}): {answer}"
    assert ui.rule("ui/force-401")["rule_enabled"] is True, "a refused call disabled the rule"
    assert curl_through(ui_proxy, forced)[0] == 401, "the rule stopped firing after refused calls"
    # Reads need no Origin (a browser sends none on a same-origin GET).
    assert ui.api("GET", "/v1/rules", session, origin=None).status == 200
    # The page's own Origin switches it off; localhost is as good a Host as 127.0.0.1 when Origin matches it.
    answer = ui.api("POST", "/v1/rules/ui/force-401/disable", session, host=f"localhost:{ui.port}")
    assert answer.status == 200, answer
    assert ui.rule("ui/force-401")["rule_enabled"] is False
    status, body = curl_through(ui_proxy, forced)
    assert status == 200 and json.loads(body)["target"] == "/echo?force=401", (status, body)
    # The trace shows no mark from the refused calls.
    assert not [event for event in ui_proxy.events_so_far() if event.get("event") == "mark"]


# -- Host (DNS rebinding) -----------------------------------------------------------------------


FOREIGN_HOSTS = ["rebind.attacker.example:{port}", "rebind.attacker.example", "127.0.0.1.nip.io:{port}",
                 "localhost.attacker.example:{port}", "10.0.0.1:{port}", "[2001:db8::1]:{port}", ""]
LOOPBACK_HOSTS = ["127.0.0.1:{port}", "localhost:{port}", "LOCALHOST:{port}", "localhost", "127.1.2.3:{port}",
                  "[::1]:{port}"]


def test_a_foreign_host_is_403_for_token_and_cookie_alike(ui_proxy):
    ui = ui_proxy.ui
    session = ui.login()
    for template in FOREIGN_HOSTS:
        host = template.format(port=ui.port)
        calls = [
            ("GET", "/v1/health", ui.bearer),
            ("POST", "/v1/ui/tickets", ui.bearer),
            ("GET", "/ui/", session.header),
            ("GET", "/ui/app.js", session.header),
            ("GET", "/ui/api/v1/holds", session.header),
            ("POST", "/ui/api/v1/rules/ui/force-401/disable", {**session.header, "Origin": f"http://{host}"}),
        ]
        for method, path, headers in calls:
            answer = ask(ui.port, method, path, host=host, headers=headers)
            assert answer.status == 403, f"{method} {path} with Host {host!r}: {answer}"
            assert "Host" in answer.json()["error"], answer
    # A Host that is not `host[:port]` at all is refused before the gate (400), never answered.
    host = f"127.0.0.1:{ui.port}@attacker.example"
    assert ask(ui.port, "GET", "/v1/health", host=host, headers=ui.bearer).status == 400
    assert ask(ui.port, "GET", "/ui/api/v1/holds", host=host, headers=session.header).status == 400
    assert ui.rule("ui/force-401")["rule_enabled"] is True
    for template in LOOPBACK_HOSTS:
        host = template.format(port=ui.port)
        assert ask(ui.port, "GET", "/v1/health", host=host, headers=ui.bearer).status == 200, host
    # The cookie's name carries the port of the Host it was sent to; same port, same name.
    for host in (f"localhost:{ui.port}", f"[::1]:{ui.port}", f"127.1.2.3:{ui.port}"):
        assert ask(ui.port, "GET", "/ui/api/v1/holds", host=host, headers=session.header).status == 200, host
    # A request without Host (HTTP/1.0) is not a browser's: the token decides.
    with socket.create_connection(("127.0.0.1", ui.port), timeout=10) as raw:
        raw.sendall(f"GET /v1/health HTTP/1.0\r\nAuthorization: Bearer {ui.token}\r\n\r\n".encode())
        reply = b""
        while chunk := raw.recv(65536):
            reply += chunk
    assert reply.startswith(b"HTTP/1.1 200 ") or reply.startswith(b"HTTP/1.0 200 "), reply[:200]


def test_a_wildcard_control_listener_leaves_host_unchecked(faultline_binary, tmp_path):
    """`--control 0.0.0.0:PORT` (a container) cannot know its names: any Host passes, the token
    still decides. The proxy runs in a network namespace of its own (harness/netns.py)."""
    netns.require()
    wrapper = netns.isolating_wrapper(str(tmp_path), faultline_binary)
    proxy = Faultline(wrapper, ["--listen", "127.0.0.1:0", "--control", "0.0.0.0:0", "--control-file",
                                str(tmp_path / "control.json")], str(tmp_path / "trace.jsonl"), str(tmp_path))
    proxy.start()
    try:
        port = int(re.search(r"; control on 0\.0\.0\.0:(\d+) ", proxy.stderr).group(1))
        token = json.loads((tmp_path / "control.json").read_text())["token"]

        def status(host, *headers):
            command = netns.inside(proxy.pid, ["curl", "-sS", "--max-time", "8", "-o", "/dev/null", "-w",
                                               "%{http_code}", "-H", f"Host: {host}", *headers,
                                               f"http://127.0.0.1:{port}/v1/health"])
            done = run(command, timeout=10)
            assert done.returncode == 0, done.stderr
            return int(done.stdout)

        assert status(f"rebind.attacker.example:{port}", "-H", f"Authorization: Bearer {token}") == 200
        assert status(f"rebind.attacker.example:{port}") == 401
        assert proxy.stop() == 0, proxy.stderr
    finally:
        proxy.kill()


# -- the event stream, and secrets in the trace -------------------------------------------------


def read_events(ui, session, until, timeout=10):
    """Reads /ui/api/v1/events with the cookie until `until(line)` is true for a parsed line;
    returns (the answer's headers, every parsed line so far)."""
    connection = http.client.HTTPConnection("127.0.0.1", ui.port, timeout=timeout)
    try:
        connection.request("GET", "/ui/api/v1/events", headers={"Host": f"127.0.0.1:{ui.port}", **session.header})
        response = connection.getresponse()
        assert response.status == 200, (response.status, response.read())
        lines = []
        while True:
            raw = response.readline()
            assert raw, f"the event stream ended before the line awaited; had {lines[-5:]}"
            lines.append(json.loads(raw))
            if until(lines[-1]):
                return response.getheaders(), lines
    finally:
        connection.close()


def test_the_event_stream_replays_the_recent_past_then_goes_live(ui_proxy, origin):
    ui = ui_proxy.ui
    session = ui.login()
    curl_through(ui_proxy, f"{origin.url}/echo?before=stream")
    headers, lines = read_events(ui, session, lambda line: line.get("ui") == "live")
    fields = {name.lower(): value for name, value in headers}
    assert fields["content-type"] == "application/x-ndjson" and fields["transfer-encoding"] == "chunked", headers
    live = lines[-1]
    assert isinstance(live.get("after"), int), live
    history = lines[:-1]
    if history and "faultline_trace" in history[0]:
        history = history[1:]  # the trace's header line comes first while the history reaches back to it
    assert [line for line in history if line.get("event") == "request.received"
            and line.get("url", "").endswith("/echo?before=stream")], "the recent past lacks the request made before"
    assert all(line["seq"] <= live["after"] for line in history), "history past the live mark"
    seqs = [line["seq"] for line in history]
    assert seqs == sorted(set(seqs)), "history out of order or twice"


def test_no_cookie_ticket_or_token_reaches_the_trace(ui_proxy, origin, background_curl):
    ui = ui_proxy.ui
    address = ui.address()
    session = ui.login(address)
    ticket = ADDRESS.match(address)["ticket"]
    # Use the UI the way the page does: read, stream, release a hold, switch a rule, post a mark.
    assert ui.api("GET", "/v1/holds", session, origin=None).status == 200
    client, hold = hold_one(ui_proxy, origin, background_curl, "secrets")
    assert ui.api("POST", "/v1/holds/gate/release", session, body={"id": hold["id"]}).status == 200
    assert client.result()[1] == 200
    assert ui.api("POST", "/v1/rules/ui/force-401/disable", session).status == 200
    assert ui.api("POST", "/v1/marks", session, body={"label": "from the ui"}).status == 200
    read_events(ui, session, lambda line: line.get("event") == "mark")
    # Also a request through the proxy that carries the cookie (a user pasting it into curl).
    run(["curl", "-sS", "--max-time", "10", "-x", ui_proxy.forward.url, "-H", f"Cookie: {session.name}={session.value}",
         f"{origin.url}/echo?carrying=cookie"], timeout=15)
    trace = ui_proxy.trace()
    assert trace.of("mark", label="from the ui"), "the mark posted through the UI is not in the trace"
    with open(ui_proxy.trace_file, "rb") as handle:
        text = handle.read()
    for what, secret in (("session cookie", session.value), ("ticket", ticket), ("bearer token", ui.token)):
        # Booleans, so a failure does not print the secret.
        in_trace, on_stderr = secret.encode() in text, secret in ui_proxy.stderr
        assert not in_trace, f"the {what} is in the trace"
        assert not on_stderr, f"the {what} is on stderr"

"""The web UI as a person uses it: Debian's Chromium driven by Playwright (harness/browser.py)
opens the address `faultline ui` prints, while curl and httpx send real traffic through the proxy.

- The page goes live (`#connection`), keeps its cookie out of reach of scripts, and shows each
  flow curl sends (method, URL, status; the detail with the trace's redacted headers).
- A request held by a rule (`ui/hold-gate`: a hold with no `release`, so only the control API ends
  it) appears under `#holds`; its Release, "Release with status…" (418) and Fail buttons end it
  the way curl sees (the origin's 200, a 418, a reset).
- A forced 401 (`ui/force-401`) counts its hits under `#rules`; its checkbox switches it off (the
  next request reaches the origin) and on again.
- With the repository's auth profile in front of `faultline backend`, a login, a business call
  and a logout draw lineage L1's lane with bars and a logout line.
- Filters hide what does not match; a full-page screenshot shows the panels.
- A page error, a console error or an alert (the page's way of reporting a failed call) fails the
  test. The release check is shown to catch a page whose Release button does nothing (the page's
  script served with that handler removed, through Playwright's routing).

Every wait has a
deadline (Playwright's `expect(..., timeout=)`, `wait_for_function`, the harness's `wait_until`);
nothing is ordered by sleeping. Shared pieces (the rules, `UI`, `BackgroundCurl`) are in harness/ui.py,
the page (`UIPage`) in harness/ui_page.py, the `ui_proxy`, `background_curl` and `open_ui` fixtures
in conftest.py."""
import json
import os
import re
import socket
import struct

import httpx
import pytest
from playwright.sync_api import expect

from harness.clients import run
from harness.http_clients import httpx_client
from harness.overlap import Background, record_overlapped
from harness.rawhttp import RawConnection, request_bytes
from harness.reference_backend import ReferenceBackend
from harness.rules import copy_examples
from harness.waiting import wait_until
from harness.ui import UI, hold_one, session_proxy as start_session_proxy
from harness.ui_page import WAIT_MS, UIPage

PASSWORD = "pw-UI-3c1d8e"  # the reference backend takes any password; this one must not reach the page


def flow_of(proxy, marker):
    """The flow id of the request whose URL ends with `marker` (from the live trace)."""
    return proxy.wait_for_event("request.received", where=lambda event: event.get("url", "").endswith(marker))["flow"]


def curl(proxy, url, *options):
    """curl through the proxy: (exit status, HTTP status, body)."""
    done = run(["curl", "-sS", "--max-time", "15", "-x", proxy.forward.url, "-w", "\n@status=%{http_code}",
                *options, url], timeout=20)
    body, _, status = done.stdout.rpartition(b"\n@status=")
    return done.returncode, int(status or 0), body


# -- opening the page ---------------------------------------------------------------------------


def test_the_printed_address_opens_the_live_page(ui_proxy, open_ui):
    ui = ui_proxy.ui
    tab = open_ui(ui)
    page = tab.page
    expect(page).to_have_title("Faultline")
    expect(page.locator("#dropped")).to_be_hidden()
    # The session cookie is there for the page's requests and out of its scripts' reach.
    cookies = tab.tab.context.cookies()
    assert [(c["name"], c["path"], c["httpOnly"], c["sameSite"]) for c in cookies] == [
        (f"faultline_ui_{ui.port}", "/ui", True, "Strict")], cookies
    assert page.evaluate("document.cookie") == ""
    # The panels came from the API: the rules of this proxy are listed.
    expect(tab.rule("ui/hold-gate")).to_be_visible(timeout=WAIT_MS)
    expect(tab.rule("ui/force-401")).to_be_visible(timeout=WAIT_MS)
    # A reload keeps the session.
    page.reload()
    expect(page.locator("#connection")).to_have_text("live", timeout=WAIT_MS)
    tab.assert_clean()


def test_a_spent_address_shows_the_refusal_page(ui_proxy, chromium):
    address = ui_proxy.ui.address()
    first = chromium.new_page().page.goto(address)
    assert first.url == f"{ui_proxy.ui.origin}/ui/" and first.status == 200
    second = chromium.new_page()
    answer = second.page.goto(address)
    assert answer.status == 403
    expect(second.page.locator("h1")).to_have_text("This address was used already")
    assert second.context.cookies() == []
    # Without a session the page refuses too, and says how to get in.
    answer = second.page.goto(f"{ui_proxy.ui.origin}/ui/")
    assert answer.status == 401
    expect(second.page.locator("h1")).to_have_text("Sign in with faultline ui")
    expect(second.page.locator("p")).to_contain_text("faultline ui")


# -- flows --------------------------------------------------------------------------------------


def test_a_curl_request_appears_with_method_url_and_status(ui_proxy, origin, open_ui):
    tab = open_ui(ui_proxy.ui)
    url = f"{origin.url}/echo?seen=by-the-ui"
    secret = "ui-test-secret-token-5a1f"
    code, status, body = curl(ui_proxy, url, "-H", f"Authorization: Bearer {secret}")
    assert (code, status) == (0, 200), body
    flow = flow_of(ui_proxy, "/echo?seen=by-the-ui")
    row = tab.row(flow)
    expect(row.locator("td.status")).to_have_text("200", timeout=WAIT_MS)
    expect(row.locator("td.method")).to_have_text("GET")
    expect(row.locator("td.url")).to_have_text(url)
    expect(row.locator("td.time")).to_have_text(re.compile(r"^\d+\.\d ms$"))
    expect(tab.page.locator("#counts")).to_contain_text(re.compile(r"\d+ flows · \d+ events"))
    # A POST with a body, and a 404 from the origin, each as they happened.
    code, status, _ = curl(ui_proxy, f"{origin.url}/status/404?seen=not-found", "-X", "POST", "-d", "x=1")
    assert (code, status) == (0, 404)
    missing = tab.row(flow_of(ui_proxy, "/status/404?seen=not-found"))
    expect(missing.locator("td.status")).to_have_text("404", timeout=WAIT_MS)
    expect(missing.locator("td.method")).to_have_text("POST")
    # The detail shows the request as the trace has it: the credential as a fingerprint.
    row.click()
    detail = tab.page.locator("#detail")
    expect(detail).to_contain_text(f"GET {url}", timeout=WAIT_MS)
    expect(detail).to_contain_text("Request headers")
    expect(detail.locator("td", has_text=re.compile(r"^Bearer fp:[0-9a-f]{16}$"))).to_have_count(1)
    expect(detail).to_contain_text("response.delivered")
    assert secret not in tab.page.content()
    expect(row).to_have_class(re.compile(r"\bselected\b"))
    tab.assert_clean()


# -- holds --------------------------------------------------------------------------------------


def release_by_click(tab, proxy, origin, background_curl, marker, timeout=WAIT_MS):
    """Holds a curl request, clicks its Release button and waits for the hold to leave the page;
    returns (the curl, the hold)."""
    client, hold = hold_one(proxy, origin, background_curl, marker)
    item = tab.hold(hold)
    expect(item).to_be_visible(timeout=WAIT_MS)
    expect(item).to_contain_text(f"n={marker}")
    expect(tab.row(hold["flow"]).locator("td.status")).to_have_text("held", timeout=WAIT_MS)
    item.locator("button.release").click()
    expect(item).to_have_count(0, timeout=timeout)
    return client, hold


def test_release_lets_the_held_request_through(ui_proxy, origin, open_ui, background_curl):
    tab = open_ui(ui_proxy.ui)
    client, hold = release_by_click(tab, ui_proxy, origin, background_curl, "release")
    code, status, body, err = client.result(timeout=15)
    assert (code, status) == (0, 200), (code, status, body, err)
    assert json.loads(body)["target"] == "/echo?hold=gate&n=release"
    row = tab.row(hold["flow"])
    expect(row.locator("td.status")).to_have_text("200", timeout=WAIT_MS)
    expect(row.locator("td.hold")).to_have_text("released (control)")
    expect(tab.page.locator("#holds li.empty")).to_have_text("Nothing held.", timeout=WAIT_MS)
    assert ui_proxy.ui.holds() == []
    tab.assert_clean()


RELEASE_HANDLER = re.compile(r'onclick: \(\) => act\("POST", path \+ "/release", \{ id: hold\.id \}\)\s*,')


def without_release_handler(script):
    """app.js with the Release button's click handler gone (a mutant the release check must catch)."""
    mutant, count = RELEASE_HANDLER.subn("", script)
    assert count == 1, "the mutation no longer applies: the Release button's handler changed"
    return mutant


def test_the_release_check_catches_a_button_that_does_nothing(ui_proxy, origin, open_ui, background_curl):
    tab = open_ui(ui_proxy.ui, script=without_release_handler)
    with pytest.raises(AssertionError):
        release_by_click(tab, ui_proxy, origin, background_curl, "dead-button", timeout=5_000)
    (hold,) = ui_proxy.ui.holds()
    assert "n=dead-button" in hold["summary"], "the dead button released the hold"
    posts = [r for r in tab.tab.requested if "/release" in r]
    assert posts == [], posts
    tab.assert_clean()


def test_release_with_status_answers_418_and_the_typed_status_survives_a_refresh(
        ui_proxy, origin, open_ui, background_curl):
    tab = open_ui(ui_proxy.ui)
    client, hold = hold_one(ui_proxy, origin, background_curl, "teapot")
    item = tab.hold(hold)
    expect(item).to_be_visible(timeout=WAIT_MS)
    status = item.locator("input.status-input")
    status.fill("418")
    # A refresh of the panel (every 2 s) while a person types keeps the value and the focus.
    tab.wait_for_refresh(hold)
    assert status.input_value() == "418", "the refresh emptied the status being typed"
    expect(status).to_be_focused()
    item.locator("button.release-status").click()
    code, answered, body, err = client.result(timeout=15)
    assert (code, answered) == (0, 418), (code, answered, body, err)
    expect(tab.row(hold["flow"]).locator("td.status")).to_have_text("418", timeout=WAIT_MS)
    assert ui_proxy.ui.holds() == []
    tab.assert_clean()


def test_fail_resets_the_held_client(ui_proxy, origin, open_ui, background_curl):
    tab = open_ui(ui_proxy.ui)
    client, hold = hold_one(ui_proxy, origin, background_curl, "fail")
    item = tab.hold(hold)
    expect(item).to_be_visible(timeout=WAIT_MS)
    item.locator("button.fail").click()
    code, status, body, err = client.result(timeout=15)
    # 52: empty reply, 56: connection reset (curl's exit statuses); never a response.
    assert code in (52, 56) and status == 0 and body == b"", (code, status, body, err)
    expect(item).to_have_count(0, timeout=WAIT_MS)
    expect(tab.row(hold["flow"]).locator("td.hold")).to_have_text("failed (control)", timeout=WAIT_MS)
    assert not origin.seen("n=fail"), "a failed hold of the request phase must not reach the origin"
    tab.assert_clean()


# -- rules --------------------------------------------------------------------------------------


def test_a_forced_401_counts_hits_and_its_checkbox_switches_it(ui_proxy, origin, open_ui):
    tab = open_ui(ui_proxy.ui)
    url = f"{origin.url}/echo?force=401"
    rule = tab.rule("ui/force-401")
    toggle = rule.locator("input.toggle")
    expect(toggle).to_be_checked(timeout=WAIT_MS)
    expect(rule.locator("td.hits")).to_have_text("0")
    code, status, body = curl(ui_proxy, url)
    assert (code, status) == (0, 401) and json.loads(body) == {"error": "invalid_token"}, body
    expect(rule.locator("td.hits")).to_have_text("1", timeout=WAIT_MS)
    expect(tab.row(flow_of(ui_proxy, "/echo?force=401")).locator("td.rules")).to_have_text("ui/force-401",
                                                                                          timeout=WAIT_MS)
    toggle.click()
    expect(rule).to_have_class(re.compile(r"\bdisabled\b"), timeout=WAIT_MS)  # drawn from the API's answer
    expect(toggle).not_to_be_checked()
    assert ui_proxy.ui.rule("ui/force-401")["rule_enabled"] is False
    code, status, body = curl(ui_proxy, url)
    assert (code, status) == (0, 200), body
    assert json.loads(body)["target"] == "/echo?force=401", "the request did not reach the origin untouched"
    expect(rule.locator("td.hits")).to_have_text("1")
    # And on again.
    toggle.click()
    expect(rule).not_to_have_class(re.compile(r"\bdisabled\b"), timeout=WAIT_MS)
    expect(toggle).to_be_checked()
    assert curl(ui_proxy, url)[1] == 401
    expect(rule.locator("td.hits")).to_have_text("2", timeout=WAIT_MS)
    tab.assert_clean()


# -- lineages -----------------------------------------------------------------------------------


@pytest.fixture
def reference_backend(faultline_binary):
    backend = ReferenceBackend(faultline_binary).start()
    yield backend
    assert backend.stop() in (0, None)


@pytest.fixture
def session_proxy(start_faultline, faultline_binary, reference_backend, tmp_path):
    """A reverse proxy in front of `faultline backend` with the repository's auth profile only."""
    folder = copy_examples(str(tmp_path / "profile-only"))
    return start_session_proxy(start_faultline, faultline_binary, reference_backend.url, folder,
                         str(tmp_path / "session-control.json"))


def login_call_logout(base):
    """A login, a business call and a logout, as a client of the reference backend makes them;
    returns the access token."""
    with httpx.Client(base_url=base, trust_env=False, timeout=10) as client:
        login = client.post("/oauth/token", data={"grant_type": "password", "username": "alice", "password": PASSWORD})
        assert login.status_code == 200, login.text
        token = login.json()["access_token"]
        bearer = {"Authorization": f"Bearer {token}"}
        assert client.get("/v1/me", headers=bearer).status_code == 200
        assert client.post("/logout", headers=bearer).status_code == 204
    return token


def test_login_call_and_logout_draw_lineage_l1(session_proxy, open_ui):
    tab = open_ui(session_proxy.ui)
    token = login_call_logout(session_proxy.reverse.url)
    logout = session_proxy.wait_for_event("lineage.logout", lineage="L1")
    business = session_proxy.wait_for_event("request.received", path="/v1/me")["flow"]
    lane = tab.page.locator('#lanes svg g.lane[data-lineage="L1"]')
    expect(lane).to_be_visible(timeout=WAIT_MS)
    expect(lane.locator("text.lane-label")).to_have_text("L1")
    for flow in (business, logout["flow"]):
        bar = lane.locator(f'rect.bar[data-flow="{flow}"]')
        expect(bar).to_have_count(1, timeout=WAIT_MS)
        # The page redraws the lanes whole (at most twice a second), so the element found may be
        # replaced before its box is read: read it again until one is drawn.
        wait_until(lambda: (box := bar.bounding_box()) and box["width"] > 0 and box["height"] > 0, WAIT_MS / 1000,
                   f"a drawn bar for flow {flow}")
    expect(lane.locator(f'rect.bar.logout[data-flow="{logout["flow"]}"]')).to_have_count(1)
    expect(lane.locator("line.logout-line")).to_have_count(1, timeout=WAIT_MS)
    # The rows say the roles and the lineage; the role filter picks the logout.
    expect(tab.row(business).locator("td.role")).to_have_text("business")
    expect(tab.row(business).locator("td.lineage")).to_have_text("L1")
    expect(tab.row(logout["flow"]).locator("td.role")).to_have_text("logout")
    tab.page.locator("#filter-role").select_option("logout")
    expect(tab.row(logout["flow"])).to_be_visible()
    expect(tab.row(business)).to_be_hidden()
    tab.page.locator("#filter-role").select_option("")
    expect(tab.row(business)).to_be_visible()
    assert token not in tab.page.content() and PASSWORD not in tab.page.content()
    tab.assert_clean()


def test_the_login_is_drawn_in_its_lineages_lane(session_proxy, open_ui):
    tab = open_ui(session_proxy.ui)
    login_call_logout(session_proxy.reverse.url)
    login = session_proxy.wait_for_event("lineage.login", lineage="L1")["flow"]
    lane = tab.page.locator('#lanes svg g.lane[data-lineage="L1"]')
    expect(lane.locator("line.logout-line")).to_have_count(1, timeout=WAIT_MS)
    expect(tab.row(login).locator("td.lineage")).to_have_text("L1", timeout=3_000)
    expect(lane.locator(f'rect.bar.login[data-flow="{login}"]')).to_have_count(1, timeout=3_000)


def test_the_lanes_time_axis_spans_the_lineages(session_proxy, open_ui):
    tab = open_ui(session_proxy.ui)
    login_call_logout(session_proxy.reverse.url)
    lane = tab.page.locator('#lanes svg g.lane[data-lineage="L1"]')
    expect(lane.locator("line.logout-line")).to_have_count(1, timeout=WAIT_MS)
    extent = tab.page.evaluate("""() => {
        const picture = document.querySelector("#lanes svg");
        const bars = [...picture.querySelectorAll("rect.bar")];
        const starts = bars.map((bar) => Number(bar.getAttribute("x")));
        const ends = bars.map((bar) => Number(bar.getAttribute("x")) + Number(bar.getAttribute("width")));
        return { from: Math.min(...starts), to: Math.max(...ends), width: Number(picture.getAttribute("width")) };
    }""")
    drawable = extent["width"] - 56 - 10  # the page's label column and right margin
    assert extent["to"] - extent["from"] >= drawable / 2, f"the lineage's bars use {extent} of {drawable} px"


# -- filters ------------------------------------------------------------------------------------


def test_a_replayed_answer_waiting_for_the_recorded_order_shows_as_held(
        start_faultline, start_replay, origin, open_ui, faultline_binary, tmp_path):
    """`replay serve --order recorded`: an answer that waits for an earlier step of the recording
    shows as held, says what it waits for in its tooltip, and shows as released once that step
    happened."""
    capture, base, _ = record_overlapped(start_faultline, origin, tmp_path)
    control_file = str(tmp_path / "replay-control.json")
    replay = start_replay(capture, "--listen", "127.0.0.1:0", "--order", "recorded", "--order-timeout", "30",
                          "--control-file", control_file)
    page = open_ui(UI(faultline_binary, control_file))
    sink = Background(lambda: httpx_client(replay.listeners[0].url), f"{base}/sink?first")
    flow = replay.wait_for_event("replay.waiting")["flow"]
    hold = page.row(flow).locator("td.hold span")
    expect(hold).to_have_text("held: recorded order", timeout=WAIT_MS)
    expect(hold).to_have_attribute("title", re.compile(r"^waiting for: .*/echo"), timeout=WAIT_MS)
    expect(page.row(flow).locator("td.status")).to_have_text("held")
    with httpx_client(replay.listeners[0].url) as client:
        assert client.get(f"{base}/echo?second").status_code == 200
    assert sink.result(20).status_code == 200
    expect(hold).to_have_text("released (recorded order)", timeout=WAIT_MS)
    expect(page.row(flow).locator("td.status")).to_have_text("200", timeout=WAIT_MS)


def test_a_waiting_replayed_answer_whose_client_left_shows_as_ended(
        start_faultline, start_replay, origin, open_ui, faultline_binary, tmp_path):
    """The client of a replayed answer waiting for the recorded order goes away: the flow aborts
    and the page stops showing it as held."""
    capture, base, _ = record_overlapped(start_faultline, origin, tmp_path)
    control_file = str(tmp_path / "replay-control.json")
    replay = start_replay(capture, "--listen", "127.0.0.1:0", "--order", "recorded", "--order-timeout", "30",
                          "--control-file", control_file)
    page = open_ui(UI(faultline_binary, control_file))
    with RawConnection("127.0.0.1", replay.forward.port) as connection:
        connection.send(request_bytes("GET", f"{base}/sink?first", [("Host", base.split("//", 1)[1])]))
        flow = replay.wait_for_event("replay.waiting")["flow"]
        hold = page.row(flow).locator("td.hold span")
        expect(hold).to_have_text("held: recorded order", timeout=WAIT_MS)
        # A reset, not a FIN: after a whole request a half-closed client may still read its answer.
        connection.sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    replay.wait_for_event("flow.aborted", flow=flow)
    expect(hold).to_have_text("ended (flow aborted)", timeout=WAIT_MS)
    expect(hold).not_to_have_attribute("title", re.compile("waiting for"), timeout=WAIT_MS)


def test_filters_hide_the_rows_that_do_not_match(ui_proxy, origin, open_ui):
    tab = open_ui(ui_proxy.ui)
    targets = {"ok": "/echo?which=ok", "unauthorized": "/echo?force=401&which=unauthorized",
               "missing": "/status/404?which=missing"}
    expected = {"ok": 200, "unauthorized": 401, "missing": 404}
    rows = {}
    for name, target in targets.items():
        assert curl(ui_proxy, origin.url + target)[1] == expected[name]
        rows[name] = tab.row(flow_of(ui_proxy, target))
        expect(rows[name].locator("td.status")).to_have_text(str(expected[name]), timeout=WAIT_MS)
    status_filter = tab.page.locator("#filter-status")

    def shown(*names):
        for name, row in rows.items():
            if name in names:
                expect(row).to_be_visible(timeout=WAIT_MS)
            else:
                expect(row).to_be_hidden(timeout=WAIT_MS)

    shown("ok", "unauthorized", "missing")
    status_filter.fill("401")
    shown("unauthorized")
    status_filter.fill("4xx")
    shown("unauthorized", "missing")
    status_filter.fill("2")
    shown("ok")
    status_filter.fill("")
    shown("ok", "unauthorized", "missing")
    tab.page.locator("#filter-path").fill("/status")
    shown("missing")
    tab.page.locator("#filter-path").fill("")
    # A row that arrives while a filter is set obeys it too.
    status_filter.fill("401")
    assert curl(ui_proxy, origin.url + "/echo?which=late")[1] == 200
    late = tab.row(flow_of(ui_proxy, "/echo?which=late"))
    expect(late).to_have_count(1, timeout=WAIT_MS)
    expect(late).to_be_hidden(timeout=WAIT_MS)
    shown("unauthorized")
    tab.assert_clean()


# -- what the page is given --------------------------------------------------------------------


def test_markup_in_traffic_and_marks_is_shown_as_text(ui_proxy, origin, open_ui):
    tab = open_ui(ui_proxy.ui)
    header = '<img src="x" id="injected-header"><b>bold</b>'
    assert curl(ui_proxy, f"{origin.url}/echo?markup=1", "-H", f"X-Note: {header}")[1] == 200
    row = tab.row(flow_of(ui_proxy, "/echo?markup=1"))
    expect(row.locator("td.status")).to_have_text("200", timeout=WAIT_MS)
    row.click()
    detail = tab.page.locator("#detail")
    expect(detail.locator("td", has_text="X-Note")).to_have_count(1, timeout=WAIT_MS)
    expect(detail.locator("td").filter(has_text=re.compile("^" + re.escape(header) + "$"))).to_have_count(1)
    label = '<img src="x" id="injected-mark">'
    answer = ui_proxy.ui.v1("POST", "/v1/marks", body={"label": label})
    assert answer.status == 200, answer
    expect(tab.page.locator("#marks li.mark strong")).to_have_text(label, timeout=WAIT_MS)
    expect(tab.page.locator("#injected-header, #injected-mark, #detail img, #detail b, #marks img")).to_have_count(0)
    tab.assert_clean()


def stop_and_watch_the_connection(tab, proxy):
    """Stops the proxy (SIGTERM, exit 0) and returns every text `#connection` showed after it,
    once one says "disconnected: …". The failed loads a stopped proxy causes are dropped from
    the page's problems; nothing else may have gone wrong."""
    tab.page.evaluate("""() => {
        const status = document.getElementById("connection");
        window.connectionTexts = [];
        new MutationObserver(() => window.connectionTexts.push(status.textContent))
            .observe(status, { childList: true, characterData: true, subtree: true });
    }""")
    assert proxy.stop() == 0, proxy.stderr
    tab.page.wait_for_function("() => window.connectionTexts.some((text) => text.startsWith('disconnected: '))",
                               timeout=WAIT_MS)
    expect(tab.page.locator("#connection")).to_have_class(re.compile(r"\bdown\b"))
    texts = tab.page.evaluate("() => window.connectionTexts")
    expected = ("net::ERR_CONNECTION_REFUSED", "net::ERR_INCOMPLETE_CHUNKED_ENCODING")
    tab.problems[:] = [problem for problem in tab.problems
                       if not (problem.startswith("console error: Failed to load resource:")
                               and any(error in problem for error in expected))]
    return texts


def test_the_page_says_when_the_proxy_stops(ui_proxy, open_ui):
    tab = open_ui(ui_proxy.ui)
    stop_and_watch_the_connection(tab, ui_proxy)
    # The next refresh of the panels (every 2 s) overwrites it with the failed fetch.
    expect(tab.page.locator("#connection")).to_have_text(
        re.compile(r"^(disconnected: .+|API: Failed to fetch)$"), timeout=WAIT_MS)
    tab.assert_clean()


def test_the_page_says_the_proxy_stopped(ui_proxy, open_ui):
    tab = open_ui(ui_proxy.ui)
    texts = stop_and_watch_the_connection(tab, ui_proxy)
    assert "disconnected: the proxy stopped" in texts, texts


def test_the_dropped_banner_counts_what_the_stream_left_out(ui_proxy, open_ui, chromium):
    """The page's side of `{"ui":"dropped","count":N}` (the proxy writes it for a browser too slow to
    read, which a test cannot make Chromium be): the event stream is served from a script here."""
    lines = [
        {"faultline_trace": 1},
        {"seq": 1, "mono_ns": 1_000_000, "event": "request.received", "conn": 1, "flow": 1, "method": "GET",
         "url": "http://example.test/before", "host": "example.test", "path": "/before"},
        {"seq": 2, "mono_ns": 2_000_000, "event": "response.delivered", "conn": 1, "flow": 1, "status": 200},
        {"ui": "live", "after": 2},
        {"ui": "dropped", "count": 7},
        {"seq": 10, "mono_ns": 9_000_000, "event": "request.received", "conn": 2, "flow": 5, "method": "GET",
         "url": "http://example.test/after", "host": "example.test", "path": "/after"},
        {"ui": "dropped", "count": 3},
    ]
    body = "".join(json.dumps(line) + "\n" for line in lines)
    tab = UIPage(chromium.new_page(), ui_proxy.ui)
    tab.page.route("**/ui/api/v1/events", lambda route: route.fulfill(
        status=200, content_type="application/x-ndjson", body=body))
    tab.page.goto(ui_proxy.ui.address(), wait_until="load")
    dropped = tab.page.locator("#dropped")
    expect(dropped).to_be_visible(timeout=WAIT_MS)
    expect(dropped).to_have_text("10 events dropped (the page fell behind); reload for a full view")
    expect(tab.row(1).locator("td.status")).to_have_text("200")
    expect(tab.row(5).locator("td.url")).to_have_text("http://example.test/after")
    expect(tab.page.locator("#connection")).to_have_text("disconnected: the proxy stopped")  # the canned stream ended
    tab.assert_clean()
    tab.tab.close()


# -- the picture --------------------------------------------------------------------------------


def png_size(data):
    """(width, height) from a PNG's IHDR; fails on anything that is not a PNG."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    assert data[12:16] == b"IHDR"
    return struct.unpack(">II", data[16:24])


def test_a_full_page_screenshot_shows_the_panels(ui_proxy, origin, open_ui, background_curl, tmp_path):
    tab = open_ui(ui_proxy.ui)
    page = tab.page
    for n in range(3):
        assert curl(ui_proxy, f"{origin.url}/echo?picture={n}")[1] == 200
    assert curl(ui_proxy, f"{origin.url}/echo?force=401&picture=forced")[1] == 401
    client, hold = hold_one(ui_proxy, origin, background_curl, "picture")
    expect(tab.hold(hold)).to_be_visible(timeout=WAIT_MS)
    expect(tab.row(flow_of(ui_proxy, "/echo?force=401&picture=forced")).locator("td.status")).to_have_text(
        "401", timeout=WAIT_MS)
    expect(page.locator("#flows tbody tr.flow")).to_have_count(5, timeout=WAIT_MS)
    path = tmp_path / "ui.png"
    data = page.screenshot(full_page=True, path=str(path))
    width, height = png_size(data)
    viewport = page.viewport_size
    assert width == viewport["width"] and height >= viewport["height"], (width, height, viewport)
    assert len(data) > 20_000, f"a {len(data)}-byte screenshot is too small to show the panels"
    for selector in ("#flows", "#holds", "#rules", "#connection"):
        box = page.locator(selector).bounding_box()
        assert box and box["width"] > 0 and box["height"] > 0, f"{selector} is not drawn: {box}"
        inside = box["x"] >= 0 and box["y"] >= 0 and box["x"] + box["width"] <= width + 1
        assert inside, f"{selector} is off the page: {box}"
        expect(page.locator(selector)).to_be_visible()
    saved = os.environ.get("FAULTLINE_UI_SCREENSHOT")  # to look at it: FAULTLINE_UI_SCREENSHOT=/tmp/ui.png
    if saved:
        with open(saved, "wb") as handle:
            handle.write(data)
    ui_proxy.control.release("gate")
    assert client.result(timeout=15)[1] == 200
    tab.assert_clean()

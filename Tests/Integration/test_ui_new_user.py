"""The web UI as a new user first meets it (issue 20, items 3 to 7): Debian's Chromium (Playwright,
harness/browser.py) on the address `faultline ui` prints, at 1280 px and at 420 px, while httpx
drives a session through the repository's example rules in front of `faultline backend`.

- 3: a flow's detail (a synthetic 401, a login) prints no literal `null`.
- 4: a copy made by `duplicate` shows its status, "copy of #N" and its lineage, never "…".
- 5: scenarios are listed and switched beside their rules, on and off in the words of
  `faultline rules list`; a hold released with status 503 says 503.
- 6: the lineage lanes have a time axis with a scale break for idle time, lanes labelled with
  lineage and account, a legend, bars no thinner than a few pixels, a held flow that does not fill
  its lane, and violation markers (from a `faultline check --format json` report loaded into the
  page) that lead to the check's witnesses.
- 7: the events table keeps each event name on one line; the flow list has Size and Type columns
  and shows the fired rules whole.

Every test also takes a full-page screenshot (kept in the test's folder, and in
$FAULTLINE_UI_SCREENSHOTS when set) and asserts the layout: no element wider than its container,
no page scrolling sideways, no `null` text node (harness/ui_page.py). Every wait has a deadline;
nothing is ordered by sleeping (the one long hold is measured by the proxy's own `held_ms`)."""
import json
import re
import threading

import httpx
import pytest
from playwright.sync_api import expect

from harness.clients import run
from harness.reference_backend import ReferenceBackend
from harness.rules import copy_examples
from harness.ui import hold_one, session_proxy
from harness.ui_page import NARROW, WAIT_MS, WIDE, screenshot
from harness.waiting import wait_until

VIEWPORTS = [pytest.param(WIDE, id="1280px"), pytest.param(NARROW, id="420px")]
PASSWORD = "pw-new-user-7e2a"  # the reference backend takes any password; this one must not reach the page


@pytest.fixture
def reference_backend(faultline_binary):
    backend = ReferenceBackend(faultline_binary).start()
    yield backend
    assert backend.stop() in (0, None)


@pytest.fixture
def examples_proxy(start_faultline, faultline_binary, reference_backend, tmp_path):
    """Returns `start(*examples, capture=False)`: a reverse proxy in front of the reference
    backend running copies of those Rules/ examples (and the auth profile); `.ui` is its UI."""
    def start(*examples, capture=False):
        folder = copy_examples(str(tmp_path / "rules"), *examples)
        proxy = session_proxy(start_faultline, faultline_binary, reference_backend.url, folder,
                              str(tmp_path / "control.json"), *(("--capture",) if capture else ()))
        proxy.client = httpx.Client(base_url=proxy.reverse.url, trust_env=False, timeout=20)
        return proxy

    return start


def log_in(client, username):
    """A password login (RFC 6749 §4.3) through the proxy; returns (bearer header, token answer)."""
    answer = client.post("/oauth/token", data={"grant_type": "password", "username": username, "password": PASSWORD})
    assert answer.status_code == 200, answer.text
    tokens = answer.json()
    return {"Authorization": f"Bearer {tokens['access_token']}"}, tokens


def flow_of(proxy, path, **match):
    return proxy.wait_for_event("request.received", path=path, **match)["flow"]


def look(tab, tmp_path, name):
    """The screenshot and the layout check every test ends with."""
    screenshot(tab.page, tmp_path, name)
    tab.assert_layout(name)
    tab.assert_clean()


def text_nodes_saying_null(tab, selector):
    return tab.page.evaluate("""(selector) => {
        const found = [];
        const walker = document.createTreeWalker(document.querySelector(selector), NodeFilter.SHOW_TEXT);
        for (let text = walker.nextNode(); text; text = walker.nextNode()) {
            if (/^\\s*(?:null|undefined)+\\s*$/.test(text.data)) found.push(text.data);
        }
        return found;
    }""", selector)


# -- 3. no literal null in the flow detail ---------------------------------------------------------


@pytest.mark.parametrize("viewport", VIEWPORTS)
def test_the_flow_detail_of_a_synthetic_401_and_a_login_prints_no_null(
        examples_proxy, open_ui, tmp_path, viewport):
    proxy = examples_proxy("force-401-first-business.json5")
    tab = open_ui(proxy.ui, viewport=viewport)
    bearer, _ = log_in(proxy.client, "alice")
    assert proxy.client.get("/v1/me", headers=bearer).status_code == 401  # the rule's synthetic answer
    login, forced = flow_of(proxy, "/oauth/token"), flow_of(proxy, "/v1/me")
    detail = tab.page.locator("#detail")
    for flow, status in ((forced, "401"), (login, "200")):
        row = tab.row(flow)
        expect(row.locator("td.status")).to_have_text(status, timeout=WAIT_MS)
        row.click()
        expect(detail).to_contain_text(f"flow {flow} ", timeout=WAIT_MS)
        expect(detail.locator("h3", has_text="Request headers")).to_have_count(1)
        expect(detail.locator("h3", has_text="Events")).to_have_count(1)
        assert text_nodes_saying_null(tab, "#detail") == [], f"the detail of flow {flow} prints null"
        # What the detail has no data for, it says in words.
        if status == "401":
            expect(detail).to_contain_text("Response headers: not in the trace")
    look(tab, tmp_path, f"detail-{viewport['width']}")


# -- 4. copies made by `duplicate` -----------------------------------------------------------------


@pytest.mark.parametrize("viewport", VIEWPORTS)
def test_a_copy_made_by_duplicate_shows_its_status_its_original_and_its_lineage(
        examples_proxy, open_ui, tmp_path, viewport):
    proxy = examples_proxy("duplicate-callback.json5")
    tab = open_ui(proxy.ui, viewport=viewport)
    bearer, _ = log_in(proxy.client, "alice")
    job = proxy.client.post("/jobs", headers=bearer).json()["job"]
    for step in ("download", "convert", "write"):
        assert proxy.client.post(f"/jobs/{job}/{step}", headers=bearer).status_code == 200
    assert proxy.client.post(f"/jobs/{job}/complete", headers=bearer).json()["calls"] == 1
    discarded = proxy.wait_for_event("response.discarded")
    copy, original = discarded["flow"], discarded["duplicate_of"]
    row = tab.row(copy)
    expect(row.locator("td.status")).to_have_text(str(discarded["status"]), timeout=WAIT_MS)
    expect(row.locator("td.status")).to_have_attribute("title", re.compile("read and dropped by the proxy"))
    expect(row.locator("td.url .copy-of")).to_have_text(f"copy of #{original}")
    expect(row.locator("td.lineage")).to_have_text("L1")
    expect(row.locator("td.role")).to_have_text("callback")
    expect(row.locator("td.time")).to_have_text(re.compile(r"^\d+\.\d ms$"))
    # The detail says what the copy is, and the original lists its copy.
    row.click()
    detail = tab.page.locator("#detail")
    expect(detail).to_contain_text(f"copy of flow {original}", timeout=WAIT_MS)
    expect(detail).to_contain_text("its answer was read and dropped by the proxy")
    detail.locator(f'a[data-goto="{original}"]').click()
    expect(tab.row(original)).to_have_class(re.compile(r"\bselected\b"), timeout=WAIT_MS)
    expect(detail.locator(f'a[data-goto="{copy}"]')).to_have_text(f"#{copy}")
    # The copy is drawn in its original's lane, marked as a copy.
    lane = tab.page.locator('#lanes svg g.lane[data-lineage="L1"]')
    expect(lane.locator(f'rect.bar.copy[data-flow="{copy}"]')).to_have_count(1, timeout=WAIT_MS)
    # The status filter finds it like any other answered flow.
    tab.page.locator("#filter-status").fill("2xx")
    expect(row).to_be_visible(timeout=WAIT_MS)
    tab.page.locator("#filter-status").fill("")
    look(tab, tmp_path, f"copy-{viewport['width']}")


# -- 5. rule and scenario switches, and what a hold ended with ---------------------------------------


def cli_rules(proxy):
    """`faultline rules list` of the running proxy: {rule id: "on" | "off"}."""
    done = run([proxy.ui.binary, "rules", "list", "--control-file", proxy.ui.control_file], timeout=15)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.decode().splitlines()
    assert lines[0].split() == ["RULE", "PHASE", "ENABLED", "HITS", "MATCHES"], lines
    return {line.split()[0]: line.split()[2] for line in lines[1:]}


def cli(proxy, *arguments):
    done = run([proxy.ui.binary, *arguments, "--control-file", proxy.ui.control_file], timeout=15)
    assert done.returncode == 0, done.stderr
    return done.stdout.decode().strip()


def page_rules(tab):
    """The page's rules: {rule id: the word in its Enabled cell}."""
    return tab.page.evaluate("""() => Object.fromEntries([...document.querySelectorAll("#rules tr.rule")]
        .map((row) => [row.dataset.rule, row.querySelector("td.enabled").textContent]))""")


def expect_the_cli_words(tab, proxy):
    expected = cli_rules(proxy)
    wait_until(lambda: page_rules(tab) == expected, WAIT_MS / 1000,
               f"the page's rules to read as `faultline rules list` says: {expected}")


@pytest.mark.parametrize("viewport", VIEWPORTS)
def test_scenarios_and_rules_switch_in_the_words_of_faultline_rules_list(examples_proxy, open_ui, tmp_path, viewport):
    proxy = examples_proxy("force-401-first-business.json5", "duplicate-callback.json5")
    tab = open_ui(proxy.ui, viewport=viewport)
    scenario, rule = "force-401-first-business", "force-401-first-business/expire-first-three"
    expect(tab.scenario(scenario).locator("td.enabled")).to_have_text("on", timeout=WAIT_MS)
    expect_the_cli_words(tab, proxy)
    # Off from the command line: the page says off for the scenario and its rule, as the CLI does,
    # and the rule's switch is neither ticked nor struck through.
    assert cli(proxy, "rules", "disable", scenario) == f"disabled scenario {scenario}"
    expect(tab.scenario(scenario).locator("td.enabled")).to_have_text("off", timeout=WAIT_MS)
    expect_the_cli_words(tab, proxy)
    assert cli_rules(proxy)[rule] == "off"
    expect(tab.rule(rule).locator("input.toggle")).not_to_be_checked()
    expect(tab.rule(rule).locator("input.toggle")).to_be_disabled()
    expect(tab.rule(rule).locator("td.enabled")).to_have_attribute("title", re.compile(f"scenario {scenario} is off"))
    assert tab.rule(rule).locator("td.id").evaluate("(cell) => getComputedStyle(cell).textDecorationLine") == "none"
    bearer, _ = log_in(proxy.client, "alice")
    assert proxy.client.get("/v1/me", headers=bearer).status_code == 200  # off really is off
    # On from the page: the scenario's switch, then the CLI agrees and the rule fires again.
    tab.scenario(scenario).locator("input.toggle").click()
    expect(tab.scenario(scenario).locator("td.enabled")).to_have_text("on", timeout=WAIT_MS)
    expect(tab.page.locator("#rules-said")).to_have_text(f"enabled scenario {scenario}")
    expect_the_cli_words(tab, proxy)
    assert cli_rules(proxy)[rule] == "on"
    assert proxy.client.get("/v1/me", headers=bearer).status_code == 401
    # One rule off from the page; its scenario stays on.
    tab.rule(rule).locator("input.toggle").click()
    expect(tab.page.locator("#rules-said")).to_have_text(f"disabled rule {rule}", timeout=WAIT_MS)
    expect(tab.rule(rule).locator("td.enabled")).to_have_text("off", timeout=WAIT_MS)
    expect(tab.scenario(scenario).locator("td.enabled")).to_have_text("on")
    expect_the_cli_words(tab, proxy)
    look(tab, tmp_path, f"rules-{viewport['width']}")


@pytest.mark.parametrize("viewport", VIEWPORTS)
def test_a_hold_released_with_status_503_says_503(ui_proxy, origin, open_ui, background_curl, tmp_path, viewport):
    tab = open_ui(ui_proxy.ui, viewport=viewport)
    client, hold = hold_one(ui_proxy, origin, background_curl, "five-oh-three")
    item = tab.hold(hold)
    expect(item).to_be_visible(timeout=WAIT_MS)
    item.locator("input.status-input").fill("503")
    item.locator("button.release-status").click()
    code, status, body, err = client.result(timeout=15)
    assert (code, status) == (0, 503), (code, status, body, err)
    row = tab.row(hold["flow"])
    expect(row.locator("td.status")).to_have_text("503", timeout=WAIT_MS)
    expect(row.locator("td.hold")).to_have_text("released with 503 (control)", timeout=WAIT_MS)
    # Fail says failed.
    client, hold = hold_one(ui_proxy, origin, background_curl, "failed")
    tab.hold(hold).locator("button.fail").click()
    assert client.result(timeout=15)[1] == 0
    expect(tab.row(hold["flow"]).locator("td.hold")).to_have_text("failed (control)", timeout=WAIT_MS)
    # Nothing follows a failed hold in the trace: the flow ends there, not "…" forever.
    expect(tab.row(hold["flow"]).locator("td.status")).to_have_text("reset")
    expect(tab.row(hold["flow"]).locator("td.time")).to_have_text(re.compile(r"^\d+\.\d+ (ms|s)$"))
    look(tab, tmp_path, f"hold-503-{viewport['width']}")


# -- 6. the lineage lanes --------------------------------------------------------------------------

MIN_BAR_PX = 6


def race_through_a_held_refresh(proxy, held_ms=600):
    """alice logs in, three business calls get the forced 401, her refresh answer is held until
    her logout (the proxy's `held_ms` says when it waited `held_ms`), then she uses the old token
    after her logout (a logout-boundary violation), and bob logs in and calls once."""
    client = proxy.client
    bearer, tokens = log_in(client, "alice")
    answers = []
    calls = [threading.Thread(target=lambda path=path: answers.append(client.get(path, headers=bearer).status_code))
             for path in ("/v1/me", "/v1/messages", "/v1/avatar")]
    for call in calls:
        call.start()
    for call in calls:
        call.join(20)
    assert answers == [401, 401, 401], answers
    refreshed = []
    refresh = threading.Thread(target=lambda: refreshed.append(client.post(
        "/oauth/token", data={"grant_type": "refresh_token", "refresh_token": tokens["refresh_token"]})))
    refresh.start()
    wait_until(lambda: any(hold["held_ms"] >= held_ms for hold in proxy.ui.holds()), 10,
               f"the refresh answer held for {held_ms} ms")
    assert client.post("/logout", headers=bearer).status_code == 204
    refresh.join(20)
    assert refreshed and refreshed[0].status_code == 200
    assert client.get("/v1/me", headers=bearer).status_code in (401, 200)  # after the logout: the violation
    bob, _ = log_in(client, "bob")
    # force-401-first-business arms every new login: bob's first call gets its forced 401 too.
    assert client.get("/v1/me", headers=bob).status_code == 401
    return proxy.wait_for_event("request.received", lineage="L2", path="/v1/me")


def check_report(proxy, tmp_path):
    """`faultline check --format json` of the proxy's trace so far (the trace file reaches the
    disk every 100 ms; the last event is waited for by the caller)."""
    path = tmp_path / "report.json"
    done = run([proxy.ui.binary, "check", proxy.trace_file, "--format", "json", "--output", str(path)], timeout=30)
    assert done.returncode == 1, (done.returncode, done.stderr)
    return path, json.loads(path.read_text())


def bar_boxes(tab):
    return tab.page.evaluate("""() => [...document.querySelectorAll("#lanes svg rect.bar")].map((bar) => {
        const box = bar.getBoundingClientRect();
        return { flow: bar.dataset.flow, width: box.width, classes: bar.getAttribute("class") };
    })""")


@pytest.mark.parametrize("viewport", VIEWPORTS)
def test_the_lanes_have_an_axis_labelled_lanes_a_legend_and_violations_that_lead_to_witnesses(
        examples_proxy, open_ui, tmp_path, viewport):
    proxy = examples_proxy("force-401-first-business.json5", "hold-refresh-until-logout.json5", capture=True)
    tab = open_ui(proxy.ui, viewport=viewport)
    # Held long enough that requests slowed by a loaded machine (20 ms each) still draw thinner
    # than a bar at 420 px, so the lanes compress the idle stretch whatever the load.
    race_through_a_held_refresh(proxy, held_ms=1500)
    lanes = tab.page.locator("#lanes")
    expect(lanes.locator('svg g.lane[data-lineage="L2"]')).to_have_count(1, timeout=WAIT_MS)
    # Labelled lanes: the lineage and its account (the login's username, which the capture keeps).
    for lineage, account in (("L1", "alice"), ("L2", "bob")):
        lane = lanes.locator(f'svg g.lane[data-lineage="{lineage}"]')
        expect(lane.locator("text.lane-label")).to_have_text(lineage)
        expect(lane.locator("text.lane-account")).to_have_text(account, timeout=WAIT_MS)
    # A time axis whose idle stretch (the held refresh) is a labelled scale break.
    axis = lanes.locator("svg g.axis")
    expect(axis.locator("text.tick")).not_to_have_count(0)
    assert axis.locator("text.tick").count() >= 3, axis.locator("text.tick").all_text_contents()
    breaks = axis.locator("g.axis-break text")
    expect(breaks).not_to_have_count(0)
    skipped = [float(re.fullmatch(r"([\d.]+) (ms|s) skipped", text).group(1)) *
               (1000 if text.endswith(" s skipped") else 1) for text in breaks.all_text_contents()]
    assert max(skipped) >= 500, breaks.all_text_contents()
    # A legend for bars, boundaries and violations.
    legend = tab.page.locator("#lanes-legend")
    for item in ("login", "refresh", "logout", "business", "copy", "failed", "held", "logout boundary",
                 "tokens replaced", "violation"):
        expect(legend.locator("li", has_text=re.compile(f"^{item}$"))).to_have_count(1)
    # Every bar readable; the held refresh does not fill its lane.
    drawable = tab.page.evaluate("""() => {
        const axis = document.querySelector("#lanes svg g.axis line.baseline").getBoundingClientRect();
        return axis.width;
    }""")
    boxes = bar_boxes(tab)
    assert boxes and all(box["width"] >= MIN_BAR_PX - 0.01 for box in boxes), boxes
    (refresh,) = [box for box in boxes if "refresh" in box["classes"]]
    assert refresh["width"] <= drawable * 0.5, (refresh, drawable)
    expect(lanes.locator("rect.held")).not_to_have_count(0)
    # Violations from `faultline check`: a marker in L1 that selects the offending request and lists
    # the check's witnesses, each one leading to its event.
    last = proxy.wait_for_event("request.received", lineage="L2", path="/v1/me")
    proxy.wait_for_event("response.delivered", flow=last["flow"])
    report_path, report = check_report(proxy, tmp_path)
    (violation,) = [v for v in report["violations"] if v["clause"] == "logout-boundary"]
    tab.page.locator("#check-report").set_input_files(str(report_path))
    marker = lanes.locator(f'svg g.lane[data-lineage="{violation["lineage"]}"] a.violation-marker')
    expect(marker).not_to_have_count(0, timeout=WAIT_MS)
    index = report["violations"].index(violation)
    marker = lanes.locator(f'a.violation-marker[data-violation="{index}"]')
    offending = [entry for entry in violation["timeline"] if entry["marker"] == "offending"][0]["seq"]
    marker.click()
    detail = tab.page.locator("#detail")
    expect(detail.locator(".violation")).to_contain_text("logout-boundary", timeout=WAIT_MS)
    expect(detail.locator(".violation")).to_contain_text(violation["summary"])
    witnesses = detail.locator(".violation a.witness")
    expect(witnesses).to_have_count(len(violation["witnesses"]))
    expect(detail.locator(f'tr.event.witness[data-seq="{offending}"]')).to_have_count(1)
    offending_flow = proxy.wait_for_event("request.received", where=lambda event: event["seq"] == offending)["flow"]
    expect(tab.row(offending_flow)).to_have_class(re.compile(r"\bselected\b"))
    # A witness of another flow leads to that flow.
    first = violation["witnesses"][0]
    detail.locator(f'.violation a.witness[data-seq="{first}"]').click()
    expect(detail.locator(f'tr.event[data-seq="{first}"]')).to_have_class(re.compile(r"\bwitness\b"), timeout=WAIT_MS)
    look(tab, tmp_path, f"lanes-{viewport['width']}")


def test_without_a_capture_the_lane_says_which_login_opened_it(examples_proxy, open_ui, tmp_path):
    """The trace names no account: without --capture the lane shows its login's flow instead."""
    proxy = examples_proxy()
    tab = open_ui(proxy.ui, viewport=WIDE)
    log_in(proxy.client, "alice")
    login = proxy.wait_for_event("lineage.login", lineage="L1")["flow"]
    lane = tab.page.locator('#lanes svg g.lane[data-lineage="L1"]')
    expect(lane.locator("text.lane-account")).to_have_text(f"login #{login}", timeout=WAIT_MS)
    assert PASSWORD not in tab.page.content()
    look(tab, tmp_path, "lane-without-capture")


# -- 7. the events table and the flow list's columns -----------------------------------------------


def lines_of(tab, selector):
    """How many lines each matching element's text is drawn on (from its text's line boxes)."""
    return tab.page.evaluate("""(selector) => [...document.querySelectorAll(selector)].map((cell) => {
        const range = document.createRange();
        range.selectNodeContents(cell);
        const tops = new Set([...range.getClientRects()].map((rect) => Math.round(rect.top)));
        return [cell.textContent, tops.size];
    })""", selector)


@pytest.mark.parametrize("viewport", VIEWPORTS)
def test_events_keep_their_names_whole_and_the_flow_list_shows_size_type_and_rules(
        examples_proxy, open_ui, tmp_path, viewport):
    proxy = examples_proxy("force-401-first-business.json5")
    tab = open_ui(proxy.ui, viewport=viewport)
    bearer, _ = log_in(proxy.client, "alice")
    for _ in range(3):  # the example forces a 401 on the first three business requests
        assert proxy.client.get("/v1/me", headers=bearer).status_code == 401
    created = proxy.client.post("/jobs")
    assert created.status_code == 201
    jobs, forced = flow_of(proxy, "/jobs"), flow_of(proxy, "/v1/me")
    # The Size and Type of an answer.
    headers = [text.strip() for text in tab.page.locator("#flows thead th").all_text_contents()]
    assert "Size" in headers and "Type" in headers, headers
    row = tab.row(jobs)
    expect(row.locator("td.status")).to_have_text("201", timeout=WAIT_MS)
    if viewport is WIDE:
        expect(row.locator("td.size")).to_have_text(f"{len(created.content)} B")
        expect(row.locator("td.type")).to_have_text("json")
        expect(row.locator("td.type")).to_have_attribute("title", "application/json")
        # The fired rule whole, not cut with an ellipsis.
        rules = tab.row(forced).locator("td.rules")
        expect(rules).to_have_text("force-401-first-business/expire-first-three", timeout=WAIT_MS)
        assert rules.evaluate("(cell) => cell.scrollWidth <= cell.clientWidth"), "the rule's name is cut"
        hold_header = tab.page.locator("#flows thead th", has_text="Hold")
        scroller = tab.page.locator("#flows-panel .scroll").bounding_box()
        box = hold_header.bounding_box()
        assert box["x"] + box["width"] <= scroller["x"] + scroller["width"] + 1, (box, scroller)
    # The events of a flow, each name on one line.
    tab.row(forced).click()
    expect(tab.page.locator("#detail table.events tr.event")).not_to_have_count(0, timeout=WAIT_MS)
    for name, lines in lines_of(tab, "#detail table.events td.name"):
        assert lines == 1, f"the event name {name!r} is broken over {lines} lines"
    for seq, lines in lines_of(tab, "#detail table.events td.seq"):
        assert lines == 1, f"the seq {seq!r} is broken over {lines} lines"
    look(tab, tmp_path, f"events-{viewport['width']}")

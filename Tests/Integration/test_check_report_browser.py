"""`faultline check --format html` as a person sees it: every trace `faultline demo --all` keeps
(the correct client through each race and every broken variant), checked against the demo's
contract and opened from disk in Chromium (Debian's, driven by Playwright; harness/browser.py).
The browser draws one `violation-timeline` group per violation of the JSON report, in the
report's order of clauses, with JavaScript off as well as on; the page loads nothing but itself;
a failing report's screenshot is a picture of a page's width. A copy of a report with a timeline
removed or relabelled is caught, so the comparison cannot pass on what it does not see."""
import os
import re
import struct

import pytest

from harness.check_reports import Report, demo_reports

TIMELINES = "svg g.violation-timeline"

pytestmark = pytest.mark.timeout(180)  # the demo, 40 checks and 40 page loads in one browser


@pytest.fixture(scope="module")
def reports(faultline_binary, tmp_path_factory):
    """Every trace of `faultline demo --all --traces DIR`, checked: [Report], in the demo's order."""
    return demo_reports(faultline_binary, tmp_path_factory.mktemp("demo-all"))


def drawn_clauses(page):
    """The `data-clause` of every timeline group the browser laid out, in document order; each
    group must have a box of its own (drawn, not only parsed)."""
    groups = page.locator(TIMELINES)
    clauses = []
    for index in range(groups.count()):
        group = groups.nth(index)
        box = group.bounding_box()
        assert box and box["width"] > 0 and box["height"] > 0, f"timeline {index + 1} is not drawn: {box}"
        clauses.append(group.get_attribute("data-clause"))
    return clauses


def assert_drawn_as_listed(tab, report):
    """Opens the report's page in `tab` and compares what Chromium drew with the JSON report."""
    url = tab.open(report.html)
    clauses = drawn_clauses(tab.page)
    listed = [violation["clause"] for violation in report.violations]
    assert len(clauses) == len(listed), \
        f"{report.name}: the browser draws {len(clauses)} timelines for {len(listed)} violations"
    assert clauses == listed, f"{report.name}: timelines {clauses}, report {listed}"
    assert tab.requested == [url], f"{report.name}: the page asked for more than itself: {tab.requested}"


def test_the_demo_gives_the_browser_failing_reports(reports):
    """Every broken variant's report lists violations and every correct run's none, so the pages
    below are not empty ones."""
    failing = [report.name for report in reports if report.violations]
    assert failing, "no report lists a violation: the browser tests would prove nothing"
    for report in reports:
        assert bool(report.violations) == report.broken_variant, (report.name, report.violations)
        assert report.code == (1 if report.violations else 0), (report.name, report.code)


@pytest.mark.parametrize("javascript", [True, False], ids=["javascript-on", "javascript-off"])
def test_chromium_draws_one_timeline_per_violation(chromium, reports, tmp_path, javascript):
    """Opened from disk, each report draws one timeline group per violation of its JSON report,
    clauses in the same order, and requests nothing but its own file; with JavaScript off (the
    context is first shown to run no script) it draws the same."""
    if not javascript:
        probe = tmp_path / "script.html"
        probe.write_text('<!DOCTYPE html><p id="p">off</p><script>document.getElementById("p").textContent = "on"'
                         "</script>\n", encoding="utf-8")
        tab = chromium.new_page(java_script_enabled=False)
        tab.open(str(probe))
        assert tab.page.locator("#p").text_content() == "off", "java_script_enabled=False ran the page's script"
    drawn = 0
    for report in reports:
        tab = chromium.new_page(java_script_enabled=javascript)
        assert_drawn_as_listed(tab, report)
        assert tab.page.locator("script").count() == 0, f"{report.name}: the report holds a script"
        verdict = "failed" if report.violations else "passed"
        assert tab.page.locator(f"p.verdict.{verdict}").count() == 1, f"{report.name}: no {verdict} verdict"
        drawn += len(report.violations)
        tab.close()
    assert drawn > 0


def test_a_failing_report_screenshots_as_a_page_wide_picture(browser_page, reports, tmp_path):
    """The report with the most violations, screenshotted whole: a PNG at least 800 pixels wide
    and taller than the window, since its timelines fill more than one screen."""
    report = max(reports, key=lambda report: len(report.violations))
    assert report.violations, report.name
    assert_drawn_as_listed(browser_page, report)
    target = tmp_path / f"{report.name}.png"
    browser_page.page.screenshot(path=str(target), full_page=True)
    data = target.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR", data[:16]
    width, height = struct.unpack(">II", data[16:24])
    viewport = browser_page.page.viewport_size
    assert width >= 800 and width == viewport["width"], (width, viewport)
    assert height > viewport["height"], f"{len(report.violations)} timelines in {height} pixels"
    assert len(data) > 20_000, f"a {width}x{height} screenshot of {len(data)} bytes is nearly blank"


@pytest.mark.parametrize("mutation", ["timeline-removed", "clause-relabelled"])
def test_the_comparison_catches_a_broken_page(chromium, reports, tmp_path, mutation):
    """A copy of a failing report with its first picture removed, or its last timeline's clause
    renamed, fails `assert_drawn_as_listed`: the count and the order are really compared."""
    report = next(report for report in reports if report.violations)
    page = open(report.html, encoding="utf-8").read()
    if mutation == "timeline-removed":
        broken, replaced = re.subn(r"<svg\b.*?</svg>\n", "", page, count=1, flags=re.DOTALL)
        expected = "timelines for"
    else:
        last = page.rindex('class="violation-timeline" data-clause="')
        start = last + len('class="violation-timeline" data-clause="')
        broken, replaced = page[:start] + "not-" + page[start:], 1
        expected = "timelines ["
    assert replaced == 1
    copy = tmp_path / os.path.basename(report.html)
    copy.write_text(broken, encoding="utf-8")
    mutant = Report(report.name, report.code, report.violations, str(copy))
    with pytest.raises(AssertionError, match=re.escape(expected)):
        assert_drawn_as_listed(chromium.new_page(), mutant)

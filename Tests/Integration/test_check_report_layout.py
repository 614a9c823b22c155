"""`faultline check --format html` laid out by Chromium at a desktop's width (1280 px) and a phone's
(420 px), measured with the browser's own boxes (issue 20, item 8): every demo report fits its
window (no element wider than its container, no sideways scrolling, each picture scaled to its
card with labels still at least 8 pixels high, and scrolled inside its card in a window too narrow
for that); no text node prints `null`; each violation's
sentence is printed once; no label is crossed by a boundary line or covers another label; the x
axis is time to scale (bars and dots sit where their time is, measured against the ticks) with the
seq of each event as labels; an idle gap is cut short and labelled with its length. Screenshots of
each page and of its first picture are written beside the pages (their folder is printed)."""
import os
import re

import pytest

from harness.check_reports import checked_report, demo_reports
from harness.layout import null_texts, overflowing, scrolling, text_count

pytestmark = pytest.mark.timeout(240)  # the demo, 42 checks and 84 page loads

VIEWPORTS = {"desktop": 1280, "phone": 420}
TICK_LABEL = re.compile(r"^\d+(\.\d+)? (s|ms|µs|ns)$")

# Every measurement of one picture, in CSS pixels of the page.
_PICTURES = """() => [...document.querySelectorAll('svg.faultline-timeline')].map((svg) => {
  const s = svg.getBoundingClientRect();
  const scale = s.width / svg.viewBox.baseVal.width;
  const box = (el) => { const r = el.getBoundingClientRect();
                        return {left: r.left, right: r.right, top: r.top, bottom: r.bottom}; };
  const figure = svg.parentElement;
  const card = figure.getBoundingClientRect();
  const axis = svg.querySelector('g.fl-time-axis');
  return {
    clause: svg.querySelector('g.violation-timeline').getAttribute('data-clause'),
    box: box(svg), scale,
    figure: {left: card.left + figure.clientLeft, right: card.left + figure.clientLeft + figure.clientWidth},
    pxPerNs: axis ? parseFloat(axis.getAttribute('data-px-per-ns')) * scale : null,
    texts: [...svg.querySelectorAll('text')].map((t) => ({
      text: t.textContent, cls: t.getAttribute('class'), ...box(t),
      fontPx: parseFloat(getComputedStyle(t).fontSize) * scale})),
    boundaries: [...svg.querySelectorAll('g.fl-boundary line')].map(box),
    ticks: [...svg.querySelectorAll('g.fl-tick')].map((g) => ({
      ns: Number(g.getAttribute('data-ns')), x: box(g.querySelector('line')).left,
      label: g.querySelector('text') ? g.querySelector('text').textContent : null})),
    breaks: [...svg.querySelectorAll('g.fl-break')].map((g) => ({
      from: Number(g.getAttribute('data-from-ns')), to: Number(g.getAttribute('data-to-ns')),
      label: g.querySelector('text').textContent})),
    bars: [...svg.querySelectorAll('g.fl-request')].map((g) => ({
      ns: Number(g.getAttribute('data-start-ns')), x: box(g.querySelector('rect')).left,
      endNs: g.hasAttribute('data-end-ns') ? Number(g.getAttribute('data-end-ns')) : null,
      right: box(g.querySelector('rect')).right})),
    marks: [...svg.querySelectorAll('g.fl-mark')].map((g) => {
      const c = box(g.querySelector('circle'));
      return {ns: Number(g.getAttribute('data-ns')), x: (c.left + c.right) / 2}; }),
    seqLabels: [...svg.querySelectorAll('g.fl-seq-label text')].map((t) => t.textContent),
  };
})"""


@pytest.fixture(scope="module")
def reports(faultline_binary, tmp_path_factory):
    """Every trace of `faultline demo --all`, checked against the demo's contract: [Report]."""
    return demo_reports(faultline_binary, tmp_path_factory.mktemp("demo-layout"))


@pytest.fixture(scope="module")
def idle_report(faultline_binary, reports, tmp_path_factory):
    """The late-refresh variant's trace with the client idle for 1.5 s before it used the late
    token (every later event's `mono_ns` moved on by 1.5 s, as a client that waited would leave
    it), checked: its first violation spans two bursts 1.5 s apart."""
    folder = tmp_path_factory.mktemp("idle")
    report = next(report for report in reports if report.name == "late-refresh-adopt-late-tokens")
    offending = next(event["seq"] for event in report.violations[0]["timeline"] if event["marker"] == "offending")
    trace = os.path.join(os.path.dirname(report.html), "traces", report.name + ".jsonl")
    lines = open(trace, encoding="utf-8").read().splitlines()
    shifted = []
    for line in lines:
        seq = re.search(r'"seq":(\d+),', line)
        if seq and int(seq.group(1)) >= offending:
            line = re.sub(r'"mono_ns":(\d+)', lambda m: f'"mono_ns":{int(m.group(1)) + 1_500_000_000}', line)
        shifted.append(line)
    copy = os.path.join(str(folder), "late-refresh-idle.jsonl")
    with open(copy, "w", encoding="utf-8") as file:
        file.write("\n".join(shifted) + "\n")
    idle = checked_report(faultline_binary, copy, str(folder))
    assert [v["summary"] for v in idle.violations] == [v["summary"] for v in report.violations], \
        "moving time on changes no verdict"
    return idle


def open_at(chromium, report, width):
    """`report`'s page in a fresh tab `width` pixels wide: the tab."""
    tab = chromium.new_page(viewport={"width": width, "height": 900})
    tab.open(report.html)
    return tab


def pictures(tab):
    return tab.page.evaluate(_PICTURES)


def intersects(a, b, margin=0.5):
    return (a["left"] < b["right"] - margin and b["left"] < a["right"] - margin
            and a["top"] < b["bottom"] - margin and b["top"] < a["bottom"] - margin)


def assert_to_scale(name, picture):
    """Every tick, bar start and dot is where its time puts it: within one segment (the stretches
    between breaks) x grows by the same pixels per nanosecond, the scale the picture announces."""
    assert picture["pxPerNs"] is not None, f"{name}: no time axis"
    cuts = sorted(picture["breaks"], key=lambda cut: cut["from"])

    def segment(ns):
        return sum(1 for cut in cuts if cut["to"] <= ns)

    ticks = picture["ticks"]
    assert len([tick for tick in ticks if tick["label"]]) >= 2 or cuts, f"{name}: fewer than two labelled ticks"
    for tick in ticks:
        assert tick["label"] is None or TICK_LABEL.match(tick["label"]), f"{name}: tick label {tick['label']!r}"
    scale = picture["pxPerNs"]
    assert scale > 0, name
    anchors = {}
    for tick in ticks:
        anchors.setdefault(segment(tick["ns"]), tick)
    assert set(anchors) == set(range(len(cuts) + 1)), f"{name}: a stretch of time without a tick"
    points = ticks + picture["bars"] + picture["marks"]
    for point in points:
        anchor = anchors[segment(point["ns"])]
        expected = anchor["x"] + (point["ns"] - anchor["ns"]) * scale
        assert abs(point["x"] - expected) < 1.0, \
            f"{name}: something at {point['ns']} ns is drawn at x {point['x']:.1f}, its time puts it at {expected:.1f}"
    for bar in picture["bars"]:
        if bar["endNs"] is not None:
            end = anchors[segment(bar["endNs"])]
            expected = max(end["x"] + (bar["endNs"] - end["ns"]) * scale, bar["x"] + 6 * picture["scale"])
            assert abs(bar["right"] - expected) < 1.0, f"{name}: a bar ends at {bar['right']:.1f}, not {expected:.1f}"
    return len(points)


def assert_labels_clear(name, picture):
    """No label is crossed by a boundary line, none covers another, none is cut at the edge, and
    none is drawn smaller than 8 pixels."""
    texts = [text for text in picture["texts"] if text["text"]]
    for text in texts:
        assert text["fontPx"] >= 8, f"{name}: '{text['text']}' is {text['fontPx']:.1f} px high"
    for line in picture["boundaries"]:
        x = (line["left"] + line["right"]) / 2
        for text in texts:
            if text["left"] < x < text["right"] and text["top"] < line["bottom"] and line["top"] < text["bottom"]:
                raise AssertionError(f"{name}: the boundary at x {x:.1f} runs through '{text['text']}' "
                                     f"[{text['left']:.1f}, {text['right']:.1f}]")
    for index, first in enumerate(texts):
        for second in texts[index + 1:]:
            assert not intersects(first, second), f"{name}: '{first['text']}' and '{second['text']}' overlap"
    return len(picture["boundaries"])


@pytest.mark.parametrize("viewport", VIEWPORTS, ids=list(VIEWPORTS))
def test_every_report_fits_its_window(chromium, reports, viewport):
    """At 1280 and at 420 pixels, no element of any report is wider than its container, nothing
    scrolls sideways (each picture shrinks to its card), no text node prints `null`, and each
    violation's sentence is printed once."""
    problems = []
    failing = 0
    for report in reports:
        tab = open_at(chromium, report, VIEWPORTS[viewport])
        problems += [f"{report.name}: {problem}" for problem in overflowing(tab.page)]
        problems += [f"{report.name}: {box} scrolls sideways" for box in scrolling(tab.page)]
        problems += [f"{report.name}: prints {text!r}" for text in null_texts(tab.page)]
        for violation in report.violations:
            copies = sum(1 for other in report.violations if other["summary"] == violation["summary"])
            printed = text_count(tab.page, violation["summary"])
            if printed != copies:
                problems.append(f"{report.name}: '{violation['summary']}' is printed {printed} times, not {copies}")
        drawn = pictures(tab)
        assert len(drawn) == len(report.violations), report.name
        for picture in drawn:
            box, card = picture["box"], picture["figure"]
            if box["right"] > card["right"] + 0.5 or box["left"] < card["left"] - 0.5:
                problems.append(f"{report.name}: a picture [{box['left']}, {box['right']}] overflows its card "
                                f"[{card['left']}, {card['right']}]")
        failing += bool(report.violations)
        tab.close()
    assert problems == [], f"at {viewport}:\n" + "\n".join(problems)
    assert failing >= 11, "every broken variant's report was measured"


@pytest.mark.parametrize("viewport", VIEWPORTS, ids=list(VIEWPORTS))
def test_labels_keep_clear_of_boundaries_and_each_other(chromium, reports, viewport):
    """In every picture of every report, measured at both widths."""
    boundaries = 0
    for report in (report for report in reports if report.violations):
        tab = open_at(chromium, report, VIEWPORTS[viewport])
        for number, picture in enumerate(pictures(tab), start=1):
            boundaries += assert_labels_clear(f"{report.name} #{number} at {viewport}", picture)
        tab.close()
    assert boundaries >= 5, "the demo's reports draw boundaries (logouts, failed dependencies)"


@pytest.mark.parametrize("viewport", VIEWPORTS, ids=list(VIEWPORTS))
def test_the_x_axis_is_time_to_scale_with_seq_labels(chromium, reports, viewport):
    """Every picture has a time axis with its ticks in s, ms or µs; every tick, bar and dot sits
    where its time puts it; every witness of the JSON report is labelled `seq N`."""
    points = 0
    for report in (report for report in reports if report.violations):
        tab = open_at(chromium, report, VIEWPORTS[viewport])
        for violation, picture in zip(report.violations, pictures(tab)):
            name = f"{report.name} {violation['clause']} at {viewport}"
            points += assert_to_scale(name, picture)
            for seq in violation["witnesses"]:
                assert f"seq {seq}" in picture["seqLabels"], f"{name}: seq {seq} unlabelled"
        tab.close()
    assert points > 50


@pytest.mark.parametrize("viewport", VIEWPORTS, ids=list(VIEWPORTS))
def test_an_idle_gap_is_cut_short_and_labelled(chromium, idle_report, viewport, tmp_path):
    """1.5 s of idle time in a picture of a few milliseconds: the axis breaks, the break says
    `gap 1.5 s`, both stretches keep one scale, and the page still fits with its labels clear."""
    tab = open_at(chromium, idle_report, VIEWPORTS[viewport])
    assert overflowing(tab.page) == []
    first = pictures(tab)[0]
    assert [cut["label"] for cut in first["breaks"]] == ["gap 1.5 s"], first["breaks"]
    assert_to_scale(f"idle at {viewport}", first)
    assert_labels_clear(f"idle at {viewport}", first)
    tab.page.screenshot(path=str(tmp_path / f"idle-{viewport}.png"), full_page=True)


def test_a_window_too_narrow_for_legible_labels_scrolls_the_picture_in_its_card(chromium, reports, tmp_path):
    """At 300 pixels a picture shrunk to its card would have labels under 8 pixels: it stops
    shrinking there and its card scrolls sideways, the whole picture reachable, while nothing
    else on the page overflows and the page itself does not scroll."""
    report = max(reports, key=lambda report: len(report.violations))
    tab = open_at(chromium, report, 300)
    assert overflowing(tab.page) == []
    scrollers = scrolling(tab.page)
    assert [box["tag"] for box in scrollers] == ["figure"] * len(report.violations), scrollers
    for number, picture in enumerate(pictures(tab), start=1):
        assert min(text["fontPx"] for text in picture["texts"] if text["text"]) >= 8 - 0.01, (number, picture)
    tab.page.evaluate("() => document.querySelectorAll('figure.picture').forEach((f) => f.scrollLeft = f.scrollWidth)")
    for number, picture in enumerate(pictures(tab), start=1):
        assert abs(picture["box"]["right"] - picture["figure"]["right"]) < 1, f"picture {number} cannot be scrolled whole"
    tab.page.screenshot(path=str(tmp_path / f"{report.name}-300.png"), full_page=True)


@pytest.mark.parametrize("viewport", VIEWPORTS, ids=list(VIEWPORTS))
def test_screenshots_of_each_failing_report(chromium, reports, viewport, tmp_path):
    """A full-page screenshot of each failing report and one of its first picture, as PNGs as wide
    as the window and the card, kept in tmp_path for a person to look at."""
    for report in (report for report in reports if report.violations):
        tab = open_at(chromium, report, VIEWPORTS[viewport])
        page = tmp_path / f"{report.name}-{viewport}.png"
        tab.page.screenshot(path=str(page), full_page=True)
        figure = tmp_path / f"{report.name}-{viewport}-picture.png"
        tab.page.locator("figure.picture").first.screenshot(path=str(figure))
        for shot in (page, figure):
            data = shot.read_bytes()
            assert data[:8] == b"\x89PNG\r\n\x1a\n", shot
        width = int.from_bytes(page.read_bytes()[16:20], "big")
        assert width == VIEWPORTS[viewport], (report.name, width)
        tab.close()
    print(f"screenshots in {tmp_path}")

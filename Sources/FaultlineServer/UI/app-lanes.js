// The web UI's app.js, part 4 of 5: the lineage swimlanes (a time axis that skips idle
// stretches, lanes labelled with lineage and account, requests stacked where they overlap) and the
// violations of a `faultline check --format json` report loaded into the page, which lead to
// their witnesses.

// MARK: Lineage swimlanes
//
// Like the waterfall of Chrome DevTools' Network panel and Proxyman's timeline: a time axis with
// ticks and grid lines on top, one bar per request, concurrent requests on rows of their own. A
// lane is a lineage (one login and the refreshes after it). Time is to scale, except that a
// stretch in which nothing happens (a request waiting on a hold, a client idle between two
// steps) becomes a scale break of a fixed width when drawing it to scale would leave the
// requests as slivers: a few milliseconds of requests and a second of waiting both stay legible.

const LANES = { minBar: 6, row: 12, bar: 9, pad: 5, laneMin: 36, axis: 36, breakWidth: 26, right: 14, idle: 2e6 };
let checkReport = null;
let selectedViolation = null;

function flowEnd(flow) {
  return flow.end ?? lastNanos;
}

function laneFlows(lineage) {
  return lineage.flows.filter((flow) => flow.start !== undefined);
}

// The pieces of the axis: time to scale, and breaks for idle stretches. When a typical request
// would be drawn thinner than a bar may be, a stretch between two consecutive instants longer
// than twice `cap` (eight typical requests, at least 2 ms) keeps cap/2 to scale on each side, and
// the rest (at least `cap`) is a break.
function timeScale(instants, durations, left, right) {
  const times = [...new Set(instants)].sort((a, b) => a - b);
  if (times.length === 1) times.push(times[0] + 1e6);
  const from = times[0], to = times[times.length - 1];
  const sorted = durations.filter((nanos) => nanos > 0).sort((a, b) => a - b);
  const typical = Math.max(sorted.length ? sorted[Math.floor(sorted.length / 2)] : to - from, 2e5);
  const room = right - left;
  const compress = (room / (to - from)) * typical < LANES.minBar * 1.5;
  const cap = Math.max(LANES.idle, 8 * typical);
  const plan = [];
  let scaled = 0, breaks = 0;
  for (let index = 0; index + 1 < times.length; index += 1) {
    const a = times[index], b = times[index + 1];
    if (compress && b - a > 2 * cap) {
      plan.push({ t0: a, t1: a + cap / 2 }, { t0: a + cap / 2, t1: b - cap / 2, skipped: true }, { t0: b - cap / 2, t1: b });
      scaled += cap;
      breaks += 1;
    } else {
      plan.push({ t0: a, t1: b });
      scaled += b - a;
    }
  }
  const breakWidth = breaks * LANES.breakWidth > room / 2 ? Math.max(8, room / 2 / breaks) : LANES.breakWidth;
  const perNano = Math.max(room - breaks * breakWidth, 1) / Math.max(scaled, 1);
  let x = left;
  for (const piece of plan) {
    piece.x0 = x;
    x += piece.skipped ? breakWidth : (piece.t1 - piece.t0) * perNano;
    piece.x1 = x;
  }
  const at = (nanos) => {
    let low = 0, high = plan.length - 1;
    if (nanos <= plan[0].t0) return plan[0].x0;
    if (nanos >= plan[high].t1) return plan[high].x1;
    while (low < high) {
      const middle = (low + high) >> 1;
      if (plan[middle].t1 < nanos) low = middle + 1; else high = middle;
    }
    const piece = plan[low];
    return piece.t1 === piece.t0 ? piece.x0 : piece.x0 + ((nanos - piece.t0) / (piece.t1 - piece.t0)) * (piece.x1 - piece.x0);
  };
  return { from, plan, at, perNano, left, right };
}

function durationLabel(nanos, step) {
  const unit = step >= 1e9 || nanos >= 1e10 ? "s" : "ms";
  const size = unit === "s" ? 1e9 : 1e6;
  const digits = Math.max(0, Math.min(3, Math.ceil(-Math.log10((step || nanos) / size) + 1e-9)));
  return `${(nanos / size).toFixed(digits)} ${unit}`;
}

function niceStep(nanos) {
  const power = 10 ** Math.floor(Math.log10(nanos));
  for (const factor of [1, 2, 5, 10]) if (factor * power >= nanos) return factor * power;
  return 10 * power;
}

// Ticks for each stretch between breaks, labelled with the time since the first instant drawn.
function drawAxis(picture, scale, height) {
  const axis = svg("g", { class: "axis" });
  const baseline = LANES.axis - 3;
  axis.append(svg("line", { class: "baseline", x1: scale.left, x2: scale.right, y1: baseline, y2: baseline }));
  const step = niceStep(64 / scale.perNano);
  let lastRight = -Infinity;
  const label = (x, text) => {
    const half = text.length * 3.2 + 2;
    const center = Math.min(Math.max(x, scale.left + half), scale.right - half);
    if (center - half < lastRight + 6) return;
    lastRight = center + half;
    axis.append(svg("text", { class: "tick", x: center, y: baseline - 5, "text-anchor": "middle" }, text));
  };
  let run = null;
  const runs = [];
  for (const piece of scale.plan) {
    if (piece.skipped) { run = null; continue; }
    if (!run) { run = { t0: piece.t0, t1: piece.t1 }; runs.push(run); } else run.t1 = piece.t1;
  }
  for (const stretch of runs) {
    // Where time resumes after a break is labelled first, then the round values.
    const first = Math.ceil((stretch.t0 - scale.from) / step) * step + scale.from;
    const times = [stretch.t0];
    for (let t = first; t <= stretch.t1; t += step) if (t !== stretch.t0) times.push(t);
    for (const t of times) {
      const x = scale.at(t);
      axis.append(svg("line", { class: "grid", x1: x, x2: x, y1: baseline, y2: height }));
      label(x, durationLabel(t - scale.from, step));
    }
  }
  // The longest skips are labelled first; a label that would overlap one already placed is left
  // to its mark's tooltip.
  const placed = [];
  const skips = scale.plan.filter((piece) => piece.skipped).sort((a, b) => (b.t1 - b.t0) - (a.t1 - a.t0));
  for (const piece of skips) {
    const mark = svg("g", { class: "axis-break" });
    const text = `${durationLabel(piece.t1 - piece.t0, 0)} skipped`;
    const middle = (piece.x0 + piece.x1) / 2;
    const zigzag = `M${piece.x0},${baseline} l3,-4 l4,8 l4,-8 l4,8 l3,-4 L${piece.x1},${baseline}`;
    mark.append(svg("path", { d: zigzag, class: "zigzag" }), svg("title", {}, `${text}: nothing happened in these lanes for that long`));
    const half = text.length * 2.9 + 2;
    const center = Math.min(Math.max(middle, scale.left + half), scale.right - half);
    if (placed.every(([from, to]) => center + half + 4 < from || center - half - 4 > to)) {
      placed.push([center - half, center + half]);
      mark.append(svg("text", { class: "break-label", x: center, y: 10, "text-anchor": "middle" }, text));
    }
    axis.append(mark);
    picture.append(svg("rect", { class: "break-band", x: piece.x0, y: baseline, width: piece.x1 - piece.x0, height: height - baseline }));
  }
  picture.prepend(axis);
}

// The account a lane belongs to. The trace names none: with --capture, the login's request body
// is in it, and a password grant names its account in `username` (RFC 6749 §4.3.2).
function laneAccount(lineage) {
  const opened = lineage.opened && flows.get(lineage.opened.flow);
  if (!opened) return { text: "no login seen", title: "the page has not seen the request that opened this lineage" };
  const account = accountOf(opened);
  if (account) return { text: account, title: `the username of flow ${opened.id}, the ${lineage.opened.by} that opened ${lineage.name}` };
  return { text: `${lineage.opened.by} #${opened.id}`,
    title: `opened by flow ${opened.id}; the trace names no account (with faultline run --capture, the login's username shows here)` };
}

function accountOf(flow) {
  const content = flow.requestContent;
  if (!content || content.encoding !== "utf8" || typeof content.data !== "string") return null;
  const text = content.data.trim();
  if (text.startsWith("{")) {
    try {
      const body = JSON.parse(text);
      return typeof body.username === "string" ? body.username : typeof body.email === "string" ? body.email : null;
    } catch (error) {
      return null;
    }
  }
  return new URLSearchParams(text).get("username");
}

function fitText(text, pixels) {
  const most = Math.max(3, Math.floor(pixels / 6.6));
  return text.length <= most ? text : text.slice(0, most - 1) + "…";
}

function barClass(flow) {
  const role = ["login", "refresh", "logout", "business"].includes(flow.role) ? flow.role : "other";
  const failed = /^[45]/.test(flow.status) || (flow.status && !/^\d/.test(flow.status));
  return `bar ${role}${failed ? " failed" : ""}${flow.copyOf === undefined ? "" : " copy"}`;
}

function renderLanes() {
  const container = $("lanes");
  const shown = [...lineages.values()].filter((lineage) => laneFlows(lineage).length || lineage.logouts.length || lineage.refreshes.length);
  if (shown.length === 0) return;
  const instants = [], durations = [];
  for (const lineage of shown) {
    for (const flow of laneFlows(lineage)) {
      instants.push(flow.start, flowEnd(flow));
      durations.push(flowEnd(flow) - flow.start);
      for (const held of flow.holds) instants.push(held.from, held.to ?? flowEnd(flow));
    }
    instants.push(...lineage.logouts, ...lineage.refreshes);
  }
  const markers = violationMarkers();
  for (const marker of markers) instants.push(marker.nanos);
  const width = Math.max(container.clientWidth, 280);
  const labelWidth = width < 600 ? 84 : 120;
  const scale = timeScale(instants.filter(Number.isFinite), durations, labelWidth, width - LANES.right);
  const picture = svg("svg", { width, class: "swimlanes", role: "img", "aria-label": "lineages over time" });
  const hatch = svg("pattern", { id: "held-hatch", width: 6, height: 6, patternUnits: "userSpaceOnUse", patternTransform: "rotate(45)" });
  hatch.append(svg("rect", { width: 3, height: 6, class: "hatch" }));
  picture.append(svg("defs", {}));
  picture.firstChild.append(hatch);
  let top = LANES.axis;
  shown.forEach((lineage, index) => {
    const lane = svg("g", { class: "lane", "data-lineage": lineage.name });
    const rows = [];
    const bars = laneFlows(lineage).map((flow) => {
      const end = Math.max(scale.at(flowEnd(flow)), scale.at(flow.start) + LANES.minBar);
      const x = Math.min(scale.at(flow.start), scale.right - LANES.minBar);
      const right = Math.min(end, scale.right);
      let row = rows.findIndex((used) => used + 2 <= x);
      if (row < 0) { row = rows.length; rows.push(0); }
      rows[row] = Math.max(right, x + LANES.minBar);
      return { flow, x, width: Math.max(right - x, LANES.minBar), row };
    });
    const height = Math.max(LANES.laneMin, LANES.pad * 2 + rows.length * LANES.row + 4);
    lane.append(svg("rect", { class: "lane-bg" + (index % 2 ? " odd" : ""), x: 0, y: top, width, height }));
    const account = laneAccount(lineage);
    const head = svg("g", { class: "lane-head" });
    head.append(svg("title", {}, `${lineage.name}: ${account.title}`), svg("text", { x: 4, y: top + 15, class: "lane-label" }, lineage.name),
      svg("text", { x: 4, y: top + 29, class: "lane-account" }, fitText(account.text, labelWidth - 8)));
    lane.append(head);
    for (const { flow, x, width: barWidth, row } of bars) {
      const y = top + LANES.pad + 4 + row * LANES.row;
      const bar = svg("rect", { x, y, width: barWidth, height: LANES.bar, class: barClass(flow), "data-flow": flow.id });
      bar.append(svg("title", {}, `flow ${flow.id}: ${flow.method} ${flow.path} → ${flow.status || "pending"} · ${durationText(flow)}` +
        (flow.copyOf === undefined ? "" : ` · copy of #${flow.copyOf}`)));
      bar.addEventListener("click", () => select(flow.id));
      lane.append(bar);
      for (const held of flow.holds) {
        const from = Math.max(scale.at(held.from), x), to = Math.min(scale.at(held.to ?? flowEnd(flow)), x + barWidth);
        if (to > from) lane.append(svg("rect", { class: "held", x: from, y, width: to - from, height: LANES.bar }));
      }
    }
    for (const nanos of lineage.refreshes) lane.append(svg("circle", { cx: scale.at(nanos), cy: top + 4, r: 3, class: "refresh-mark" }));
    for (const nanos of lineage.logouts) {
      const x = scale.at(nanos);
      lane.append(svg("line", { x1: x, x2: x, y1: top, y2: top + height, class: "logout-line" }));
    }
    for (const marker of markers.filter((marker) => marker.lineage === lineage.name)) lane.append(violationMarker(marker, scale.at(marker.nanos), top));
    picture.append(lane);
    top += height;
  });
  picture.setAttribute("height", top + 2);
  // The breaks are drawn over the bars, so a bar that crosses one is visibly cut; nothing else
  // can be inside one (they lie between the instants drawn).
  drawAxis(picture, scale, top);
  container.replaceChildren(picture);
}

// MARK: Violations from a check report

function violationMarker(marker, x, top) {
  const link = svg("a", { href: "#violation-" + marker.index, class: "violation-marker" + (selectedViolation === marker.index ? " selected" : ""),
    "data-violation": marker.index, "aria-label": `violation of ${marker.violation.clause}` });
  link.append(svg("path", { d: `M${x - 6},${top + 1} h12 l-6,9 z` }), svg("line", { x1: x, x2: x, y1: top + 9, y2: top + LANES.laneMin - 2 }),
    svg("title", {}, `✗ ${marker.violation.clause}: ${marker.violation.summary}`));
  link.addEventListener("click", (click) => { click.preventDefault(); showViolation(marker.index); });
  return link;
}

function offendingSeq(violation) {
  const timeline = Array.isArray(violation.timeline) ? violation.timeline : [];
  const offending = timeline.find((entry) => entry.marker === "offending");
  if (offending) return offending.seq;
  const witnesses = Array.isArray(violation.witnesses) ? violation.witnesses : [];
  return witnesses[witnesses.length - 1];
}

// Where the page has the event `seq`: its flow and time. Looked up when needed; a report's
// witnesses the page has not seen (yet) are looked up again once more events came.
function locate(seq) {
  if (!checkReport) return null;
  if (checkReport.found.has(seq)) return checkReport.found.get(seq);
  if (checkReport.searchedAt === eventCount) return null;
  for (const flow of flows.values()) {
    for (const event of flow.events) {
      if (typeof event.seq === "number" && checkReport.wanted.has(event.seq)) checkReport.found.set(event.seq, { flow: flow.id, nanos: event.mono_ns });
    }
  }
  checkReport.searchedAt = eventCount;
  return checkReport.found.get(seq) || null;
}

function violationMarkers() {
  if (!checkReport) return [];
  return checkReport.violations.flatMap((violation, index) => {
    const where = locate(offendingSeq(violation));
    return where && violation.lineage ? [{ index, violation, lineage: violation.lineage, nanos: where.nanos, flow: where.flow }] : [];
  });
}

async function loadCheckReport(file) {
  if (!file) return;
  const said = $("check-summary");
  said.hidden = false;
  try {
    const report = JSON.parse(await file.text());
    if (typeof report.format !== "string" || !report.format.startsWith("faultline-contract-report/") || !Array.isArray(report.violations)) {
      throw new Error("not a report of faultline check --format json");
    }
    const wanted = new Set(report.violations.flatMap((violation) => [...(violation.witnesses || []), offendingSeq(violation)]));
    checkReport = { name: file.name, violations: report.violations, wanted, found: new Map(), searchedAt: -1 };
    selectedViolation = null;
    said.className = "";
    renderCheckSummary();
  } catch (error) {
    checkReport = null;
    said.className = "error";
    said.textContent = `${file.name}: ${error.message}`;
  }
  lanesDrawnAt = 0;
  queueRender();
  renderDetail();
}

function renderCheckSummary() {
  const said = $("check-summary");
  const violations = checkReport.violations;
  if (violations.length === 0) {
    said.textContent = `${checkReport.name}: no violation`;
    return;
  }
  said.replaceChildren(...present([`${checkReport.name}: ${violations.length} violation${violations.length === 1 ? "" : "s"}: `,
    violations.map((violation, index) => [index ? ", " : null,
      element("a", { href: "#violation-" + index, class: "violation-link", "data-violation": String(index), text: `✗ ${violation.clause}` + (violation.lineage ? ` (${violation.lineage})` : ""),
        onclick: (click) => { click.preventDefault(); showViolation(index); } })])]));
}

function showViolation(index) {
  selectedViolation = index;
  const where = locate(offendingSeq(checkReport.violations[index]));
  lanesDrawnAt = 0;
  queueRender();
  if (where) select(where.flow); else renderDetail();
  // On a narrow page the detail is below the lanes: bring the violation into view.
  const block = document.querySelector("#detail .violation");
  if (block) block.scrollIntoView({ block: "nearest" });
}

function witnessClass(seq) {
  if (selectedViolation === null || !checkReport) return "";
  const violation = checkReport.violations[selectedViolation];
  if (!(violation.witnesses || []).includes(seq) && offendingSeq(violation) !== seq) return "";
  return offendingSeq(violation) === seq ? " witness offending" : " witness";
}

function showWitness(seq) {
  const where = locate(seq);
  if (!where) return;
  select(where.flow);
  const row = document.querySelector(`#detail tr.event[data-seq="${seq}"]`);
  if (row) row.scrollIntoView({ block: "nearest" });
}

// The violation being looked at, over the flow detail: its clause, the checker's sentence and
// its witnesses, each leading to its event.
function violationBlock() {
  if (selectedViolation === null || !checkReport) return null;
  const violation = checkReport.violations[selectedViolation];
  const offending = offendingSeq(violation);
  const entries = Array.isArray(violation.timeline) && violation.timeline.length
    ? violation.timeline
    : (violation.witnesses || []).map((seq) => ({ seq }));
  return element("div", { class: "violation" },
    element("h3", {}, `✗ ${violation.clause}` + (violation.lineage ? ` · lineage ${violation.lineage}` : ""),
      element("button", { class: "close", "aria-label": "close the violation", text: "×",
        onclick: () => { selectedViolation = null; lanesDrawnAt = 0; queueRender(); renderDetail(); } })),
    element("p", { text: violation.summary || "" }),
    element("ol", { class: "witnesses" }, ...entries.map((entry) => {
      const seen = locate(entry.seq);
      const what = [entry.event, entry.method && `${entry.method} ${entry.path}`, entry.status && `→ ${entry.status}`, entry.note && `(${entry.note})`]
        .filter(Boolean).join(" ");
      return element("li", { class: entry.seq === offending ? "offending" : "" },
        seen ? element("a", { href: "#", class: "witness", "data-seq": String(entry.seq), text: `seq ${entry.seq}`,
          onclick: (click) => { click.preventDefault(); showWitness(entry.seq); } })
          : element("span", { class: "witness unseen", title: "this page has not seen that event", text: `seq ${entry.seq}` }),
        what ? " " + what : null);
    })));
}

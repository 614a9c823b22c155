extension UIAssets {
    /// `/ui/app.js`: builds the flow list from the event stream and drives holds, rules and
    /// scenario state through `/ui/api/`.
    static let script = #"""
// Faultline's web UI: one page over the control API's /ui/api/ namespace (session cookie).
// The flow list is built here from the trace lines that /ui/api/v1/events streams (the recent
// past, then live); holds, rules and scenario state are read from the API when events say they
// changed. No framework and no build step: the proxy serves this file as it is.
"use strict";

const MAX_FLOWS = 5000;
const flows = new Map();
const lineages = new Map();
const marks = [];
let selectedFlow = null;
let droppedTotal = 0;
let eventCount = 0;
let renderQueued = false;
let refreshTimer = null;
let lastNanos = 0;
let lanesDrawnAt = 0;
let lanesTimer = null;
const dirtyFlows = new Set();

const $ = (id) => document.getElementById(id);

function element(tag, attributes, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attributes || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else if (key === "text") node.textContent = value;
    else node.setAttribute(key, value === true ? "" : value);
  }
  for (const child of children) if (child !== null && child !== undefined) node.append(child);
  return node;
}

function svg(tag, attributes, text) {
  const node = document.createElementNS("http://www.w3.org/2000/svg", tag);
  for (const [key, value] of Object.entries(attributes)) node.setAttribute(key, value);
  if (text !== undefined) node.textContent = text;
  return node;
}

async function call(method, path, body) {
  const options = { method, credentials: "same-origin", headers: {} };
  if (body !== undefined) {
    options.headers["Content-Type"] = "application/json";
    options.body = JSON.stringify(body);
  }
  const response = await fetch("/ui/api" + path, options);
  const value = await response.json().catch(() => ({}));
  if (!response.ok) throw new Error(value.error || response.status + " " + response.statusText);
  return value;
}

// MARK: Events

function flowFor(event) {
  let flow = flows.get(event.flow);
  if (!flow) {
    flow = { id: event.flow, conn: event.conn, events: [], rules: [], hold: "", status: "", method: "", url: "" };
    flows.set(event.flow, flow);
    if (flows.size > MAX_FLOWS) forgetOldestFlow();
  }
  return flow;
}

// The page keeps the last MAX_FLOWS flows, so a long run does not grow it without bound.
function forgetOldestFlow() {
  const oldest = flows.values().next().value;
  flows.delete(oldest.id);
  if (oldest.row) oldest.row.remove();
  const lanes = oldest.lineage && lineages.get(oldest.lineage);
  if (lanes && lanes.flows[0] === oldest) lanes.flows.shift();
}

function lineageFor(name) {
  let lineage = lineages.get(name);
  if (!lineage) {
    lineage = { name, flows: [], logouts: [], refreshes: [] };
    lineages.set(name, lineage);
  }
  return lineage;
}

function onEvent(event) {
  if (event.ui === "dropped") {
    droppedTotal += event.count;
    const banner = $("dropped");
    banner.textContent = `${droppedTotal} events dropped (the page fell behind); reload for a full view`;
    banner.hidden = false;
    return;
  }
  if (event.ui === "live") {
    setConnection("live", false);
    return;
  }
  if (typeof event.event !== "string") return;
  eventCount += 1;
  if (typeof event.mono_ns === "number") lastNanos = Math.max(lastNanos, event.mono_ns);
  if (event.flow !== undefined) applyToFlow(flowFor(event), event);
  const kind = event.event;
  if (kind === "mark") {
    marks.push(event);
    renderMarks();
  } else if (kind.startsWith("lineage.") && event.lineage) {
    const lineage = lineageFor(event.lineage);
    const flow = event.flow === undefined ? undefined : flows.get(event.flow);
    if (flow && !flow.lineage) {
      flow.lineage = event.lineage;
      lineage.flows.push(flow);
      dirtyFlows.add(flow);
    }
    if (kind === "lineage.logout") lineage.logouts.push(event.mono_ns);
    if (kind === "lineage.refresh") lineage.refreshes.push(event.mono_ns);
  }
  if (kind.startsWith("hold.") || kind.startsWith("rule") || kind === "rules.reloaded") scheduleRefresh();
}

function applyToFlow(flow, event) {
  flow.events.push(event);
  switch (event.event) {
    case "request.received":
      flow.method = event.method || "";
      flow.url = event.url || event.path || "";
      flow.host = event.host || "";
      flow.path = event.path || "";
      flow.role = event.role || "";
      flow.lineage = event.lineage || "";
      flow.start = event.mono_ns;
      flow.request = event;
      if (flow.role) addRole(flow.role);
      if (flow.lineage) lineageFor(flow.lineage).flows.push(flow);
      break;
    case "response.received":
      flow.upstream = event;
      break;
    case "response.delivered":
      flow.status = String(event.status);
      flow.end = event.mono_ns;
      flow.delivered = event;
      break;
    case "response.body":
      flow.responseContent = event.content;
      break;
    case "request.forwarded":
      if (event.content) flow.requestContent = event.content;
      break;
    case "rule.fired":
      flow.rules.push(event.rule);
      break;
    case "hold.started":
      flow.hold = "held: " + event.name;
      flow.waitingFor = undefined;
      break;
    case "hold.ended":
      flow.hold = "released (" + (event.ended_by || "?") + ")";
      break;
    case "replay.waiting":
      // A replayed answer held for the recorded order (replay serve --order recorded).
      flow.hold = "held: recorded order";
      flow.waitingFor = event.waiting_for || [];
      break;
    case "replay.released":
      flow.hold = "released (recorded order)";
      flow.waitingFor = undefined;
      break;
    case "replay.diverged":
      if (isHeld(flow)) flow.hold = "released (order deadline)";
      flow.waitingFor = undefined;
      break;
    case "flow.aborted":
      // A replayed answer still waiting for the recorded order ends with its flow (a rule's
      // hold says so itself, with hold.ended first).
      if (flow.waitingFor && isHeld(flow)) flow.hold = "ended (flow aborted)";
      flow.waitingFor = undefined;
    // falls through
    case "upstream.error":
    case "protocol.error":
      if (!flow.status) flow.status = event.event;
      flow.end = flow.end || event.mono_ns;
      break;
  }
  dirtyFlows.add(flow);
  if (selectedFlow === flow.id) dirtyFlows.add("detail");
}

function addRole(role) {
  const select = $("filter-role");
  if ([...select.options].some((option) => option.value === role)) return;
  select.append(element("option", { value: role, text: role }));
}

// MARK: Flow list

function isHeld(flow) {
  return flow.hold.startsWith("held");
}

function statusClass(flow) {
  if (/^\d{3}$/.test(flow.status)) return "s" + flow.status[0];
  return flow.status ? "error" : "";
}

function durationText(flow) {
  if (flow.start === undefined || flow.end === undefined) return flow.start === undefined ? "" : "…";
  return ((flow.end - flow.start) / 1e6).toFixed(1) + " ms";
}

function rowFor(flow) {
  let row = flow.row;
  if (!row) {
    row = element("tr", { "data-flow": flow.id, class: "flow", onclick: () => select(flow.id) });
    $("flows").tBodies[0].append(row);
    flow.row = row;
  }
  row.replaceChildren(
    element("td", { text: String(flow.id) }),
    element("td", { class: "method", text: flow.method }),
    element("td", { class: "url", title: flow.url, text: flow.url }),
    element("td", { class: "status " + statusClass(flow), text: flow.status || (isHeld(flow) ? "held" : "…") }),
    element("td", { class: "time", text: durationText(flow) }),
    element("td", { class: "role", text: flow.role || "" }),
    element("td", { class: "lineage", text: flow.lineage || "" }),
    element("td", { class: "rules", text: flow.rules.join(", ") }),
    element("td", { class: "hold" }, flow.hold ? element("span", {
      class: isHeld(flow) ? "hold-held" : "", text: flow.hold,
      title: flow.waitingFor && isHeld(flow) ? "waiting for: " + flow.waitingFor.join("; ") : undefined,
    }) : null),
  );
  row.hidden = !matchesFilters(flow);
  row.classList.toggle("selected", selectedFlow === flow.id);
  return row;
}

function matchesFilters(flow) {
  const host = $("filter-host").value.trim().toLowerCase();
  const path = $("filter-path").value.trim();
  const status = $("filter-status").value.trim().toLowerCase();
  const role = $("filter-role").value;
  const lineage = $("filter-lineage").value.trim();
  if (host && !(flow.host || "").toLowerCase().includes(host)) return false;
  if (path && !(flow.path || flow.url).includes(path)) return false;
  if (role && flow.role !== role) return false;
  if (lineage && flow.lineage !== lineage) return false;
  if (status) {
    const shown = (flow.status || (isHeld(flow) ? "held" : "")).toLowerCase();
    if (/^\dxx$/.test(status)) return shown[0] === status[0] && /^\d{3}$/.test(shown);
    return shown.startsWith(status);
  }
  return true;
}

function applyFilters() {
  for (const flow of flows.values()) {
    if (flow.row) flow.row.hidden = !matchesFilters(flow);
  }
}

function select(id) {
  selectedFlow = id;
  for (const row of document.querySelectorAll("#flows tr.selected")) row.classList.remove("selected");
  const flow = flows.get(id);
  if (flow && flow.row) flow.row.classList.add("selected");
  renderDetail();
}

// MARK: Flow detail

function headerTable(title, headers) {
  if (!Array.isArray(headers) || headers.length === 0) return null;
  return element(
    "div", {},
    element("h3", { text: title }),
    element("table", {}, ...headers.map(([name, value]) => element("tr", {}, element("td", { text: name }), element("td", { text: value })))),
  );
}

function bodyBlock(title, content) {
  if (!content || content.length === 0) return null;
  let text = content.encoding === "base64" ? `(${content.length} bytes, binary, base64)\n${content.data}` : content.data;
  if (content.truncated) text += `\n… (truncated; ${content.length} bytes in all)`;
  return element("div", {}, element("h3", { text: title }), element("pre", { text }));
}

function renderDetail() {
  const flow = flows.get(selectedFlow);
  const detail = $("detail");
  if (!flow) {
    detail.replaceChildren(element("p", { class: "empty", text: "Select a flow." }));
    return;
  }
  const upstream = flow.upstream || {};
  detail.replaceChildren(
    element("p", {}, element("strong", { text: `${flow.method} ${flow.url}` }), element("br"),
      document.createTextNode(`flow ${flow.id} on connection ${flow.conn ?? "?"} · status ${flow.status || "pending"} · ${durationText(flow)}`)),
    headerTable("Request headers", flow.request && flow.request.headers),
    bodyBlock("Request body", flow.requestContent),
    headerTable("Response headers", upstream.headers || (flow.delivered && flow.delivered.headers)),
    bodyBlock("Response body", flow.responseContent),
    flow.requestContent || flow.responseContent ? null : element("p", { class: "empty", text: "Bodies are shown when the run captures them (faultline run --capture)." }),
    element("h3", { text: "Events" }),
    element("table", {}, ...flow.events.map((event) => element("tr", {},
      element("td", { text: String(event.seq) }),
      element("td", { text: event.event }),
      element("td", { text: summary(event) })))),
  );
}

function summary(event) {
  const skip = new Set(["seq", "wall", "mono_ns", "event", "conn", "flow", "headers", "content", "request"]);
  return Object.entries(event).filter(([key]) => !skip.has(key)).map(([key, value]) =>
    `${key}=${typeof value === "object" ? JSON.stringify(value) : value}`).join(" ");
}

// MARK: Holds, rules, state, marks

function scheduleRefresh() {
  if (refreshTimer !== null) return;
  refreshTimer = setTimeout(() => {
    refreshTimer = null;
    refreshPanels();
  }, 100);
}

async function refreshPanels() {
  try {
    const [holds, rules, states] = await Promise.all([call("GET", "/v1/holds"), call("GET", "/v1/rules"), call("GET", "/v1/state")]);
    renderHolds(holds);
    renderRules(rules);
    renderStates(states);
  } catch (error) {
    setConnection("API: " + error.message, true);
  }
}

function act(method, path, body) {
  call(method, path, body).then(refreshPanels, (error) => alert(error.message));
}

// Holds are kept by id across refreshes, so a status being typed survives the next one.
const holdItems = new Map();

function renderHolds(holds) {
  const list = $("holds");
  if (!Array.isArray(holds) || holds.length === 0) {
    holdItems.clear();
    list.replaceChildren(element("li", { class: "empty", text: "Nothing held." }));
    return;
  }
  const live = new Set(holds.map((hold) => hold.id));
  for (const id of holdItems.keys()) if (!live.has(id)) holdItems.delete(id);
  const items = holds.map((hold) => {
    let item = holdItems.get(hold.id);
    if (!item) {
      item = holdItem(hold);
      holdItems.set(hold.id, item);
    }
    item.querySelector(".summary").textContent = ` flow ${hold.flow} · ${hold.phase} · ${hold.summary} · ${hold.held_ms} ms`;
    return item;
  });
  // Moving an element takes the focus from it: the list is rebuilt only when it changed.
  const current = [...list.children];
  if (current.length !== items.length || current.some((item, index) => item !== items[index])) list.replaceChildren(...items);
}

function holdItem(hold) {
  const path = "/v1/holds/" + encodeURIComponent(hold.name);
  const statusInput = element("input", { type: "number", min: "100", max: "599", placeholder: "503", class: "status-input", "aria-label": "status" });
  return element("li", { class: "hold", "data-hold": hold.name, "data-id": hold.id, "data-flow": hold.flow },
    element("div", {}, element("strong", { text: hold.name }), element("span", { class: "summary" })),
    element("button", { class: "release", onclick: () => act("POST", path + "/release", { id: hold.id }), text: "Release" }),
    element("button", { class: "fail", onclick: () => act("POST", path + "/fail", { id: hold.id }), text: "Fail" }),
    statusInput,
    element("button", {
      class: "release-status", text: "Release with status…",
      onclick: () => {
        const status = Number(statusInput.value || statusInput.placeholder);
        act("POST", path + "/release", { id: hold.id, status });
      },
    }));
}

function renderRules(rules) {
  const body = $("rules").tBodies[0];
  if (!Array.isArray(rules) || rules.length === 0) {
    body.replaceChildren(element("tr", {}, element("td", { class: "empty", text: "No rules loaded." })));
    return;
  }
  body.replaceChildren(...rules.map((rule) => {
    const slash = rule.id.indexOf("/");
    const path = "/v1/rules/" + encodeURIComponent(rule.id.slice(0, slash)) + "/" + encodeURIComponent(rule.id.slice(slash + 1));
    return element("tr", { class: "rule" + (rule.enabled ? "" : " disabled"), "data-rule": rule.id },
      element("td", {}, element("input", {
        type: "checkbox", class: "toggle", checked: rule.rule_enabled, "aria-label": "enable " + rule.id,
        onchange: (change) => act("POST", path + (change.target.checked ? "/enable" : "/disable")),
      })),
      element("td", { class: "id", title: rule.file, text: rule.id }),
      element("td", { class: "phase", text: rule.phase }),
      element("td", { class: "hits", title: `${rule.matches} matched`, text: String(rule.hits) }));
  }));
}

function renderStates(states) {
  const list = $("states");
  if (!Array.isArray(states) || states.length === 0) {
    list.replaceChildren(element("li", { class: "empty", text: "No scenario." }));
    return;
  }
  list.replaceChildren(...states.map((state) => element("li", { "data-scenario": state.scenario },
    element("strong", { text: state.scenario }),
    document.createTextNode(state.scope === "lineage"
      ? `: ${state.lineages.map((entry) => `${entry.lineage}=${entry.state}`).join(", ") || "(no lineage yet)"}, else ${state.state}`
      : `: ${state.state}`))));
}

function renderMarks() {
  const list = $("marks");
  if (marks.length === 0) return;
  list.replaceChildren(...marks.slice(-50).map((mark) => element("li", { class: "mark" },
    element("strong", { text: mark.label }), document.createTextNode(` seq ${mark.seq}`))));
}

// MARK: Lineage swimlanes

function renderLanes() {
  const container = $("lanes");
  let from = Infinity, to = -Infinity;
  for (const lineage of lineages.values()) {
    for (const flow of lineage.flows) {
      if (flow.start === undefined) continue;
      from = Math.min(from, flow.start);
      to = Math.max(to, flow.end ?? lastNanos);
    }
    for (const nanos of [...lineage.logouts, ...lineage.refreshes]) {
      from = Math.min(from, nanos);
      to = Math.max(to, nanos);
    }
  }
  if (from === Infinity) return;
  const span = Math.max(to - from, 1);
  const width = Math.max(container.clientWidth - 10, 400);
  const labelWidth = 56, laneHeight = 24;
  const x = (nanos) => labelWidth + ((nanos - from) / span) * (width - labelWidth - 10);
  const picture = svg("svg", { width, height: lineages.size * laneHeight + 4, class: "swimlanes", role: "img", "aria-label": "lineages over time" });
  let row = 0;
  for (const lineage of lineages.values()) {
    const top = row * laneHeight + 2;
    const lane = svg("g", { class: "lane", "data-lineage": lineage.name });
    lane.append(svg("text", { x: 2, y: top + 16, class: "lane-label" }, lineage.name));
    for (const flow of lineage.flows) {
      if (flow.start === undefined) continue;
      const start = x(flow.start), end = x(flow.end ?? lastNanos);
      const role = ["login", "refresh", "logout"].includes(flow.role) ? flow.role : "other";
      const failed = /^[45]/.test(flow.status) || (flow.status && !/^\d/.test(flow.status));
      const bar = svg("rect", { x: start, y: top + 4, width: Math.max(end - start, 2), height: laneHeight - 8, class: `bar ${role}${failed ? " failed" : ""}`, "data-flow": flow.id });
      bar.append(svg("title", {}, `flow ${flow.id}: ${flow.method} ${flow.path} → ${flow.status || "pending"}`));
      lane.append(bar);
    }
    for (const nanos of lineage.refreshes) lane.append(svg("circle", { cx: x(nanos), cy: top + 3, r: 3, class: "refresh-mark" }));
    for (const nanos of lineage.logouts) lane.append(svg("line", { x1: x(nanos), x2: x(nanos), y1: top, y2: top + laneHeight, class: "logout-line" }));
    picture.append(lane);
    row += 1;
  }
  container.replaceChildren(picture);
}

// MARK: Rendering and the stream

function queueRender() {
  if (renderQueued) return;
  renderQueued = true;
  requestAnimationFrame(() => {
    renderQueued = false;
    for (const item of dirtyFlows) {
      if (item === "detail") renderDetail();
      else if (flows.has(item.id)) rowFor(item);
    }
    dirtyFlows.clear();
    $("counts").textContent = `${flows.size} flows · ${eventCount} events`;
    // The swimlanes are redrawn whole, so at most twice a second.
    if (performance.now() - lanesDrawnAt > 500) {
      lanesDrawnAt = performance.now();
      renderLanes();
    } else if (!lanesTimer) {
      lanesTimer = setTimeout(() => { lanesTimer = null; lanesDrawnAt = 0; queueRender(); }, 500);
    }
  });
}

function setConnection(text, down) {
  const status = $("connection");
  status.textContent = text;
  status.classList.toggle("down", down);
}

async function follow() {
  const response = await fetch("/ui/api/v1/events", { credentials: "same-origin" });
  if (!response.ok) {
    setConnection(response.status === 401 ? "signed out: run 'faultline ui' for a new address" : "error " + response.status, true);
    return;
  }
  setConnection("loading…", false);
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let pending = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    pending += decoder.decode(value, { stream: true });
    let newline;
    while ((newline = pending.indexOf("\n")) >= 0) {
      const line = pending.slice(0, newline);
      pending = pending.slice(newline + 1);
      if (line) {
        try { onEvent(JSON.parse(line)); } catch (error) { console.warn("unreadable trace line", error); }
      }
    }
    queueRender();
  }
  stopPolling();
  setConnection("disconnected: the proxy stopped", true);
}

// Once the stream is over there is nothing to refresh from: polling on would only overwrite
// what the page says with failed fetches.
let pollTimer = null;

function stopPolling() {
  clearInterval(pollTimer);
  clearTimeout(refreshTimer);
  refreshTimer = null;
}

document.addEventListener("DOMContentLoaded", () => {
  for (const id of ["filter-host", "filter-path", "filter-status", "filter-role", "filter-lineage"]) {
    $(id).addEventListener("input", applyFilters);
  }
  $("filters").addEventListener("submit", (submit) => submit.preventDefault());
  refreshPanels();
  pollTimer = setInterval(refreshPanels, 2000);
  follow().catch((error) => {
    stopPolling();
    setConnection("disconnected: " + error.message, true);
  });
});
"""#
}

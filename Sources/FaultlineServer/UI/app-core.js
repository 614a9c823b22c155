// Faultline's web UI, app.js part 1 of 5 (served as one file; the parts are joined in order by
// UIAssets.swift): state, the stream, what each trace event does to a flow.
//
// One page over the control API's /ui/api/ namespace (session cookie).
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

// What may be appended: DOM's append() writes null and undefined as the text "null" and
// "undefined", so every list of children goes through this first.
function present(children) {
  return children.flat(Infinity).filter((child) => child !== null && child !== undefined && child !== false);
}

function element(tag, attributes, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attributes || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else if (key === "text") node.textContent = value;
    else node.setAttribute(key, value === true ? "" : value);
  }
  node.append(...present(children));
  return node;
}

function svg(tag, attributes, text) {
  const node = document.createElementNS("http://www.w3.org/2000/svg", tag);
  for (const [key, value] of Object.entries(attributes)) {
    if (value !== undefined && value !== null) node.setAttribute(key, value);
  }
  if (text !== undefined) node.textContent = text;
  return node;
}

// A link inside the page that selects flow `id` (the detail's "copy of #N", a witness).
function flowLink(id, text) {
  return element("a", { href: "#", "data-goto": String(id), text: text || "#" + id,
    onclick: (click) => { click.preventDefault(); select(id); } });
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
    flow = { id: event.flow, conn: event.conn, events: [], rules: [], hold: "", status: "", method: "", url: "", copies: [], holds: [] };
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
    lineage = { name, flows: [], logouts: [], refreshes: [], opened: null };
    lineages.set(name, lineage);
  }
  return lineage;
}

function joinLineage(flow, name) {
  if (flow.lineage) return;
  flow.lineage = name;
  lineageFor(name).flows.push(flow);
  dirtyFlows.add(flow);
  // A copy belongs where its original does, also when the original learns its lineage late
  // (a login's lineage comes with its answer).
  for (const id of flow.copies) {
    const copy = flows.get(id);
    if (copy) joinLineage(copy, name);
  }
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
    if (flow) joinLineage(flow, event.lineage);
    if (kind === "lineage.logout") lineage.logouts.push(event.mono_ns);
    if (kind === "lineage.refresh") lineage.refreshes.push(event.mono_ns);
    if (!lineage.opened && flow && (kind === "lineage.login" || kind === "lineage.unknown-refresh")) {
      lineage.opened = { flow: flow.id, by: kind === "lineage.login" ? "login" : "refresh" };
    }
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
      flow.start = event.mono_ns;
      flow.request = event;
      if (event.duplicate_of !== undefined) adoptAsCopy(flow, event.duplicate_of);
      if (flow.role) addRole(flow.role);
      if (event.lineage) joinLineage(flow, event.lineage);
      break;
    case "response.received":
      flow.upstream = event;
      flow.contentType = headerValue(event.headers, "content-type");
      break;
    case "response.delivered":
      flow.status = String(event.status);
      flow.end = event.mono_ns;
      flow.delivered = event;
      if (event.body) flow.size = event.body.length;
      break;
    case "response.discarded":
      // A copy's answer: the proxy read it whole and dropped it (no client waits for it).
      flow.status = String(event.status);
      flow.end = event.mono_ns;
      flow.discarded = event;
      flow.size = event.length;
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
      flow.holdEnded = undefined;
      startHeldStretch(flow, "held: " + event.name, undefined, event.mono_ns);
      break;
    case "hold.ended":
      flow.hold = "";
      flow.holdEnded = event;
      endHeldStretch(flow, event.mono_ns);
      // Fail (or a deadline that resets) ends the flow here: nothing else is traced for it.
      if (event.outcome === "failed" || event.applied === "reset") {
        if (!flow.status) flow.status = "reset";
        flow.end = flow.end || event.mono_ns;
      }
      break;
    case "replay.waiting":
      // A replayed answer held for the recorded order (replay serve --order recorded).
      startHeldStretch(flow, "held: recorded order", event.waiting_for || [], event.mono_ns);
      break;
    case "replay.released":
      flow.hold = "released (recorded order)";
      flow.waitingFor = undefined;
      endHeldStretch(flow, event.mono_ns);
      break;
    case "replay.diverged":
      if (isHeld(flow)) flow.hold = "released (order deadline)";
      flow.waitingFor = undefined;
      endHeldStretch(flow, event.mono_ns);
      break;
    case "flow.aborted":
      // A replayed answer still waiting for the recorded order ends with its flow (a rule's
      // hold says so itself, with hold.ended first).
      if (flow.waitingFor && isHeld(flow)) flow.hold = "ended (flow aborted)";
      flow.waitingFor = undefined;
      endHeldStretch(flow, event.mono_ns);
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

// A copy made by a `duplicate` rule: its events carry `duplicate_of`, and nothing else says
// who it is for. It is the same request as its original, so it takes the original's role and
// lineage.
function adoptAsCopy(flow, originalID) {
  flow.copyOf = originalID;
  const original = flows.get(originalID);
  if (!original) return;
  if (!original.copies.includes(flow.id)) original.copies.push(flow.id);
  if (!flow.role) flow.role = original.role;
  if (original.lineage) joinLineage(flow, original.lineage);
  dirtyFlows.add(original);
}

// A stretch the flow is held begins: its label, what it waits for, and where the timeline draws it from.
function startHeldStretch(flow, label, waitingFor, nanos) {
  flow.hold = label;
  flow.waitingFor = waitingFor;
  flow.holds.push({ from: nanos });
}

function endHeldStretch(flow, nanos) {
  const open = flow.holds[flow.holds.length - 1];
  if (open && open.to === undefined) open.to = nanos;
}

function headerValue(headers, name) {
  if (!Array.isArray(headers)) return undefined;
  const found = headers.find((header) => String(header[0]).toLowerCase() === name);
  return found ? String(found[1]) : undefined;
}

function addRole(role) {
  const select = $("filter-role");
  if ([...select.options].some((option) => option.value === role)) return;
  select.append(element("option", { value: role, text: role }));
}

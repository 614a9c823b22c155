// The web UI's app.js, part 2 of 5 (served as one file; the parts are joined in order by
// UIAssets.swift): the flow list (its columns and filters) and a flow's detail.

// MARK: Flow list

function isHeld(flow) {
  return flow.hold.startsWith("held");
}

function statusClass(flow) {
  if (/^\d{3}$/.test(flow.status)) return "s" + flow.status[0];
  return flow.status ? "error" : "";
}

function statusTitle(flow) {
  if (flow.discarded) return "the answer to this copy, read and dropped by the proxy (no client waits for it)";
  if (flow.delivered && flow.delivered.synthetic) return "answered by a rule (synthetic)";
  if (flow.status === "reset") return "the hold ended by resetting the client's connection";
  return undefined;
}

function durationText(flow) {
  if (flow.start === undefined || flow.end === undefined) return flow.start === undefined ? "" : "…";
  const millis = (flow.end - flow.start) / 1e6;
  return millis < 1000 ? millis.toFixed(1) + " ms" : (millis / 1000).toFixed(2) + " s";
}

function sizeText(bytes) {
  if (typeof bytes !== "number") return "";
  if (bytes < 1000) return bytes + " B";
  if (bytes < 1e6) return (bytes / 1e3).toFixed(1) + " kB";
  return (bytes / 1e6).toFixed(1) + " MB";
}

// "json" for application/json; charset=utf-8, as Chrome DevTools' Type column shortens it.
function typeText(contentType) {
  if (!contentType) return "";
  const type = contentType.split(";")[0].trim().toLowerCase();
  if (type.startsWith("application/")) return type.slice("application/".length).replace(/^.*\+/, "");
  return type.startsWith("text/") ? type.slice("text/".length) : type;
}

// What the Hold column says once a hold ended: what ended it and what it applied, with the
// status a "Release with status…" answered (the answer the client got says it).
function holdText(flow) {
  const ended = flow.holdEnded;
  if (!ended) return flow.hold;
  const by = ended.ended_by || "?";
  switch (ended.outcome) {
    case "released": return `released (${by})`;
    case "released-with-response": return `released with ${/^\d{3}$/.test(flow.status) ? flow.status : "a status"} (${by})`;
    case "failed": return `failed (${by})`;
    case "timed-out":
      if (ended.applied === "status") return `timed out: ${ended.status}`;
      return ended.applied === "reset" ? "timed out: reset" : "timed out: released";
    default: return `ended (${ended.outcome || by})`;
  }
}

function holdTitle(flow) {
  if (flow.waitingFor && isHeld(flow)) return "waiting for: " + flow.waitingFor.join("; ");
  if (flow.holdEnded && flow.holdEnded.release_on) return "released by " + flow.holdEnded.release_on;
  return undefined;
}

// The URL as its path first and its origin after, muted: a narrow column keeps the part that
// tells requests apart. The text is still the whole URL, in order.
function urlParts(url) {
  const scheme = url.indexOf("://");
  const slash = scheme < 0 ? -1 : url.indexOf("/", scheme + 3);
  if (scheme < 0) return ["", url];
  return slash < 0 ? [url, ""] : [url.slice(0, slash), url.slice(slash)];
}

// A rule's id may break after its scenario's slash, nowhere else (not at its hyphens).
function ruleName(id) {
  const slash = id.indexOf("/");
  return element("span", { class: "rule-name" }, element("span", { text: id.slice(0, slash + 1) }), slash < 0 ? null : element("wbr"),
    element("span", { text: id.slice(slash + 1) }));
}

function rowFor(flow) {
  let row = flow.row;
  if (!row) {
    row = element("tr", { "data-flow": flow.id, class: "flow", onclick: () => select(flow.id) });
    $("flows").tBodies[0].append(row);
    flow.row = row;
  }
  const [origin, rest] = urlParts(flow.url);
  const hold = holdText(flow);
  row.replaceChildren(
    element("td", { class: "id", text: String(flow.id) }),
    element("td", { class: "method", text: flow.method }),
    element("td", { class: "url", title: flow.url },
      flow.copyOf === undefined ? null : element("span", { class: "copy-of", text: `copy of #${flow.copyOf}` }),
      element("div", { class: "url-text" }, element("span", { class: "origin", text: origin }), element("span", { class: "path", text: rest }))),
    element("td", { class: "status " + statusClass(flow), title: statusTitle(flow), text: flow.status || (isHeld(flow) ? "held" : "…") }),
    element("td", { class: "type wide", title: flow.contentType, text: typeText(flow.contentType) }),
    element("td", { class: "size wide", title: typeof flow.size === "number" ? flow.size + " bytes" : undefined, text: sizeText(flow.size) }),
    element("td", { class: "time", text: durationText(flow) }),
    element("td", { class: "role wide", text: flow.role || "" }),
    element("td", { class: "lineage wide", text: flow.lineage || "" }),
    element("td", { class: "rules wide" }, flow.rules.map((id, index) => [index ? ", " : null, ruleName(id)])),
    element("td", { class: "hold" }, hold ? element("span", { class: isHeld(flow) ? "hold-held" : "", text: hold, title: holdTitle(flow) }) : null),
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
  if (flow && flow.row) {
    flow.row.classList.add("selected");
    flow.row.scrollIntoView({ block: "nearest" });
  }
  renderDetail();
}

// MARK: Flow detail

function headerTable(title, headers, missing) {
  if (!Array.isArray(headers) || headers.length === 0) return element("p", { class: "empty", text: `${title}: ${missing}` });
  return element(
    "div", {},
    element("h3", { text: title }),
    element("table", { class: "headers" }, ...headers.map(([name, value]) => element("tr", {}, element("td", { text: name }), element("td", { text: value })))),
  );
}

function responseHeadersMissing(flow) {
  if (flow.delivered && flow.delivered.synthetic) return "not in the trace (a rule answered; its headers are not traced)";
  if (!flow.status) return "no answer yet";
  return /^\d{3}$/.test(flow.status) ? "not in the trace" : `none (${flow.status})`;
}

function bodyBlock(title, content) {
  if (!content || content.length === 0) return null;
  let text = content.encoding === "base64" ? `(${content.length} bytes, binary, base64)\n${content.data}` : content.data;
  if (content.truncated) text += `\n… (truncated; ${content.length} bytes in all)`;
  return element("div", {}, element("h3", { text: title }), element("pre", { text }));
}

function copyNote(flow) {
  const notes = [];
  if (flow.copyOf !== undefined) {
    notes.push(element("p", { class: "note" }, "A copy of flow ", flowLink(flow.copyOf), " made by a duplicate rule: ",
      flow.discarded ? "its answer was read and dropped by the proxy." : "the proxy reads its answer and drops it."));
  }
  if (flow.copies.length > 0) {
    notes.push(element("p", { class: "note" }, "Copies made by a duplicate rule: ",
      flow.copies.map((id, index) => [index ? ", " : null, flowLink(id)])));
  }
  return notes;
}

function renderDetail() {
  const flow = flows.get(selectedFlow);
  const detail = $("detail");
  if (!flow) {
    detail.replaceChildren(...present([violationBlock(), element("p", { class: "empty", text: "Select a flow." })]));
    return;
  }
  const upstream = flow.upstream || {};
  const copy = flow.copyOf === undefined ? "" : ` · copy of flow ${flow.copyOf}`;
  detail.replaceChildren(...present([
    violationBlock(),
    element("p", {}, element("strong", { class: "request-line", text: `${flow.method} ${flow.url}` }), element("br"),
      `flow ${flow.id} on connection ${flow.conn ?? "(none: made by the proxy)"} · status ${flow.status || "pending"} · ${durationText(flow)}${copy}`),
    copyNote(flow),
    headerTable("Request headers", flow.request && flow.request.headers, "not in the trace"),
    bodyBlock("Request body", flow.requestContent),
    headerTable("Response headers", upstream.headers || (flow.delivered && flow.delivered.headers), responseHeadersMissing(flow)),
    bodyBlock("Response body", flow.responseContent),
    flow.requestContent || flow.responseContent ? null : element("p", { class: "empty", text: "Bodies are shown when the run captures them (faultline run --capture)." }),
    element("h3", { text: "Events" }),
    element("table", { class: "events" }, ...flow.events.map((event) => element("tr", { class: "event" + witnessClass(event.seq), "data-seq": String(event.seq) },
      element("td", { class: "seq", text: String(event.seq) }),
      element("td", { class: "name", text: event.event }),
      element("td", { class: "summary", text: summary(event) })))),
  ]));
}

function summary(event) {
  const skip = new Set(["seq", "wall", "mono_ns", "event", "conn", "flow", "headers", "content", "request"]);
  return Object.entries(event).filter(([key]) => !skip.has(key)).map(([key, value]) =>
    `${key}=${typeof value === "object" ? JSON.stringify(value) : value}`).join(" ");
}

// The web UI's app.js, part 3 of 5: the side panels (holds, rules and scenarios, state).

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

function act(method, path, body, said) {
  call(method, path, body).then(() => {
    if (said) $("rules-said").textContent = said;
    return refreshPanels();
  }, (error) => alert(error.message));
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

// Scenarios and their rules in the words of `faultline rules list` (RulesControlCommand.swift):
// a rule is "on" only when both it and its scenario are (the API's `enabled`), and a switch says
// what `faultline rules enable|disable` would print.
function onOff(enabled) {
  return enabled ? "on" : "off";
}

function ruleSwitch(label, checked, usable, target, title) {
  const slash = target.indexOf("/");
  const kind = slash < 0 ? "scenario" : "rule";
  const path = kind === "rule"
    ? "/v1/rules/" + encodeURIComponent(target.slice(0, slash)) + "/" + encodeURIComponent(target.slice(slash + 1))
    : "/v1/scenarios/" + encodeURIComponent(target);
  return element("input", {
    type: "checkbox", class: "toggle", checked, disabled: !usable, "aria-label": label, title,
    onchange: (change) => {
      const verb = change.target.checked ? "enable" : "disable";
      act("POST", `${path}/${verb}`, undefined, `${verb}d ${kind} ${target}`);
    },
  });
}

function renderRules(rules) {
  const body = $("rules").tBodies[0];
  if (!Array.isArray(rules) || rules.length === 0) {
    body.replaceChildren(element("tr", {}, element("td", { class: "empty", colspan: "5", text: "No rules loaded." })));
    return;
  }
  const scenarios = new Map();
  for (const rule of rules) {
    const name = rule.id.slice(0, rule.id.indexOf("/"));
    if (!scenarios.has(name)) scenarios.set(name, { name, enabled: rule.scenario_enabled, rules: [] });
    scenarios.get(name).rules.push(rule);
  }
  const rows = [];
  for (const scenario of scenarios.values()) {
    const verb = scenario.enabled ? "disable" : "enable";
    rows.push(element("tr", { class: "scenario" + (scenario.enabled ? "" : " disabled"), "data-scenario": scenario.name },
      element("td", {}, ruleSwitch("enable scenario " + scenario.name, scenario.enabled, true, scenario.name,
        `faultline rules ${verb} ${scenario.name}`)),
      element("td", { class: "id", text: scenario.name }),
      element("td", { class: "phase", text: "scenario" }),
      element("td", { class: "enabled", text: onOff(scenario.enabled) }),
      element("td", { class: "hits" })));
    for (const rule of scenario.rules) {
      const name = rule.id.slice(scenario.name.length + 1);
      const why = !rule.scenario_enabled
        ? `off: its scenario ${scenario.name} is off` + (rule.rule_enabled ? " (the rule's own switch is on)" : " and so is the rule")
        : rule.rule_enabled ? "on" : `off: switched off (faultline rules enable ${rule.id})`;
      rows.push(element("tr", { class: "rule" + (rule.enabled ? "" : " disabled"), "data-rule": rule.id },
        element("td", {}, ruleSwitch("enable " + rule.id, rule.enabled, rule.scenario_enabled, rule.id,
          rule.scenario_enabled ? `faultline rules ${rule.enabled ? "disable" : "enable"} ${rule.id}` : `switch scenario ${scenario.name} on first`)),
        element("td", { class: "id", title: `${rule.id} (${rule.file})`, text: name }),
        element("td", { class: "phase", text: rule.phase }),
        element("td", { class: "enabled", title: why, text: onOff(rule.enabled) }),
        element("td", { class: "hits", title: `${rule.matches} matched`, text: String(rule.hits) })));
    }
  }
  body.replaceChildren(...rows);
}

function renderStates(states) {
  const list = $("states");
  if (!Array.isArray(states) || states.length === 0) {
    list.replaceChildren(element("li", { class: "empty", text: "No scenario." }));
    return;
  }
  list.replaceChildren(...states.map((state) => element("li", { "data-scenario": state.scenario },
    element("strong", { text: state.scenario }),
    state.scope === "lineage"
      ? `: ${state.lineages.map((entry) => `${entry.lineage}=${entry.state}`).join(", ") || "(no lineage yet)"}, else ${state.state}`
      : `: ${state.state}`)));
}

function renderMarks() {
  const list = $("marks");
  if (marks.length === 0) return;
  list.replaceChildren(...marks.slice(-50).map((mark) => element("li", { class: "mark" },
    element("strong", { text: mark.label }), ` seq ${mark.seq}`)));
}

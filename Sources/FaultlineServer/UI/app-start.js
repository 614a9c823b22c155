// The web UI's app.js, part 5 of 5: rendering and the event stream, then the start.

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
  $("check-form").addEventListener("submit", (submit) => submit.preventDefault());
  $("check-report").addEventListener("change", (change) => loadCheckReport(change.target.files[0]));
  // The lanes fit the panel's width: a resize draws them again.
  window.addEventListener("resize", () => { lanesDrawnAt = 0; queueRender(); });
  refreshPanels();
  pollTimer = setInterval(refreshPanels, 2000);
  follow().catch((error) => {
    stopPolling();
    setConnection("disconnected: " + error.message, true);
  });
});

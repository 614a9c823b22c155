extension UIAssets {
    /// `/ui/`: the page, whose panels `app.js` fills in.
    static let indexHTML = #"""
<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Faultline</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/ui/app.css">
<script src="/ui/app.js" defer></script>
</head>
<body>
<header>
  <h1>Faultline</h1>
  <span id="connection" class="status">connecting…</span>
  <span id="counts"></span>
  <span id="dropped" class="warning" hidden></span>
</header>
<main>
  <section id="flows-panel">
    <form id="filters" autocomplete="off">
      <label>Host <input id="filter-host" type="search" placeholder="api.example"></label>
      <label>Path <input id="filter-path" type="search" placeholder="/v1/"></label>
      <label>Status <input id="filter-status" type="search" placeholder="401, 4xx, held"></label>
      <label>Role <select id="filter-role"><option value="">any</option></select></label>
      <label>Lineage <input id="filter-lineage" type="search" placeholder="L1"></label>
    </form>
    <div class="scroll">
      <table id="flows">
        <thead><tr><th class="id">#</th><th class="method">Method</th><th class="url">URL</th><th class="status">Status</th><th class="type wide" title="the answer's Content-Type">Type</th><th class="size wide" title="the body delivered to the client (or read and dropped, for a copy)">Size</th><th class="time">Time</th><th class="role wide">Role</th><th class="lineage wide">Lineage</th><th class="rules wide">Rules</th><th class="hold">Hold</th></tr></thead>
        <tbody></tbody>
      </table>
    </div>
    <section id="lanes-panel">
      <h2>Lineages</h2>
      <div id="lanes"><p class="empty">No lineage yet: lineages appear when an auth profile sees a login.</p></div>
      <ul id="lanes-legend" aria-label="legend">
        <li><span class="swatch login"></span>login</li>
        <li><span class="swatch refresh"></span>refresh</li>
        <li><span class="swatch logout"></span>logout</li>
        <li><span class="swatch business"></span>business</li>
        <li><span class="swatch other"></span>other role</li>
        <li><span class="swatch copy"></span>copy</li>
        <li><span class="swatch failed"></span>failed</li>
        <li><span class="swatch held"></span>held</li>
        <li><span class="swatch logout-line"></span>logout boundary</li>
        <li><span class="swatch refresh-mark"></span>tokens replaced</li>
        <li><span class="swatch violation"></span>violation</li>
        <li><span class="swatch axis-break"></span>idle time skipped</li>
      </ul>
      <form id="check-form" autocomplete="off">
        <label>Violations: load a report of <code>faultline check TRACE --format json --output report.json</code>
          <input id="check-report" type="file" accept=".json,application/json"></label>
        <p id="check-summary" class="empty" hidden></p>
      </form>
    </section>
  </section>
  <aside>
    <section id="detail-panel"><h2>Flow</h2><div id="detail"><p class="empty">Select a flow.</p></div></section>
    <section id="holds-panel"><h2>Holds</h2><ul id="holds"><li class="empty">Nothing held.</li></ul></section>
    <section id="rules-panel"><h2>Rules</h2>
      <table id="rules">
        <thead><tr><th></th><th>Scenario / rule</th><th>Phase</th><th title="as faultline rules list says">Enabled</th><th class="hits">Hits</th></tr></thead>
        <tbody><tr><td class="empty" colspan="5">No rules loaded.</td></tr></tbody>
      </table>
      <p id="rules-said" class="said" aria-live="polite"></p>
    </section>
    <section id="state-panel"><h2>Scenario state</h2><ul id="states"><li class="empty">No scenario.</li></ul></section>
    <section id="marks-panel"><h2>Marks</h2><ul id="marks"><li class="empty">No mark yet.</li></ul></section>
  </aside>
</main>
</body>
</html>
"""#
}

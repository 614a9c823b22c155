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
        <thead><tr><th>#</th><th>Method</th><th>URL</th><th>Status</th><th>Time</th><th>Role</th><th>Lineage</th><th>Rules</th><th>Hold</th></tr></thead>
        <tbody></tbody>
      </table>
    </div>
    <section id="lanes-panel">
      <h2>Lineages</h2>
      <div id="lanes"><p class="empty">No lineage yet: lineages appear when an auth profile sees a login.</p></div>
    </section>
  </section>
  <aside>
    <section id="detail-panel"><h2>Flow</h2><div id="detail"><p class="empty">Select a flow.</p></div></section>
    <section id="holds-panel"><h2>Holds</h2><ul id="holds"><li class="empty">Nothing held.</li></ul></section>
    <section id="rules-panel"><h2>Rules</h2><table id="rules"><tbody><tr><td class="empty">No rules loaded.</td></tr></tbody></table></section>
    <section id="state-panel"><h2>Scenario state</h2><ul id="states"><li class="empty">No scenario.</li></ul></section>
    <section id="marks-panel"><h2>Marks</h2><ul id="marks"><li class="empty">No mark yet.</li></ul></section>
  </aside>
</main>
</body>
</html>
"""#
}

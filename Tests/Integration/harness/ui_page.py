"""The web UI in Chromium (test_ui_browser.py, test_ui_new_user.py): `UIPage`, a page on one
proxy's UI that keeps every page error, console error and dialog as a problem; `layout_problems`,
what a person would see as broken (an element wider than its container, a literal `null` or
`undefined` printed as text, a page that scrolls sideways); `screenshot`, a full-page PNG kept in
the test's folder (and in $FAULTLINE_UI_SCREENSHOTS when set, to look at). The `open_ui` fixture
is in conftest.py. Playwright is imported only when a page is used, so the UI tests without a
browser (test_ui_security.py) do not need it."""
import os
import re

WAIT_MS = 10_000  # any one thing the page should show; its panels refresh every 2 s and on events

# Both widths the issue names: a laptop and a phone held upright.
WIDE = {"width": 1280, "height": 900}
NARROW = {"width": 420, "height": 900}


class UIPage:
    """A Chromium page on one proxy's UI; every page error, console error and dialog is kept in
    `problems`."""

    def __init__(self, tab, ui):
        self.tab = tab
        self.page = tab.page
        self.ui = ui
        self.problems = []
        self.page.on("pageerror", lambda error: self.problems.append(f"page error: {error}"))
        self.page.on("console", self._console)
        self.page.on("dialog", self._dialog)

    def _console(self, message):
        if message.type == "error":
            self.problems.append(f"console error: {message.text} ({message.location})")

    def _dialog(self, dialog):
        self.problems.append(f"{dialog.type}: {dialog.message}")
        dialog.dismiss()

    def open(self):
        """Opens a fresh address from `faultline ui` and waits until the page is live."""
        from playwright.sync_api import expect

        address = self.ui.address()
        self.page.goto(address, wait_until="load")
        assert self.page.url == f"{self.ui.origin}/ui/", f"the login should land on /ui/: {self.page.url}"
        expect(self.page.locator("#connection")).to_have_text("live", timeout=WAIT_MS)
        return address

    def row(self, flow):
        return self.page.locator(f'#flows tbody tr.flow[data-flow="{flow}"]')

    def hold(self, hold):
        return self.page.locator(f'#holds li.hold[data-hold="{hold["name"]}"][data-id="{hold["id"]}"]')

    def rule(self, rule_id):
        return self.page.locator(f'#rules tr.rule[data-rule="{rule_id}"]')

    def scenario(self, name):
        return self.page.locator(f'#rules tr.scenario[data-scenario="{name}"]')

    def wait_for_refresh(self, hold):
        """Waits (with a deadline) for the next refresh of the holds panel: the hold's line says
        how long it has been held, which changes on every refresh."""
        from playwright.sync_api import expect

        item = self.hold(hold)
        held = re.search(r" · \d+ ms", item.text_content(timeout=WAIT_MS))
        assert held, item.text_content()
        expect(item).not_to_contain_text(held.group(0), timeout=WAIT_MS)

    def assert_clean(self):
        assert not self.problems, "the page reported problems:\n" + "\n".join(self.problems)

    def layout_problems(self):
        return layout_problems(self.page)

    def assert_layout(self, what):
        problems = self.layout_problems()
        assert not problems, f"{what}: the page is broken where a person looks:\n" + "\n".join(problems)


# Everything drawn inside the body, checked against its parent. Horizontal only: panels scroll
# vertically by design. Text nodes made of nothing but null/undefined/NaN are what a script prints
# when it appends a missing value as text (`node.append(null)` writes "null").
LAYOUT_PROBLEMS = r"""() => {
  const problems = [];
  const describe = (node) => {
    const id = node.id ? "#" + node.id : "";
    const classes = typeof node.className === "string" && node.className ? "." + node.className.trim().split(/\s+/).join(".") : "";
    const where = node.closest("[data-flow], [data-rule], [data-scenario], [data-lineage], section");
    const context = where && where !== node ? ` in ${where.tagName.toLowerCase()}${where.id ? "#" + where.id : ""}` +
      ["data-flow", "data-rule", "data-scenario", "data-lineage"].filter((a) => where.hasAttribute(a)).map((a) => `[${a}=${where.getAttribute(a)}]`).join("") : "";
    return `<${node.tagName.toLowerCase()}${id}${classes}>${context}`;
  };
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let text = walker.nextNode(); text; text = walker.nextNode()) {
    if (/^\s*(?:null|undefined|NaN|\[object Object\])+\s*$/.test(text.data)) {
      problems.push(`a text node says ${JSON.stringify(text.data)} under ${describe(text.parentElement)}`);
    }
  }
  const root = document.documentElement;
  if (root.scrollWidth > root.clientWidth + 1) problems.push(`the page scrolls sideways: ${root.scrollWidth} px in a ${root.clientWidth} px window`);
  for (const node of document.body.querySelectorAll("*")) {
    const parent = node.parentElement;
    if (!parent || ["OPTION", "TITLE", "SCRIPT", "STYLE"].includes(node.tagName) || node.tagName.toLowerCase() === "title") continue;
    const box = node.getBoundingClientRect();
    if (box.width === 0 && box.height === 0) continue;  // not drawn (hidden, display: none)
    const outer = parent.getBoundingClientRect();
    if (box.left < outer.left - 1 || box.right > outer.right + 1) {
      problems.push(`${describe(node)} spans x ${box.left.toFixed(0)}..${box.right.toFixed(0)}, outside its container ${describe(parent)} (x ${outer.left.toFixed(0)}..${outer.right.toFixed(0)})`);
    }
  }
  return problems.slice(0, 40);
}"""


def layout_problems(page):
    """What is broken in the page's layout now (empty when nothing is); see LAYOUT_PROBLEMS."""
    return page.evaluate(LAYOUT_PROBLEMS)


def screenshot(page, folder, name):
    """A full-page PNG of `page` as `folder/name.png`, copied to $FAULTLINE_UI_SCREENSHOTS/name.png
    when that is set; returns the bytes."""
    data = page.screenshot(full_page=True, path=os.path.join(str(folder), f"{name}.png"))
    keep = os.environ.get("FAULTLINE_UI_SCREENSHOTS")
    if keep:
        os.makedirs(keep, exist_ok=True)
        with open(os.path.join(keep, f"{name}.png"), "wb") as handle:
            handle.write(data)
    return data

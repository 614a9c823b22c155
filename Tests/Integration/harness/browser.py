"""A real browser for tests that look at what Faultline writes the way a person does (an HTML
report opened from disk): Debian's `chromium` (apt) driven by Playwright (PyPI, pinned in
requirements.txt) through its `executable_path`. Playwright's own browser download
(`playwright install`) is never used: CI reaches only the Debian and PyPI registries.

    with Chromium(workdir) as browser:
        tab = browser.new_page(java_script_enabled=False)
        tab.open(path)                      # file:// URL; fails the test on a missing file
        tab.page.locator("svg g.violation-timeline").count()
        tab.requested                       # every URL the page asked for, in order

Headless; Chromium's sandbox stays on unless the tests run as root (CI does), where Chromium
refuses to start without `--no-sandbox`. Every wait has a deadline (`TIMEOUT_MS`: the launch,
navigation, each locator and screenshot). Chromium's home is private to the test (`workdir`):
its crash-report folder and dconf cache go there, not under ~/.config or ~/.cache. A missing
chromium or playwright fails the test, naming `Scripts/ensure-dependencies --test`, which
installs both."""
import os
import pathlib
import shutil

from .clients import clean_env

TIMEOUT_MS = 20_000  # launch, navigation and every locator wait
DEBIAN_CHROMIUM = "/usr/bin/chromium"


def chromium_executable():
    """The system's chromium (Debian's launcher script, which adds the flags of /etc/chromium.d)."""
    path = shutil.which("chromium") or (DEBIAN_CHROMIUM if os.access(DEBIAN_CHROMIUM, os.X_OK) else None)
    if path is None:
        raise AssertionError("chromium is not installed (Scripts/ensure-dependencies --test installs it with apt-get)")
    return path


def _sync_playwright():
    try:
        from playwright.sync_api import sync_playwright
    except ImportError as error:
        raise AssertionError(
            "playwright is not installed in the venv running pytest (Scripts/ensure-dependencies --test installs "
            f"Tests/Integration/requirements.txt): {error}") from error
    return sync_playwright


def sandboxed():
    """Chromium's sandbox cannot run as root; anywhere else it stays on. Playwright's launch adds
    `--no-sandbox` itself unless `chromium_sandbox=True` (its default is False), so this value is
    what decides the flag."""
    return os.geteuid() != 0


class BrowserPage:
    """A page in a browser context of its own. `requested` lists the URL of every request the
    context made (navigations, subresources, failed ones too), in order."""

    def __init__(self, context):
        self.context = context
        self.closed = False
        self.requested = []
        context.on("request", lambda request: self.requested.append(request.url))
        context.set_default_timeout(TIMEOUT_MS)
        context.set_default_navigation_timeout(TIMEOUT_MS)
        self.page = context.new_page()

    def open(self, path):
        """Navigates to `path` as a file:// URL and waits for its load event; returns the URL."""
        assert os.path.isfile(path), f"{path} does not exist"
        url = pathlib.Path(path).resolve().as_uri()
        self.page.goto(url, wait_until="load", timeout=TIMEOUT_MS)
        return url

    def close(self):
        if not self.closed:
            self.closed = True
            self.context.close()


class Chromium:
    """Headless Chromium under Playwright; a context manager (leaving closes every page, the
    browser and Playwright's driver). Its HOME and XDG folders are made under `workdir`."""

    def __init__(self, workdir):
        self.executable = chromium_executable()
        self.home = os.path.join(workdir, "chromium-home")
        self._playwright = None
        self.browser = None
        self._pages = []

    def __enter__(self):
        folders = {variable: os.path.join(self.home, name) for variable, name in
                   (("XDG_CONFIG_HOME", ".config"), ("XDG_CACHE_HOME", ".cache"), ("XDG_DATA_HOME", ".local/share"))}
        for folder in folders.values():
            os.makedirs(folder, exist_ok=True)
        env = clean_env(HOME=self.home, **folders)
        self._playwright = _sync_playwright()().start()
        try:
            self.browser = self._playwright.chromium.launch(
                executable_path=self.executable, headless=True, chromium_sandbox=sandboxed(),
                timeout=TIMEOUT_MS, env=env)
        except BaseException:
            self._playwright.stop()
            raise
        return self

    @property
    def version(self):
        return self.browser.version

    def new_page(self, **context_options):
        """A fresh `BrowserPage`; `context_options` go to `Browser.new_context` (for example
        `java_script_enabled=False`, `viewport={...}`)."""
        page = BrowserPage(self.browser.new_context(**context_options))
        self._pages.append(page)
        return page

    def __exit__(self, *exc_info):
        try:
            for page in self._pages:
                page.close()
            self.browser.close()
        finally:
            self._playwright.stop()

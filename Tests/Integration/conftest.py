"""Fixtures for Faultline's integration tests.

- `start_faultline(*args)` starts `faultline run` (listening on port 0; the ports come from the
  banner) and at teardown stops it with SIGTERM, asserting exit 0 and a trace whose every line parses.
- `faultline`: a forward proxy started with defaults.
- Session-wide origins on loopback: `nginx` (static files, including a sparse 1 GiB file),
  `origin` (Python, see harness/python_origin.py), `tls_origin` (the same over TLS with a throwaway
  CA), `ws_origin` (WebSocket echo), `h2_origin` (nginx speaking HTTP/2 over TLS and h2c, see
  harness/h2_origin.py) and `h2_server` (a scripted HTTP/2 server that sends RST_STREAM and
  GOAWAY on request, harness/h2_server.py).
- `chromium`: Debian's chromium under Playwright (harness/browser.py), closed after the test;
  `browser_page`: a fresh page of it (a context of its own, JavaScript on); `open_ui`: the web
  UI of a proxy in a fresh page (harness/ui_page.py).

The binary comes from $FAULTLINE_BIN (Scripts/test sets it), else .build/debug/faultline.
"""
import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(__file__))

from harness.faultline import Faultline  # noqa: E402
from harness.h2_origin import H2Nginx  # noqa: E402
from harness.h2_server import ScriptedH2Server  # noqa: E402
from harness.nginx import Nginx  # noqa: E402
from harness.python_origin import Origin  # noqa: E402
from harness.tls import make_certificates, server_context  # noqa: E402
from harness.trace import Trace  # noqa: E402
from harness.rule_proxy import rules_proxy_starter  # noqa: E402
from harness.ui import RULES as UI_RULES, UI, BackgroundCurl  # noqa: E402
from harness.websocket import EchoServer  # noqa: E402

REPOSITORY = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


def _built(variable, name):
    path = os.environ.get(variable) or os.path.join(REPOSITORY, ".build", "debug", name)
    if not os.access(path, os.X_OK):
        pytest.fail(f"{path} is not an executable: build with `swift build` or set {variable}", pytrace=False)
    return path


@pytest.fixture(scope="session")
def faultline_binary():
    return _built("FAULTLINE_BIN", "faultline")


@pytest.fixture(scope="session")
def urlsession_client():
    return _built("FAULTLINE_URLSESSION_CLIENT", "faultline-urlsession-client")


@pytest.fixture
def start_faultline(faultline_binary, tmp_path):
    """Returns `start(*args, file_limit=None, command=("run",))`: runs `faultline run *args --trace <tmp>/trace-N.jsonl`
    (with RLIMIT_NOFILE set to `file_limit` if given) and returns the started `Faultline` (see
    harness/faultline.py). Pass `--listen 127.0.0.1:0` yourself."""
    started = []

    def start(*args, file_limit=None, command=("run",)):
        trace_path = str(tmp_path / f"trace-{len(started)}.jsonl")
        process = Faultline(faultline_binary, args, trace_path, str(tmp_path), file_limit=file_limit, command=command)
        started.append(process)
        return process.start()

    yield start
    problems = []
    for process in started:
        if process.process is None:
            continue
        if process.returncode is None:
            code = process.stop()
            if code != 0:
                problems.append(f"faultline exited {code} on SIGTERM; stderr:\n{process.stderr}")
        if process.listeners:  # it started, so it owes us a trace whatever the test did
            try:
                Trace.load(process.trace_file).assert_well_formed()
            except AssertionError as error:
                problems.append(str(error))
    assert not problems, "\n".join(problems)


@pytest.fixture
def start_replay(start_faultline):
    """Returns `start(capture, *args)`: `faultline replay serve CAPTURE *args` (pass `--listen`),
    stopped and checked like any `start_faultline` process."""
    def start(capture, *args):
        return start_faultline(*args, command=("replay", "serve", str(capture)))

    return start


@pytest.fixture
def faultline(start_faultline):
    """A forward proxy on an ephemeral loopback port."""
    return start_faultline("--listen", "127.0.0.1:0")


@pytest.fixture(scope="session")
def nginx(tmp_path_factory):
    server = Nginx(str(tmp_path_factory.mktemp("nginx"))).start()
    yield server
    server.stop()


@pytest.fixture(scope="session")
def origin():
    server = Origin().start()
    yield server
    server.stop()


@pytest.fixture(scope="session")
def certificates(tmp_path_factory):
    return make_certificates(str(tmp_path_factory.mktemp("tls")))


@pytest.fixture(scope="session")
def tls_origin(certificates):
    server = Origin(tls_context=server_context(certificates)).start()
    yield server
    server.stop()


@pytest.fixture(scope="session")
def h2_origin(tmp_path_factory, certificates):
    """nginx with an h2 listener over TLS (the `certificates` CA) and an h2c one."""
    server = H2Nginx(str(tmp_path_factory.mktemp("nginx-h2")), certificates).start()
    yield server
    server.stop()


@pytest.fixture(scope="session")
def h2_server():
    """The scripted HTTP/2 server, cleartext with prior knowledge (h2c)."""
    server = ScriptedH2Server().start()
    yield server
    server.stop()


@pytest.fixture(scope="session")
def ws_origin():
    server = EchoServer().start()
    yield server
    server.stop()


@pytest.fixture
def chromium(tmp_path):
    """Headless Chromium (the system's, driven by Playwright) for one test, its home in tmp_path;
    `new_page(**options)` opens a page in a fresh context. A missing chromium or playwright fails
    the test."""
    from harness.browser import Chromium

    with Chromium(str(tmp_path)) as browser:
        yield browser


@pytest.fixture
def browser_page(chromium):
    """A fresh `BrowserPage` (harness/browser.py): `open(path)`, `page`, `requested`."""
    return chromium.new_page()


@pytest.fixture
def open_ui(chromium):
    """Returns `open(ui, script=None, viewport=None)`: a live `UIPage` (harness/ui_page.py) on that
    UI in a fresh browser context (`viewport` as `{"width": W, "height": H}`, else Playwright's
    1280x720); `script(text) -> text` serves the page a changed app.js (a mutant). Each page must
    end without problems (checked at teardown too, before the proxy stops)."""
    from harness.ui_page import UIPage

    pages = []

    def open_page(ui, script=None, viewport=None):
        page = UIPage(chromium.new_page(**({"viewport": viewport} if viewport else {})), ui)
        if script is not None:
            def mutate(route):
                original = route.fetch()
                route.fulfill(response=original, body=script(original.text()))

            page.page.route("**/ui/app.js", mutate)
        pages.append(page)
        page.open()
        return page

    yield open_page
    problems = [problem for page in pages for problem in page.problems]
    for page in pages:
        page.tab.close()
    assert not problems, "the page reported problems:\n" + "\n".join(problems)


@pytest.fixture
def auth_backend():
    """A fresh fake OAuth-2 backend (harness/auth_backend.py) for one test."""
    from harness.auth_backend import AuthBackend

    server = AuthBackend().start()
    yield server
    server.stop()


@pytest.fixture
def rules_folder(tmp_path):
    """Returns `make(*example_names, profile=True, enable=(), disable=())`: a new private folder
    holding copies of those Rules/ examples (see harness/rules.py `copy_examples`)."""
    from harness.rules import copy_examples

    made = []

    def make(*names, **options):
        folder = str(tmp_path / f"rules-{len(made)}")
        made.append(folder)
        return copy_examples(folder, *names, **options)

    return make


@pytest.fixture
def start_with_rules(start_faultline):
    """Returns `start(folder, *more_args)`: a forward proxy on an ephemeral port running
    `--rules folder`."""
    def start(folder, *args):
        return start_faultline("--listen", "127.0.0.1:0", "--rules", folder, *args)

    return start


@pytest.fixture
def background_curl():
    """Returns `start(proxy_url, url)`: a BackgroundCurl, killed at teardown if still running."""
    started = []

    def start(proxy_url, url, **options):
        client = BackgroundCurl(proxy_url, url, **options)
        started.append(client)
        return client

    yield start
    for client in started:
        client.stop()


@pytest.fixture
def ui_proxy(start_faultline, faultline_binary, tmp_path):
    """A forward proxy running the web UI tests' rules (harness/ui.py) with its own control file;
    `.ui` is its UI."""
    proxy = rules_proxy_starter(start_faultline, faultline_binary, tmp_path)({"ui.json5": UI_RULES})
    proxy.ui = UI(faultline_binary, proxy.control.control_file)
    return proxy

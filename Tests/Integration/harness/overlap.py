"""A capture whose two requests overlapped, for the tests of the recorded order (`replay serve
--order recorded`, `rules from-capture`, the web UI's view of a waiting answer): /sink went first
on one connection and was answered last, after /echo came on another and was answered while
/sink's answer was held. The order comes from a hold the test releases, never from sleeping."""
import threading

from .control import Control
from .http_clients import httpx_client
from .trace import Trace

HOLD_SINK = """{
  rules: [{ name: "hold-sink", phase: "response", match: { path: "/sink" },
            actions: [{ hold: { name: "sink", timeout: 30 } }] }],
}"""


class Background:
    """One GET in a thread, on its own client (so its own connection)."""

    def __init__(self, make_client, url):
        self.answer = None
        self.error = None
        self.thread = threading.Thread(target=self._get, args=(make_client, url), daemon=True)
        self.thread.start()

    def _get(self, make_client, url):
        try:
            with make_client() as client:
                self.answer = client.get(url)
        except Exception as error:  # reported by result()
            self.error = error

    def done(self):
        return not self.thread.is_alive()

    def result(self, timeout):
        self.thread.join(timeout)
        assert not self.thread.is_alive(), f"no answer within {timeout}s"
        if self.error:
            raise self.error
        return self.answer


def record_overlapped(start_faultline, origin, folder):
    """Records the overlap through `faultline run --capture` in front of `origin` (a
    harness.python_origin.Origin), with its rules and control file in `folder` (a pathlib.Path);
    returns (capture path, origin URL, the recorded flow of /sink)."""
    rules = folder / "capture-rules"
    rules.mkdir()
    (rules / "hold-sink.json5").write_text(HOLD_SINK)
    control_file = str(folder / "capture-control.json")
    proxy = start_faultline("--listen", "127.0.0.1:0", "--capture", "--rules", str(rules), "--control-file", control_file)
    control = Control(proxy.binary, control_file)
    slow = Background(lambda: httpx_client(proxy.listeners[0].url), f"{origin.url}/sink?first")
    control.wait_for_holds("sink")
    with httpx_client(proxy.listeners[0].url) as client:
        assert client.get(f"{origin.url}/echo?second").status_code == 200
    assert control.release("sink").returncode == 0
    assert slow.result(20).status_code == 200
    assert proxy.stop() == 0
    trace = Trace.load(proxy.trace_file)
    delivered = [event["flow"] for event in trace.of("response.delivered")]
    received = [event["flow"] for event in trace.of("request.received")]
    assert delivered == received[::-1], "the capture's two requests did not overlap"
    return proxy.trace_file, origin.url, trace.one("request.received", path="/sink")["flow"]

"""Credentials as state when the credential travels in the request body (issue 25 item 1): a
session against the real `faultline backend`, recorded by mitmproxy's mitmdump as a HAR (raw
tokens, as another tool writes them), is served by `faultline replay serve`. The client logs in,
refreshes with a refresh form (RFC 6749 §6), and logs in again; then it refreshes with the second
login's refresh token, which the recording never sent to /oauth/token. The replay answers that
refresh as the recorded one, as a stand-in (`replay.matched` by `credential-state`), where it
answered 502 `replay-unmatched` before; no recorded or replayed token shows in its trace or on
its standard error, and nothing reaches the recorded backend's port."""
import pytest
import requests

from harness.listener import CountingListener
from harness.mitmdump import Mitmdump
from harness.reference_backend import ReferenceBackend

pytestmark = pytest.mark.timeout(120)

PASSWORD = "hunter2-body-credentials"


def token_request(proxy_url, base, **form):
    """One POST /oauth/token through `proxy_url`, a fresh connection and no cookie jar (so only the
    form carries a credential); returns the answer."""
    with requests.Session() as session:
        session.trust_env = False
        session.proxies = {"http": proxy_url}
        return session.post(f"{base}/oauth/token", data=form, timeout=10)


def log_in(proxy_url, base):
    answer = token_request(proxy_url, base, grant_type="password", username="ann", password=PASSWORD)
    assert answer.status_code == 200, answer.text
    return answer.json()


def refresh(proxy_url, base, refresh_token):
    return token_request(proxy_url, base, grant_type="refresh_token", refresh_token=refresh_token)


@pytest.fixture(scope="module")
def recorded(faultline_binary, tmp_path_factory):
    """The session recorded once through mitmdump in front of a `faultline backend`, which is then
    stopped: the HAR's path, the backend's URL and port, and the raw tokens it handed out."""
    folder = tmp_path_factory.mktemp("body-credentials")
    backend = ReferenceBackend(faultline_binary).start()
    try:
        with Mitmdump(str(folder)) as recorder:
            first = log_in(recorder.url, backend.url)
            answer = refresh(recorder.url, backend.url, first["refresh_token"])
            assert answer.status_code == 200, answer.text
            second = log_in(recorder.url, backend.url)
    finally:
        assert backend.stop() == 0
    tokens = [first, answer.json(), second]
    raw = [token[name] for token in tokens for name in ("access_token", "refresh_token")]
    assert len(set(raw)) == 6
    with open(recorder.har_path, encoding="utf-8") as handle:
        text = handle.read()
    assert all(token in text for token in raw), "mitmdump's HAR keeps the tokens raw"
    return {"har": recorder.har_path, "url": backend.url, "port": int(backend.url.rsplit(":", 1)[1]), "raw": raw}


def test_a_refresh_form_with_a_token_never_sent_to_the_token_endpoint_stands_in_for_the_recorded_one(
        start_replay, recorded):
    base = recorded["url"]
    with CountingListener(recorded["port"]) as host:
        replay = start_replay(recorded["har"], "--listen", "127.0.0.1:0")
        proxy = replay.listeners[0].url
        first = log_in(proxy, base)
        refreshed = refresh(proxy, base, first["refresh_token"])
        assert refreshed.status_code == 200, refreshed.text
        second = log_in(proxy, base)
        assert second["refresh_token"] != first["refresh_token"]
        # The recording refreshed with the first login's token only.
        standing_in = refresh(proxy, base, second["refresh_token"])
        assert replay.stop() == 0, replay.stderr
    assert host.connections == 0, "the replay reached the recorded backend's port"

    assert standing_in.status_code == 200, standing_in.text
    tokens = standing_in.json()
    assert set(tokens) == set(refreshed.json())
    # A second answer of the recorded refresh: new tokens, not the ones the first refresh got.
    for name in ("access_token", "refresh_token"):
        assert tokens[name] not in (refreshed.json()[name], first[name], second[name])
        assert tokens[name] not in recorded["raw"]

    trace = replay.trace()
    assert not trace.of("replay.unmatched"), trace.of("replay.unmatched")
    [event] = trace.of("replay.matched", by="credential-state")
    assert (event["rule"], event["status"]) == ("stand-in", 200), event
    # Named by the recorded flow that issued each (a HAR holds real tokens), never by value:
    # the third recorded flow's refresh token stands in for the first's.
    assert event["credential"].startswith("issued:flow3.") and event["stands_in_for"].startswith("issued:flow1."), event
    handed_out = [first, refreshed.json(), second, tokens]
    secrets = recorded["raw"] + [token[name] for token in handed_out for name in ("access_token", "refresh_token")]
    for secret in secrets:
        assert secret not in trace.text, "a token is in the replay's trace"
        assert secret not in replay.stderr, "a token is on the replay's standard error"

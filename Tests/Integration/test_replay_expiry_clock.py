"""A recorded expiry on the replay's clock (`--clock`, `--now`): a HAR (raw tokens, as another
tool writes one) of a login whose access token the server accepted a minute later and refused an
hour later, nothing having revoked it, is replayed a day later. Presented at once after the
replayed login, the token is accepted with `--clock shift` (its fresh value has not lived an hour)
and with `--clock frozen=…` (nothing expires on a clock that stands still), and refused with the
recorded refusal with `--clock recorded` (the recorded instant of the refusal is a day past)."""
import calendar
import json

import pytest
import requests

from harness.har import har_entry, write_har_log

pytestmark = pytest.mark.timeout(60)

DAY = 86_400
API = "http://api.expiry.test"
ACCESS = "recorded-access-token-0123456789"
REFRESH = "recorded-refresh-token-0123456789"
LOGIN = "grant_type=password&username=ann&password=pw"


@pytest.fixture
def recording(tmp_path):
    at = calendar.timegm((2026, 12, 2, 0, 0, 0))
    form = [("Content-Type", "application/x-www-form-urlencoded")]
    bearer = [("Authorization", f"Bearer {ACCESS}")]
    refused = har_entry(at + 3600, "GET", f"{API}/v1/me", bearer, "", json.dumps({"error": "invalid_token"}),
                        response_headers=[("Content-Type", "application/json"),
                                          ("WWW-Authenticate", 'Bearer error="invalid_token"')])
    refused["response"].update(status=401, statusText="Unauthorized")
    path = tmp_path / "expiry.har"
    write_har_log(path, [
        har_entry(at, "POST", f"{API}/oauth/token", form, LOGIN,
                  json.dumps({"access_token": ACCESS, "refresh_token": REFRESH, "token_type": "Bearer"})),
        har_entry(at + 60, "GET", f"{API}/v1/me", bearer, "", json.dumps({"name": "ann"})),
        refused,
    ])
    return path, at


@pytest.mark.parametrize("clock, status", [("shift", 200), ("recorded", 401), ("frozen=2026-12-03T00:00:00Z", 200)])
def test_a_token_presented_right_after_the_login_a_day_later(start_replay, recording, clock, status):
    path, at = recording
    replay = start_replay(path, "--listen", "127.0.0.1:0", "--now", str(at + DAY), "--clock", clock)
    with requests.Session() as session:
        session.proxies = {"http": replay.listeners[0].url}
        login = session.post(f"{API}/oauth/token", data=LOGIN, timeout=10,
                             headers={"Content-Type": "application/x-www-form-urlencoded"})
        assert login.status_code == 200, login.text
        token = login.json()["access_token"]
        me = session.get(f"{API}/v1/me", headers={"Authorization": f"Bearer {token}"}, timeout=10)
    assert replay.stop() == 0, replay.stderr
    assert me.status_code == status, me.text
    trace = replay.trace()
    state = trace.of("replay.matched", by="credential-state")
    if status == 401:
        # The recorded refusal, headers and body, by the credential-state rule.
        assert me.headers.get("WWW-Authenticate") == 'Bearer error="invalid_token"' and me.json() == {"error": "invalid_token"}
        [event] = state
        assert (event["rule"], event["cause"]) == ("rejected", "expiry"), event
    else:
        assert me.json() == {"name": "ann"} and not state, state
    text = trace.text + replay.stderr
    for secret in (ACCESS, REFRESH, token):
        assert secret not in text

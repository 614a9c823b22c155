"""Issue 25 item 1, credentials as state: a refresh race with reuse detection, recorded through
`faultline run --capture` against `faultline backend`, replayed by `faultline replay serve` with
the winner changing between replays. The recording shows the backend revoking the lineage on the
reuse (RFC 6749 §10.4, RFC 9700 §4.14.2), so the winner's next call is refused on whatever path it
takes, and the loser's new login stands in for the old one where only that was recorded: the
outcomes equal the recording's in 20 of 20 replays. Also item 4's part: a capture whose clock
runs backwards loads with a warning naming the entries."""
import threading

import pytest

from harness.http_clients import httpx_client
from harness.listener import CountingListener
from harness.reference_backend import ReferenceBackend
from harness.trace import Trace, step_clock_back

pytestmark = pytest.mark.timeout(300)

WAIT = 30  # seconds: the deadline of every wait on the other client
PASSWORD = "hunter2-credstate"
# The two refreshers share one login and call different paths: X /v1/messages, Y /v1/me.
PATHS = {"X": "/v1/messages", "Y": "/v1/me"}


def session(proxy_url, base, winner):
    """One session through `proxy_url`: a login, each refresher's first call, then a refresh race
    that `winner` wins: it refreshes first, the other refreshes with the same (now rotated) token
    when the winner's answer is in, the winner calls again once the loser's answer is in, and the
    loser logs in again and calls again. The order is the test's (events with deadlines), never
    a sleep. Returns the outcomes by side (`winner`, `loser`), the tokens handed out, and the
    refresh answers' bodies."""
    with httpx_client(proxy_url) as client:
        login = client.post(f"{base}/oauth/token", data={"grant_type": "password", "username": "ann", "password": PASSWORD})
    assert login.status_code == 200, login.text
    tokens = login.json()
    handed_out = [tokens["access_token"], tokens["refresh_token"], login.cookies.get("session") or ""]
    called = threading.Barrier(2, timeout=WAIT)
    refreshed = threading.Event()
    lost = threading.Event()
    outcomes, errors, lock = {}, [], threading.Lock()

    def refresher(name):
        path = PATHS[name]
        first = name == winner
        steps = []
        try:
            with httpx_client(proxy_url) as client:
                bearer = {"Authorization": f"Bearer {tokens['access_token']}"}
                steps.append(client.get(base + path, headers=bearer).status_code)
                called.wait()  # both first calls are in before either refresh
                if not first:
                    assert refreshed.wait(WAIT), "the winner's refresh did not finish in time"
                answer = client.post(f"{base}/oauth/token", data={"grant_type": "refresh_token", "refresh_token": tokens["refresh_token"]})
                steps.append(answer.status_code)
                (refreshed if first else lost).set()
                if answer.status_code == 200:
                    access = answer.json()["access_token"]
                    assert lost.wait(WAIT), "the loser's refresh did not finish in time"
                else:
                    steps.append(answer.json()["error"])
                    again = client.post(f"{base}/oauth/token", data={"grant_type": "password", "username": "ann", "password": PASSWORD})
                    steps.append(again.status_code)
                    access = again.json()["access_token"]
                with lock:
                    handed_out.extend([access, answer.json().get("refresh_token", "")])
                steps.append(client.get(base + path, headers={"Authorization": f"Bearer {access}"}).status_code)
        except Exception as error:  # noqa: BLE001 - reported by the test thread
            with lock:
                errors.append(f"{name}: {error!r}")
            refreshed.set()
            lost.set()
            called.abort()
        with lock:
            outcomes["winner" if first else "loser"] = tuple(steps)

    threads = [threading.Thread(target=refresher, args=(name,), name=f"refresher-{name}") for name in PATHS]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(WAIT * 3)
    assert not any(thread.is_alive() for thread in threads), "a refresher did not finish"
    assert not errors, errors
    return outcomes, [token for token in handed_out if token]


@pytest.fixture(scope="module")
def recorded(faultline_binary, tmp_path_factory):
    """The race recorded once (X wins) against a real `faultline backend`, which is then stopped:
    the capture, the outcomes, the backend's address and the raw secrets it handed out."""
    from harness.faultline import Faultline
    from harness.rules import copy_examples

    folder = tmp_path_factory.mktemp("credstate")
    rules = copy_examples(str(folder / "rules"))
    backend = ReferenceBackend(faultline_binary).start()
    try:
        proxy = Faultline(faultline_binary, ["--listen", "127.0.0.1:0", "--rules", rules, "--capture", "--control", "off"],
                          str(folder / "race.jsonl"), str(folder)).start()
        try:
            outcomes, raw = session(proxy.listeners[0].url, backend.url, winner="X")
        finally:
            assert proxy.stop() == 0, proxy.stderr
        stats = backend.stats()
    finally:
        assert backend.stop() == 0
    assert stats["reuseDetections"] == 1, stats
    return {"capture": proxy.trace_file, "outcomes": outcomes, "url": backend.url, "raw": raw + [PASSWORD],
            "port": int(backend.url.rsplit(":", 1)[1]), "rules": rules}


def test_the_recording_is_a_race_the_backend_ended_with_a_reuse_revocation(recorded):
    # The winner's next call is refused (its lineage was revoked by the loser's reuse); the loser
    # logs in again and is served.
    assert recorded["outcomes"] == {"winner": (200, 200, 401), "loser": (200, 400, "invalid_grant", 200, 200)}
    text = open(recorded["capture"], encoding="utf-8").read()
    for secret in recorded["raw"]:
        assert secret not in text, "a raw secret is in the capture"


def test_twenty_replays_with_the_winner_changing_answer_as_the_recording(start_replay, recorded):
    equal = 0
    by_rule = {"rejected": 0, "stand-in": 0}
    with CountingListener(recorded["port"]) as host:
        for run in range(20):
            winner = "X" if run % 2 == 0 else "Y"
            replay = start_replay(recorded["capture"], "--listen", "127.0.0.1:0", "--rules", recorded["rules"])
            outcomes, handed_out = session(replay.listeners[0].url, recorded["url"], winner)
            assert replay.stop() == 0, replay.stderr
            equal += outcomes == recorded["outcomes"]
            assert outcomes == recorded["outcomes"], f"replay {run + 1} (winner {winner}): {outcomes}"
            trace = replay.trace()
            assert not trace.of("replay.unmatched"), trace.of("replay.unmatched")
            state = trace.of("replay.matched", by="credential-state")
            for event in state:
                by_rule[event["rule"]] += 1
                assert event["credential"].startswith("issued:flp."), event
            if winner == "Y":
                # Y's call on /v1/me with the rotated-in token was recorded on /v1/messages only.
                assert any(event["rule"] == "rejected" and event["cause"] == "reuse" and event["status"] == 401
                           for event in state), state
                # X's new login was recorded on /v1/me only: it stands in for the first on /v1/messages.
                assert any(event["rule"] == "stand-in" and event["status"] == 200 for event in state), state
            # No secret of the recording, nor one this replay handed out, in the trace or on stderr.
            for secret in recorded["raw"] + handed_out:
                assert secret not in trace.text, "a secret is in the replay's trace"
                assert secret not in replay.stderr, "a secret is on the replay's standard error"
        assert host.connections == 0, "a replay reached the recorded backend's port"
    assert equal == 20
    assert by_rule["rejected"] >= 20 and by_rule["stand-in"] >= 10, by_rule


def test_a_capture_whose_clock_runs_backwards_loads_with_a_warning(start_replay, recorded, tmp_path):
    # The second request's wall clock put a minute before the first's (a clock stepped back).
    stepped = tmp_path / "stepped.jsonl"
    first, second = step_clock_back(recorded["capture"], stepped)
    replay = start_replay(stepped, "--listen", "127.0.0.1:0")
    assert replay.stop() == 0
    flow = second["flow"]
    assert "the recorded clock runs backwards at 1 entry" in replay.stderr, replay.stderr
    assert f"flow {flow} at {second['wall']}, after flow {first['flow']} at {first['wall']}" in replay.stderr
    warning = replay.trace().one("replay.clock-backwards")
    assert warning["count"] == 1 and warning["entries"][0].startswith(f"flow {flow} at ")

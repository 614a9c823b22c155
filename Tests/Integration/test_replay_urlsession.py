"""`faultline replay serve` as the token issuer for a URLSession client that decodes its JWTs (issue
25 item 3): Foundation's URLSession (`faultline-urlsession-client --token-check`, through the
replay as its `http_proxy`) fetches the recorded OIDC login's token answer (harness/oidc_recording.py),
decodes the ID token's and the access token's payload and judges `exp`/`nbf` against its own clock.
Replayed a day later (`--now`) with the default `--clock shift`, it accepts them; with `--clock
recorded`, it finds them expired."""
import pytest

from harness.clients import clean_env, run
from harness.oidc_recording import DAY, ISSUER, make_recording

pytestmark = pytest.mark.timeout(90)

LOGIN = "grant_type=authorization_code&code=live-code&client_id=app"


def token_check(client, replay, now, field):
    """The client's verdict on the login answer's `field` at `now`: `(status, verdict, exp)`."""
    done = run([client, "--token-check", "--now", str(now), "--form", LOGIN, "--field", field,
                f"{ISSUER}/oauth/token"], timeout=60, env=clean_env(http_proxy=replay.listeners[0].url))
    assert done.returncode == 0, done.stderr.decode(errors="replace")
    status, verdict, exp, _ = done.stdout.decode().split()
    return int(status), verdict, int(exp.removeprefix("exp="))


@pytest.mark.parametrize("clock, verdict", [("shift", "accepted"), ("recorded", "expired")])
def test_a_urlsession_client_judges_the_replayed_tokens_by_its_own_clock(
        start_replay, urlsession_client, tmp_path, clock, verdict):
    path, at, _, _ = make_recording(tmp_path)
    later = at + DAY
    replay = start_replay(path, "--listen", "127.0.0.1:0", "--now", str(later), "--clock", clock)
    # The ID token lives 600 s, the access token 3600 s: a day later both are long expired unless
    # the replay moved them.
    for field, lifetime in (("id_token", 600), ("access_token", 3600)):
        status, seen, exp = token_check(urlsession_client, replay, later + 5, field)
        assert (status, seen) == (200, verdict), (field, exp)
        if clock == "recorded":
            assert exp == at + lifetime
        else:
            # Issued by the answer to a request recorded a second after `at`; moved by the
            # distance from that request to this one.
            assert later + lifetime - 1 <= exp < later + lifetime + 30, (field, exp)
    assert replay.stop() == 0

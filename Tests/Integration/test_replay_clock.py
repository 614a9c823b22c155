"""`faultline replay serve --clock`: a recording replayed a day later hands out times a day later
(the `Date` header, a session cookie's `Expires`, a JSON `expires_at`, a JWT's `exp`), so a
client's cookie jar and token checks hold as they did when recorded; `--clock recorded` keeps the
recorded times, and `--clock frozen=TIME` answers as at one instant. The recording is a HAR written
here, as another tool would write it (raw secrets), so its times can be set."""
import base64
import calendar
import json
import time
from email.utils import format_datetime, parsedate_to_datetime
from datetime import datetime, timezone

import pytest
import requests

from harness.har import har_entry, write_har_log

pytestmark = pytest.mark.timeout(90)

DAY = 86_400
SIGNATURE = "cmVjb3JkZWQtc2lnbmF0dXJl"  # base64url of "recorded-signature"
COOKIE = "raw-session-cookie-0123456789"


def b64url(data):
    return base64.urlsafe_b64encode(json.dumps(data, separators=(",", ":")).encode()).rstrip(b"=").decode()


def claims_of(token):
    part = token.split(".")[1]
    return json.loads(base64.urlsafe_b64decode(part + "=" * (-len(part) % 4)))


def http_date(seconds):
    return format_datetime(datetime.fromtimestamp(seconds, timezone.utc), usegmt=True)


def seconds_of(http_date_text):
    return int(parsedate_to_datetime(http_date_text).timestamp())


def cookie_expires(set_cookie):
    attributes = dict(part.strip().split("=", 1) for part in set_cookie.split(";")[1:] if "=" in part)
    return seconds_of(attributes["Expires"]), attributes["Max-Age"]


def write_har(path, recorded_at, max_age="; Max-Age=3600"):
    """A login at `recorded_at` whose answer carries `Date`, a cookie with `Expires`, a JWT with
    `exp` and an `expires_at`, then a call presenting the token and the cookie a second later."""
    token = f"{b64url({'alg': 'RS256', 'typ': 'JWT', 'kid': 'k1'})}.{b64url({'sub': 'ann', 'iat': recorded_at, 'nbf': recorded_at, 'exp': recorded_at + 3600})}.{SIGNATURE}"
    id_claims = {"iss": "http://api.clock.test", "aud": "app", "sub": "ann", "nonce": "n-1", "auth_time": recorded_at,
                 "iat": recorded_at, "exp": recorded_at + 600}
    id_token = f"{b64url({'alg': 'RS256', 'kid': 'k1'})}.{b64url(id_claims)}.{SIGNATURE}"
    login = {"access_token": token, "id_token": id_token, "token_type": "Bearer", "expires_in": 3600,
             "expires_at": recorded_at + 3600}

    entries = [
        har_entry(recorded_at, "POST", "http://api.clock.test/oauth/token", [("Content-Type", "application/x-www-form-urlencoded")],
                  "grant_type=password&username=ann&password=recorded-password", json.dumps(login),
                  [("Content-Type", "application/json"), ("Date", http_date(recorded_at)),
                   ("Set-Cookie", f"sid={COOKIE}; Path=/; Expires={http_date(recorded_at + 3600)}{max_age}; HttpOnly")]),
        # A second later: the token and the cookie were issued before they were presented.
        har_entry(recorded_at + 1, "GET", "http://api.clock.test/v1/me", [("Authorization", f"Bearer {token}"), ("Cookie", f"sid={COOKIE}")], "",
                  json.dumps({"name": "ann"}), [("Content-Type", "application/json"), ("Date", http_date(recorded_at + 1))]),
    ]
    write_har_log(path, entries)
    return token


def log_in_and_call(replay):
    """What a client does: log in, keep the cookie in its jar, call with the token. Returns the
    session, the login response and the call's."""
    base = replay.listeners[0].url
    session = requests.Session()
    login = session.post(f"{base}/oauth/token", data={"grant_type": "password", "username": "ann", "password": "pw"}, timeout=10)
    assert login.status_code == 200, login.text
    token = login.json()["access_token"]
    me = session.get(f"{base}/v1/me", headers={"Authorization": f"Bearer {token}"}, timeout=10)
    return session, login, me


def shifted_events(replay):
    return replay.trace().of("replay.shifted")


def assert_no_secret_leaked(replay, *secrets):
    text = open(replay.trace_file, encoding="utf-8").read() + "\n".join(replay.stderr)
    for secret in secrets:
        assert secret not in text


@pytest.fixture
def recorded_2026(tmp_path):
    """A HAR recorded at 2026-12-02T00:00:00Z."""
    path = tmp_path / "fixed.har"
    at = calendar.timegm((2026, 12, 2, 0, 0, 0))
    return path, at, write_har(path, at)


def test_replayed_a_day_later_every_time_in_the_answer_is_a_day_later(start_replay, recorded_2026):
    path, at, token = recorded_2026
    a_day_later = datetime.fromtimestamp(at + DAY, timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    replay = start_replay(path, "--listen", "127.0.0.1:0", "--mode", "origin", "--now", a_day_later)
    _, login, me = log_in_and_call(replay)
    assert replay.stop() == 0
    [event] = [e for e in shifted_events(replay) if e["recorded_flow"] == 1]
    by = event["by_s"]
    # A day, plus however long the replay ran before the login came (its clock runs on from --now).
    assert DAY <= by < DAY + 30, event
    assert event["clock"] == "shift"
    assert event["fields"] == ["Date", "Set-Cookie sid Expires", "body /access_token jwt iat,nbf,exp",
                               "body /id_token jwt auth_time,iat,exp", "body /expires_at"]
    assert seconds_of(login.headers["Date"]) == at + by
    expires, max_age = cookie_expires(login.headers["Set-Cookie"])
    assert (expires, max_age) == (at + 3600 + by, "3600")
    body = login.json()
    assert (body["expires_at"], body["expires_in"]) == (at + 3600 + by, 3600)
    fresh = body["access_token"]
    claims = claims_of(fresh)
    assert (claims["iat"], claims["nbf"], claims["exp"], claims["sub"]) == (at + by, at + by, at + 3600 + by, "ann")
    # The recorded header stays but for its kid, now the replay's key (test_replay_issuer.py checks
    # the signature).
    header = json.loads(base64.urlsafe_b64decode(fresh.split(".")[0] + "=" * (-len(fresh.split(".")[0]) % 4)))
    assert header["alg"] == "RS256" and header["typ"] == "JWT" and header["kid"] != "k1"
    assert fresh.split(".")[2] != SIGNATURE and fresh != token
    # The moved token and the fresh cookie are read back as the recorded ones: the call matches.
    assert me.status_code == 200 and me.json() == {"name": "ann"}
    # Recorded a second after the login, its Date too tells this request's time.
    assert seconds_of(me.headers["Date"]) - at - DAY in range(0, 30)
    assert_no_secret_leaked(replay, token, COOKIE, SIGNATURE, "recorded-password")


def test_with_the_recorded_clock_the_answers_tell_the_recorded_times(start_replay, recorded_2026):
    path, at, token = recorded_2026
    replay = start_replay(path, "--listen", "127.0.0.1:0", "--mode", "origin", "--clock", "recorded", "--now", str(at + DAY))
    _, login, me = log_in_and_call(replay)
    assert replay.stop() == 0
    assert seconds_of(login.headers["Date"]) == at
    assert cookie_expires(login.headers["Set-Cookie"]) == (at + 3600, "3600")
    assert login.json()["expires_at"] == at + 3600
    assert claims_of(login.json()["access_token"]) == claims_of(token)
    assert me.status_code == 200
    assert shifted_events(replay) == []


def test_frozen_answers_as_at_the_given_instant(start_replay, recorded_2026):
    path, at, _ = recorded_2026
    replay = start_replay(path, "--listen", "127.0.0.1:0", "--mode", "origin", "--clock", "frozen=2030-01-01T00:00:00Z")
    _, login, _ = log_in_and_call(replay)
    assert replay.stop() == 0
    frozen = calendar.timegm((2030, 1, 1, 0, 0, 0))
    assert login.headers["Date"] == "Tue, 01 Jan 2030 00:00:00 GMT"
    assert claims_of(login.json()["access_token"])["exp"] == frozen + 3600
    # Each answer moves by the distance from its own recorded request to the frozen instant.
    assert [e["by_s"] for e in shifted_events(replay)] == [frozen - at, frozen - (at + 1)]


def test_a_recording_from_yesterday_keeps_the_clients_cookie_and_token_alive_today(start_replay, tmp_path):
    """The user's view: a HAR recorded yesterday, replayed today on the real clock. A cookie jar
    keeps the session cookie and a token check (exp after now) passes; with --clock recorded the
    jar drops the expired cookie and the token has expired. (The cookie has no Max-Age, which
    would win over Expires, RFC 6265 §5.3, and is relative anyway.)"""
    path = tmp_path / "yesterday.har"
    write_har(path, int(time.time()) - DAY, max_age="")
    replay = start_replay(path, "--listen", "127.0.0.1:0", "--mode", "origin")
    session, login, me = log_in_and_call(replay)
    assert replay.stop() == 0
    assert session.cookies.get("sid", "").startswith("flr")
    assert claims_of(login.json()["access_token"])["exp"] > time.time()
    assert me.status_code == 200

    stale = start_replay(path, "--listen", "127.0.0.1:0", "--mode", "origin", "--clock", "recorded")
    session, login, me = log_in_and_call(stale)
    assert stale.stop() == 0
    assert "sid" not in session.cookies
    assert claims_of(login.json()["access_token"])["exp"] < time.time()


def id_token_time_problems(claims, now, leeway=60, max_age=600):
    """The time checks an OpenID Connect client makes of an ID token (OIDC Core §3.1.3.7 items 9
    and 10, RFC 7519 §4.1.4-§4.1.6); the signature check is the replay-as-issuer work."""
    problems = []
    if claims["exp"] <= now - leeway:
        problems.append("expired")
    if claims["iat"] > now + leeway or claims["iat"] < now - max_age:
        problems.append("iat too far from now")
    if claims.get("nbf", 0) > now + leeway:
        problems.append("not yet valid")
    return problems


@pytest.mark.parametrize("days", [1, 30])
def test_an_oidc_clients_time_checks_pass_days_later_and_fail_on_the_recorded_clock(start_replay, recorded_2026, days):
    path, at, _ = recorded_2026
    later = at + days * DAY
    replay = start_replay(path, "--listen", "127.0.0.1:0", "--mode", "origin", "--now", str(later))
    _, login, _ = log_in_and_call(replay)
    assert replay.stop() == 0
    # The client's clock reads what the replay's does: --now, and the moments since it started.
    assert id_token_time_problems(claims_of(login.json()["id_token"]), now=later + 5) == []

    stale = start_replay(path, "--listen", "127.0.0.1:0", "--mode", "origin", "--now", str(later), "--clock", "recorded")
    _, login, _ = log_in_and_call(stale)
    assert stale.stop() == 0
    assert id_token_time_problems(claims_of(login.json()["id_token"]), now=later + 5) == ["expired", "iat too far from now"]


@pytest.mark.parametrize("args, expected", [
    (("--clock", "later"), "--clock takes shift, recorded or frozen=TIME"),
    (("--clock", "frozen=tomorrow"), "--clock takes shift, recorded or frozen=TIME"),
    (("--now", "2026-12-03"), "--now takes a time"),
])
def test_a_bad_clock_is_a_usage_error(faultline_binary, recorded_2026, args, expected):
    import subprocess
    path, _, _ = recorded_2026
    done = subprocess.run([faultline_binary, "replay", "serve", str(path), "--listen", "127.0.0.1:0", *args],
                          capture_output=True, text=True, timeout=30)
    assert done.returncode == 2 and expected in done.stderr, done.stderr

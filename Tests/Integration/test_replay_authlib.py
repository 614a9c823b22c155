"""`faultline replay serve` as the token issuer, checked by a verifying client the issue names:
authlib's `jose` (`JsonWebToken`, `JsonWebKey`). The recorded OIDC login of
harness/oidc_recording.py is replayed a day later (`--now`); authlib fetches the JWK Set the
discovery document names, verifies the replayed ID tokens (RS256, ES512 on P-521, EdDSA with
Ed25519) against it alone and validates `exp`/`iat` at the replay's time: it accepts them. With
`--clock recorded` the signature still verifies but authlib rejects the token as expired."""
import pytest
from authlib.jose import JsonWebKey, JsonWebToken
from authlib.jose.errors import BadSignatureError, ExpiredTokenError

from harness.oidc_recording import DAY, ISSUER, log_in, make_recording, parts, proxied

pytestmark = pytest.mark.timeout(90)

ALGORITHMS = ["RS256", "ES512", "EdDSA"]
# OIDC Core §3.1.3.7: the issuer and audience must be the expected ones.
CLAIMS_OPTIONS = {"iss": {"essential": True, "value": ISSUER}, "aud": {"essential": True, "value": "app"},
                  "exp": {"essential": True}}


@pytest.fixture
def recording(tmp_path):
    return make_recording(tmp_path)


def id_token(session, alg):
    """The ID token of `alg`: the login's (RS256), or the recorded token endpoint's of that alg."""
    if alg == "RS256":
        return log_in(session)["id_token"]
    answer = session.post(f"{ISSUER}/oauth/token/{alg.lower()}", data={"grant_type": "refresh_token"}, timeout=10)
    assert answer.status_code == 200, answer.text
    return answer.json()["id_token"]


def authlib_claims(session, token, alg):
    """What an OIDC client built on authlib does: the discovery document, the JWK Set at its
    `jwks_uri`, then `JsonWebToken.decode` with the key set (the key the token's `kid` names)."""
    discovery = session.get(f"{ISSUER}/.well-known/openid-configuration", timeout=10)
    assert discovery.status_code == 200, discovery.text
    jwks = session.get(discovery.json()["jwks_uri"], timeout=10)
    assert jwks.status_code == 200, jwks.text
    key_set = JsonWebKey.import_key_set(jwks.json())
    return JsonWebToken([alg]).decode(token, key_set, claims_options=CLAIMS_OPTIONS)


@pytest.mark.parametrize("alg", ALGORITHMS)
def test_authlib_verifies_the_replayed_id_token_a_day_later(start_replay, recording, alg):
    path, at, _, _ = recording
    later = at + DAY
    replay = start_replay(path, "--listen", "127.0.0.1:0", "--now", str(later))
    session = proxied(replay)
    token = id_token(session, alg)
    claims = authlib_claims(session, token, alg)
    # The client's clock reads what the replay's does: --now, and the moments since it started.
    claims.validate(now=later + 5, leeway=60)
    assert claims["sub"] == "ann" and claims["exp"] - claims["iat"] == 600
    assert parts(token)[0]["alg"] == alg
    # The same token with one signature byte changed does not verify.
    head, body, signature = token.split(".")
    flipped = signature[:10] + ("A" if signature[10] != "A" else "B") + signature[11:]
    with pytest.raises(BadSignatureError):
        authlib_claims(session, f"{head}.{body}.{flipped}", alg)
    assert replay.stop() == 0


@pytest.mark.parametrize("alg", ALGORITHMS)
def test_with_the_recorded_clock_authlib_rejects_the_token_as_expired(start_replay, recording, alg):
    path, at, _, _ = recording
    later = at + DAY
    replay = start_replay(path, "--listen", "127.0.0.1:0", "--now", str(later), "--clock", "recorded")
    session = proxied(replay)
    claims = authlib_claims(session, id_token(session, alg), alg)  # the signature verifies
    assert claims["exp"] == at + 600
    with pytest.raises(ExpiredTokenError):
        claims.validate(now=later + 5, leeway=60)
    assert replay.stop() == 0

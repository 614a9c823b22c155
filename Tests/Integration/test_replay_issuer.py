"""`faultline replay serve` as the token issuer (issue 25 item 3): a recorded OpenID Connect login
(discovery document, JWK Set, token answer with an RS256 ID token and an HS256 access token) is
replayed a day later, and a client that verifies the ID token as OIDC clients do (the key named
by the token's `kid` in the JWK Set that the discovery document's `jwks_uri` names, RFC 7515
§5.2; then `exp` and `iat`) accepts it. The recording's own key and HS256 secret are made here
and never reach the replay: it signs with keys of its own, which never show in its trace or on
stderr. The recording is a HAR written here, as another tool would write it (raw tokens)."""
import json

import pytest
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, hmac
from cryptography.hazmat.primitives.asymmetric import ec, ed25519, padding, rsa
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature

from harness.oidc_recording import (DAY, ISSUER, RECORDED_SECRET, assert_nothing_secret_in, b64url, log_in,
                                    make_recording, parts, proxied, unb64url)

pytestmark = pytest.mark.timeout(90)


@pytest.fixture
def recording(tmp_path):
    """A HAR recorded at 2026-12-02T00:00:00Z with a fresh RSA key of the recorded issuer's."""
    return make_recording(tmp_path)


def verified_id_token_claims(session, id_token, now, leeway=60, max_age=600):
    """What an OIDC client does with an ID token (OIDC Core §3.1.3.7): fetch the discovery
    document, then the JWK Set it names; verify the RS256 signature with the key the token's `kid`
    names; then check `iss`, `exp` and `iat`. Raises on any failure; returns the claims."""
    discovery = session.get(f"{ISSUER}/.well-known/openid-configuration", timeout=10)
    assert discovery.status_code == 200, discovery.text
    jwks = session.get(discovery.json()["jwks_uri"], timeout=10)
    assert jwks.status_code == 200, jwks.text
    header, claims, signature = parts(id_token)
    assert header["alg"] == "RS256"
    [jwk] = [k for k in jwks.json()["keys"] if k["kid"] == header["kid"]]
    public = rsa.RSAPublicNumbers(int.from_bytes(unb64url(jwk["e"]), "big"),
                                  int.from_bytes(unb64url(jwk["n"]), "big")).public_key()
    signing_input = id_token.rsplit(".", 1)[0].encode()
    public.verify(signature, signing_input, padding.PKCS1v15(), hashes.SHA256())  # raises InvalidSignature
    assert claims["iss"] == ISSUER and claims["aud"] == "app"
    assert claims["exp"] > now - leeway, "expired"
    assert now - max_age <= claims["iat"] <= now + leeway, "iat too far from now"
    return claims


@pytest.mark.parametrize("days", [1, 30])
def test_an_oidc_client_verifies_the_replayed_id_token_against_the_replayed_jwks(start_replay, recording, days):
    path, at, key, (recorded_id_token, recorded_access_token, _) = recording
    later = at + days * DAY
    replay = start_replay(path, "--listen", "127.0.0.1:0", "--now", str(later))
    session = proxied(replay)
    tokens = log_in(session)
    id_token = tokens["id_token"]
    # The client's clock reads what the replay's does: --now, and the moments since it started.
    claims = verified_id_token_claims(session, id_token, now=later + 5)
    assert claims["sub"] == "ann" and claims["exp"] - claims["iat"] == 600
    # Recorded a second before the token request that issued it; moved by that request's distance.
    assert later - 1 <= claims["iat"] < later + 30

    # The recorded key does not verify the replayed token: the replay signed it with its own.
    header, _, signature = parts(id_token)
    assert header["kid"] != "recorded-rsa" and id_token != recorded_id_token
    with pytest.raises(InvalidSignature):
        key.public_key().verify(signature, id_token.rsplit(".", 1)[0].encode(), padding.PKCS1v15(), hashes.SHA256())
    # The JWK Set is the replay's public keys: no recorded key, no private member.
    jwks = session.get(f"{ISSUER}/oauth/jwks", timeout=10).json()
    assert "recorded-rsa" not in json.dumps(jwks)
    assert all(not {"d", "p", "q", "k"} & set(k) for k in jwks["keys"])
    assert {k["kty"] for k in jwks["keys"]} == {"RSA", "EC", "OKP"}
    assert replay.stop() == 0

    trace = replay.trace()
    minted = trace.of("replay.minted")
    assert sorted((e["alg"], e["kid"][:3]) for e in minted) == [("HS256", "hs-"), ("RS256", "rsa")]
    [rs] = [e for e in minted if e["alg"] == "RS256"]
    assert rs["kid"] == header["kid"]
    # Each JWK Set answer (the client's fetch and the one above) says so.
    keys = trace.of("replay.keys")
    assert len(keys) == 2 and all(e["recorded_keys"] == 1 and header["kid"] in e["kids"] for e in keys)
    signature_text = id_token.rsplit(".", 1)[1]
    assert_nothing_secret_in(replay, recorded_id_token, recorded_access_token, id_token, tokens["access_token"],
                             signature_text, RECORDED_SECRET.decode(), recorded_id_token.rsplit(".", 1)[1])


def test_with_the_recorded_clock_the_signature_verifies_but_the_token_has_expired(start_replay, recording):
    path, at, _, _ = recording
    later = at + DAY
    replay = start_replay(path, "--listen", "127.0.0.1:0", "--now", str(later), "--clock", "recorded")
    session = proxied(replay)
    id_token = log_in(session)["id_token"]
    with pytest.raises(AssertionError, match="expired"):
        verified_id_token_claims(session, id_token, now=later + 5)
    assert replay.stop() == 0


def test_an_hs256_token_is_re_signed_with_a_secret_only_the_replay_knows_and_accepted_on_the_next_request(
        start_replay, recording):
    path, at, _, (_, recorded_access_token, _) = recording
    replay = start_replay(path, "--listen", "127.0.0.1:0", "--now", str(at + DAY))
    session = proxied(replay)
    access_token = log_in(session)["access_token"]
    header, claims, signature = parts(access_token)
    assert header["alg"] == "HS256" and header["kid"].startswith("hs-")
    assert claims["exp"] - claims["iat"] == 3600 and claims["iat"] >= at + DAY - 1
    # A real HMAC-SHA256 (32 bytes), and not with the recorded secret.
    assert len(signature) == 32
    mac = hmac.HMAC(RECORDED_SECRET, hashes.SHA256())
    mac.update(access_token.rsplit(".", 1)[0].encode())
    with pytest.raises(InvalidSignature):
        mac.verify(signature)
    # The replay reads the token it issued back as the recorded one: the call matches.
    me = session.get(f"{ISSUER}/v1/me", headers={"Authorization": f"Bearer {access_token}"}, timeout=10)
    assert me.status_code == 200 and me.json() == {"name": "ann"}
    # A token it never issued does not match.
    forged = access_token.rsplit(".", 1)[0] + "." + b64url(b"\0" * 32)
    other = session.get(f"{ISSUER}/v1/me", headers={"Authorization": f"Bearer {forged}"}, timeout=10)
    assert other.status_code != 200
    # The explanation names the recorded credential it differs from by the flow that issued it,
    # never by its value (this HAR, like any from another tool, holds the real token).
    assert "issued:flow" in other.text and recorded_access_token not in other.text
    assert replay.stop() == 0
    assert_nothing_secret_in(replay, recorded_access_token, access_token, access_token.rsplit(".", 1)[1])


def test_alg_none_goes_out_unsigned_with_a_warning_and_a_foreign_jwks_is_unmatched(start_replay, recording):
    path, at, _, (_, _, unsigned) = recording
    replay = start_replay(path, "--listen", "127.0.0.1:0", "--now", str(at + DAY))
    session = proxied(replay)
    legacy = session.post(f"{ISSUER}/legacy/token", data={"grant_type": "client_credentials"}, timeout=10)
    assert legacy.status_code == 200, legacy.text
    token = legacy.json()["access_token"]
    header, claims, _ = parts(token)
    assert header == {"alg": "none", "typ": "JWT"} and claims["sub"] == "legacy"
    assert token.split(".")[2].startswith("flr")  # the placeholder: the replay cannot sign alg none
    # A JWK Set on an origin the recording does not have is unmatched, as any request.
    foreign = session.get("http://keys.elsewhere.test/oauth/jwks", timeout=10)
    assert foreign.status_code == 502 and foreign.headers.get("X-Faultline-Error") == "replay-unmatched"
    assert replay.stop() == 0
    [warning] = replay.trace().of("replay.minted")
    assert warning["alg"] == "none" and "kid" not in warning and "cannot sign alg none" in warning["warning"]
    assert_nothing_secret_in(replay, token, unsigned)


def jwk_public_key(jwk):
    """The public key a JWK describes: RSA (RFC 7518 §6.3.1), EC on P-256, P-384 or P-521 (§6.2.1),
    or OKP Ed25519 (RFC 8037 §2)."""
    if jwk["kty"] == "OKP":
        assert jwk["crv"] == "Ed25519"
        return ed25519.Ed25519PublicKey.from_public_bytes(unb64url(jwk["x"]))
    if jwk["kty"] == "EC":
        curve = {"P-256": ec.SECP256R1(), "P-384": ec.SECP384R1(), "P-521": ec.SECP521R1()}[jwk["crv"]]
        x, y = (int.from_bytes(unb64url(jwk[c]), "big") for c in ("x", "y"))
        return ec.EllipticCurvePublicNumbers(x, y, curve).public_key()
    return rsa.RSAPublicNumbers(int.from_bytes(unb64url(jwk["e"]), "big"),
                                int.from_bytes(unb64url(jwk["n"]), "big")).public_key()


# The JWK a token of each algorithm is verified with, and its signature's length: ES* as the raw
# R || S (RFC 7518 §3.4), EdDSA as RFC 8032 §5.1.6 makes it.
EXPECTED_KEYS = {"ES256": ("EC", "P-256", 64), "PS256": ("RSA", None, 256), "ES512": ("EC", "P-521", 132),
                 "EdDSA": ("OKP", "Ed25519", 64)}


@pytest.mark.parametrize("alg", ["ES256", "PS256", "ES512", "EdDSA"])
def test_id_tokens_of_other_algorithms_verify_against_the_replayed_jwks_too(start_replay, recording, alg):
    path, at, _, _ = recording
    replay = start_replay(path, "--listen", "127.0.0.1:0", "--now", str(at + DAY))
    session = proxied(replay)
    answer = session.post(f"{ISSUER}/oauth/token/{alg.lower()}", data={"grant_type": "refresh_token"}, timeout=10)
    assert answer.status_code == 200, answer.text
    id_token = answer.json()["id_token"]
    header, claims, signature = parts(id_token)
    assert header["alg"] == alg and not header["kid"].startswith("recorded-")
    jwks = session.get(f"{ISSUER}/oauth/jwks", timeout=10).json()
    [jwk] = [k for k in jwks["keys"] if k["kid"] == header["kid"]]
    kty, crv, length = EXPECTED_KEYS[alg]
    assert (jwk["kty"], jwk.get("crv"), len(signature)) == (kty, crv, length)
    key = jwk_public_key(jwk)

    def verify(data):
        if alg == "EdDSA":
            key.verify(signature, data)
        elif alg.startswith("ES"):
            half = length // 2
            r, s = int.from_bytes(signature[:half], "big"), int.from_bytes(signature[half:], "big")
            digest = hashes.SHA256() if alg == "ES256" else hashes.SHA512()
            key.verify(encode_dss_signature(r, s), data, ec.ECDSA(digest))
        else:
            key.verify(signature, data, padding.PSS(mgf=padding.MGF1(hashes.SHA256()), salt_length=32), hashes.SHA256())

    signing_input = id_token.rsplit(".", 1)[0].encode()
    verify(signing_input)  # raises InvalidSignature
    with pytest.raises(InvalidSignature):
        verify(signing_input + b"x")
    assert claims["exp"] > at + DAY
    assert replay.stop() == 0
    [minted] = replay.trace().of("replay.minted")
    assert (minted["alg"], minted["kid"]) == (alg, header["kid"])
    assert "warning" not in minted

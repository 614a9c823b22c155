"""A recorded OpenID Connect login, written as a HAR the way another tool writes one (raw tokens),
for the tests of `faultline replay serve` as the token issuer: the discovery document, the JWK
Set, a token answer with an RS256 ID token and an HS256 access token, a call with the access
token, a legacy `alg: none` token, and ID tokens signed with ES256, PS256, ES512 (P-521) and EdDSA
(Ed25519) on `/oauth/token/<alg>`. The recording's own keys and HS256 secret are made here and
never reach the replay. Also the JWS pieces (RFC 7515) those tests read tokens with, and the
requests a client sends through the replay."""
import base64
import calendar
import json

import requests
from cryptography.hazmat.primitives import hashes, hmac
from cryptography.hazmat.primitives.asymmetric import ec, ed25519, padding, rsa
from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature

from .har import har_entry, write_har_log

DAY = 86_400
ISSUER = "http://idp.issuer.test"
RECORDED_SECRET = b"recorded-hs256-secret-0123456789abcdef"
# The algorithms of the ID tokens on /oauth/token/<alg>, besides the login's RS256 one.
OTHER_ALGORITHMS = ("ES256", "PS256", "ES512", "EdDSA")


def b64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def unb64url(text):
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def json_part(data):
    return b64url(json.dumps(data, separators=(",", ":")).encode())


def parts(token):
    """A JWS's decoded header, claims and signature bytes."""
    header, claims, signature = token.split(".")
    return json.loads(unb64url(header)), json.loads(unb64url(claims)), unb64url(signature)


def rs256(key, header, claims):
    signing_input = f"{json_part(header)}.{json_part(claims)}"
    return f"{signing_input}.{b64url(key.sign(signing_input.encode(), padding.PKCS1v15(), hashes.SHA256()))}"


def hs256(secret, header, claims):
    signing_input = f"{json_part(header)}.{json_part(claims)}"
    mac = hmac.HMAC(secret, hashes.SHA256())
    mac.update(signing_input.encode())
    return f"{signing_input}.{b64url(mac.finalize())}"


def ecdsa(key, header, claims, digest, size):
    """ES256/384/512 as JWS wants them: the raw R || S, `size` octets each (RFC 7518 §3.4), not DER."""
    signing_input = f"{json_part(header)}.{json_part(claims)}"
    r, s = decode_dss_signature(key.sign(signing_input.encode(), ec.ECDSA(digest)))
    return f"{signing_input}.{b64url(r.to_bytes(size, 'big') + s.to_bytes(size, 'big'))}"


def ps256(key, header, claims):
    signing_input = f"{json_part(header)}.{json_part(claims)}"
    pss = padding.PSS(mgf=padding.MGF1(hashes.SHA256()), salt_length=32)
    return f"{signing_input}.{b64url(key.sign(signing_input.encode(), pss, hashes.SHA256()))}"


def eddsa(key, header, claims):
    """EdDSA with Ed25519 (RFC 8037 §3.1): the 64-octet signature of the signing input itself."""
    signing_input = f"{json_part(header)}.{json_part(claims)}"
    return f"{signing_input}.{b64url(key.sign(signing_input.encode()))}"


def public_jwk(key, kid):
    numbers = key.public_key().public_numbers()

    def unsigned(value):
        return b64url(value.to_bytes((value.bit_length() + 7) // 8, "big"))
    return {"kty": "RSA", "use": "sig", "alg": "RS256", "kid": kid, "n": unsigned(numbers.n), "e": unsigned(numbers.e)}


def other_id_tokens(key, id_claims):
    """The ID tokens of `OTHER_ALGORITHMS`, each signed with a recorded key of its own kind."""
    return {
        "ES256": ecdsa(ec.generate_private_key(ec.SECP256R1()), {"alg": "ES256", "kid": "recorded-ec"}, id_claims,
                       hashes.SHA256(), 32),
        "PS256": ps256(key, {"alg": "PS256", "kid": "recorded-rsa"}, id_claims),
        "ES512": ecdsa(ec.generate_private_key(ec.SECP521R1()), {"alg": "ES512", "kid": "recorded-p521"}, id_claims,
                       hashes.SHA512(), 66),
        "EdDSA": eddsa(ed25519.Ed25519PrivateKey.generate(), {"alg": "EdDSA", "kid": "recorded-ed25519"}, id_claims),
    }


def write_har(path, recorded_at, key):
    """The login as recorded at `recorded_at`: discovery, JWKS, the token answer, a call with the
    access token, a legacy endpoint whose token is `alg: none`, and one token endpoint per
    algorithm of `OTHER_ALGORITHMS`. Returns the recorded ID token, access token and unsigned
    token."""
    id_claims = {"iss": ISSUER, "aud": "app", "sub": "ann", "nonce": "n-1", "iat": recorded_at,
                 "auth_time": recorded_at, "exp": recorded_at + 600}
    id_token = rs256(key, {"alg": "RS256", "typ": "JWT", "kid": "recorded-rsa"}, id_claims)
    access_token = hs256(RECORDED_SECRET, {"alg": "HS256", "typ": "JWT"},
                         {"iss": ISSUER, "sub": "ann", "scope": "read", "iat": recorded_at, "exp": recorded_at + 3600})
    unsigned = f"{json_part({'alg': 'none', 'typ': 'JWT'})}.{json_part({'sub': 'legacy', 'exp': recorded_at + 3600})}."
    discovery = {"issuer": ISSUER, "authorization_endpoint": f"{ISSUER}/oauth/authorize",
                 "token_endpoint": f"{ISSUER}/oauth/token", "jwks_uri": f"{ISSUER}/oauth/jwks",
                 "id_token_signing_alg_values_supported": ["RS256"]}

    form = [("Content-Type", "application/x-www-form-urlencoded")]
    entries = [
        har_entry(recorded_at, "GET", f"{ISSUER}/.well-known/openid-configuration", [], "", json.dumps(discovery)),
        har_entry(recorded_at, "GET", f"{ISSUER}/oauth/jwks", [], "",
                  json.dumps({"keys": [public_jwk(key, "recorded-rsa")]}), mime="application/jwk-set+json"),
        har_entry(recorded_at + 1, "POST", f"{ISSUER}/oauth/token", form,
                  "grant_type=authorization_code&code=recorded-code&client_id=app",
                  json.dumps({"access_token": access_token, "id_token": id_token, "token_type": "Bearer",
                              "expires_in": 3600})),
        har_entry(recorded_at + 2, "GET", f"{ISSUER}/v1/me", [("Authorization", f"Bearer {access_token}")], "",
                  json.dumps({"name": "ann"})),
        har_entry(recorded_at + 3, "POST", f"{ISSUER}/legacy/token", form, "grant_type=client_credentials",
                  json.dumps({"access_token": unsigned, "token_type": "Bearer"})),
    ] + [har_entry(recorded_at + 4, "POST", f"{ISSUER}/oauth/token/{alg.lower()}", form, "grant_type=refresh_token",
                   json.dumps({"id_token": token, "token_type": "Bearer"}))
         for alg, token in other_id_tokens(key, id_claims).items()]
    write_har_log(path, entries)
    return id_token, access_token, unsigned


def make_recording(folder):
    """A HAR recorded at 2026-12-02T00:00:00Z with a fresh RSA key of the recorded issuer's, in
    `folder`: (path, recorded time, the key, what `write_har` returns)."""
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    path = folder / "oidc.har"
    at = calendar.timegm((2026, 12, 2, 0, 0, 0))
    return path, at, key, write_har(path, at, key)


def proxied(replay):
    """A requests session whose plain-HTTP requests go through the replay's first listener."""
    session = requests.Session()
    session.proxies = {"http": replay.listeners[0].url}
    return session


def log_in(session):
    """The recorded authorization-code exchange, as the client sends it now; returns the tokens."""
    answer = session.post(f"{ISSUER}/oauth/token", timeout=10,
                          data={"grant_type": "authorization_code", "code": "live-code", "client_id": "app"})
    assert answer.status_code == 200, answer.text
    return answer.json()


def assert_nothing_secret_in(replay, *secrets):
    """None of `secrets` and no PEM private key is in the replay's trace or on its stderr."""
    # `stderr` is one string: joined as a sequence it would hold every secret's letters apart.
    text = open(replay.trace_file, encoding="utf-8").read() + "\n" + replay.stderr
    for secret in secrets:
        assert secret not in text
    assert "PRIVATE KEY" not in text

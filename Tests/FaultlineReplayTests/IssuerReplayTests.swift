import FaultlineCore
import FaultlineServer
import FaultlineTLS
import FaultlineTrace
import Foundation
import Testing

@testable import FaultlineReplay

/// A JWT with header `{"alg":ALG,"typ":"JWT","kid":"recorded-key"}`, these claims and a made-up
/// signature.
private func token(alg: String, _ claims: String) -> String {
    func encoded(_ text: String) -> String { Base64.encoded(Array(text.utf8), variant: .urlUnpadded) }
    return "\(encoded(#"{"alg":"\#(alg)","typ":"JWT","kid":"recorded-key"}"#)).\(encoded(claims)).cmVjb3JkZWQ"
}

private func header(of token: String) throws -> JSONValue {
    let part = try #require(token.split(separator: ".").first)
    return try #require(JSONWebToken.decode(part).flatMap(JSONValue.parse))
}

private func field(_ event: ReplayTraceEvent, _ key: String) -> String? {
    guard let field = event.fields.first(where: { $0.key == key }), case .string(let value) = field.value else {
        return nil
    }
    return value
}

private let discovery =
    #"{"issuer":"http://idp.test","jwks_uri":"http://idp.test/oauth/keys","id_token_signing_alg_values_supported":["RS256"]}"#
private let recordedJWKS =
    #"{"keys":[{"kty":"RSA","kid":"recorded-key","use":"sig","n":"cmVjb3JkZWQtbW9kdWx1cw","e":"AQAB"}]}"#
private let idToken = token(
    alg: "RS256", #"{"iss":"http://idp.test","sub":"ann","aud":"app","iat":1796169600,"exp":1796173200}"#)
private let accessToken = token(alg: "HS256", #"{"sub":"ann","scope":"read","exp":1796173200}"#)
private let unsignedToken = token(alg: "none", #"{"sub":"legacy","exp":1796173200}"#)

/// An OpenID Connect login as recorded: the discovery document, the JWK Set it names, a token
/// answer with an RS256 ID token and an HS256 access token, a call presenting the access token,
/// and a legacy endpoint whose token is `alg: none`.
private func oidcRecording() -> CaptureBuilder {
    var recording = CaptureBuilder()
    recording.add(
        "GET", "http://idp.test/.well-known/openid-configuration",
        responseHeaders: [("Content-Type", "application/json")], responseBody: discovery)
    recording.add(
        "GET", "http://idp.test/oauth/keys", responseHeaders: [("Content-Type", "application/jwk-set+json")],
        responseBody: recordedJWKS)
    recording.add(
        "POST", "http://idp.test/oauth/token", headers: [("Content-Type", "application/x-www-form-urlencoded")],
        body: "grant_type=authorization_code&code=c1", responseHeaders: [("Content-Type", "application/json")],
        responseBody:
            #"{"access_token":"\#(accessToken)","id_token":"\#(idToken)","token_type":"Bearer","expires_in":3600}"#)
    recording.add(
        "GET", "http://idp.test/v1/me", headers: [("Authorization", "Bearer \(accessToken)")],
        responseHeaders: [("Content-Type", "application/json")], responseBody: #"{"name":"ann"}"#)
    recording.add(
        "POST", "http://idp.test/legacy/token", responseHeaders: [("Content-Type", "application/json")],
        responseBody: #"{"access_token":"\#(unsignedToken)"}"#)
    return recording
}

@Test func theJWKSAnswerCarriesTheRunsPublicKeysAndTheDiscoveryDocumentIsAsRecorded() throws {
    let driver = ReplayDriver(oidcRecording().capture)
    let signer = try #require(driver.source.signer)
    let configuration = driver.send("GET", "http://idp.test/.well-known/openid-configuration").flow
    #expect(driver.outcome(configuration)?.body == discovery)
    #expect(!driver.events(configuration).contains { $0.kind == .replayKeys })

    let keys = driver.send("GET", "http://idp.test/oauth/keys").flow
    let body = try #require(driver.outcome(keys)?.body)
    #expect(!body.contains("recorded"))
    #expect(JSONValue.parse(Array(body.utf8)) == signer.publicKeySet)
    let kids = try #require(JSONValue.parse(Array(body.utf8))?["keys"]?.arrayValue).compactMap {
        $0["kid"]?.stringValue
    }
    #expect(kids == ["RS256", "ES256", "ES384", "ES512", "EdDSA"].compactMap { signer.kid(for: $0) })
    let event = try #require(driver.events(keys).first { $0.kind == .replayKeys })
    #expect(event.fields.contains(.int("recorded_keys", 1)))
    #expect(event.fields.contains(.strings("kids", kids)))
    // A JWK Set from an origin the recording does not have is unmatched, as any request.
    let elsewhere = driver.send("GET", "http://other-idp.test/oauth/keys").flow
    #expect(driver.outcome(elsewhere)?.status == 502)
}

@Test func reIssuedJWTsAreSignedWithTheRunsKeysAndReadBackAsTheRecordedOnes() throws {
    let driver = ReplayDriver(oidcRecording().capture)
    let signer = try #require(driver.source.signer)
    let login = driver.send(
        "POST", "http://idp.test/oauth/token", headers: [("Content-Type", "application/x-www-form-urlencoded")],
        body: "grant_type=authorization_code&code=c1"
    ).flow
    let answer = try #require(driver.outcome(login).flatMap { JSONValue.parse(Array($0.body.utf8)) })
    let id = try #require(answer["id_token"]?.stringValue)
    let access = try #require(answer["access_token"]?.stringValue)
    // The recorded header with the run key's kid; the claims as recorded (this run's clock is the
    // recorded one: no offset); a signature as long as the algorithm's.
    #expect(
        try header(of: id)
            == .object(["alg": .string("RS256"), "typ": .string("JWT"), "kid": .string(signer.kid(for: "RS256")!)]))
    #expect(try claims(of: id)["sub"]?.stringValue == "ann")
    #expect(try claims(of: id)["aud"]?.stringValue == "app")
    #expect(id.split(separator: ".")[2].count == 342)  // 256 bytes, base64url unpadded
    #expect(try header(of: access)["kid"]?.stringValue == signer.kid(for: "HS256"))
    #expect(access.split(separator: ".")[2].count == 43)  // 32 bytes
    let input = access.split(separator: ".").prefix(2).joined(separator: ".")
    #expect(
        Base64.encoded(try #require(signer.sign(Array(input.utf8), alg: "HS256")), variant: .urlUnpadded)
            == String(access.split(separator: ".")[2]))

    let minted = driver.events(login).filter { $0.kind == .replayMinted }
    #expect(
        minted.map { [field($0, "alg"), field($0, "kid")] } == [
            ["HS256", signer.kid(for: "HS256")], ["RS256", signer.kid(for: "RS256")],
        ])
    let traced = "\(driver.events(login))"
    for secret in [id, access, idToken, accessToken] + [id, access].map({ String($0.split(separator: ".")[2]) }) {
        #expect(!traced.contains(secret))
    }

    // The next request presents the signed access token: read back as the recorded one, it matches.
    let me = driver.send("GET", "http://idp.test/v1/me", headers: [("Authorization", "Bearer \(access)")]).flow
    #expect(driver.outcome(me)?.status == 200)
    #expect(driver.outcome(me)?.body == #"{"name":"ann"}"#)
}

@Test func aTokenWithAnAlgorithmTheReplayCannotSignGoesOutUnsignedWithAWarning() throws {
    let driver = ReplayDriver(oidcRecording().capture)
    let legacy = driver.send("POST", "http://idp.test/legacy/token").flow
    let answer = try #require(driver.outcome(legacy).flatMap { JSONValue.parse(Array($0.body.utf8)) })
    let fresh = try #require(answer["access_token"]?.stringValue)
    // The recorded header stays whole (no kid is set) and the signature part is a placeholder.
    #expect(fresh.split(separator: ".")[0] == unsignedToken.split(separator: ".")[0])
    #expect(fresh.split(separator: ".")[2].hasPrefix("flr"))
    let event = try #require(driver.events(legacy).first { $0.kind == .replayMinted })
    #expect(field(event, "alg") == "none" && field(event, "kid") == nil)
    #expect(field(event, "warning")?.contains("cannot sign alg none") == true)
    #expect(!"\(driver.events(legacy))".contains(fresh) && !"\(driver.events(legacy))".contains(unsignedToken))
}

@Test func aSignedTokenIsReadBackWholeAndANewGenerationDiffersThoughHMACIsDeterministic() throws {
    let signer = try JWTSigner.makeEphemeral()
    var mint = TokenMint(signer: signer)
    let input = try #require(AnswerTimeShifter.movedSigningInput(of: accessToken, by: day))
    let fresh = mint.fresh(for: accessToken, signingInput: input)
    #expect(mint.fresh(for: accessToken, signingInput: input) == fresh)
    let next = mint.nextGeneration(for: accessToken, signingInput: input)
    #expect(next != fresh)
    #expect(try header(of: next)["kid"]?.stringValue == signer.kid(for: "HS256"))
    #expect(
        mint.takeNotes() == [
            .init(alg: "HS256", kid: signer.kid(for: "HS256")), .init(alg: "HS256", kid: signer.kid(for: "HS256")),
        ])
    #expect(mint.takeNotes().isEmpty)

    let text = Array("Authorization: Bearer \(fresh)\nbody=\(next)&x=flr".utf8)
    let back = String(decoding: try #require(mint.recordedText(text)), as: UTF8.self)
    #expect(back == "Authorization: Bearer \(accessToken)\nbody=\(accessToken)&x=flr")
    #expect(Set(mint.presented(in: text).map(\.fresh)) == [fresh, next])
    #expect(mint.presented(in: text).map(\.recorded) == [accessToken, accessToken])
}

import FaultlineCore
import FaultlineHTTP1
import Foundation
import Testing

@testable import FaultlineReplay

let day: Int64 = 86_400
let credentialFields = Set(["access_token", "refresh_token", "id_token", "token"])

/// A JWT (RFC 7519) with these claims, header `{"alg":"RS256","typ":"JWT"}` and a made-up signature.
func jwt(_ claims: String, signature: String = "c2lnbmF0dXJl") -> String {
    func encoded(_ text: String) -> String {
        Base64.encoded(Array(text.utf8), variant: .urlUnpadded)
    }
    return "\(encoded(#"{"alg":"RS256","typ":"JWT"}"#)).\(encoded(claims)).\(signature)"
}

/// A JWT's claims as JSON.
func claims(of token: String) throws -> JSONValue {
    let parts = token.split(separator: ".")
    try #require(parts.count == 3)
    var text = parts[1].replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
    text += String(repeating: "=", count: (4 - text.count % 4) % 4)
    let bytes = try #require(Data(base64Encoded: text))
    return try #require(JSONValue.parse(Array(bytes)))
}

private func shifter(_ offset: Int64, issued: Set<String> = []) -> AnswerTimeShifter {
    AnswerTimeShifter(offset: offset, issued: issued, credentialFields: credentialFields)
}

@Test func dateExpiresAndLastModifiedMoveByTheOffset() {
    var times = shifter(day)
    let out = times.shift(
        [
            ("Date", "Wed, 02 Dec 2026 00:00:00 GMT"), ("Expires", "Wed, 02 Dec 2026 01:00:00 GMT"),
            ("Last-Modified", "Sunday, 06-Nov-94 08:49:37 GMT"), ("Content-Type", "text/plain"),
            ("X-Date", "Wed, 02 Dec 2026 00:00:00 GMT"),
        ])
    #expect(out.first(name: "Date") == "Thu, 03 Dec 2026 00:00:00 GMT")
    #expect(out.first(name: "Expires") == "Thu, 03 Dec 2026 01:00:00 GMT")
    // An obsolete form is read, and the moved date is written as an IMF-fixdate.
    #expect(out.first(name: "Last-Modified") == "Mon, 07 Nov 1994 08:49:37 GMT")
    #expect(out.first(name: "X-Date") == "Wed, 02 Dec 2026 00:00:00 GMT")
    #expect(out.map(\.name) == ["Date", "Expires", "Last-Modified", "Content-Type", "X-Date"])
    #expect(times.moved == ["Date", "Expires", "Last-Modified"])
}

@Test func anExpiresThatIsNoDateStaysExpired() {
    var times = shifter(day)
    let out = times.shift([("Expires", "0"), ("Date", "yesterday")])
    #expect(out.first(name: "Expires") == "0" && out.first(name: "Date") == "yesterday")
    #expect(times.moved.isEmpty)
}

@Test func retryAfterMovesWhenADateAndStaysWhenSeconds() {
    var times = shifter(-60)
    let date = times.shift([("Retry-After", "Wed, 02 Dec 2026 00:02:00 GMT")])
    #expect(date.first(name: "Retry-After") == "Wed, 02 Dec 2026 00:01:00 GMT")
    let seconds = times.shift([("Retry-After", "120")])
    #expect(seconds.first(name: "Retry-After") == "120")
    #expect(times.moved == ["Retry-After"])
}

@Test func aCookiesExpiresMovesAndMaxAgeAndTheRestStay() {
    var times = shifter(day)
    let out = times.shift(
        [
            ("Set-Cookie", "sid=abc123; Path=/; expires=Wed, 09-Dec-2026 00:00:00 GMT; Max-Age=604800; HttpOnly"),
            ("Set-Cookie", "theme=dark; Max-Age=60"),
        ])
    #expect(
        out.values(name: "Set-Cookie") == [
            "sid=abc123; Path=/; expires=Thu, 10 Dec 2026 00:00:00 GMT; Max-Age=604800; HttpOnly",
            "theme=dark; Max-Age=60",
        ])
    #expect(times.moved == ["Set-Cookie sid Expires"])
}

@Test func jsonTimesBesideACredentialMoveAndRelativeOnesStay() throws {
    var times = shifter(day)
    let body = #"""
        {"access_token":"flp.access.L1.1","expires_in":3600,"expires_at":1796173200,
         "refresh_token_expires_at":"2026-12-02T10:00:00.250Z","user":{"expires_at":1796173200},
         "nested":[{"token":"t","issued_at":"2026-12-02T01:00:00+01:00"}]}
        """#
    let out = times.shift(body: Array(body.utf8), contentType: "application/json")
    let document = try #require(JSONValue.parse(out))
    #expect(document["expires_at"]?.intValue == 1_796_173_200 + day)
    #expect(document["expires_in"]?.intValue == 3600)
    #expect(document["refresh_token_expires_at"]?.stringValue == "2026-12-03T10:00:00.250Z")
    // Not beside a credential: not a credential's time.
    #expect(document["user"]?["expires_at"]?.intValue == 1_796_173_200)
    #expect(document["nested"]?.arrayValue?.first?["issued_at"]?.stringValue == "2026-12-03T00:00:00Z")
    #expect(document["access_token"]?.stringValue == "flp.access.L1.1")
    #expect(
        document.members?.map(\.key) == [
            "access_token", "expires_in", "expires_at", "refresh_token_expires_at", "user", "nested",
        ])
    #expect(times.moved == ["body /expires_at", "body /refresh_token_expires_at", "body /nested/0/issued_at"])
}

@Test func aJWTsTimeClaimsMoveAndItsOtherClaimsAndSignatureStay() throws {
    var times = shifter(day)
    let token = jwt(#"{"sub":"ann","iat":1796169600,"nbf":1796169600,"exp":1796173200,"aud":"app"}"#)
    let out = times.shift(body: Array(#"{"id_token_hint":"\#(token)"}"#.utf8), contentType: "application/json")
    let moved = try #require(JSONValue.parse(out)?["id_token_hint"]?.stringValue)
    let claims = try claims(of: moved)
    #expect(claims["exp"]?.intValue == 1_796_173_200 + day)
    #expect(claims["iat"]?.intValue == 1_796_169_600 + day)
    #expect(claims["nbf"]?.intValue == 1_796_169_600 + day)
    #expect(claims["sub"]?.stringValue == "ann" && claims["aud"]?.stringValue == "app")
    #expect(claims.members?.map(\.key) == ["sub", "iat", "nbf", "exp", "aud"])
    #expect(moved.hasPrefix(token.split(separator: ".")[0] + ".") && moved.hasSuffix(".c2lnbmF0dXJl"))
    #expect(times.moved == ["body /id_token_hint jwt iat,nbf,exp"])
}

@Test func anIssuedJWTIsLeftForTheMintWithItsMovedClaims() throws {
    let token = jwt(#"{"sub":"ann","exp":1796173200}"#)
    var times = shifter(day, issued: [token])
    let body = Array(#"{"access_token":"\#(token)","expires_in":3600}"#.utf8)
    #expect(times.shift(body: body, contentType: "application/json") == body)
    let input = try #require(times.issuedJWTs[token])
    #expect(input.hasSuffix(".") && input.split(separator: ".").count == 2)
    #expect(try claims(of: input + "sig")["exp"]?.intValue == 1_796_173_200 + day)
    #expect(times.moved == ["body /access_token jwt exp"])
    // Found elsewhere (a header the shifter does not read), it is noted once.
    times.noteIssued(token, place: "response")
    #expect(times.moved.count == 1)
}

@Test func whatIsNoJWTStaysAsItIs() {
    var times = shifter(day)
    let texts = [
        "a.b.c", "flp.access.L1.1", jwt(#"{"exp":1}"#) + ".more",
        // A header without `alg`, or claims that are no JSON object.
        Base64.encoded(Array(#"{"typ":"JWT"}"#.utf8), variant: .urlUnpadded) + ".eyJleHAiOjF9.sig",
        jwt("[1,2]"), jwt(#"{"exp":"soon"}"#),
    ]
    for text in texts {
        let body = Array(#"{"value":"\#(text)"}"#.utf8)
        #expect(times.shift(body: body, contentType: "application/json") == body, "\(text)")
    }
    #expect(times.moved.isEmpty)
}

@Test func aZeroOffsetMovesNothingAndKeepsTheBytes() {
    var times = shifter(0)
    let headers: HTTPHeaders = [
        ("Date", "Wed, 02 Dec 2026 00:00:00 GMT"), ("Set-Cookie", "a=b; Expires=Wed, 02 Dec 2026 00:00:00 GMT"),
    ]
    #expect(times.shift(headers) == headers)
    let body = Array(#"{"access_token":"x", "expires_at": 1796173200}"#.utf8)
    #expect(times.shift(body: body, contentType: "application/json") == body)
    #expect(times.moved.isEmpty)
}

@Test func aBodyThatIsNoJSONIsLeftAlone() {
    var times = shifter(day)
    let body = Array("expires_at=1796173200&access_token=x".utf8)
    #expect(times.shift(body: body, contentType: "application/x-www-form-urlencoded") == body)
    let broken = Array(#"{"access_token":"x","expires_at":1796173200"#.utf8)
    #expect(times.shift(body: broken, contentType: "application/json") == broken)
}

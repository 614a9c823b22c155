import FaultlineCapture
import FaultlineCore
import FaultlineServer
import FaultlineTrace
import Testing

@testable import FaultlineReplay

/// A login recorded on 2026-12-02 whose answer carries a `Date`, a session cookie with `Expires`,
/// a JWT access token with `exp` and an `expires_at`; then a call presenting the token.
private func loginRecording() -> (CaptureBuilder, token: String) {
    let token = jwt(#"{"sub":"ann","iat":1796169600,"exp":1796173200}"#)
    var recording = CaptureBuilder()
    recording.add(
        "POST", "http://api.test/oauth/token", headers: [("Content-Type", "application/x-www-form-urlencoded")],
        body: "grant_type=password&username=ann&password=flp.password.none.1", role: "login",
        responseHeaders: [
            ("Content-Type", "application/json"), ("Date", "Wed, 02 Dec 2026 00:00:00 GMT"),
            ("Set-Cookie", "sid=flp.cookie-sid.L1.1; Path=/; Expires=Wed, 02 Dec 2026 01:00:00 GMT; Max-Age=3600"),
        ],
        responseBody: #"{"access_token":"\#(token)","expires_in":3600,"expires_at":1796173200}"#)
    recording.add(
        "GET", "http://api.test/v1/me", headers: [("Authorization", "Bearer \(token)")],
        responseHeaders: [("Date", "Wed, 02 Dec 2026 00:00:01 GMT")], responseBody: "ann")
    return (recording, token)
}

private func replay(_ clock: ReplayClock) -> (ReplayDriver, FlowID, recordedToken: String) {
    let (recording, token) = loginRecording()
    var settings = ReplaySettings()
    settings.clock = clock
    let driver = ReplayDriver(recording.capture, settings)
    let login = driver.send(
        "POST", "http://api.test/oauth/token", headers: [("Content-Type", "application/x-www-form-urlencoded")],
        body: "grant_type=password&username=ann&password=other"
    ).flow
    return (driver, login, token)
}

private func body(_ driver: ReplayDriver, _ flow: FlowID) throws -> JSONValue {
    let outcome = try #require(driver.outcome(flow))
    return try #require(JSONValue.parse(Array(outcome.body.utf8)))
}

@Test func aReplayADayLaterHandsOutTimesADayLater() throws {
    let (driver, login, recordedToken) = replay(ReplayClock(mode: .frozen(at: recordedInstant + day)))
    #expect(driver.header(login, "Date") == "Thu, 03 Dec 2026 00:00:00 GMT")
    let cookie = try #require(driver.header(login, "Set-Cookie"))
    #expect(cookie.hasSuffix("; Path=/; Expires=Thu, 03 Dec 2026 01:00:00 GMT; Max-Age=3600"))
    #expect(!cookie.contains("flp.cookie-sid"))
    let answer = try body(driver, login)
    #expect(answer["expires_at"]?.intValue == 1_796_173_200 + day)
    #expect(answer["expires_in"]?.intValue == 3600)
    // The token keeps its JWT shape with its claims moved, signed with the run's RS256 key
    // (IssuerReplayTests checks the signature).
    let token = try #require(answer["access_token"]?.stringValue)
    #expect(try claims(of: token)["exp"]?.intValue == 1_796_173_200 + day)
    #expect(try claims(of: token)["iat"]?.intValue == 1_796_169_600 + day)
    #expect(try claims(of: token)["sub"]?.stringValue == "ann")
    let signature = try #require(token.split(separator: ".").last)
    #expect(!signature.hasPrefix("flr") && signature.count == 342 && token != recordedToken)

    // The trace says what moved and by how much, and never a value.
    let shifted = try #require(driver.events(login).first { $0.kind == .replayShifted })
    #expect(shifted.fields.contains(.int("by_s", day)))
    #expect(shifted.fields.contains(.string("clock", "frozen=2026-12-03T00:00:00Z")))
    #expect(
        shifted.fields.contains(
            .strings(
                "fields", ["Date", "Set-Cookie sid Expires", "body /access_token jwt iat,exp", "body /expires_at"])))
    let traced = "\(driver.events(login))"
    for secret in [token, recordedToken, String(signature)] + token.split(separator: ".").map(String.init) {
        #expect(!traced.contains(secret))
    }

    // The moved token is read back as the recorded one: the call presenting it matches.
    let me = driver.send("GET", "http://api.test/v1/me", headers: [("Authorization", "Bearer \(token)")]).flow
    #expect(driver.outcome(me)?.status == 200 && driver.outcome(me)?.body == "ann")
    #expect(driver.header(me, "Date") == "Thu, 03 Dec 2026 00:00:01 GMT")
}

@Test func withTheRecordedClockTheAnswersTellTheRecordedTimes() throws {
    let (driver, login, recordedToken) = replay(ReplayClock(mode: .recorded, startsAt: recordedInstant + 30 * day))
    #expect(driver.header(login, "Date") == "Wed, 02 Dec 2026 00:00:00 GMT")
    #expect(driver.header(login, "Set-Cookie")?.contains("Expires=Wed, 02 Dec 2026 01:00:00 GMT") == true)
    let answer = try body(driver, login)
    #expect(answer["expires_at"]?.intValue == 1_796_173_200)
    let token = try #require(answer["access_token"]?.stringValue)
    #expect(try claims(of: token) == claims(of: recordedToken))
    #expect(token != recordedToken)
    #expect(!driver.events(login).contains { $0.kind == .replayShifted })
}

@Test func theDefaultShiftMovesByHowLongAfterTheRecordingThisRequestCame() throws {
    let (driver, login, _) = replay(ReplayClock(mode: .shift, startsAt: recordedInstant + day))
    let shifted = try #require(driver.events(login).first { $0.kind == .replayShifted })
    let by = try #require(
        shifted.fields.compactMap { field -> Int64? in
            if field.key == "by_s", case .int(let value) = field.value { return value }
            return nil
        }.first)
    // A day, plus the moments between making the source and asking it.
    #expect((day...(day + 30)).contains(by))
    #expect(driver.header(login, "Date") == HTTPDate.format(seconds: recordedInstant + by))
    #expect(try body(driver, login)["expires_at"]?.intValue == 1_796_173_200 + by)
}

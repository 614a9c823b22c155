import FaultlineCapture
import FaultlineRules
import Testing

@testable import FaultlineReplay

/// The credential model's rules, each on a synthetic recording: what `CredentialHistory` says a
/// recorded credential's state is after the recording.
private let form = [("Content-Type", "application/x-www-form-urlencoded")]
private let json = [("Content-Type", "application/json")]

/// A login issuing L1's tokens, as recorded flow 1 (index 0).
private func loggedIn() -> CaptureBuilder {
    var recording = CaptureBuilder()
    recording.add(
        "POST", "http://api.test/oauth/token", headers: form, body: "grant_type=password&username=ann&password=pw",
        role: "login", responseHeaders: json,
        responseBody: #"{"access_token":"flp.access.L1.1","refresh_token":"flp.refresh.L1.1"}"#)
    return recording
}

private func bearer(_ token: String) -> [(String, String)] { [("Authorization", "Bearer \(token)")] }

private func history(_ recording: CaptureBuilder) -> CredentialHistory {
    ReplaySource(capture: recording.capture, settings: ReplaySettings()).history
}

private let access1 = "issued:flp.access.L1.1"
private let refresh1 = "issued:flp.refresh.L1.1"
private let access2 = "issued:flp.access.L1.2"

@Test func aCredentialRejectedWithNothingRevokingItExpiredAfterTheRecordedLifetime() throws {
    var recording = loggedIn()
    recording.add("GET", "http://api.test/v1/me", headers: bearer("flp.access.L1.1"), responseBody: "ann")
    recording.add("GET", "http://api.test/v1/me", headers: bearer("flp.access.L1.1"), status: 401)
    let rejection = try #require(history(recording).rejection(of: access1))
    #expect(rejection.cause == .expiry && rejection.after == nil && rejection.answer == 2)
    // Issued when the login's answer arrived (3 ms), rejected when the third request went up (10 ms).
    #expect(rejection.lifetime == 7_000_000)
}

@Test func aRejectionThatDidNotLastIsNoRejection() {
    var recording = loggedIn()
    recording.add("GET", "http://api.test/v1/me", headers: bearer("flp.access.L1.1"), status: 401)
    recording.add("GET", "http://api.test/v1/me", headers: bearer("flp.access.L1.1"), responseBody: "ann")
    #expect(history(recording).rejection(of: access1) == nil)
}

@Test func aLogoutRejectsItsLineageFromTheLogoutOn() throws {
    var recording = loggedIn()
    recording.add("POST", "http://api.test/logout", headers: bearer("flp.access.L1.1"), role: "logout", status: 204)
    recording.add("GET", "http://api.test/v1/me", headers: bearer("flp.access.L1.1"), status: 401)
    let rejection = try #require(history(recording).rejection(of: access1))
    #expect(rejection.cause == .logout && rejection.after == 1 && rejection.answer == 2)
    #expect(history(recording).lineage(of: access1) == LineageID(1))
}

@Test func revokingARefreshTokenRejectsItsLineageRevokingAnAccessTokenOnlyItself() throws {
    var lineage = loggedIn()
    lineage.add(
        "POST", "http://api.test/oauth/revoke", headers: form, body: "token=flp.refresh.L1.1", role: "revoke")
    lineage.add("GET", "http://api.test/v1/me", headers: bearer("flp.access.L1.1"), status: 401)
    let rejection = try #require(history(lineage).rejection(of: access1))
    #expect(rejection.cause == .revocation && rejection.after == 1)

    var single = loggedIn()
    single.add("POST", "http://api.test/oauth/revoke", headers: form, body: "token=flp.access.L1.1", role: "revoke")
    single.add("GET", "http://api.test/v1/me", headers: bearer("flp.access.L1.1"), status: 401)
    single.add(
        "POST", "http://api.test/oauth/token", headers: form,
        body: "grant_type=refresh_token&refresh_token=flp.refresh.L1.1",
        role: "refresh", responseHeaders: json,
        responseBody: #"{"access_token":"flp.access.L1.2","refresh_token":"flp.refresh.L1.2"}"#)
    let model = history(single)
    #expect(model.rejection(of: access1)?.cause == .revocation)
    #expect(model.rejection(of: refresh1) == nil)
}

/// RFC 6749 §10.4 / RFC 9700 §4.14.2: a refresh race whose loser reuses the rotated token; the
/// server revokes the lineage, and the winner's new access token is refused from there on.
func refreshRaceRecording() -> CaptureBuilder {
    var recording = loggedIn()
    recording.add("GET", "http://api.test/v1/messages", headers: bearer("flp.access.L1.1"), responseBody: "messages")
    recording.add("GET", "http://api.test/v1/me", headers: bearer("flp.access.L1.1"), responseBody: "me")
    let refresh = "grant_type=refresh_token&refresh_token=flp.refresh.L1.1"
    recording.add(
        "POST", "http://api.test/oauth/token", headers: form, body: refresh, role: "refresh", responseHeaders: json,
        responseBody: #"{"access_token":"flp.access.L1.2","refresh_token":"flp.refresh.L1.2"}"#)
    recording.add(
        "POST", "http://api.test/oauth/token", headers: form, body: refresh, role: "refresh", status: 400,
        responseHeaders: json, responseBody: #"{"error":"invalid_grant","error_description":"reused"}"#)
    recording.add(
        "GET", "http://api.test/v1/messages", headers: bearer("flp.access.L1.2"), status: 401,
        responseHeaders: [("WWW-Authenticate", #"Bearer error="invalid_token""#)], responseBody: "revoked")
    recording.add(
        "POST", "http://api.test/oauth/token", headers: form, body: "grant_type=password&username=ann&password=pw",
        role: "login", responseHeaders: json,
        responseBody: #"{"access_token":"flp.access.L2.1","refresh_token":"flp.refresh.L2.1"}"#)
    recording.add("GET", "http://api.test/v1/me", headers: bearer("flp.access.L2.1"), responseBody: "me again")
    return recording
}

@Test func aReusedRefreshTokenIsRejectedFromItsRotationOn() throws {
    let rejection = try #require(history(refreshRaceRecording()).rejection(of: refresh1))
    #expect(rejection.cause == .reuse && rejection.after == 3 && rejection.answer == 4)
}

@Test func aReuseRevokesTheWholeLineageFromTheReuseOn() throws {
    let model = history(refreshRaceRecording())
    let rejection = try #require(model.rejection(of: access2))
    #expect(rejection.cause == .reuse && rejection.after == 4 && rejection.answer == 5)
    // The rotation is the shared lineage book's: L1.2 joined L1, the next login started L2.
    #expect(model.lineage(of: access2) == LineageID(1))
    #expect(model.lineage(of: "issued:flp.access.L2.1") == LineageID(2))
    #expect(model.rejection(of: "issued:flp.access.L2.1") == nil)
}

/// A refresh is a request presenting an issued refresh token as a whole value: one that merely
/// starts with one (`flp.refresh.L1.12`, never issued, after `flp.refresh.L1.1`) is not one.
@Test func aRefreshPresentsAWholeIssuedRefreshToken() throws {
    var recording = loggedIn()
    for token in ["flp.refresh.L1.12", "flp.refresh.L1.1"] {
        recording.add(
            "POST", "http://api.test/oauth/token", headers: form,
            body: "grant_type=refresh_token&refresh_token=\(token)",
            role: "refresh", status: 400, responseHeaders: json, responseBody: #"{"error":"invalid_grant"}"#)
    }
    let source = ReplaySource(capture: recording.capture, settings: ReplaySettings())
    #expect(source.recorded.map(\.presentsRefresh) == [false, false, true])
}

import FaultlineCapture
import FaultlineFlow
import FaultlineServer
import FaultlineTrace
import Foundation
import Testing

@testable import FaultlineReplay

/// A recorded login issues tokens; a refresh rotates them; business calls present them.
private func authRecording(rejectionRecorded: Bool = false) -> CaptureBuilder {
    var recording = CaptureBuilder()
    recording.credentialKinds = ["flp.refresh.L1.1": "refresh", "flp.refresh.L1.2": "refresh"]
    let form = [("Content-Type", "application/x-www-form-urlencoded")]
    let json = [("Content-Type", "application/json")]
    recording.add(
        "POST", "http://api.test/oauth/token", headers: form,
        body: "grant_type=password&username=ann&password=flp.password.none.1",
        role: "login", responseHeaders: json + [("Set-Cookie", "sid=flp.cookie-sid.L1.1; Path=/")],
        responseBody: #"{"access_token":"flp.access.L1.1","refresh_token":"flp.refresh.L1.1"}"#)
    recording.add(
        "GET", "http://api.test/v1/me", headers: [("Authorization", "Bearer flp.access.L1.1")], status: 401,
        responseBody: "expired")
    recording.add(
        "POST", "http://api.test/oauth/token", headers: form,
        body: "grant_type=refresh_token&refresh_token=flp.refresh.L1.1",
        role: "refresh", responseHeaders: json,
        responseBody: #"{"access_token":"flp.access.L1.2","refresh_token":"flp.refresh.L1.2"}"#)
    recording.add(
        "GET", "http://api.test/v1/me", headers: [("Authorization", "Bearer flp.access.L1.2")], responseBody: "ann")
    if rejectionRecorded {
        recording.add(
            "POST", "http://api.test/oauth/token", headers: form,
            body: "grant_type=refresh_token&refresh_token=flp.refresh.L1.1",
            role: "refresh", status: 400, responseHeaders: json,
            responseBody: #"{"error":"invalid_grant","recorded":true}"#)
    }
    return recording
}

private let form = [("Content-Type", "application/x-www-form-urlencoded")]

/// Ann logs in with her password; the tokens the replay issued her.
private func logIn(_ driver: ReplayDriver) -> (access: String, refresh: String) {
    let login = driver.send(
        "POST", "http://api.test/oauth/token", headers: form, body: "grant_type=password&username=ann&password=pw")
    return tokens(driver.outcome(login.flow)!.body)
}

private func tokens(_ body: String) -> (access: String, refresh: String) {
    func value(_ key: String) -> String {
        let start = body.range(of: "\"\(key)\":\"")!.upperBound
        return String(body[start...].prefix { $0 != "\"" })
    }
    return (value("access_token"), value("refresh_token"))
}

@Test func aLoginHandsOutFreshTokensAndRequestsPresentingThemMatchTheRecordedOnes() throws {
    let driver = ReplayDriver(authRecording().capture)
    // The client's own password is not the recorded pseudonym: it matches by kind.
    let login = driver.send(
        "POST", "http://api.test/oauth/token", headers: form, body: "grant_type=password&username=ann&password=hunter2"
    ).flow
    let issued = tokens(try #require(driver.outcome(login)).body)
    #expect(issued.access.hasPrefix("flr") && issued.access.count == 43)
    #expect(issued.access != issued.refresh)
    #expect(!(driver.outcome(login)!.body.contains("flp.")))
    let cookie = try #require(driver.header(login, "Set-Cookie"))
    #expect(cookie.hasPrefix("sid=flr") && cookie.hasSuffix("; Path=/"))
    // The old token gets the recorded 401, the refreshed one the recorded 200.
    #expect(
        driver.outcome(
            driver.send("GET", "http://api.test/v1/me", headers: [("Authorization", "Bearer \(issued.access)")]).flow)?
            .status == 401)
    let refresh = driver.send(
        "POST", "http://api.test/oauth/token", headers: form,
        body: "grant_type=refresh_token&refresh_token=\(issued.refresh)"
    ).flow
    let rotated = tokens(try #require(driver.outcome(refresh)).body)
    #expect(rotated.access != issued.access && rotated.refresh != issued.refresh)
    #expect(
        driver.outcome(
            driver.send("GET", "http://api.test/v1/me", headers: [("Authorization", "Bearer \(rotated.access)")]).flow)?
            .body == "ann")
    // A token this run never issued matches nothing, and the answer never shows it.
    let stranger = driver.outcome(
        driver.send("GET", "http://api.test/v1/me", headers: [("Authorization", "Bearer stolen-token-123")]).flow)!
    #expect(stranger.status == 502)
    #expect(!stranger.body.contains("stolen-token-123"))
    #expect(stranger.body.contains("bearer secret:access"), "\(stranger.body)")
}

@Test(arguments: [false, true])
func aRotatedRefreshTokenPresentedAgainGetsARejection(recorded: Bool) throws {
    let driver = ReplayDriver(authRecording(rejectionRecorded: recorded).capture)
    let issued = logIn(driver)
    let body = "grant_type=refresh_token&refresh_token=\(issued.refresh)"
    #expect(
        driver.outcome(driver.send("POST", "http://api.test/oauth/token", headers: form, body: body).flow)?.status
            == 200)
    let again = driver.send("POST", "http://api.test/oauth/token", headers: form, body: body).flow
    let outcome = try #require(driver.outcome(again))
    #expect(outcome.status == 400)
    #expect(outcome.body.contains("invalid_grant"))
    // The recorded rejection when the capture has one, else RFC 6749's own.
    #expect(outcome.body.contains("\"recorded\":true") == recorded)
    // A recorded second refresh is simply the next identical request; without one, rotation answers.
    #expect(driver.events(again).contains { $0.kind == .replayRotated } == !recorded)
}

@Test func aRefreshTheRecordingNeverSawRotatesLikeTheRecordedOne() throws {
    let driver = ReplayDriver(authRecording().capture)
    let issued = logIn(driver)
    let first = tokens(
        driver.outcome(
            driver.send(
                "POST", "http://api.test/oauth/token", headers: form,
                body: "grant_type=refresh_token&refresh_token=\(issued.refresh)"
            ).flow)!.body)
    // A second refresh, with the refresh token the first issued: not in the recording.
    let secondFlow = driver.send(
        "POST", "http://api.test/oauth/token", headers: form,
        body: "grant_type=refresh_token&refresh_token=\(first.refresh)"
    ).flow
    let second = tokens(try #require(driver.outcome(secondFlow)).body)
    #expect(
        Set([second.access, second.refresh]).isDisjoint(with: [
            first.access, first.refresh, issued.access, issued.refresh,
        ]))
    // Its access token stands for the recorded one it replaced, so business calls still match.
    #expect(
        driver.outcome(
            driver.send("GET", "http://api.test/v1/me", headers: [("Authorization", "Bearer \(second.access)")]).flow)?
            .body == "ann")
    // And its own refresh token is spent once used.
    let third = driver.send(
        "POST", "http://api.test/oauth/token", headers: form,
        body: "grant_type=refresh_token&refresh_token=\(first.refresh)"
    ).flow
    #expect(driver.outcome(third)?.status == 400)
}

@Test func extraCredentialsDoNotDecideAndAMissingOneOnlyWhenNothingMatchesExactly() {
    var recording = CaptureBuilder()
    recording.add(
        "GET", "http://api.test/feed", headers: [("Cookie", "sid=flp.cookie-sid.none.1")], responseBody: "with cookie")
    let driver = ReplayDriver(recording.capture)
    #expect(
        driver.outcome(driver.send("GET", "http://api.test/feed", headers: [("Cookie", "sid=mine; theme=dark")]).flow)?
            .body == "with cookie")
    // A missing cookie may match an unused recording; a different one never does.
    let fresh = ReplayDriver(recording.capture)
    #expect(fresh.outcome(fresh.send("GET", "http://api.test/feed").flow)?.body == "with cookie")
    var issuedCookie = CaptureBuilder()
    issuedCookie.add("POST", "http://api.test/login", responseHeaders: [("Set-Cookie", "sid=flp.cookie-sid.L1.1")])
    issuedCookie.add(
        "GET", "http://api.test/feed", headers: [("Cookie", "sid=flp.cookie-sid.L1.1")], responseBody: "mine")
    let strict = ReplayDriver(issuedCookie.capture)
    #expect(
        strict.outcome(
            strict.send("GET", "http://api.test/feed", headers: [("Cookie", "sid=not-the-issued-one")]).flow)?.status
            == 502)
}

@Test func aTokenTheClientSentFirstIsNotIssuedEvenWhenAResponseEchoesIt() {
    var recording = CaptureBuilder()
    recording.add(
        "GET", "http://api.test/echo", headers: [("Authorization", "Bearer flp.access.none.1")],
        responseBody: #"{"saw":"Bearer flp.access.none.1"}"#)
    let driver = ReplayDriver(recording.capture)
    // The client's own token matches by kind, and the echo is not rewritten into a fresh value.
    let flow = driver.send("GET", "http://api.test/echo", headers: [("Authorization", "Bearer my-own-token")]).flow
    #expect(driver.outcome(flow)?.body == #"{"saw":"Bearer flp.access.none.1"}"#)
}

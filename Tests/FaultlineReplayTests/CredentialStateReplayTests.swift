import FaultlineCapture
import FaultlineCore
import FaultlineServer
import FaultlineTrace
import Foundation
import Testing

@testable import FaultlineReplay

/// The replay's credential-state rules on the recorded refresh race (`refreshRaceRecording`: X
/// won the refresh and called /v1/messages, Y lost, logged in again and called /v1/me), replayed
/// with the other winner.
private let form = [("Content-Type", "application/x-www-form-urlencoded")]

private func bearer(_ token: String) -> [(String, String)] { [("Authorization", "Bearer \(token)")] }

private func field(_ body: String, _ key: String) -> String {
    // Empty when the answer has no such field (a rejection): the expectations then say what went wrong.
    guard let start = body.range(of: "\"\(key)\":\"")?.upperBound else { return "" }
    return String(body[start...].prefix { $0 != "\"" })
}

private func logIn(_ driver: ReplayDriver) -> (access: String, refresh: String) {
    let body =
        driver.outcome(
            driver.send(
                "POST", "http://api.test/oauth/token", headers: form,
                body: "grant_type=password&username=ann&password=pw"
            ).flow)?.body ?? ""
    return (field(body, "access_token"), field(body, "refresh_token"))
}

private func refresh(_ driver: ReplayDriver, _ token: String) -> FlowID {
    driver.send(
        "POST", "http://api.test/oauth/token", headers: form, body: "grant_type=refresh_token&refresh_token=\(token)"
    ).flow
}

private func matched(_ driver: ReplayDriver, _ flow: FlowID) -> ReplayTraceEvent? {
    driver.events(flow).first { $0.kind == .replayMatched }
}

private func text(_ event: ReplayTraceEvent?, _ key: String) -> String? {
    event?.fields.first { $0.key == key }.flatMap {
        if case .string(let value) = $0.value { return value }
        return nil
    }
}

@Test func aCredentialRejectedAtThisPointOfTheRunGetsTheRecordedRejectionOnAnyPath() throws {
    let driver = ReplayDriver(refreshRaceRecording().capture)
    let first = logIn(driver)
    // Y goes first this time: it wins the refresh, X reuses the rotated token.
    let won = refresh(driver, first.refresh)
    #expect(driver.outcome(won)?.status == 200)
    let winner = field(driver.outcome(won)?.body ?? "", "access_token")
    let lost = refresh(driver, first.refresh)
    #expect(driver.outcome(lost)?.status == 400)
    #expect(text(matched(driver, lost), "rule") == "rejected" && text(matched(driver, lost), "cause") == "reuse")
    // Y's call on /v1/me, never recorded with L1.2: the recorded rejection of L1.2, from /v1/messages.
    let call = driver.send("GET", "http://api.test/v1/me", headers: bearer(winner)).flow
    let outcome = try #require(driver.outcome(call))
    #expect(outcome.status == 401 && outcome.body == "revoked")
    #expect(driver.header(call, "WWW-Authenticate") == #"Bearer error="invalid_token""#)
    let event = matched(driver, call)
    #expect(text(event, "by") == "credential-state" && text(event, "rule") == "rejected")
    #expect(text(event, "cause") == "reuse" && text(event, "credential") == "issued:flp.access.L1.2")
}

@Test func anAcceptedCredentialStandsInForAnotherOfItsKindWhereOnlyThatWasRecorded() throws {
    let driver = ReplayDriver(refreshRaceRecording().capture)
    let first = logIn(driver)
    _ = refresh(driver, first.refresh)
    _ = refresh(driver, first.refresh)
    // X lost this time and logs in again: L2.1 was recorded on /v1/me only; /v1/messages with L1.1.
    let again = logIn(driver)
    let call = driver.send("GET", "http://api.test/v1/messages", headers: bearer(again.access)).flow
    #expect(driver.outcome(call)?.status == 200 && driver.outcome(call)?.body == "messages")
    let event = matched(driver, call)
    #expect(text(event, "by") == "credential-state" && text(event, "rule") == "stand-in")
    #expect(text(event, "credential") == "issued:flp.access.L2.1")
    #expect(text(event, "stands_in_for") == "issued:flp.access.L1.1")
}

@Test func aRejectionAppliesOnlyOnceThisRunHasReachedItsCause() throws {
    let driver = ReplayDriver(refreshRaceRecording().capture)
    let first = logIn(driver)
    let won = refresh(driver, first.refresh)
    let winner = field(driver.outcome(won)?.body ?? "", "access_token")
    // No reuse in this run yet: L1.2 is accepted, a stand-in for L1.1 on /v1/me.
    let before = driver.send("GET", "http://api.test/v1/me", headers: bearer(winner)).flow
    #expect(driver.outcome(before)?.status == 200)
    #expect(text(matched(driver, before), "rule") == "stand-in")
    _ = refresh(driver, first.refresh)
    let after = driver.send("GET", "http://api.test/v1/me", headers: bearer(winner)).flow
    #expect(driver.outcome(after)?.status == 401)
}

@Test func aPathNeverRecordedStaysUnmatchedWithTheNearestRequest() throws {
    let driver = ReplayDriver(refreshRaceRecording().capture)
    let first = logIn(driver)
    let call = driver.send("GET", "http://api.test/v1/avatar", headers: bearer(first.access)).flow
    let outcome = try #require(driver.outcome(call))
    #expect(outcome.status == 502 && outcome.body.contains("nearest: GET "))
    #expect(driver.events(call).contains { $0.kind == .replayUnmatched })
}

@Test func aCaptureWhoseClockRunsBackwardsLoadsWithAWarningNamingTheEntries() throws {
    var recording = CaptureBuilder()
    recording.add("GET", "http://api.test/a", responseBody: "a")
    recording.add("GET", "http://api.test/b", responseBody: "b")
    recording.add("GET", "http://api.test/c", responseBody: "c")
    var capture = recording.capture
    capture.exchanges[0].received.wall = "2026-12-02T10:00:00Z"
    capture.exchanges[1].received.wall = "2026-12-02T09:59:58Z"
    capture.exchanges[2].received.wall = "2026-12-02T10:00:01Z"
    let source = ReplaySource(capture: capture, settings: ReplaySettings())
    #expect(source.replayableCount == 3)
    let warning = try #require(source.loadWarnings.first)
    #expect(source.loadWarnings.count == 1)
    #expect(warning.contains("runs backwards at 1 entry"))
    #expect(warning.contains("flow 2 at 2026-12-02T09:59:58Z, after flow 1 at 2026-12-02T10:00:00Z"))
    let event = try #require(source.loadEvents.first)
    #expect(event.kind == .replayClockBackwards)
    #expect(BackwardsClock.entries(in: recording.capture).isEmpty)
}

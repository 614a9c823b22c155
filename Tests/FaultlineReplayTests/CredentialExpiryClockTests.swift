import FaultlineCapture
import FaultlineCore
import FaultlineServer
import FaultlineTrace
import Foundation
import Testing

@testable import FaultlineReplay

/// A recorded expiry on the replay's clock (`--clock`): `shift` measures the credential's life on
/// this run's clock, `recorded` keeps the recorded instant of its expiry, `frozen` lets nothing
/// expire by time. On a synthetic recording: a login at 2026-12-02T00:00:00Z, its access token
/// accepted on /v1/me, then refused there an hour later (nothing revoked it: expiry).
private let formHeaders = [("Content-Type", "application/x-www-form-urlencoded")]
private let login = "grant_type=password&username=ann&password=pw"
private let access = "issued:flp.access.L1.1"
private let oneHour: Int64 = 3_600_000_000_000
private let oneDay: Int64 = 24 * oneHour
private let recordedStart = RFC3339Date.nanoseconds(parsing: "2026-12-02T00:00:00Z")!

private func expiringRecording(wall: String = "2026-12-02T01:00:00Z") -> Capture {
    var recording = CaptureBuilder()
    recording.add(
        "POST", "http://api.test/oauth/token", headers: formHeaders, body: login, role: "login",
        responseHeaders: [("Content-Type", "application/json")],
        responseBody: #"{"access_token":"flp.access.L1.1","refresh_token":"flp.refresh.L1.1"}"#)
    recording.add("GET", "http://api.test/v1/me", headers: [("Authorization", "Bearer flp.access.L1.1")])
    recording.add("GET", "http://api.test/v1/me", headers: [("Authorization", "Bearer flp.access.L1.1")], status: 401)
    var capture = recording.capture
    // The refusal came an hour after the login, on both clocks.
    capture.exchanges[2].received.monoNanoseconds += UInt64(oneHour)
    capture.exchanges[2].forwarded?.monoNanoseconds += UInt64(oneHour)
    capture.exchanges[2].forwarded?.wall = wall
    return capture
}

/// A run that handed the login's tokens out at its start, `now` on its clock then.
private func run(_ mode: ReplayClock.Mode, capture: Capture = expiringRecording()) -> (CredentialRun, CredentialHistory)
{
    let history = ReplaySource(capture: capture, settings: ReplaySettings()).history
    var run = CredentialRun(clock: ReplayClock(mode: mode))
    run.answered(0, issuing: [access, "issued:flp.refresh.L1.1"], at: .init(elapsed: 0, now: recordedStart + oneDay))
    return (run, history)
}

@Test func withShiftACredentialExpiresOnceItsFreshValueHasLivedTheRecordedLifetime() throws {
    let (run, history) = run(.shift)
    let lifetime = try #require(history.rejection(of: access)?.lifetime)
    // From the login's answer (3 ms on the builder's clock) to the refused request going up (10 ms), an hour later.
    #expect(lifetime == UInt64(oneHour) + 7_000_000)
    let before = CredentialRun.Time(elapsed: Int64(lifetime) - 1, now: recordedStart + oneDay + Int64(lifetime))
    #expect(run.rejection(of: access, in: history, at: before) == nil)
    let at = CredentialRun.Time(elapsed: Int64(lifetime), now: recordedStart + oneDay + Int64(lifetime))
    #expect(run.rejection(of: access, in: history, at: at)?.cause == .expiry)
}

@Test func withTheRecordedClockACredentialExpiresAtTheRecordedInstant() throws {
    let (run, history) = run(.recorded)
    let rejection = try #require(history.rejection(of: access))
    #expect(rejection.recordedExpiry == recordedStart + oneHour)
    // A day later it is expired from the start; before the recorded instant it lives on however long.
    #expect(run.rejection(of: access, in: history, at: .init(elapsed: 0, now: recordedStart + oneDay)) == rejection)
    let early = CredentialRun.Time(elapsed: 2 * oneHour, now: recordedStart + oneHour - 1)
    #expect(run.rejection(of: access, in: history, at: early) == nil)
    #expect(run.rejection(of: access, in: history, at: .init(elapsed: 0, now: recordedStart + oneHour)) == rejection)
}

@Test func withTheRecordedClockAndNoRecordedInstantTheLifetimeDecides() throws {
    let (run, history) = run(.recorded, capture: expiringRecording(wall: "no time"))
    #expect(history.rejection(of: access)?.recordedExpiry == nil)
    #expect(run.rejection(of: access, in: history, at: .init(elapsed: 0, now: recordedStart + oneDay)) == nil)
    #expect(run.rejection(of: access, in: history, at: .init(elapsed: 2 * oneHour, now: recordedStart + oneDay)) != nil)
}

@Test func withAFrozenClockNothingExpiresByTime() {
    let (run, history) = run(.frozen(at: recordedStart / 1_000_000_000))
    #expect(
        run.rejection(of: access, in: history, at: .init(elapsed: 10 * oneDay, now: recordedStart + 10 * oneDay)) == nil
    )
}

@Test(
    "A call right after the login, replayed a day later: accepted on a shifted or frozen clock, refused on the recorded one",
    arguments: [("shift", 200), ("recorded", 401), ("frozen=2026-12-03T00:00:00Z", 200)])
func aReplayADayLaterJudgesExpiryByItsClock(_ mode: String, _ status: Int) throws {
    var settings = ReplaySettings()
    settings.clock = ReplayClock(
        mode: try #require(ReplayClock.Mode(parsing: mode)), startsAt: (recordedStart + oneDay) / 1_000_000_000)
    let driver = ReplayDriver(expiringRecording(), settings)
    let answer = driver.send("POST", "http://api.test/oauth/token", headers: formHeaders, body: login).flow
    let body = try #require(driver.outcome(answer)?.body)
    let token = try #require(JSONValue.parse(Array(body.utf8))?["access_token"]?.stringValue)
    let call = driver.send("GET", "http://api.test/v1/me", headers: [("Authorization", "Bearer \(token)")]).flow
    #expect(driver.outcome(call)?.status == status)
    let matched = driver.events(call).first { $0.kind == .replayMatched }
    let rule = matched?.fields.first { $0.key == "rule" }
    #expect((rule != nil) == (status == 401))
    if status == 401 { #expect(matched?.fields.contains(.string("cause", "expiry")) == true) }
}

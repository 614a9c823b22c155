import FaultlineCapture
import FaultlineCore
import FaultlineFlow
import FaultlineServer
import FaultlineTrace
import Foundation
import Testing

@testable import FaultlineReplay

/// Recorded: A's request, B's request, B delivered, mark "tap", A delivered.
private func interleaving() -> CaptureBuilder {
    var recording = CaptureBuilder()
    let first = recording.add("GET", "http://api.test/a", responseBody: "A", deliverLater: true)
    recording.add("GET", "http://api.test/b", responseBody: "B")
    recording.mark("tap")
    recording.deliver(first)
    return recording
}

@Test func anAnswerWaitsForWhatCameBeforeItsDeliveryInTheRecording() throws {
    let driver = ReplayDriver(interleaving().capture, ReplaySettings(order: .recorded, orderTimeout: .seconds(5)))
    let a = driver.send("GET", "http://api.test/a")
    #expect(a.wait?.deadline == .seconds(5))
    // What it waits for is traced at once, not only when the answer goes.
    let waiting = try #require(a.wait?.trace.first)
    #expect(waiting.kind == .replayWaiting)
    guard case .strings(let steps)? = waiting.fields.first(where: { $0.key == "waiting_for" })?.value else {
        Issue.record("no waiting_for list")
        return
    }
    #expect(steps.count == 3 && steps.last == "mark 'tap'")
    #expect(driver.answer(a.flow) == nil)
    let b = driver.send("GET", "http://api.test/b")
    #expect(b.wait == nil)
    #expect(driver.outcome(b.flow)?.body == "B")
    driver.source.finished(b.flow, delivered: true)
    #expect(driver.answer(a.flow) == nil, "A also waits for the mark")
    driver.source.marked("tap")
    #expect(driver.outcome(a.flow)?.body == "A")
    #expect(driver.events(a.flow).map(\.kind) == [.replayMatched, .replayReleased])
}

@Test func aDeadlineReleasesTheAnswerAndSaysWhatWasMissing() throws {
    let driver = ReplayDriver(interleaving().capture, ReplaySettings(order: .recorded))
    let a = driver.send("GET", "http://api.test/a")
    driver.source.expire(a.flow)
    #expect(driver.outcome(a.flow)?.body == "A")
    let diverged = try #require(driver.events(a.flow).first { $0.kind == .replayDiverged })
    let missing = diverged.fields.first { $0.key == "missing" }?.value
    guard case .strings(let steps)? = missing else { Issue.record("no missing list"); return }
    #expect(
        steps == [
            "request GET http://api.test/b (recorded flow 2) received",
            "response to GET http://api.test/b (recorded flow 2) delivered",
            "mark 'tap'",
        ])
}

@Test func anUnmatchedRequestInOrderedModeSaysWhereTheRunIs() throws {
    let driver = ReplayDriver(interleaving().capture, ReplaySettings(order: .recorded))
    let stray = driver.send("POST", "http://api.test/c").flow
    let events = driver.events(stray)
    #expect(events.map(\.kind) == [.replayUnmatched, .replayDiverged])
    #expect(
        driver.outcome(stray)!.body.contains("goes on with: request GET http://api.test/a (recorded flow 1) received"))
}

@Test func withoutTheFlagNothingWaits() {
    let driver = ReplayDriver(interleaving().capture)
    let a = driver.send("GET", "http://api.test/a")
    #expect(a.wait == nil)
    #expect(driver.outcome(a.flow)?.body == "A")
}

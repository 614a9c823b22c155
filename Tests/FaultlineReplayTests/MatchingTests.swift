import FaultlineCapture
import FaultlineFlow
import FaultlineServer
import FaultlineTrace
import Foundation
import Testing

@testable import FaultlineReplay

@Test func identicalRequestsGetTheRecordedResponsesInRecordedOrder() {
    var recording = CaptureBuilder()
    recording.add("GET", "http://api.test/v1/count", status: 200, responseBody: "one")
    recording.add("GET", "http://api.test/v1/count", status: 200, responseBody: "two")
    recording.add("GET", "http://api.test/v1/count", status: 503, responseBody: "three")
    let driver = ReplayDriver(recording.capture)
    let bodies = (1...4).map { _ in driver.outcome(driver.send("GET", "http://api.test/v1/count").flow)!.body }
    // The fourth repeats the last (--repeat last, the default).
    #expect(bodies == ["one", "two", "three", "three"])
}

@Test(arguments: [ReplaySettings.Repeat.last, .cycle, .none])
func whatComesOnceTheRecordingRunsOut(_ policy: ReplaySettings.Repeat) {
    var recording = CaptureBuilder()
    recording.add("GET", "http://api.test/a", responseBody: "1")
    recording.add("GET", "http://api.test/a", responseBody: "2")
    let driver = ReplayDriver(recording.capture, ReplaySettings(repeatPolicy: policy))
    let bodies = (1...5).map { _ in driver.outcome(driver.send("GET", "http://api.test/a").flow)! }
    switch policy {
    case .last: #expect(bodies.map(\.body) == ["1", "2", "2", "2", "2"])
    case .cycle: #expect(bodies.map(\.body) == ["1", "2", "1", "2", "1"])
    case .none:
        #expect(bodies.prefix(2).map(\.body) == ["1", "2"])
        #expect(bodies.dropFirst(2).allSatisfy { $0.status == 502 && $0.body.contains("all used (--repeat none)") })
    }
}

@Test func queryOrderAndVolatileParametersDoNotDecideButOtherParametersDo() {
    var recording = CaptureBuilder()
    recording.add("GET", "http://api.test/search?q=milk&page=2&_=1701", responseBody: "page two")
    let driver = ReplayDriver(recording.capture, ReplaySettings(ignoredParameters: ["_", "sessionid"]))
    #expect(driver.outcome(driver.send("GET", "http://api.test/search?page=2&_=99999&q=milk").flow)?.body == "page two")
    let miss = driver.outcome(driver.send("GET", "http://api.test/search?page=3&q=milk").flow)!
    #expect(miss.status == 502)
    #expect(miss.body.contains("query parameter(s) page"), "\(miss.body)")
}

@Test func jsonBodiesMatchByTheirFieldsAndFormsByTheirPairs() {
    var recording = CaptureBuilder()
    recording.add(
        "POST", "http://api.test/notes", headers: [("Content-Type", "application/json")],
        body: #"{"text":"milk","tags":["a","b"],"nonce":"x1"}"#, responseBody: "json")
    recording.add(
        "POST", "http://api.test/form", headers: [("Content-Type", "application/x-www-form-urlencoded")],
        body: "a=1&b=two+words", responseBody: "form")
    let driver = ReplayDriver(recording.capture)
    #expect(
        driver.outcome(
            driver.send(
                "POST", "http://api.test/notes", headers: [("Content-Type", "application/json")],
                body: #"{ "tags": ["a","b"], "text": "milk", "nonce": "y2" }"#
            ).flow)?.body == "json")
    #expect(
        driver.outcome(
            driver.send(
                "POST", "http://api.test/form", headers: [("Content-Type", "application/x-www-form-urlencoded")],
                body: "b=two%20words&a=1"
            ).flow)?.body == "form")
    let changed = driver.outcome(
        driver.send(
            "POST", "http://api.test/notes", headers: [("Content-Type", "application/json")],
            body: #"{"text":"bread","tags":["a","b"]}"#
        ).flow)!
    // The 502 names the field that differs, never its value (issue 20: it said "differs in body").
    #expect(changed.status == 502 && changed.body.contains("which differs in body field /text"), "\(changed.body)")
    #expect(!changed.body.contains("bread") && !changed.body.contains("milk"), "\(changed.body)")
    let form = driver.outcome(
        driver.send(
            "POST", "http://api.test/form", headers: [("Content-Type", "application/x-www-form-urlencoded")],
            body: "a=2&b=two+words&c=3"
        ).flow)!
    #expect(form.body.contains("which differs in body fields a, c"), "\(form.body)")
}

@Test func anUnstructuredBodyMismatchNamesTheLengths() {
    var recording = CaptureBuilder()
    recording.add("POST", "http://api.test/upload", body: "recorded bytes", responseBody: "stored")
    let driver = ReplayDriver(recording.capture)
    let miss = driver.outcome(driver.send("POST", "http://api.test/upload", body: "other bytes").flow)!
    #expect(miss.status == 502 && miss.body.contains("which differs in body (11 bytes, recorded 14)"), "\(miss.body)")
}

@Test func theMatchCanBeNarrowedToSomeParts() {
    var recording = CaptureBuilder()
    recording.add("POST", "http://api.test/upload", body: "recorded bytes", responseBody: "stored")
    let strict = ReplayDriver(recording.capture)
    #expect(strict.outcome(strict.send("POST", "http://api.test/upload", body: "other bytes").flow)?.status == 502)
    let loose = ReplayDriver(recording.capture, ReplaySettings(match: [.method, .host, .path]))
    #expect(loose.outcome(loose.send("POST", "http://elsewhere.test/upload", body: "other bytes").flow)?.status == 502)
    #expect(loose.outcome(loose.send("POST", "http://api.test:80/upload", body: "other bytes").flow)?.body == "stored")
}

@Test func anUnmatchedRequestIsToldTheNearestRecordedRequestAndWhy() throws {
    var recording = CaptureBuilder()
    recording.add("GET", "http://api.test/v1/profile", responseBody: "p")
    recording.add("DELETE", "http://api.test/v1/notes/7", responseBody: "d")
    let driver = ReplayDriver(recording.capture)
    let flow = driver.send("DELETE", "http://api.test/v1/notes/8").flow
    let outcome = try #require(driver.outcome(flow))
    #expect(outcome.status == 502)
    #expect(outcome.body.contains("nearest: DELETE http://api.test/v1/notes/7 (recorded flow 2"), "\(outcome.body)")
    #expect(outcome.body.contains("path /v1/notes/8, recorded /v1/notes/7"), "\(outcome.body)")
    guard case .unavailable(let failure, trace: let trace)? = driver.answer(flow) else {
        Issue.record("not unavailable"); return
    }
    #expect(failure.code == "replay-unmatched")
    #expect(trace.first?.kind == .replayUnmatched)
}

@Test func withUnmatchedForwardTheRequestGoesToTheNetwork() {
    let driver = ReplayDriver(CaptureBuilder().capture, ReplaySettings(unmatched: .forward))
    #expect(driver.source.allowsNetwork)
    #expect(driver.outcome(driver.send("GET", "http://api.test/x").flow)?.body == "forward")
    #expect(!ReplayDriver(CaptureBuilder().capture).source.allowsNetwork)
}

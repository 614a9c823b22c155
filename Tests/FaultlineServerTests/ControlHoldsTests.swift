import FaultlineConfig
import FaultlineCore
import FaultlineHTTP1
import FaultlinePosix
import FaultlineServer
import FaultlineTrace
import Foundation
import Synchronization
import Testing

/// Held flows through the control API: listing, waiting (long poll), release, answer, fail, marks.
@Suite struct ControlHoldsTests {
    @Test func aHeldRequestIsListedAndReleaseContinuesIt() throws {
        try withControl { harness in
            let client = try harness.sendThroughProxy("/held")
            let waited = try harness.waitForHold("gate")
            #expect(waited.string("/name") == "gate")

            let list = try #require(try harness.call("GET", "/v1/holds").json)
            let hold = try #require(list.elements().first)
            #expect(list.elements().count == 1)
            #expect(hold.string("/name") == "gate")
            #expect(hold.string("/phase") == "request")
            #expect(hold.string("/summary") == "GET \(harness.url("/held"))")
            #expect(hold.int("/id") == waited.int("/id"))
            #expect(hold.int("/flow") != nil && hold.int("/connection") != nil && hold.int("/held_ms") != nil)
            #expect(hold.value(at: "/release_on") == .null)
            #expect(harness.origin.requestsServed.load(ordering: .relaxed) == 0, "a held request stays here")

            let release = try harness.call("POST", "/v1/holds/gate/release")
            #expect(release.status == 200)
            #expect(release.json?.elements("/released").first?.int("/id") == waited.int("/id"))
            let response = try client.readResponse()
            #expect(response.status == 200)
            #expect(response.body == "/held")
            #expect(try harness.call("GET", "/v1/holds").json?.elements().isEmpty == true)
        }
    }

    @Test func aWaitIssuedBeforeTheFlowArrivesAnswersWhenItArrives() throws {
        try withControl { harness in
            let raw = RawControlConnection(address: harness.controlAddress)
            let waiting = try raw.open()
            try raw.send(
                waiting,
                "GET /v1/holds/gate/wait?timeout=5 HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(ControlHarness.token)\r\n\r\n"
            )
            // Health counts pending waits: once it says 1, the wait is registered.
            #expect(try harness.eventually { try harness.call("GET", "/v1/health").json?.int("/waits") == 1 })
            #expect(try harness.call("GET", "/v1/holds").json?.elements().isEmpty == true)

            let client = try harness.sendThroughProxy("/held")
            let answer = try raw.readUntil(waiting) { $0.contains("\"name\":\"gate\"") }
            #expect(answer.hasPrefix("HTTP/1.1 200 OK"))
            #expect(answer.contains("\"summary\":\"GET \(harness.url("/held"))\""))
            #expect(try harness.call("GET", "/v1/health").json?.int("/waits") == 0)

            try harness.call("POST", "/v1/holds/gate/release")
            #expect(try client.readResponse().body == "/held")
        }
    }

    @Test func aWaitForANameThatNeverAppearsIs408AfterItsTimeout() throws {
        try withControl { harness in
            let start = MonotonicInstant.now()
            let response = try harness.call("GET", "/v1/holds/never/wait?timeout=0.2", wait: .seconds(1))
            let elapsed = start.duration(to: .now())
            #expect(response.status == 408)
            #expect(response.errorMessage.contains("no hold named 'never' appeared within 0.2 s"))
            // A timer cannot fire early; the upper bound is the client's own deadline (1 s + 5 s).
            #expect(elapsed >= .milliseconds(200))
            #expect(try harness.call("GET", "/v1/health").json?.int("/waits") == 0)
        }
    }

    @Test func waitTimeoutsOutsideTheRangeAre400() throws {
        try withControl { harness in
            for bad in ["-1", "301", "soon", "nan"] {
                let response = try harness.call("GET", "/v1/holds/x/wait?timeout=\(bad)")
                #expect(response.status == 400, "timeout=\(bad)")
                #expect(response.errorMessage.contains("from 0 to 300"))
            }
        }
    }

    @Test func aWaitWhoseClientLeavesIsCancelled() throws {
        try withControl { harness in
            let raw = RawControlConnection(address: harness.controlAddress)
            let waiting = try raw.open()
            try raw.send(
                waiting,
                "GET /v1/holds/gate/wait?timeout=60 HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(ControlHarness.token)\r\n\r\n"
            )
            #expect(try harness.eventually { try harness.call("GET", "/v1/health").json?.int("/waits") == 1 })
            waiting.close()
            #expect(try harness.eventually { try harness.call("GET", "/v1/health").json?.int("/waits") == 0 })
        }
    }

    @Test func releaseWithAStatusAnswersThatInsteadOfTheOrigin() throws {
        try withControl { harness in
            let client = try harness.sendThroughProxy("/held")
            try harness.waitForHold("gate")
            let release = try harness.call(
                "POST", "/v1/holds/gate/release",
                json: #"{"status": 503, "headers": {"Retry-After": "7"}, "body": "come back later"}"#)
            #expect(release.status == 200)
            let response = try client.readResponse()
            #expect(response.status == 503)
            #expect(response.headers.first(name: "retry-after") == "7")
            #expect(response.body == "come back later")
            #expect(harness.origin.requestsServed.load(ordering: .relaxed) == 0)
        }
    }

    @Test func releaseByIdAndAllPickTheirHolds() throws {
        try withControl { harness in
            let first = try harness.sendThroughProxy("/held")
            try harness.waitForHold("gate")
            let second = try harness.sendThroughProxy("/held")
            #expect(try harness.eventually { try harness.call("GET", "/v1/holds").json?.elements().count == 2 })
            let ids = try #require(try harness.call("GET", "/v1/holds").json).elements().compactMap { $0.int("/id") }

            // The newer one by id, with its own answer; the older one stays held.
            let byID = try harness.call("POST", "/v1/holds/gate/release", json: #"{"id": \#(ids[1]), "status": 202}"#)
            #expect(byID.json?.elements("/released").map { $0.int("/id") } == [ids[1]])
            #expect(try second.readResponse().status == 202)
            #expect(try harness.call("GET", "/v1/holds").json?.elements().map { $0.int("/id") } == [ids[0]])

            let third = try harness.sendThroughProxy("/held")
            #expect(try harness.eventually { try harness.call("GET", "/v1/holds").json?.elements().count == 2 })
            let all = try harness.call("POST", "/v1/holds/gate/release", json: #"{"all": true}"#)
            #expect(all.json?.elements("/released").count == 2)
            #expect(try first.readResponse().body == "/held")
            #expect(try third.readResponse().body == "/held")
        }
    }

    @Test func releasingANameNobodyHoldsIs404WithASuggestion() throws {
        try withControl { harness in
            let client = try harness.sendThroughProxy("/held")
            try harness.waitForHold("gate")
            let missing = try harness.call("POST", "/v1/holds/gaet/release")
            #expect(missing.status == 404)
            #expect(missing.json?.string("/suggestion") == "gate")
            #expect(missing.errorMessage.contains("held now: gate"))
            let wrongID = try harness.call("POST", "/v1/holds/gate/release", json: #"{"id": 999}"#)
            #expect(wrongID.status == 404)
            try harness.call("POST", "/v1/holds/gate/release")
            #expect(try client.readResponse().status == 200)
        }
    }

    @Test func failResetsTheHeldClient() throws {
        try withControl { harness in
            let client = try harness.sendThroughProxy("/held")
            try harness.waitForHold("gate")
            let fail = try harness.call("POST", "/v1/holds/gate/fail")
            #expect(fail.status == 200)
            #expect(fail.json?.elements("/failed").count == 1)
            #expect(throws: (any Error).self) { try client.readResponse() }
            #expect(harness.origin.requestsServed.load(ordering: .relaxed) == 0)
            let ended = try #require(try harness.events().first { $0.kind == "hold.ended" })
            #expect(ended.string("outcome") == "failed")
        }
    }

    @Test func aMarkIsTracedWithItsAttributesAndReleasesAHoldWaitingForIt() throws {
        try withControl { harness in
            let client = try harness.sendThroughProxy("/marked")
            let hold = try harness.waitForHold("markgate")
            #expect(hold.string("/release_on") == "mark:go")

            let marked = try harness.call("POST", "/v1/marks", json: #"{"label": "go", "attributes": {"step": "3"}}"#)
            #expect(marked.status == 200)
            #expect(marked.json?.string("/marked") == "go")
            #expect(try client.readResponse().body == "/marked")

            let events = try harness.events()
            let mark = try #require(events.first { $0.kind == .mark })
            #expect(mark.string("label") == "go")
            #expect(mark.string("step") == "3")
            let ended = try #require(events.first { $0.kind == "hold.ended" })
            #expect(mark.seq < ended.seq, "the mark is traced before the hold it releases ends")
        }
    }

    @Test func reservedMarkAttributesAre400() throws {
        try withControl { harness in
            for key in ["seq", "event", "label", "flow"] {
                let response = try harness.call(
                    "POST", "/v1/marks", json: #"{"label": "x", "attributes": {"\#(key)": "1"}}"#)
                #expect(response.status == 400, "attribute \(key)")
            }
            #expect(try harness.events().allSatisfy { $0.kind != .mark })
        }
    }
}

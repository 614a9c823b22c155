import FaultlineCore
import FaultlineFlow
import FaultlineHTTP1
import FaultlineRules
import FaultlineTrace
import Testing

/// The `duplicate` action: when the copies are handed to the driver, what they carry, and a copy's
/// own flow, which sends the whole body and drops its response.
@Suite struct DuplicateTests {
    /// Copies need the whole body, so the decision waits for it; before-response copies start once
    /// the original is forwarded.
    @Test func beforeResponseCopiesStartWhenTheOriginalIsForwarded() throws {
        let play = StrictPlaybook(
            FlowFixtures.post("http://api.test/jobs/7/complete", length: 2),
            rules:
                #"{ name: "twice", actions: [{ duplicate: { count: 2, spacing: 0.5, timing: "before-response" } }] }"#)
        play.expectNothing()
        play.requestBody("ok")
        play.expectNothing()
        play.requestEnd()
        play.expect(
            Lines.decidedBusiness + Lines.fired("twice") + [
                "open http://api.test:80", "send head POST /jobs/7/complete known(2)", "send body 2", "send end",
            ])
        play.connected()
        play.expect(
            Lines.forwarded(body: 2) + [
                "trace duplicate.scheduled count=2 spacing_s=0.5 timing=before-response", "duplicate x2 every 0.5s",
            ])
        let copy = try #require(play.duplicates.first)
        #expect(copy.original == play.id)
        #expect(copy.body == Array("ok".utf8))
        #expect(copy.outbound.target == "/jobs/7/complete")
        #expect(copy.outbound.body == .known(2))
        #expect(copy.request.body == .known(2))
        play.upstreamHead(200, length: .known(0))
        play.upstreamEnd()
        play.expect(Lines.responded() + ["client head 200 known(0) upstream"] + Lines.delivered(body: 0))
    }

    @Test func afterResponseCopiesStartOnceTheResponseIsDelivered() throws {
        let play = StrictPlaybook(FlowFixtures.get(), rules: #"{ name: "again", actions: [{ duplicate: {} }] }"#)
        play.expect(Lines.decidedBusiness + Lines.fired("again") + Lines.sendGet)
        play.connected()
        play.upstreamHead(200, length: .known(2))
        play.upstreamBody("ok")
        play.expect(Lines.forwarded() + Lines.responded() + ["client head 200 known(2) upstream", "client body 2"])
        play.upstreamEnd()
        play.expect([
            "client end", "trace response.delivered status=200 body=2",
            "trace duplicate.scheduled count=1 spacing_s=0 timing=after-response", "duplicate x1", "release upstream",
            "ended finished",
        ])
        let copy = try #require(play.duplicates.first)
        #expect(copy.body.isEmpty)
        #expect(copy.outbound.body == .none)
    }

    /// A retry on a fresh connection forwards the request again, but the copies were already
    /// started: they are not handed over twice.
    @Test func aRetriedRequestIsNotCopiedAgain() {
        let play = StrictPlaybook(
            FlowFixtures.get(), rules: #"{ name: "d", actions: [{ duplicate: { timing: "before-response" } }] }"#)
        play.expect(Lines.decidedBusiness + Lines.fired("d") + Lines.sendGet)
        play.connected(reused: true)
        play.expect(
            Lines.forwarded() + [
                "trace duplicate.scheduled count=1 spacing_s=0 timing=before-response", "duplicate x1",
            ])
        play.connected(reused: false)
        play.expect(Lines.forwarded())
        #expect(play.duplicates.count == 1)
    }

    /// A request rewrite applies to the copies too: they are the request as it went upstream.
    @Test func copiesCarryTheRewrittenRequest() throws {
        let play = StrictPlaybook(
            FlowFixtures.post(length: 3),
            rules:
                #"{ name: "d", actions: [{ duplicate: { timing: "before-response" } }, { rewrite: { path: "/v2/jobs", body: "new!" } }] }"#
        )
        play.requestBody("old")
        play.requestEnd()
        play.connected()
        play.expect(
            Lines.decidedBusiness + Lines.fired("d") + [
                "open http://api.test:80", "send head POST /v2/jobs known(4)", "send body 4", "send end",
            ] + Lines.forwarded(body: 4) + [
                "trace duplicate.scheduled count=1 spacing_s=0 timing=before-response", "duplicate x1",
            ])
        let copy = try #require(play.duplicates.first)
        #expect(copy.body == Array("new!".utf8))
        #expect(copy.outbound.target == "/v2/jobs")
    }

    /// A body over the limit is too large to keep for later: the copies start as soon as the
    /// decision is made and get the body as it arrives, then its end.
    @Test func aBodyOverTheLimitStreamsToTheCopies() throws {
        let play = StrictPlaybook(
            FlowFixtures.post(length: 6),
            rules: #"{ name: "d", actions: [{ duplicate: { count: 2, spacing: 1, timing: "before-response" } }] }"#,
            bodyLimit: 4)
        play.requestBody("12345")
        play.expect(
            Lines.decidedBusiness + Lines.fired("d") + [
                "trace duplicate.scheduled count=2 spacing_s=0 timing=streamed", "duplicate x2 streamed body=5",
                "open http://api.test:80", "send head POST /jobs known(6)", "send body 5",
            ])
        let copy = try #require(play.duplicates.first)
        #expect(copy.body == Array("12345".utf8))
        #expect(copy.outbound.body == .known(6))
        play.requestBody("6")
        play.expect(["duplicate body 1", "send body 1"])
        play.requestEnd()
        play.expect(["duplicate end", "send end"])
        play.connected()
        play.expect(Lines.forwarded(body: 6))  // the copies already started: nothing is scheduled here
        play.upstreamHead(200, length: .known(0))
        play.upstreamEnd()
        play.expect(Lines.responded() + ["client head 200 known(0) upstream"] + Lines.delivered(body: 0))
    }

    /// Streamed copies of a flow that ends before its body does are told the body never comes,
    /// and nothing more after the end.
    @Test func streamedCopiesOfAFailedFlowEndWithIt() {
        let play = StrictPlaybook(
            FlowFixtures.post(length: 10), rules: #"{ name: "d", actions: [{ duplicate: {} }] }"#, bodyLimit: 4)
        play.requestBody("12345")
        play.expect(
            Lines.decidedBusiness + Lines.fired("d") + [
                "trace duplicate.scheduled count=1 spacing_s=0 timing=streamed", "duplicate x1 streamed body=5",
                "open http://api.test:80", "send head POST /jobs known(10)", "send body 5",
            ])
        play.upstreamFailed(.connectRefused("api.test:80", "connection refused"))
        play.expect([
            "trace upstream.error code=connect-failed status=502", "close upstream",
            "client head 502 known(61) proxy-error",
            "client body 61", "client end", "trace response.delivered status=502 synthetic=true code=connect-failed",
            "duplicate end incomplete", "ended failed",
        ])
        play.requestBody("67890")
        play.requestEnd()
        play.expectNothing()

    }

    /// The copy's own flow: no rules, the whole body at once, and its response read and dropped.
    @Test func aCopySendsItsWholeBodyAndDiscardsItsResponse() throws {
        let original = StrictPlaybook(
            FlowFixtures.post(length: 2),
            rules: #"{ name: "d", actions: [{ duplicate: { timing: "before-response" } }] }"#)
        original.requestBody("ok")
        original.requestEnd()
        original.connected()
        original.expect(
            Lines.decidedBusiness + Lines.fired("d") + [
                "open http://api.test:80", "send head POST /jobs known(2)", "send body 2", "send end",
            ] + Lines.forwarded(body: 2) + [
                "trace duplicate.scheduled count=1 spacing_s=0 timing=before-response", "duplicate x1",
            ])
        let copy = StrictPlaybook(duplicate: try #require(original.duplicates.first), id: FlowID(2))
        copy.expect([
            "trace request.received duplicate_of=1", "open http://api.test:80", "send head POST /jobs known(2)",
            "send body 2", "send end",
        ])
        copy.connected()
        copy.expect(["trace request.forwarded body=2 duplicate_of=1", "arm responseHead 60s"])
        copy.upstreamInterim(100)
        copy.upstreamHead(201, length: .known(4))
        copy.upstreamBody("done")
        copy.expect(["cancel responseHead", "trace response.received status=201 duplicate_of=1"])
        copy.upstreamEnd()
        copy.expect([
            "trace response.discarded status=201 length=4 duplicate_of=1", "release upstream", "ended finished",
        ])
        #expect(copy.upstreamText == "ok")
        copy.everyInput()
        copy.expectNothing()
    }

    /// A copy whose upstream fails ends without answering anyone.
    @Test func aCopyWhoseUpstreamFailsAnswersNobody() throws {
        let original = StrictPlaybook(
            FlowFixtures.get(), rules: #"{ name: "d", actions: [{ duplicate: { timing: "before-response" } }] }"#)
        original.connected()
        original.expect(
            Lines.decidedBusiness + Lines.fired("d") + Lines.sendGet + Lines.forwarded()
                + ["trace duplicate.scheduled count=1 spacing_s=0 timing=before-response", "duplicate x1"])
        let copy = StrictPlaybook(duplicate: try #require(original.duplicates.first), id: FlowID(5))
        copy.expect(["trace request.received duplicate_of=1"] + Lines.sendGet)
        copy.connected()
        copy.expect(["trace request.forwarded body=0 duplicate_of=1", "arm responseHead 60s"])
        copy.upstreamFailed(.closedBeforeResponse("http://api.test:80"))
        copy.expect([
            "trace upstream.error code=upstream-closed status=502", "close upstream", "cancel responseHead",
            "ended failed",
        ])
        #expect(copy.field("duplicate_of", of: "upstream.error") == "1")
    }
}

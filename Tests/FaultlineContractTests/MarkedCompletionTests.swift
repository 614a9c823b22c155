import FaultlineConfig
import FaultlineContract
import Testing

/// exactly-once, counting the app's own completions: step marks named after a declared callback
/// (`step complete job=42 outcome=succeeded`, written in process by `TestProxy.step`).
@Suite struct MarkedCompletionTests {
    /// The pipeline of `PipelineClauseTests`, with a completion the app runs itself (no request).
    static let contractText = """
        {
          steps: [{ name: "write", match: { method: "POST", path: "/jobs/{job}/write" } }],
          callbacks: [{ name: "complete", key: "job", after: "write" }],
        }
        """

    static func contract(_ text: String = contractText) throws -> Contract {
        let (contract, errors) = ContractLoader.load(text: text, file: "marked.json5")
        #expect(errors.isEmpty, "\(errors)")
        return try #require(contract)
    }

    /// A written job 42, then the app's step marks for `complete`.
    static func written(completions outcomes: [String]) -> (trace: TraceBuilder, marks: [UInt64]) {
        var trace = TraceBuilder()
        trace.exchange("POST", "/jobs/42/write", status: 200, profile: false)
        let marks = outcomes.map { trace.mark("step complete job=42 outcome=\($0)") }
        return (trace, marks)
    }

    @Test func oneMarkedCompletionHolds() throws {
        let report = try Self.written(completions: ["started", "succeeded"]).trace.check(Self.contract())
        #expect(report.passed, "\(report.violations)")
        #expect(report.clausesChecked.contains(.exactlyOnce))
    }

    @Test func aCompletionMarkedTwiceBreaksExactlyOnce() throws {
        let (trace, marks) = Self.written(completions: ["succeeded", "succeeded"])
        let report = try trace.check(Self.contract())
        #expect(report.brokenClauses == [.exactlyOnce], "\(report.violations)")
        let violation = try #require(report.violations.first)
        #expect(
            violation.summary
                == "The callback complete for job 42 was delivered 2 times (seq \(marks[0]), seq \(marks[1]))")
        #expect(violation.witnesses == marks)
        #expect(violation.timeline.last?.note == "callback again: mark 'step complete job=42 outcome=succeeded'")
        #expect(violation.timeline.last?.marker == .offending)
    }

    @Test func aFailedCompletionIsARejectedAttempt() throws {
        let retried = try Self.written(completions: ["failed", "succeeded"]).trace.check(Self.contract())
        #expect(retried.passed, "\(retried.violations)")
        let (trace, marks) = Self.written(completions: ["failed"])
        let report = try trace.check(Self.contract())
        let violation = try #require(report.violations(of: .exactlyOnce).first)
        #expect(violation.summary.hasPrefix("The callback complete for job 42 was sent 1 time but never accepted"))
        #expect(violation.timeline.contains { $0.seq == marks[0] && $0.note.hasPrefix("callback rejected: mark") })
    }

    @Test func startedCancelledOrOtherStepsDeliverNothing() throws {
        var trace = Self.written(completions: ["started", "cancelled"]).trace
        trace.mark("step completed job=42 outcome=succeeded")
        trace.mark("complete job=42 outcome=succeeded")
        let report = try trace.check(Self.contract())
        let violation = try #require(report.violations(of: .exactlyOnce).first)
        #expect(
            violation.summary.hasPrefix("The callback complete for job 42 was never sent, although write succeeded"))
    }

    @Test func eachJobIsCountedApart() throws {
        var trace = Self.written(completions: ["succeeded"]).trace
        trace.mark("step complete job=43 outcome=succeeded")
        #expect(try trace.check(Self.contract()).passed)
    }

    /// A callback with a request pattern counts the app's marks of its name as well: a completion
    /// sent over the wire and also run in process is two deliveries.
    @Test func aRequestAndAMarkOfOneCallbackAreTwoDeliveries() throws {
        let contract = try Self.contract(
            """
            { callbacks: [{ name: "complete", match: { method: "POST", path: "/jobs/{job}/complete" } }] }
            """)
        var trace = TraceBuilder()
        trace.exchange("POST", "/jobs/42/complete", status: 200, profile: false)
        #expect(try trace.check(contract).passed)
        trace.mark("step complete job=42 outcome=succeeded")
        let report = try trace.check(contract)
        #expect(report.violations(of: .exactlyOnce).first?.summary.contains("was delivered 2 times") == true)
    }

    @Test func aCallbackNeedsAMatchOrAName() {
        let (_, missing) = ContractLoader.load(text: "{ callbacks: [{ key: \"job\" }] }", file: "c.json5")
        #expect(
            missing.map(\.description) == [
                "c.json5:1:15: callback 1 needs 'match' (the callback's request), or a 'name' for a completion the app marks itself as a step"
            ])
        let (_, keyless) = ContractLoader.load(
            text: "{ callbacks: [{ name: \"complete\", required: [\"7\"] }] }", file: "c.json5")
        #expect(keyless.first?.description.hasSuffix("this callback has no key (it names no 'key')") == true)
    }
}

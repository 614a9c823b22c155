import FaultlineConfig
import FaultlineContract
import Testing

/// exactly-once and dependency-respected, on the operation-cancellation article's pipeline.
@Suite struct PipelineClauseTests {
    static let contractText = """
        {
          steps: [
            { name: "download", match: { method: "POST", path: "/jobs/{job}/download" } },
            { name: "convert", match: { method: "POST", path: "/jobs/{job}/convert" } },
            { name: "write", match: { method: "POST", path: "/jobs/{job}/write" } },
          ],
          dependencies: [{ step: "convert", needs: "download" }, { step: "write", needs: "convert" }],
          cancel: { mark: "cancel", key: "job" },
          commit: ["write"],
          callbacks: [{ match: { method: "POST", path: "/jobs/{job}/complete" }, key: "job", after: "write" }],
        }
        """

    static func contract() throws -> Contract {
        let (contract, errors) = ContractLoader.load(text: contractText, file: "pipeline.json5")
        #expect(errors.isEmpty, "\(errors)")
        return try #require(contract)
    }

    static func pipeline(job: String, download: Int = 200, callbacks: Int = 1) -> TraceBuilder {
        var trace = TraceBuilder()
        trace.exchange("POST", "/jobs/\(job)/download", status: download, profile: false)
        if download < 400 {
            trace.exchange("POST", "/jobs/\(job)/convert", status: 200, profile: false)
            trace.exchange("POST", "/jobs/\(job)/write", status: 200, profile: false)
        }
        for _ in 0..<callbacks { trace.exchange("POST", "/jobs/\(job)/complete", status: 200, profile: false) }
        return trace
    }

    @Test func aCompletePipelinePasses() throws {
        let report = try Self.pipeline(job: "42").check(Self.contract())
        #expect(report.passed, "\(report.violations)")
        #expect(report.clausesChecked.contains(.exactlyOnce) && report.clausesChecked.contains(.dependencyRespected))
    }

    @Test func aCallbackTwiceFails() throws {
        let report = try Self.pipeline(job: "42", callbacks: 2).check(Self.contract())
        #expect(report.brokenClauses == [.exactlyOnce], "\(report.violations)")
        let violation = try #require(report.violations.first)
        #expect(violation.summary.hasPrefix("The callback POST /jobs/42/complete for job 42 was delivered 2 times"))
        #expect(violation.witnesses.count == 2)
        #expect(violation.details["key"] == "42")
    }

    @Test func aCallbackNeverSentAfterTheWriteFails() throws {
        let report = try Self.pipeline(job: "42", callbacks: 0).check(Self.contract())
        #expect(report.brokenClauses == [.exactlyOnce], "\(report.violations)")
        #expect(report.violations[0].summary.contains("was never sent, although write succeeded at seq"))
    }

    @Test func noCallbackIsNeededForAJobThatFailed() throws {
        let report = try Self.pipeline(job: "7", download: 503, callbacks: 0).check(Self.contract())
        #expect(report.passed, "\(report.violations)")
    }

    @Test func aCallbackRetriedAfterARejectionCountsOnce() throws {
        var trace = Self.pipeline(job: "42", callbacks: 0)
        trace.exchange("POST", "/jobs/42/complete", status: 503, profile: false)
        trace.exchange("POST", "/jobs/42/complete", status: 200, profile: false)
        #expect(try trace.check(Self.contract()).passed)
    }

    @Test func requiredKeysMustAppear() throws {
        let text = """
            { callbacks: [{ match: { method: "POST", path: "/jobs/{job}/complete" }, required: ["42", 43] }] }
            """
        let (contract, errors) = ContractLoader.load(text: text, file: "required.json5")
        #expect(errors.isEmpty, "\(errors)")
        var trace = TraceBuilder()
        trace.exchange("POST", "/jobs/42/complete", status: 200, profile: false)
        let report = try trace.check(try #require(contract))
        #expect(report.violations.count == 1)
        #expect(report.violations.first?.details["key"] == "43")
    }

    @Test func proxyDuplicatesOfACallbackDoNotCount() throws {
        var trace = Self.pipeline(job: "42")
        // What the proxy writes for a `duplicate` copy: its own flow, forwarded, answer discarded.
        let copy = trace.request("POST", "/jobs/42/complete", duplicateOf: 4).flow
        trace.event("request.forwarded", flow: copy, conn: 900, ["upstream_conn": 900, "duplicate_of": 4])
        trace.event("response.received", flow: copy, ["status": 200, "duplicate_of": 4])
        trace.event("response.discarded", flow: copy, ["status": 200, "length": 0, "duplicate_of": 4])
        #expect(try trace.check(Self.contract()).passed)
    }

    @Test func convertAfterAFailedDownloadFails() throws {
        var trace = Self.pipeline(job: "42", download: 500, callbacks: 0)
        let convert = trace.exchange("POST", "/jobs/42/convert", status: 200, profile: false)
        let report = try trace.check(Self.contract())
        #expect(report.brokenClauses == [.dependencyRespected], "\(report.violations)")
        let violation = try #require(report.violations.first)
        #expect(
            violation.summary.hasPrefix(
                "POST /jobs/42/convert (convert of job 42) was requested at seq \(convert.seq) after download of job 42 failed with 500"
            ))
        #expect(violation.timeline.contains { $0.marker == .boundary && $0.status == 500 })
    }

    @Test func convertWhileDownloadRunsFails() throws {
        var trace = TraceBuilder()
        let download = trace.request("POST", "/jobs/42/download", profile: false)
        trace.forward(download.flow)
        trace.exchange("POST", "/jobs/42/convert", status: 200, profile: false)
        trace.deliver(download.flow, 200)
        let report = try trace.check(Self.contract())
        #expect(
            report.violations.first?.summary.contains(
                "while download of job 42 sent at seq \(download.seq) was still running") == true)
    }

    @Test func convertForAnotherJobIsIndependent() throws {
        var trace = TraceBuilder()
        trace.exchange("POST", "/jobs/1/download", status: 500, profile: false)
        trace.exchange("POST", "/jobs/2/download", status: 200, profile: false)
        trace.exchange("POST", "/jobs/2/convert", status: 200, profile: false)
        #expect(try trace.check(Self.contract()).passed)
    }

    @Test func downloadRetriedSuccessfullyAllowsConvert() throws {
        var trace = TraceBuilder()
        trace.exchange("POST", "/jobs/42/download", status: 503, profile: false)
        trace.exchange("POST", "/jobs/42/download", status: 200, profile: false)
        trace.exchange("POST", "/jobs/42/convert", status: 200, profile: false)
        #expect(try trace.check(Self.contract()).passed)
    }

    @Test func convertAfterADownloadThatFailedOnItsRerunFails() throws {
        var trace = TraceBuilder()
        trace.exchange("POST", "/jobs/42/download", status: 200, profile: false)
        trace.exchange("POST", "/jobs/42/download", status: 500, profile: false)  // the latest outcome counts
        trace.exchange("POST", "/jobs/42/convert", status: 200, profile: false)
        let report = try trace.check(Self.contract())
        #expect(report.brokenClauses == [.dependencyRespected], "\(report.violations)")
        #expect(report.violations.first?.summary.contains("after download of job 42 failed with 500") == true)
    }

    @Test func writeAfterACancelMarkFails() throws {
        var trace = TraceBuilder()
        trace.exchange("POST", "/jobs/42/download", status: 200, profile: false)
        trace.exchange("POST", "/jobs/42/convert", status: 200, profile: false)
        let mark = trace.mark("cancel job=42")
        let write = trace.exchange("POST", "/jobs/42/write", status: 200, profile: false)
        #expect(write.seq == mark + 1)
        let report = try trace.check(Self.contract())
        // The write succeeded, so its callback is owed too: only the commit is wrong here.
        trace.exchange("POST", "/jobs/42/complete", status: 200, profile: false)
        let withCallback = try trace.check(Self.contract())
        #expect(withCallback.brokenClauses == [.dependencyRespected], "\(withCallback.violations)")
        let violation = try #require(report.violations(of: .dependencyRespected).first)
        #expect(
            violation.summary
                == "POST /jobs/42/write (write of job 42, a commit) was requested at seq \(write.seq), 1 event after the mark 'cancel job=42' at seq \(mark)"
        )
    }

    @Test func cancelOfAnotherJobOrAfterTheCommitPasses() throws {
        var trace = TraceBuilder()
        trace.mark("cancel job=7")
        trace.exchange("POST", "/jobs/42/download", status: 200, profile: false)
        trace.exchange("POST", "/jobs/42/convert", status: 200, profile: false)
        trace.exchange("POST", "/jobs/42/write", status: 200, profile: false)
        trace.mark("cancel job=42")  // a committed job stays committed
        trace.exchange("POST", "/jobs/42/complete", status: 200, profile: false)
        #expect(try trace.check(Self.contract()).passed)
    }

    @Test func aBareCancelMarkCancelsEveryJob() throws {
        var trace = TraceBuilder()
        trace.exchange("POST", "/jobs/42/download", status: 200, profile: false)
        trace.exchange("POST", "/jobs/42/convert", status: 200, profile: false)
        trace.mark("cancel")
        trace.exchange("POST", "/jobs/42/write", status: 200, profile: false)
        #expect(try trace.check(Self.contract()).violations(of: .dependencyRespected).count == 1)
    }

    @Test func withoutDeclarationsPipelineClausesAreSkipped() throws {
        let report = try Self.pipeline(job: "42", callbacks: 2).check()
        #expect(report.passed)
        #expect(
            report.clausesSkipped.map(\.clause) == [
                .singleFlightRefresh, .noStaleRefresh, .logoutBoundary, .noReactivation, .exactlyOnce,
                .dependencyRespected,
            ])
    }
}

import FaultlineTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Cancellations seen from the client side: the proxy cannot tell a cancelled download from a
/// slow one, so the client's marks (written in process) are what lets dependency-respected see
/// a write committed after the cancel.
@Suite(.faultline(ruleSet: FixtureRules.downloadRules, backend: .reference, checksContract: false))
struct PipelineTests {
    /// The violation a commit after a cancel gives, or nil.
    static func commitAfterCancel(_ proxy: TestProxy) throws -> Violation? {
        let report = try proxy.checkContract(FixtureRules.pipeline)
        return report.violations.first { $0.clause == .dependencyRespected }
    }

    @Test func aCancelledDownloadThenAWriteBreaksTheContract() async throws {
        let faultline = try #require(Faultline.current)
        let jobs = Jobs(baseURL: faultline.baseURL)
        let job = try await jobs.create()
        let download = Task {
            try await faultline.proxy.tracking("download \(job)", cancelLabel: "cancel job=\(job)") {
                try await jobs.run("download", job: job)
            }
        }
        let held = try await faultline.proxy.waitForHold("download-response")
        download.cancel()
        _ = await download.result
        held.release()
        // The broken app writes anyway: a commit after its own cancel.
        _ = try await jobs.run("write", job: job)

        let violation = try #require(try Self.commitAfterCancel(faultline.proxy), "the cancel mark was not seen")
        #expect(violation.summary.contains("cancel job=\(job)"))
    }

    @Test func aWriteWithoutACancelKeepsTheContract() async throws {
        let faultline = try #require(Faultline.current)
        let jobs = Jobs(baseURL: faultline.baseURL)
        let job = try await jobs.create()
        let download = Task {
            try await faultline.proxy.tracking("download \(job)", cancelLabel: "cancel job=\(job)") {
                try await jobs.run("download", job: job)
            }
        }
        try await faultline.proxy.waitForHold("download-response").release()
        #expect(try await download.value == 200)
        #expect(try await jobs.run("convert", job: job) == 200)
        #expect(try await jobs.run("write", job: job) == 200)
        #expect(try Self.commitAfterCancel(faultline.proxy) == nil)
        #expect(try faultline.proxy.trace().events.contains { $0.kind.rawValue == "mark" })
    }

    @Test func aStepCancelledInTheAppThenAWriteBreaksTheContract() async throws {
        let faultline = try #require(Faultline.current)
        let jobs = Jobs(baseURL: faultline.baseURL)
        let job = try await jobs.create()
        // The app's own step (no request): it cancels the job's write in process...
        faultline.proxy.step("write", job: job, outcome: .cancelled)
        // ...and then sends it all the same.
        _ = try await jobs.run("write", job: job)
        let violation = try #require(try Self.commitAfterCancel(faultline.proxy))
        #expect(violation.summary.contains("outcome=cancelled"))
    }

    @Test func theTaskDelegateMarksACancelledTask() async throws {
        let faultline = try #require(Faultline.current)
        let marks = TaskMarks(proxy: faultline.proxy)
        let session = URLSession(configuration: .ephemeral, delegate: marks, delegateQueue: nil)
        defer { session.invalidateAndCancel() }
        let jobs = Jobs(baseURL: faultline.baseURL, session: session)
        let job = try await jobs.create()
        let task = session.dataTask(with: jobs.post("jobs/\(job)/download"))
        task.taskDescription = "job=\(job)"
        task.resume()
        let held = try await faultline.proxy.waitForHold("download-response")
        task.cancel()
        // The delegate marks the trace when the session reports the task's end.
        var marked = false
        for _ in 0..<100 where !marked {
            marked = try faultline.proxy.trace().events.contains { $0.kind.rawValue == "mark" }
            if !marked { try await Task.sleep(for: .milliseconds(50)) }
        }
        held.release()
        _ = try await jobs.run("write", job: job)
        let violation = try #require(try Self.commitAfterCancel(faultline.proxy), "the delegate wrote no cancel mark")
        #expect(violation.summary.contains("cancel job=\(job)"))
    }
}

extension PipelineTests {
    /// The app commits in process (no request): its own step mark after the cancel is judged.
    @Test func aWriteStepRunInTheAppAfterACancelBreaksTheContract() async throws {
        let faultline = try #require(Faultline.current)
        faultline.proxy.step("download", job: 9, outcome: .started)
        faultline.proxy.step("download", job: 9, outcome: .cancelled)
        faultline.proxy.step("write", job: 9, outcome: .started)
        let violation = try #require(try Self.commitAfterCancel(faultline.proxy))
        #expect(violation.summary.contains("write of job 9"))
        #expect(violation.summary.contains("'step download job=9 outcome=cancelled'"))
    }

    /// A write step before the cancel, or of another job, is no commit after a cancel.
    @Test func aWriteStepBeforeTheCancelKeepsTheContract() async throws {
        let faultline = try #require(Faultline.current)
        faultline.proxy.step("write", job: 10, outcome: .started)
        faultline.proxy.step("write", job: 10, outcome: .succeeded)
        faultline.proxy.mark("cancel job=10")
        faultline.proxy.step("write", job: 11, outcome: .started)
        #expect(try Self.commitAfterCancel(faultline.proxy) == nil)
        let report = try faultline.proxy.checkContract(FixtureRules.pipeline)
        #expect(report.clausesChecked.contains(.dependencyRespected))
    }
}

extension PipelineTests {
    /// A completion handler the app calls twice for one job (a retry path and a cancel path that
    /// both finish the job): no request shows it, the app's step marks do, and exactly-once
    /// counts them.
    @Test func aCompletionRunTwiceInTheAppBreaksExactlyOnce() async throws {
        let faultline = try #require(Faultline.current)
        let jobs = Jobs(baseURL: faultline.baseURL)
        let job = try await jobs.create()
        faultline.proxy.step("complete", job: job, outcome: .succeeded)
        let once = try faultline.proxy.checkContract(FixtureRules.completion)
        #expect(once.violations.isEmpty && once.clausesChecked.contains(.exactlyOnce))
        faultline.proxy.step("complete", job: job, outcome: .succeeded)
        let twice = try faultline.proxy.checkContract(FixtureRules.completion)
        let violation = try #require(twice.violations.first { $0.clause == .exactlyOnce })
        #expect(violation.summary.hasPrefix("The callback complete for job \(job) was delivered 2 times"))
    }
}

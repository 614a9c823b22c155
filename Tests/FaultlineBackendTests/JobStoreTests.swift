import FaultlineCore
import Testing

@testable import FaultlineBackend

@Suite struct JobStoreTests {
    @Test func stepsRunInOrderAndADependencyMustHaveSucceeded() {
        var jobs = JobStore()
        let job = jobs.create()
        #expect(job.id == 1)
        #expect(jobs.run(.convert, job: "1", forceFailure: false) == .dependencyNotMet(.download))
        #expect(jobs.run(.write, job: "1", forceFailure: false) == .dependencyNotMet(.convert))
        guard case .failed = jobs.run(.download, job: "1", forceFailure: true) else {
            Issue.record("a forced failure did not fail")
            return
        }
        #expect(jobs.run(.convert, job: "1", forceFailure: false) == .dependencyNotMet(.download))
        guard case .succeeded = jobs.run(.download, job: "1", forceFailure: false),
            case .succeeded = jobs.run(.convert, job: "1", forceFailure: false),
            case .succeeded(let done) = jobs.run(.write, job: "1", forceFailure: false)
        else {
            Issue.record("the pipeline did not succeed after a successful retry")
            return
        }
        #expect(done.attempts[.download] == 2 && done.state(.write) == .succeeded)
        // Refused steps did not run.
        #expect(done.attempts[.convert] == 1)
    }

    @Test func aJobCreatedToFailAStepFailsItEveryTime() {
        var jobs = JobStore()
        _ = jobs.create(failing: [.download])
        for _ in 0..<2 {
            guard case .failed = jobs.run(.download, job: "1", forceFailure: false) else {
                Issue.record("download succeeded")
                return
            }
        }
    }

    @Test func cancelStopsAWriteButNotOneAlreadyDone() {
        var jobs = JobStore()
        _ = jobs.create()
        _ = jobs.create()
        for id in ["1", "2"] {
            _ = jobs.run(.download, job: id, forceFailure: false)
            _ = jobs.run(.convert, job: id, forceFailure: false)
        }
        _ = jobs.run(.write, job: "2", forceFailure: false)
        #expect(jobs.cancel(job: "1")?.cancelled == true)
        #expect(jobs.run(.write, job: "1", forceFailure: false) == .cancelled)
        _ = jobs.cancel(job: "2")
        #expect(jobs.job("2")?.state(.write) == .succeeded)
    }

    @Test func completionsAreCountedPerIdEvenForUnknownJobs() {
        var jobs = JobStore()
        _ = jobs.create()
        #expect(jobs.complete(job: "1") == 1)
        #expect(jobs.complete(job: "1") == 2)
        #expect(jobs.complete(job: "x") == 1)
        #expect(jobs.completionCalls == ["1": 2, "x": 1])
    }

    @Test(arguments: ["0", "2", "01", "+1", "-1", "1.0", "", "99999999999999999999", "x"])
    func onlyExistingDecimalIdsNameAJob(_ id: String) {
        var jobs = JobStore()
        _ = jobs.create()
        #expect(jobs.job(id) == nil)
        #expect(jobs.run(.download, job: id, forceFailure: false) == .unknownJob)
    }
}

@Suite struct NoteStoreTests {
    @Test func anIdempotencyKeyReplaysTheFirstNoteForTheSameBodyOnly() {
        var notes = NoteStore()
        let body = Array(#"{"text":"hi"}"#.utf8)
        guard case .created(let first) = notes.create(account: "alice", body: body, idempotencyKey: "k1") else {
            Issue.record("not created")
            return
        }
        #expect(first.length == body.count && first.checksum == "fnv1a64:" + FNV1a.hex(body))
        #expect(notes.create(account: "alice", body: body, idempotencyKey: "k1") == .replayed(first))
        #expect(notes.create(account: "alice", body: Array("{}".utf8), idempotencyKey: "k1") == .keyReusedWithOtherBody)
        // Keys are per account; no key means a new note each time.
        guard case .created = notes.create(account: "bob", body: body, idempotencyKey: "k1"),
            case .created = notes.create(account: "alice", body: body, idempotencyKey: nil),
            case .created = notes.create(account: "alice", body: body, idempotencyKey: nil)
        else {
            Issue.record("a note was not created")
            return
        }
        #expect(notes.noteCount == 4 && notes.replayCount == 1)
    }
}

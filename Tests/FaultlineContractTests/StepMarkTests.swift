import Testing

@testable import FaultlineContract

/// How dependency-respected reads the testing library's step marks (`TestProxy.step`).
@Suite struct StepMarkTests {
    @Test func aCancelledStepCancelsTheKeyTheContractNames() {
        #expect(PipelineClauses.cancelledStep(label: "step write job=7 outcome=cancelled", key: "job") == .some("7"))
        #expect(PipelineClauses.cancelledStep(label: "step write outcome=cancelled", key: "job") == .some(nil))
        #expect(PipelineClauses.cancelledStep(label: "step write job=7 outcome=cancelled", key: nil) == .some(nil))
        #expect(PipelineClauses.cancelledStep(label: "step write job=7 outcome=started", key: "job") == nil)
        #expect(PipelineClauses.cancelledStep(label: "cancel job=7", key: "job") == nil)
    }

    @Test func aStartedOrSucceededStepIsACommittingStep() {
        let started = PipelineClauses.committingStep(label: "step write job=7 outcome=started", key: "job")
        #expect(started?.name == "write" && started?.key == "7")
        let succeeded = PipelineClauses.committingStep(label: "step write outcome=succeeded", key: "job")
        #expect(succeeded?.name == "write" && succeeded?.key == "")
        #expect(PipelineClauses.committingStep(label: "step write job=7 outcome=failed", key: "job") == nil)
        #expect(PipelineClauses.committingStep(label: "step", key: "job") == nil)
        #expect(PipelineClauses.committingStep(label: "task.completed", key: "job") == nil)
    }
}

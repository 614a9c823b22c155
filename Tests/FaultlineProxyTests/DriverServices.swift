import FaultlineCore
import FaultlineFlow
import FaultlineProxy
import FaultlineRules
import FaultlineTrace

/// What the driver does for a session besides I/O, for the playbooks, as FaultlineServer's
/// driver does it: record trace entries and lineage steps in a memory trace, so a test reads back
/// the trace a running proxy would write, and answer the flows' rule questions with the policy.
struct DriverServices {
    let recorder: TraceRecorder
    let policy: FlowPolicy?

    /// Records `action` if it is a trace entry or a lineage step; false for any other action.
    func record(_ action: ProxyAction) -> Bool {
        switch action {
        case .trace(let entry):
            recorder.record(entry)
        case .stepLineage(let flow, let connection, let step):
            for event in policy?.tracker?.perform(step) ?? [] {
                recorder.record(event.traceKind, connection: connection, flow: flow, event.traceFields)
            }
        default:
            return false
        }
        return true
    }

    /// The rules' answer to a flow's question.
    func answer(_ question: RuleQuestion) -> RuleAnswer {
        guard let policy else { preconditionFailure("a flow asked rules the playbook does not have") }
        return policy.answer(question)
    }
}

import FaultlineCore
import FaultlineFlow
import FaultlineProxy
import FaultlineRules
import FaultlineTrace

/// The trace side of the driver for the playbooks: a memory trace that records the entries and
/// lineage steps a session hands over, as FaultlineServer's driver does, so a test reads back
/// the trace a running proxy would write.
struct DriverTrace {
    let recorder: TraceRecorder
    let policy: FlowPolicy?

    /// Records `action` if it is a trace entry or a lineage step; false for any other action.
    func perform(_ action: ProxyAction) -> Bool {
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
}

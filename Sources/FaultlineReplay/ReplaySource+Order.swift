import FaultlineCapture
import FaultlineCore
import FaultlineFlow
import FaultlineHTTP1
import FaultlineServer
import FaultlineTrace
import Synchronization

/// `--order recorded`: answers parked until the recorded steps before them have happened.
extension ReplaySource {
    /// Parked answers whose recorded predecessors have all happened, removed from the parking lot.
    func releasable(_ state: inout State) -> [(Parked, [ReplayTraceEvent])] {
        guard let order = state.order else { return [] }
        var ready: [(Parked, [ReplayTraceEvent])] = []
        state.parked.removeAll { parked in
            guard order.missing(before: parked.recordedFlow).isEmpty else { return false }
            let waited = parked.since.duration(to: .now())
            ready.append(
                (
                    parked,
                    [
                        ReplayTraceEvent(
                            .replayReleased,
                            [.int("recorded_flow", parked.recordedFlow), .double("waited_s", waited.inSeconds)])
                    ]
                ))
            return true
        }
        return ready
    }

    func deliver(_ released: [(Parked, [ReplayTraceEvent])]) {
        for (parked, events) in released {
            switch parked.response {
            case .response(let head, let body, let trailers, let trace):
                parked.answer(.response(head, body: body, trailers: trailers, trace: trace + events))
            case .unavailable(let failure, let trace):
                parked.answer(.unavailable(failure, trace: trace + events))
            case .forward(let trace):
                parked.answer(.forward(trace: trace + events))
            }
        }
    }
}

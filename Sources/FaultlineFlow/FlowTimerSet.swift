/// The timers a flow has armed: four kinds in one byte (a `Set` would be a heap allocation and
/// hashing for every flow).
struct FlowTimerSet {
    private var bits: UInt8 = 0

    private static func bit(_ timer: FlowTimer) -> UInt8 {
        switch timer {
        case .responseHead: return 1
        case .delay: return 2
        case .holdDeadline: return 4
        case .stall: return 8
        }
    }

    func contains(_ timer: FlowTimer) -> Bool { bits & Self.bit(timer) != 0 }

    mutating func insert(_ timer: FlowTimer) { bits |= Self.bit(timer) }

    /// Removes `timer`; true if it was armed.
    mutating func remove(_ timer: FlowTimer) -> Bool {
        defer { bits &= ~Self.bit(timer) }
        return contains(timer)
    }

    mutating func removeAll() { bits = 0 }
}

import FaultlineCore

/// When a long replay says how far it got: at most one line a second, and whenever another tenth
/// of the requests is done; the driver asks it on every change and every tick.
public struct ReplayProgressMeter: Sendable {
    private var lastLineAt: Duration?
    private var lastTenth = 0
    public let total: Int

    public init(total: Int) {
        self.total = total
    }

    /// The line to print now, if one is due: a second since the last one, or a new tenth done.
    public mutating func update(finished: Int, differences: Int, elapsed: Duration) -> String? {
        let tenth = total == 0 ? 10 : finished * 10 / total
        let secondPassed = lastLineAt.map { elapsed - $0 >= .seconds(1) } ?? (elapsed >= .seconds(1))
        guard tenth > lastTenth || secondPassed, finished < total else { return nil }
        lastTenth = max(lastTenth, tenth)
        lastLineAt = elapsed
        return Self.line(finished: finished, total: total, differences: differences, elapsed: elapsed)
    }

    /// `faultline replay client: 37/120 requests (30 %), 2 different, 5.1 s`.
    public static func line(finished: Int, total: Int, differences: Int, elapsed: Duration) -> String {
        let percent = total == 0 ? 100 : finished * 100 / total
        let tenths = Int((elapsed.inSeconds * 10).rounded())
        return "faultline replay client: \(finished)/\(total) requests (\(percent) %), \(differences) different, "
            + "\(tenths / 10).\(tenths % 10) s"
    }
}

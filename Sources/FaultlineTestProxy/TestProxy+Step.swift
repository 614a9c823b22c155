extension TestProxy {
    /// How one of the app's own pipeline steps went, for ``step(_:job:outcome:)``.
    public enum StepOutcome: String, Sendable, CaseIterable {
        case started, succeeded, failed, cancelled
    }

    /// Marks one of the app's own pipeline steps in the trace, in process (no HTTP round trip,
    /// so the mark sits exactly where the app was when it called): `step write job=7
    /// outcome=cancelled`. A `cancelled` step counts as a cancel of its key for the contract's
    /// `cancel` declaration (`cancel: { mark: "cancel", key: "job" }`), so a commit step
    /// requested for that key afterwards breaks dependency-respected.
    ///
    /// ```swift
    /// proxy.step("write", job: 7, outcome: .cancelled)
    /// ```
    public func step(_ name: String, job: (any CustomStringConvertible & Sendable)? = nil, outcome: StepOutcome) {
        var words = ["step", name]
        var attributes = ["step": name, "outcome": outcome.rawValue]
        if let job {
            words.append("job=\(job)")
            attributes["job"] = "\(job)"
        }
        words.append("outcome=\(outcome.rawValue)")
        mark(words.joined(separator: " "), attributes)
    }
}

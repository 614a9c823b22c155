import FaultlineRules
public import FaultlineTrace

/// A labelled event a test writes into the trace (`cancel job=42`): traced as `mark` with its
/// attributes, then published so `after: "mark:<label>"` conditions and `release: { on:
/// "mark:<label>" }` holds see it. Used by the control API and the testing library alike.
public enum Mark {
    /// Keys attributes cannot use: the trace's own fields and the label.
    public static let reservedKeys: Set<String> = ["seq", "wall", "mono_ns", "event", "conn", "flow", "label"]

    public static func record(
        _ label: String, attributes: [(String, String)] = [], trace: TraceRecorder, rules: RuleRuntime
    ) {
        let fields = attributes.filter { !reservedKeys.contains($0.0) }.map { TraceField.string($0.0, $0.1) }
        trace.record(.mark, [.string("label", label)] + fields)
        rules.publish(.mark(label))
    }
}

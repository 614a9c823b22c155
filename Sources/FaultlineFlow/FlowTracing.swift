public import FaultlineRules
public import FaultlineTrace

/// What flows need of the trace besides handing it entries: a keyed body digest, so a body's
/// fingerprint equals the trace's fingerprint of the same bytes, and the capture settings when
/// the trace is a capture. Values, not the recorder: the flow core and the sessions never record.
public struct FlowTracing: Sendable {
    /// A fresh keyed digest per body (`TraceRecorder.makeBodyDigest`).
    public var makeBodyDigest: @Sendable () -> BodyDigest
    /// Set when the trace is a capture.
    public var capture: CaptureOptions?

    public init(makeBodyDigest: @escaping @Sendable () -> BodyDigest, capture: CaptureOptions? = nil) {
        self.makeBodyDigest = makeBodyDigest
        self.capture = capture
    }

    /// The digest key and capture settings of `trace`.
    public init(of trace: TraceRecorder) {
        self.init(makeBodyDigest: { trace.makeBodyDigest() }, capture: trace.capture)
    }
}

extension FlowEnvironment {
    /// An environment whose digests and capture settings come from `tracing`.
    public init(rules: (any FlowRules)?, responseTimeout: Duration, tracing: FlowTracing) {
        self.init(
            rules: rules, responseTimeout: responseTimeout, makeBodyDigest: tracing.makeBodyDigest,
            capture: tracing.capture)
    }
}

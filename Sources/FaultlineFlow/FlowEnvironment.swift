public import FaultlineRules
public import FaultlineTrace

/// What a flow is handed besides its request: what the rules need (flags; decisions are asked
/// for with `FlowAction.decide`), the response deadline and a way to fingerprint bodies. The one interface between the core and the
/// rest of the proxy; everything else goes out as `FlowAction`s.
public struct FlowEnvironment: Sendable {
    /// What the rules and the auth profile need; nil forwards every flow unchanged and costs nothing.
    public var rules: (any FlowRules)?
    /// How long to wait for the upstream's response head once the request is on its way (504 after).
    public var responseTimeout: Duration
    /// A keyed body digest for the trace (`TraceRecorder.makeBodyDigest`).
    public var makeBodyDigest: @Sendable () -> BodyDigest
    /// Set when the trace is a capture: the flow keeps the bodies of its upstream exchange (the
    /// request as sent, the response as received) up to `bodyLimit` bytes for the trace.
    public var capture: CaptureOptions?

    public init(
        rules: (any FlowRules)?, responseTimeout: Duration, makeBodyDigest: @escaping @Sendable () -> BodyDigest,
        capture: CaptureOptions? = nil
    ) {
        self.rules = rules
        self.responseTimeout = responseTimeout
        self.makeBodyDigest = makeBodyDigest
        self.capture = capture
    }
}
